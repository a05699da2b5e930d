#include "helper_cuda_lite.h"

__global__ void iotaKernel(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

extern "C" int launchIota(int *out, int n) {
  iotaKernel<<<(n + 127) / 128, 128>>>(out, n);
  getLastCudaError("iotaKernel");
  return cudaDeviceSynchronize() != cudaSuccess;
}
