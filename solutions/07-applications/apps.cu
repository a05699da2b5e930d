/**
 * @file apps.cu
 * @brief Lab 07: stream compaction and partition, line of sight, the sparse matrix-vector
 *        product and string comparison, built on one scan toolkit.
 *
 * Your code goes between the STUDENT-BEGIN(lab07) and STUDENT-END(lab07) markers. Everything
 * else is given: the toolkit (shuffles of any 4- or 8-byte type, the block scan, the status
 * words and the look-back, the tile counter, device-wide exclusive sum), the scratch memory and
 * the host functions that launch your kernels. Leave it as it is.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "apps.h"
#include "cuda_check.h"

static_assert(APP_THREADS % APP_WARP == 0 && APP_THREADS <= 1024, "whole warps, at most 1024");
static_assert(APP_ITEMS % 4 == 0, "16-byte loads of four 4-byte elements");

/** All 32 lanes. */
#define FULL_MASK 0xffffffffu
/** Warps in a tile block. */
#define APP_WARPS (APP_THREADS / APP_WARP)
/** A shared-memory index with one padding word every 32 (blocked reads without conflicts). */
#define APP_PAD(i) ((i) + (i) / APP_WARP)
/** Words of a padded tile in shared memory. */
#define APP_TILE_SMEM APP_PAD(APP_TILE)
/** A given device helper: inlined, no "unused" warning while the skeleton does not call it. */
#define APP_HELPER static __device__ __forceinline__ __attribute__((unused))

/* ==== given: the toolkit ==================================================================== */

/** __shfl_up_sync for any type of 4 or 8 bytes (moved as 32-bit words). */
template <typename T>
APP_HELPER T shflUpT(T v, int d) {
  static_assert(sizeof(T) % 4 == 0 && sizeof(T) <= 8, "4 or 8 bytes");
  uint32_t w[2] = {0, 0};
  memcpy(w, &v, sizeof(T));
  for (int k = 0; k < (int)(sizeof(T) / 4); k++) w[k] = __shfl_up_sync(FULL_MASK, w[k], d);
  memcpy(&v, w, sizeof(T));
  return v;
}
/** __shfl_down_sync for any type of 4 or 8 bytes. */
template <typename T>
APP_HELPER T shflDownT(T v, int d) {
  uint32_t w[2] = {0, 0};
  memcpy(w, &v, sizeof(T));
  for (int k = 0; k < (int)(sizeof(T) / 4); k++) w[k] = __shfl_down_sync(FULL_MASK, w[k], d);
  memcpy(&v, w, sizeof(T));
  return v;
}
/** __shfl_sync for any type of 4 or 8 bytes. */
template <typename T>
APP_HELPER T shflT(T v, int src) {
  uint32_t w[2] = {0, 0};
  memcpy(w, &v, sizeof(T));
  for (int k = 0; k < (int)(sizeof(T) / 4); k++) w[k] = __shfl_sync(FULL_MASK, w[k], src);
  memcpy(&v, w, sizeof(T));
  return v;
}

/** Shared memory of blockScanExc(): one total per warp, and the block's. */
template <typename T>
struct BlockScanTemp {
  T warp[APP_WARPS];
  T total;
};

/**
 * Exclusive scan of a tile held as APP_ITEMS consecutive values per thread (thread t holds
 * elements t*APP_ITEMS .. t*APP_ITEMS + APP_ITEMS - 1): on return x[k] is the combination of
 * every element before it in the tile (@p identity for the first), and the function returns
 * the whole tile's combination. Every thread of the block calls it; it ends with a barrier, so
 * @p temp may be reused at once. Any associative @p op, earlier elements on the left.
 */
template <typename T, typename Op>
APP_HELPER T blockScanExc(T (&x)[APP_ITEMS], Op op, T identity, BlockScanTemp<T> *temp) {
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  T run = x[0];
#pragma unroll
  for (int k = 1; k < APP_ITEMS; k++) run = op(run, x[k]);
  T inc = run; /* inclusive scan of the threads' totals across the warp */
#pragma unroll
  for (int d = 1; d < APP_WARP; d *= 2) {
    const T y = shflUpT(inc, d);
    if (lane >= d) inc = op(y, inc);
  }
  T before = shflUpT(inc, 1);
  if (lane == 0) before = identity;
  if (lane == APP_WARP - 1) temp->warp[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    const T w = lane < APP_WARPS ? temp->warp[lane] : identity;
    T ws = w;
#pragma unroll
    for (int d = 1; d < APP_WARPS; d *= 2) {
      const T y = shflUpT(ws, d);
      if (lane >= d) ws = op(y, ws);
    }
    T wex = shflUpT(ws, 1);
    if (lane == 0) wex = identity;
    if (lane < APP_WARPS) temp->warp[lane] = wex;
    if (lane == APP_WARPS - 1) temp->total = ws;
  }
  __syncthreads();
  T acc = op(temp->warp[warp], before);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const T v = x[k];
    x[k] = acc;
    acc = op(acc, v);
  }
  const T total = temp->total;
  __syncthreads();
  return total;
}

/* Status words of the look-back (labs 05 and 06). A word holds a 32-bit value, one extra bit
 * (the head flag of a segmented pair) and a tag: state (AGGREGATE or PREFIX) and the epoch of
 * the launch that wrote it, so words need no clearing between launches. Each word has a
 * 32-byte sector to itself (lab 05's PERF.md: shared sectors cost 10 % of copy). */
#define APP_AGGREGATE 1u
#define APP_PREFIX 2u
/** Largest epoch: epoch << 3 must fit in 32 bits. */
#define APP_EPOCH_MAX 0x1fffffffu

/** One tile's status word, alone in a 32-byte sector. */
typedef struct __align__(32) {
  unsigned long long word;
  unsigned long long unused[3];
} app_status;

/** How a value travels in a status word: 32 bits and a flag bit. */
template <typename T>
struct StatusPack {
  static_assert(sizeof(T) == 4, "a 4-byte value");
  static __device__ uint32_t bits(T v) { uint32_t b; memcpy(&b, &v, 4); return b; }
  static __device__ uint32_t flag(T) { return 0; }
  static __device__ T make(uint32_t b, uint32_t) { T v; memcpy(&v, &b, 4); return v; }
};
template <typename V>
struct StatusPack<FlagVal<V>> {
  static_assert(sizeof(V) == 4, "a 4-byte value");
  static __device__ uint32_t bits(FlagVal<V> p) { uint32_t b; memcpy(&b, &p.value, 4); return b; }
  static __device__ uint32_t flag(FlagVal<V> p) { return p.flag != 0; }
  static __device__ FlagVal<V> make(uint32_t b, uint32_t f) {
    FlagVal<V> p;
    p.flag = f;
    memcpy(&p.value, &b, 4);
    return p;
  }
};

template <typename T>
APP_HELPER void statusStore(app_status *s, unsigned epoch, unsigned state, T v) {
  const unsigned tag = (epoch << 3) | (StatusPack<T>::flag(v) << 2) | state;
  *(volatile unsigned long long *)&s->word = ((unsigned long long)StatusPack<T>::bits(v) << 32) | tag;
}
APP_HELPER unsigned long long statusLoad(const app_status *s) {
  return *(const volatile unsigned long long *)&s->word;
}
/** 0 (not written by this launch), APP_AGGREGATE or APP_PREFIX. */
APP_HELPER unsigned statusState(unsigned long long w, unsigned epoch) {
  const unsigned tag = (unsigned)w;
  return (tag >> 3) == epoch ? (tag & 3u) : 0u;
}
template <typename T>
APP_HELPER T statusValue(unsigned long long w) {
  return StatusPack<T>::make((uint32_t)(w >> 32), ((unsigned)w >> 2) & 1u);
}

/**
 * Decoupled look-back for tile @p tile, whose own combination is @p aggregate: publishes it,
 * combines the tiles before it (a window of 32 at a time, nearest first, stopping at the
 * nearest PREFIX), publishes the tile's inclusive prefix, and returns the exclusive prefix
 * (@p identity for tile 0) to every thread of the block. A tile whose aggregate is a closed
 * segmented pair (it holds a head) publishes PREFIX at once. Every thread calls it; it ends
 * with a barrier.
 */
template <typename T, typename Op>
APP_HELPER T tileLookback(app_status *status, size_t tile, T aggregate, Op op, T identity,
                          unsigned epoch, T *s_prefix) {
  const int lane = threadIdx.x % APP_WARP;
  if (threadIdx.x < APP_WARP) {
    const bool closed = StatusPack<T>::flag(aggregate) != 0;
    if (lane == 0) statusStore(&status[tile], epoch, tile == 0 || closed ? APP_PREFIX : APP_AGGREGATE, aggregate);
    T exclusive = identity;
    long long end = (long long)tile - 1;
    while (end >= 0) {
      const long long j = end - lane;
      unsigned state = APP_PREFIX; /* before tile 0: a prefix of identity */
      T value = identity;
      if (j >= 0) {
        const unsigned long long w = statusLoad(&status[j]);
        state = statusState(w, epoch);
        value = statusValue<T>(w);
      }
      const unsigned prefix_lanes = __ballot_sync(FULL_MASK, state == APP_PREFIX);
      const unsigned invalid_lanes = __ballot_sync(FULL_MASK, state == 0u);
      const unsigned upto = prefix_lanes ? ((prefix_lanes & (0u - prefix_lanes)) << 1) - 1u : FULL_MASK;
      if (invalid_lanes & upto) continue; /* a tile in between has not published yet */
      T v = (upto >> lane) & 1u ? value : identity;
      /* lane 0 gets v[31] op ... op v[0]: higher lanes are earlier tiles, on the left */
#pragma unroll
      for (int o = 1; o < APP_WARP; o *= 2) {
        const T y = shflDownT(v, o);
        if (lane + o < APP_WARP) v = op(y, v);
      }
      exclusive = op(shflT(v, 0), exclusive);
      if (prefix_lanes) break;
      end -= APP_WARP;
    }
    if (lane == 0) {
      if (tile > 0 && !closed) statusStore(&status[tile], epoch, APP_PREFIX, op(exclusive, aggregate));
      *s_prefix = exclusive;
    }
  }
  __syncthreads();
  const T p = *s_prefix;
  __syncthreads();
  return p;
}

/** The next tile in launch order (tiles are drawn from @p counter, not from blockIdx, so a
 *  tile looks back only at tiles already running). Every thread calls it. */
APP_HELPER size_t nextTile(unsigned *counter, unsigned *s_tile) {
  if (threadIdx.x == 0) *s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const size_t t = *s_tile;
  __syncthreads();
  return t;
}

/* ---- given: scratch memory, epochs, launches ---------------------------------------------- */

typedef struct {
  void *ptr;
  size_t bytes;
} app_scratch;
static app_scratch g_status;  /* tile counter (first sector) and status words */
static app_scratch g_temp;    /* flags and offsets of compactScan, tile results of strCompare */
static app_scratch g_word;    /* a 64-bit result read back by the host */
static unsigned g_epoch;

static void *appReserve(app_scratch *s, size_t bytes) {
  if (bytes > s->bytes) {
    if (s->ptr) CUDA_CHECK(cudaFree(s->ptr));
    s->ptr = NULL;
    s->bytes = 0;
    CUDA_CHECK(cudaMalloc(&s->ptr, bytes));
    s->bytes = bytes;
  }
  return s->ptr;
}

void appRelease(void) {
  app_scratch *all[3] = {&g_status, &g_temp, &g_word};
  for (int k = 0; k < 3; k++) {
    if (all[k]->ptr) CUDA_CHECK(cudaFree(all[k]->ptr));
    all[k]->ptr = NULL;
    all[k]->bytes = 0;
  }
  g_epoch = 0;
}

/** Status words for @p tiles tiles and a zeroed tile counter, for a launch of epoch *epoch. */
static app_status *appLaunchState(size_t tiles, unsigned **counter, unsigned *epoch) {
  const size_t bytes = (tiles + 1) * sizeof(app_status);
  const bool fresh = bytes > g_status.bytes;
  app_status *s = (app_status *)appReserve(&g_status, bytes);
  if (fresh || g_epoch == APP_EPOCH_MAX) {
    CUDA_CHECK(cudaMemsetAsync(s, 0, g_status.bytes, 0));
    g_epoch = 0;
  }
  *epoch = ++g_epoch;
  CUDA_CHECK(cudaMemsetAsync(s, 0, sizeof(unsigned), 0));
  *counter = (unsigned *)s;
  return s + 1;
}

/** The 64-bit word the host reads back after a launch (zeroed first). */
static unsigned long long *appWord(void) {
  unsigned long long *w = (unsigned long long *)appReserve(&g_word, sizeof(unsigned long long));
  CUDA_CHECK(cudaMemsetAsync(w, 0, sizeof *w, 0));
  return w;
}
static unsigned long long appReadWord(const unsigned long long *w) {
  unsigned long long v = 0;
  CUDA_CHECK(cudaMemcpy(&v, w, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

static unsigned appTiles(size_t n) { return (unsigned)((n + APP_TILE - 1) / APP_TILE); }

/** The kit's exclusive sum of counts in one pass (the toolkit put together as in lab 05). */
static __global__ void __launch_bounds__(APP_THREADS)
    appScanExcKernel(const uint32_t *in, uint32_t *out, size_t n, app_status *status, unsigned *counter,
                     unsigned epoch) {
  __shared__ BlockScanTemp<uint32_t> temp;
  __shared__ uint32_t s_prefix;
  __shared__ unsigned s_tile;
  const size_t tile = nextTile(counter, &s_tile);
  const size_t first = tile * APP_TILE + (size_t)threadIdx.x * APP_ITEMS;
  uint32_t x[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) x[k] = first + k < n ? in[first + k] : 0u;
  const uint32_t total = blockScanExc(x, AddU(), 0u, &temp);
  const uint32_t prefix = tileLookback(status, tile, total, AddU(), 0u, epoch, &s_prefix);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++)
    if (first + k < n) out[first + k] = prefix + x[k];
}

void appScanExc(const uint32_t *d_in, uint32_t *d_out, size_t n) {
  if (n == 0) return;
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  appScanExcKernel<<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, status, counter, epoch);
  CUDA_CHECK_LAUNCH();
}

/* ==== Part 1: stream compaction and partition ================================================ */

/** flags[i] = 1 when in[i] > pivot, else 0 (i < n). */
static __global__ void compactFlagsKernel(const int32_t *in, uint32_t *flags, size_t n, int32_t pivot) {
  /* STUDENT-BEGIN(lab07) */
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    flags[i] = in[i] > pivot;
  /* STUDENT-END(lab07) */
}

/** out[offsets[i]] = in[i] for every kept element; *count = the number kept (the last
 *  element's offset plus its flag). */
static __global__ void compactScatterKernel(const int32_t *in, const uint32_t *flags, const uint32_t *offsets,
                                            int32_t *out, size_t n, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    if (flags[i]) out[offsets[i]] = in[i];
    if (i == n - 1) *count = (unsigned long long)offsets[i] + flags[i];
  }
  /* STUDENT-END(lab07) */
}

/**
 * One pass: draw a tile, load it (coalesced, through shared memory), count each thread's kept
 * elements, scan the counts in the block (blockScanExc), look back for the count before the
 * tile (tileLookback), stage the tile's kept elements at their ranks in shared memory, and
 * write them out contiguously. The last tile writes the total to *count.
 */
static __global__ void __launch_bounds__(APP_THREADS)
    compactKernel(const int32_t *in, int32_t *out, size_t n, int32_t pivot, app_status *status,
                  unsigned *counter, unsigned epoch, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ int32_t s_tile[APP_TILE_SMEM];
  __shared__ BlockScanTemp<uint32_t> temp;
  __shared__ uint32_t s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const size_t valid = n - base < APP_TILE ? n - base : APP_TILE;
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) { /* striped loads: each warp reads 128 contiguous bytes */
    const unsigned j = k * APP_THREADS + threadIdx.x;
    s_tile[APP_PAD(j)] = j < valid ? in[base + j] : 0;
  }
  __syncthreads();
  int32_t v[APP_ITEMS];
  uint32_t rank[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = threadIdx.x * APP_ITEMS + k;
    v[k] = s_tile[APP_PAD(j)];
    rank[k] = j < valid && v[k] > pivot;
  }
  uint32_t keep[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) keep[k] = rank[k];
  const uint32_t kept = blockScanExc(rank, AddU(), 0u, &temp);
  const uint32_t before = tileLookback(status, tile, kept, AddU(), 0u, epoch, &s_prefix);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++)
    if (keep[k]) s_tile[rank[k]] = v[k];
  __syncthreads();
  for (unsigned j = threadIdx.x; j < kept; j += APP_THREADS) out[before + j] = s_tile[j];
  if (threadIdx.x == 0 && base + valid == n) *count = (unsigned long long)before + kept;
  /* STUDENT-END(lab07) */
}

/** *count += the number of elements > pivot (a block count, then one atomicAdd per block). */
static __global__ void partitionCountKernel(const int32_t *in, size_t n, int32_t pivot, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  unsigned mine = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    mine += in[i] > pivot;
  for (int o = APP_WARP / 2; o > 0; o /= 2) mine += __shfl_xor_sync(FULL_MASK, mine, o);
  if (threadIdx.x % APP_WARP == 0 && mine) atomicAdd(count, (unsigned long long)mine);
  /* STUDENT-END(lab07) */
}

/**
 * One pass as compactKernel(), writing every element: a kept element of rank r (kept before it
 * in the array) goes to out[r]; another element, the m-th not kept, to out[kept_total + m].
 */
static __global__ void __launch_bounds__(APP_THREADS)
    partitionKernel(const int32_t *in, int32_t *out, size_t n, int32_t pivot, size_t kept_total,
                    app_status *status, unsigned *counter, unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ int32_t s_tile[APP_TILE_SMEM];
  __shared__ BlockScanTemp<uint32_t> temp;
  __shared__ uint32_t s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const size_t valid = n - base < APP_TILE ? n - base : APP_TILE;
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = k * APP_THREADS + threadIdx.x;
    s_tile[APP_PAD(j)] = j < valid ? in[base + j] : 0;
  }
  __syncthreads();
  int32_t v[APP_ITEMS];
  uint32_t rank[APP_ITEMS], keep[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = threadIdx.x * APP_ITEMS + k;
    v[k] = s_tile[APP_PAD(j)];
    keep[k] = rank[k] = j < valid && v[k] > pivot;
  }
  const uint32_t kept = blockScanExc(rank, AddU(), 0u, &temp);
  const size_t before = tileLookback(status, tile, kept, AddU(), 0u, epoch, &s_prefix);
  /* staged: the tile's kept elements at 0 .. kept-1, the others after them, both in order */
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = threadIdx.x * APP_ITEMS + k;
    if (j < valid) s_tile[keep[k] ? rank[k] : kept + (j - rank[k])] = v[k];
  }
  __syncthreads();
  const size_t rest = kept_total + (base - before); /* where this tile's other elements start */
  for (unsigned j = threadIdx.x; j < valid; j += APP_THREADS)
    out[j < kept ? before + j : rest + (j - kept)] = s_tile[j];
  /* STUDENT-END(lab07) */
}

/* ---- given: host functions of part 1 ---------------------------------------------------- */

static const unsigned APP_GRID_STRIDE_BLOCKS = 1024;

static unsigned gridFor(size_t n) {
  const size_t b = (n + APP_THREADS - 1) / APP_THREADS;
  return (unsigned)(b < APP_GRID_STRIDE_BLOCKS ? (b ? b : 1) : APP_GRID_STRIDE_BLOCKS);
}

size_t compactScan(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  uint32_t *flags = (uint32_t *)appReserve(&g_temp, 2 * n * sizeof(uint32_t));
  uint32_t *offsets = flags + n;
  unsigned long long *count = appWord();
  compactFlagsKernel<<<gridFor(n), APP_THREADS>>>(d_in, flags, n, pivot);
  CUDA_CHECK_LAUNCH();
  appScanExc(flags, offsets, n);
  compactScatterKernel<<<gridFor(n), APP_THREADS>>>(d_in, flags, offsets, d_out, n, count);
  CUDA_CHECK_LAUNCH();
  return (size_t)appReadWord(count);
}

size_t compactSinglePass(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  unsigned long long *count = appWord();
  compactKernel<<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, pivot, status, counter, epoch, count);
  CUDA_CHECK_LAUNCH();
  return (size_t)appReadWord(count);
}

size_t partitionStable(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  unsigned long long *count = appWord();
  partitionCountKernel<<<gridFor(n), APP_THREADS>>>(d_in, n, pivot, count);
  CUDA_CHECK_LAUNCH();
  const size_t kept = (size_t)appReadWord(count);
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  partitionKernel<<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, pivot, kept, status, counter, epoch);
  CUDA_CHECK_LAUNCH();
  return kept;
}

/* ==== Part 2: line of sight ================================================================== */

/**
 * One pass: each point's slope (-infinity for point 0 and past n), an exclusive max-scan of
 * the slopes in the tile (blockScanExc with MaxF), the look-back for the maximum before the
 * tile, and one byte per point: 1 when the slope beats every slope before it.
 */
static __global__ void __launch_bounds__(APP_THREADS)
    lineOfSightKernel(const float *alt, uint8_t *vis, size_t n, app_status *status, unsigned *counter,
                      unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ float s_tile[APP_TILE_SMEM];
  __shared__ BlockScanTemp<float> temp;
  __shared__ float s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const size_t valid = n - base < APP_TILE ? n - base : APP_TILE;
  const float a0 = alt[0];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = k * APP_THREADS + threadIdx.x;
    s_tile[APP_PAD(j)] = j < valid ? alt[base + j] : 0.0f;
  }
  __syncthreads();
  float slope[APP_ITEMS], before[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = threadIdx.x * APP_ITEMS + k;
    const size_t i = base + j;
    slope[k] = j < valid && i > 0 ? (s_tile[APP_PAD(j)] - a0) / (float)i : -INFINITY;
    before[k] = slope[k];
  }
  const float tile_max = blockScanExc(before, MaxF(), -INFINITY, &temp);
  const float prefix = tileLookback(status, tile, tile_max, MaxF(), -INFINITY, epoch, &s_prefix);
  uint32_t word[APP_ITEMS / 4];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k += 4) {
    uint32_t w = 0;
#pragma unroll
    for (int b = 0; b < 4; b++) w |= (uint32_t)(slope[k + b] > MaxF()(prefix, before[k + b])) << (8 * b);
    word[k / 4] = w;
  }
  const unsigned first = threadIdx.x * APP_ITEMS;
  if (first + APP_ITEMS <= valid && ((uintptr_t)(vis + base + first) & 15u) == 0) {
    *(uint4 *)(vis + base + first) = make_uint4(word[0], word[1], word[2], word[3]);
  } else {
    for (unsigned k = 0; k < APP_ITEMS && first + k < valid; k++)
      vis[base + first + k] = (uint8_t)(word[k / 4] >> (8 * (k % 4)));
  }
  /* STUDENT-END(lab07) */
}

void lineOfSight(const float *d_alt, uint8_t *d_vis, size_t n) {
  if (n == 0) return;
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  lineOfSightKernel<<<appTiles(n), APP_THREADS>>>(d_alt, d_vis, n, status, counter, epoch);
  CUDA_CHECK_LAUNCH();
}

/* ==== Part 3: sparse matrix-vector product =================================================== */

/** The first index r in [lo, hi) with row_ptr[r] >= key (hi when none). */
APP_HELPER int32_t lowerBound(const int32_t *row_ptr, int32_t lo, int32_t hi, long long key) {
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (row_ptr[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Where each tile's rows begin: tile_row[t] = the first row that starts at or after t*APP_TILE
 * (lowerBound over row_ptr[0..rows]), for t = 0 .. tiles (tile_row[tiles] = rows, for the last
 * tile's trailing empty rows). One thread per tile, all searching at once: the searches' latency
 * stays off the tiles' critical path.
 */
static __global__ void spmvTileRowsKernel(const int32_t *row_ptr, int32_t rows, unsigned tiles, int32_t *tile_row) {
  /* STUDENT-BEGIN(lab07) */
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tiles) tile_row[t] = lowerBound(row_ptr, 0, rows + 1, (long long)t * APP_TILE);
  if (t == tiles) tile_row[t] = rows;
  /* STUDENT-END(lab07) */
}

/**
 * One pass over the non-zeros, a tile of APP_TILE per block: take the rows that start or end in
 * the tile (from tile_row), mark the heads in shared memory, load the products, scan the
 * (flag, product) pairs with Seg<AddF> (blockScanExc), look back for the pair before the tile,
 * then store each row that ends in the tile (its inclusive sum at its last non-zero) and 0 for
 * each empty row that starts in it (the last tile also takes the empty rows at nnz).
 */
static __global__ void __launch_bounds__(APP_THREADS)
    spmvKernel(const int32_t *row_ptr, const int32_t *col, const float *val, const float *x, float *y,
               int32_t rows, int32_t nnz, const int32_t *tile_row, app_status *status, unsigned *counter,
               unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ float s_val[APP_TILE_SMEM];
  __shared__ uint8_t s_head[APP_TILE];
  __shared__ BlockScanTemp<FlagVal<float>> temp;
  __shared__ FlagVal<float> s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const long long k0 = (long long)tile * APP_TILE;
  const long long k1 = k0 + APP_TILE < nnz ? k0 + APP_TILE : nnz;
  const bool last = k1 == nnz;
  const int32_t valid = (int32_t)(k1 - k0);
  const int32_t lo = tile_row[tile];              /* the first row starting at or after k0 */
  const int32_t r_first = lo > 0 ? lo - 1 : 0;     /* and the row running into the tile */
  const int32_t r_end = last ? rows : tile_row[tile + 1]; /* the first row starting at or after k1 */
  for (int j = threadIdx.x; j < APP_TILE; j += APP_THREADS) s_head[j] = 0;
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const int j = k * APP_THREADS + threadIdx.x;
    float p = 0.0f;
    if (j < valid) p = val[k0 + j] * x[col[k0 + j]];
    s_val[APP_PAD(j)] = p;
  }
  __syncthreads();
  for (int32_t r = r_first + (int32_t)threadIdx.x; r < r_end; r += APP_THREADS) {
    const long long p = row_ptr[r];
    if (p >= k0 && p < k1 && p < row_ptr[r + 1]) s_head[p - k0] = 1;
  }
  __syncthreads();
  FlagVal<float> pr[APP_ITEMS], item[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const int j = threadIdx.x * APP_ITEMS + k;
    item[k].flag = s_head[j];
    item[k].value = s_val[APP_PAD(j)];
    pr[k] = item[k];
  }
  const Seg<AddF> seg = {AddF()};
  const FlagVal<float> none = {0u, 0.0f};
  const FlagVal<float> total = blockScanExc(pr, seg, none, &temp);
  const FlagVal<float> prefix = tileLookback(status, tile, total, seg, none, epoch, &s_prefix);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) { /* inclusive sums, back in place */
    const int j = threadIdx.x * APP_ITEMS + k;
    s_val[APP_PAD(j)] = seg(seg(prefix, pr[k]), item[k]).value;
  }
  __syncthreads();
  for (int32_t r = r_first + (int32_t)threadIdx.x; r < r_end; r += APP_THREADS) {
    const long long p = row_ptr[r], q = row_ptr[r + 1];
    if (p == q) {
      if (p >= k0 && (p < k1 || last)) y[r] = 0.0f;
    } else if (q - 1 >= k0 && q - 1 < k1) {
      y[r] = s_val[APP_PAD(q - 1 - k0)];
    }
  }
  /* STUDENT-END(lab07) */
}

static __global__ void zeroKernel(float *y, int32_t rows) {
  for (int32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) y[r] = 0.0f;
}

void spmvCsr(const int32_t *d_row_ptr, const int32_t *d_col, const float *d_val, const float *d_x, float *d_y,
             int32_t rows, int32_t nnz) {
  if (rows <= 0) return;
  if (nnz == 0) { /* no tiles: every row is empty */
    zeroKernel<<<gridFor((size_t)rows), APP_THREADS>>>(d_y, rows);
    CUDA_CHECK_LAUNCH();
    return;
  }
  const unsigned tiles = appTiles((size_t)nnz);
  int32_t *tile_row = (int32_t *)appReserve(&g_temp, ((size_t)tiles + 1) * sizeof(int32_t));
  spmvTileRowsKernel<<<(tiles + APP_THREADS) / APP_THREADS, APP_THREADS>>>(d_row_ptr, rows, tiles, tile_row);
  CUDA_CHECK_LAUNCH();
  unsigned *counter, epoch;
  app_status *status = appLaunchState(tiles, &counter, &epoch);
  spmvKernel<<<tiles, APP_THREADS>>>(d_row_ptr, d_col, d_val, d_x, d_y, rows, nnz, tile_row, status, counter,
                                     epoch);
  CUDA_CHECK_LAUNCH();
}

/* ==== Part 4: string comparison ============================================================== */

__host__ __device__ int32_t FirstDiff::operator()(int32_t a, int32_t b) const {
  /* STUDENT-BEGIN(lab07) */
  return a != 0 ? a : b;
  /* STUDENT-END(lab07) */
}

static __global__ void firstDiffKernel(const int32_t *a, const int32_t *b, int32_t *out, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = FirstDiff()(a[i], b[i]);
}

void firstDiffApply(const int32_t *d_a, const int32_t *d_b, int32_t *d_out, size_t n) {
  if (n == 0) return;
  firstDiffKernel<<<gridFor(n), APP_THREADS>>>(d_a, d_b, d_out, n);
  CUDA_CHECK_LAUNCH();
}

/** Bytes per tile of strTileKernel(): APP_ITEMS per thread. */
#define STR_TILE APP_TILE

/**
 * Tile t compares positions [t*STR_TILE, (t+1)*STR_TILE) below @p m: each thread makes the
 * codes of its APP_ITEMS positions (-1, 0, +1 as a[i] is below, equal to or above b[i]),
 * reduces them with FirstDiff, the block reduces the threads' codes in order, and thread 0
 * writes the tile's code to tile_code[t].
 */
static __global__ void __launch_bounds__(APP_THREADS)
    strTileKernel(const uint8_t *a, const uint8_t *b, size_t m, int32_t *tile_code) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ int32_t s_warp[APP_WARPS];
  const size_t first = (size_t)blockIdx.x * STR_TILE + (size_t)threadIdx.x * APP_ITEMS;
  int32_t code = 0;
  if (first + APP_ITEMS <= m && (((uintptr_t)(a + first) | (uintptr_t)(b + first)) & 15u) == 0) {
    const uint4 wa = *(const uint4 *)(a + first), wb = *(const uint4 *)(b + first);
    const uint32_t la[4] = {wa.x, wa.y, wa.z, wa.w}, lb[4] = {wb.x, wb.y, wb.z, wb.w};
    for (int w = 0; w < 4 && code == 0; w++)
      if (la[w] != lb[w]) {
        const int shift = (__ffs(la[w] ^ lb[w]) - 1) & ~7; /* the first differing byte (little-endian) */
        code = ((la[w] >> shift) & 0xffu) < ((lb[w] >> shift) & 0xffu) ? -1 : 1;
      }
  } else {
    for (size_t i = first; i < first + APP_ITEMS && i < m && code == 0; i++)
      code = a[i] < b[i] ? -1 : a[i] > b[i] ? 1 : 0;
  }
  const FirstDiff fd;
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  for (int o = 1; o < APP_WARP; o *= 2) { /* lane 0 gets lane 0's code op lane 1's op ... */
    const int32_t later = __shfl_down_sync(FULL_MASK, code, o);
    if (lane + o < APP_WARP) code = fd(code, later);
  }
  if (lane == 0) s_warp[warp] = code;
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t c = 0;
    for (int w = 0; w < APP_WARPS; w++) c = fd(c, s_warp[w]);
    tile_code[blockIdx.x] = c;
  }
  /* STUDENT-END(lab07) */
}

/**
 * One block: reduce tile_code[0 .. tiles-1] in order with FirstDiff; if every position was
 * equal, the shorter string is the smaller. Thread 0 writes the result (-1, 0, +1) to *result.
 */
static __global__ void strFinishKernel(const int32_t *tile_code, unsigned tiles, size_t len_a, size_t len_b,
                                       unsigned long long *result) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ int32_t s_warp[APP_WARPS];
  const FirstDiff fd;
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  /* thread t takes a contiguous run of tiles, so the threads' codes are in order */
  const unsigned per = (tiles + blockDim.x - 1) / blockDim.x;
  int32_t code = 0;
  for (unsigned t = threadIdx.x * per; t < (threadIdx.x + 1) * per && t < tiles && code == 0; t++) code = tile_code[t];
  for (int o = 1; o < APP_WARP; o *= 2) {
    const int32_t later = __shfl_down_sync(FULL_MASK, code, o);
    if (lane + o < APP_WARP) code = fd(code, later);
  }
  if (lane == 0) s_warp[warp] = code;
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t c = 0;
    for (int w = 0; w < (int)(blockDim.x / APP_WARP); w++) c = fd(c, s_warp[w]);
    if (c == 0) c = len_a < len_b ? -1 : len_a > len_b ? 1 : 0;
    *result = (unsigned long long)(long long)c;
  }
  /* STUDENT-END(lab07) */
}

int strCompare(const uint8_t *d_a, size_t len_a, const uint8_t *d_b, size_t len_b) {
  const size_t m = len_a < len_b ? len_a : len_b;
  const unsigned tiles = (unsigned)((m + STR_TILE - 1) / STR_TILE);
  int32_t *codes = (int32_t *)appReserve(&g_temp, (tiles ? tiles : 1) * sizeof(int32_t));
  unsigned long long *result = appWord();
  if (tiles) {
    strTileKernel<<<tiles, APP_THREADS>>>(d_a, d_b, m, codes);
    CUDA_CHECK_LAUNCH();
  }
  strFinishKernel<<<1, APP_THREADS>>>(codes, tiles, len_a, len_b, result);
  CUDA_CHECK_LAUNCH();
  return (int)(long long)appReadWord(result);
}
