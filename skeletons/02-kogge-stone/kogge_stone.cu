/**
 * @file kogge_stone.cu
 * @brief Lab 02: Kogge-Stone inclusive scans of one tile per block, in shared memory: in
 *        place with two barriers per step, and double-buffered with one.
 *
 * You write the two kernels and the two launches in the student regions. The argument checks
 * around them are kit code: leave them as they are. The contract is in `kogge_stone.h`.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

#include "cuda_check.h"
#include "kogge_stone.h"

__global__ void scanIncKoggeStoneKernel(const int *in, int *out, size_t n) {
  /* STUDENT-BEGIN(lab02) */
  /* TODO(lab02): the in-place Kogge-Stone scan of this block's tile. Declare the dynamic
   * shared array (`extern __shared__ int s[];`, blockDim.x ints). Thread t owns element
   * i = blockIdx.x * blockDim.x + t: load in[i] into s[t], or 0 when i >= n. Then for
   * offset = 1, 2, 4, ... while offset < blockDim.x: threads with t >= offset read
   * s[t - offset], and after a barrier add it to s[t]; a second barrier ends the step.
   * Finally store s[t] to out[i] if i < n. Every thread, even past n, must reach every
   * __syncthreads(): no early return. */
  (void)in, (void)out, (void)n;
  /* STUDENT-END(lab02) */
}

__global__ void scanIncKoggeStoneDBKernel(const int *in, int *out, size_t n) {
  /* STUDENT-BEGIN(lab02) */
  /* TODO(lab02): the same scan with two shared arrays (2 * blockDim.x ints): src and dst.
   * Load into src; in each step every thread writes dst[t] (src[t - offset] + src[t] when
   * t >= offset, else src[t]), then one barrier, then swap the src and dst pointers. At
   * the end the result is in src. Why is one barrier per step enough now? */
  (void)in, (void)out, (void)n;
  /* STUDENT-END(lab02) */
}

/* Prints why the arguments are rejected; returns 1 when they are fine. */
static int checkArgs(const char *fn, size_t n, int blockSize, int oneBlock) {
  if (blockSize < 1 || blockSize > KS_MAX_BLOCK) {
    fprintf(stderr, "%s: blockSize = %d is not in 1..%d; nothing was launched\n", fn, blockSize,
            KS_MAX_BLOCK);
    return 0;
  }
  if (oneBlock && n > (size_t)blockSize) {
    fprintf(stderr, "%s: n = %zu is larger than blockSize = %d (one block scans at most "
            "blockSize elements); nothing was launched\n", fn, n, blockSize);
    return 0;
  }
  if ((n + (size_t)blockSize - 1) / (size_t)blockSize > (size_t)INT_MAX) {
    fprintf(stderr, "%s: n = %zu needs more than %d blocks of %d; nothing was launched\n", fn, n,
            INT_MAX, blockSize);
    return 0;
  }
  return 1;
}

void scanIncKoggeStone(const int *d_in, int *d_out, size_t n, int blockSize) {
  if (!checkArgs("scanIncKoggeStone", n, blockSize, 1) || n == 0) return;
  scanIncKoggeStoneKernel<<<1, blockSize, blockSize * sizeof(int)>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
}

void scanIncKoggeStoneDB(const int *d_in, int *d_out, size_t n, int blockSize) {
  if (!checkArgs("scanIncKoggeStoneDB", n, blockSize, 1) || n == 0) return;
  /* STUDENT-BEGIN(lab02) */
  /* TODO(lab02): launch scanIncKoggeStoneDBKernel on one block of blockSize threads, as
   * scanIncKoggeStone above does, with enough dynamic shared memory for both buffers. */
  (void)d_in, (void)d_out;
  /* STUDENT-END(lab02) */
  CUDA_CHECK_LAUNCH();
}

void scanIncKoggeStoneTiles(const int *d_in, int *d_out, size_t n, int blockSize) {
  if (!checkArgs("scanIncKoggeStoneTiles", n, blockSize, 0) || n == 0) return;
  /* STUDENT-BEGIN(lab02) */
  /* TODO(lab02): launch scanIncKoggeStoneDBKernel with one block per tile of blockSize
   * elements: ceil(n / blockSize) blocks (the last tile may be short). */
  (void)d_in, (void)d_out;
  /* STUDENT-END(lab02) */
  CUDA_CHECK_LAUNCH();
}
