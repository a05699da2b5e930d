/* A local CUDA header: cu2cpp.py inlines it, so its __shared__ arrays are per block and
   poisoned, and its launch is rewritten. */
#pragma once

namespace helpers {

/* Block-wide sum through shared memory declared in the header. */
__device__ inline int blockSum(int v) {
  __shared__ int partial[32];
  extern __shared__ int dynScratch[];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int m = 16; m >= 1; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
  if (lane == 0) partial[w] = v;
  __syncthreads();
  int total = 0;
  for (int k = 0; k < (int)(blockDim.x / 32); k++) total += partial[k];
  dynScratch[threadIdx.x] = total;
  __syncthreads();
  return dynScratch[(threadIdx.x + 1) % blockDim.x];
}

template <class T>
__global__ void setKernel(T *p, T v) {
  p[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

/* A host helper in the header that launches. */
template <class T>
inline void fill(T *d, T v, int blocks, int threads) {
  setKernel<<<blocks, threads>>>(d, v);
}

}  // namespace helpers
