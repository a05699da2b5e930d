/**
 * @file kogge_stone.h
 * @brief Lab 02: the Kogge-Stone inclusive scans students write
 *        (`skeletons/02-kogge-stone/kogge_stone.cu`): one block in shared memory, with two
 *        barriers per step, then double-buffered with one; and a batched launch of tiles.
 *
 * A block of `B = blockDim.x` threads scans a **tile** of `B` consecutive ints, one element
 * per thread, in shared memory. Block `b` owns the tile that starts at element `b * B`; with
 * one block, that tile is the whole array. Thread `t` (element `i = b * B + t`):
 *
 * 1. loads `in[i]` into shared memory, or 0 (the identity of +) when `i >= n`;
 * 2. for `offset = 1, 2, 4, ...` while `offset < B`: adds the element `offset` places to its
 *    left (if `t >= offset`), so that after the step it holds the sum of the last
 *    `2 * offset` elements up to its own;
 * 3. stores its element to `out[i]` if `i < n`.
 *
 * That is `ceil(log2 B)` steps. Every thread of the block takes part in every step and every
 * barrier, including threads whose element is past `n`: a thread that returns early leaves
 * the others waiting at a barrier it never reaches.
 *
 * Worked example, one block of 8 threads (`offset` 1, 2, 4):
 *
 *     in          {3, 1, 7,  0,  4,  1,  6,  3}
 *     offset 1    {3, 4, 8,  7,  4,  5,  7,  9}
 *     offset 2    {3, 4, 11, 11, 12, 12, 11, 14}
 *     offset 4    {3, 4, 11, 11, 15, 16, 22, 25}   = the inclusive scan
 *
 * **Two forms of a step.**
 * - In place, one shared array (scanIncKoggeStoneKernel()): every thread first *reads* its
 *   left neighbour, then *writes* its own element. A barrier between the reads and the writes
 *   keeps a thread from overwriting a value another thread has yet to read; a barrier after
 *   the writes keeps the next step from reading a value not yet written. Two per step.
 * - Double-buffered, two shared arrays (scanIncKoggeStoneDBKernel()): each step reads one
 *   array and writes the other, and the next step swaps their roles. Nobody writes the array
 *   being read, so one barrier per step (after the writes) is enough.
 *
 * **Bad arguments.** The host functions check their arguments before launching. On a bad
 * one (`blockSize` outside 1..KS_MAX_BLOCK, or `n > blockSize` for the single-block forms)
 * they print one line to stderr naming the function and the problem, launch nothing and
 * return: the output is left as it was. `n == 0` is not an error: nothing is launched.
 *
 * Integer sums wrap modulo 2^32, as on every GPU (the tests keep them far from overflow).
 */
#ifndef SCANLAB_KOGGE_STONE_H
#define SCANLAB_KOGGE_STONE_H

#include <cuda_runtime.h>
#include <stddef.h>

/** Largest block size (threads per block) of every NVIDIA GPU the kit targets. */
#define KS_MAX_BLOCK 1024

/** @name Kernels (students write their bodies)
 *  @{ */

/**
 * @brief Kogge-Stone inclusive sum of the tile of block `blockIdx.x`, in place in one shared
 * array, with two barriers per step.
 *
 * Launch with `blockDim.x` threads and `blockDim.x * sizeof(int)` bytes of dynamic shared
 * memory. Block `b` reads `in[b*B .. b*B + B-1]` and writes the same range of @p out, both
 * clipped at @p n (`B = blockDim.x`).
 *
 * @param in  @p n device ints
 * @param out @p n device ints, not overlapping @p in; only `out[0..n-1]` may be written
 * @param n   number of elements of the whole array
 */
__global__ void scanIncKoggeStoneKernel(const int *in, int *out, size_t n);

/**
 * @brief As scanIncKoggeStoneKernel(), double-buffered: two shared arrays of `blockDim.x`
 * ints, read from one and written to the other, swapped after each step; one barrier per
 * step.
 *
 * Launch with `blockDim.x` threads and `2 * blockDim.x * sizeof(int)` bytes of dynamic
 * shared memory. Parameters as scanIncKoggeStoneKernel().
 */
__global__ void scanIncKoggeStoneDBKernel(const int *in, int *out, size_t n);
/** @} */

/** @name Host functions the tests call
 *  All pointers are device pointers; the functions return once the launch is queued (its
 *  configuration checked with CUDA_CHECK_LAUNCH()), not when the kernel has finished.
 *  @{ */

/**
 * @brief Inclusive sum of `d_in[0..n-1]` by one block of @p blockSize threads
 * (scanIncKoggeStoneKernel()).
 *
 * Example: `in {3,1,7,0,4,1,6,3}`, n = 8, blockSize = 8 (or any blockSize from 8 to 1024)
 * gives `{3,4,11,11,15,16,22,25}`.
 *
 * @param d_in      @p n device ints
 * @param d_out     @p n device ints, not overlapping @p d_in; nothing else is written
 * @param n         number of elements, 0 to @p blockSize
 * @param blockSize threads in the block, 1 to KS_MAX_BLOCK; need not be a power of two nor a
 *                  multiple of 32
 */
void scanIncKoggeStone(const int *d_in, int *d_out, size_t n, int blockSize);

/**
 * @brief As scanIncKoggeStone(), with the double-buffered kernel scanIncKoggeStoneDBKernel().
 *
 * Parameters as scanIncKoggeStone().
 */
void scanIncKoggeStoneDB(const int *d_in, int *d_out, size_t n, int blockSize);

/**
 * @brief Batched (tile-wise) inclusive sum: `ceil(n / blockSize)` blocks of the
 * double-buffered kernel, block `b` scanning the tile `d_in[b*blockSize .. b*blockSize +
 * blockSize-1]` on its own. The last tile may be short.
 *
 * Each output element is the sum of the elements of its own tile up to it, not of the whole
 * array: with blockSize = 4, `in {3,1,7,0,4,1,6,3,5}` gives `{3,4,11,11, 4,5,11,14, 5}`.
 * (Lab 05 joins the tiles into one scan.)
 *
 * @param d_in      @p n device ints
 * @param d_out     @p n device ints, not overlapping @p d_in; nothing else is written
 * @param n         number of elements, any (the grid has at most 2^31 - 1 blocks)
 * @param blockSize threads per block and elements per tile, 1 to KS_MAX_BLOCK
 */
void scanIncKoggeStoneTiles(const int *d_in, int *d_out, size_t n, int blockSize);
/** @} */

#endif /* SCANLAB_KOGGE_STONE_H */
