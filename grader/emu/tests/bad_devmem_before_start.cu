// A shift that reads in[i - 1] without checking i > 0: thread 0 reads the int just before a
// device allocation, which faults at once on the guard page before it.
// emu-test: expect fail
// emu-test: rc -11
// emu-test: stderr emu: kernel shiftKernel, block (0,0,0), thread (0,0,0): 
// emu-test: stderr before the start of a device allocation of 4000 bytes (at byte offset 4 before its start)
// emu-test: stderr emu: kernel shiftKernel<<<(4,1,1), (256,1,1), 0>>> launched at bad_devmem_before_start.cu:21 failed
#include <cstdio>

__global__ void shiftKernel(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i - 1];
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 1000 * sizeof(int));
  cudaMalloc(&out, 1000 * sizeof(int));
  cudaMemset(in, 0, 1000 * sizeof(int));
  fflush(stdout);
  shiftKernel<<<4, 256>>>(in, out, 1000);
  cudaDeviceSynchronize();
  return 0;
}
