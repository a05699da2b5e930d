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
  /* TODO(lab08): lab 05's lookbackWarp, with one change: tile 0's exclusive prefix is `first`
   * (it publishes first + aggregate as its PREFIX at once and returns first). Every other tile
   * publishes its AGGREGATE, looks back over the 32 tiles before `end` with statusLoad(),
   * __ballot_sync() and __shfl_xor_sync() until it meets a PREFIX, publishes its own PREFIX and
   * returns its exclusive prefix. There are no epochs here: the status memory is zeroed before
   * every launch, so a zero word is INVALID. */
  (void)status, (void)tile, (void)aggregate, (void)first;
  return 0;
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
  /* TODO(lab08): lab 05's scanLookbackKernel (inclusive), with one change: warp 0 of the block
   * that holds tile 0 passes `*carry` to lookbackWarp() as `first` (read on the device: the host
   * never learns the carry); every other tile passes 0. Draw tile ids from `counter`, load the
   * tile (16-byte vectors when `in` and `out` allow it, __ldcs when `stream`), scan it, look back,
   * store, draw again. */
  (void)in, (void)out, (void)n, (void)carry, (void)status, (void)counter, (void)stream;
  (void)lookbackWarp; /* here only to keep the compiler quiet until you call it */
  /* STUDENT-END(lab08) */
}

void scanIncCarry(const int32_t *in, int32_t *out, size_t n, const int32_t *carry, void *status,
                  cudaStream_t stream) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): for n > 0: zero the counter and one status word a tile (MG_SCAN_TILE
   * elements) with cudaMemsetAsync on `stream` (word 0 of `status` is the counter, the tiles'
   * words follow), then launch scanCarryKernel on `stream` with as many blocks as fit on the GPU
   * at once (residentBlocks()), no more than there are tiles. Never wait for the stream. */
  (void)in, (void)out, (void)n, (void)carry, (void)status, (void)stream;
  (void)scanCarryKernel; /* here only to keep the compiler quiet until you launch it */
  /* STUDENT-END(lab08) */
}

/* ==== Part 2: scans across ranks ============================================================ */

/** Threads of the small kernels (reduction, propagation). */
#define MG_SMALL_THREADS 256

/** `*total` = the sum of `in[0 .. n)` (zeroed before the launch); any grid. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    reduceKernel(const int32_t *in, size_t n, int32_t *total) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): a grid-stride sum of in[0 .. n): each thread sums its elements (16-byte
   * loads when `in` is aligned), the warp and then the block add theirs up, and one thread of
   * each block adds the block's sum to *total with atomicAdd. */
  (void)in, (void)n, (void)total;
  /* STUDENT-END(lab08) */
}

/** `*carry` = the sum of `gathered[0 .. rank)`: the totals of the lower ranks. One thread. */
static __global__ void carryKernel(const int32_t *gathered, int rank, int32_t *carry) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): *carry = gathered[0] + ... + gathered[rank - 1] (0 for rank 0). */
  (void)gathered, (void)rank, (void)carry;
  /* STUDENT-END(lab08) */
}

/** `out[i] += carry` for every i, the carry summed from @p gathered by each block itself. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    addCarryKernel(int32_t *out, size_t n, const int32_t *gathered, int rank) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): each thread sums gathered[0 .. rank) (a few words, read from the L2 cache)
   * and adds the sum to its elements, grid-stride. */
  (void)out, (void)n, (void)gathered, (void)rank;
  /* STUDENT-END(lab08) */
}

/** `*dst = n ? src[n - 1] : 0`: a scanned shard's total. One thread. */
static __global__ void lastKernel(const int32_t *src, size_t n, int32_t *dst) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): *dst = the last element of the scanned shard, or 0 for an empty one. */
  (void)src, (void)n, (void)dst;
  /* STUDENT-END(lab08) */
}

/** Blocks of the small kernels: enough to fill the GPU, no more than the work needs. */
static __attribute__((unused)) unsigned smallGrid(size_t n) {
  const size_t need = tilesOf(n, MG_SMALL_THREADS * 8);
  return need < 1 ? 1 : need > 4096 ? 4096 : (unsigned)need;
}

void scanShardsPropagate(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): scan-then-propagate. Take small words from rank->scratch (a zero carry, the
   * shard's total, MG_RANKS_MAX words for the gathered totals) and the status memory after
   * MG_WORDS_BYTES; on rank->stream:
   *   1. scanIncCarry(in, out, n, zero, status, rank->stream), the zero set with cudaMemsetAsync;
   *   2. lastKernel: the shard's total;
   *   3. ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream);
   *   4. addCarryKernel: add the lower ranks' totals to every element (for n > 0).
   * Every rank calls the all-gather, an empty shard's too. */
  (void)rank, (void)in, (void)out, (void)n;
  (void)addCarryKernel, (void)lastKernel; /* here only to keep the compiler quiet */
  /* STUDENT-END(lab08) */
}

void scanShardsReduceThenScan(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): reduce-then-scan, on rank->stream:
   *   1. zero a total word (cudaMemsetAsync), reduceKernel into it (for n > 0);
   *   2. ncclAllGather of the total, one int32 a rank;
   *   3. carryKernel: the lower ranks' totals summed into a carry word, on the device;
   *   4. scanIncCarry(in, out, n, carry, status, rank->stream).
   * No host waits: the all-gather and the kernels are ordered by the stream alone. */
  (void)rank, (void)in, (void)out, (void)n;
  (void)reduceKernel, (void)carryKernel; /* here only to keep the compiler quiet */
  /* STUDENT-END(lab08) */
}

/* ==== Part 3: compaction across ranks ======================================================= */

/** `*count` = how many of `in[0 .. n)` are greater than @p pivot (zeroed before); any grid. */
static __global__ void __launch_bounds__(MG_SMALL_THREADS)
    countKernel(const int32_t *in, size_t n, int32_t pivot, unsigned long long *count) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): a grid-stride count of the elements greater than pivot; each warp adds its
   * count to *count with one atomicAdd. */
  (void)in, (void)n, (void)pivot, (void)count;
  /* STUDENT-END(lab08) */
}

/** `where[0]` = the sum of `counts[0 .. rank)`, `where[1]` = the sum of all @p size. One thread. */
static __global__ void whereKernel(const int64_t *counts, int rank, int size, int64_t *where) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): where[0] = counts[0] + ... + counts[rank - 1]; where[1] = the sum of all
   * size counts. */
  (void)counts, (void)rank, (void)size, (void)where;
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
  /* TODO(lab08): the single pass again, over kept counts: draw a tile id; each thread counts
   * the kept elements of its MG_COMPACT_ITEMS consecutive elements; scan the counts across the
   * block (scanIncWarp, then the warp totals); warp 0 looks back with lookbackWarp(..., 0); each
   * thread writes its kept elements, in order, from the tile's offset plus the counts before
   * it; draw again. */
  (void)in, (void)out, (void)n, (void)pivot, (void)status, (void)counter;
  /* STUDENT-END(lab08) */
}

void compactShards(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n, int32_t pivot,
                   int64_t *where) {
  /* STUDENT-BEGIN(lab08) */
  /* TODO(lab08): compaction across ranks, exchanging only counts, on rank->stream:
   *   1. count this shard's elements above the pivot into a 64-bit word (countKernel);
   *   2. ncclAllGather the counts (ncclInt64), then whereKernel writes where[0] and where[1];
   *   3. compact the shard into out with compactKernel (zero its status words first).
   * Every rank calls the all-gather, an empty shard's too. */
  (void)rank, (void)in, (void)out, (void)n, (void)pivot, (void)where;
  (void)countKernel, (void)whereKernel, (void)compactKernel; /* here only to keep the compiler quiet */
  /* STUDENT-END(lab08) */
}
