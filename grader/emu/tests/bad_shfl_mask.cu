// A lane calls __shfl_sync with a mask that leaves it out.
// emu-test: expect fail
// emu-test: stderr __shfl_sync at bad_shfl_mask.cu:8 in block (0,0,0): thread (3,0,0) (lane 3 of warp 0) calls it with mask 0x0000fff7, which does not include its lane
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void maskKernel(int *p) {
  int v = __shfl_sync(0x0000fff7u, (int)threadIdx.x, 4);
  p[threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  maskKernel<<<1, 16>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
