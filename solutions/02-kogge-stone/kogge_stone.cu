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
  extern __shared__ int s[];                      /* blockDim.x ints */
  const unsigned t = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;                       /* past n: the identity, and stay */
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    int left = 0;
    if (t >= offset) left = s[t - offset];
    __syncthreads();                              /* every read of this step done ... */
    if (t >= offset) s[t] += left;
    __syncthreads();                              /* ... and every write, before the next */
  }
  if (i < n) out[i] = s[t];
  /* STUDENT-END(lab02) */
}

__global__ void scanIncKoggeStoneDBKernel(const int *in, int *out, size_t n) {
  /* STUDENT-BEGIN(lab02) */
  extern __shared__ int s[];                      /* 2 * blockDim.x ints: two buffers */
  const unsigned t = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * blockDim.x + t;
  int *src = s, *dst = s + blockDim.x;
  src[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    dst[t] = t >= offset ? src[t - offset] + src[t] : src[t];
    __syncthreads();                              /* all of dst written, all of src read */
    int *tmp = src;
    src = dst;
    dst = tmp;
  }
  if (i < n) out[i] = src[t];
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
  scanIncKoggeStoneDBKernel<<<1, blockSize, 2 * blockSize * sizeof(int)>>>(d_in, d_out, n);
  /* STUDENT-END(lab02) */
  CUDA_CHECK_LAUNCH();
}

void scanIncKoggeStoneTiles(const int *d_in, int *d_out, size_t n, int blockSize) {
  if (!checkArgs("scanIncKoggeStoneTiles", n, blockSize, 0) || n == 0) return;
  /* STUDENT-BEGIN(lab02) */
  const unsigned tiles = (unsigned)((n + (size_t)blockSize - 1) / (size_t)blockSize);
  scanIncKoggeStoneDBKernel<<<tiles, blockSize, 2 * blockSize * sizeof(int)>>>(d_in, d_out, n);
  /* STUDENT-END(lab02) */
  CUDA_CHECK_LAUNCH();
}
