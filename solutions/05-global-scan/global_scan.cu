/**
 * @file global_scan.cu
 * @brief Lab 05: a block scan built from warp scans, and three scans of any length built from
 *        block scans: scan-then-propagate, reduce-then-scan, and a single pass with decoupled
 *        look-back.
 *
 * Your code goes between the STUDENT-BEGIN(lab05) and STUDENT-END(lab05) markers; everything
 * else (the warp scan, the status words, the scratch memory and the host wrappers) is given.
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "global_scan.h"
#include "cuda_check.h"

static_assert(GS_PROPAGATE_THREADS % GS_WARP == 0 && GS_PROPAGATE_THREADS <= GS_BLOCK_MAX,
              "a block size must be a multiple of 32, at most 1024");
static_assert(GS_RANGE_THREADS % GS_WARP == 0 && GS_RANGE_THREADS <= GS_BLOCK_MAX,
              "a block size must be a multiple of 32, at most 1024");
static_assert(GS_LOOKBACK_THREADS % GS_WARP == 0 && GS_LOOKBACK_THREADS <= GS_BLOCK_MAX,
              "a block size must be a multiple of 32, at most 1024");
static_assert(GS_LOOKBACK_ITEMS % 4 == 0, "the look-back scan moves its elements 4 at a time");

/** All 32 lanes of a warp. */
#define FULL_MASK 0xffffffffu
/** Index into a shared-memory tile with one padding word every 32 (no bank conflicts). */
#define GS_PAD(i) ((i) + (i) / GS_WARP)
/** Ints of shared memory that a padded range tile needs. */
#define GS_RANGE_SMEM GS_PAD(GS_RANGE_TILE)
/** A given device helper: inlined, and no "unused" warning while the skeleton does not call it. */
#define GS_HELPER static __device__ __forceinline__ __attribute__((unused))

/* ---- given: the warp scan of lab 04 ------------------------------------------------------- */

/**
 * Inclusive sum across the 32 lanes of a warp with shuffles (lab 04's scanIncWarp, repeated
 * here so this lab does not depend on your lab 04 file). Every lane of the warp must call it.
 */
GS_HELPER int32_t scanIncWarp(int32_t x) {
  const int lane = threadIdx.x % GS_WARP;
#pragma unroll
  for (int d = 1; d < GS_WARP; d *= 2) {
    const int32_t y = __shfl_up_sync(FULL_MASK, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

/* ---- given: status words of the single-pass scan ------------------------------------------ */

/* A tile's status word: a tag in the high 32 bits, a value in the low 32 bits. It is written
 * with one 64-bit store and read with one 64-bit load, so a reader sees a tag and its value
 * together or not at all. `volatile` makes every access go to memory (the L2 cache, which all
 * SMs share) instead of a register or the SM's own L1.
 *
 * The tag also names the launch that wrote the word, its epoch (1, 2, 3, ... one per launch):
 * tag 2*epoch means AGGREGATE, 2*epoch + 1 means PREFIX. A word from an earlier launch, or one
 * never written (zero), reads as INVALID in this launch; so the status words need no clearing
 * between launches, only the tile counter does.
 *
 * Each word has a 32-byte sector of memory to itself (gs_status): the L2 cache tracks memory in
 * 32-byte sectors, and with four tiles' words in one sector, the tiles that publish and the warps
 * that poll neighbouring words all contend for it. On an H100 the padding took the scan from
 * 0.83 to 0.93 of copy bandwidth at 2^28 ints (labs/05-global-scan/PERF.md). */
#define GS_FLAG_INVALID 0u   /**< nothing published by this launch yet */
#define GS_FLAG_AGGREGATE 1u /**< value = the sum of this tile alone */
#define GS_FLAG_PREFIX 2u    /**< value = the sum of this tile and every tile before it */
/** Largest epoch: tags 2*epoch + 1 must fit in 32 bits. */
#define GS_EPOCH_MAX 0x7fffffffu

/** One tile's status word, alone in a 32-byte sector. */
typedef struct __align__(32) {
  unsigned long long word;
  unsigned long long unused[3];
} gs_status;

/** Publishes @p flag (AGGREGATE or PREFIX) and @p value for this launch, in one store. */
GS_HELPER void statusStore(gs_status *status, unsigned epoch, unsigned flag, int32_t value) {
  const unsigned tag = 2 * epoch + (flag == GS_FLAG_PREFIX);
  *(volatile unsigned long long *)&status->word = ((unsigned long long)tag << 32) | (uint32_t)value;
}
/** Reads a status word, in one load. */
GS_HELPER unsigned long long statusLoad(const gs_status *status) {
  return *(const volatile unsigned long long *)&status->word;
}
/** The flag of a word read in launch @p epoch: INVALID, AGGREGATE or PREFIX. */
GS_HELPER unsigned statusFlag(unsigned long long word, unsigned epoch) {
  const unsigned tag = (unsigned)(word >> 32);
  return tag == 2 * epoch ? GS_FLAG_AGGREGATE : tag == 2 * epoch + 1 ? GS_FLAG_PREFIX : GS_FLAG_INVALID;
}
/** The value of a word (meaningful when its flag is not INVALID). */
GS_HELPER int32_t statusValue(unsigned long long word) { return (int32_t)(uint32_t)word; }

/* ---- given: temporary device memory, owned by this file ----------------------------------- */

typedef struct {
  void *ptr;
  size_t bytes;
} gs_scratch;
static gs_scratch g_sums;    /* tile and block totals of (a) and (b) */
static gs_scratch g_status;  /* tile counters and status words of (c) */

/** Device memory of at least @p bytes, kept between calls; grows (cudaFree waits for the GPU). */
static void *gsReserve(gs_scratch *s, size_t bytes) {
  if (bytes > s->bytes) {
    if (s->ptr) CUDA_CHECK(cudaFree(s->ptr));
    s->ptr = NULL;
    s->bytes = 0;
    CUDA_CHECK(cudaMalloc(&s->ptr, bytes));
    s->bytes = bytes;
  }
  return s->ptr;
}

/* ==== Part 1: the block scan ================================================================ */

__device__ int32_t scanIncBlock(int32_t x, int32_t *s_tmp, int32_t *total) {
  /* STUDENT-BEGIN(lab05) */
  const int lane = threadIdx.x % GS_WARP, warp = threadIdx.x / GS_WARP;
  const int warps = blockDim.x / GS_WARP;
  int32_t v = scanIncWarp(x);               /* 1: scan each warp */
  if (lane == GS_WARP - 1) s_tmp[warp] = v; /* 2: each warp's total */
  __syncthreads();
  if (warp == 0) {                          /* 3: one warp scans the warp totals */
    int32_t t = lane < warps ? s_tmp[lane] : 0;
    t = scanIncWarp(t);
    if (lane < warps) s_tmp[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += s_tmp[warp - 1];       /* 4: add the totals of the warps before */
  if (total) *total = s_tmp[warps - 1];
  __syncthreads();                          /* everyone has read s_tmp: free to reuse */
  return v;
  /* STUDENT-END(lab05) */
}

/** Block b scans elements [b*blockDim.x, (b+1)*blockDim.x) on its own (scanIncBlockTiles). */
static __global__ void scanBlockTilesKernel(const int32_t *in, int32_t *out, size_t n) {
  __shared__ int32_t s_tmp[GS_WARP];
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int32_t x = i < n ? in[i] : 0;
  const int32_t y = scanIncBlock(x, s_tmp, NULL);
  if (i < n) out[i] = y;
}

/* ==== Part 2: one block, any length ========================================================= */

/**
 * The block (GS_RANGE_THREADS threads) scans in[begin, end) into out[begin, end), tile by tile,
 * starting from @p carry (the sum of everything before @p begin).
 *
 * Per tile of GS_RANGE_TILE elements: (1) stage the tile in @p s_tile with coalesced loads
 * (thread t loads elements t, t + GS_RANGE_THREADS, ...), at padded indices GS_PAD(j);
 * (2) each thread scans its chunk of GS_RANGE_CHUNK consecutive elements, t*CHUNK onwards,
 * from shared memory; (3) scanIncBlock() scans the chunk totals, giving each thread the sum of
 * the chunks before its own; (4) each thread writes its scanned chunk back to @p s_tile, plus
 * its offset and @p carry; (5) coalesced stores; (6) carry += the tile's total. A short last
 * tile reads zeros past @p end and stores nothing there.
 */
template <bool EXCLUSIVE>
static __device__ void scanRangeBlock(const int32_t *in, int32_t *out, size_t begin, size_t end,
                                      int32_t carry, int32_t *s_tile, int32_t *s_tmp) {
  /* STUDENT-BEGIN(lab05) */
  const int t = threadIdx.x;
  for (size_t base = begin; base < end; base += GS_RANGE_TILE) {
    const size_t left = end - base;
    const int count = left < GS_RANGE_TILE ? (int)left : GS_RANGE_TILE;
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) {       /* 1: coalesced loads */
      const int j = k * GS_RANGE_THREADS + t;
      s_tile[GS_PAD(j)] = j < count ? in[base + j] : 0;
    }
    __syncthreads();
    int32_t v[GS_RANGE_CHUNK], sum = 0;
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) {       /* 2: my chunk, consecutive elements */
      v[k] = s_tile[GS_PAD(t * GS_RANGE_CHUNK + k)];
      sum += v[k];
    }
    int32_t tile_total;
    const int32_t incl = scanIncBlock(sum, s_tmp, &tile_total); /* 3: scan of chunk totals */
    int32_t run = carry + incl - sum;
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) {       /* 4: scanned chunk back to shared */
      if (EXCLUSIVE) {
        s_tile[GS_PAD(t * GS_RANGE_CHUNK + k)] = run;
        run += v[k];
      } else {
        run += v[k];
        s_tile[GS_PAD(t * GS_RANGE_CHUNK + k)] = run;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) {       /* 5: coalesced stores */
      const int j = k * GS_RANGE_THREADS + t;
      if (j < count) out[base + j] = s_tile[GS_PAD(j)];
    }
    carry += tile_total;                             /* 6 */
    __syncthreads();                                 /* s_tile is read: free for the next tile */
  }
  /* STUDENT-END(lab05) */
}

/** One block scans the whole array (scanIncBlockAnyLength, and the block totals of (b)). */
template <bool EXCLUSIVE>
static __global__ void __launch_bounds__(GS_RANGE_THREADS)
    scanBlockAnyLengthKernel(const int32_t *in, int32_t *out, size_t n) {
  __shared__ int32_t s_tile[GS_RANGE_SMEM];
  __shared__ int32_t s_tmp[GS_WARP];
  scanRangeBlock<EXCLUSIVE>(in, out, 0, n, 0, s_tile, s_tmp);
}

/* ==== Part 3a: scan-then-propagate ========================================================== */

/**
 * Block b scans tile b (GS_PROPAGATE_TILE elements; thread t owns the GS_PROPAGATE_ITEMS
 * consecutive elements from t*ITEMS): a serial scan of its items, scanIncBlock() over the
 * thread totals, then the items plus the thread's offset. Writes the tile's total to
 * tile_sums[b].
 */
template <bool EXCLUSIVE>
static __global__ void __launch_bounds__(GS_PROPAGATE_THREADS)
    scanTilesKernel(const int32_t *in, int32_t *out, size_t n, int32_t *tile_sums) {
  /* STUDENT-BEGIN(lab05) */
  __shared__ int32_t s_tmp[GS_WARP];
  const size_t first = (size_t)blockIdx.x * GS_PROPAGATE_TILE + (size_t)threadIdx.x * GS_PROPAGATE_ITEMS;
  int32_t v[GS_PROPAGATE_ITEMS], sum = 0;
#pragma unroll
  for (int k = 0; k < GS_PROPAGATE_ITEMS; k++) {
    v[k] = first + k < n ? in[first + k] : 0;
    sum += v[k];
  }
  int32_t tile_total;
  int32_t run = scanIncBlock(sum, s_tmp, &tile_total) - sum;
#pragma unroll
  for (int k = 0; k < GS_PROPAGATE_ITEMS; k++) {
    if (!EXCLUSIVE) run += v[k];
    if (first + k < n) out[first + k] = run;
    if (EXCLUSIVE) run += v[k];
  }
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = tile_total;
  /* STUDENT-END(lab05) */
}

/** Adds offsets[b] to every element of tile b (tile 0's offset is 0: nothing to do). */
static __global__ void __launch_bounds__(GS_PROPAGATE_THREADS)
    addOffsetsKernel(int32_t *out, size_t n, const int32_t *offsets) {
  /* STUDENT-BEGIN(lab05) */
  if (blockIdx.x == 0) return;
  const int32_t offset = offsets[blockIdx.x];
  const size_t base = (size_t)blockIdx.x * GS_PROPAGATE_TILE;
#pragma unroll
  for (int k = 0; k < GS_PROPAGATE_ITEMS; k++) {
    const size_t i = base + (size_t)k * GS_PROPAGATE_THREADS + threadIdx.x; /* coalesced */
    if (i < n) out[i] += offset;
  }
  /* STUDENT-END(lab05) */
}

/* STUDENT-BEGIN(lab05) */
/* Ints of scratch for the tile totals of one level, rounded up to 4 so every level starts
 * 16-byte aligned. */
static size_t levelInts(size_t tiles) { return (tiles + 3) / 4 * 4; }

/* Scans one level: the tiles of `in`, then (recursively) their totals, then adds the offsets.
 * `scratch` holds this level's totals followed by those of the levels below. */
static void propagateLevel(const int32_t *in, int32_t *out, size_t n, bool exclusive,
                           int32_t *scratch) {
  const size_t tiles = (n + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE;
  if (exclusive)
    scanTilesKernel<true><<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>(in, out, n, scratch);
  else
    scanTilesKernel<false><<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>(in, out, n, scratch);
  CUDA_CHECK_LAUNCH();
  if (tiles > 1) {
    /* The exclusive scan of the tile totals is each tile's offset. */
    propagateLevel(scratch, scratch, tiles, true, scratch + levelInts(tiles));
    addOffsetsKernel<<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>(out, n, scratch);
    CUDA_CHECK_LAUNCH();
  }
}
/* STUDENT-END(lab05) */

/** (a) Scan-then-propagate over n elements (any n, 0 included). */
template <bool EXCLUSIVE>
static void propagate(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab05) */
  if (n == 0) return;
  size_t ints = 0, m = n;
  do {
    m = (m + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE;
    ints += levelInts(m);
  } while (m > 1);
  int32_t *scratch = (int32_t *)gsReserve(&g_sums, ints * sizeof(int32_t));
  propagateLevel(in, out, n, EXCLUSIVE, scratch);
  /* STUDENT-END(lab05) */
}

/* ==== Part 3b: reduce-then-scan ============================================================= */

/**
 * The block (GS_RANGE_THREADS threads) returns the sum of in[begin, end), in every thread.
 * Per tile: stage it in @p s_tile with coalesced loads, each thread sums its chunk of
 * GS_RANGE_CHUNK consecutive elements from shared memory, then the block adds the chunk sums
 * (scanIncBlock()'s total does it). Consecutive chunks keep the order of the elements, so the
 * same code would serve an operator that is not commutative.
 */
static __device__ int32_t reduceRangeBlock(const int32_t *in, size_t begin, size_t end,
                                           int32_t *s_tile, int32_t *s_tmp) {
  /* STUDENT-BEGIN(lab05) */
  const int t = threadIdx.x;
  int32_t total = 0;
  for (size_t base = begin; base < end; base += GS_RANGE_TILE) {
    const size_t left = end - base;
    const int count = left < GS_RANGE_TILE ? (int)left : GS_RANGE_TILE;
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) {
      const int j = k * GS_RANGE_THREADS + t;
      s_tile[GS_PAD(j)] = j < count ? in[base + j] : 0;
    }
    __syncthreads();
    int32_t sum = 0;
#pragma unroll
    for (int k = 0; k < GS_RANGE_CHUNK; k++) sum += s_tile[GS_PAD(t * GS_RANGE_CHUNK + k)];
    int32_t tile_total;
    scanIncBlock(sum, s_tmp, &tile_total); /* its barriers also free s_tile for the next tile */
    total += tile_total;
  }
  return total;
  /* STUDENT-END(lab05) */
}

/** Block b writes the sum of its range [b*range, min((b+1)*range, n)) to sums[b]. */
static __global__ void __launch_bounds__(GS_RANGE_THREADS)
    reduceRangesKernel(const int32_t *in, size_t n, size_t range, int32_t *sums) {
  __shared__ int32_t s_tile[GS_RANGE_SMEM];
  __shared__ int32_t s_tmp[GS_WARP];
  const size_t begin = (size_t)blockIdx.x * range;
  const size_t end = n - begin < range ? n : begin + range;
  const int32_t total = reduceRangeBlock(in, begin, end, s_tile, s_tmp);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

/** Block b scans its range starting from offsets[b] (the exclusive scan of the range sums). */
template <bool EXCLUSIVE>
static __global__ void __launch_bounds__(GS_RANGE_THREADS)
    scanRangesKernel(const int32_t *in, int32_t *out, size_t n, size_t range,
                     const int32_t *offsets) {
  __shared__ int32_t s_tile[GS_RANGE_SMEM];
  __shared__ int32_t s_tmp[GS_WARP];
  const size_t begin = (size_t)blockIdx.x * range;
  const size_t end = n - begin < range ? n : begin + range;
  scanRangeBlock<EXCLUSIVE>(in, out, begin, end, offsets[blockIdx.x], s_tile, s_tmp);
}

/** (b) Reduce-then-scan over n elements (any n, 0 included). */
template <bool EXCLUSIVE>
static void reduceThenScan(const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab05) */
  if (n == 0) return;
  /* Whole tiles per block, so only the last block of all ends in a short tile. */
  const size_t tiles = (n + GS_RANGE_TILE - 1) / GS_RANGE_TILE;
  const size_t want = tiles < GS_RTS_BLOCKS ? tiles : GS_RTS_BLOCKS;
  const size_t range = (tiles + want - 1) / want * GS_RANGE_TILE;
  const size_t blocks = (n + range - 1) / range;
  int32_t *sums = (int32_t *)gsReserve(&g_sums, blocks * sizeof(int32_t));
  reduceRangesKernel<<<(unsigned)blocks, GS_RANGE_THREADS>>>(in, n, range, sums);
  CUDA_CHECK_LAUNCH();
  scanBlockAnyLengthKernel<true><<<1, GS_RANGE_THREADS>>>(sums, sums, blocks);
  CUDA_CHECK_LAUNCH();
  scanRangesKernel<EXCLUSIVE><<<(unsigned)blocks, GS_RANGE_THREADS>>>(in, out, n, range, sums);
  CUDA_CHECK_LAUNCH();
  /* STUDENT-END(lab05) */
}

/* ==== Part 3c: single pass with decoupled look-back ======================================== */

/**
 * Called by all 32 lanes of warp 0 once the block knows its tile's @p aggregate. Publishes the
 * aggregate (tile 0: its inclusive prefix at once), finds the exclusive prefix of @p tile by
 * looking back over the status words of the tiles before it, publishes the inclusive prefix,
 * and returns the exclusive prefix in every lane. @p epoch is this launch's (statusStore()).
 *
 * Look-back: lane l reads the status of tile `end - l`, a window of the 32 tiles before `end`,
 * nearest first (a tile before 0 counts as a prefix of 0). While any tile between this one and
 * the nearest PREFIX in the window is still INVALID, read the window again. Then add the values
 * of the lanes up to that nearest PREFIX; if there was none, all 32 were aggregates: move the
 * window 32 tiles further back and go on.
 */
static __device__ int32_t lookbackWarp(gs_status *status, unsigned tile, int32_t aggregate,
                                       unsigned epoch) {
  /* STUDENT-BEGIN(lab05) */
  const int lane = threadIdx.x % GS_WARP;
  if (tile == 0) {
    if (lane == 0) statusStore(&status[0], epoch, GS_FLAG_PREFIX, aggregate);
    return 0;
  }
  if (lane == 0) statusStore(&status[tile], epoch, GS_FLAG_AGGREGATE, aggregate);
  int32_t exclusive = 0;
  long long end = (long long)tile - 1; /* the nearest tile not summed yet */
  for (;;) {
    const long long j = end - lane;
    unsigned flag = GS_FLAG_PREFIX; /* before tile 0: a prefix of 0 */
    int32_t value = 0;
    if (j >= 0) {
      const unsigned long long word = statusLoad(&status[j]);
      flag = statusFlag(word, epoch);
      value = statusValue(word);
    }
    const unsigned prefix_lanes = __ballot_sync(FULL_MASK, flag == GS_FLAG_PREFIX);
    const unsigned invalid_lanes = __ballot_sync(FULL_MASK, flag == GS_FLAG_INVALID);
    /* lanes 0 .. the nearest prefix lane, or all 32 when the window holds no prefix */
    const unsigned upto = prefix_lanes ? ((prefix_lanes & (0u - prefix_lanes)) << 1) - 1u : FULL_MASK;
    if (invalid_lanes & upto) continue; /* a tile in between has not published yet */
    int32_t v = (upto >> lane) & 1u ? value : 0;
#pragma unroll
    for (int o = GS_WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(FULL_MASK, v, o);
    exclusive += v;
    if (prefix_lanes) break;
    end -= GS_WARP;
  }
  if (lane == 0) statusStore(&status[tile], epoch, GS_FLAG_PREFIX, exclusive + aggregate);
  return exclusive;
  /* STUDENT-END(lab05) */
}

/**
 * The single pass, tile after tile of GS_LOOKBACK_TILE elements: draw a tile id from @p counter
 * (zero at launch), load the tile, scan it, let warp 0 look back for the tile's offset, store,
 * draw again; a block leaves when its id is past the last tile (the grid is what fits on the GPU
 * at once, usually far fewer blocks than tiles). @p status has one word per tile; @p epoch is
 * this launch's. With @p stream (the arrays are larger than the L2 cache) loads and stores are
 * marked evict-first; otherwise loads keep the input in L2, where the next kernel may find it.
 */
template <bool EXCLUSIVE>
static __global__ void __launch_bounds__(GS_LOOKBACK_THREADS)
    scanLookbackKernel(const int32_t *in, int32_t *out, size_t n, gs_status *status,
                       unsigned *counter, unsigned epoch, bool stream) {
  /* STUDENT-BEGIN(lab05) */
  /* Warp w owns GS_LOOKBACK_ITEMS * 32 consecutive elements of the tile, as ROWS rows of 128:
   * in row r, lane l holds the 4 elements at r*128 + 4*l, loaded as one 16-byte vector, so
   * every load and store of the warp covers 512 contiguous bytes. */
  constexpr int WARPS = GS_LOOKBACK_THREADS / GS_WARP, ROWS = GS_LOOKBACK_ITEMS / 4;
  __shared__ unsigned s_tile_id;
  __shared__ int32_t s_warp[WARPS];
  __shared__ int32_t s_exclusive;
  const int lane = threadIdx.x % GS_WARP, warp = threadIdx.x / GS_WARP;

  /* 1. Tile ids come from the counter, in the order they are drawn, never from blockIdx:
   *    every tile this block waits for then belongs to a block already running. The grid is
   *    what fits on the GPU at once, so each block draws again when it has stored a tile, until
   *    the ids run past the last tile. */
  const size_t tiles = (n + GS_LOOKBACK_TILE - 1) / GS_LOOKBACK_TILE;
  if (threadIdx.x == 0) s_tile_id = atomicAdd(counter, 1u);
  __syncthreads();
  for (unsigned tile = s_tile_id; tile < tiles;) {
    const size_t base =
        (size_t)tile * GS_LOOKBACK_TILE + (size_t)warp * (GS_WARP * GS_LOOKBACK_ITEMS) + 4 * lane;
    const bool vec = (((uintptr_t)in | (uintptr_t)out) & 15) == 0;
    const bool full = vec && (size_t)(tile + 1) * GS_LOOKBACK_TILE <= n;

    /* 2. Load: 16-byte vectors for a full tile, element by element (zeros past n) otherwise. */
    int4 v[ROWS];
    if (full) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const int4 *p = reinterpret_cast<const int4 *>(in + base + r * 128);
        v[r] = stream ? __ldcs(p) : __ldg(p);
      }
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const size_t i = base + r * 128;
        v[r].x = i < n ? in[i] : 0;
        v[r].y = i + 1 < n ? in[i + 1] : 0;
        v[r].z = i + 2 < n ? in[i + 2] : 0;
        v[r].w = i + 3 < n ? in[i + 3] : 0;
      }
    }

    /* 3. Scan the warp's rows: each lane scans its 4, the warp scans the lane totals of every
     *    row, and a running carry joins the rows. */
    int32_t lane_total[ROWS], row_scan[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      if (EXCLUSIVE) {
        const int32_t x = v[r].x, y = v[r].y, z = v[r].z;
        lane_total[r] = x + y + z + v[r].w;
        v[r] = make_int4(0, x, x + y, x + y + z);
      } else {
        v[r].y += v[r].x;
        v[r].z += v[r].y;
        v[r].w += v[r].z;
        lane_total[r] = v[r].w;
      }
      row_scan[r] = lane_total[r];
    }
#pragma unroll
    for (int d = 1; d < GS_WARP; d *= 2) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) { /* the rows' shuffles are independent: they overlap */
        const int32_t y = __shfl_up_sync(FULL_MASK, row_scan[r], d);
        if (lane >= d) row_scan[r] += y;
      }
    }
    int32_t carry = 0;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const int32_t add = carry + row_scan[r] - lane_total[r];
      v[r].x += add;
      v[r].y += add;
      v[r].z += add;
      v[r].w += add;
      carry += __shfl_sync(FULL_MASK, row_scan[r], GS_WARP - 1);
    }

    /* 4. Block level: every warp scans the warp totals itself (one barrier, no second one). */
    if (lane == 0) s_warp[warp] = carry;
    __syncthreads();
    const int32_t wt = lane < WARPS ? s_warp[lane] : 0;
    const int32_t ws = scanIncWarp(wt);
    const int32_t aggregate = __shfl_sync(FULL_MASK, ws, WARPS - 1);
    const int32_t warp_offset = __shfl_sync(FULL_MASK, ws - wt, warp);

    /* 5. Warp 0 publishes the aggregate and looks back; the others wait at the barrier. */
    if (warp == 0) {
      const int32_t exclusive = lookbackWarp(status, tile, aggregate, epoch);
      if (lane == 0) s_exclusive = exclusive;
    }
    __syncthreads();
    unsigned next = 0; /* the next tile's id (7.), drawn now: the stores go out while it comes */
    if (threadIdx.x == 0) next = atomicAdd(counter, 1u);

    /* 6. Store, marked evict-first: this kernel does not read the output again. */
    const int32_t add = s_exclusive + warp_offset;
    if (full) {
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        __stcs(reinterpret_cast<int4 *>(out + base + r * 128),
               make_int4(v[r].x + add, v[r].y + add, v[r].z + add, v[r].w + add));
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const size_t i = base + r * 128;
        if (i < n) out[i] = v[r].x + add;
        if (i + 1 < n) out[i + 1] = v[r].y + add;
        if (i + 2 < n) out[i + 2] = v[r].z + add;
        if (i + 3 < n) out[i + 3] = v[r].w + add;
      }
    }
    /* 7. The next tile. s_tile_id is free again: every thread read it before the barriers
     *    above. */
    if (threadIdx.x == 0) s_tile_id = next;
    __syncthreads();
    tile = s_tile_id;
  }
  /* STUDENT-END(lab05) */
}

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

static unsigned g_epoch; /* epoch of the last launch of (c); 0: the status words are all zero */

/** Tile counters at the head of the status scratch, one sector each: launch e takes counter
 *  (e - 1) % GS_COUNTERS, and all of them are zeroed together once every GS_COUNTERS launches,
 *  so most launches follow the one before without a memset between them. */
#define GS_COUNTERS 64

/** Blocks of scanLookbackKernel<EXCLUSIVE> that fit on the GPU at once (asked once): the grid
 *  of (c), whose blocks stay and draw tiles until none is left. */
template <bool EXCLUSIVE>
static unsigned lookbackGrid(void) {
  static unsigned blocks = 0;
  if (!blocks) {
    int dev = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scanLookbackKernel<EXCLUSIVE>,
                                                             GS_LOOKBACK_THREADS, 0));
    blocks = (unsigned)((sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1));
  }
  return blocks;
}

/** (c) The single pass: take the next epoch and a zeroed tile counter, launch as many blocks as
 *  fit at once (no more than there are tiles). */
template <bool EXCLUSIVE>
static void lookback(const int32_t *in, int32_t *out, size_t n) {
  if (n == 0) return;
  const size_t tiles = (n + GS_LOOKBACK_TILE - 1) / GS_LOOKBACK_TILE;
  /* elements 0 .. GS_COUNTERS-1: the tile counters (the first 4 bytes of each); then one status
   * word per tile */
  const size_t bytes = (tiles + GS_COUNTERS) * sizeof(gs_status), had = g_status.bytes;
  gs_status *scratch = (gs_status *)gsReserve(&g_status, bytes);
  if (g_status.bytes != had || g_epoch == GS_EPOCH_MAX) {
    /* new memory, or every tag used: zero all words once and count epochs from 1 again */
    CUDA_CHECK(cudaMemsetAsync(scratch, 0, g_status.bytes, 0));
    g_epoch = 0;
  }
  g_epoch++;
  const unsigned slot = (g_epoch - 1) % GS_COUNTERS;
  if (slot == 0 && g_epoch > 1) /* every counter has been used since they were last zeroed */
    CUDA_CHECK(cudaMemsetAsync(scratch, 0, GS_COUNTERS * sizeof(gs_status), 0));
  const bool stream = 2 * n * sizeof(int32_t) > l2Bytes();
  const unsigned grid = lookbackGrid<EXCLUSIVE>();
  scanLookbackKernel<EXCLUSIVE><<<tiles < grid ? (unsigned)tiles : grid, GS_LOOKBACK_THREADS>>>(
      in, out, n, scratch + GS_COUNTERS, (unsigned *)(scratch + slot), g_epoch, stream);
  CUDA_CHECK_LAUNCH();
}

/* ==== Host API (given) ====================================================================== */

void scanIncBlockTiles(const int32_t *d_in, int32_t *d_out, size_t n, int block) {
  if (block < GS_WARP || block > GS_BLOCK_MAX || block % GS_WARP != 0) {
    fprintf(stderr, "scanIncBlockTiles: block size must be a multiple of 32 from 32 to %d, not %d\n",
            GS_BLOCK_MAX, block);
    return;
  }
  if (n == 0) return;
  const size_t blocks = (n + (size_t)block - 1) / (size_t)block;
  scanBlockTilesKernel<<<(unsigned)blocks, block>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
}

void scanIncBlockAnyLength(const int32_t *d_in, int32_t *d_out, size_t n) {
  if (n == 0) return;
  scanBlockAnyLengthKernel<false><<<1, GS_RANGE_THREADS>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
}

void scanExcBlockAnyLength(const int32_t *d_in, int32_t *d_out, size_t n) {
  if (n == 0) return;
  scanBlockAnyLengthKernel<true><<<1, GS_RANGE_THREADS>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
}

void scanIncPropagate(const int32_t *d_in, int32_t *d_out, size_t n) { propagate<false>(d_in, d_out, n); }
void scanExcPropagate(const int32_t *d_in, int32_t *d_out, size_t n) { propagate<true>(d_in, d_out, n); }

void scanIncReduceThenScan(const int32_t *d_in, int32_t *d_out, size_t n) {
  reduceThenScan<false>(d_in, d_out, n);
}
void scanExcReduceThenScan(const int32_t *d_in, int32_t *d_out, size_t n) {
  reduceThenScan<true>(d_in, d_out, n);
}

void scanIncLookback(const int32_t *d_in, int32_t *d_out, size_t n) { lookback<false>(d_in, d_out, n); }
void scanExcLookback(const int32_t *d_in, int32_t *d_out, size_t n) { lookback<true>(d_in, d_out, n); }

void scanGlobalRelease(void) {
  gs_scratch *all[2] = {&g_sums, &g_status};
  g_epoch = 0;
  for (int i = 0; i < 2; i++) {
    if (all[i]->ptr) CUDA_CHECK(cudaFree(all[i]->ptr));
    all[i]->ptr = NULL;
    all[i]->bytes = 0;
  }
}
