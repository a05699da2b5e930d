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
  FlagValue<T> c;
  c.flag = a.flag | b.flag;                          /* a segment starts in a or in b */
  c.value = b.flag ? b.value : op(a.value, b.value); /* b's own segment, or a's extended */
  return c;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanIncWarpOp(T x, bool head, Op op, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  FlagValue<T> p;
  p.flag = head ? 1u : 0u;
  p.value = x;
  const Segmented<Op> segmented = {op};
  return scanIncWarp(p, segmented, mask).value; /* lab 04's scan, unchanged, on the pairs */
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcWarpOp(T x, bool head, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  const T inc = segScanIncWarpOp(x, head, op, mask);
  const T below = shflUpAny(mask, inc, 1); /* the inclusive result of the lane below */
  return (threadIdx.x % WARP_SIZE == 0 || head) ? identity : below;
  /* STUDENT-END(lab06) */
}

/* ==== Part 2: the direct warp scan ========================================================= */

__device__ unsigned segHeadLane(bool head, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  const unsigned lane = threadIdx.x % WARP_SIZE;
  const unsigned heads = __ballot_sync(mask, head) & lanesUpTo(lane); /* heads at or below me */
  return heads ? (unsigned)(WARP_SIZE - 1 - __clz((int)heads)) : 0u;  /* the highest of them */
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanIncWarp(T x, bool head, Op op, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  const unsigned lane = threadIdx.x % WARP_SIZE;
  const unsigned mindex = segHeadLane(head, mask);
#pragma unroll
  for (unsigned d = 1; d < WARP_SIZE; d *= 2) {
    const T y = shflUpAny(mask, x, d); /* every lane of mask shuffles, even those that ignore y */
    if (lane >= mindex + d) x = op(y, x); /* lane - d is in my segment */
  }
  return x;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcWarp(T x, bool head, Op op, T identity, unsigned mask) {
  /* STUDENT-BEGIN(lab06) */
  const T inc = segScanIncWarp(x, head, op, mask);
  const T below = shflUpAny(mask, inc, 1);
  return (threadIdx.x % WARP_SIZE == 0 || head) ? identity : below;
  /* STUDENT-END(lab06) */
}

/* ==== Part 3: the block scan ================================================================ */

template <typename T, typename Op>
__device__ T segScanIncBlock(T x, bool head, Op op, SegBlockTemp<T> *temp) {
  /* STUDENT-BEGIN(lab06) */
  const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  const unsigned warps = blockDim.x / WARP_SIZE;
  /* 1: scan each warp; note its flag (the OR of its heads) and whether this lane lies before
   *    the warp's first head (in the warp's first segment, which is open at its start) */
  const unsigned heads = __ballot_sync(FULL_MASK, head);
  const bool first_seg = (heads & lanesUpTo(lane)) == 0;
  T v = segScanIncWarp(x, head, op);
  /* 2: the last lane writes the warp's total (the value of its last segment) and flag */
  if (lane == WARP_SIZE - 1) {
    temp->value[warp] = v;
    temp->flag[warp] = heads != 0;
  }
  __syncthreads();
  /* 3: warp 0 scans the (flag, total) pairs of the warps, segmented */
  if (warp == 0) {
    const bool live = lane < warps; /* lanes past the last warp: heads with their own x */
    const T t = live ? temp->value[lane] : x;
    const bool f = live ? temp->flag[lane] != 0 : true;
    const T s = segScanIncWarp(t, f, op);
    if (live) temp->value[lane] = s;
  }
  __syncthreads();
  /* 4: the carry from the warps before reaches only this warp's first segment */
  if (warp > 0 && first_seg) v = op(temp->value[warp - 1], v);
  __syncthreads(); /* everyone has read temp: free to reuse */
  return v;
  /* STUDENT-END(lab06) */
}

template <typename T, typename Op>
__device__ T segScanExcBlock(T x, bool head, Op op, T identity, SegBlockTemp<T> *temp) {
  /* STUDENT-BEGIN(lab06) */
  const unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  const unsigned warps = blockDim.x / WARP_SIZE;
  const unsigned heads = __ballot_sync(FULL_MASK, head);
  const bool first_seg = (heads & lanesUpTo(lane)) == 0; /* a head itself is not open */
  const T inc = segScanIncWarp(x, head, op);
  const T below = shflUpAny(FULL_MASK, inc, 1);
  T e = (lane == 0 || head) ? identity : below; /* the warp's own exclusive result */
  if (lane == WARP_SIZE - 1) {
    temp->value[warp] = inc; /* the warp total is an inclusive result */
    temp->flag[warp] = heads != 0;
  }
  __syncthreads();
  if (warp == 0) {
    const bool live = lane < warps;
    const T t = live ? temp->value[lane] : x;
    const bool f = live ? temp->flag[lane] != 0 : true;
    const T s = segScanIncWarp(t, f, op);
    if (live) temp->value[lane] = s;
  }
  __syncthreads();
  if (warp > 0 && first_seg) {
    const T carry = temp->value[warp - 1];
    e = lane == 0 ? carry : op(carry, e); /* lane 0 held nothing of its own segment yet */
  }
  __syncthreads();
  return e;
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
  const unsigned lane = threadIdx.x % WARP_SIZE;
  if (tile == 0 || has_head) {
    if (lane == 0) statusStore(&status[tile], epoch, SS_FLAG_PREFIX, aggregate); /* at once */
    if (tile == 0 || !need_carry) return aggregate;
  } else if (lane == 0) {
    statusStore(&status[tile], epoch, SS_FLAG_AGGREGATE, aggregate);
  }
  T carry = aggregate;
  bool have = false;
  long long end = (long long)tile - 1; /* the nearest tile not combined yet */
  for (;;) {
    const long long j = end - lane;
    unsigned flag = SS_FLAG_PREFIX; /* before tile 0: never reached, tile 0 is a PREFIX */
    T value = aggregate;
    if (j >= 0) {
      const unsigned long long word = statusLoad(&status[j]);
      flag = statusFlag(word, epoch);
      value = statusValue<T>(word);
    }
    const unsigned prefix_lanes = __ballot_sync(FULL_MASK, flag == SS_FLAG_PREFIX);
    const unsigned invalid_lanes = __ballot_sync(FULL_MASK, flag == SS_FLAG_INVALID);
    /* lanes 0 .. the nearest prefix lane, or all 32 when the window holds no prefix */
    const unsigned upto = prefix_lanes ? ((prefix_lanes & (0u - prefix_lanes)) << 1) - 1u : FULL_MASK;
    if (invalid_lanes & upto) continue; /* a tile in between has not published yet */
    const unsigned last = WARP_SIZE - 1 - __clz((int)upto);
    /* ordered tree: lane l (a multiple of 2o) takes lanes [l+o, l+2o) on its left */
#pragma unroll
    for (unsigned o = 1; o < WARP_SIZE; o *= 2) {
      const T left = shflDownAny(FULL_MASK, value, o);
      if ((lane & (2 * o - 1)) == 0 && lane + o <= last) value = op(left, value);
    }
    const T window = shflAny(FULL_MASK, value, 0); /* lanes 0..last, the farthest first */
    carry = have ? op(window, carry) : window;
    have = true;
    if (prefix_lanes) break;
    end -= WARP_SIZE;
  }
  if (!has_head && lane == 0) statusStore(&status[tile], epoch, SS_FLAG_PREFIX, op(carry, aggregate));
  return carry;
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
  /* Warp w owns SS_GLOBAL_ITEMS * 32 consecutive elements of the tile as ROWS rows of 128: in
   * row r, lane l holds the 4 elements at r*128 + 4*l (one 16-byte load of values, one 4-byte
   * load of flags). Position p = r*128 + 4*l + k counts from the warp's first element. Rows are
   * scanned in groups of GROUP, whose shuffles overlap; fewer at once keeps registers down. */
  constexpr int WARPS = SS_GLOBAL_THREADS / SS_WARP, ROWS = SS_GLOBAL_ITEMS / 4;
  constexpr int GROUP = ROWS % 8 == 0 ? 8 : ROWS % 4 == 0 ? 4 : 1;
  constexpr unsigned NO_HEAD = 0xffffffffu;
  __shared__ unsigned s_tile_id;
  __shared__ T s_warp_value[WARPS];
  __shared__ unsigned s_warp_head[WARPS]; /* each warp's first head position, or NO_HEAD */
  __shared__ T s_carry;
  const unsigned lane = threadIdx.x % SS_WARP, warp = threadIdx.x / SS_WARP;

  /* 1. The tile id, in the order blocks start. */
  if (threadIdx.x == 0) s_tile_id = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile_id;
  const size_t tile_base = (size_t)tile * SS_GLOBAL_TILE;
  const size_t base = tile_base + (size_t)warp * (SS_WARP * SS_GLOBAL_ITEMS) + 4 * lane;
  const bool vec = ((((uintptr_t)in | (uintptr_t)out) & 15) | ((uintptr_t)flags & 3)) == 0;
  const bool full = vec && tile_base + SS_GLOBAL_TILE <= n;

  /* 2. Load values (raw bits) and flags. The 4 flags of row r become the 4 bits of nibble r of
   *    `heads` (bit k: element k is a head). Past n: heads with value 0, never stored. */
  uint4 v[ROWS];
  uint32_t heads[(ROWS + 7) / 8] = {0};
  if (full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const uint4 *pv = reinterpret_cast<const uint4 *>(in + base + r * 128);
      const uint32_t *pf = reinterpret_cast<const uint32_t *>(flags + base + r * 128);
      v[r] = stream ? __ldcs(pv) : __ldg(pv);
      uint32_t f = stream ? __ldcs(pf) : __ldg(pf);
      f |= f >> 4; /* bit 8k: the OR of byte k's bits */
      f |= f >> 2;
      f |= f >> 1;
      const uint32_t nib = (f & 1u) | (f >> 7 & 2u) | (f >> 14 & 4u) | (f >> 21 & 8u);
      heads[r / 8] |= nib << (4 * (r % 8));
    }
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const size_t i = base + r * 128;
      v[r].x = i < n ? toBits(in[i]) : 0u;
      v[r].y = i + 1 < n ? toBits(in[i + 1]) : 0u;
      v[r].z = i + 2 < n ? toBits(in[i + 2]) : 0u;
      v[r].w = i + 3 < n ? toBits(in[i + 3]) : 0u;
      const uint32_t nib = (i >= n || flags[i] ? 1u : 0u) | (i + 1 >= n || flags[i + 1] ? 2u : 0u) |
                           (i + 2 >= n || flags[i + 2] ? 4u : 0u) | (i + 3 >= n || flags[i + 3] ? 8u : 0u);
      heads[r / 8] |= nib << (4 * (r % 8));
    }
  }

  /* 3. Scan the warp's rows, group by group, joining the rows in order. Per row: each lane scans
   *    its 4 elements (segmented), the lanes scan their totals with the direct warp form, and
   *    a lane's carry-in (the lane below's scanned total, joined to the run of the rows before
   *    when no head lies between) reaches its elements up to its first head. `run` is the value
   *    of the segment still open after the rows so far; also note the warp's first head. */
  bool run_valid = false;
  T run = identity;
  unsigned first_head = NO_HEAD;
#pragma unroll
  for (int g = 0; g < ROWS; g += GROUP) {
    uint32_t s[GROUP];      /* lane totals, then their scan across the row (bits of T) */
    unsigned mindex[GROUP]; /* the lane of this lane's head among the row's lanes, or 0 */
#pragma unroll
    for (int k = 0; k < GROUP; k++) {
      const int r = g + k;
      const unsigned h = heads[r / 8] >> (4 * (r % 8)) & 0xfu;
      const T x0 = fromBits<T>(v[r].x), x1 = fromBits<T>(v[r].y), x2 = fromBits<T>(v[r].z),
              x3 = fromBits<T>(v[r].w);
      const T y1 = (h & 2u) ? x1 : op(x0, x1);
      const T y2 = (h & 4u) ? x2 : op(y1, x2);
      const T y3 = (h & 8u) ? x3 : op(y2, x3);
      if (EXCLUSIVE) { /* element k holds the result of k-1 (element 0: below) */
        v[r].y = (h & 2u) ? toBits(identity) : v[r].x;
        v[r].z = (h & 4u) ? toBits(identity) : toBits(y1);
        v[r].w = (h & 8u) ? toBits(identity) : toBits(y2);
      } else {
        v[r].y = toBits(y1);
        v[r].z = toBits(y2);
        v[r].w = toBits(y3);
      }
      s[k] = toBits(y3);
      const unsigned below = __ballot_sync(FULL_MASK, h != 0) & lanesUpTo(lane);
      mindex[k] = below ? WARP_SIZE - 1 - __clz((int)below) : 0u;
    }
#pragma unroll
    for (unsigned d = 1; d < WARP_SIZE; d *= 2) {
#pragma unroll
      for (int k = 0; k < GROUP; k++) { /* the rows' shuffles are independent: they overlap */
        const uint32_t y = __shfl_up_sync(FULL_MASK, s[k], d);
        if (lane >= mindex[k] + d) s[k] = toBits(op(fromBits<T>(y), fromBits<T>(s[k])));
      }
    }
#pragma unroll
    for (int k = 0; k < GROUP; k++) {
      const int r = g + k;
      const unsigned h = heads[r / 8] >> (4 * (r % 8)) & 0xfu;
      const unsigned row_heads = __ballot_sync(FULL_MASK, h != 0);
      const T below = fromBits<T>(__shfl_up_sync(FULL_MASK, s[k], 1));
      const T row_total = fromBits<T>(__shfl_sync(FULL_MASK, s[k], WARP_SIZE - 1));
      const bool head_before = (row_heads & ((1u << lane) - 1u)) != 0; /* in a lane below mine */
      bool in_valid = true; /* the carry into this lane: whether there is one, and its value */
      T in_value = below;
      if (lane == 0) {
        in_valid = run_valid;
        in_value = run;
      } else if (!head_before && run_valid) {
        in_value = op(run, below);
      }
      if (EXCLUSIVE) {
        v[r].x = (in_valid && !(h & 1u)) ? toBits(in_value) : toBits(identity);
        if (in_valid && !(h & 1u)) {
          if (!(h & 2u)) v[r].y = toBits(op(in_value, fromBits<T>(v[r].y)));
          if (!(h & 6u)) v[r].z = toBits(op(in_value, fromBits<T>(v[r].z)));
          if (!(h & 14u)) v[r].w = toBits(op(in_value, fromBits<T>(v[r].w)));
        }
      } else if (in_valid) {
        if (!(h & 1u)) v[r].x = toBits(op(in_value, fromBits<T>(v[r].x)));
        if (!(h & 3u)) v[r].y = toBits(op(in_value, fromBits<T>(v[r].y)));
        if (!(h & 7u)) v[r].z = toBits(op(in_value, fromBits<T>(v[r].z)));
        if (!(h & 15u)) v[r].w = toBits(op(in_value, fromBits<T>(v[r].w)));
      }
      if (first_head == NO_HEAD && row_heads) {
        const unsigned hl = __ffs((int)row_heads) - 1; /* the row's first lane with a head */
        const unsigned hh = __shfl_sync(FULL_MASK, h, hl);
        first_head = r * 128 + 4 * hl + (__ffs((int)hh) - 1);
      }
      run = (row_heads || !run_valid) ? row_total : op(run, row_total);
      run_valid = true;
    }
  }

  /* 4. Block level: every warp joins the warps before it itself (one barrier). */
  if (lane == 0) {
    s_warp_value[warp] = run;
    s_warp_head[warp] = first_head;
  }
  __syncthreads();
  bool before_head = false; /* the warps before this one */
  T before = identity;
  bool tile_head = false; /* the whole tile */
  T tile_value = identity;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    const T wv = s_warp_value[w];
    const bool wh = s_warp_head[w] != NO_HEAD;
    tile_value = (w == 0 || wh) ? wv : op(tile_value, wv);
    tile_head = tile_head || wh;
    if ((unsigned)w < warp) {
      before = (w == 0 || wh) ? wv : op(before, wv);
      before_head = before_head || wh;
    }
  }

  /* 5. Warp 0 publishes and looks back; the others wait at the barrier. The tile id is read
   *    again: kept in a register since step 1, it would take one more than the rows leave free
   *    (ptxas reloads it here even where the source does not). */
  const bool need_carry = s_warp_head[0] != 0; /* the tile's first element is not a head */
  const unsigned tile_id = s_tile_id;
  if (warp == 0) {
    const T carry = lookbackWarp(status, tile_id, tile_head, tile_value, need_carry, epoch, op);
    if (lane == 0) s_carry = carry;
  }
  __syncthreads();

  /* 6. This warp's carry: the tile's carry joined to the warps before; it reaches the warp's
   *    elements before its first head (for EXCLUSIVE, a warp's first element had none). */
  const bool tile_carry = tile_id > 0 && need_carry;
  const bool carry_valid = warp == 0 ? tile_carry : true;
  const T carry = warp == 0 ? s_carry : (before_head || !tile_carry) ? before : op(s_carry, before);
  if (carry_valid && first_head != 0) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const unsigned p = r * 128 + 4 * lane;
      if (p < first_head)
        v[r].x = (EXCLUSIVE && p == 0) ? toBits(carry) : toBits(op(carry, fromBits<T>(v[r].x)));
      if (p + 1 < first_head) v[r].y = toBits(op(carry, fromBits<T>(v[r].y)));
      if (p + 2 < first_head) v[r].z = toBits(op(carry, fromBits<T>(v[r].z)));
      if (p + 3 < first_head) v[r].w = toBits(op(carry, fromBits<T>(v[r].w)));
    }
  }

  /* 7. Store, marked evict-first: this kernel does not read the output again. */
  if (full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) __stcs(reinterpret_cast<uint4 *>(out + base + r * 128), v[r]);
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const size_t i = base + r * 128;
      if (i < n) out[i] = fromBits<T>(v[r].x);
      if (i + 1 < n) out[i + 1] = fromBits<T>(v[r].y);
      if (i + 2 < n) out[i + 2] = fromBits<T>(v[r].z);
      if (i + 3 < n) out[i + 3] = fromBits<T>(v[r].w);
    }
  }
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
