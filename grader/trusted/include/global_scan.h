/**
 * @file global_scan.h
 * @brief Lab 05: block scans and scans of any length (`skeletons/05-global-scan/global_scan.cu`).
 *
 * Every scan here is a sum of 32-bit integers that wraps modulo 2^32, as the hardware adds.
 * Arrays are device pointers; element counts are `size_t`, and every function handles any
 * count from 0 up to what fits in device memory (more than 2^31 elements included).
 *
 * Worked example:
 *
 *     in        {3, 1, 7,  0,  4,  1,  6,  3}
 *     inclusive {3, 4, 11, 11, 15, 16, 22, 25}
 *     exclusive {0, 3, 4,  11, 11, 15, 16, 22}
 *
 * The lab builds each level from the one below:
 * 1. scanIncBlock(): a block of threads scans one value per thread, from warp scans;
 * 2. scanIncBlockAnyLength(): one block walks an array of any length tile by tile, carrying
 *    the running total from tile to tile;
 * 3. three scans of any length with many blocks:
 *    - (a) scanIncPropagate(): scan every tile, scan the tile totals (recursively when they do
 *      not fit in one tile), add each tile's offset to its elements;
 *    - (b) scanIncReduceThenScan(): reduce each block's range, scan the block totals, scan
 *      each range starting from its offset;
 *    - (c) scanIncLookback(): one pass; each tile publishes its total and then its inclusive
 *      prefix, and finds its own offset by looking back over its predecessors.
 *
 * All calls are asynchronous on the default stream, like a kernel launch. Temporary device
 * memory (tile totals, status words) belongs to this file: it is allocated on first use,
 * grown when a larger input needs more, kept between calls (so a timed call allocates
 * nothing) and freed by scanGlobalRelease(). Calls from several host threads at once are not
 * supported.
 */
#ifndef SCANLAB_GLOBAL_SCAN_H
#define SCANLAB_GLOBAL_SCAN_H

#include <stddef.h>
#include <stdint.h>

/** Threads in a warp. */
#define GS_WARP 32
/** Largest block that scanIncBlock() must handle (32 warps, so the warp totals fit one warp). */
#define GS_BLOCK_MAX 1024

/** Threads per block of scan-then-propagate (a). */
#define GS_PROPAGATE_THREADS 256
/** Consecutive elements each thread of (a) scans on its own before the block scan. */
#define GS_PROPAGATE_ITEMS 4
/** Elements per tile of (a): one block scans one tile. */
#define GS_PROPAGATE_TILE (GS_PROPAGATE_THREADS * GS_PROPAGATE_ITEMS)

/** Threads per block of the range scans: the any-length block scan and reduce-then-scan (b). */
#define GS_RANGE_THREADS 256
/** Consecutive elements each thread of a range scan handles per tile (its chunk). */
#define GS_RANGE_CHUNK 8
/** Elements per tile of a range scan, staged through shared memory. */
#define GS_RANGE_TILE (GS_RANGE_THREADS * GS_RANGE_CHUNK)
/** Most blocks reduce-then-scan (b) launches; each takes a contiguous range of whole tiles. */
#define GS_RTS_BLOCKS 1024

/** Threads per block of the single-pass scan (c). */
#define GS_LOOKBACK_THREADS 128
/** Elements per thread of the single-pass scan (c); a multiple of 4 (16-byte accesses). */
#define GS_LOOKBACK_ITEMS 64
/** Elements per tile of the single-pass scan (c). */
#define GS_LOOKBACK_TILE (GS_LOOKBACK_THREADS * GS_LOOKBACK_ITEMS)

#ifdef __cplusplus
#include <cuda_runtime.h>

/**
 * @brief Inclusive sum across the threads of a block: thread `t` returns `x_0 + ... + x_t`.
 *
 * Built from warp scans in four steps: (1) each warp scans its 32 values; (2) lane 31 of each
 * warp writes the warp's total to @p s_tmp; (3) warp 0 scans those totals; (4) every thread
 * of warp `w > 0` adds the scanned total of warp `w - 1`.
 *
 * Example with a block of 64 threads where every `x` is 1: thread 0 gets 1, thread 31 gets 32,
 * thread 32 gets 33 (32 from warp 0 plus its own 1), thread 63 gets 64; `*total` is 64.
 *
 * @param x     this thread's value
 * @param s_tmp shared memory of at least GS_WARP ints, scratch for the warp totals; free to
 *              reuse when the call returns (it ends with a barrier)
 * @param total if not NULL, receives the sum over the whole block, in every thread
 * @return the inclusive sum up to and including this thread
 *
 * Every thread of the block must call it (it contains barriers); the block size must be a
 * multiple of 32 and at most GS_BLOCK_MAX.
 */
__device__ int32_t scanIncBlock(int32_t x, int32_t *s_tmp, int32_t *total);

extern "C" {
#endif

/**
 * @brief Tile-wise block scan: block `b` scans elements `[b*block, (b+1)*block)` on its own
 * with scanIncBlock(), one element per thread; the last tile may be short.
 *
 * This exercises scanIncBlock() alone: the result is the tile-wise inclusive sum
 * (`ref_scan_inc_tiles_i32()`), not a scan of the whole array.
 *
 * @param d_in  @p n ints on the device
 * @param d_out @p n ints on the device; may equal @p d_in
 * @param n     element count
 * @param block threads per block: a multiple of 32 from 32 to GS_BLOCK_MAX (otherwise
 *              nothing is launched and a message is printed)
 */
void scanIncBlockTiles(const int32_t *d_in, int32_t *d_out, size_t n, int block);

/**
 * @brief Inclusive scan of any length by a single block of GS_RANGE_THREADS threads, tile by
 * tile (tiles of GS_RANGE_TILE elements), carrying the running total between tiles.
 *
 * @param d_in  @p n ints on the device
 * @param d_out @p n ints on the device; may equal @p d_in, must not overlap it otherwise
 * @param n     element count (0: nothing is launched)
 */
void scanIncBlockAnyLength(const int32_t *d_in, int32_t *d_out, size_t n);
/** Exclusive form of scanIncBlockAnyLength(): `out[0] = 0`. */
void scanExcBlockAnyLength(const int32_t *d_in, int32_t *d_out, size_t n);

/**
 * @brief (a) Scan-then-propagate: scan each tile of GS_PROPAGATE_TILE elements, scan the tile
 * totals (recursively while they span more than one tile), then add each tile's offset to its
 * elements. Moves about 16 bytes per element (read and write the array twice).
 *
 * @param d_in  @p n ints on the device
 * @param d_out @p n ints on the device; may equal @p d_in, must not overlap it otherwise
 * @param n     element count (0: nothing is launched)
 */
void scanIncPropagate(const int32_t *d_in, int32_t *d_out, size_t n);
/** Exclusive form of scanIncPropagate(). */
void scanExcPropagate(const int32_t *d_in, int32_t *d_out, size_t n);

/**
 * @brief (b) Reduce-then-scan: at most GS_RTS_BLOCKS blocks each reduce a contiguous range of
 * whole tiles, one block scans the range totals, then each block scans its range again from
 * its offset. Moves about 12 bytes per element (read twice, write once).
 *
 * Parameters as scanIncPropagate().
 */
void scanIncReduceThenScan(const int32_t *d_in, int32_t *d_out, size_t n);
/** Exclusive form of scanIncReduceThenScan(). */
void scanExcReduceThenScan(const int32_t *d_in, int32_t *d_out, size_t n);

/**
 * @brief (c) Single pass with decoupled look-back: tiles of GS_LOOKBACK_TILE elements, tile ids
 * drawn from an atomic counter, status words that pack a flag and a value in 64 bits. Moves
 * 8 bytes per element, as a copy does.
 *
 * Each call takes a tile counter that is still zero and launches one kernel: 64 counters sit at
 * the head of the scratch memory this file owns, call e uses counter (e - 1) % 64, and one
 * cudaMemsetAsync zeroes all 64 once every 64 calls, so most calls launch with no memset
 * before them. The status words are tagged with a launch number, so words left by an earlier
 * call read as "not yet published" and need no clearing.
 *
 * Parameters as scanIncPropagate().
 */
void scanIncLookback(const int32_t *d_in, int32_t *d_out, size_t n);
/** Exclusive form of scanIncLookback(). */
void scanExcLookback(const int32_t *d_in, int32_t *d_out, size_t n);

/** Frees the temporary device memory the scans keep between calls (safe to call any time). */
void scanGlobalRelease(void);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_GLOBAL_SCAN_H */
