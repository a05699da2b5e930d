/**
 * @file multi_gpu.h
 * @brief Lab 08: a scan of data spread over several GPUs, one shard a GPU, with NCCL
 *        (`skeletons/08-multi-gpu/multi_gpu.cu`).
 *
 * The array is cut into G **shards**, one a **rank**; rank r holds shard r on its own GPU, and
 * shard sizes may differ (an empty shard included). The scan of the whole array is each
 * shard's own scan plus the sum of every shard before it, the rank's **carry**. Every scan here
 * is an inclusive sum of 32-bit integers that wraps modulo 2^32, as the hardware adds.
 *
 * Worked example, G = 3:
 *
 *     shards       rank 0 {3, 1, 7}   rank 1 {}        rank 2 {0, 4, 1}
 *     totals              11                 0                5
 *     carries              0                11               11
 *     output       rank 0 {3, 4, 11}  rank 1 {}        rank 2 {11, 15, 16}
 *
 * Every rank runs the same function at the same time, each on its own host thread (or its own
 * process), with its own ScanRank. A rank learns the other ranks' totals only through NCCL's
 * collectives on its communicator; all ranks must call the same collectives in the same order.
 *
 * The lab builds three things:
 * 1. scanIncCarry(): lab 05's single pass, whose first tile starts from a carry read from device
 *    memory, so no host ever needs to know the carry;
 * 2. two scans across ranks: scanShardsPropagate() (scan, exchange totals, add the carry: 16
 *    bytes an element) and scanShardsReduceThenScan() (reduce, exchange totals, scan from the
 *    carry: 12 bytes an element);
 * 3. an application: compactShards(), which keeps the elements above a pivot and exchanges only
 *    counts.
 *
 * Rules, the same for every function: all device work goes on the rank's stream
 * (ScanRank::stream); the call returns without waiting for the device (no
 * cudaStreamSynchronize, cudaDeviceSynchronize, synchronous cudaMemcpy or cudaMemset, cudaFree);
 * temporary device memory comes from ScanRank::scratch, never from cudaMalloc; arrays are device
 * pointers of the rank's own GPU.
 */
#ifndef SCANLAB_MULTI_GPU_H
#define SCANLAB_MULTI_GPU_H

#include <stddef.h>
#include <stdint.h>

/** Threads in a warp. */
#define MG_WARP 32
/** Threads per block of the single pass (scanIncCarry()). */
#define MG_SCAN_THREADS 128
/** Elements per thread of the single pass; a multiple of 4 (16-byte accesses). */
#define MG_SCAN_ITEMS 64
/** Elements per tile of the single pass. */
#define MG_SCAN_TILE (MG_SCAN_THREADS * MG_SCAN_ITEMS)
/** Threads per block of the compaction (compactShards()). */
#define MG_COMPACT_THREADS 256
/** Consecutive elements each thread of the compaction handles. */
#define MG_COMPACT_ITEMS 8
/** Elements per tile of the compaction. */
#define MG_COMPACT_TILE (MG_COMPACT_THREADS * MG_COMPACT_ITEMS)
/** Most ranks a communicator of this lab has. */
#define MG_RANKS_MAX 64
/** Bytes at the head of ScanRank::scratch for small words (totals, the gathered totals, the
 *  carry): room for MG_RANKS_MAX 8-byte words, twice. */
#define MG_WORDS_BYTES 4096
/** Bytes of status memory scanIncCarry() and the compaction need for @p n elements: a counter
 *  and one 32-byte status word per tile of the smaller tile, MG_COMPACT_TILE. */
#define MG_STATUS_BYTES(n) ((((size_t)(n) + MG_COMPACT_TILE - 1) / MG_COMPACT_TILE + 1) * 32)
/** Bytes of ScanRank::scratch for a shard of @p n elements: the small words, then the status
 *  memory. */
#define MG_SCRATCH_BYTES(n) (MG_WORDS_BYTES + MG_STATUS_BYTES(n))

#ifdef __cplusplus
#include <cuda_runtime.h>
#include <nccl.h>

/**
 * @brief What a rank knows about itself, made by the kit before the call: the student's
 * functions read it and never change it.
 */
typedef struct {
  int rank;             /**< this rank, 0 .. size-1 */
  int size;             /**< the number of ranks, G */
  int device;           /**< this rank's CUDA device, already current on the calling thread */
  ncclComm_t comm;      /**< the communicator of all G ranks (made by the kit) */
  cudaStream_t stream;  /**< this rank's stream: every kernel, copy and collective goes on it */
  void *scratch;        /**< device memory of this rank's GPU, MG_SCRATCH_BYTES(n) bytes or
                             more, for this call alone; its contents are undefined at the start */
  size_t scratch_bytes; /**< its size */
} ScanRank;

extern "C" {

/**
 * @brief One GPU's single pass with a carry: `out[i] = *carry + in[0] + ... + in[i]`.
 *
 * Lab 05's scanIncLookback() with one change: the first tile's exclusive prefix is `*carry`,
 * read on the device by the kernel, not 0. Every launch and memset goes on @p stream; the
 * function returns without waiting for it.
 *
 * @param in      @p n ints on the device
 * @param out     @p n ints on the device; may equal @p in
 * @param n       element count (0: nothing is written, and @p carry need not be read)
 * @param carry   one int on the device, ready in stream order
 * @param status  MG_STATUS_BYTES(@p n) bytes of device memory, contents undefined on entry: the
 *                tile counter and the status words
 * @param stream  the stream all work goes on
 */
void scanIncCarry(const int32_t *in, int32_t *out, size_t n, const int32_t *carry, void *status,
                  cudaStream_t stream);

/**
 * @brief Scan-then-propagate across ranks: scan the shard from a carry of 0, all-gather the
 * shard totals (one int a rank), add the sum of the lower ranks' totals to every element.
 *
 * Moves 16 bytes an element (the scan reads and writes each, the propagation reads and writes
 * each again).
 * @param rank this rank
 * @param in   @p n ints on the rank's device (the shard)
 * @param out  @p n ints on the rank's device: the shard's part of the global inclusive scan
 * @param n    this shard's element count (0 is fine; shards differ in size)
 */
void scanShardsPropagate(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n);

/**
 * @brief Reduce-then-scan across ranks: reduce the shard to its total, all-gather the totals,
 * sum the lower ranks' totals into a carry on the device, then scanIncCarry() from it.
 *
 * Moves 12 bytes an element (the reduction reads each, the scan reads and writes each), the
 * least any scan of data already on the GPUs can move: no host waits, no host round trip.
 * Same parameters as scanShardsPropagate().
 */
void scanShardsReduceThenScan(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n);

/**
 * @brief Compaction across ranks: this rank keeps the elements of its shard greater than
 * @p pivot, in order, at the head of @p out, and learns where they go in the compaction of the
 * whole array, by exchanging only counts.
 *
 * @param rank  this rank
 * @param in    @p n ints on the rank's device
 * @param out   @p n ints on the rank's device: the kept elements first; the rest is not read
 * @param n     this shard's element count
 * @param pivot an element is kept when it is greater than @p pivot
 * @param where two 64-bit ints on the rank's device: `where[0]` receives the index of this rank's
 *              first kept element in the whole compacted array (the kept elements of all lower
 *              ranks), `where[1]` the number kept over all ranks
 */
void compactShards(const ScanRank *rank, const int32_t *in, int32_t *out, size_t n, int32_t pivot,
                   int64_t *where);

} /* extern "C" */
#endif /* __cplusplus */

#endif /* SCANLAB_MULTI_GPU_H */
