// A thread whose locals (a 200 KB array) need more than its stack: the frame jumps over the
// stack's guard page, so the fault lands elsewhere; the emu still names it an overflow. (A
// program built by emu-nvcc has 512 KiB per thread, as a GPU thread may have of local memory.)
// emu-test: expect fail
// emu-test: stderr fiber stack overflow: the thread's locals need more than its stack of 64 KiB
#include "emu_test.h"

__global__ void localKernel(float *out, int n) {
  float buf[50000];
  for (int i = 0; i < n; i++) buf[i] = i * 0.5f + threadIdx.x;
  float s = 0;
  for (int i = 0; i < n; i += 997) s += buf[i];
  out[threadIdx.x] = s;
}

int main() {
  float *d;
  CK(cudaMalloc(&d, 64 * sizeof(float)));
  localKernel<<<1, 64>>>(d, 50000);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
