/**
 * @file warp_scan.cu
 * @brief Lab 04: warp scans with shuffles and with shared memory, for any associative operator.
 *
 * You write the three templates in the student regions. The rest of the file is kit code:
 * the batched kernel the tests launch and its instantiations. Leave it as it is.
 */
#include <cuda_runtime.h>

#include "warp_scan.h"

template <typename T, typename Op>
__device__ T scanIncWarp(T x, Op op, unsigned mask) {
  /* STUDENT-BEGIN(lab04) */
  const unsigned lane = threadIdx.x % WARP_SIZE;
#pragma unroll
  for (unsigned d = 1; d < WARP_SIZE; d *= 2) {
    T y = shflUpAny(mask, x, d);  /* every lane of mask shuffles, even those that ignore y */
    if (lane >= d) x = op(y, x);  /* the earlier lanes' value on the left */
  }
  return x;
  /* STUDENT-END(lab04) */
}

template <typename T, typename Op>
__device__ T scanExcWarp(T x, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab04) */
  T inc = scanIncWarp(x, op, mask);
  T before = shflUpAny(mask, inc, 1);  /* lane i gets lane i-1's inclusive value */
  return threadIdx.x % WARP_SIZE == 0 ? identity : before;
  /* STUDENT-END(lab04) */
}

template <typename T, typename Op>
__device__ T scanIncWarpSmem(T x, Op op, T *s, unsigned mask) {
  /* STUDENT-BEGIN(lab04) */
  const unsigned lane = threadIdx.x % WARP_SIZE;
  s[lane] = x;
  __syncwarp(mask);               /* every value is in s before anyone reads it */
#pragma unroll
  for (unsigned d = 1; d < WARP_SIZE; d *= 2) {
    T y = lane >= d ? s[lane - d] : x;
    __syncwarp(mask);             /* all reads of this step before any write */
    if (lane >= d) {
      x = op(y, x);
      s[lane] = x;
    }
    __syncwarp(mask);             /* all writes of this step before the next step's reads */
  }
  return x;
  /* STUDENT-END(lab04) */
}

/* ---- kit code: the batched launch the tests call (do not edit below this line) ---------- */

/* Each thread holds one element; each warp scans the elements of its live lanes. */
template <typename T, typename Op>
__global__ void warpScanBatchKernel(WarpScanVariant variant, const T *in, T *out, size_t n, Op op,
                                    T identity) {
  __shared__ T buf[1024];
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = threadIdx.x / WARP_SIZE;
  const size_t first = (size_t)blockIdx.x * blockDim.x + warp * WARP_SIZE; /* lane 0's element */
  size_t live = blockDim.x - warp * WARP_SIZE;                              /* lanes in the block */
  if (live > WARP_SIZE) live = WARP_SIZE;
  if (first + live > n) live = n > first ? n - first : 0;                   /* lanes below n */
  const unsigned mask = warpPrefixMask((int)live);
  if (i < n) {
    T x = in[i], y;
    if (variant == WARP_SCAN_INC) {
      y = scanIncWarp(x, op, mask);
    } else if (variant == WARP_SCAN_EXC) {
      y = scanExcWarp(x, op, identity, mask);
    } else {
      y = scanIncWarpSmem(x, op, &buf[warp * WARP_SIZE], mask);
    }
    out[i] = y;
  }
  /* The lanes past n stay until the whole block is done, as they would in a kernel with a
   * later block-wide phase: a scan whose mask names them would wait for them in vain. */
  __syncthreads();
}

template <typename T, typename Op>
cudaError_t warpScanBatch(WarpScanVariant variant, const T *d_in, T *d_out, size_t n, int block,
                          Op op, T identity) {
  if (n == 0) return cudaSuccess;
  const size_t blocks = (n + (size_t)block - 1) / (size_t)block;
  warpScanBatchKernel<T, Op><<<(unsigned)blocks, block>>>(variant, d_in, d_out, n, op, identity);
  return cudaGetLastError();
}

template cudaError_t warpScanBatch<int32_t, Add>(WarpScanVariant, const int32_t *, int32_t *,
                                                 size_t, int, Add, int32_t);
template cudaError_t warpScanBatch<int32_t, Max>(WarpScanVariant, const int32_t *, int32_t *,
                                                 size_t, int, Max, int32_t);
template cudaError_t warpScanBatch<int32_t, Min>(WarpScanVariant, const int32_t *, int32_t *,
                                                 size_t, int, Min, int32_t);
template cudaError_t warpScanBatch<float, Add>(WarpScanVariant, const float *, float *, size_t,
                                               int, Add, float);
template cudaError_t warpScanBatch<Affine, Compose>(WarpScanVariant, const Affine *, Affine *,
                                                    size_t, int, Compose, Affine);
