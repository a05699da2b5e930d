// Lanes 0-15 shuffle among themselves (mask 0x0000ffff) but read lane 20.
// emu-test: expect fail
// emu-test: stderr __shfl_sync at bad_shfl_outside.cu:9 in block (0,0,0): lane 0 of warp 0 reads lane 20, which is not in mask 0x0000ffff
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void outsideKernel(int *p) {
  if (threadIdx.x < 16) {
    int v = __shfl_sync(0x0000ffffu, (int)threadIdx.x, 20);
    p[threadIdx.x] = v;
  }
}

int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  outsideKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
