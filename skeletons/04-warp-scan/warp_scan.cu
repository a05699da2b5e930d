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
  /* TODO(lab04): the inclusive scan across the lanes of `mask`, in five steps d = 1, 2, 4,
   * 8, 16. In each step every lane fetches x from lane (lane - d) with shflUpAny(mask, x, d)
   * (all lanes of mask must call it, even those that will not use the value), and lanes
   * with lane >= d combine it: x = op(fetched, x) -- the earlier value on the left. The lane
   * is threadIdx.x % WARP_SIZE. Use `mask`, never 0xffffffff. */
  (void)op, (void)mask;
  return x; /* wrong on every lane but 0 */
  /* STUDENT-END(lab04) */
}

template <typename T, typename Op>
__device__ T scanExcWarp(T x, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab04) */
  /* TODO(lab04): call scanIncWarp(x, op, mask), then shift its results up by one lane with
   * shflUpAny(mask, value, 1); lane 0 returns identity. */
  (void)x, (void)op, (void)mask;
  return identity; /* wrong on every lane but 0 */
  /* STUDENT-END(lab04) */
}

template <typename T, typename Op>
__device__ T scanIncWarpSmem(T x, Op op, T *s, unsigned mask) {
  /* STUDENT-BEGIN(lab04) */
  /* TODO(lab04): the same five steps as scanIncWarp, through shared memory: write x to
   * s[lane], then in each step read s[lane - d] (lanes >= d), combine, write s[lane].
   * Put __syncwarp(mask) wherever a write must be visible to another lane's read, and
   * wherever a read must happen before another lane overwrites the value. */
  (void)op, (void)s, (void)mask;
  return x; /* wrong on every lane but 0 */
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
