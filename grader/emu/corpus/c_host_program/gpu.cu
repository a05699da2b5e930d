#include "gpu.h"

__global__ void absClampKernel(int *d, int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = min(abs(d[i]), limit);
}

extern "C" int gpu_abs_clamp(int *h, int n, int limit) {
  int *d;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
  absClampKernel<<<(n + 255) / 256, 256>>>(d, n, limit);
  cudaError_t e = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e != cudaSuccess;
}
