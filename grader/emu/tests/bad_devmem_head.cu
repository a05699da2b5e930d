// A write just before the start of a 400-byte allocation: the allocation ends near its guard
// page, so it starts inside its page, after a head of filled bytes; the write damages the head
// and the end of the launch reports it.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: kernel backKernel wrote before the start of a device allocation of 400 bytes (first damaged byte at byte offset 8 before its start), found when the launch ended
// emu-test: stdout sync: cudaErrorLaunchFailure
#include <cstdio>

__global__ void backKernel(double *p) {
  if (threadIdx.x == 0) p[-1] = 1.0;
}

int main() {
  double *d;
  cudaMalloc(&d, 50 * sizeof(double));
  backKernel<<<1, 64>>>(d);
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
