// Even lanes shuffle while odd lanes vote, with the same full mask.
// emu-test: expect fail
// emu-test: stderr lanes of mask 0xffffffff call different collectives
// emu-test: stderr __shfl_sync (bad_mixed_collectives.cu:12)
// emu-test: stderr __ballot_sync (bad_mixed_collectives.cu:14)
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void mixedKernel(unsigned *p) {
  unsigned v;
  if (threadIdx.x % 2 == 0)
    v = __shfl_sync(0xffffffffu, threadIdx.x, 0);
  else
    v = __ballot_sync(0xffffffffu, 1);
  p[threadIdx.x] = v;
}

int main() {
  unsigned *d;
  cudaMalloc(&d, 32 * sizeof(unsigned));
  mixedKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
