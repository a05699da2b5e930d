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
  /* TODO(lab07): a grid-stride loop (i from blockIdx.x * blockDim.x + threadIdx.x, step
   * gridDim.x * blockDim.x) writing flags[i] = 1 when in[i] > pivot, else 0 (the filter,
   * the first of compaction's three steps).
   * Until then: nothing is written. */
  (void)in, (void)flags, (void)n, (void)pivot;
  /* STUDENT-END(lab07) */
}

/** out[offsets[i]] = in[i] for every kept element; *count = the number kept (the last
 *  element's offset plus its flag). */
static __global__ void compactScatterKernel(const int32_t *in, const uint32_t *flags, const uint32_t *offsets,
                                            int32_t *out, size_t n, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  /* TODO(lab07): the same grid-stride loop; where flags[i] is set, out[offsets[i]] = in[i]
   * (offsets holds the exclusive sum of the flags, so kept elements keep their order). The
   * thread that has i == n - 1 writes *count = offsets[n - 1] + flags[n - 1].
   * Until then: nothing is written. */
  (void)in, (void)flags, (void)offsets, (void)out, (void)n, (void)count;
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
  /* TODO(lab07): one pass over tile t = nextTile(counter, &s_tile_id) (base = t * APP_TILE,
   * `valid` = the tile's elements, fewer in the last tile):
   *   1. loadTile(in, base, valid, 0, v): the thread's APP_ITEMS elements, item k at position
   *      tilePos(k) of the tile (16-byte loads);
   *   2. keep[k] = tilePos(k) < valid && v[k] > pivot;
   *   3. rank = keep, then kept = blockScanExc(rank, AddU(), 0u, &temp): rank[k] becomes the
   *      number kept before item k in the tile (blockCountExc(rank, &temp) gives the same for
   *      0/1 flags with fewer shuffles);
   *   4. before = tileLookback(status, t, kept, AddU(), 0u, epoch, &s_prefix): the number kept
   *      in every tile before this one;
   *   5. stage: a __shared__ int32_t array of APP_TILE, s[rank[k]] = v[k] for the kept items;
   *      __syncthreads();
   *   6. write out[before + j] = s[j] for j = threadIdx.x, + APP_THREADS, ... < kept
   *      (consecutive threads write consecutive words: coalesced);
   *   7. the thread 0 of the last tile (base + valid == n) writes *count = before + kept.
   * Until then: nothing is written. */
  (void)in, (void)out, (void)n, (void)pivot, (void)status, (void)counter, (void)epoch, (void)count;
  /* STUDENT-END(lab07) */
}

/** *count += the number of elements that @p keep keeps (a warp count, then one atomicAdd per
 *  warp). T: int32_t with KeepAbove, uint32_t with BitClear. */
template <typename T, typename Pred>
static __global__ void partitionCountKernel(const T *in, size_t n, Pred keep, unsigned long long *count) {
  /* STUDENT-BEGIN(lab07) */
  /* TODO(lab07): count the elements that keep() keeps in a grid-stride loop, sum the counts of
   * the warp (__shfl_xor_sync), and let lane 0 of each warp atomicAdd its sum to *count (zero at
   * launch).
   * Until then: nothing is counted. */
  (void)in, (void)n, (void)keep, (void)count;
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
  /* TODO(lab07): compactKernel's steps 1-4 with keep(v[k]) as the test, then stage every valid
   * item: a kept one at rank[k], another at kept + (tilePos(k) - rank[k]) (that many elements
   * before it in the tile were not kept); __syncthreads(); and write staged element j to
   * out[before + j] when j < kept. Otherwise (the m-th element not kept, m = (base - before) +
   * (j - kept): base - before elements of earlier tiles were not kept):
   * - STABLE: to out[*count + m];
   * - not STABLE (partitionSinglePass): to out[n - 1 - m]; and thread 0 of the block whose tile
   *   holds the last element (base + valid == n) writes before + kept to *count, as
   *   compactKernel does.
   * Until then: nothing is written. */
  (void)in, (void)out, (void)n, (void)keep, (void)count, (void)status, (void)counter, (void)epoch;
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
  /* TODO(lab07): a __shared__ uint32_t histogram of 4 * APP_RADIX_DIGITS counters (pass p's
   * digit d at p * APP_RADIX_DIGITS + d), zeroed; __syncthreads(); for the tiles blockIdx.x,
   * blockIdx.x + gridDim.x, ... (tiles of APP_TILE keys, loadTile's, appTiles(n) of them: not
   * the sweep's tiles): loadTile the tile's keys, and for each valid key (tilePos(i) <
   * valid) and each pass p, atomicAdd 1 to the counter of its digit (key >> (8 p)) & 255;
   * __syncthreads(); then add each counter to hist (one atomicAdd per counter and block).
   * Until then: nothing is counted. */
  (void)keys, (void)n, (void)hist;
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
  /* TODO(lab07): thread d of the block owns digit d (APP_SORT_THREADS = 256 threads, 8 warps,
   * APP_SORT_ITEMS = 24 keys a thread, tiles of APP_SORT_TILE = 6144 keys). __shared__:
   * keys[APP_SORT_TILE] (the sorted tile, then its values), count[APP_SORT_WARPS][256],
   * tile_count[256], run[256] and dest[256] (steps 4 and 5 need them for any key's digit), the
   * 8 warps' sums, and match[APP_SORT_WARPS][256], which may share keys' memory
   * (uint32_t (*match)[256] = (uint32_t (*)[256])keys: the masks are done before step 4).
   * Zero count, match and tile_count; draw the tile with nextTile(counter, &s_tile) (its barrier
   * orders the zeroing); base = tile * APP_SORT_TILE, valid = the keys of this tile. A key's
   * digit is radixDigit(key, shift).
   *   1. load item i of the lane from j = warp * 32 * APP_SORT_ITEMS + 32 * i + lane
   *      (0xffffffff past `valid`: it ranks after every real key and is never written);
   *      atomicAdd 1 to tile_count[digit] for each valid key (or for every key, and take the
   *      APP_SORT_TILE - valid padding keys off digit 255's count); __syncthreads(); publish
   *      total = tile_count[d] with digitStore(status + tile * APP_RADIX_DIGITS + d, epoch,
   *      state, total), state APP_PREFIX for tile 0 and APP_AGGREGATE for the others (no
   *      fence: the count travels in the status word itself);
   *   2. for each item i in order: atomicOr(&match[warp][digit], 1u << lane); __syncwarp();
   *      peers = match[warp][digit]; the lowest peer (__ffs(peers) - 1) reads count[warp][digit];
   *      __syncwarp(); it then clears the mask and adds __popc(peers) to the count; rank[i] =
   *      the count it read (__shfl_sync from the lowest peer) + the peers in lanes below;
   *      __syncwarp(); then __syncthreads();
   *   3. each warp's count[w][d] becomes the digit's keys in the warps before it; an exclusive
   *      sum of the totals over the block gives run[d], where digit d's run begins in the sorted
   *      tile (a shuffle scan in each warp, then the sums of the warps before it: blockScanExc
   *      is for the 128-thread tiles; the padding sorts after every run, so summing the warps'
   *      counts, padding included, gives the same runs as summing tile_count);
   *      before = digitLookback(status, tile, epoch, total), with the total you published:
   *      digit d's keys in earlier tiles;
   *      dest[d] = start[d] + before - run[d] (modulo 2^32); __syncthreads();
   *   4. a key goes to shared position run[digit] + count[warp][digit] + rank[i] (keep that
   *      position in rank[i]); __syncthreads();
   *   5. sorted key j < valid goes to dest[digit] + j = start + before + (j - run) of its digit,
   *      j = threadIdx.x + r * APP_SORT_THREADS for r = 0 .. APP_SORT_ITEMS - 1 (consecutive
   *      threads, consecutive addresses); keep each at[r]. PAIRS: __syncthreads(); each value
   *      (read now, item i as its key) goes to keys[rank[i]]; __syncthreads(); value j goes to
   *      vals_out[at[r]].
   * Optional tuning (the reference does it): when valid == APP_SORT_TILE, as in every tile
   * but the last, load and write without testing each position against valid.
   * Until then: nothing is written. */
  (void)keys_in, (void)vals_in, (void)keys_out, (void)vals_out, (void)n, (void)shift, (void)start, (void)status,
      (void)counter, (void)epoch;
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
  /* TODO(lab07): as compactKernel, on floats: loadTile(alt, ...); the slope of item k,
   * (alt - alt[0]) / (float)i at i = base + tilePos(k), with -INFINITY for point 0 and past n;
   * keep a copy; scan the copy with blockScanExc(before, MaxF(), -INFINITY, &temp) (the maximum
   * before each point in the tile); prefix = tileLookback(..., MaxF(), -INFINITY, ...) (the
   * maximum before the tile); vis = slope > MaxF()(prefix, before[k]). A row's 4 bytes are
   * consecutive: store them as one 32-bit word where they are all valid and aligned.
   * Until then: nothing is written. */
  (void)alt, (void)vis, (void)n, (void)status, (void)counter, (void)epoch;
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
  /* TODO(lab07): thread t (one per tile, t = 0 .. tiles) writes tile_row[t] = lowerBound(row_ptr,
   * 0, rows + 1, t * APP_TILE): the first row that starts at or after the tile's first
   * non-zero; tile_row[tiles] = rows.
   * Until then: nothing is written. */
  (void)row_ptr, (void)rows, (void)tiles, (void)tile_row;
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
  /* TODO(lab07): one tile of APP_TILE non-zeros, [k0, k1):
   *   1. the rows to visit, from tile_row: from the row that runs into the tile (one before
   *      tile_row[t], the first row starting at or after k0) up to tile_row[t + 1] (the last
   *      tile: up to `rows`, to take the trailing empty rows);
   *   2. a __shared__ head byte per non-zero, zeroed; the products val * x[col] of the thread's
   *      items (loadTile of val and of col); __syncthreads();
   *   3. the threads, striding over the rows to visit, mark the head of each non-empty row that
   *      starts in the tile; __syncthreads();
   *   4. thread t makes FlagVal<float> pairs of its items (flag from the head bytes at
   *      tilePos(k)), keeps the flags, and scans with blockScanExc(pairs, Seg<AddF>{AddF()},
   *      {0, 0.0f}, &temp); then prefix = tileLookback(...) with the same operator;
   *   5. the inclusive sum of item k is seg(seg(prefix, exclusive[k]), item[k]).value: store it
   *      in a __shared__ float array at tilePos(k); __syncthreads();
   *   6. striding over the rows again: a non-empty row whose last non-zero (row_ptr[r+1] - 1)
   *      is in the tile gets that inclusive sum; an empty row that starts in the tile (or at
   *      nnz, in the last tile) gets 0.
   * Until then: nothing is written. */
  (void)row_ptr, (void)col, (void)val, (void)x, (void)y, (void)rows, (void)nnz, (void)tile_row, (void)status, (void)counter,
      (void)epoch;
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
  /* TODO(lab07): a decides unless it is 0; then b does (the same as compacting away the
   * zeros and taking the first).
   * Until then: 0, as if every position were equal. */
  (void)a, (void)b;
  return 0;
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
  /* TODO(lab07): thread t takes positions first = blockIdx.x * STR_TILE + t * APP_ITEMS and the
   * APP_ITEMS after it, below m; its code is the first non-zero of sign(a[i] - b[i]) (bytes
   * unsigned; a 16-byte load of each string when the run is whole and aligned, byte loads
   * otherwise). Reduce the codes of the block in order with FirstDiff (the lower thread on the
   * left: a shuffle-down tree in each warp, then the warps' codes in order) and let thread 0
   * write tile_code[blockIdx.x].
   * Until then: nothing is written. */
  (void)a, (void)b, (void)m, (void)tile_code;
  /* STUDENT-END(lab07) */
}

/**
 * One block: reduce tile_code[0 .. tiles-1] in order with FirstDiff; if every position was
 * equal, the shorter string is the smaller. Thread 0 writes the result (-1, 0, +1) to *result.
 */
static __global__ void strFinishKernel(const int32_t *tile_code, unsigned tiles, size_t len_a, size_t len_b,
                                       unsigned long long *result) {
  /* STUDENT-BEGIN(lab07) */
  /* TODO(lab07): reduce tile_code[0 .. tiles-1] in order with FirstDiff (each thread a
   * contiguous run of tiles, then the threads in order); if the result is 0, the lengths decide
   * (the shorter string is the smaller). Thread 0 writes the code, as a signed 64-bit value, to
   * *result.
   * Until then: *result stays 0 (equal). */
  (void)tile_code, (void)tiles, (void)len_a, (void)len_b, (void)result;
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
  /* TODO(lab07): as spmvTileRowsKernel, on the offsets of a: tile_pair[t] = lowerBound(off_a, 0,
   * pairs + 1, t * APP_TILE) for t < tiles, tile_pair[tiles] = pairs.
   * Until then: nothing is written. */
  (void)off_a, (void)pairs, (void)tiles, (void)tile_pair;
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
  /* TODO(lab07): the bytes of a, [k0, k1) (total: the bytes of a), APP_ITEMS a thread in order:
   *   1. the tile's pairs from tile_pair: p_first = tile_pair[t] - 1 (0 at the start), the pair
   *      running into the tile, up to tile_pair[t + 1] (pairs in the last tile);
   *   2. the thread's bytes q0 = k0 + threadIdx.x * APP_ITEMS ..: the pair holding q0 is the
   *      last whose string of a starts at or before q0 (lowerBound(off_a, .., q0 + 1) - 1);
   *   3. walk the bytes: where the pair's string ends, the next non-empty one starts (a head;
   *      skip empty strings); each byte's code: position t = pos - off_a[p] in its pair, +1
   *      where b has ended (t >= its length), else the sign of a[pos] - b[off_b[p] + t], bytes
   *      unsigned; FirstDiff over the pair's codes; at a string's last byte, its result if it
   *      started in these bytes (code, or when 0: -1 if b is longer, else 0), otherwise keep it;
   *   4. the thread's (head seen, code of its last string) pairs: an exclusive scan with
   *      Seg<FirstDiff>{FirstDiff()} over the block's threads in order (shflUpAny, then the
   *      warps' totals in shared memory), tileLookback for the tiles before;
   *   5. the string kept in 3 gets FirstDiff(the scanned value before the thread, its code);
   *   6. an empty string of a that starts in the tile (or at total, in the last tile) gives -1
   *      if b is not empty, else 0.
   * Until then: nothing is written. */
  (void)a, (void)off_a, (void)b, (void)off_b, (void)result, (void)pairs, (void)total, (void)tile_pair, (void)status,
      (void)counter, (void)epoch;
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
