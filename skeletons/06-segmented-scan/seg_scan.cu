/**
 * @file seg_scan.cu
 * @brief Lab 06: segmented scans for any associative operator: the segmented operator, the
 *        direct warp scan with conditional indexing, the block scan from warp scans, and a
 *        single pass of any length with decoupled look-back.
 *
 * Your code goes between the STUDENT-BEGIN(lab06) and STUDENT-END(lab06) markers. Everything
 * else is given: lab 04's warp scan, the shuffle helpers, the status words, the scratch memory,
 * the host functions of the single pass, and the kernels the tests launch with their
 * instantiations. Leave it as it is. The figures cited as [Sengupta et al., fig 1.N] are those of
 * S. Sengupta, M. Harris, M. Garland et al., *Efficient Parallel Scan Algorithms for Many-core
 * GPUs* (2011).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "seg_scan.h"
#include "cuda_check.h"

static_assert(SS_GLOBAL_THREADS % SS_WARP == 0 && SS_GLOBAL_THREADS <= SS_BLOCK_MAX,
              "a block size must be a multiple of 32, at most 1024");
static_assert(SS_GLOBAL_ITEMS % 4 == 0, "the single pass moves its elements 4 at a time");

/** All 32 lanes of a warp. */
#define FULL_MASK 0xffffffffu
/** A given device helper: inlined, and no "unused" warning while the skeleton does not call it. */
#define SS_HELPER static __device__ __forceinline__ __attribute__((unused))

/* ---- given: lab 04's warp scan, and shuffles of any 4-byte-multiple type ------------------ */

/* Lab 04's scanIncWarp (declared in warp_scan.h), repeated here so that this lab does not
 * depend on your lab 04 file. Lane i returns x_0 op ... op x_i over the lanes of mask. */
template <typename T, typename Op>
__device__ T scanIncWarp(T x, Op op, unsigned mask) {
  const unsigned lane = threadIdx.x % WARP_SIZE;
#pragma unroll
  for (unsigned d = 1; d < WARP_SIZE; d *= 2) {
    const T y = shflUpAny(mask, x, d);
    if (lane >= d) x = op(y, x);
  }
  return x;
}

/** The bits of a 4-byte value, and back. */
template <typename T>
SS_HELPER uint32_t toBits(T v) {
  static_assert(sizeof(T) == 4, "the single pass handles 4-byte values");
  uint32_t b;
  memcpy(&b, &v, 4);
  return b;
}
template <typename T>
SS_HELPER T fromBits(uint32_t b) {
  T v;
  memcpy(&v, &b, 4);
  return v;
}

/** The mask of lanes 0..lane (this lane and every lane below it). */
SS_HELPER unsigned lanesUpTo(unsigned lane) { return FULL_MASK >> (WARP_SIZE - 1 - lane); }

/* ==== Part 1: the segmented operator ======================================================= */

template <typename Op>
template <typename T>
__host__ __device__ FlagValue<T> Segmented<Op>::operator()(FlagValue<T> a, FlagValue<T> b) const {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the segmented operator [Sengupta et al., fig 1.9]. The result's flag is a.flag | b.flag
   * (a segment starts in a or in b); its value is b.value when b.flag is set (a segment starts
   * in b: nothing of a reaches past that head), otherwise op(a.value, b.value) (a's last
   * segment goes on into b; a, the earlier range, on the left). Flags are any non-zero value.
   * Until then: b, unchanged. */
  (void)a;
  return b;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanIncWarpOp(T x, bool head, Op op, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the operator form. Make the pair {head ? 1u : 0u, x}, scan the pairs with lab
   * 04's scanIncWarp(pair, segmented, mask) (given above, unchanged), where segmented is
   * Segmented<Op>{op}, and return the scanned pair's value.
   * Until then: x, unscanned. */
  (void)head, (void)op, (void)mask;
  return x;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcWarpOp(T x, bool head, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): from segScanIncWarpOp: every lane takes the inclusive result of the lane below
   * (shflUpAny(mask, inc, 1): every lane of mask must call it); a head, and lane 0, return
   * identity instead.
   * Until then: x. */
  (void)head, (void)op, (void)identity, (void)mask;
  return x;
  /* STUDENT-END(lab06) */
}

/* ==== Part 2: the direct warp scan ========================================================= */

__device__ unsigned segHeadLane(bool head, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): `mindex` without a max-scan. __ballot_sync(mask, head) gives every lane the
   * warp's heads as the bits of one word; keep the bits of lanes 0..lane (lanesUpTo(lane)) and
   * return the lane of the highest bit left (31 - __clz(bits)), or 0 when none is left.
   * Until then: 0 for every lane, as if only lane 0 started a segment. */
  (void)head, (void)mask;
  return 0;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanIncWarp(T x, bool head, Op op, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the direct form [Sengupta et al., fig 1.11]: mindex = segHeadLane(head, mask); then for
   * d = 1, 2, 4, 8, 16: y = shflUpAny(mask, x, d) in every lane of mask, and x = op(y, x) only
   * where lane >= mindex + d (lane - d is still in my segment).
   * Until then: x, unscanned. */
  (void)head, (void)op, (void)mask;
  return x;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcWarp(T x, bool head, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): as segScanExcWarpOp, from segScanIncWarp: the inclusive result of the lane
   * below, identity at a head and at lane 0.
   * Until then: x. */
  (void)head, (void)op, (void)identity, (void)mask;
  return x;
  /* STUDENT-END(lab06) */
}

/* ==== Part 3: the block scan ================================================================ */

template <typename T, typename Op>
__device__ T segScanIncBlock(T x, bool head, Op op, SegBlockTemp<T> *temp) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the block scan [Sengupta et al., fig 1.14], with shuffles instead of shared arrays:
   *   1. heads = __ballot_sync(FULL_MASK, head); this lane is in its warp's first segment when
   *      no lane at or below it has a head; v = segScanIncWarp(x, head, op);
   *   2. lane 31 writes the warp's total v and its flag (heads != 0) to temp->value[warp] and
   *      temp->flag[warp]; __syncthreads();
   *   3. warp 0 scans the (flag, total) pairs of the blockDim.x / 32 warps with segScanIncWarp
   *      (all 32 lanes call it; lanes past the last warp pass head = true and any value, their
   *      own x say, without reading temp: another lane may be writing it) and writes the
   *      results back to temp->value; __syncthreads();
   *   4. in warp w > 0, lanes of the warp's first segment set v = op(temp->value[w - 1], v);
   *      __syncthreads() once more, so that the caller may reuse temp at once.
   * Until then: x, unscanned. */
  (void)head, (void)op, (void)temp;
  return x;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcBlock(T x, bool head, Op op, T identity, SegBlockTemp<T> *temp) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): as segScanIncBlock, with the warp's exclusive results (from its inclusive
   * ones: the lane below's, identity at heads and lane 0); the warp totals written in step 2
   * are still the inclusive result of lane 31. In step 4 a head is not in the first segment;
   * lane 0 of an open warp takes the carry itself.
   * Until then: x. */
  (void)head, (void)op, (void)identity, (void)temp;
  return x;
  /* STUDENT-END(lab06) */
}

/* ---- given: status words of the single pass (as in lab 05) -------------------------------- */

/* A tile's status word: a tag in the high 32 bits, the bits of a 4-byte value in the low 32,
 * written with one 64-bit store and read with one 64-bit load (volatile: from the L2 cache).
 * Tag 2*epoch means AGGREGATE, 2*epoch + 1 means PREFIX; a word from another launch reads as
 * INVALID, so the words need no clearing between launches, only the tile counter does. Each
 * word has a 32-byte sector to itself (lab 05's PERF.md: 0.83 -> 0.93 of copy). */
#define SS_FLAG_INVALID 0u   /**< nothing published by this launch yet */
#define SS_FLAG_AGGREGATE 1u /**< value = this tile's pair value (its last segment, no carry) */
#define SS_FLAG_PREFIX 2u    /**< value = the inclusive result of this tile's last element */
/** Largest epoch: tags 2*epoch + 1 must fit in 32 bits. */
#define SS_EPOCH_MAX 0x7fffffffu

/** One tile's status word, alone in a 32-byte sector. */
typedef struct __align__(32) {
  unsigned long long word;
  unsigned long long unused[3];
} ss_status;

/** Publishes @p flag (AGGREGATE or PREFIX) and @p value for this launch, in one store. */
template <typename T>
SS_HELPER void statusStore(ss_status *status, unsigned epoch, unsigned flag, T value) {
  const unsigned tag = 2 * epoch + (flag == SS_FLAG_PREFIX);
  *(volatile unsigned long long *)&status->word = ((unsigned long long)tag << 32) | toBits(value);
}
/** Reads a status word, in one load. */
SS_HELPER unsigned long long statusLoad(const ss_status *status) {
  return *(const volatile unsigned long long *)&status->word;
}
/** The flag of a word read in launch @p epoch: INVALID, AGGREGATE or PREFIX. */
SS_HELPER unsigned statusFlag(unsigned long long word, unsigned epoch) {
  const unsigned tag = (unsigned)(word >> 32);
  return tag == 2 * epoch ? SS_FLAG_AGGREGATE : tag == 2 * epoch + 1 ? SS_FLAG_PREFIX : SS_FLAG_INVALID;
}
/** The value of a word (meaningful when its flag is not INVALID). */
template <typename T>
SS_HELPER T statusValue(unsigned long long word) { return fromBits<T>((uint32_t)word); }

/* ---- given: temporary device memory, owned by this file ----------------------------------- */

static void *g_status_ptr;   /* tile counter and status words */
static size_t g_status_bytes;
static unsigned g_epoch;     /* epoch of the last launch; 0: the status words are all zero */

/** L2 cache size of the current device in bytes (asked once). */
static size_t l2Bytes(void) {
  static size_t bytes = 0;
  if (!bytes) {
    int dev = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    bytes = l2 > 0 ? (size_t)l2 : 1;
  }
  return bytes;
}

/* ==== Part 4: the single pass =============================================================== */

/**
 * Called by all 32 lanes of warp 0 once the block knows its tile's pair (@p has_head, @p
 * aggregate): @p has_head says whether a segment starts in the tile, @p aggregate is the value
 * of the tile's last segment (from its last head, or from the tile's start when it has none).
 *
 * Publishes: tile 0 and a tile with a head publish their PREFIX at once (the value of their
 * last segment needs nothing from before them); any other tile publishes its AGGREGATE. Then,
 * when @p need_carry (the tile's first element is not a head, so its first segment continues
 * from the tiles before), looks back a window of 32 tiles at a time, nearest first: in the
 * first window lane l reads the status of tile `tile - 1 - l`, in the next `tile - 33 - l`, and
 * so on; while a tile between this one and the nearest PREFIX of the window is INVALID, read
 * again; then combine the values of the lanes up to that PREFIX in order (the farther tile on
 * the left: @p op need not be commutative); with no PREFIX in the window, move 32 tiles back
 * and go on, each farther window's combination on the left of what came before. A tile without a head publishes its PREFIX after the look-back.
 *
 * Returns, in every lane, the tile's carry: the inclusive result just before its first element
 * (meaningful when tile > 0 and @p need_carry).
 */
template <typename T, typename Op>
static __device__ T lookbackWarp(ss_status *status, unsigned tile, bool has_head, T aggregate,
                                 bool need_carry, unsigned epoch, Op op) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the look-back of the comment above, with statusStore(), statusLoad(),
   * statusFlag(), statusValue<T>(), __ballot_sync(), shflDownAny() and shflAny(). Publish
   * before you look back: PREFIX at once for tile 0 and a tile with a head, AGGREGATE otherwise.
   * Combine a window's lanes in order (lab 05 summed them with __shfl_xor_sync: here op may be
   * neither commutative nor have an identity at hand), and put each farther window on the left.
   * Until then: the aggregate, and nothing published. */
  (void)status, (void)tile, (void)has_head, (void)need_carry, (void)epoch, (void)op;
  return aggregate;
  /* STUDENT-END(lab06) */
}

/**
 * One tile of SS_GLOBAL_TILE elements per block, in a single pass: draw the tile id from
 * @p counter (zero at launch), load the tile's values and flags, scan it segmented, let warp 0
 * publish and look back, add the carry to the tile's first segment, store. @p status has one
 * word per tile; @p epoch is this launch's. With @p stream (the arrays are larger than the L2
 * cache) loads and stores are marked evict-first. EXCLUSIVE: @p identity at heads and at
 * element 0.
 */
template <typename T, typename Op, bool EXCLUSIVE>
static __global__ void __launch_bounds__(SS_GLOBAL_THREADS, SS_GLOBAL_MIN_BLOCKS)
    segScanGlobalKernel(const T *in, const uint8_t *flags, T *out, size_t n, Op op, T identity,
                        ss_status *status, unsigned *counter, unsigned epoch, bool stream) {
  /* STUDENT-BEGIN(lab06) */
  /* TODO(lab06): the single pass, one tile per block.
   *   1. thread 0 draws the tile id: atomicAdd(counter, 1u); share it through shared memory;
   *   2. load the tile's values and flags (past n: heads, never stored);
   *   3. scan the tile, segmented: each thread its own consecutive elements, the warps with
   *      the direct form; note the tile's pair (does it hold a head? the value of its last
   *      segment) and where each warp's (and the tile's) first head lies;
   *   4. warp 0: carry = lookbackWarp(status, tile, has_head, value, need_carry, epoch, op),
   *      where need_carry says the tile's first element is not a head; share it;
   *   5. combine the carry on the left of every element before the tile's first head (and the
   *      warps' carries before each warp's first head), and store (stop at n).
   * EXCLUSIVE: identity at every head and at element 0. A plain version (SS_GLOBAL_ITEMS
   * elements per thread in a loop, segScanIncBlock) is correct; the timing tests reward 16-byte
   * loads and stores (uint4 values, uint32_t flags four at a time; __ldcs when `stream`, else
   * __ldg; __stcs), rows scanned in registers and few barriers. */
  (void)in, (void)flags, (void)out, (void)n, (void)op, (void)identity, (void)status, (void)counter;
  (void)epoch, (void)stream;
  (void)lookbackWarp<T, Op>; /* here only to keep the compiler quiet until you call it */
  /* STUDENT-END(lab06) */
}

/** The single pass: reset the tile counter, take the next epoch, launch one block per tile. */
template <typename T, typename Op, bool EXCLUSIVE>
static void segScanGlobal(const T *in, const uint8_t *flags, T *out, size_t n, Op op, T identity) {
  static_assert(sizeof(T) == 4, "the single pass packs a 4-byte value and its tag in 64 bits");
  if (n == 0) return;
  const size_t tiles = (n + SS_GLOBAL_TILE - 1) / SS_GLOBAL_TILE;
  /* element 0: the tile counter (its first 4 bytes); elements 1..tiles: the status words */
  const size_t bytes = (tiles + 1) * sizeof(ss_status);
  bool fresh = false;
  if (bytes > g_status_bytes) { /* grow (cudaFree waits for the GPU) */
    if (g_status_ptr) CUDA_CHECK(cudaFree(g_status_ptr));
    g_status_ptr = NULL;
    g_status_bytes = 0;
    CUDA_CHECK(cudaMalloc(&g_status_ptr, bytes));
    g_status_bytes = bytes;
    fresh = true;
  }
  ss_status *scratch = (ss_status *)g_status_ptr;
  if (fresh || g_epoch == SS_EPOCH_MAX) {
    /* new memory, or every tag used: zero all words once and count epochs from 1 again */
    CUDA_CHECK(cudaMemsetAsync(scratch, 0, g_status_bytes, 0));
    g_epoch = 0;
  }
  g_epoch++;
  CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof(unsigned), 0)); /* tile counter = 0 */
  const bool stream = n * (2 * sizeof(T) + 1) > l2Bytes();
  segScanGlobalKernel<T, Op, EXCLUSIVE><<<(unsigned)tiles, SS_GLOBAL_THREADS>>>(
      in, flags, out, n, op, identity, scratch + 1, (unsigned *)scratch, g_epoch, stream);
  CUDA_CHECK_LAUNCH();
}

/* ==== Host API (given) ====================================================================== */

template <typename T, typename Op>
void segScanIncGlobal(const T *d_in, const uint8_t *d_flags, T *d_out, size_t n, Op op) {
  T unused;
  memset(&unused, 0, sizeof unused);
  segScanGlobal<T, Op, false>(d_in, d_flags, d_out, n, op, unused);
}

template <typename T, typename Op>
void segScanExcGlobal(const T *d_in, const uint8_t *d_flags, T *d_out, size_t n, Op op, T identity) {
  segScanGlobal<T, Op, true>(d_in, d_flags, d_out, n, op, identity);
}

void segScanGlobalRelease(void) {
  if (g_status_ptr) CUDA_CHECK(cudaFree(g_status_ptr));
  g_status_ptr = NULL;
  g_status_bytes = 0;
  g_epoch = 0;
}

/* ---- kit code: the launches the tests call (do not edit below this line) ------------------ */

/* The lanes of this thread's warp that hold elements below n (a prefix of the warp). */
static __device__ unsigned liveMask(size_t n) {
  const unsigned warp = threadIdx.x / WARP_SIZE;
  const size_t first = (size_t)blockIdx.x * blockDim.x + warp * WARP_SIZE; /* lane 0's element */
  size_t live = blockDim.x - warp * WARP_SIZE;                              /* lanes in the block */
  if (live > WARP_SIZE) live = WARP_SIZE;
  if (first + live > n) live = n > first ? n - first : 0;                   /* lanes below n */
  return warpPrefixMask((int)live);
}

template <typename T, typename Op>
__global__ void segScanBatchKernel(SegScanVariant variant, const T *in, const uint8_t *flags, T *out,
                                   size_t n, Op op, T identity) {
  __shared__ SegBlockTemp<T> temp;
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (variant >= SEG_BLOCK_INC) {
    /* Every thread of the block takes part; those past n are heads whose results are dropped. */
    const bool live = i < n;
    T x;
    memset(&x, 0, sizeof x);
    if (live) x = in[i];
    const bool head = live ? flags[i] != 0 : true;
    const bool inc = variant == SEG_BLOCK_INC || variant == SEG_BLOCK_INC_TWICE;
    T y = inc ? segScanIncBlock(x, head, op, &temp) : segScanExcBlock(x, head, op, identity, &temp);
    if (variant >= SEG_BLOCK_INC_TWICE) /* at once, on the same temp: the header says it is free */
      y = inc ? segScanIncBlock(y, head, op, &temp) : segScanExcBlock(y, head, op, identity, &temp);
    if (live) out[i] = y;
    return;
  }
  const unsigned mask = liveMask(n);
  if (i < n) {
    const T x = in[i];
    const bool head = flags[i] != 0;
    T y;
    if (variant == SEG_WARP_OP_INC) y = segScanIncWarpOp(x, head, op, mask);
    else if (variant == SEG_WARP_OP_EXC) y = segScanExcWarpOp(x, head, op, identity, mask);
    else if (variant == SEG_WARP_INC) y = segScanIncWarp(x, head, op, mask);
    else y = segScanExcWarp(x, head, op, identity, mask);
    out[i] = y;
  }
  /* The lanes past n stay until the whole block is done, as they would in a kernel with a
   * later block-wide phase: a scan whose mask names them would wait for them in vain. */
  __syncthreads();
}

template <typename T, typename Op>
cudaError_t segScanBatch(SegScanVariant variant, const T *d_in, const uint8_t *d_flags, T *d_out,
                         size_t n, int block, Op op, T identity) {
  if (n == 0) return cudaSuccess;
  const size_t blocks = (n + (size_t)block - 1) / (size_t)block;
  segScanBatchKernel<T, Op><<<(unsigned)blocks, block>>>(variant, d_in, d_flags, d_out, n, op, identity);
  return cudaGetLastError();
}

static __global__ void segHeadLaneKernel(const uint8_t *flags, int32_t *out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned mask = liveMask(n);
  if (i < n) out[i] = (int32_t)segHeadLane(flags[i] != 0, mask);
  __syncthreads();
}

cudaError_t segHeadLaneBatch(const uint8_t *d_flags, int32_t *d_out, size_t n, int block) {
  if (n == 0) return cudaSuccess;
  const size_t blocks = (n + (size_t)block - 1) / (size_t)block;
  segHeadLaneKernel<<<(unsigned)blocks, block>>>(d_flags, d_out, n);
  return cudaGetLastError();
}

template <typename T, typename Op>
__global__ void segOpApplyKernel(const FlagValue<T> *a, const FlagValue<T> *b, FlagValue<T> *out,
                                 size_t n, Op op) {
  const Segmented<Op> segmented = {op};
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = segmented(a[i], b[i]);
}

template <typename T, typename Op>
cudaError_t segOpApply(const FlagValue<T> *d_a, const FlagValue<T> *d_b, FlagValue<T> *d_out, size_t n,
                       Op op) {
  if (n == 0) return cudaSuccess;
  const size_t blocks = (n + 255) / 256;
  segOpApplyKernel<T, Op><<<(unsigned)(blocks < 1024 ? blocks : 1024), 256>>>(d_a, d_b, d_out, n, op);
  return cudaGetLastError();
}

/* The look-back on chosen status words (segLookbackProbe): one warp. */
template <typename T, typename Op>
__global__ void segLookbackProbeKernel(const T *values, const int32_t *states, ss_status *status, uint32_t *out,
                                       unsigned tile, bool has_head, T aggregate, Op op) {
  const unsigned epoch = 1;
  for (unsigned j = threadIdx.x; j < tile; j += WARP_SIZE)
    statusStore(&status[j], epoch, states[j] == (int32_t)SS_FLAG_PREFIX ? SS_FLAG_PREFIX : SS_FLAG_AGGREGATE,
                values[j]);
  __syncthreads();
  const T carry = lookbackWarp(status, tile, has_head, aggregate, true, epoch, op);
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long word = statusLoad(&status[tile]);
    out[0] = toBits(carry);
    out[1] = toBits(statusValue<T>(word));
    out[2] = statusFlag(word, epoch);
  }
}

template <typename T, typename Op>
cudaError_t segLookbackProbe(const T *d_values, const int32_t *d_states, void *d_status, uint32_t *d_out,
                             unsigned tile, bool has_head, T aggregate, Op op) {
  segLookbackProbeKernel<T, Op><<<1, WARP_SIZE>>>(d_values, d_states, (ss_status *)d_status, d_out, tile, has_head,
                                                  aggregate, op);
  return cudaGetLastError();
}

/* The tile counter at @p first, and the tile before it published as a PREFIX of @p carry. */
template <typename T>
__global__ void segTailStartKernel(unsigned *counter, ss_status *status, unsigned first, unsigned epoch, T carry) {
  *counter = first;
  statusStore(&status[first - 1], epoch, SS_FLAG_PREFIX, carry);
}

template <typename T, typename Op>
void segScanGlobalTail(const T *d_in, const uint8_t *d_flags, T *d_out, size_t start, size_t n, Op op, T identity,
                       T carry, bool exclusive) {
  if (n <= start || start % SS_GLOBAL_TILE != 0 || start == 0) return;
  const size_t first = start / SS_GLOBAL_TILE, tiles = (n + SS_GLOBAL_TILE - 1) / SS_GLOBAL_TILE;
  /* status words for tiles first-1 .. tiles-1 only: the pointer is offset back to tile 0 */
  const size_t bytes = (tiles - first + 2) * sizeof(ss_status);
  if (bytes > g_status_bytes || g_epoch == SS_EPOCH_MAX) {
    if (g_status_ptr) CUDA_CHECK(cudaFree(g_status_ptr));
    g_status_ptr = NULL;
    g_status_bytes = 0;
    CUDA_CHECK(cudaMalloc(&g_status_ptr, bytes));
    g_status_bytes = bytes;
    CUDA_CHECK(cudaMemsetAsync(g_status_ptr, 0, bytes, 0));
    g_epoch = 0;
  }
  g_epoch++;
  ss_status *scratch = (ss_status *)g_status_ptr;
  ss_status *status = scratch + 1 - (first - 1); /* status[first - 1] is scratch[1] */
  segTailStartKernel<T><<<1, 1>>>((unsigned *)scratch, status, (unsigned)first, g_epoch, carry);
  CUDA_CHECK_LAUNCH();
  const bool stream = false;
  if (exclusive)
    segScanGlobalKernel<T, Op, true><<<(unsigned)(tiles - first), SS_GLOBAL_THREADS>>>(
        d_in - start, d_flags - start, d_out - start, n, op, identity, status, (unsigned *)scratch, g_epoch, stream);
  else
    segScanGlobalKernel<T, Op, false><<<(unsigned)(tiles - first), SS_GLOBAL_THREADS>>>(
        d_in - start, d_flags - start, d_out - start, n, op, identity, status, (unsigned *)scratch, g_epoch, stream);
  CUDA_CHECK_LAUNCH();
}

/* The element types and operators the tests use. */
#define SS_INSTANTIATE(T, Op)                                                                     \
  template cudaError_t segScanBatch<T, Op>(SegScanVariant, const T *, const uint8_t *, T *, size_t, \
                                           int, Op, T);                                           \
  template cudaError_t segOpApply<T, Op>(const FlagValue<T> *, const FlagValue<T> *, FlagValue<T> *, \
                                         size_t, Op);                                             \
  template void segScanIncGlobal<T, Op>(const T *, const uint8_t *, T *, size_t, Op);             \
  template void segScanExcGlobal<T, Op>(const T *, const uint8_t *, T *, size_t, Op, T);
SS_INSTANTIATE(int32_t, Add)
SS_INSTANTIATE(int32_t, Max)
SS_INSTANTIATE(int32_t, Min)
SS_INSTANTIATE(float, Add)
SS_INSTANTIATE(Affine16, Compose16)
/* The look-back alone and the tail of a long array: int Add, and Compose16 (not commutative). */
#define SS_INSTANTIATE_PROBES(T, Op)                                                              \
  template cudaError_t segLookbackProbe<T, Op>(const T *, const int32_t *, void *, uint32_t *, unsigned, \
                                               bool, T, Op);                                      \
  template void segScanGlobalTail<T, Op>(const T *, const uint8_t *, T *, size_t, size_t, Op, T, T, bool);
SS_INSTANTIATE_PROBES(int32_t, Add)
SS_INSTANTIATE_PROBES(Affine16, Compose16)
