/**
 * @file tune_lookback.cu
 * @brief Tuning sweeps behind lab 05's single-pass scan (part 3c), in one program: every
 *        configuration is checked against CUB's InclusiveSum, then timed beside the device copy
 *        and CUB in the same process. What the sweeps found is in ../PERF.md.
 *
 * A measurement tool for instructors, not part of the graded kit, and not in the student kit
 * (it holds complete look-back kernels). Build and run on a GPU machine, from the kit's root:
 *
 *     nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o build/tune_lookback \
 *         labs/05-global-scan/bench/tune_lookback.cu
 *     build/tune_lookback shapes [max_log2_n] [config] [reset mode] [min_log2_n]
 *     build/tune_lookback placement [min_log2_n] [max_log2_n] [config]
 *
 * Two sweeps, each a namespace below with its own kernels and its own list of configurations;
 * the error check, the input, the comparison and the timing are shared.
 *
 * `shapes` (PERF.md, "What was tried"): one tile per block; tile shapes, cache hints, the
 * per-launch reset, wider look-back windows, pipelined and shared-memory tiles.
 *
 * `placement` (PERF.md, "Warp tiles, pipelining, padded status words"): one tile per warp,
 * the scope of the status loads, a warp-specialized pipeline, and where the status words live
 * (padding each to a 32-byte sector is what the solution adopted).
 *
 * Output: `# ...` lines describe (registers, occupancy, mismatches); `N ...` lines give the copy
 * and CUB at a size; `R ...` lines one configuration: log2 n, name, [reset mode,] microseconds,
 * fraction of copy bandwidth, speed relative to CUB.
 *
 * Why one file (past 800 lines): one measurement program, both sweeps sharing its input, checks
 * and timing, and every kernel built from the same few pieces, defined once below: a tile's rows
 * of 16-byte accesses loaded, scanned and stored (loadRows, scanRows, storeRows), the block's
 * offsets from its warps' totals (blockOffsets), the status words and the look-back (lookback,
 * lookback2); the sweeps differ in how they put them together.
 */
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

static const unsigned FULL = 0xffffffffu;

/* ---- shared by both sweeps: input, comparison, timing ------------------------------------- */

__global__ void fillKernel(int *a, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    a[i] = (int)(z % 2001) - 1000;
  }
}

__global__ void diffKernel(const int *a, const int *b, size_t n, unsigned long long *count) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(count, c);
}

static unsigned long long countDiff(const int *a, const int *b, size_t n, unsigned long long *d_count) {
  CK(cudaMemset(d_count, 0, 8));
  diffKernel<<<1024, 256>>>(a, b, n, d_count);
  CK(cudaGetLastError());
  unsigned long long h;
  CK(cudaMemcpy(&h, d_count, 8, cudaMemcpyDeviceToHost));
  return h;
}

template <class F>
static double timeMedian(F f, int warm, int reps) {
  for (int i = 0; i < warm; i++) f();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(ev[2 * i]));
    f();
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; i++) {
    float t;
    CK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
    ms[i] = t;
  }
  for (auto &e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

/* ---- shared by every kernel: a tile's rows, the block's offsets, the status words --------------
 *
 * A warp's part of a tile is ROWS rows of 32 x 4 ints: row r, lane l holds the 4 ints at
 * base + r * 128 + 4 * l (one 16-byte access a lane, a warp's 512 bytes contiguous).
 * H, the cache hints: 0 plain loads and stores; 1 evict-first loads and stores (__ldcs, __stcs);
 * 2 loads through the read-only path (__ldg), plain stores; 3 __ldg loads, evict-first stores.
 */
template <int H>
__device__ __forceinline__ int4 ld4(const int *p) {
  const int4 *q = reinterpret_cast<const int4 *>(p);
  if (H == 1) return __ldcs(q);
  if (H == 2 || H == 3) return __ldg(q);
  return *q;
}
template <int H>
__device__ __forceinline__ void st4(int *p, int4 v) {
  int4 *q = reinterpret_cast<int4 *>(p);
  if (H == 1 || H == 3) __stcs(q, v);
  else *q = v;
}

/* The rows from `in` (full: the whole tile is there and 16-byte aligned; otherwise element by
 * element, 0 past n). */
template <int ROWS, int H>
__device__ __forceinline__ void loadRows(int4 (&v)[ROWS], const int *in, size_t base, size_t n, bool full) {
  if (full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) v[r] = ld4<H>(in + base + r * 128);
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      size_t i = base + r * 128;
      v[r].x = i < n ? in[i] : 0;
      v[r].y = i + 1 < n ? in[i + 1] : 0;
      v[r].z = i + 2 < n ? in[i + 2] : 0;
      v[r].w = i + 3 < n ? in[i + 3] : 0;
    }
  }
}

/* The rows plus `add` into `out` (as loadRows reads: whole rows, or element by element up to n). */
template <int ROWS, int H>
__device__ __forceinline__ void storeRows(int *out, const int4 (&v)[ROWS], int add, size_t base, size_t n, bool full) {
  if (full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++)
      st4<H>(out + base + r * 128, make_int4(v[r].x + add, v[r].y + add, v[r].z + add, v[r].w + add));
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      size_t i = base + r * 128;
      if (i < n) out[i] = v[r].x + add;
      if (i + 1 < n) out[i + 1] = v[r].y + add;
      if (i + 2 < n) out[i + 2] = v[r].z + add;
      if (i + 3 < n) out[i + 3] = v[r].w + add;
    }
  }
}

__device__ __forceinline__ int warpInc(int x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int y = __shfl_up_sync(FULL, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

/* Scans the warp's rows in place, as one sequence (each lane's 4 ints, the rows across the warp,
 * then each row plus the rows before it); returns the warp's total, in every lane. */
template <int ROWS>
__device__ __forceinline__ int scanRows(int4 (&v)[ROWS], int lane) {
  int incl[ROWS], tot[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    v[r].y += v[r].x;
    v[r].z += v[r].y;
    v[r].w += v[r].z;
    tot[r] = incl[r] = v[r].w;
  }
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      int y = __shfl_up_sync(FULL, incl[r], d);
      if (lane >= d) incl[r] += y;
    }
  }
  int carry = 0;
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    int add = carry + incl[r] - tot[r];
    v[r].x += add;
    v[r].y += add;
    v[r].z += add;
    v[r].w += add;
    carry += __shfl_sync(FULL, incl[r], 31);
  }
  return carry;
}

/* From the warps' totals (`wt`, lane w holding warp w's; WARPS <= 32): the block's total and the
 * sum of the warps before `warp`, in every lane. */
template <int WARPS>
__device__ __forceinline__ void warpOffsets(int wt, int lane, int warp, int &agg, int &wex) {
  int wi = warpInc(wt, lane);
  agg = __shfl_sync(FULL, wi, WARPS - 1);
  wex = __shfl_sync(FULL, wi - wt, warp);
}

/* warpOffsets of the block's warps, their totals passed through shared memory (one barrier). */
template <int WARPS>
__device__ __forceinline__ void blockOffsets(int carry, int *s_warp, int lane, int warp, int &agg, int &wex) {
  if (lane == 0) s_warp[warp] = carry;
  __syncthreads();
  warpOffsets<WARPS>(lane < WARPS ? s_warp[lane] : 0, lane, warp, agg, wex);
}

/* Status words: 64 bits, the tag (2 * epoch: aggregate, 2 * epoch + 1: inclusive prefix) above the
 * value. LD 0: volatile loads and stores; 1: ld.relaxed.gpu / st.relaxed.gpu; 2: as 1, with a
 * __nanosleep back-off while a window is not ready; 9: no look-back at all (wrong sums: a
 * ceiling for the timing). */
template <int LD>
__device__ __forceinline__ unsigned long long ldStatus(const unsigned long long *p) {
  if (LD == 0) return *(const volatile unsigned long long *)p;
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
template <int LD>
__device__ __forceinline__ void stStatus(unsigned long long *p, unsigned tag, int v) {
  unsigned long long w = ((unsigned long long)tag << 32) | (unsigned)v;
  if (LD == 0) {
    *(volatile unsigned long long *)p = w;
  } else {
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
  }
}

/* Exclusive prefix of `tile`, in every lane of the calling warp; publishes the tile's aggregate
 * first (PUB), its inclusive prefix last. Each lane reads K consecutive status words a step: a
 * window of 32 * K tiles, nearest first. */
template <int K, int LD, bool PUB = true>
__device__ __forceinline__ int lookback(unsigned long long *status, unsigned tile, int agg, unsigned epoch,
                                        int lane) {
  const unsigned AGG = 2 * epoch, PRE = 2 * epoch + 1;
  if (LD == 9) return 0;
  if (tile == 0) {
    if (lane == 0 && PUB) stStatus<LD>(status, PRE, agg);
    return 0;
  }
  if (lane == 0 && PUB) stStatus<LD>(status + tile, AGG, agg);
  int excl = 0;
  long long end = (long long)tile - 1;
  while (true) {
    unsigned long long w[K];
#pragma unroll
    for (int m = 0; m < K; m++) {
      long long j = end - (lane * K + m);
      w[m] = j >= 0 ? ldStatus<LD>(status + j) : ((unsigned long long)PRE << 32);
    }
    int part = 0;
    bool found = false, waiting = false;
#pragma unroll
    for (int m = 0; m < K; m++) {
      if (found) break;
      unsigned tag = (unsigned)(w[m] >> 32);
      waiting |= tag != PRE && tag != AGG;
      part += (int)(unsigned)w[m];
      found = tag == PRE;
    }
    unsigned bp = __ballot_sync(FULL, found);
    unsigned bi = __ballot_sync(FULL, waiting);
    unsigned upto = bp ? (((bp & (0u - bp)) << 1) - 1u) : FULL;
    if (bi & upto) {
      if (LD == 2) __nanosleep(64);
      continue;
    }
    int v = ((1u << lane) & upto) ? part : 0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    excl += v;
    if (bp) break;
    end -= 32 * K;
  }
  if (lane == 0) stStatus<LD>(status + tile, PRE, excl + agg);
  return excl;
}

/* ---- shared by both sweeps' hosts: buffers, CUB's scan, the copy and CUB beside each size ---- */

static int aligned16(const int *in, const int *out) { return (((uintptr_t)in | (uintptr_t)out) & 15) == 0; }

/* Blocks of `kernel` the device holds at once (a persistent kernel's grid). */
static int residentGrid(const void *kernel, int threads) {
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return per_sm * sms;
}

struct Buffers {
  int *in, *out, *ref;
  unsigned long long *count;  // countDiff's
  void *cub;
  size_t cub_bytes;
};

static Buffers buffers(size_t nmax) {
  Buffers b;
  CK(cudaMalloc(&b.in, nmax * 4));
  CK(cudaMalloc(&b.out, nmax * 4));
  CK(cudaMalloc(&b.ref, nmax * 4));
  CK(cudaMalloc(&b.count, 8));
  b.cub_bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, b.cub_bytes, b.in, b.ref, nmax));
  CK(cudaMalloc(&b.cub, b.cub_bytes + 256));
  return b;
}

static void cubScan(const Buffers &b, const int *in, int *out, size_t n) {
  size_t bytes = b.cub_bytes;
  CK(cub::DeviceScan::InclusiveSum(b.cub, bytes, in, out, n));
}

static cudaDeviceProp device() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  return prop;
}

const int REPS = 30, WARM = 3;

struct Baseline {
  double copy, cub;  // milliseconds
};

/* The device copy and CUB's scan of n ints, timed; `again` times them a second time (after the
 * configurations) and prints how far they moved. */
static Baseline baseline(const Buffers &b, const int *in, int *out, size_t n, int lg, const Baseline *again = nullptr) {
  auto copy = [&] { CK(cudaMemcpyAsync(b.out, b.in, n * 4, cudaMemcpyDeviceToDevice, 0)); };
  Baseline t;
  t.copy = timeMedian(copy, WARM, REPS);
  t.cub = timeMedian([&] { cubScan(b, in, out, n); }, WARM, REPS);
  if (again)
    printf("N %d again: copy %.2f us cub %.2f us (spread copy %.1f%% cub %.1f%%)\n", lg, t.copy * 1e3, t.cub * 1e3,
           100.0 * (t.copy - again->copy) / again->copy, 100.0 * (t.cub - again->cub) / again->cub);
  else
    printf("N %d copy %.2f us (%.0f GB/s)  cub %.2f us frac %.3f\n", lg, t.copy * 1e3, 8.0 * n / t.copy * 1e-6,
           t.cub * 1e3, t.copy / t.cub);
  return t;
}

/* ==== sweep `shapes` ========================================================================
 *
 * Tile shapes, cache hints and the way the per-launch state is reset, one tile per block.
 * Arguments: [max_log2_n (28)] [one configuration's name] [one reset mode] [min_log2_n (16)].
 *
 * For each size it times the copy and CUB's InclusiveSum, then every configuration (threads per
 * block x items per thread x cache hints x reset strategy), checks each result against CUB's,
 * and prints median times, the fraction of copy bandwidth and the speed relative to CUB.
 * Reset strategies: 0 = memset of the tile counter and of every status word before each launch;
 * 1 = memset of the counter only, status words tagged with a launch epoch; 2 = no memset at
 * all (epoch tags, and the block that draws the last tile id zeroes the counter for the next
 * launch).
 */
namespace shapes {

/* One tile a block: thread 0 draws the tile (and, with self_reset, the block of the last tile
 * zeroes the counter for the next launch); warp 0 looks back. */
template <int THREADS, int ITEMS, int H, int K>
__global__ void __launch_bounds__(THREADS)
    lbKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter,
             unsigned epoch, unsigned ntiles, int self_reset, int vec) {
  constexpr int WARPS = THREADS / 32, ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  __shared__ unsigned s_tile;
  __shared__ int s_warp[WARPS];
  __shared__ int s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) {
    unsigned t = atomicAdd(counter, 1u);
    if (self_reset && t == ntiles - 1) atomicExch(counter, 0u);
    s_tile = t;
  }
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t base = (size_t)tile * TILE + (size_t)warp * (32 * ITEMS) + 4 * lane;
  const bool full = vec && (size_t)(tile + 1) * TILE <= n;
  int4 v[ROWS];
  loadRows<ROWS, H>(v, in, base, n, full);
  int agg, wex;
  blockOffsets<WARPS>(scanRows(v, lane), s_warp, lane, warp, agg, wex);
  if (warp == 0) {
    int ex = lookback<K, 0>(status, tile, agg, epoch, lane);
    if (lane == 0) s_excl = ex;
  }
  __syncthreads();
  storeRows<ROWS, H>(out, v, s_excl + wex, base, n, full);
}


/* Persistent, software-pipelined variant: each block loops over tiles drawn from the counter and
 * issues the loads of its next tile before it waits in the look-back of the current one. */
template <int THREADS, int ITEMS, int H>
__global__ void __launch_bounds__(THREADS)
    lbPipeKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter,
                 unsigned epoch, unsigned ntiles, unsigned reset_at, int vec) {
  constexpr int WARPS = THREADS / 32, ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  __shared__ unsigned s_tile;
  __shared__ int s_warp[WARPS];
  __shared__ int s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t off = (size_t)warp * (32 * ITEMS) + 4 * lane;
  if (threadIdx.x == 0) {
    unsigned t = atomicAdd(counter, 1u);
    if (t == reset_at) atomicExch(counter, 0u);
    s_tile = t;
  }
  __syncthreads();
  unsigned tile = s_tile;
  int4 cur[ROWS];
  if (tile < ntiles) loadRows<ROWS, H>(cur, in, tile * TILE + off, n, vec && (size_t)(tile + 1) * TILE <= n);
  while (tile < ntiles) {
    const bool full = vec && (size_t)(tile + 1) * TILE <= n;
    const int carry = scanRows(cur, lane);
    if (lane == 0) s_warp[warp] = carry;
    if (threadIdx.x == 0) {
      unsigned t = atomicAdd(counter, 1u);
      if (t == reset_at) atomicExch(counter, 0u);
      s_tile = t;
    }
    __syncthreads();
    const unsigned next = s_tile;
    int wt = lane < WARPS ? s_warp[lane] : 0;
    int4 nxt[ROWS];
    if (next < ntiles) loadRows<ROWS, H>(nxt, in, next * TILE + off, n, vec && (size_t)(next + 1) * TILE <= n);
    int agg, wex;
    warpOffsets<WARPS>(wt, lane, warp, agg, wex);
    if (warp == 0) {
      int ex = lookback<1, 0>(status, tile, agg, epoch, lane);
      if (lane == 0) s_excl = ex;
    }
    __syncthreads();
    storeRows<ROWS, H>(out, cur, s_excl + wex, tile * TILE + off, n, full);
#pragma unroll
    for (int r = 0; r < ROWS; r++) cur[r] = nxt[r];
    tile = next;
  }
}


/* Shared-memory tile variant: each warp copies its own rows of the tile into shared memory with
 * cp.async (no registers held by loads in flight), scans them row by row in place, and keeps
 * the tile there while warp 0 looks back; registers stay few, so more tiles fit on an SM.
 * SPEC = 1: start copying tile blockIdx.x before the counter answers, and copy again only when
 * the counter hands out another tile (g_spec_miss counts those). */
__device__ unsigned long long g_spec_miss;

__device__ __forceinline__ void cpAsync16(void *smem, const void *gmem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

template <int THREADS, int ITEMS, int H, int SPEC, int K>
__global__ void __launch_bounds__(THREADS)
    lbSmemKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter,
                 unsigned epoch, unsigned ntiles, int self_reset, int vec) {
  constexpr int WARPS = THREADS / 32, ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  extern __shared__ int4 s_data[];
  __shared__ unsigned s_tile;
  __shared__ int s_warp[WARPS];
  __shared__ int s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int4 *mine = s_data + warp * (8 * ITEMS) + lane;  // row r at mine[r * 32]
  const size_t off = (size_t)warp * (32 * ITEMS) + 4 * lane;
  unsigned guess = blockIdx.x;
  bool guess_full = vec && (size_t)(guess + 1) * TILE <= n;
  if (SPEC && guess_full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) cpAsync16(mine + r * 32, in + guess * TILE + off + r * 128);
  }
  if (threadIdx.x == 0) {
    unsigned t = atomicAdd(counter, 1u);
    if (self_reset && t == ntiles - 1) atomicExch(counter, 0u);
    s_tile = t;
  }
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t base = (size_t)tile * TILE + off;
  const bool full = vec && (size_t)(tile + 1) * TILE <= n;
  if (SPEC && guess_full && tile != guess) {
    cpAsyncWait();
    if (threadIdx.x == 0) atomicAdd(&g_spec_miss, 1ull);
  }
  if (!(SPEC && guess_full && tile == guess)) {
    if (full) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) cpAsync16(mine + r * 32, in + base + r * 128);
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        size_t i = base + r * 128;
        int4 v;
        v.x = i < n ? in[i] : 0;
        v.y = i + 1 < n ? in[i + 1] : 0;
        v.z = i + 2 < n ? in[i + 2] : 0;
        v.w = i + 3 < n ? in[i + 3] : 0;
        mine[r * 32] = v;
      }
    }
  }
  cpAsyncWait();
  /* Row by row: each lane reads back exactly the 16 bytes it copied, so no barrier is needed. */
  int carry = 0;
#pragma unroll 2
  for (int r = 0; r < ROWS; r++) {
    int4 v = mine[r * 32];
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    int incl = warpInc(v.w, lane);
    int add = carry + incl - v.w;
    v.x += add;
    v.y += add;
    v.z += add;
    v.w += add;
    mine[r * 32] = v;
    carry += __shfl_sync(FULL, incl, 31);
  }
  int agg, wex;
  blockOffsets<WARPS>(carry, s_warp, lane, warp, agg, wex);
  if (warp == 0) {
    int ex = lookback<K, 0>(status, tile, agg, epoch, lane);
    if (lane == 0) s_excl = ex;
  }
  __syncthreads();
  const int add = s_excl + wex;
  if (full) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      int4 v = mine[r * 32];
      st4<H>(out + base + r * 128, make_int4(v.x + add, v.y + add, v.z + add, v.w + add));
    }
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      int4 v = mine[r * 32];
      size_t i = base + r * 128;
      if (i < n) out[i] = v.x + add;
      if (i + 1 < n) out[i + 1] = v.y + add;
      if (i + 2 < n) out[i + 2] = v.z + add;
      if (i + 3 < n) out[i + 3] = v.w + add;
    }
  }
}

struct State {
  unsigned long long *status = nullptr;  // status[-1] is the counter
  unsigned *counter = nullptr;
  size_t cap = 0;
  unsigned epoch = 0;
  int last_mode = -1;
};
static State g_state;

/* Status words and the counter for `ntiles` tiles, reset as reset mode `mode` says (the sweep's
 * comment above); returns the launch's epoch. */
static unsigned prepare(size_t ntiles, int mode) {
  if (ntiles > g_state.cap) {
    if (g_state.status) CK(cudaFree(g_state.status - 1));
    unsigned long long *p;
    CK(cudaMalloc(&p, (ntiles + 1) * 8));
    CK(cudaMemset(p, 0, (ntiles + 1) * 8));
    g_state.status = p + 1;
    g_state.counter = (unsigned *)p;
    g_state.cap = ntiles;
    g_state.epoch = 0;
  }
  unsigned epoch;
  if (mode == 0) {
    CK(cudaMemsetAsync(g_state.status - 1, 0, (ntiles + 1) * 8, 0));
    epoch = 1;
    g_state.epoch = 1;  // status words now hold epoch-1 tags at most
  } else {
    if (mode == 1 || g_state.last_mode != 2) CK(cudaMemsetAsync(g_state.counter, 0, 8, 0));
    epoch = ++g_state.epoch;
  }
  g_state.last_mode = mode;
  return epoch;
}

typedef void (*launch_fn)(const int *, int *, size_t, int mode);

template <int THREADS, int ITEMS, int H, int K>
void runLB(const int *in, int *out, size_t n, int mode) {
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  size_t ntiles = (n + TILE - 1) / TILE;
  if (ntiles == 0) return;
  unsigned epoch = prepare(ntiles, mode);
  lbKernel<THREADS, ITEMS, H, K><<<(unsigned)ntiles, THREADS>>>(in, out, n, g_state.status, g_state.counter,
                                                             epoch, (unsigned)ntiles, mode == 2, aligned16(in, out));
  CK(cudaGetLastError());
}

template <int THREADS, int ITEMS, int H>
void runPipe(const int *in, int *out, size_t n, int mode) {
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  size_t ntiles = (n + TILE - 1) / TILE;
  if (ntiles == 0) return;
  static int grid_max = residentGrid((const void *)lbPipeKernel<THREADS, ITEMS, H>, THREADS);
  unsigned grid = (unsigned)std::min<size_t>(ntiles, (size_t)grid_max);
  unsigned epoch = prepare(ntiles, mode);
  unsigned reset_at = mode == 2 ? (unsigned)(ntiles + grid - 1) : 0xffffffffu;
  lbPipeKernel<THREADS, ITEMS, H><<<grid, THREADS>>>(in, out, n, g_state.status, g_state.counter, epoch,
                                                     (unsigned)ntiles, reset_at, aligned16(in, out));
  CK(cudaGetLastError());
}

template <int THREADS, int ITEMS, int H, int SPEC, int K>
void runSmem(const int *in, int *out, size_t n, int mode) {
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  const size_t smem = TILE * 4;
  static bool init = false;
  if (!init) {
    CK(cudaFuncSetAttribute(lbSmemKernel<THREADS, ITEMS, H, SPEC, K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    init = true;
  }
  size_t ntiles = (n + TILE - 1) / TILE;
  if (ntiles == 0) return;
  unsigned epoch = prepare(ntiles, mode);
  lbSmemKernel<THREADS, ITEMS, H, SPEC, K><<<(unsigned)ntiles, THREADS, smem>>>(
      in, out, n, g_state.status, g_state.counter, epoch, (unsigned)ntiles, mode == 2, aligned16(in, out));
  CK(cudaGetLastError());
}

struct Config {
  std::string name;
  launch_fn fn;
  const void *kernel;
  int threads, items, hint;
};

#define CFGK(T, I, H, K) \
  Config{"t" #T "_i" #I "_h" #H "_k" #K, runLB<T, I, H, K>, (const void *)lbKernel<T, I, H, K>, T, I, H}
#define CFG(T, I, H) CFGK(T, I, H, 1)

#define PIPE(T, I, H) \
  Config{"p" #T "_i" #I "_h" #H, runPipe<T, I, H>, (const void *)lbPipeKernel<T, I, H>, T, I, H}
#define PIPE_H(T, I) PIPE(T, I, 1), PIPE(T, I, 3)

#define SMEMK(T, I, H, S, K)                                                                    \
  Config{"s" #T "_i" #I "_h" #H "_spec" #S "_k" #K, runSmem<T, I, H, S, K>,                       \
         (const void *)lbSmemKernel<T, I, H, S, K>, T, I, H}
#define SMEM(T, I, H, S) SMEMK(T, I, H, S, 1)

/* Sweep 1 (all of t{128,256,512} x i{8..32} x h{0..3}) found t128_i32_h1 and t256_i32_h1 best
 * among the one-tile-per-block kernels; sweep 2 keeps those, tries bigger tiles, and the
 * persistent pipelined kernel. */
[[maybe_unused]] static std::vector<Config> configs2() {
  return {CFG(128, 32, 1), CFG(256, 32, 1), CFG(128, 48, 1), CFG(128, 64, 1), CFG(256, 48, 1),
          PIPE_H(128, 8),  PIPE_H(128, 16), PIPE_H(128, 24), PIPE_H(128, 32), PIPE_H(256, 8),
          PIPE_H(256, 12), PIPE_H(256, 16), PIPE_H(256, 24), PIPE_H(256, 32), PIPE_H(512, 8),
          PIPE_H(512, 12), PIPE_H(512, 16)};
}
/* Sweep 3: the pipelined kernel lost (0.47-0.65 of copy at 2^28: a prefetched tile publishes its
 * aggregate only when its block comes back to it); the largest register tiles won (t128_i64 and
 * t256_i48 at 0.835) but trail CUB at 2^22, where every tile is resident at once and the
 * look-back walks 32 tiles per round trip. Now: windows of 32*K tiles, tiles held in shared
 * memory (cp.async), and speculative copies. */
[[maybe_unused]] static std::vector<Config> configs3() {
  return {CFGK(128, 64, 1, 1),    CFGK(128, 64, 1, 4),    CFGK(256, 48, 1, 4),    CFGK(256, 32, 1, 4),
          CFGK(128, 32, 3, 4),    CFGK(128, 96, 1, 4),    CFGK(256, 64, 1, 4),
          SMEMK(128, 64, 1, 0, 4),  SMEMK(256, 32, 1, 0, 4),  SMEMK(256, 64, 1, 0, 4),  SMEMK(512, 32, 1, 0, 4),
          SMEMK(256, 128, 1, 0, 4), SMEMK(128, 128, 1, 0, 4), SMEMK(256, 64, 1, 0, 1),  SMEMK(256, 64, 0, 0, 4),
          SMEMK(256, 64, 1, 1, 4),  SMEMK(128, 64, 1, 1, 4),  SMEMK(512, 64, 1, 0, 4),  SMEMK(256, 96, 1, 0, 4)};
}

/* Sweep 4: windows of 4 words per lane lost at every size (0.78 against 0.84 at 2^28 for t128_i64),
 * and so did the shared-memory tiles (0.77 at best) and speculation. The winner, t128_i64 with
 * one word per lane, trails CUB only at 2^22, where input and output fit in the L2 cache and
 * evict-first loads throw the input out. Now the cache hints of that kernel, by size. */
static std::vector<Config> configs() {
  return {CFGK(128, 64, 0, 1), CFGK(128, 64, 1, 1), CFGK(128, 64, 2, 1), CFGK(128, 64, 3, 1)};
}

int run(int argc, char **argv) {
  int maxlog = argc > 1 ? atoi(argv[1]) : 28;
  const char *only = argc > 2 ? argv[2] : nullptr;       // one configuration's name
  int only_mode = argc > 3 ? atoi(argv[3]) : -1;         // one reset mode
  int minlog = argc > 4 ? atoi(argv[4]) : 16;
  device();
  auto cfgs = configs();
  for (auto &c : cfgs) {
    if (only && c.name != only) continue;
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, c.kernel));
    int blocks = 0;
    size_t dyn = c.name[0] == 's' ? (size_t)c.threads * c.items * 4 : 0;
    if (dyn) CK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.threads, dyn));
    printf("# %s regs %d smem %zu blocks/SM %d\n", c.name.c_str(), a.numRegs, a.sharedSizeBytes, blocks);
  }
  const Buffers b = buffers((size_t)1 << maxlog);
  printf("# columns: log2n config mode us frac_copy x_cub (x_cub > 1: faster than CUB)\n");
  for (int lg = minlog; lg <= maxlog; lg++) {
    size_t n = (size_t)1 << lg;
    fillKernel<<<1024, 256>>>(b.in, n, 12345u + lg);
    CK(cudaGetLastError());
    cubScan(b, b.in, b.ref, n);
    CK(cudaDeviceSynchronize());
    const Baseline base = baseline(b, b.in, b.out, n, lg);
    for (auto &c : cfgs) {
      if (only && c.name != only) continue;
      for (int mode = 0; mode < 3; mode++) {
        if (only_mode >= 0 && mode != only_mode) continue;
        CK(cudaMemset(b.out, 0xEF, n * 4));
        c.fn(b.in, b.out, n, mode);
        c.fn(b.in, b.out, n, mode);  // twice: the second run sees the state the first left
        CK(cudaDeviceSynchronize());
        unsigned long long bad = countDiff(b.ref, b.out, n, b.count);
        double t = timeMedian([&] { c.fn(b.in, b.out, n, mode); }, WARM, REPS);
        printf("R %d %s %d %.2f %.3f %.3f%s\n", lg, c.name.c_str(), mode, t * 1e3, base.copy / t, base.cub / t,
               bad ? " WRONG" : "");
        if (bad) printf("# %s mode %d n=2^%d: %llu mismatches\n", c.name.c_str(), mode, lg, bad);
        unsigned long long miss = 0;
        CK(cudaMemcpyFromSymbol(&miss, g_spec_miss, 8));
        if (miss) {
          printf("# %s mode %d n=2^%d: %llu speculative misses over all launches so far\n", c.name.c_str(), mode, lg, miss);
          miss = 0;
          CK(cudaMemcpyToSymbol(g_spec_miss, &miss, 8));
        }
      }
    }
    baseline(b, b.in, b.out, n, lg, &base);
    fflush(stdout);
  }
  return 0;
}
}  // namespace shapes

/* ==== sweep `placement` =====================================================================
 *
 * One tile per warp (no block barrier), against the block-tile kernel of the lab 05 solution.
 * Arguments: [min_log2_n (20)] [max_log2_n (28)] [one configuration's name].
 *
 * Warp-tile kernel (`w...`): every warp of a block is its own tile of 32 x ITEMS ints (row r,
 * lane l: the 4 ints at r*128 + 4*l, one 16-byte access). The warp draws its tile id from the
 * atomic counter (ID 0: lane 0 of each warp; ID 1: thread 0 of the block draws WARPS ids at once,
 * then one barrier at the start, the only one), scans in registers with shuffles, publishes its
 * aggregate, looks back itself (K status words per lane: a window of 32*K tiles per step), then
 * publishes its inclusive prefix and stores. Status words: 64 bits, tag (epoch) and value packed.
 * LD 0: volatile loads and stores (system scope); LD 1: ld.relaxed.gpu / st.relaxed.gpu;
 * LD 2: as 1, with a __nanosleep back-off while a window is not ready.
 * Reset: the counter is cleared each launch (cudaMemsetAsync), status words carry the epoch.
 * Block-tile kernels (`b...`, `c...`): the solution's one tile per block; `c` adds where the status
 * words live (SP) and how a window with an unpublished tile is handled (PC); see lookback2().
 * Pipelined kernel (`p...`): see pwKernel. LD 9: no look-back at all (wrong sums; a ceiling).
 * Cache hints by size, as the solution: evict-first loads when in + out exceed L2, __ldg
 * otherwise; stores evict-first.
 */
namespace placement {

/* One status word per lane (window of 32). PC 1: when a tile in the window has not published yet,
 * still add the aggregates nearer than it and move the window to start there (PC 0: poll the same
 * window again). SP: where tile t's word lives: 0 status[t]; 1 status[4t] (one 32-byte sector per
 * tile); 2 status[(t % 16) * stride + t / 16] (neighbouring tiles in lines far apart). */
template <int SP>
__device__ __forceinline__ size_t stIdx(unsigned long long t, size_t stride) {
  return SP == 0 ? t : SP == 1 ? 4 * t : (t & 15) * stride + (t >> 4);
}
template <int LD, int PC, int SP>
__device__ __forceinline__ int lookback2(unsigned long long *status, size_t stride, unsigned tile, int agg,
                                         unsigned epoch, int lane) {
  const unsigned AGG = 2 * epoch, PRE = 2 * epoch + 1;
  if (tile == 0) {
    if (lane == 0) stStatus<LD>(status + stIdx<SP>(0, stride), PRE, agg);
    return 0;
  }
  if (lane == 0) stStatus<LD>(status + stIdx<SP>(tile, stride), AGG, agg);
  int excl = 0;
  long long end = (long long)tile - 1;
  while (true) {
    const long long j = end - lane;
    const unsigned long long w = j >= 0 ? ldStatus<LD>(status + stIdx<SP>(j, stride)) : ((unsigned long long)PRE << 32);
    const unsigned tag = (unsigned)(w >> 32);
    const unsigned bp = __ballot_sync(FULL, tag == PRE);
    const unsigned bi = __ballot_sync(FULL, tag != PRE && tag != AGG);
    const unsigned upto = bp ? (((bp & (0u - bp)) << 1) - 1u) : FULL;
    unsigned take;  // lanes whose values are added
    bool done = false;
    if (!(bi & upto)) {
      take = upto;
      done = bp != 0;
    } else {
      if (!PC) continue;
      take = (bi & (0u - bi)) - 1u;  // lanes nearer than the nearest unpublished one
      if (!take) {
        if (LD == 2) __nanosleep(64);
        continue;
      }
    }
    int v = ((take >> lane) & 1u) ? (int)(unsigned)w : 0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    excl += v;
    if (done) break;
    end -= __popc(take);
  }
  if (lane == 0) stStatus<LD>(status + stIdx<SP>(tile, stride), PRE, excl + agg);
  return excl;
}

/* The rows as the placement kernels load them: full tiles evict-first where in and out exceed the
 * L2 cache (stream), through the read-only path otherwise. */
template <int ROWS>
__device__ __forceinline__ void loadRowsBySize(int4 (&v)[ROWS], const int *in, size_t base, size_t n, bool full,
                                               bool stream) {
  if (full && stream) loadRows<ROWS, 1>(v, in, base, n, true);
  else loadRows<ROWS, 3>(v, in, base, n, full);
}

/* ---- warp-tile kernel ---------------------------------------------------------------------- */
template <int THREADS, int ITEMS, int ID, int K, int LD>
__global__ void __launch_bounds__(THREADS)
    wtKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter, unsigned epoch,
             bool stream, int vec) {
  constexpr int WARPS = THREADS / 32, ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)32 * ITEMS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned tile;
  if (ID == 0) {
    unsigned t = 0;
    if (lane == 0) t = atomicAdd(counter, 1u);
    tile = __shfl_sync(FULL, t, 0);
  } else {
    __shared__ unsigned s_first;
    if (threadIdx.x == 0) s_first = atomicAdd(counter, (unsigned)WARPS);
    __syncthreads();
    tile = s_first + warp;
  }
  const size_t start = (size_t)tile * TILE;
  if (start >= n) return;  // ID 1: the last block may draw ids past the end
  const size_t base = start + 4 * lane;
  const bool full = vec && start + TILE <= n;
  int4 v[ROWS];
  loadRowsBySize<ROWS>(v, in, base, n, full, stream);
  const int add = lookback<K, LD>(status, tile, scanRows(v, lane), epoch, lane);
  storeRows<ROWS, 1>(out, v, add, base, n, full);
}

/* ---- block-tile kernel of the solution (128 x 64), with the look-back LB ---------------------
 * Windowed<LD>: lookback's window of 32 status words, loaded per LD (kernels `b...`);
 * Placed<LD, PC, SP>: lookback2, where the words live and how an unpublished one is met (`c...`). */
template <int LD>
struct Windowed {
  static __device__ __forceinline__ int prefix(unsigned long long *status, size_t, unsigned tile, int agg,
                                               unsigned epoch, int lane) {
    return lookback<1, LD>(status, tile, agg, epoch, lane);
  }
};
template <int LD, int PC, int SP>
struct Placed {
  static __device__ __forceinline__ int prefix(unsigned long long *status, size_t stride, unsigned tile, int agg,
                                               unsigned epoch, int lane) {
    return lookback2<LD, PC, SP>(status, stride, tile, agg, epoch, lane);
  }
};

template <int THREADS, int ITEMS, class LB>
__global__ void __launch_bounds__(THREADS)
    btKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter, unsigned epoch,
             bool stream, int vec, size_t stride) {
  constexpr int WARPS = THREADS / 32, ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  __shared__ unsigned s_tile;
  __shared__ int s_warp[WARPS];
  __shared__ int s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const size_t base = (size_t)tile * TILE + (size_t)warp * (32 * ITEMS) + 4 * lane;
  const bool full = vec && (size_t)(tile + 1) * TILE <= n;
  int4 v[ROWS];
  loadRowsBySize<ROWS>(v, in, base, n, full, stream);
  int agg, wex;
  blockOffsets<WARPS>(scanRows(v, lane), s_warp, lane, warp, agg, wex);
  if (warp == 0) {
    int ex = LB::prefix(status, stride, tile, agg, epoch, lane);
    if (lane == 0) s_excl = ex;
  }
  __syncthreads();
  storeRows<ROWS, 1>(out, v, s_excl + wex, base, n, full);
}


/* ---- pipelined, warp-specialized kernel ------------------------------------------------------
 * Persistent blocks of 1 + W warps. Warps 1..W (data warps) hold two tiles in registers: they
 * load and scan tile X, publish its aggregate at once (named barrier 1 among data warps only),
 * then meet warp 0 at barrier 2 to collect the exclusive prefix of the tile held before (H),
 * store H, and go on with X as the held tile. Warp 0 holds no data: it looks back for the tile
 * handed over at each barrier 2 while the data warps load and scan the next one. A tile's
 * aggregate is published as soon as its data is scanned, never after a look-back. */
#define PW_SENT 0xffffffffu
__device__ __forceinline__ void barData(int count) { asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory"); }
__device__ __forceinline__ void barAll() { asm volatile("bar.sync 2;" ::: "memory"); }

struct PwShared {
  unsigned id[2];
  int wt[2][32];
  unsigned lb_tile[2];
  int lb_agg[2];
  int excl[2];
  unsigned first;
};

template <int W, int ITEMS, int LD>
__device__ __forceinline__ bool pwStage(int4 (&nw)[ITEMS / 4], int4 (&hd)[ITEMS / 4], unsigned &X, unsigned &H,
                                        int &hwex, int &p, PwShared &sh, const int *in, int *out, size_t n,
                                        unsigned long long *status, unsigned *counter, unsigned epoch, unsigned ntiles,
                                        bool stream, int vec, int lane, int dw) {
  constexpr int ROWS = ITEMS / 4;
  constexpr size_t TILE = (size_t)W * 32 * ITEMS;
  const bool have = X < ntiles;
  const size_t off = (size_t)dw * (32 * ITEMS) + 4 * lane;
  int carry = 0, wex = 0;
  if (have) {
    loadRowsBySize<ROWS>(nw, in, (size_t)X * TILE + off, n, vec && (size_t)(X + 1) * TILE <= n, stream);
    if (threadIdx.x == 32) sh.id[p] = atomicAdd(counter, 1u);
    carry = scanRows(nw, lane);
  } else if (threadIdx.x == 32) {
    sh.id[p] = PW_SENT;
  }
  if (lane == 0) sh.wt[p][dw] = carry;
  barData(W * 32);
  const unsigned Y = sh.id[p];
  {
    int agg;
    warpOffsets<W>(lane < W ? sh.wt[p][lane] : 0, lane, dw, agg, wex);
    if (threadIdx.x == 32) {
      if (have) {
        stStatus<LD>(status + X, 2 * epoch + (X == 0), agg);
        sh.lb_agg[p] = agg;
      }
      sh.lb_tile[p] = have ? X : PW_SENT;
    }
  }
  barAll();
  if (H != PW_SENT)
    storeRows<ROWS, 1>(out, hd, sh.excl[p ^ 1] + hwex, (size_t)H * TILE + off, n, vec && (size_t)(H + 1) * TILE <= n);
  H = have ? X : PW_SENT;
  hwex = wex;
  X = Y;
  p ^= 1;
  return have;
}

template <int W, int ITEMS, int LD>
__global__ void __launch_bounds__(32 * (W + 1))
    pwKernel(const int *in, int *out, size_t n, unsigned long long *status, unsigned *counter, unsigned epoch,
             unsigned ntiles, bool stream, int vec) {
  constexpr int ROWS = ITEMS / 4;
  __shared__ PwShared sh;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (warp == 0) {
    for (int j = 0;; j ^= 1) {
      barAll();
      const unsigned t = sh.lb_tile[j];
      if (t == PW_SENT) break;
      const int ex = lookback<1, LD, false>(status, t, sh.lb_agg[j], epoch, lane);
      if (lane == 0) sh.excl[j] = ex;
    }
    return;
  }
  const int dw = warp - 1;
  if (threadIdx.x == 32) sh.first = atomicAdd(counter, 1u);
  barData(W * 32);
  unsigned X = sh.first, H = PW_SENT;
  int hwex = 0, p = 0;
  int4 a[ROWS], b[ROWS];
  while (true) {
    if (!pwStage<W, ITEMS, LD>(a, b, X, H, hwex, p, sh, in, out, n, status, counter, epoch, ntiles, stream, vec,
                               lane, dw))
      break;
    if (!pwStage<W, ITEMS, LD>(b, a, X, H, hwex, p, sh, in, out, n, status, counter, epoch, ntiles, stream, vec,
                               lane, dw))
      break;
  }
}

/* ---- host ---------------------------------------------------------------------------------- */
struct State {
  unsigned long long *scratch = nullptr;  // word 0: counter; words 1..: status
  size_t cap = 0;                         // status words
  unsigned epoch = 0;
};
static State g_state;
static size_t g_l2 = 0;

static unsigned prepare(size_t ntiles) {
  if (ntiles > g_state.cap) {
    if (g_state.scratch) CK(cudaFree(g_state.scratch));
    CK(cudaMalloc(&g_state.scratch, (ntiles + 1) * 8));
    CK(cudaMemset(g_state.scratch, 0, (ntiles + 1) * 8));
    g_state.cap = ntiles;
    g_state.epoch = 0;
  }
  CK(cudaMemsetAsync(g_state.scratch, 0, 4, 0));
  return ++g_state.epoch;
}

/* Loads evict-first where input and output exceed the L2 cache. */
static bool streaming(size_t n) { return 2 * n * 4 > g_l2; }

typedef void (*launch_fn)(const int *, int *, size_t);

template <int THREADS, int ITEMS, int ID, int K, int LD>
void runWT(const int *in, int *out, size_t n) {
  constexpr size_t TILE = (size_t)32 * ITEMS, BT = TILE * (THREADS / 32);
  size_t ntiles = (n + TILE - 1) / TILE;
  if (!ntiles) return;
  size_t blocks = (n + BT - 1) / BT;
  unsigned epoch = prepare(blocks * (THREADS / 32));
  wtKernel<THREADS, ITEMS, ID, K, LD><<<(unsigned)blocks, THREADS>>>(
      in, out, n, g_state.scratch + 1, (unsigned *)g_state.scratch, epoch, streaming(n), aligned16(in, out));
  CK(cudaGetLastError());
}

/* SP as LB's (status words: one a tile, one a 32-byte sector, or 16 lines apart). */
template <int THREADS, int ITEMS, class LB, int SP = 0>
void runBT(const int *in, int *out, size_t n) {
  constexpr size_t TILE = (size_t)THREADS * ITEMS;
  size_t ntiles = (n + TILE - 1) / TILE;
  if (!ntiles) return;
  size_t stride = (ntiles + 15) / 16;
  unsigned epoch = prepare(SP == 0 ? ntiles : SP == 1 ? 4 * ntiles : 16 * stride);
  btKernel<THREADS, ITEMS, LB><<<(unsigned)ntiles, THREADS>>>(in, out, n, g_state.scratch + 1,
                                                             (unsigned *)g_state.scratch, epoch, streaming(n),
                                                             aligned16(in, out), stride);
  CK(cudaGetLastError());
}

template <int W, int ITEMS, int LD>
void runPW(const int *in, int *out, size_t n) {
  constexpr size_t TILE = (size_t)W * 32 * ITEMS;
  size_t ntiles = (n + TILE - 1) / TILE;
  if (!ntiles) return;
  static int grid_max = residentGrid((const void *)pwKernel<W, ITEMS, LD>, 32 * (W + 1));
  unsigned epoch = prepare(ntiles);
  unsigned grid = (unsigned)std::min<size_t>(ntiles, (size_t)grid_max);
  pwKernel<W, ITEMS, LD><<<grid, 32 * (W + 1)>>>(in, out, n, g_state.scratch + 1, (unsigned *)g_state.scratch,
                                                  epoch, (unsigned)ntiles, streaming(n), aligned16(in, out));
  CK(cudaGetLastError());
}

struct Config {
  std::string name;
  launch_fn fn;
  const void *kernel;
  int threads;
};
#define WT(T, I, ID, K, LD)                                                                     \
  Config{"w" #T "_i" #I "_id" #ID "_k" #K "_ld" #LD, runWT<T, I, ID, K, LD>,                    \
         (const void *)wtKernel<T, I, ID, K, LD>, T}
#define PW(W, I, LD) \
  Config{"p" #W "_i" #I "_ld" #LD, runPW<W, I, LD>, (const void *)pwKernel<W, I, LD>, 32 * (W + 1)}
#define BT2(T, I, LD, PC, SP)                                                                   \
  Config{"c" #T "_i" #I "_ld" #LD "_pc" #PC "_sp" #SP, runBT<T, I, Placed<LD, PC, SP>, SP>,          \
         (const void *)btKernel<T, I, Placed<LD, PC, SP>>, T}
#define BT(T, I, LD) \
  Config{"b" #T "_i" #I "_ld" #LD, runBT<T, I, Windowed<LD>>, (const void *)btKernel<T, I, Windowed<LD>>, T}

/* Run 1: warp tiles lost at every size (best w128_i64_id1 0.775 of copy at 2^28, block tiles 0.83),
 * smaller warp tiles worse, 4 words per lane much worse; relaxed.gpu = volatile. Run 2: pipelined
 * warp-specialized blocks, bigger block tiles, and the block kernel without look-back (ceiling). */
[[maybe_unused]] static std::vector<Config> configs1() {
  return {BT(128, 64, 0),         BT(128, 64, 1),         BT(128, 64, 2),
          WT(128, 16, 0, 1, 0),   WT(128, 16, 0, 1, 1),   WT(128, 32, 0, 1, 0),   WT(128, 32, 0, 1, 1),
          WT(128, 64, 0, 1, 1),   WT(256, 32, 0, 1, 1),   WT(256, 16, 0, 1, 1),   WT(128, 32, 1, 1, 1),
          WT(256, 32, 1, 1, 1),   WT(128, 16, 1, 1, 1),   WT(128, 32, 0, 4, 1),   WT(128, 16, 0, 4, 1),
          WT(128, 32, 0, 1, 2),   WT(128, 16, 0, 1, 2),   WT(128, 24, 0, 1, 1),   WT(128, 48, 0, 1, 1),
          WT(64, 32, 0, 1, 1),    WT(128, 64, 1, 1, 1),   WT(128, 32, 1, 4, 2)};
}
/* Run 2: the pipelined warp-specialized kernel is correct but slower (best p8_i32 0.82 at 2^28);
 * bigger block tiles no better; without the look-back the block kernel moves 0.99 of copy.
 * Run 3: where the status words live, and adding the aggregates nearer than an unpublished tile.
 * Padding each word to a 32-byte sector (sp1) won: 0.936 of copy at 2^28, 1.16 x CUB. Next run
 * (not yet made): the solution's form, volatile status words with the padding (c..._ld0_pc0_sp1). */
static std::vector<Config> configs() {
  return {BT2(128, 64, 0, 0, 1),    BT(128, 64, 0),           BT(128, 64, 1),           BT2(128, 64, 1, 0, 0),    BT2(128, 64, 1, 1, 0),
          BT2(128, 64, 1, 0, 1),    BT2(128, 64, 1, 0, 2),    BT2(128, 64, 1, 1, 1),    BT2(128, 64, 1, 1, 2),
          BT2(128, 64, 2, 1, 2),    BT2(256, 32, 1, 1, 2),    BT2(256, 48, 1, 1, 2),    BT2(128, 32, 1, 1, 2),
          BT2(128, 64, 0, 1, 2),    BT2(128, 64, 0, 0, 2),    BT(128, 64, 9)};
}
[[maybe_unused]] static std::vector<Config> configs2() {
  return {BT(128, 64, 0), BT(128, 64, 1), BT(128, 64, 9), BT(256, 64, 1), BT(128, 96, 1), BT(512, 32, 1),
          BT(256, 32, 9), WT(128, 64, 1, 1, 9),
          PW(4, 32, 1),   PW(4, 24, 1),   PW(4, 16, 1),   PW(8, 16, 1),  PW(8, 24, 1),  PW(8, 32, 1),
          PW(2, 32, 1),   PW(2, 48, 1),   PW(3, 32, 1),   PW(6, 16, 1),  PW(4, 32, 0),  PW(4, 32, 2)};
}

int run(int argc, char **argv) {
  int minlog = argc > 1 ? atoi(argv[1]) : 20;
  int maxlog = argc > 2 ? atoi(argv[2]) : 28;
  const char *only = argc > 3 ? argv[3] : nullptr;
  g_l2 = device().l2CacheSize;
  auto cfgs = configs();
  for (auto &c : cfgs) {
    if (only && c.name != only) continue;
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, c.kernel));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.threads, 0));
    printf("# %s regs %d blocks/SM %d warps/SM %d\n", c.name.c_str(), a.numRegs, blocks, blocks * c.threads / 32);
  }
  const Buffers b = buffers((size_t)1 << maxlog);
  printf("# columns: R log2n config us frac_copy x_cub (x_cub > 1: faster than CUB)\n");
  /* sizes: every power of two, plus an odd size (not a multiple of any tile) and an unaligned one */
  for (int lg = minlog; lg <= maxlog; lg++) {
    for (int shape = 0; shape < (lg == minlog ? 3 : 1); shape++) {
      size_t n = ((size_t)1 << lg) - (shape == 1 ? 37 : 0);
      int off = shape == 2 ? 1 : 0;  // misaligned by 4 bytes: the scalar path
      if (shape == 2) n -= 1;
      const int *in = b.in + off;
      int *out = b.out + off;
      fillKernel<<<1024, 256>>>(b.in, n + off, 12345u + lg + 7 * shape);
      CK(cudaGetLastError());
      cubScan(b, in, b.ref, n);
      CK(cudaDeviceSynchronize());
      Baseline base = {0, 0};
      if (shape == 0) base = baseline(b, in, out, n, lg);
      for (auto &c : cfgs) {
        if (only && c.name != only) continue;
        CK(cudaMemset(b.out, 0xEF, (n + off) * 4));
        c.fn(in, out, n);
        c.fn(in, out, n);
        CK(cudaDeviceSynchronize());
        unsigned long long bad = countDiff(b.ref, out, n, b.count);
        if (bad) printf("# %s n=%zu off=%d: %llu mismatches WRONG\n", c.name.c_str(), n, off, bad);
        if (shape != 0) continue;
        double t = timeMedian([&] { c.fn(in, out, n); }, WARM, REPS);
        printf("R %d %s %.2f %.3f %.3f%s\n", lg, c.name.c_str(), t * 1e3, base.copy / t, base.cub / t,
               bad ? " WRONG" : "");
      }
      if (shape == 0) baseline(b, in, out, n, lg, &base);
      fflush(stdout);
    }
  }
  return 0;
}
}  // namespace placement

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "shapes")) return shapes::run(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "placement")) return placement::run(argc - 1, argv + 1);
  fprintf(stderr,
          "usage: %s shapes [max_log2_n] [config] [reset mode] [min_log2_n]\n"
          "       %s placement [min_log2_n] [max_log2_n] [config]\n",
          argv[0], argv[0]);
  return 2;
}
