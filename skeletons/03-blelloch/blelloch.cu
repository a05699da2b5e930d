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
  /* TODO(lab03): return the shared-memory index of tile element i: i plus a padding offset
   * that grows by one word every SMEM_BANKS elements (or a refinement of that), so that the
   * elements a warp touches in one step of the sweeps fall into different banks. It must be
   * one-to-one. The identity below is correct but keeps every bank conflict. */
  return i;
  /* STUDENT-END(lab03) */
}

/* ---- kernels ------------------------------------------------------------------------------ */

/* Scans the tile of block blockIdx.x; shared memory holds 2 * blockDim.x ints. */
__global__ void scanExcBlellochKernel(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab03) */
  /* TODO(lab03): scan this block's tile of 2 * blockDim.x ints in shared memory (size it
   * with `extern __shared__ int32_t tile[];`; the launch passes the bytes).
   *   1. load: thread t loads elements t and t + blockDim.x of the tile (0 past n);
   *   2. up-sweep: for stride s = 1, 2, ..., blockDim.x, threads t < blockDim.x / s add
   *      tile[s*(2t+1)-1] into tile[s*(2t+2)-1], with a __syncthreads() before each step;
   *   3. set the last element to 0;
   *   4. down-sweep: for s = blockDim.x, ..., 2, 1, threads t < blockDim.x / s swap-and-add
   *      the pair a = s*(2t+1)-1, b = s*(2t+2)-1: tile[a] = tile[b], tile[b] += old tile[a]
   *      (read both into registers before writing either: the handout's "Down-sweep" says why);
   *   5. store elements t and t + blockDim.x (only those below n). */
  (void)in, (void)out, (void)n;
  /* STUDENT-END(lab03) */
}

/* The same scan with element i of the tile at shared index conflictFreeIndex(i). */
__global__ void scanExcBlellochPaddedKernel(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab03) */
  /* TODO(lab03): the same kernel, with every shared-memory index i replaced by
   * conflictFreeIndex(i). */
  (void)in, (void)out, (void)n;
  /* STUDENT-END(lab03) */
}

/* ---- host API ------------------------------------------------------------------------------ */

cudaError_t scanExcBlelloch(const int32_t *d_in, int32_t *d_out, size_t n, int block) {
  /* STUDENT-BEGIN(lab03) */
  /* TODO(lab03): launch scanExcBlellochKernel with one block of `block` threads per tile of
   * 2 * block elements (round up; launch nothing when n == 0) and 2 * block ints of dynamic
   * shared memory; return cudaGetLastError(). */
  (void)d_in, (void)d_out, (void)n, (void)block;
  return cudaSuccess; /* launches nothing: the output stays unwritten */
  /* STUDENT-END(lab03) */
}

cudaError_t scanExcBlellochPadded(const int32_t *d_in, int32_t *d_out, size_t n, int block) {
  /* STUDENT-BEGIN(lab03) */
  /* TODO(lab03): as scanExcBlelloch, launching scanExcBlellochPaddedKernel with
   * conflictFreeIndex(2 * block - 1) + 1 ints of dynamic shared memory. */
  (void)d_in, (void)d_out, (void)n, (void)block;
  return cudaSuccess; /* launches nothing: the output stays unwritten */
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
