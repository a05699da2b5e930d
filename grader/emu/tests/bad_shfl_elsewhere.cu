// Half a warp calls a full-mask shuffle while the other half waits at __syncthreads.
// emu-test: expect fail
// emu-test: stderr deadlock in block (0,0,0)
// emu-test: stderr __shfl_xor_sync at bad_shfl_elsewhere.cu:11 in block (0,0,0): lane 0 of warp 0 waits for lane 16, which waits at __syncthreads (bad_shfl_elsewhere.cu:13)
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void elsewhereKernel(int *p) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) {
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  } else {
    __syncthreads();
  }
  p[threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  elsewhereKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
