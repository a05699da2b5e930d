// The definitions: a __constant__ array, a __device__ counter and a __device__ function that
// kernels.cu calls from its kernel.
#include <cstdio>

#include "physics.cuh"

__constant__ float c_coeffs[NCOEFFS];
__device__ unsigned int d_evaluations = 0;

__device__ float polynomial(float x) {
  atomicAdd(&d_evaluations, 1u);
  float r = 0.0f;
  for (int k = NCOEFFS - 1; k >= 0; k--) r = r * x + c_coeffs[k];
  return r;
}

void setCoefficients(const float *coeffs) {
  cudaError_t e = cudaMemcpyToSymbol(c_coeffs, coeffs, NCOEFFS * sizeof(float));
  if (e != cudaSuccess) printf("cudaMemcpyToSymbol: %s\n", cudaGetErrorString(e));
}
