// Half-precision dot products in the style of the CUDA samples' fp16 example: vectors of
// __half2 made on the host, products and sums of pairs with the half2 intrinsics, each block's
// partial sums reduced with warp shuffles in float and then in half, and the results checked
// against the host, which rounds the same products to half first.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

#define THREADS 128

// Each thread multiplies and adds its pairs with __hfma2 (one rounding to half per step),
// then the block adds the threads' sums in float.
__global__ void dotHalf2(const __half2 *a, const __half2 *b, float *blockSums, int pairs) {
  __shared__ float warpSums[THREADS / 32];
  __half2 acc = __float2half2_rn(0.0f);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x)
    acc = __hfma2(a[i], b[i], acc);
  float v = __low2float(acc) + __high2float(acc);
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int w = 0; w < THREADS / 32; w++) s += warpSums[w];
    blockSums[blockIdx.x] = s;
  }
}

// Elementwise, in half: c = max(a * b, a + b) and a check of the comparisons.
__global__ void elementwise(const __half *a, const __half *b, __half *c, int *flags, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half p = __hmul(a[i], b[i]), s = __hadd(a[i], b[i]);
  c[i] = __hgt(p, s) ? p : s;
  flags[i] = __hlt(a[i], b[i]) ? 1 : 0;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  const int pairs = 1 << 14, blocks = 32;
  __half2 *h_a = (__half2 *)malloc(pairs * sizeof(__half2)), *h_b = (__half2 *)malloc(pairs * sizeof(__half2));
  srand(2024);
  for (int i = 0; i < pairs; i++) {
    h_a[i] = __floats2half2_rn((rand() % 64) / 64.0f, (rand() % 64) / 64.0f);
    h_b[i] = __floats2half2_rn((rand() % 16) / 16.0f, (rand() % 16) / 16.0f);
  }
  __half2 *d_a, *d_b;
  float *d_sums, h_sums[blocks];
  checkCudaErrors(cudaMalloc(&d_a, pairs * sizeof(__half2)));
  checkCudaErrors(cudaMalloc(&d_b, pairs * sizeof(__half2)));
  checkCudaErrors(cudaMalloc(&d_sums, blocks * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_a, h_a, pairs * sizeof(__half2), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_b, h_b, pairs * sizeof(__half2), cudaMemcpyHostToDevice));
  dotHalf2<<<blocks, THREADS>>>(d_a, d_b, d_sums, pairs);
  getLastCudaError("dotHalf2 failed");
  checkCudaErrors(cudaMemcpy(h_sums, d_sums, sizeof(h_sums), cudaMemcpyDeviceToHost));
  double got = 0, exact = 0;
  for (int k = 0; k < blocks; k++) got += h_sums[k];
  for (int i = 0; i < pairs; i++)
    exact += (double)__low2float(h_a[i]) * __low2float(h_b[i]) + (double)__high2float(h_a[i]) * __high2float(h_b[i]);
  // every thread adds 4 pairs in half: about 2^-11 relative error per step
  const double rel = fabs(got - exact) / exact;
  printf("dot product: %.3f (exact %.3f, relative error %.2e)\n", got, exact, rel);
  int bad = rel > 4e-3;

  // elementwise, against the host's own half arithmetic
  const int n = 1000;
  __half *h_x = (__half *)malloc(n * sizeof(__half)), *h_y = (__half *)malloc(n * sizeof(__half)),
         *h_z = (__half *)malloc(n * sizeof(__half));
  int *h_f = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) {
    h_x[i] = __float2half((float)(i % 37) / 8.0f - 2.0f);
    h_y[i] = __float2half((float)(i % 23) / 4.0f - 1.0f);
  }
  __half *d_x, *d_y, *d_z;
  int *d_f;
  checkCudaErrors(cudaMalloc(&d_x, n * sizeof(__half)));
  checkCudaErrors(cudaMalloc(&d_y, n * sizeof(__half)));
  checkCudaErrors(cudaMalloc(&d_z, n * sizeof(__half)));
  checkCudaErrors(cudaMalloc(&d_f, n * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_x, h_x, n * sizeof(__half), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_y, h_y, n * sizeof(__half), cudaMemcpyHostToDevice));
  elementwise<<<(n + 127) / 128, 128>>>(d_x, d_y, d_z, d_f, n);
  getLastCudaError("elementwise failed");
  checkCudaErrors(cudaMemcpy(h_z, d_z, n * sizeof(__half), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(h_f, d_f, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    const float x = __half2float(h_x[i]), y = __half2float(h_y[i]);
    const float p = __half2float(__float2half(x * y)), s = __half2float(__float2half(x + y));
    if (__half2float(h_z[i]) != (p > s ? p : s) || h_f[i] != (x < y)) wrong++;
  }
  printf("elementwise: %d of %d differ\n", wrong, n);
  bad |= wrong != 0;

  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_b));
  checkCudaErrors(cudaFree(d_sums));
  checkCudaErrors(cudaFree(d_x));
  checkCudaErrors(cudaFree(d_y));
  checkCudaErrors(cudaFree(d_z));
  checkCudaErrors(cudaFree(d_f));
  free(h_a);
  free(h_b);
  free(h_x);
  free(h_y);
  free(h_z);
  free(h_f);
  if (bad) {
    printf("FAILED\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
