// A shuffle width that is not a power of two.
// emu-test: expect fail
// emu-test: stderr __shfl_up_sync at bad_shfl_width.cu:8 in block (0,0,0): width 12 is not a power of two from 1 to 32
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void widthKernel(float *p) {
  float v = __shfl_up_sync(0xffffffffu, 1.5f * threadIdx.x, 1, 12);
  p[threadIdx.x] = v;
}

int main() {
  float *d;
  cudaMalloc(&d, 32 * sizeof(float));
  widthKernel<<<1, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
