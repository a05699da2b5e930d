// One int past the end of a 1024-int allocation: 4096 bytes is a multiple of 256, so the
// allocation ends on the guard page, and the write faults at once. The emulator names the
// kernel, block and thread and the byte offset past the end, then the process dies of the
// signal, as a GPU context dies of an illegal address.
// emu-test: expect fail
// emu-test: rc -11
// emu-test: stderr emu: kernel fillKernel, block (4,0,0), thread (0,0,0): 
// emu-test: stderr past the end of a device allocation of 4096 bytes (at byte offset 0 past its end)
// emu-test: stderr emu: kernel fillKernel<<<(5,1,1), (256,1,1), 0>>> launched at bad_devmem_past_end.cu:20 failed
#include <cstdio>

__global__ void fillKernel(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) p[i] = i;
}

int main() {
  int *d;
  cudaMalloc(&d, 1024 * sizeof(int));
  fillKernel<<<5, 256>>>(d, 1024);
  cudaDeviceSynchronize();
  return 0;
}
