// The upper half-warp has returned; the lower half shuffles down by 16 with a full mask and
// so reads exited lanes.
// emu-test: expect fail
// emu-test: stderr __shfl_down_sync at bad_shfl_exited.cu:10 in block (0,0,0): lane 0 of warp 0 reads lane 16, which has exited
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void exitedKernel(int *p) {
  if (threadIdx.x >= 16) return;
  int v = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 16);
  p[threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  exitedKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
