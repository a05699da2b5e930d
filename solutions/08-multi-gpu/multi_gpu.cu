/**
 * @file multi_gpu.cu
 * @brief Lab 08: lab 05's single pass with a carry from device memory, and scans and a
 *        compaction of an array spread over several GPUs, with NCCL's all-gather.
 *
 * Your code goes between the STUDENT-BEGIN(lab08) and STUDENT-END(lab08) markers; everything
 * else (the warp scan, the status words) is given. Start the look-back from your lab 05 file.
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "multi_gpu.h"
#include "cuda_check.h"

static_assert(MG_SCAN_ITEMS % 4 == 0, "the single pass moves its elements 4 at a time");

/** All 32 lanes of a warp. */
#define FULL_MASK 0xffffffffu
/** A given device helper: inlined, and no "unused" warning while the skeleton does not call it. */
#define MG_HELPER static __device__ __forceinline__ __attribute__((unused))

/* ---- given: the warp scan of lab 04 ------------------------------------------------------- */

/** Inclusive sum across the 32 lanes of a warp with shuffles. Every lane must call it. */
MG_HELPER int32_t scanIncWarp(int32_t x) {
  const int lane = threadIdx.x % MG_WARP;
#pragma unroll
  for (int d = 1; d < MG_WARP; d *= 2) {
    const int32_t y = __shfl_up_sync(FULL_MASK, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

/* ---- given: status words of the single pass (lab 05's, one launch a memset) ---------------- */

/* A tile's status word: a flag in the high 32 bits, a value in the low 32 bits, written with one
 * 64-bit store and read with one 64-bit load, each alone in a 32-byte sector. The status memory
 * is zeroed (cudaMemsetAsync on the rank's stream) before every launch, so a zero word is
 * INVALID and no epoch is needed. */
#define MG_FLAG_INVALID 0u   /**< nothing published yet */
#define MG_FLAG_AGGREGATE 1u /**< value = the sum of this tile alone */
#define MG_FLAG_PREFIX 2u    /**< value = the carry, this tile and every tile before it */

/** One tile's status word, alone in a 32-byte sector. */
typedef struct __align__(32) {
  unsigned long long word;
  unsigned long long unused[3];
} mg_status;

/** Publishes @p flag and @p value, in one store. */
MG_HELPER void statusStore(mg_status *status, unsigned flag, int32_t value) {
  *(volatile unsigned long long *)&status->word = ((unsigned long long)flag << 32) | (uint32_t)value;
}
/** Reads a status word, in one load. */
MG_HELPER unsigned long long statusLoad(const mg_status *status) {
  return *(const volatile unsigned long long *)&status->word;
}
/** The flag of a word. */
MG_HELPER unsigned statusFlag(unsigned long long word) { return (unsigned)(word >> 32); }
/** The value of a word. */
MG_HELPER int32_t statusValue(unsigned long long word) { return (int32_t)(uint32_t)word; }

/** Tiles of @p tile elements that @p n elements make. */
static size_t tilesOf(size_t n, size_t tile) { return (n + tile - 1) / tile; }

/** Blocks of @p kernel with @p threads threads that fit on the current GPU at once. */
template <typename K>
static unsigned residentBlocks(K kernel, int threads) {
  int dev = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return (unsigned)((sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1));
}

/* ==== Part 1: the single pass with a carry ================================================== */

/**
 * Called by all 32 lanes of warp 0 once the block knows its tile's @p aggregate: publishes it,
 * finds the tile's exclusive prefix by looking back over the tiles before it, publishes the
 * inclusive prefix, and returns the exclusive prefix in every lane. Tile 0's exclusive prefix is
 * @p first (the carry; 0 for a compaction).
 */
static __device__ int32_t lookbackWarp(mg_status *status, unsigned tile, int32_t aggregate, int32_t first) {
  /* STUDENT-BEGIN(lab08) */
  const int lane = threadIdx.x % MG_WARP;
  if (tile == 0) {
    if (lane == 0) statusStore(&status[0], MG_FLAG_PREFIX, first + aggregate);
    return first;
  }
  if (lane == 0) statusStore(&status[tile], MG_FLAG_AGGREGATE, aggregate);
  int32_t exclusive = 0;
  long long end = (long long)tile - 1; /* the nearest tile not summed yet */
  for (;;) {
    const long long j = end - lane;
    unsigned flag = MG_FLAG_PREFIX; /* before tile 0: a prefix of `first`, already in tile 0's */
    int32_t value = 0;
    if (j >= 0) {
      const unsigned long long word = statusLoad(&status[j]);
      flag = statusFlag(word);
      value = statusValue(word);
    }
    const unsigned prefix_lanes = __ballot_sync(FULL_MASK, flag == MG_FLAG_PREFIX);
    const unsigned invalid_lanes = __ballot_sync(FULL_MASK, flag == MG_FLAG_INVALID);
    const unsigned upto = prefix_lanes ? ((prefix_lanes & (0u - prefix_lanes)) << 1) - 1u : FULL_MASK;
    if (invalid_lanes & upto) continue; /* a tile in between has not published yet */
    int32_t v = (upto >> lane) & 1u ? value : 0;
#pragma unroll
    for (int o = MG_WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(FULL_MASK, v, o);
    exclusive += v;
    if (prefix_lanes) break;
    end -= MG_WARP;
  }
  if (lane == 0) statusStore(&status[tile], MG_FLAG_PREFIX, exclusive + aggregate);
  return exclusive;
  /* STUDENT-END(lab08) */
}

/**
 * The single pass of lab 05 (tile ids drawn from @p counter, a resident grid), with tile 0
 * starting from `*carry`. @p status has one word per tile, all zero at launch, as is @p counter.
 */
static __global__ void __launch_bounds__(MG_SCAN_THREADS)
    scanCarryKernel(const int32_t *in, int32_t *out, size_t n, const int32_t *carry, mg_status *status,
                    unsigned *counter, bool stream) {
  /* STUDENT-BEGIN(lab08) */
  constexpr int WARPS = MG_SCAN_THREADS / MG_WARP, ROWS = MG_SCAN_ITEMS / 4;
  __shared__ unsigned s_tile_id;
  __shared__ int32_t s_warp[WARPS];
  __shared__ int32_t s_exclusive;
  const int lane = threadIdx.x % MG_WARP, warp = threadIdx.x / MG_WARP;
  const size_t tiles = (n + MG_SCAN_TILE - 1) / MG_SCAN_TILE;
  if (threadIdx.x == 0) s_tile_id = atomicAdd(counter, 1u);
  __syncthreads();
  for (unsigned tile = s_tile_id; tile < tiles;) {
    const size_t base = (size_t)tile * MG_SCAN_TILE + (size_t)warp * (MG_WARP * MG_SCAN_ITEMS) + 4 * lane;
    const bool vec = (((uintptr_t)in | (uintptr_t)out) & 15) == 0;
    const bool full = vec && (size_t)(tile + 1) * MG_SCAN_TILE <= n;
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
    int32_t lane_total[ROWS], row_scan[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      v[r].y += v[r].x;
      v[r].z += v[r].y;
      v[r].w += v[r].z;
      lane_total[r] = row_scan[r] = v[r].w;
    }
#pragma unroll
    for (int d = 1; d < MG_WARP; d *= 2) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const int32_t y = __shfl_up_sync(FULL_MASK, row_scan[r], d);
        if (lane >= d) row_scan[r] += y;
      }
    }
    int32_t run = 0;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const int32_t add = run + row_scan[r] - lane_total[r];
      v[r].x += add;
      v[r].y += add;
      v[r].z += add;
      v[r].w += add;
      run += __shfl_sync(FULL_MASK, row_scan[r], MG_WARP - 1);
    }
    if (lane == 0) s_warp[warp] = run;
    __syncthreads();
    const int32_t wt = lane < WARPS ? s_warp[lane] : 0;
    const int32_t ws = scanIncWarp(wt);
    const int32_t aggregate = __shfl_sync(FULL_MASK, ws, WARPS - 1);
    const int32_t warp_offset = __shfl_sync(FULL_MASK, ws - wt, warp);
    if (warp == 0) {
      /* the carry is read by tile 0 alone, on the device: no host ever learns it */
      const int32_t exclusive = lookbackWarp(status, tile, aggregate, tile == 0 ? *carry : 0);
      if (lane == 0) s_exclusive = exclusive;
    }
    __syncthreads();
    unsigned next = 0;
    if (threadIdx.x == 0) next = atomicAdd(counter, 1u);
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
    if (threadIdx.x == 0) s_tile_id = next;
    __syncthreads();
    tile = s_tile_id;
  }
  /* STUDENT-END(lab08) */
}

void scanIncCarry(const int32_t *in, int32_t *out, size_t n, const int32_t *carry, void *status,
                  cudaStream_t stream) {
  /* STUDENT-BEGIN(lab08) */
  if (n == 0) return;
  const size_t tiles = tilesOf(n, MG_SCAN_TILE);
  mg_status *words = (mg_status *)status; /* word 0: the tile counter; then one a tile */
  CUDA_CHECK(cudaMemsetAsync(words, 0, (tiles + 1) * sizeof(mg_status), stream));
  int dev = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const bool streaming = 2 * n * sizeof(int32_t) > (size_t)l2;
  const unsigned grid = residentBlocks(scanCarryKernel, MG_SCAN_THREADS);
  scanCarryKernel<<<tiles < grid ? (unsigned)tiles : grid, MG_SCAN_THREADS, 0, stream>>>(
      in, out, n, carry, words + 1, (unsigned *)words, streaming);
  CUDA_CHECK_LAUNCH();
  /* STUDENT-END(lab08) */
}

/* ==== Part 2: scans across ranks ============================================================ */

/** Threads of the small kernels (reduction, propagation). */
#define MG_SMALL_THREADS 256

/** `*total` = the sum of `in[0 .. n)` (zeroed before the launch); any grid. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    reduceKernel(const int32_t *in, size_t n, int32_t *total) {
  /* STUDENT-BEGIN(lab08) */
  __shared__ int32_t s_warp[MG_SMALL_THREADS / MG_WARP];
  int32_t sum = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const bool vec = ((uintptr_t)in & 15) == 0;
  if (vec) { /* 16-byte loads over the whole vectors, then the tail */
    const int4 *v = reinterpret_cast<const int4 *>(in);
    for (size_t k = i; k < n / 4; k += stride) {
      const int4 x = __ldcs(v + k);
      sum += x.x + x.y + x.z + x.w;
    }
    for (size_t k = n / 4 * 4 + i; k < n; k += stride) sum += in[k];
  } else {
    for (; i < n; i += stride) sum += in[i];
  }
#pragma unroll
  for (int o = MG_WARP / 2; o > 0; o /= 2) sum += __shfl_xor_sync(FULL_MASK, sum, o);
  if (threadIdx.x % MG_WARP == 0) s_warp[threadIdx.x / MG_WARP] = sum;
  __syncthreads();
  if (threadIdx.x < MG_WARP) {
    int32_t s = threadIdx.x < MG_SMALL_THREADS / MG_WARP ? s_warp[threadIdx.x] : 0;
#pragma unroll
    for (int o = MG_WARP / 2; o > 0; o /= 2) s += __shfl_xor_sync(FULL_MASK, s, o);
    if (threadIdx.x == 0) atomicAdd(total, s);
  }
  /* STUDENT-END(lab08) */
}

/** `*carry` = the sum of `gathered[0 .. rank)`: the totals of the lower ranks. One thread. */
static __global__ void carryKernel(const int32_t *gathered, int rank, int32_t *carry) {
  /* STUDENT-BEGIN(lab08) */
  int32_t c = 0;
  for (int r = 0; r < rank; r++) c += gathered[r];
  *carry = c;
  /* STUDENT-END(lab08) */
}

/** `out[i] += carry` for every i, the carry summed from @p gathered by each block itself. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    addCarryKernel(int32_t *out, size_t n, const int32_t *gathered, int rank) {
  /* STUDENT-BEGIN(lab08) */
  int32_t c = 0;
  for (int r = 0; r < rank; r++) c += gathered[r];
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] += c;
  /* STUDENT-END(lab08) */
}

/** `*dst = n ? src[n - 1] : 0`: a scanned shard's total. One thread. */
static __global__ void lastKernel(const int32_t *src, size_t n, int32_t *dst) {
  /* STUDENT-BEGIN(lab08) */
  *dst = n ? src[n - 1] : 0;
  /* STUDENT-END(lab08) */
}

/** Blocks of the small kernels: enough to fill the GPU, no more than the work needs. */
static __attribute__((unused)) unsigned smallGrid(size_t n) {
  const size_t need = tilesOf(n, MG_SMALL_THREADS * 8);
  return need < 1 ? 1 : need > 4096 ? 4096 : (unsigned)need;
}

void scanShardsPropagate(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab08) */
  int32_t *words = (int32_t *)rank->scratch;
  int32_t *zero = words, *total = words + 1, *gathered = words + MG_RANKS_MAX;
  void *status = (char *)rank->scratch + MG_WORDS_BYTES;
  CUDA_CHECK(cudaMemsetAsync(zero, 0, sizeof(int32_t), rank->stream));
  scanIncCarry(in, out, n, zero, status, rank->stream);              /* 1: scan the shard */
  lastKernel<<<1, 1, 0, rank->stream>>>(out, n, total);              /* 2: its total */
  CUDA_CHECK_LAUNCH();
  if (ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)
    fprintf(stderr, "scanShardsPropagate: ncclAllGather failed on rank %d\n", rank->rank);
  if (n) {                                                          /* 3: add the carry */
    addCarryKernel<<<smallGrid(n), MG_SMALL_THREADS, 0, rank->stream>>>(out, n, gathered, rank->rank);
    CUDA_CHECK_LAUNCH();
  }
  /* STUDENT-END(lab08) */
}

void scanShardsReduceThenScan(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab08) */
  int32_t *words = (int32_t *)rank->scratch;
  int32_t *total = words, *carry = words + 1, *gathered = words + MG_RANKS_MAX;
  void *status = (char *)rank->scratch + MG_WORDS_BYTES;
  CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(int32_t), rank->stream));
  if (n) {                                                          /* 1: reduce the shard */
    reduceKernel<<<smallGrid(n), MG_SMALL_THREADS, 0, rank->stream>>>(in, n, total);
    CUDA_CHECK_LAUNCH();
  }
  if (ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)
    fprintf(stderr, "scanShardsReduceThenScan: ncclAllGather failed on rank %d\n", rank->rank);
  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */
  CUDA_CHECK_LAUNCH();
  scanIncCarry(in, out, n, carry, status, rank->stream);             /* 3: scan from it */
  /* STUDENT-END(lab08) */
}

/* ==== Part 3: compaction across ranks ======================================================= */

/** `*count` = how many of `in[0 .. n)` are greater than @p pivot (zeroed before); any grid. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    countKernel(const int32_t *in, size_t n, int32_t pivot, unsigned long long *count) {
  /* STUDENT-BEGIN(lab08) */
  unsigned c = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c += in[i] > pivot;
#pragma unroll
  for (int o = MG_WARP / 2; o > 0; o /= 2) c += __shfl_xor_sync(FULL_MASK, c, o);
  if (threadIdx.x % MG_WARP == 0 && c) atomicAdd(count, (unsigned long long)c);
  /* STUDENT-END(lab08) */
}

/** `where[0]` = the sum of `counts[0 .. rank)`, `where[1]` = the sum of all @p size. One thread. */
static __global__ void whereKernel(const int64_t *counts, int rank, int size, int64_t *where) {
  /* STUDENT-BEGIN(lab08) */
  int64_t before = 0, all = 0;
  for (int r = 0; r < size; r++) {
    if (r < rank) before += counts[r];
    all += counts[r];
  }
  where[0] = before;
  where[1] = all;
  /* STUDENT-END(lab08) */
}

/**
 * The local compaction in one pass: tile ids from @p counter; each thread counts the kept
 * elements of its MG_COMPACT_ITEMS, the block scans the counts, warp 0 looks back for the tile's
 * offset (tile 0 from 0), and each kept element goes to its place in @p out.
 */
static __global__ void __launch_bounds__(MG_COMPACT_THREADS)
    compactKernel(const int32_t *in, int32_t *out, size_t n, int32_t pivot, mg_status *status,
                  unsigned *counter) {
  /* STUDENT-BEGIN(lab08) */
  constexpr int WARPS = MG_COMPACT_THREADS / MG_WARP;
  __shared__ unsigned s_tile_id;
  __shared__ int32_t s_warp[WARPS];
  __shared__ int32_t s_exclusive;
  const int lane = threadIdx.x % MG_WARP, warp = threadIdx.x / MG_WARP;
  const size_t tiles = (n + MG_COMPACT_TILE - 1) / MG_COMPACT_TILE;
  if (threadIdx.x == 0) s_tile_id = atomicAdd(counter, 1u);
  __syncthreads();
  for (unsigned tile = s_tile_id; tile < tiles;) {
    const size_t base = (size_t)tile * MG_COMPACT_TILE + (size_t)threadIdx.x * MG_COMPACT_ITEMS;
    int32_t x[MG_COMPACT_ITEMS];
    int32_t kept = 0;
#pragma unroll
    for (int k = 0; k < MG_COMPACT_ITEMS; k++) {
      x[k] = base + k < n ? in[base + k] : 0;
      kept += base + k < n && x[k] > pivot;
    }
    const int32_t inc = scanIncWarp(kept);
    if (lane == MG_WARP - 1) s_warp[warp] = inc;
    __syncthreads();
    const int32_t wt = lane < WARPS ? s_warp[lane] : 0;
    const int32_t ws = scanIncWarp(wt);
    const int32_t aggregate = __shfl_sync(FULL_MASK, ws, WARPS - 1);
    const int32_t warp_offset = __shfl_sync(FULL_MASK, ws - wt, warp);
    if (warp == 0) {
      const int32_t exclusive = lookbackWarp(status, tile, aggregate, 0);
      if (lane == 0) s_exclusive = exclusive;
    }
    __syncthreads();
    unsigned next = 0;
    if (threadIdx.x == 0) next = atomicAdd(counter, 1u);
    size_t pos = (size_t)(uint32_t)(s_exclusive + warp_offset + inc - kept);
#pragma unroll
    for (int k = 0; k < MG_COMPACT_ITEMS; k++)
      if (base + k < n && x[k] > pivot) out[pos++] = x[k];
    if (threadIdx.x == 0) s_tile_id = next;
    __syncthreads();
    tile = s_tile_id;
  }
  /* STUDENT-END(lab08) */
}

void compactShards(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n, int32_t pivot,
                   int64_t *where) {
  /* STUDENT-BEGIN(lab08) */
  unsigned long long *count = (unsigned long long *)rank->scratch;
  int64_t *counts = (int64_t *)rank->scratch + MG_RANKS_MAX;
  mg_status *status = (mg_status *)((char *)rank->scratch + MG_WORDS_BYTES);
  const size_t tiles = tilesOf(n, MG_COMPACT_TILE);
  CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, rank->stream));
  if (n) { /* 1: count this shard's kept elements */
    countKernel<<<smallGrid(n), MG_SMALL_THREADS, 0, rank->stream>>>(in, n, pivot, count);
    CUDA_CHECK_LAUNCH();
  }
  /* 2: every rank's count, then where this rank's elements go */
  if (ncclAllGather(count, counts, 1, ncclInt64, rank->comm, rank->stream) != ncclSuccess)
    fprintf(stderr, "compactShards: ncclAllGather failed on rank %d\n", rank->rank);
  whereKernel<<<1, 1, 0, rank->stream>>>(counts, rank->rank, rank->size, where);
  CUDA_CHECK_LAUNCH();
  if (n) { /* 3: compact the shard locally */
    CUDA_CHECK(cudaMemsetAsync(status, 0, (tiles + 1) * sizeof(mg_status), rank->stream));
    const unsigned grid = residentBlocks(compactKernel, MG_COMPACT_THREADS);
    compactKernel<<<tiles < grid ? (unsigned)tiles : grid, MG_COMPACT_THREADS, 0, rank->stream>>>(
        in, out, n, pivot, status + 1, (unsigned *)status);
    CUDA_CHECK_LAUNCH();
  }
  /* STUDENT-END(lab08) */
}
