/**
 * @file bench.cu
 * @brief `make bench`: times every solution variant of labs 02-06 beside the device copy, CUB
 *        and Thrust, over sizes 2^16 .. 2^28 (and beyond where memory allows).
 *
 * bench.py builds this file together with the solutions (`-DBENCH_LAB02` ... when a lab's
 * solution file exists) and reads what it prints: `PLAN <measurements>`, `DEVICE <json>`,
 * `BEGIN <variant>\t<log2 n>` before each measurement, and `RESULT <json>` after it.
 *
 * Every variant of labs 02-05 reads n ints and writes n ints; bandwidth counts those 8n bytes,
 * whatever the variant moves in between (the handout compares the bytes each one really moves).
 * Lab 06's segmented scans also read a flag byte per element: they count 9n bytes, and the
 * library scans by key (int keys) 12n. Each result is checked before it is timed: full scans
 * against CUB's, tile-wise scans (labs 02-04 and the block scan of lab 05 scan each tile on its
 * own) against a reference kernel, segmented scans element by element against their
 * definition (each output from the previous one, the flag and the input).
 *
 * Adding a variant is one line in VARIANTS below.
 *
 *     bench [--min-log2 16] [--max-log2 28] [--extra-log2 30] [--reps 25] [--only TEXT[|TEXT...]]
 *
 * `--only` keeps the variants whose name contains one of the texts (and always the copy and CUB).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "global_scan.h"

namespace cg = cooperative_groups;
#if defined(BENCH_LAB02) && __has_include("kogge_stone.h")
#include "kogge_stone.h"
#define HAVE_LAB02 1
#endif
#if defined(BENCH_LAB03) && __has_include("blelloch.h")
#include "blelloch.h"
#define HAVE_LAB03 1
#endif
#if defined(BENCH_LAB04) && __has_include("warp_scan.h")
#include "warp_scan.h"
#define HAVE_LAB04 1
#endif
#if defined(BENCH_LAB06) && __has_include("seg_scan.h")
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include "seg_scan.h"
#define HAVE_LAB06 1
#endif

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

/* The solutions check their CUDA calls with the harness's CUDA_CHECK; the bench does not link
 * the test harness (it needs CUnit and a grader), so it supplies that one function itself. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "bench: %s:%d: CUDA error %s (%s) in '%s'\n", file, line, cudaGetErrorName(err),
          cudaGetErrorString(err), expr);
  exit(3);
}

/* ---- what a variant computes, and how it is checked ----------------------------------------- */

enum Check {
  FULL_INC,  /**< inclusive scan of the whole array */
  FULL_EXC,  /**< exclusive scan of the whole array */
  TILES_INC, /**< every tile of `tile` elements scanned on its own, inclusive */
  TILES_EXC, /**< the same, exclusive */
  NONE,      /**< the copy */
  SEG_INC,   /**< segmented inclusive sum of the whole array, with the variant's flags */
  SEG_EXC,   /**< segmented exclusive sum */
  SEG_TILES  /**< every tile of `tile` elements scanned on its own, segmented, inclusive */
};

typedef void (*run_fn)(const int32_t *d_in, int32_t *d_out, size_t n);

struct Variant {
  const char *name;   /**< as printed */
  const char *lab;    /**< "02".."05", or "-" for the yardsticks */
  run_fn run;         /**< enqueues the work on the default stream */
  Check check;        /**< what the output must be */
  size_t tile;        /**< tile size for TILES_* checks */
  double bytes;       /**< bytes per element it moves through device memory (model) */
  int max_log2;       /**< largest size it is timed at */
  int flags = 0;      /**< segmented: the head flags' mean segment length (0: none) */
  double counted = 0; /**< bytes per element the bandwidth counts (0: 8) */
};

/* ---- the yardsticks -------------------------------------------------------------------------- */

static void runCopy(const int32_t *in, int32_t *out, size_t n) {
  CK(cudaMemcpyAsync(out, in, n * sizeof(int32_t), cudaMemcpyDeviceToDevice, 0));
}

static void *g_cub_temp = nullptr;
static size_t g_cub_bytes = 0;
static void runCub(const int32_t *in, int32_t *out, size_t n) {
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n));
  if (bytes > g_cub_bytes) { /* grows only between timings: the first (untimed) call allocates */
    if (g_cub_temp) CK(cudaFree(g_cub_temp));
    CK(cudaMalloc(&g_cub_temp, bytes));
    g_cub_bytes = bytes;
  }
  CK(cub::DeviceScan::InclusiveSum(g_cub_temp, bytes, in, out, n));
}

/* Thrust as most code calls it: it allocates its temporary storage on every call. */
static void runThrust(const int32_t *in, int32_t *out, size_t n) {
  thrust::inclusive_scan(thrust::device, in, in + n, out);
}

/* ---- adapters for the labs' own signatures --------------------------------------------------- */

#ifdef HAVE_LAB02
static void runKoggeStoneTiles(const int32_t *in, int32_t *out, size_t n) {
  scanIncKoggeStoneTiles(in, out, n, KS_MAX_BLOCK);
}
#endif
#ifdef HAVE_LAB03
static void runBlelloch(const int32_t *in, int32_t *out, size_t n) { CK(scanExcBlelloch(in, out, n, 1024)); }
static void runBlellochPadded(const int32_t *in, int32_t *out, size_t n) {
  CK(scanExcBlellochPadded(in, out, n, 1024));
}
#endif
#ifdef HAVE_LAB04
static void runWarpInc(const int32_t *in, int32_t *out, size_t n) {
  CK((warpScanBatch<int32_t, Add>(WARP_SCAN_INC, in, out, n, 256, Add(), 0)));
}
static void runWarpExc(const int32_t *in, int32_t *out, size_t n) {
  CK((warpScanBatch<int32_t, Add>(WARP_SCAN_EXC, in, out, n, 256, Add(), 0)));
}
static void runWarpSmem(const int32_t *in, int32_t *out, size_t n) {
  CK((warpScanBatch<int32_t, Add>(WARP_SCAN_INC_SMEM, in, out, n, 256, Add(), 0)));
}
#endif
static void runBlockTiles(const int32_t *in, int32_t *out, size_t n) { scanIncBlockTiles(in, out, n, 1024); }

/* ---- what production code calls instead (the handouts' "In production" rows) ------------------
 *
 * Tile-wise scans by the library calls a CUDA programmer would reach for: CUB's warp scan and
 * cooperative groups' scan over tiles of 32 (lab 04), CUB's block scan over tiles of 1024 and
 * 2048 with its two main algorithms (labs 02, 03, 05). Inputs past n read as 0 and are not
 * written, as in the labs. */

template <int THREADS>
__global__ void __launch_bounds__(THREADS) cubWarpTilesKernel(const int32_t *in, int32_t *out, size_t n) {
  typedef cub::WarpScan<int32_t> WarpScan;
  __shared__ typename WarpScan::TempStorage temp[THREADS / 32];
  const size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x;
  int32_t x = i < n ? in[i] : 0;
  WarpScan(temp[threadIdx.x / 32]).InclusiveSum(x, x);
  if (i < n) out[i] = x;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) cgWarpTilesKernel(const int32_t *in, int32_t *out, size_t n) {
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x;
  const int32_t x = i < n ? in[i] : 0;
  const int32_t y = cg::inclusive_scan(warp, x); /* cg::plus<int32_t> by default */
  if (i < n) out[i] = y;
}

/* Thread t holds ITEMS consecutive elements of the tile (CUB's "blocked" arrangement). */
template <int THREADS, int ITEMS, cub::BlockScanAlgorithm ALGORITHM, bool EXCLUSIVE>
__global__ void __launch_bounds__(THREADS) cubBlockTilesKernel(const int32_t *in, int32_t *out, size_t n) {
  typedef cub::BlockScan<int32_t, THREADS, ALGORITHM> BlockScan;
  __shared__ typename BlockScan::TempStorage temp;
  const size_t base = blockIdx.x * (size_t)(THREADS * ITEMS) + (size_t)threadIdx.x * ITEMS;
  int32_t x[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; k++) x[k] = base + k < n ? in[base + k] : 0;
  if (EXCLUSIVE) BlockScan(temp).ExclusiveSum(x, x);
  else BlockScan(temp).InclusiveSum(x, x);
#pragma unroll
  for (int k = 0; k < ITEMS; k++)
    if (base + k < n) out[base + k] = x[k];
}

static void runCubWarpTiles(const int32_t *in, int32_t *out, size_t n) {
  cubWarpTilesKernel<256><<<(unsigned)((n + 255) / 256), 256>>>(in, out, n);
  CK(cudaGetLastError());
}
static void runCgWarpTiles(const int32_t *in, int32_t *out, size_t n) {
  cgWarpTilesKernel<256><<<(unsigned)((n + 255) / 256), 256>>>(in, out, n);
  CK(cudaGetLastError());
}
template <int ITEMS, cub::BlockScanAlgorithm ALGORITHM, bool EXCLUSIVE>
static void runCubBlockTiles(const int32_t *in, int32_t *out, size_t n) {
  const size_t tile = 1024 * ITEMS;
  cubBlockTilesKernel<1024, ITEMS, ALGORITHM, EXCLUSIVE><<<(unsigned)((n + tile - 1) / tile), 1024>>>(in, out, n);
  CK(cudaGetLastError());
}

/* ---- lab 05's look-back, four ways of publishing a tile's status ------------------------------
 *
 * One kernel, the shape of lab 05's solution (128 threads x 64 ints per tile, 16-byte loads,
 * tile ids from a counter, warp 0 looks back over a window of 32 tiles, one status record per
 * 32-byte sector, epoch tags so that only the counter is cleared per launch), built four times,
 * differing only in how a status is written and read:
 *
 *   LB_VOLATILE  tag and value packed in one 64-bit word, volatile store and load (the solution's
 *                form; one access carries both, so no fence is needed)
 *   LB_RELAXED   the same word through cuda::atomic_ref, memory_order_relaxed, device scope
 *   LB_FENCE     tag and value in separate words: store the value, __threadfence(), store the
 *                tag (volatile); read the tag, __threadfence(), read the value (the classic form)
 *   LB_ACQREL    separate words through cuda::atomic_ref: the tag stored with memory_order_release
 *                after the value, read with memory_order_acquire before it
 *
 * With separate words, a tile's aggregate and its inclusive prefix have a word each: the tag
 * changes from AGGREGATE to PREFIX while a reader may be between its two loads, and a value read
 * under an older tag must still be the value that tag announced. */
enum LbForm { LB_VOLATILE, LB_RELAXED, LB_FENCE, LB_ACQREL };

struct __align__(32) LbStatus {
  unsigned long long word; /* packed forms: tag << 32 | value */
  unsigned tag;            /* separate forms: 2*epoch (AGGREGATE) or 2*epoch + 1 (PREFIX) */
  int32_t aggregate, prefix;
};

template <LbForm F>
__device__ __forceinline__ void lbPublish(LbStatus *s, unsigned tag, int32_t value) {
  const bool is_prefix = tag & 1u;
  if (F == LB_VOLATILE || F == LB_RELAXED) {
    const unsigned long long w = ((unsigned long long)tag << 32) | (uint32_t)value;
    if (F == LB_VOLATILE) *(volatile unsigned long long *)&s->word = w;
    else cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(s->word).store(w, cuda::memory_order_relaxed);
  } else if (F == LB_FENCE) {
    *(volatile int32_t *)(is_prefix ? &s->prefix : &s->aggregate) = value;
    __threadfence();
    *(volatile unsigned *)&s->tag = tag;
  } else {
    int32_t &slot = is_prefix ? s->prefix : s->aggregate;
    cuda::atomic_ref<int32_t, cuda::thread_scope_device>(slot).store(value, cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(s->tag).store(tag, cuda::memory_order_release);
  }
}

template <LbForm F>
__device__ __forceinline__ void lbRead(LbStatus *s, unsigned &tag, int32_t &value) {
  if (F == LB_VOLATILE || F == LB_RELAXED) {
    const unsigned long long w =
        F == LB_VOLATILE ? *(volatile unsigned long long *)&s->word
                         : cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(s->word).load(
                               cuda::memory_order_relaxed);
    tag = (unsigned)(w >> 32);
    value = (int32_t)(uint32_t)w;
  } else if (F == LB_FENCE) {
    tag = *(volatile unsigned *)&s->tag;
    __threadfence();
    value = *(volatile int32_t *)((tag & 1u) ? &s->prefix : &s->aggregate);
  } else {
    tag = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(s->tag).load(cuda::memory_order_acquire);
    int32_t &slot = (tag & 1u) ? s->prefix : s->aggregate;
    value = cuda::atomic_ref<int32_t, cuda::thread_scope_device>(slot).load(cuda::memory_order_relaxed);
  }
}

/* Warp 0: publish the tile's aggregate, add up the tiles before it (a window of 32 at a time,
 * nearest first, until a PREFIX), publish the inclusive prefix; returns the exclusive prefix. */
template <LbForm F>
__device__ int32_t lbWarp(LbStatus *st, unsigned tile, int32_t aggregate, unsigned epoch) {
  const int lane = threadIdx.x % 32;
  const unsigned AGG = 2 * epoch, PRE = 2 * epoch + 1;
  if (tile == 0) {
    if (lane == 0) lbPublish<F>(&st[0], PRE, aggregate);
    return 0;
  }
  if (lane == 0) lbPublish<F>(&st[tile], AGG, aggregate);
  int32_t before = 0;
  for (long long top = (long long)tile - 1;;) {
    unsigned tag = PRE;
    int32_t value = 0;
    if (top - lane >= 0) lbRead<F>(&st[top - lane], tag, value);
    const unsigned pre = __ballot_sync(0xffffffffu, tag == PRE);
    const unsigned missing = __ballot_sync(0xffffffffu, tag != PRE && tag != AGG);
    const unsigned take = pre ? pre ^ (pre - 1) : 0xffffffffu; /* lanes up to the nearest PREFIX */
    if (missing & take) continue;
    before += __reduce_add_sync(0xffffffffu, (take >> lane) & 1u ? value : 0);
    if (pre) break;
    top -= 32;
  }
  if (lane == 0) lbPublish<F>(&st[tile], PRE, before + aggregate);
  return before;
}

static const int LB_THREADS = 128, LB_ROWS = 16, LB_TILE = LB_THREADS * LB_ROWS * 4;

template <LbForm F>
__global__ void __launch_bounds__(LB_THREADS)
    lbKernel(const int32_t *in, int32_t *out, size_t n, LbStatus *st, unsigned *counter, unsigned epoch,
             bool stream) {
  __shared__ unsigned s_tile;
  __shared__ int32_t s_warp[LB_THREADS / 32], s_before;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  /* warp w: rows of 128 ints; lane l holds ints 4l..4l+3 of each row */
  const size_t first = (size_t)tile * LB_TILE + (size_t)warp * (LB_ROWS * 128) + 4 * lane;
  const bool whole = (size_t)(tile + 1) * LB_TILE <= n && ((((uintptr_t)in) | ((uintptr_t)out)) & 15) == 0;
  int4 v[LB_ROWS];
  int32_t row_sum[LB_ROWS], row_scan[LB_ROWS];
#pragma unroll
  for (int r = 0; r < LB_ROWS; r++) {
    const size_t i = first + (size_t)r * 128;
    if (whole) {
      const int4 *p = reinterpret_cast<const int4 *>(in + i);
      v[r] = stream ? __ldcs(p) : __ldg(p);
    } else {
      v[r] = make_int4(i < n ? in[i] : 0, i + 1 < n ? in[i + 1] : 0, i + 2 < n ? in[i + 2] : 0,
                       i + 3 < n ? in[i + 3] : 0);
    }
    v[r].y += v[r].x;
    v[r].z += v[r].y;
    v[r].w += v[r].z;
    row_sum[r] = row_scan[r] = v[r].w;
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2)
#pragma unroll
    for (int r = 0; r < LB_ROWS; r++) {
      const int32_t y = __shfl_up_sync(0xffffffffu, row_scan[r], d);
      if (lane >= d) row_scan[r] += y;
    }
  int32_t run = 0;
#pragma unroll
  for (int r = 0; r < LB_ROWS; r++) {
    const int32_t add = run + row_scan[r] - row_sum[r];
    v[r] = make_int4(v[r].x + add, v[r].y + add, v[r].z + add, v[r].w + add);
    run += __shfl_sync(0xffffffffu, row_scan[r], 31);
  }
  if (lane == 0) s_warp[warp] = run;
  __syncthreads();
  int32_t warps_before = 0, aggregate = 0;
#pragma unroll
  for (int w = 0; w < LB_THREADS / 32; w++) {
    warps_before += w < warp ? s_warp[w] : 0;
    aggregate += s_warp[w];
  }
  if (warp == 0) {
    const int32_t b = lbWarp<F>(st, tile, aggregate, epoch);
    if (lane == 0) s_before = b;
  }
  __syncthreads();
  const int32_t add = s_before + warps_before;
#pragma unroll
  for (int r = 0; r < LB_ROWS; r++) {
    const size_t i = first + (size_t)r * 128;
    const int4 o = make_int4(v[r].x + add, v[r].y + add, v[r].z + add, v[r].w + add);
    if (whole) {
      __stcs(reinterpret_cast<int4 *>(out + i), o);
    } else {
      if (i < n) out[i] = o.x;
      if (i + 1 < n) out[i + 1] = o.y;
      if (i + 2 < n) out[i + 2] = o.z;
      if (i + 3 < n) out[i + 3] = o.w;
    }
  }
}

static LbStatus *g_lb = nullptr; /* [0]: the tile counter; [1..]: one status per tile */
static size_t g_lb_tiles = 0;
static unsigned g_lb_epoch = 0;
static size_t g_l2 = 0;
template <LbForm F>
static void runLookbackForm(const int32_t *in, int32_t *out, size_t n) {
  const size_t tiles = (n + LB_TILE - 1) / LB_TILE;
  if (tiles > g_lb_tiles) { /* grows only on a first, untimed call */
    if (g_lb) CK(cudaFree(g_lb));
    CK(cudaMalloc(&g_lb, (tiles + 1) * sizeof(LbStatus)));
    CK(cudaMemset(g_lb, 0, (tiles + 1) * sizeof(LbStatus)));
    g_lb_tiles = tiles;
    g_lb_epoch = 0;
    int dev = 0, l2 = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    g_l2 = (size_t)l2;
  }
  g_lb_epoch++;
  CK(cudaMemsetAsync(g_lb, 0, sizeof(unsigned), 0));
  lbKernel<F><<<(unsigned)tiles, LB_THREADS>>>(in, out, n, g_lb + 1, (unsigned *)g_lb, g_lb_epoch,
                                               2 * n * sizeof(int32_t) > g_l2);
  CK(cudaGetLastError());
}

/* ---- lab 06: head flags (one byte per element) at four mean segment lengths ----------------- */

#ifdef HAVE_LAB06
static const int SEG_MEANS[4] = {1, 32, 1000, 1 << 20};
static uint8_t *g_flags[4];  /* flags of each mean length, for the current size */
static int32_t *g_keys;      /* segment numbers at mean 32 (the inclusive sum of its flags) */
static const uint8_t *flagsOf(int mean) {
  for (int k = 0; k < 4; k++)
    if (SEG_MEANS[k] == mean) return g_flags[k];
  return g_flags[1];
}
static void runSegInc1(const int32_t *in, int32_t *out, size_t n) {
  segScanIncGlobal<int32_t, Add>(in, flagsOf(1), out, n, Add());
}
static void runSegInc32(const int32_t *in, int32_t *out, size_t n) {
  segScanIncGlobal<int32_t, Add>(in, flagsOf(32), out, n, Add());
}
static void runSegInc1000(const int32_t *in, int32_t *out, size_t n) {
  segScanIncGlobal<int32_t, Add>(in, flagsOf(1000), out, n, Add());
}
static void runSegIncM(const int32_t *in, int32_t *out, size_t n) {
  segScanIncGlobal<int32_t, Add>(in, flagsOf(1 << 20), out, n, Add());
}
static void runSegExc32(const int32_t *in, int32_t *out, size_t n) {
  segScanExcGlobal<int32_t, Add>(in, flagsOf(32), out, n, Add(), 0);
}
static void runSegWarpOp(const int32_t *in, int32_t *out, size_t n) {
  CK((segScanBatch<int32_t, Add>(SEG_WARP_OP_INC, in, flagsOf(32), out, n, 256, Add(), 0)));
}
static void runSegWarpDirect(const int32_t *in, int32_t *out, size_t n) {
  CK((segScanBatch<int32_t, Add>(SEG_WARP_INC, in, flagsOf(32), out, n, 256, Add(), 0)));
}

static void *g_bykey_temp = nullptr;
static size_t g_bykey_bytes = 0;
static void *growTemp(size_t bytes) { /* grows only on a first, untimed call */
  if (bytes > g_bykey_bytes) {
    if (g_bykey_temp) CK(cudaFree(g_bykey_temp));
    CK(cudaMalloc(&g_bykey_temp, bytes));
    g_bykey_bytes = bytes;
  }
  return g_bykey_temp;
}
static void runCubByKey(const int32_t *in, int32_t *out, size_t n) {
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, g_keys, in, out, (int64_t)n));
  CK(cub::DeviceScan::InclusiveSumByKey(growTemp(bytes), bytes, g_keys, in, out, (int64_t)n));
}
static void runThrustByKey(const int32_t *in, int32_t *out, size_t n) {
  thrust::inclusive_scan_by_key(thrust::device, g_keys, g_keys + n, in, out);
}
/* CUB's generic scan over (flag, value) pairs with the segmented operator, read from the flags
 * and the values and written back as values alone (9 bytes per element, as lab 06's). */
struct SegPair {
  int f, v;
};
struct SegPairAdd {
  __host__ __device__ SegPair operator()(SegPair a, SegPair b) const {
    SegPair c;
    c.f = a.f | b.f;
    c.v = b.f ? b.v : a.v + b.v;
    return c;
  }
};
struct ToSegPair {
  __host__ __device__ SegPair operator()(const thrust::tuple<uint8_t, int32_t> &t) const {
    SegPair p;
    p.f = thrust::get<0>(t);
    p.v = thrust::get<1>(t);
    return p;
  }
};
struct SegPairValue {
  __host__ __device__ int32_t operator()(const SegPair &p) const { return p.v; }
};
static void runCubPairs(const int32_t *in, int32_t *out, size_t n) {
  auto first = thrust::make_transform_iterator(thrust::make_zip_iterator(thrust::make_tuple(flagsOf(32), in)),
                                               ToSegPair());
  auto dst = thrust::make_transform_output_iterator(out, SegPairValue());
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveScan(nullptr, bytes, first, dst, SegPairAdd(), (int64_t)n));
  CK(cub::DeviceScan::InclusiveScan(growTemp(bytes), bytes, first, dst, SegPairAdd(), (int64_t)n));
}
#endif

/* ---- the table: one line per variant --------------------------------------------------------- */

static const Variant VARIANTS[] = {
    /* name                              lab   run                    check      tile  bytes max */
    {"device copy (cudaMemcpy)",         "-",  runCopy,               NONE,      0,    8,    40},
    {"CUB DeviceScan::InclusiveSum",     "-",  runCub,                FULL_INC,  0,    8,    40},
    {"Thrust inclusive_scan",            "-",  runThrust,             FULL_INC,  0,    8,    40},
#ifdef HAVE_LAB02
    {"02 Kogge-Stone, tiles of 1024",    "02", runKoggeStoneTiles,    TILES_INC, 1024, 8,    40},
#endif
#ifdef HAVE_LAB03
    {"03 Blelloch, tiles of 2048",       "03", runBlelloch,           TILES_EXC, 2048, 8,    40},
    {"03 Blelloch padded, tiles of 2048","03", runBlellochPadded,     TILES_EXC, 2048, 8,    40},
#endif
#ifdef HAVE_LAB04
    {"04 warp scan (shuffle), tiles of 32","04", runWarpInc,          TILES_INC, 32,   8,    40},
    {"04 warp scan exclusive, tiles of 32","04", runWarpExc,          TILES_EXC, 32,   8,    40},
    {"04 warp scan (shared), tiles of 32","04", runWarpSmem,          TILES_INC, 32,   8,    40},
#endif
    {"05 block scan, tiles of 1024",     "05", runBlockTiles,         TILES_INC, 1024, 8,    40},
    {"05 one block, any length",         "05", scanIncBlockAnyLength, FULL_INC,  0,    8,    24},
    {"05a scan-then-propagate",          "05", scanIncPropagate,      FULL_INC,  0,    16,   40},
    {"05b reduce-then-scan",             "05", scanIncReduceThenScan, FULL_INC,  0,    12,   40},
    {"05c decoupled look-back",          "05", scanIncLookback,       FULL_INC,  0,    8,    40},
    {"05c decoupled look-back, exclusive","05", scanExcLookback,      FULL_EXC,  0,    8,    40},
    /* what production code calls, beside the labs' rows (the handouts' "In production") */
    {"CUB WarpScan, tiles of 32",        "-",  runCubWarpTiles,       TILES_INC, 32,   8,    40},
    {"cooperative_groups::inclusive_scan, tiles of 32","-", runCgWarpTiles, TILES_INC, 32, 8, 40},
    {"CUB BlockScan warp scans, tiles of 1024","-", runCubBlockTiles<1, cub::BLOCK_SCAN_WARP_SCANS, false>,
                                                                  TILES_INC, 1024, 8,    40},
    {"CUB BlockScan raking, tiles of 1024","-", runCubBlockTiles<1, cub::BLOCK_SCAN_RAKING, false>,
                                                                  TILES_INC, 1024, 8,    40},
    {"CUB BlockScan warp scans, tiles of 2048, exclusive","-",
     runCubBlockTiles<2, cub::BLOCK_SCAN_WARP_SCANS, true>,       TILES_EXC, 2048, 8,    40},
    {"CUB BlockScan raking, tiles of 2048, exclusive","-",
     runCubBlockTiles<2, cub::BLOCK_SCAN_RAKING, true>,           TILES_EXC, 2048, 8,    40},
    {"look-back form: packed word, volatile","-", runLookbackForm<LB_VOLATILE>, FULL_INC, 0, 8, 40},
    {"look-back form: packed word, atomic_ref relaxed","-", runLookbackForm<LB_RELAXED>, FULL_INC, 0, 8, 40},
    {"look-back form: two words, volatile + fence","-", runLookbackForm<LB_FENCE>, FULL_INC, 0, 8, 40},
    {"look-back form: two words, atomic_ref acquire/release","-", runLookbackForm<LB_ACQREL>, FULL_INC, 0, 8, 40},
#ifdef HAVE_LAB06
    /* segmented: flags of mean segment length 32 unless the name says otherwise            flags counted */
    {"CUB InclusiveSumByKey (segmented, int keys)","-", runCubByKey,  SEG_INC,   0,    12,   40, 32,   12},
    {"Thrust inclusive_scan_by_key (segmented)","-", runThrustByKey,  SEG_INC,   0,    12,   40, 32,   12},
    {"CUB InclusiveScan, segmented pairs","-", runCubPairs,           SEG_INC,   0,    9,    40, 32,   9},
    {"06 segmented single pass",         "06", runSegInc32,           SEG_INC,   0,    9,    40, 32,   9},
    {"06 segmented single pass, exclusive","06", runSegExc32,         SEG_EXC,   0,    9,    40, 32,   9},
    {"06 segmented single pass, mean 1", "06", runSegInc1,            SEG_INC,   0,    9,    40, 1,    9},
    {"06 segmented single pass, mean 1000","06", runSegInc1000,        SEG_INC,   0,    9,    40, 1000, 9},
    {"06 segmented single pass, mean 2^20","06", runSegIncM,          SEG_INC,   0,    9,    40, 1 << 20, 9},
    {"06 segmented warp (operator form), tiles of 32","06", runSegWarpOp, SEG_TILES, 32, 9,   40, 32,   9},
    {"06 segmented warp (direct form), tiles of 32","06", runSegWarpDirect, SEG_TILES, 32, 9, 40, 32,   9},
#endif
};
static const int NVARIANTS = (int)(sizeof VARIANTS / sizeof VARIANTS[0]);

/* ---- inputs and checks ------------------------------------------------------------------------ */

__global__ void fillKernel(int32_t *a, size_t n, unsigned long long seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    a[i] = (int32_t)(z % 2001u) - 1000;
  }
}

/* Head flags: 1 in `mean` elements (byte 1), element 0 always; `keys`, if given, gets them as ints. */
__global__ void flagsKernel(uint8_t *f, int32_t *keys, size_t n, int mean, unsigned long long seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const int head = i == 0 || mean <= 1 || (z >> 20) % (unsigned)mean == 0;
    f[i] = (uint8_t)head;
    if (keys) keys[i] = head;
  }
}

/* Counts the elements of `out` that differ from what `check` asks for. `ref` is CUB's
 * inclusive scan of `in`. Tile-wise references: one thread per tile, serially. Segmented scans:
 * each element against its definition from the one before (a head starts again), which fixes
 * the whole output by induction. */
__global__ void checkKernel(const int32_t *in, const int32_t *ref, const int32_t *out, size_t n, int check,
                            size_t tile, const uint8_t *flags, unsigned long long *bad) {
  unsigned long long count = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (check == FULL_INC || check == FULL_EXC) {
    for (size_t i = first; i < n; i += stride) {
      const int32_t want = check == FULL_INC ? ref[i] : ref[i] - in[i];
      count += out[i] != want;
    }
  } else if (check == TILES_INC || check == TILES_EXC) {
    for (size_t t = first; t * tile < n; t += stride) {
      int32_t run = 0;
      for (size_t i = t * tile; i < n && i < (t + 1) * tile; i++) {
        if (check == TILES_INC) run += in[i];
        count += out[i] != run;
        if (check == TILES_EXC) run += in[i];
      }
    }
  } else if (check == SEG_INC || check == SEG_EXC || check == SEG_TILES) {
    for (size_t i = first; i < n; i += stride) {
      const bool head = i == 0 || flags[i] || (check == SEG_TILES && i % tile == 0);
      int32_t want;
      if (check == SEG_EXC) want = head ? 0 : out[i - 1] + in[i - 1];
      else want = head ? in[i] : out[i - 1] + in[i];
      count += out[i] != want;
    }
  } else {
    for (size_t i = first; i < n; i += stride) count += out[i] != in[i];
  }
  if (count) atomicAdd(bad, count);
}

static unsigned long long countBad(const int32_t *in, const int32_t *ref, const int32_t *out, size_t n,
                                   const Variant &v, unsigned long long *d_bad) {
  CK(cudaMemset(d_bad, 0, sizeof *d_bad));
#ifdef HAVE_LAB06
  const uint8_t *flags = v.flags ? flagsOf(v.flags) : nullptr;
#else
  const uint8_t *flags = nullptr;
#endif
  checkKernel<<<2048, 256>>>(in, ref, out, n, v.check, v.tile, flags, d_bad);
  CK(cudaGetLastError());
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
  return bad;
}

/* Median of `reps` timed calls (each between its own pair of events), after `warm` untimed. */
static double medianMs(const Variant &v, const int32_t *in, int32_t *out, size_t n, int warm, int reps) {
  for (int i = 0; i < warm; i++) v.run(in, out, n);
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(ev[2 * i], 0));
    v.run(in, out, n);
    CK(cudaEventRecord(ev[2 * i + 1], 0));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; i++) {
    float t = 0;
    CK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
    ms[i] = t;
  }
  for (auto &e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

static std::string jsonEscape(const char *s) {
  std::string r;
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') r += '\\';
    r += *s;
  }
  return r;
}

/* Whether `name` contains one of the texts of `only`, separated by '|' ("WarpScan|04 warp"). */
static bool nameMatches(const char *name, const char *only) {
  std::string texts(only);
  size_t from = 0;
  for (;;) {
    const size_t bar = texts.find('|', from);
    const std::string t = texts.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
    if (!t.empty() && strstr(name, t.c_str())) return true;
    if (bar == std::string::npos) return false;
    from = bar + 1;
  }
}

int main(int argc, char **argv) {
  int min_log2 = 16, max_log2 = 28, extra_log2 = 30, reps = 25;
  const char *only = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--min-log2") && i + 1 < argc) min_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc) max_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--extra-log2") && i + 1 < argc) extra_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--min-log2 16] [--max-log2 28] [--extra-log2 30] [--reps 25] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 20) reps = 20; /* medians of at least 20 runs */
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "bench: no CUDA device answers: make bench needs a GPU\n");
    return 1;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  /* Sizes past max_log2 run while in, out and the reference fit with room to spare. */
  int top = max_log2;
#ifdef HAVE_LAB06
  const double per_elem = 4.0 * 4.0 + 4.0 + 4.0; /* and four flag arrays and the keys */
#else
  const double per_elem = 4.0 * 4.0;
#endif
  while (top < extra_log2 && per_elem * (double)((size_t)1 << (top + 1)) < 0.8 * (double)free_b) top++;
  printf("DEVICE {\"name\": \"%s\", \"sms\": %d, \"l2_mb\": %d, \"memory_gb\": %.1f, \"reps\": %d}\n",
         jsonEscape(prop.name).c_str(), prop.multiProcessorCount, prop.l2CacheSize >> 20, total_b / 1e9, reps);
  std::vector<int> chosen;
  for (int k = 0; k < NVARIANTS; k++)
    if (!only || k < 2 || nameMatches(VARIANTS[k].name, only)) chosen.push_back(k); /* copy and CUB always */
  int plan = 0;
  for (int lg = min_log2; lg <= top; lg++)
    for (int k : chosen) plan += lg <= VARIANTS[k].max_log2;
  printf("PLAN %d\n", plan);
  fflush(stdout);

  const size_t nmax = (size_t)1 << top;
  int32_t *d_in, *d_out, *d_ref;
  unsigned long long *d_bad;
  CK(cudaMalloc(&d_in, nmax * sizeof(int32_t)));
  CK(cudaMalloc(&d_out, nmax * sizeof(int32_t)));
  CK(cudaMalloc(&d_ref, nmax * sizeof(int32_t)));
  CK(cudaMalloc(&d_bad, sizeof *d_bad));
#ifdef HAVE_LAB06
  for (int k = 0; k < 4; k++) CK(cudaMalloc(&g_flags[k], nmax));
  CK(cudaMalloc(&g_keys, nmax * sizeof(int32_t)));
#endif

  for (int lg = min_log2; lg <= top; lg++) {
    const size_t n = (size_t)1 << lg;
    fillKernel<<<2048, 256>>>(d_in, n, 0x5CA11AB5ull + (unsigned)lg);
    CK(cudaGetLastError());
    runCub(d_in, d_ref, n);
#ifdef HAVE_LAB06
    for (int k = 0; k < 4; k++)
      flagsKernel<<<2048, 256>>>(g_flags[k], k == 1 ? g_keys : nullptr, n, SEG_MEANS[k], 0xF1A65ull + (unsigned)lg);
    CK(cudaGetLastError());
    runCub(g_keys, g_keys, n); /* segment numbers: the inclusive sum of the flags */
#endif
    CK(cudaDeviceSynchronize());
    double t_copy = 0, t_cub = 0;
    for (int k : chosen) {
      const Variant &v = VARIANTS[k];
      if (lg > v.max_log2) continue;
      printf("BEGIN %s\t%d\n", v.name, lg);
      fflush(stdout);
      CK(cudaMemset(d_out, 0xEF, n * sizeof(int32_t))); /* poison: unwritten elements show */
      v.run(d_in, d_out, n);
      CK(cudaDeviceSynchronize());
      CK(cudaGetLastError());
      const unsigned long long bad = countBad(d_in, d_ref, d_out, n, v, d_bad);
      const double ms = medianMs(v, d_in, d_out, n, 3, reps);
      if (k == 0) t_copy = ms;
      if (k == 1) t_cub = ms;
      const double counted = v.counted > 0 ? v.counted : 8.0; /* bytes per element counted */
      const double gbps = counted * (double)n / (ms * 1e-3) * 1e-9;
      printf("RESULT {\"variant\": \"%s\", \"lab\": \"%s\", \"log2n\": %d, \"n\": %zu, \"ms\": %.6f, "
             "\"gbps\": %.1f, \"frac_copy\": %.4f, \"x_cub\": %.4f, \"bytes_per_elem\": %.0f, "
             "\"check\": \"%s\", \"ok\": %s, \"bad\": %llu}\n",
             jsonEscape(v.name).c_str(), v.lab, lg, n, ms, gbps, t_copy / ms * counted / 8.0, t_cub > 0 ? t_cub / ms : 1.0,
             v.bytes, v.check == FULL_INC ? "inclusive" : v.check == FULL_EXC ? "exclusive"
                      : v.check == TILES_INC ? "tiles, inclusive" : v.check == TILES_EXC ? "tiles, exclusive"
                      : v.check == SEG_INC ? "segmented, inclusive" : v.check == SEG_EXC ? "segmented, exclusive"
                      : v.check == SEG_TILES ? "tiles, segmented" : "copy",
             bad ? "false" : "true", bad);
      fflush(stdout);
    }
  }
  scanGlobalRelease();
#ifdef HAVE_LAB06
  segScanGlobalRelease();
  for (int k = 0; k < 4; k++) CK(cudaFree(g_flags[k]));
  CK(cudaFree(g_keys));
  if (g_bykey_temp) CK(cudaFree(g_bykey_temp));
#endif
  if (g_lb) CK(cudaFree(g_lb));
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_ref));
  CK(cudaFree(d_bad));
  if (g_cub_temp) CK(cudaFree(g_cub_temp));
  return 0;
}
