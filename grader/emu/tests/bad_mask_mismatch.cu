// Lane 1 calls __syncwarp with a mask of two lanes while the rest of the warp uses the full mask.
// emu-test: expect fail
// emu-test: stderr lanes disagree on the mask of __syncwarp
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void maskMismatchKernel(int *p) {
  if (threadIdx.x == 1)
    __syncwarp(0x3u);
  else
    __syncwarp();
  p[threadIdx.x] = 1;
}

int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  maskMismatchKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
