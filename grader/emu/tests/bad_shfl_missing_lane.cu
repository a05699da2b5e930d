// A block of 48 threads: lane 15 of warp 1 shuffles down by one and reads lane 16, which
// does not exist.
// emu-test: expect fail
// emu-test: stderr __shfl_down_sync at bad_shfl_missing_lane.cu:9 in block (0,0,0): lane 15 of warp 1 reads lane 16, which does not exist (the block has 48 threads)
#include <cstdio>

__global__ void partialWarpKernel(int *p) {
  int v = threadIdx.x;
  v += __shfl_down_sync(0xffffffffu, v, 1);
  p[threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 48 * sizeof(int));
  partialWarpKernel<<<1, 48>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
