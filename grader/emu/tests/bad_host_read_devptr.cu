// Host code reads a device pointer after a kernel filled it, as if device memory were host
// memory: between launches device memory is inaccessible, as on a GPU, and the emulator says
// what happened before the process dies of the signal.
// emu-test: expect fail
// emu-test: rc -11
// emu-test: stderr emu: host code read
// emu-test: stderr device memory at offset 40 of a device allocation of 4000 bytes: on a GPU host code cannot dereference a device pointer; copy with cudaMemcpy
#include <cstdio>

__global__ void fillKernel(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}

int main() {
  int *d;
  cudaMalloc(&d, 1000 * sizeof(int));
  fillKernel<<<4, 256>>>(d, 1000);
  cudaDeviceSynchronize();
  int h;
  cudaMemcpy(&h, d + 10, sizeof h, cudaMemcpyDeviceToHost); /* the right way */
  printf("d[10] = %d\n", h);
  printf("d[10] = %d\n", d[10]); /* the wrong way */
  return 0;
}
