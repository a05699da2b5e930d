/**
 * @file apps.cu
 * @brief Lab 07: stream compaction and partition, line of sight, the sparse matrix-vector
 *        product and string comparison, built on one scan toolkit.
 *
 * Your code goes between the STUDENT-BEGIN(lab07) and STUDENT-END(lab07) markers. Everything
 * else is given: the toolkit (the block scan, the status
 * words and the look-back, the tile counter, device-wide exclusive sum), the scratch memory and
 * the host functions that launch your kernels. Leave it as it is.
 *
 * Why one file (past 800 lines): the lab hands out its four applications as one student file.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "apps.h"
#include "cuda_check.h"
#include "warp_scan.h" /* shflUpAny, shflDownAny, shflAny: shuffles of any 4-byte multiple */

static_assert(APP_THREADS % APP_WARP == 0 && APP_THREADS <= 1024, "whole warps, at most 1024");
static_assert(APP_ITEMS % 4 == 0, "16-byte loads of four 4-byte elements");

/** All 32 lanes. */
#define FULL_MASK 0xffffffffu
/** Warps in a tile block. */
#define APP_WARPS (APP_THREADS / APP_WARP)
/** Elements of a tile that one warp holds: APP_ITEMS / 4 rows of 4 * 32. */
#define APP_WARP_TILE (APP_WARP * APP_ITEMS)
/** Elements in a row: each lane holds 4 consecutive ones (one 16-byte access). */
#define APP_ROW (4 * APP_WARP)
/** Rows per warp. */
#define APP_ROWS (APP_ITEMS / 4)
/** A given device helper: inlined, no "unused" warning while the skeleton does not call it. */
#define APP_HELPER static __device__ __forceinline__ __attribute__((unused))

/* ==== given: the toolkit ==================================================================== */

/**
 * Where a thread's items lie in its tile (the layout of every tile kernel here). Warp w holds
 * elements [w * APP_WARP_TILE, (w + 1) * APP_WARP_TILE) as APP_ROWS rows of APP_ROW; in row r,
 * lane l holds the 4 consecutive elements at r * APP_ROW + 4 * l. Item k of a thread is element
 * 4 * l + (k % 4) of its warp's row k / 4. A warp's 32 lanes read a row with one 16-byte access
 * each: 512 consecutive bytes, the best a load can do.
 */
APP_HELPER unsigned tilePos(int k) {
  return (threadIdx.x / APP_WARP) * APP_WARP_TILE + (unsigned)(k / 4) * APP_ROW + (threadIdx.x % APP_WARP) * 4 +
         (unsigned)(k % 4);
}

/**
 * Loads the thread's APP_ITEMS elements of the tile that starts at p[base] and holds @p valid
 * elements (4-byte T): 16-byte loads, marked evict-first, when the tile is whole and p is
 * 16-byte aligned; one element at a time otherwise, @p fill past the end.
 */
template <typename T>
APP_HELPER void loadTile(const T *p, size_t base, unsigned valid, T fill, T (&v)[APP_ITEMS]) {
  static_assert(sizeof(T) == 4, "4-byte elements");
  if (valid == APP_TILE && ((uintptr_t)p & 15u) == 0) {
#pragma unroll
    for (int r = 0; r < APP_ROWS; r++) {
      const int4 w = __ldcs((const int4 *)(p + base + tilePos(4 * r)));
      memcpy(&v[4 * r], &w, 16);
    }
  } else {
#pragma unroll
    for (int k = 0; k < APP_ITEMS; k++) {
      const unsigned j = tilePos(k);
      v[k] = j < valid ? p[base + j] : fill;
    }
  }
}

/** Shared memory of blockScanExc(): one total per warp. */
template <typename T>
struct BlockScanTemp {
  T warp[APP_WARPS];
};

/**
 * Exclusive scan of a tile in the layout of tilePos(): on return x[k] is the combination of
 * every element before item k in the tile (@p identity for the first), and the function
 * returns the whole tile's combination. Each lane combines its 4 items of a row, the lanes of
 * the row scan those (five shuffles), the rows join in order, the warps' totals meet in shared
 * memory and each warp combines those before it. Every thread of the block calls it; it ends
 * with a barrier, so @p temp may be reused at once. Any associative @p op, earlier on the left.
 */
template <typename T, typename Op>
APP_HELPER T blockScanExc(T (&x)[APP_ITEMS], Op op, T identity, BlockScanTemp<T> *temp) {
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  T carry = identity;        /* the rows before this one, in this warp */
  T lane_before[APP_ROWS];   /* the lanes before this one, in each row */
  T row_carry[APP_ROWS];
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) {
    T t = op(op(x[4 * r], x[4 * r + 1]), op(x[4 * r + 2], x[4 * r + 3]));
    T inc = t;
#pragma unroll
    for (int d = 1; d < APP_WARP; d *= 2) {
      const T y = shflUpAny(FULL_MASK, inc, d);
      if (lane >= d) inc = op(y, inc);
    }
    T before = shflUpAny(FULL_MASK, inc, 1);
    if (lane == 0) before = identity;
    lane_before[r] = before;
    row_carry[r] = carry;
    carry = op(carry, shflAny(FULL_MASK, inc, APP_WARP - 1));
  }
  if (lane == 0) temp->warp[warp] = carry; /* the warp's total */
  __syncthreads();
  T warp_before = identity, total = identity;
#pragma unroll
  for (int w = 0; w < APP_WARPS; w++) {
    const T v = temp->warp[w];
    if (w < warp) warp_before = op(warp_before, v);
    total = op(total, v);
  }
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) {
    T acc = op(op(warp_before, row_carry[r]), lane_before[r]);
#pragma unroll
    for (int c = 0; c < 4; c++) {
      const T v = x[4 * r + c];
      x[4 * r + c] = acc;
      acc = op(acc, v);
    }
  }
  __syncthreads();
  return total;
}

/**
 * blockScanExc() with AddU for flags of 0 or 1 (compaction, partition), with fewer shuffles:
 * a lane's count in a row is at most 4 and a row's at most 128, so the counts of 4 rows travel
 * packed in the 4 bytes of one word and two warp scans do the work of eight (no byte carries
 * into the next). On return f[k] is the number of set flags before item k in the tile; returns
 * the tile's count. Ends with a barrier, as blockScanExc() does.
 */
APP_HELPER uint32_t blockCountExc(uint32_t (&f)[APP_ITEMS], BlockScanTemp<uint32_t> *temp) {
  constexpr int WORDS = (APP_ROWS + 3) / 4; /* 4 rows' counts a word */
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  uint32_t own[WORDS] = {}, inc[WORDS], rows[WORDS];
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) own[r / 4] += (f[4 * r] + f[4 * r + 1] + f[4 * r + 2] + f[4 * r + 3]) << (8 * (r % 4));
#pragma unroll
  for (int w = 0; w < WORDS; w++) inc[w] = own[w];
#pragma unroll
  for (int d = 1; d < APP_WARP; d *= 2) {
    uint32_t y[WORDS];
#pragma unroll
    for (int w = 0; w < WORDS; w++) y[w] = __shfl_up_sync(FULL_MASK, inc[w], d);
#pragma unroll
    for (int w = 0; w < WORDS; w++)
      if (lane >= d) inc[w] += y[w];
  }
#pragma unroll
  for (int w = 0; w < WORDS; w++) rows[w] = __shfl_sync(FULL_MASK, inc[w], APP_WARP - 1);
  uint32_t start[APP_ROWS], carry = 0; /* row r's count before this lane, in the warp */
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) {
    start[r] = carry + (((inc[r / 4] - own[r / 4]) >> (8 * (r % 4))) & 0xffu);
    carry += (rows[r / 4] >> (8 * (r % 4))) & 0xffu;
  }
  if (lane == 0) temp->warp[warp] = carry; /* the warp's count */
  __syncthreads();
  uint32_t warp_before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < APP_WARPS; w++) {
    const uint32_t c = temp->warp[w];
    if (w < warp) warp_before += c;
    total += c;
  }
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) {
    uint32_t acc = warp_before + start[r];
#pragma unroll
    for (int c = 0; c < 4; c++) {
      const uint32_t v = f[4 * r + c];
      f[4 * r + c] = acc;
      acc += v;
    }
  }
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
        const T y = shflDownAny(FULL_MASK, v, o);
        if (lane + o < APP_WARP) v = op(y, v);
      }
      exclusive = op(shflAny(FULL_MASK, v, 0), exclusive);
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
static app_scratch g_status;  /* tile counters (the first sectors) and status words */
static app_scratch g_temp;    /* flags and offsets of compactScan, tile results of strCompare */
static app_scratch g_word;    /* a 64-bit result read back by the host */
static app_scratch g_sort_keys, g_sort_vals, g_counts; /* radix sort: ping-pong halves, counts and digit words */
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
  app_scratch *all[6] = {&g_status, &g_temp, &g_word, &g_sort_keys, &g_sort_vals, &g_counts};
  for (int k = 0; k < 6; k++) {
    if (all[k]->ptr) CUDA_CHECK(cudaFree(all[k]->ptr));
    all[k]->ptr = NULL;
    all[k]->bytes = 0;
  }
  g_epoch = 0;
}

/** Tile counters at the head of g_status, one sector each: launch e takes counter
 *  (e - 1) % APP_COUNTERS, and all of them are zeroed together once every APP_COUNTERS launches,
 *  so most launches follow the one before without a memset between them. */
#define APP_COUNTERS 64

/** Status words for @p tiles tiles and a zeroed tile counter, for a launch of epoch *epoch. */
static app_status *appLaunchState(size_t tiles, unsigned **counter, unsigned *epoch) {
  const size_t bytes = (tiles + APP_COUNTERS) * sizeof(app_status);
  const bool fresh = bytes > g_status.bytes;
  app_status *s = (app_status *)appReserve(&g_status, bytes);
  if (fresh || g_epoch == APP_EPOCH_MAX) {
    CUDA_CHECK(cudaMemsetAsync(s, 0, g_status.bytes, 0));
    g_epoch = 0;
  }
  *epoch = ++g_epoch;
  const unsigned slot = (g_epoch - 1) % APP_COUNTERS;
  if (slot == 0 && g_epoch > 1) /* every counter has been used since they were last zeroed */
    CUDA_CHECK(cudaMemsetAsync(s, 0, APP_COUNTERS * sizeof(app_status), 0));
  *counter = (unsigned *)(s + slot);
  return s + APP_COUNTERS;
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
  const size_t base = tile * APP_TILE;
  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);
  uint32_t x[APP_ITEMS];
  loadTile(in, base, valid, 0u, x);
  const uint32_t total = blockScanExc(x, AddU(), 0u, &temp);
  const uint32_t prefix = tileLookback(status, tile, total, AddU(), 0u, epoch, &s_prefix);
  if (valid == APP_TILE && ((uintptr_t)out & 15u) == 0) { /* a row of a warp: one 16-byte store a lane */
#pragma unroll
    for (int r = 0; r < APP_ROWS; r++) {
      const uint4 w = {prefix + x[4 * r], prefix + x[4 * r + 1], prefix + x[4 * r + 2], prefix + x[4 * r + 3]};
      __stcs((uint4 *)(out + base + tilePos(4 * r)), w);
    }
  } else {
#pragma unroll
    for (int k = 0; k < APP_ITEMS; k++)
      if (tilePos(k) < valid) out[base + tilePos(k)] = prefix + x[k];
  }
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
  __shared__ int32_t s_kept[APP_TILE];
  __shared__ BlockScanTemp<uint32_t> temp;
  __shared__ uint32_t s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);
  int32_t v[APP_ITEMS];
  loadTile(in, base, valid, pivot, v); /* past n: the pivot, which is never kept */
  uint32_t rank[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) rank[k] = v[k] > pivot;
  const uint32_t kept = blockCountExc(rank, &temp); /* blockScanExc with AddU does the same, slower */
  const uint32_t before = tileLookback(status, tile, kept, AddU(), 0u, epoch, &s_prefix);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) /* staged at their ranks: the tile's kept elements in order */
    if (v[k] > pivot) s_kept[rank[k]] = v[k];
  __syncthreads();
  /* not unrolled: a warp then stores once per trip of its lanes (nvcc's unrolled copy would run
   * both the unrolled body and the remainder in a warp whose lanes straddle them) */
#pragma unroll 1
  for (unsigned j = threadIdx.x; j < kept; j += APP_THREADS) __stcs(out + before + j, s_kept[j]);
  if (threadIdx.x == 0 && base + valid == n) *count = (unsigned long long)before + kept;
  /* STUDENT-END(lab07) */
}

/** *count += the number of elements that @p keep keeps (a warp count, then one atomicAdd per
 *  warp). T: int32_t with KeepAbove, uint32_t with BitClear. */
template <typename T, typename Pred>
static __global__ void partitionCountKernel(const T *in, size_t n, Pred keep, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  static_assert(sizeof(T) == 4, "4-byte elements, read 4 at a time");
  unsigned mine = 0;
  const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  /* Tuning, not needed to pass (a plain grid-stride loop over in[i] does): a read-only pass is as
   * fast as the loads in flight, so each thread reads 16-byte vectors, four of them before it
   * counts any, from the first 16-byte boundary on; the few elements before it and after the
   * last whole vector one at a time. The vectors are read from the last to the first, and kept
   * in the L2 cache as usual (not marked evict-first): the one pass that follows reads from the
   * first tile on, and finds the start of the input still in the cache (a 2^24-element input
   * is 64 MB, the H100's L2 cache 50). */
  const size_t head = (16 - ((uintptr_t)in & 15u)) % 16 / 4 < n ? (16 - ((uintptr_t)in & 15u)) % 16 / 4 : n;
  const size_t vecs = (n - head) / 4;
  const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
  for (size_t i = first; i < vecs; i += 4 * stride) {
    uint4 q[4];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u * stride < vecs) q[u] = v[vecs - 1 - (i + u * stride)];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u * stride < vecs)
        mine += keep((T)q[u].x) + keep((T)q[u].y) + keep((T)q[u].z) + keep((T)q[u].w);
  }
  for (size_t i = first; i < head + n - (head + 4 * vecs); i += stride) /* the head, then the tail */
    mine += keep(in[i < head ? i : head + 4 * vecs + (i - head)]);
  for (int o = APP_WARP / 2; o > 0; o /= 2) mine += __shfl_xor_sync(FULL_MASK, mine, o);
  if (threadIdx.x % APP_WARP == 0 && mine) atomicAdd(count, (unsigned long long)mine);
  /* STUDENT-END(lab07) */
}

/**
 * One pass as compactKernel(), writing every element: a kept element of rank r (kept before it
 * in the array) goes to out[r]. The m-th element not kept goes, when STABLE, to out[*count + m]
 * (*count: what partitionCountKernel() counted, read on the device: no trip to the host); in
 * the single pass of partitionSinglePass() (STABLE false) to out[n - 1 - m], so that the others
 * fill the array from its end backwards and need no count first, and the tile that holds the
 * last element writes the kept total to *count.
 */
template <bool STABLE, typename T, typename Pred>
static __global__ void __launch_bounds__(APP_THREADS, 6) /* 6 blocks an SM: at most 80 registers */
    partitionKernel(const T *in, T *out, size_t n, Pred keep, unsigned long long *count, app_status *status,
                    unsigned *counter, unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ T s_tile[APP_TILE];
  __shared__ BlockScanTemp<uint32_t> temp;
  __shared__ uint32_t s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);
  T v[APP_ITEMS];
  loadTile(in, base, valid, T(), v);
  uint32_t rank[APP_ITEMS], kept_here[APP_ITEMS];
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) kept_here[k] = rank[k] = tilePos(k) < valid && keep(v[k]);
  const uint32_t kept = blockScanExc(rank, AddU(), 0u, &temp);
  const size_t before = tileLookback(status, tile, kept, AddU(), 0u, epoch, &s_prefix);
  /* staged: the tile's kept elements at 0 .. kept-1, the others after them, both in order */
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) {
    const unsigned j = tilePos(k);
    if (j < valid) s_tile[kept_here[k] ? rank[k] : kept + (j - rank[k])] = v[k];
  }
  __syncthreads();
  if (STABLE) {
    const size_t rest = (size_t)*count + (base - before); /* where this tile's others start */
    for (unsigned j = threadIdx.x; j < valid; j += APP_THREADS)
      __stcs(out + (j < kept ? before + j : rest + (j - kept)), s_tile[j]);
  } else {
    const size_t last = n - 1 - (base - before); /* where this tile's first other goes */
    for (unsigned j = threadIdx.x; j < valid; j += APP_THREADS)
      __stcs(out + (j < kept ? before + j : last - (j - kept)), s_tile[j]);
    if (threadIdx.x == 0 && base + valid == n) *count = (unsigned long long)before + kept;
  }
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
  const size_t n4 = (n + 3) & ~(size_t)3; /* offsets 16-byte aligned: appScanExc stores 16 bytes a lane */
  uint32_t *flags = (uint32_t *)appReserve(&g_temp, (n4 + n) * sizeof(uint32_t));
  uint32_t *offsets = flags + n4;
  unsigned long long *count = appWord();
  compactFlagsKernel<<<gridFor(n), APP_THREADS>>>(d_in, flags, n, pivot);
  CUDA_CHECK_LAUNCH();
  appScanExc(flags, offsets, n);
  compactScatterKernel<<<gridFor(n), APP_THREADS>>>(d_in, flags, offsets, d_out, n, count);
  CUDA_CHECK_LAUNCH();
  return (size_t)appReadWord(count);
}

void compactSinglePassAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                            unsigned long long *d_kept) {
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof *d_kept, 0));
    return;
  }
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  compactKernel<<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, pivot, status, counter, epoch, d_kept);
  CUDA_CHECK_LAUNCH();
}

size_t compactSinglePass(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  unsigned long long *count = appWord();
  compactSinglePassAsync(d_in, d_out, n, pivot, count);
  return (size_t)appReadWord(count);
}

/** The two partition passes; the first group's size is left in *count (on the device). */
template <typename T, typename Pred>
static void partitionPasses(const T *d_in, T *d_out, size_t n, Pred keep, unsigned long long *count) {
  partitionCountKernel<<<gridFor(n), APP_THREADS>>>(d_in, n, keep, count);
  CUDA_CHECK_LAUNCH();
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  partitionKernel<true><<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, keep, count, status, counter, epoch);
  CUDA_CHECK_LAUNCH();
}

size_t partitionStable(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  unsigned long long *count = appWord();
  const KeepAbove keep = {pivot};
  partitionPasses(d_in, d_out, n, keep, count);
  return (size_t)appReadWord(count);
}

void partitionStableAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                          unsigned long long *d_kept) {
  CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof *d_kept, 0)); /* the counting pass adds to it */
  if (n == 0) return;
  const KeepAbove keep = {pivot};
  partitionPasses(d_in, d_out, n, keep, d_kept);
}

void partitionSinglePassAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                              unsigned long long *d_kept) {
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(d_kept, 0, sizeof *d_kept, 0));
    return;
  }
  unsigned *counter, epoch;
  app_status *status = appLaunchState(appTiles(n), &counter, &epoch);
  const KeepAbove keep = {pivot};
  partitionKernel<false><<<appTiles(n), APP_THREADS>>>(d_in, d_out, n, keep, d_kept, status, counter, epoch);
  CUDA_CHECK_LAUNCH();
}

size_t partitionSinglePass(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot) {
  if (n == 0) return 0;
  unsigned long long *count = appWord();
  partitionSinglePassAsync(d_in, d_out, n, pivot, count);
  return (size_t)appReadWord(count);
}

/** The tile counter at @p first, the tile before it a PREFIX of @p before, *count = @p total. */
static __global__ void appTailStartKernel(unsigned *counter, app_status *status, unsigned first, unsigned epoch,
                                          uint32_t before, unsigned long long *count, unsigned long long total) {
  *counter = first;
  statusStore(&status[first - 1], epoch, APP_PREFIX, before);
  *count = total;
}

size_t appSelectTail(const int32_t *d_in, int32_t *d_out, size_t start, size_t n, int32_t pivot,
                     size_t kept_before, size_t kept_total, int partition) {
  if (n <= start || start % APP_TILE != 0 || start == 0 || partition < 0 || partition > 2) return 0;
  const size_t first = start / APP_TILE, tiles = (n + APP_TILE - 1) / APP_TILE;
  unsigned *counter, epoch;
  /* status words for tiles first-1 .. tiles-1 only: the pointer is offset back to tile 0 */
  app_status *words = appLaunchState(tiles - first + 1, &counter, &epoch);
  app_status *status = words - (first - 1);
  unsigned long long *count = appWord();
  /* stable partition: the first group's size on the device, as partitionCountKernel() leaves it */
  appTailStartKernel<<<1, 1>>>(counter, status, (unsigned)first, epoch, (uint32_t)kept_before, count,
                               partition == 1 ? (unsigned long long)kept_total : 0ull);
  CUDA_CHECK_LAUNCH();
  const unsigned grid = (unsigned)(tiles - first);
  const KeepAbove keep = {pivot};
  if (partition == 1) {
    partitionKernel<true><<<grid, APP_THREADS>>>(d_in - start, d_out - kept_before, n, keep, count, status,
                                                counter, epoch);
  } else if (partition == 2) {
    partitionKernel<false><<<grid, APP_THREADS>>>(d_in - start, d_out - kept_before, n, keep, count, status,
                                                 counter, epoch);
  } else {
    compactKernel<<<grid, APP_THREADS>>>(d_in - start, d_out - kept_before, n, pivot, status, counter, epoch, count);
  }
  CUDA_CHECK_LAUNCH();
  return (size_t)appReadWord(count);
}

size_t splitBit(const uint32_t *d_in, uint32_t *d_out, size_t n, int bit) {
  if (n == 0) return 0;
  unsigned long long *count = appWord();
  const BitClear keep = {bit};
  partitionPasses(d_in, d_out, n, keep, count);
  return (size_t)appReadWord(count);
}

void radixSortSplit(const uint32_t *d_in, uint32_t *d_out, size_t n) {
  if (n == 0) return;
  uint32_t *tmp = (uint32_t *)appReserve(&g_sort_keys, n * sizeof(uint32_t));
  unsigned long long *count = appWord();
  const uint32_t *src = d_in;
  for (int bit = 0; bit < 32; bit++) { /* bit 0 first; 32 passes end in d_out */
    uint32_t *dst = bit % 2 == 0 ? tmp : d_out;
    CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, 0));
    const BitClear keep = {bit};
    partitionPasses(src, dst, n, keep, count);
    src = dst;
  }
}

/* ==== Part 1b: LSD radix sort ================================================================ */

/* The sort makes one sweep a digit (Merrill and Garland's one-sweep sort, after Adinets and
 * Merrill, "Onesweep", 2022): a first pass counts every digit of every pass at once; then each
 * of the 4 passes reads the keys once, and a tile learns where its keys of digit d go from the
 * tiles before it through a look-back over digit d's counts, as the single-pass scan learns its
 * prefix. Its blocks have one thread per digit, 8 warps, and tiles of their own: 6144 keys, 24 a
 * thread (the sweep's fixed costs, its counters and its look-back, spread over more keys than
 * APP_TILE's 4096, and each digit's runs are longer). */

/** Threads of a sort block: one per digit. */
#define APP_SORT_THREADS APP_RADIX_DIGITS
/** Keys a sort thread holds. */
#define APP_SORT_ITEMS 24
/** Keys of a sort tile. */
#define APP_SORT_TILE (APP_SORT_THREADS * APP_SORT_ITEMS)
/** Warps of a sort block. */
#define APP_SORT_WARPS (APP_SORT_THREADS / APP_WARP)
/** Predecessors a digit's look-back reads at once. */
#define APP_SORT_WINDOW 4

/** Digit (key >> shift) & 255 of a pass (shift a multiple of APP_RADIX_BITS = 8): the key's byte
 *  shift / 8, picked out by one byte permute (a shift and a mask are two instructions, and
 *  every key's digit is taken three times a pass). */
APP_HELPER unsigned radixDigit(uint32_t key, int shift) {
  static_assert(APP_RADIX_BITS == 8, "a digit is a byte");
  return __byte_perm(key, 0u, 0x4440u | (unsigned)(shift >> 3));
}

/** A tile's count of one digit in one pass, with the tag of the toolkit's status words (state
 *  and epoch): one 8-byte word per (tile, digit), the tile's 256 words side by side. */
APP_HELPER void digitStore(unsigned long long *w, unsigned epoch, unsigned state, uint32_t count) {
  *(volatile unsigned long long *)w = ((unsigned long long)count << 32) | (epoch << 3) | state;
}
APP_HELPER unsigned long long digitLoad(const unsigned long long *w) { return *(const volatile unsigned long long *)w; }

/**
 * The look-back of digit d = threadIdx.x for tile @p tile, whose own count of d, @p total, the
 * caller has published: returns the keys of digit d in every earlier tile and publishes the
 * tile's PREFIX (that plus @p total). It reads APP_SORT_WINDOW predecessors at once, nearest
 * first, adds their counts up to the first that is not yet written by this launch (read again
 * on the next round) or up to the nearest PREFIX (the end). One digit a thread, all at once.
 */
APP_HELPER uint32_t digitLookback(unsigned long long *status, size_t tile, unsigned epoch, uint32_t total) {
  const unsigned d = threadIdx.x;
  uint32_t before = 0;
  for (long long j = (long long)tile - 1; j >= 0;) {
    unsigned long long w[APP_SORT_WINDOW];
#pragma unroll
    for (int s = 0; s < APP_SORT_WINDOW; s++) /* before tile 0: a PREFIX of 0 */
      w[s] = j - s >= 0 ? digitLoad(status + (size_t)(j - s) * APP_RADIX_DIGITS + d) : (epoch << 3) | APP_PREFIX;
#pragma unroll
    for (int s = 0; s < APP_SORT_WINDOW; s++) {
      const unsigned state = statusState(w[s], epoch);
      if (state == 0) break;
      before += (uint32_t)(w[s] >> 32);
      j = state == APP_PREFIX ? -1 : j - 1;
      if (j < 0) break;
    }
  }
  if (tile > 0) digitStore(status + tile * APP_RADIX_DIGITS + d, epoch, APP_PREFIX, before + total);
  return before;
}

/** The given exclusive sum of each pass's 256 digit counts (block p: pass p), in place: then
 *  hist[p][d] is where digit d's keys begin in pass p's output. */
static __global__ void radixDigitStartKernel(uint32_t *hist) {
  __shared__ uint32_t s[APP_RADIX_DIGITS];
  uint32_t *h = hist + blockIdx.x * APP_RADIX_DIGITS;
  const unsigned d = threadIdx.x;
  s[d] = h[d];
  __syncthreads();
  for (unsigned o = 1; o < APP_RADIX_DIGITS; o *= 2) {
    const uint32_t y = d >= o ? s[d - o] : 0;
    __syncthreads();
    s[d] += y;
    __syncthreads();
  }
  h[d] = d > 0 ? s[d - 1] : 0;
}

/**
 * The counts of every digit of every pass, in one read of the keys: hist[p][d] = the keys whose
 * digit `(key >> (8 p)) & 255` is d, for the 4 passes p. Each block takes tiles blockIdx.x,
 * blockIdx.x + gridDim.x, ..., counts in shared memory and adds its counts to hist once
 * (hist zeroed before).
 */
static __global__ void __launch_bounds__(APP_THREADS)
    radixHistogramKernel(const uint32_t *keys, size_t n, uint32_t *hist) {
  /* STUDENT-BEGIN(lab07) */
  constexpr int PASSES = 32 / APP_RADIX_BITS;
  __shared__ uint32_t s_hist[PASSES * APP_RADIX_DIGITS];
  for (int i = threadIdx.x; i < PASSES * APP_RADIX_DIGITS; i += APP_THREADS) s_hist[i] = 0;
  __syncthreads();
  for (size_t base = (size_t)blockIdx.x * APP_TILE; base < n; base += (size_t)gridDim.x * APP_TILE) {
    const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);
    uint32_t k[APP_ITEMS];
    loadTile(keys, base, valid, 0u, k);
#pragma unroll
    for (int i = 0; i < APP_ITEMS; i++)
      if (tilePos(i) < valid)
#pragma unroll
        for (int p = 0; p < PASSES; p++)
          atomicAdd(&s_hist[p * APP_RADIX_DIGITS + ((k[i] >> (p * APP_RADIX_BITS)) & (APP_RADIX_DIGITS - 1))], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < PASSES * APP_RADIX_DIGITS; i += APP_THREADS)
    if (s_hist[i]) atomicAdd(&hist[i], s_hist[i]);
  /* STUDENT-END(lab07) */
}

/**
 * One pass, one tile of APP_SORT_TILE keys (drawn from @p counter), thread d of the block
 * owning digit d: count the tile's keys of each digit and publish the counts at once (the tiles
 * after this one need nothing else from it); rank the keys by their digit, stably; look back for each digit's keys
 * in earlier tiles (digitLookback); place the keys in shared memory sorted by digit; write each
 * digit's run to start[d] (where the digit begins in the output) + the digit's keys in earlier
 * tiles, consecutive threads writing consecutive keys of a run. The ranking: warp w holds the
 * tile's keys [w * 32 * APP_SORT_ITEMS, (w + 1) * 32 * APP_SORT_ITEMS), item i of lane l at
 * 32 i + l of those (so item by item, the warp's 32 lanes hold 32 consecutive keys); for item
 * 0, 1, ... the lanes with the same digit find each other (each sets its bit in a mask of its
 * digit), each counts the peers below it, and the lowest one adds the peers to the warp's count
 * of that digit. A key's place in the sorted tile is then: the keys of smaller digits, plus its
 * digit's keys in earlier warps, plus its rank in its warp. PAIRS: once the keys are written,
 * the values take their places in the same shared memory and follow them out.
 */
template <bool PAIRS>
static __global__ void __launch_bounds__(APP_SORT_THREADS, 3) /* 3 blocks an SM: at most 80 registers */
    radixOnesweepKernel(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out, uint32_t *vals_out,
                        size_t n, int shift, const uint32_t *start, unsigned long long *status, unsigned *counter,
                        unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  __shared__ uint32_t s_keys[APP_SORT_TILE]; /* the sorted tile: its keys, then its values */
  __shared__ uint32_t s_count[APP_SORT_WARPS][APP_RADIX_DIGITS]; /* a warp's keys of each digit */
  __shared__ uint32_t s_tile_count[APP_RADIX_DIGITS];            /* the tile's keys of each digit */
  __shared__ uint32_t s_start[APP_RADIX_DIGITS];                 /* a digit's run in the sorted tile */
  __shared__ uint32_t s_dest[APP_RADIX_DIGITS];                  /* its place in keys_out, less that */
  __shared__ uint32_t s_warp_sum[APP_SORT_WARPS];
  __shared__ unsigned s_tile;
  /* The masks of the ranking, one per (warp, digit), share the sorted tile's memory (step 5). */
  static_assert(APP_SORT_WARPS * APP_RADIX_DIGITS <= APP_SORT_TILE, "the masks fit in s_keys");
  uint32_t(*s_match)[APP_RADIX_DIGITS] = (uint32_t(*)[APP_RADIX_DIGITS])s_keys;
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;
  const unsigned d_mine = threadIdx.x;
  for (int i = threadIdx.x; i < APP_SORT_WARPS * APP_RADIX_DIGITS; i += APP_SORT_THREADS) {
    (&s_count[0][0])[i] = 0;
    (&s_match[0][0])[i] = 0;
  }
  s_tile_count[d_mine] = 0;
  const size_t tile = nextTile(counter, &s_tile); /* its barrier orders the zeroing */
  const size_t base = tile * APP_SORT_TILE;
  const unsigned valid = (unsigned)(n - base < APP_SORT_TILE ? n - base : APP_SORT_TILE);
  /* Tuning a student need not match: a whole tile (every one but the last) loads and writes
   * without testing each key against valid. */
  const bool full = valid == APP_SORT_TILE;
  /* 1. Load, item i of the lane at first + 32 i; past the end the largest key, ranked after
   *    every real key of the tile (it is never written). Count the tile's keys of each digit,
   *    the padding too (digit 255 in every pass) and then taken off, and publish the counts. */
  const unsigned first = warp * (APP_WARP * APP_SORT_ITEMS) + lane;
  uint32_t k[APP_SORT_ITEMS], rank[APP_SORT_ITEMS];
  if (full) {
    const uint32_t *src = keys_in + base + first;
#pragma unroll
    for (int i = 0; i < APP_SORT_ITEMS; i++) k[i] = __ldcs(src + 32 * i);
  } else {
#pragma unroll
    for (int i = 0; i < APP_SORT_ITEMS; i++) {
      const unsigned j = first + 32 * i;
      k[i] = j < valid ? __ldcs(keys_in + base + j) : 0xffffffffu;
    }
  }
#pragma unroll
  for (int i = 0; i < APP_SORT_ITEMS; i++) atomicAdd(&s_tile_count[radixDigit(k[i], shift)], 1u);
  __syncthreads();
  const uint32_t total = s_tile_count[d_mine] - (d_mine == APP_RADIX_DIGITS - 1 ? APP_SORT_TILE - valid : 0u);
  digitStore(status + tile * APP_RADIX_DIGITS + d_mine, epoch, tile == 0 ? APP_PREFIX : APP_AGGREGATE, total);
  /* 2. Rank in the warp, item by item: the lanes of a digit set their bits in its mask; the
   *    lowest of them updates the warp's count and clears the mask. */
  const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int i = 0; i < APP_SORT_ITEMS; i++) {
    const unsigned d = radixDigit(k[i], shift);
    atomicOr(&s_match[warp][d], 1u << lane);
    __syncwarp();
    const unsigned peers = s_match[warp][d];
    const int leader = __ffs(peers) - 1;
    uint32_t before = 0;
    if (lane == leader) before = s_count[warp][d];
    __syncwarp(); /* every lane has read its mask before it is cleared */
    if (lane == leader) {
      s_match[warp][d] = 0;
      s_count[warp][d] = before + __popc(peers);
    }
    rank[i] = __shfl_sync(FULL_MASK, before, leader) + __popc(peers & lanes_below);
    __syncwarp(); /* this item's counts and masks, before the next item's */
  }
  __syncthreads();
  /* 3. Thread d: each warp's count of digit d becomes the digit's keys in the warps before it;
   *    an exclusive sum of the digits' counts over the block gives the runs in the sorted tile
   *    (the padding sorts last, after every run); then the look-back. */
  uint32_t sum = 0;
#pragma unroll
  for (int w = 0; w < APP_SORT_WARPS; w++) {
    const uint32_t c = s_count[w][d_mine];
    s_count[w][d_mine] = sum;
    sum += c;
  }
  uint32_t inc = total;
#pragma unroll
  for (int o = 1; o < APP_WARP; o *= 2) {
    const uint32_t y = __shfl_up_sync(FULL_MASK, inc, o);
    if (lane >= o) inc += y;
  }
  if (lane == APP_WARP - 1) s_warp_sum[warp] = inc;
  const uint32_t before = digitLookback(status, tile, epoch, total);
  __syncthreads();
  uint32_t run = inc - total;
  for (int w = 0; w < warp; w++) run += s_warp_sum[w];
  s_start[d_mine] = run;
  s_dest[d_mine] = start[d_mine] + before - run; /* modulo 2^32: + j >= run */
  __syncthreads();
  /* 4. Place each key in the sorted tile. */
#pragma unroll
  for (int i = 0; i < APP_SORT_ITEMS; i++) {
    const unsigned d = radixDigit(k[i], shift);
    rank[i] += s_start[d] + s_count[warp][d];
    s_keys[rank[i]] = k[i];
  }
  __syncthreads();
  /* 5. Write the sorted tile: key j to s_dest[d] + j, a digit's run on consecutive addresses;
   *    keep where each went. PAIRS: the values, read only now, take the keys' places in
   *    shared memory and go where their keys went. */
  uint32_t at[APP_SORT_ITEMS];
  if (full) {
#pragma unroll
    for (int r = 0; r < APP_SORT_ITEMS; r++) {
      const unsigned j = threadIdx.x + r * APP_SORT_THREADS;
      const uint32_t key = s_keys[j];
      at[r] = s_dest[radixDigit(key, shift)] + j; /* modulo 2^32 */
      keys_out[at[r]] = key;
    }
  } else {
#pragma unroll
    for (int r = 0; r < APP_SORT_ITEMS; r++) {
      const unsigned j = threadIdx.x + r * APP_SORT_THREADS;
      if (j < valid) {
        const uint32_t key = s_keys[j];
        at[r] = s_dest[radixDigit(key, shift)] + j;
        keys_out[at[r]] = key;
      }
    }
  }
  if (PAIRS) {
    __syncthreads(); /* every key read before a value takes its place */
    if (full) {
      const uint32_t *src = vals_in + base + first;
#pragma unroll
      for (int i = 0; i < APP_SORT_ITEMS; i++) s_keys[rank[i]] = __ldcs(src + 32 * i);
    } else {
#pragma unroll
      for (int i = 0; i < APP_SORT_ITEMS; i++) {
        const unsigned j = first + 32 * i;
        s_keys[rank[i]] = j < valid ? __ldcs(vals_in + base + j) : 0u;
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < APP_SORT_ITEMS; r++) {
      const unsigned j = threadIdx.x + r * APP_SORT_THREADS;
      if (full || j < valid) vals_out[at[r]] = s_keys[j];
    }
  }
  /* STUDENT-END(lab07) */
}

/** The passes of radixSortKeys() and radixSortPairs() (d_vals_in NULL: keys only): the counts of
 *  every pass in one read, their exclusive sums, then one sweep a digit. */
static void radixPasses(const uint32_t *d_keys_in, const uint32_t *d_vals_in, uint32_t *d_keys_out,
                        uint32_t *d_vals_out, size_t n) {
  if (n == 0) return;
  constexpr int PASSES = 32 / APP_RADIX_BITS; /* an even number: the last pass ends in out */
  const unsigned tiles = (unsigned)((n + APP_SORT_TILE - 1) / APP_SORT_TILE);
  const size_t hist_bytes = PASSES * APP_RADIX_DIGITS * sizeof(uint32_t);
  const size_t status_bytes = (size_t)tiles * APP_RADIX_DIGITS * sizeof(unsigned long long);
  const bool fresh = hist_bytes + status_bytes > g_counts.bytes;
  char *scratch = (char *)appReserve(&g_counts, hist_bytes + status_bytes);
  uint32_t *hist = (uint32_t *)scratch;
  unsigned long long *status = (unsigned long long *)(scratch + hist_bytes);
  uint32_t *kt = (uint32_t *)appReserve(&g_sort_keys, n * sizeof(uint32_t));
  uint32_t *vt = d_vals_in ? (uint32_t *)appReserve(&g_sort_vals, n * sizeof(uint32_t)) : NULL;
  CUDA_CHECK(cudaMemsetAsync(hist, 0, hist_bytes, 0));
  radixHistogramKernel<<<appTiles(n) < 1024u ? appTiles(n) : 1024u, APP_THREADS>>>(d_keys_in, n, hist);
  CUDA_CHECK_LAUNCH();
  radixDigitStartKernel<<<PASSES, APP_RADIX_DIGITS>>>(hist);
  CUDA_CHECK_LAUNCH();
  const uint32_t *ks = d_keys_in, *vs = d_vals_in;
  for (int pass = 0; pass < PASSES; pass++) {
    uint32_t *kd = pass % 2 == 0 ? kt : d_keys_out, *vd = pass % 2 == 0 ? vt : d_vals_out;
    unsigned *counter, epoch;
    appLaunchState(0, &counter, &epoch); /* a tile counter and an epoch of the toolkit's */
    if ((fresh && pass == 0) || epoch == 1) /* new memory, or the epochs began again */
      CUDA_CHECK(cudaMemsetAsync(status, 0, status_bytes, 0));
    const int shift = pass * APP_RADIX_BITS;
    const uint32_t *start = hist + pass * APP_RADIX_DIGITS;
    if (d_vals_in)
      radixOnesweepKernel<true><<<tiles, APP_SORT_THREADS>>>(ks, vs, kd, vd, n, shift, start, status, counter, epoch);
    else
      radixOnesweepKernel<false><<<tiles, APP_SORT_THREADS>>>(ks, NULL, kd, NULL, n, shift, start, status, counter,
                                                             epoch);
    CUDA_CHECK_LAUNCH();
    ks = kd;
    vs = vd;
  }
}

void radixSortKeys(const uint32_t *d_in, uint32_t *d_out, size_t n) { radixPasses(d_in, NULL, d_out, NULL, n); }

void radixSortPairs(const uint32_t *d_keys_in, const uint32_t *d_vals_in, uint32_t *d_keys_out,
                    uint32_t *d_vals_out, size_t n) {
  radixPasses(d_keys_in, d_vals_in, d_keys_out, d_vals_out, n);
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
  __shared__ BlockScanTemp<float> temp;
  __shared__ float s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const size_t base = tile * APP_TILE;
  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);
  const float a0 = alt[0];
  float slope[APP_ITEMS], before[APP_ITEMS];
  loadTile(alt, base, valid, 0.0f, slope);
  if (valid == APP_TILE && base > 0 && base < ((size_t)1 << 36)) {
    /* A whole tile after the first: no point to leave out. Tuning a student need not match:
     * the point's index as a float without a 64-bit conversion each. base, a multiple of 2^12
     * below 2^36, and each tile position, below 2^12, are exact floats, so their float sum is
     * base + position rounded once, as (float)(base + position) is. */
    const float fbase = (float)base, fpos = (float)tilePos(0);
#pragma unroll
    for (int k = 0; k < APP_ITEMS; k++)
      slope[k] = (slope[k] - a0) / (fbase + (fpos + (float)(tilePos(k) - tilePos(0))));
  } else {
#pragma unroll
    for (int k = 0; k < APP_ITEMS; k++) {
      const size_t i = base + tilePos(k);
      slope[k] = tilePos(k) < valid && i > 0 ? (slope[k] - a0) / (float)i : -INFINITY;
    }
  }
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) before[k] = slope[k];
  const float tile_max = blockScanExc(before, MaxF(), -INFINITY, &temp);
  const float prefix = tileLookback(status, tile, tile_max, MaxF(), -INFINITY, epoch, &s_prefix);
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) { /* a row's 4 bytes in one 4-byte store */
    uint32_t w = 0;
#pragma unroll
    for (int c = 0; c < 4; c++) w |= (uint32_t)(slope[4 * r + c] > MaxF()(prefix, before[4 * r + c])) << (8 * c);
    const unsigned j = tilePos(4 * r);
    if (j + 4 <= valid && ((uintptr_t)(vis + base + j) & 3u) == 0) {
      __stcs((unsigned *)(vis + base + j), w);
    } else {
      for (unsigned c = 0; c < 4 && j + c < valid; c++) vis[base + j + c] = (uint8_t)(w >> (8 * c));
    }
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

/** The first index r in [lo, hi) with row_ptr[r] >= key (hi when none); row_ptr non-decreasing
 *  (int32_t row offsets, or uint32_t string offsets). */
template <typename I>
APP_HELPER int32_t lowerBound(const I *row_ptr, int32_t lo, int32_t hi, long long key) {
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if ((long long)row_ptr[mid] < key) lo = mid + 1;
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
  __shared__ float s_sum[APP_TILE];
  __shared__ uint8_t s_head[APP_TILE];
  __shared__ BlockScanTemp<FlagVal<float>> temp;
  __shared__ FlagVal<float> s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const long long k0 = (long long)tile * APP_TILE;
  const long long k1 = k0 + APP_TILE < nnz ? k0 + APP_TILE : nnz;
  const bool last = k1 == nnz;
  const unsigned valid = (unsigned)(k1 - k0);
  const int32_t lo = tile_row[tile];                  /* the first row starting at or after k0 */
  const int32_t r_first = lo > 0 ? lo - 1 : 0;         /* and the row running into the tile */
  const int32_t r_end = last ? rows : tile_row[tile + 1]; /* the first row starting at or after k1 */
  for (unsigned j = threadIdx.x; j < APP_TILE / 4; j += APP_THREADS) ((uint32_t *)s_head)[j] = 0;
  float v[APP_ITEMS];
  int32_t c[APP_ITEMS];
  loadTile(val, (size_t)k0, valid, 0.0f, v);
  loadTile(col, (size_t)k0, valid, 0, c);
#pragma unroll
  for (int k = 0; k < APP_ITEMS; k++) v[k] *= x[c[k]]; /* past the end: val 0, col 0 */
  __syncthreads();
  for (int32_t r0 = r_first; r0 < r_end; r0 += APP_THREADS) { /* the same trip count in every thread */
    const int32_t r = r0 + (int32_t)threadIdx.x;
    if (r >= r_end) break;
    const long long p = row_ptr[r];
    if (p >= k0 && p < k1 && p < row_ptr[r + 1]) s_head[p - k0] = 1;
  }
  __syncthreads();
  FlagVal<float> pr[APP_ITEMS];
  uint32_t heads[APP_ROWS]; /* a row's 4 head bytes, read at once */
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) {
    heads[r] = *(const uint32_t *)(s_head + tilePos(4 * r));
#pragma unroll
    for (int q = 0; q < 4; q++) {
      pr[4 * r + q].flag = (heads[r] >> (8 * q)) & 0xffu;
      pr[4 * r + q].value = v[4 * r + q];
    }
  }
  const Seg<AddF> seg = {AddF()};
  const FlagVal<float> none = {0u, 0.0f};
  const FlagVal<float> total = blockScanExc(pr, seg, none, &temp);
  const FlagVal<float> prefix = tileLookback(status, tile, total, seg, none, epoch, &s_prefix);
#pragma unroll
  for (int r = 0; r < APP_ROWS; r++) { /* inclusive sums, by position: a row's 4 in one store */
    float4 w;
    float *f = &w.x;
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const FlagVal<float> item = {(heads[r] >> (8 * q)) & 0xffu, v[4 * r + q]};
      f[q] = seg(seg(prefix, pr[4 * r + q]), item).value;
    }
    *(float4 *)(s_sum + tilePos(4 * r)) = w;
  }
  __syncthreads();
  for (int32_t r0 = r_first; r0 < r_end; r0 += APP_THREADS) { /* the same trip count in every thread */
    const int32_t r = r0 + (int32_t)threadIdx.x;
    if (r >= r_end) break;
    const long long p = row_ptr[r], q = row_ptr[r + 1];
    if (p == q ? p >= k0 && (p < k1 || last) : q - 1 >= k0 && q - 1 < k1)
      y[r] = p == q ? 0.0f : s_sum[q - 1 - k0]; /* one store: an empty row's 0, or its sum */
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

static __global__ void firstDiffKernel(const int32_t *a, const int32_t *b, int32_t *ab, int32_t *ba, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int32_t x = a[i], y = b[i];
    ab[i] = FirstDiff()(x, y);
    ba[i] = FirstDiff()(y, x);
  }
}

void firstDiffApply(const int32_t *d_a, const int32_t *d_b, int32_t *d_ab, int32_t *d_ba, size_t n) {
  if (n == 0) return;
  firstDiffKernel<<<gridFor(n), APP_THREADS>>>(d_a, d_b, d_ab, d_ba, n);
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
    for (int v = 0; v < APP_ITEMS / 16 && code == 0; v++) { /* 16 bytes of each string at a time */
      const uint4 wa = *(const uint4 *)(a + first + 16 * v), wb = *(const uint4 *)(b + first + 16 * v);
      const uint32_t la[4] = {wa.x, wa.y, wa.z, wa.w}, lb[4] = {wb.x, wb.y, wb.z, wb.w};
      for (int w = 0; w < 4 && code == 0; w++)
        if (la[w] != lb[w]) {
          const int shift = (__ffs(la[w] ^ lb[w]) - 1) & ~7; /* the first differing byte (little-endian) */
          code = ((la[w] >> shift) & 0xffu) < ((lb[w] >> shift) & 0xffu) ? -1 : 1;
        }
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

/* ---- many pairs at once --------------------------------------------------------------------- */

/** Where each tile's pairs begin: tile_pair[t] = the first pair whose string of a starts at or
 *  after byte t * APP_TILE of a; tile_pair[tiles] = pairs. */
static __global__ void strTilePairsKernel(const uint32_t *off_a, uint32_t pairs, unsigned tiles, int32_t *tile_pair) {
  /* STUDENT-BEGIN(lab07) */
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tiles) tile_pair[t] = lowerBound(off_a, 0, (int32_t)pairs + 1, (long long)t * APP_TILE);
  if (t == tiles) tile_pair[t] = (int32_t)pairs;
  /* STUDENT-END(lab07) */
}

/**
 * One tile of APP_TILE bytes of a, [k0, k1): thread t takes the APP_ITEMS consecutive bytes from
 * k0 + t * APP_ITEMS and walks them in order. It finds the pair holding its first byte by a
 * binary search in off_a (among the tile's pairs, from tile_pair), then for each byte: a head
 * where a non-empty string of a starts (the pair's offsets read once per pair, not per byte),
 * the byte's code against b (+1 where b has ended), FirstDiff over the pair's codes so far. A
 * pair that starts and ends in the thread's bytes gets its result at once. What the thread
 * passes on is one (head, code) pair: whether a string starts in its bytes, and the code of the
 * string still open at its last byte. Those are scanned with Seg<FirstDiff> over the block
 * (thread order) and the tiles (look-back); the scan's value before a thread completes the
 * string that runs into its bytes from before, and the lengths decide a tie. Empty strings of
 * a that start in the tile (the last tile: at the end of a) give -1 where b is not empty.
 */
static __global__ void __launch_bounds__(APP_THREADS)
    strBatchKernel(const uint8_t *a, const uint32_t *off_a, const uint8_t *b, const uint32_t *off_b,
                   int32_t *result, uint32_t pairs, uint32_t total, const int32_t *tile_pair, app_status *status,
                   unsigned *counter, unsigned epoch) {
  /* STUDENT-BEGIN(lab07) */
  static_assert(APP_ITEMS % 16 == 0, "a thread's bytes of a as 16-byte loads");
  __shared__ FlagVal<int32_t> s_warp[APP_WARPS];
  __shared__ FlagVal<int32_t> s_prefix;
  __shared__ unsigned s_tile_id;
  const size_t tile = nextTile(counter, &s_tile_id);
  const long long k0 = (long long)tile * APP_TILE;
  const long long k1 = k0 + APP_TILE < total ? k0 + APP_TILE : total;
  const bool last = k1 == total;
  const int32_t lo = tile_pair[tile];
  const int32_t p_first = lo > 0 ? lo - 1 : 0; /* the pair running into the tile, if any */
  const int32_t p_end = last ? (int32_t)pairs : tile_pair[tile + 1];
  const FirstDiff fd;
  const Seg<FirstDiff> seg = {fd};
  const FlagVal<int32_t> none = {0u, 0};
  const int lane = threadIdx.x % APP_WARP, warp = threadIdx.x / APP_WARP;

  /* 1. The thread's bytes [q0, q1) of a, four to a word. */
  const long long q0 = k0 + (long long)threadIdx.x * APP_ITEMS;
  const long long q1 = q0 + APP_ITEMS < k1 ? q0 + APP_ITEMS : k1;
  uint32_t wa[APP_ITEMS / 4];
  if (q1 - q0 == APP_ITEMS && ((uintptr_t)(a + q0) & 15u) == 0) {
#pragma unroll
    for (int v = 0; v < APP_ITEMS / 16; v++) {
      const uint4 w = __ldcs((const uint4 *)(a + q0) + v);
      wa[4 * v] = w.x, wa[4 * v + 1] = w.y, wa[4 * v + 2] = w.z, wa[4 * v + 3] = w.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < APP_ITEMS / 4; k++) {
      wa[k] = 0;
#pragma unroll
      for (int c = 0; c < 4; c++)
        if (q0 + 4 * k + c < q1) wa[k] |= (uint32_t)a[q0 + 4 * k + c] << (8 * c);
    }
  }

  /* 2. Walk them: codes, heads, the results of the strings that start and end here. Offsets
   *    fit in 32 bits (off_a is uint32_t): the walk counts in 32-bit registers, the bytes left
   *    of the open string (rem) and the byte's place in it (t). */
  FlagVal<int32_t> mine = none; /* (a string starts here, the code of the last one so far) */
  int32_t from_p = -1, from_code = 0, from_tie = 0; /* a string from before that ends here */
  if (q0 < q1) {
    const uint32_t u0 = (uint32_t)q0, cnt = (uint32_t)(q1 - q0);
    int32_t p = lowerBound(off_a, p_first, p_end, q0 + 1) - 1; /* the last to start at or before q0 */
    const uint32_t s0 = off_a[p];
    uint32_t rem = off_a[p + 1] - u0, t = u0 - s0;
    uint32_t b0 = off_b[p], len_b = off_b[p + 1] - b0;
    bool from_before = s0 < u0;
    int32_t code = 0;
    mine.flag = !from_before;
#pragma unroll
    for (int j = 0; j < APP_ITEMS; j++) {
      if ((uint32_t)j >= cnt) break;
      if (rem == 0) { /* the next non-empty string of a starts here */
        const uint32_t pos = u0 + j;
        uint32_t s1;
        do {
          p++;
          s1 = off_a[p + 1];
        } while (s1 == pos);
        rem = s1 - pos;
        t = 0;
        b0 = off_b[p];
        len_b = off_b[p + 1] - b0;
        code = 0;
        from_before = false;
        mine.flag = 1u;
      }
      if (code == 0) {
        const uint32_t x = (wa[j / 4] >> (8 * (j % 4))) & 0xffu;
        if (t >= len_b) code = 1;
        else {
          const uint32_t y = __ldg(b + b0 + t);
          code = x < y ? -1 : x > y ? 1 : 0;
        }
      }
      t++;
      if (--rem == 0) { /* the string's last byte: t is its length */
        const int32_t tie = len_b > t ? -1 : 0;
        if (from_before) from_p = p, from_code = code, from_tie = tie;
        else result[p] = code != 0 ? code : tie;
      }
    }
    mine.value = code;
  }

  /* 3. The threads' pairs scanned in thread order: a warp scan, then the warps' totals. */
  FlagVal<int32_t> inc = mine;
#pragma unroll
  for (int d = 1; d < APP_WARP; d *= 2) {
    const FlagVal<int32_t> y = shflUpAny(FULL_MASK, inc, d);
    if (lane >= d) inc = seg(y, inc);
  }
  FlagVal<int32_t> before = shflUpAny(FULL_MASK, inc, 1);
  if (lane == 0) before = none;
  if (lane == APP_WARP - 1) s_warp[warp] = inc;
  __syncthreads();
  FlagVal<int32_t> warps_before = none, agg = none;
#pragma unroll
  for (int w = 0; w < APP_WARPS; w++) {
    const FlagVal<int32_t> v = s_warp[w];
    if (w < warp) warps_before = seg(warps_before, v);
    agg = seg(agg, v);
  }

  /* 4. The tiles before (look-back), and the string that runs into this thread's bytes. */
  const FlagVal<int32_t> prefix = tileLookback(status, tile, agg, seg, none, epoch, &s_prefix);
  if (from_p >= 0) {
    const int32_t c = fd(seg(prefix, seg(warps_before, before)).value, from_code);
    result[from_p] = c != 0 ? c : from_tie;
  }

  /* 5. Empty strings of a. */
  for (int32_t p = p_first + (int32_t)threadIdx.x; p < p_end; p += APP_THREADS) {
    const long long s0 = off_a[p];
    if (s0 == off_a[p + 1] && s0 >= k0 && (s0 < k1 || last)) result[p] = off_b[p + 1] > off_b[p] ? -1 : 0;
  }
  /* STUDENT-END(lab07) */
}

/** Every pair when a is empty: -1 where b is not. */
static __global__ void strEmptyKernel(const uint32_t *off_b, int32_t *result, uint32_t pairs) {
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += gridDim.x * blockDim.x)
    result[p] = off_b[p + 1] > off_b[p] ? -1 : 0;
}

void strCompareBatch(const uint8_t *d_a, const uint32_t *d_off_a, const uint8_t *d_b, const uint32_t *d_off_b,
                     int32_t *d_result, uint32_t pairs) {
  if (pairs == 0) return;
  uint32_t total = 0; /* the bytes of a: off_a[pairs] */
  CUDA_CHECK(cudaMemcpy(&total, d_off_a + pairs, sizeof total, cudaMemcpyDeviceToHost));
  if (total == 0) {
    strEmptyKernel<<<gridFor(pairs), APP_THREADS>>>(d_off_b, d_result, pairs);
    CUDA_CHECK_LAUNCH();
    return;
  }
  const unsigned tiles = appTiles(total);
  int32_t *tile_pair = (int32_t *)appReserve(&g_temp, ((size_t)tiles + 1) * sizeof(int32_t));
  strTilePairsKernel<<<(tiles + APP_THREADS) / APP_THREADS, APP_THREADS>>>(d_off_a, pairs, tiles, tile_pair);
  CUDA_CHECK_LAUNCH();
  unsigned *counter, epoch;
  app_status *status = appLaunchState(tiles, &counter, &epoch);
  strBatchKernel<<<tiles, APP_THREADS>>>(d_a, d_off_a, d_b, d_off_b, d_result, pairs, total, tile_pair, status,
                                         counter, epoch);
  CUDA_CHECK_LAUNCH();
}
