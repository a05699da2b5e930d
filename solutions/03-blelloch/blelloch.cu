/**
 * @file blelloch.cu
 * @brief Lab 03: work-efficient (Blelloch) exclusive scan of tiles in shared memory, without
 *        and with bank-conflict padding.
 *
 * Each block scans one tile of 2 * blockDim.x ints; thread t owns elements t and
 * t + blockDim.x at load and store time, and the two tree nodes a and b of each sweep step
 * (see blelloch.h for the exact rule the bank-conflict test replays).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "blelloch.h"

/* ---- padding ------------------------------------------------------------------------------ */

__host__ __device__ int conflictFreeIndex(int i) {
  /* STUDENT-BEGIN(lab03) */
  /* One padding word after every 32 elements: element i moves up by i / 32 words, so
   * elements 32 apart (same bank unpadded) land in neighbouring banks. */
  return i + (i >> LOG_SMEM_BANKS);
  /* STUDENT-END(lab03) */
}

/* ---- kernels ------------------------------------------------------------------------------ */

/* Scans the tile of block blockIdx.x; shared memory holds 2 * blockDim.x ints. */
__global__ void scanExcBlellochKernel(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab03) */
  extern __shared__ int32_t tile[];
  const unsigned t = threadIdx.x, half = blockDim.x, size = 2 * blockDim.x;
  const size_t base = (size_t)blockIdx.x * size;
  /* Load: elements past n count as 0, the identity of +. */
  tile[t] = base + t < n ? in[base + t] : 0;
  tile[t + half] = base + t + half < n ? in[base + t + half] : 0;
  /* Up-sweep: after the step of stride s, x[s*(2t+2)-1] holds the sum of its 2s-element run. */
  unsigned stride = 1;
  for (unsigned active = half; active > 0; active >>= 1, stride <<= 1) {
    __syncthreads();
    if (t < active) {
      const unsigned a = stride * (2 * t + 1) - 1, b = stride * (2 * t + 2) - 1;
      tile[b] = (int32_t)((uint32_t)tile[b] + (uint32_t)tile[a]);
    }
  }
  /* The root holds the tile's total; the exclusive scan starts from the identity. */
  if (t == 0) tile[size - 1] = 0;
  /* Down-sweep: each node passes its value to its left child, and value + left to the right. */
  for (unsigned active = 1; active < size; active <<= 1) {
    stride >>= 1;
    __syncthreads();
    if (t < active) {
      const unsigned a = stride * (2 * t + 1) - 1, b = stride * (2 * t + 2) - 1;
      /* Both values into registers first: nvcc cannot prove a != b, and from tile[b] read
       * twice (before and after the store to tile[a]) it emits two shared loads. */
      const int32_t left = tile[a], right = tile[b];
      tile[a] = right;
      tile[b] = (int32_t)((uint32_t)right + (uint32_t)left);
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = tile[t];
  if (base + t + half < n) out[base + t + half] = tile[t + half];
  /* STUDENT-END(lab03) */
}

/* The same scan with element i of the tile at shared index conflictFreeIndex(i). */
__global__ void scanExcBlellochPaddedKernel(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab03) */
  extern __shared__ int32_t tile[];
  const unsigned t = threadIdx.x, half = blockDim.x, size = 2 * blockDim.x;
  const size_t base = (size_t)blockIdx.x * size;
  tile[conflictFreeIndex(t)] = base + t < n ? in[base + t] : 0;
  tile[conflictFreeIndex(t + half)] = base + t + half < n ? in[base + t + half] : 0;
  unsigned stride = 1;
  for (unsigned active = half; active > 0; active >>= 1, stride <<= 1) {
    __syncthreads();
    if (t < active) {
      const int a = conflictFreeIndex(stride * (2 * t + 1) - 1);
      const int b = conflictFreeIndex(stride * (2 * t + 2) - 1);
      tile[b] = (int32_t)((uint32_t)tile[b] + (uint32_t)tile[a]);
    }
  }
  if (t == 0) tile[conflictFreeIndex(size - 1)] = 0;
  for (unsigned active = 1; active < size; active <<= 1) {
    stride >>= 1;
    __syncthreads();
    if (t < active) {
      const int a = conflictFreeIndex(stride * (2 * t + 1) - 1);
      const int b = conflictFreeIndex(stride * (2 * t + 2) - 1);
      /* Both values into registers first: nvcc cannot prove a != b, and from tile[b] read
       * twice (before and after the store to tile[a]) it emits two shared loads. */
      const int32_t left = tile[a], right = tile[b];
      tile[a] = right;
      tile[b] = (int32_t)((uint32_t)right + (uint32_t)left);
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = tile[conflictFreeIndex(t)];
  if (base + t + half < n) out[base + t + half] = tile[conflictFreeIndex(t + half)];
  /* STUDENT-END(lab03) */
}

/* ---- host API ------------------------------------------------------------------------------ */

cudaError_t scanExcBlelloch(const int32_t *d_in, int32_t *d_out, size_t n, int block) {
  /* STUDENT-BEGIN(lab03) */
  if (n == 0) return cudaSuccess;
  const size_t tile = 2 * (size_t)block;
  const size_t tiles = (n + tile - 1) / tile;
  scanExcBlellochKernel<<<(unsigned)tiles, block, tile * sizeof(int32_t)>>>(d_in, d_out, n);
  return cudaGetLastError();
  /* STUDENT-END(lab03) */
}

cudaError_t scanExcBlellochPadded(const int32_t *d_in, int32_t *d_out, size_t n, int block) {
  /* STUDENT-BEGIN(lab03) */
  if (n == 0) return cudaSuccess;
  const size_t tile = 2 * (size_t)block;
  const size_t tiles = (n + tile - 1) / tile;
  const size_t words = (size_t)conflictFreeIndex((int)tile - 1) + 1; /* tile plus padding */
  scanExcBlellochPaddedKernel<<<(unsigned)tiles, block, words * sizeof(int32_t)>>>(d_in, d_out, n);
  return cudaGetLastError();
  /* STUDENT-END(lab03) */
}

/* ---- kit code: the padding as the device computes it (the bank-conflict test reads it) ---- */

static __global__ void conflictFreeIndexTableKernel(int32_t *out, int count) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[i] = conflictFreeIndex(i);
}

cudaError_t conflictFreeIndexTable(int32_t *d_out, int count) {
  if (count <= 0) return cudaSuccess;
  conflictFreeIndexTableKernel<<<(unsigned)((count + 255) / 256), 256>>>(d_out, count);
  return cudaGetLastError();
}
