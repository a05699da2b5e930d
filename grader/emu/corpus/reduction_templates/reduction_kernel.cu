// Parallel reduction kernels in the style of the CUDA samples: a SharedMemory<T> helper over
// extern __shared__ arrays, kernels templated on the type and the block size, and explicit
// instantiations that the host file (reduction.cpp) links against.
#include <cooperative_groups.h>
#include <stdio.h>

#include "reduction.h"

namespace cg = cooperative_groups;

// Dynamically sized shared memory of any type: one extern array per type would clash.
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

// Interleaved addressing with divergent branching.
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  cg::sync(cta);
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) sdata[tid] += sdata[tid + s];
    cg::sync(cta);
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing.
template <class T>
__global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  cg::sync(cta);
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    cg::sync(cta);
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Two loads per thread, and the last warp reduced with a tile's shuffles.
template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  cg::sync(cta);
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) mySum += tile32.shfl_down(mySum, offset);
  }
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

template <class T>
void reduce(int size, int threads, int blocks, int whichKernel, T *d_idata, T *d_odata) {
  dim3 dimBlock(threads, 1, 1);
  dim3 dimGrid(blocks, 1, 1);
  int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);
  switch (whichKernel) {
    case 0:
      reduce0<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
      break;
    case 2:
      reduce2<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
      break;
    default:
      switch (threads) {
        case 512: reduce4<T, 512><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 256: reduce4<T, 256><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 128: reduce4<T, 128><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 64: reduce4<T, 64><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      }
  }
}

template void reduce<int>(int size, int threads, int blocks, int whichKernel, int *d_idata, int *d_odata);
template void reduce<float>(int size, int threads, int blocks, int whichKernel, float *d_idata, float *d_odata);
template void reduce<double>(int size, int threads, int blocks, int whichKernel, double *d_idata, double *d_odata);
