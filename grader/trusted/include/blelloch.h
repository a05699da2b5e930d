/**
 * @file blelloch.h
 * @brief Lab 03: the work-efficient (Blelloch) exclusive scan students write
 *        (`skeletons/03-blelloch/blelloch.cu`), without and with bank-conflict padding.
 *
 * Each block of `block` threads scans its own **tile** of `2 * block` consecutive ints in
 * shared memory, two elements per thread, in two phases over a balanced binary tree:
 *
 * 1. **up-sweep** (reduce): for stride `s = 1, 2, 4, ..., block`, thread `t < block / s`
 *    adds `x[s*(2t+1) - 1]` into `x[s*(2t+2) - 1]`; the last element ends with the tile's sum;
 * 2. the last element is set to 0 (the identity);
 * 3. **down-sweep**: for stride `s = block, ..., 2, 1`, thread `t < block / s` takes
 *    `a = s*(2t+1) - 1` and `b = s*(2t+2) - 1`, then sets `x[a] = x[b]` and
 *    `x[b] = old x[a] + x[b]`.
 *
 * Each tile is scanned on its own: element `j` of the output is the sum of the elements of its
 * tile before it (a *batched* scan; lab 05 joins the tiles into one scan). Worked example,
 * block = 4 (one tile of 8):
 *
 *     in        {3, 1, 7, 0, 4, 1, 6, 3}
 *     exclusive {0, 3, 4, 11, 11, 15, 16, 22}
 *
 * **Thread-to-element rule** (both versions follow it; the bank-conflict test replays it):
 * thread `t` loads elements `t` and `t + block` of its tile into shared memory and stores the
 * same two elements at the end; in every step of both sweeps it touches exactly the two
 * elements `a = s*(2t+1) - 1` and `b = s*(2t+2) - 1` above. The padded version stores
 * element `i` of the tile at shared index `conflictFreeIndex(i)` instead of `i`.
 *
 * Integer sums wrap modulo 2^32, as on every GPU.
 */
#ifndef SCANLAB_BLELLOCH_H
#define SCANLAB_BLELLOCH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/** Shared-memory banks of every NVIDIA GPU since Maxwell; each bank is 4 bytes wide. */
#define SMEM_BANKS 32
/** log2(SMEM_BANKS). */
#define LOG_SMEM_BANKS 5
/** Largest block size the scans must support (tiles of 2048 ints). */
#define BLELLOCH_MAX_BLOCK 1024

/**
 * @brief Shared-memory index of element @p i of a tile in the padded scan: `i` plus a
 * padding offset of your choice, so that the addresses a warp touches in one step fall into
 * different banks.
 *
 * Host and device: the kernel calls it for every shared-memory access, and the bank-conflict
 * test calls it on the host to replay the kernel's access pattern. It must be one-to-one on
 * `0 .. 2*BLELLOCH_MAX_BLOCK - 1`, and its largest value fixes the shared memory a block needs
 * (`conflictFreeIndex(2 * block - 1) + 1` ints).
 *
 * @param i element index within a tile, `0 <= i < 2 * BLELLOCH_MAX_BLOCK`
 * @return  the shared-memory index (in ints) that holds element @p i
 */
__host__ __device__ int conflictFreeIndex(int i);

/**
 * @brief Batched work-efficient exclusive sum: every tile of `2 * block` consecutive elements
 * is scanned on its own, by one block of @p block threads, in shared memory.
 *
 * The last tile may be short (`n` need not be a multiple of `2 * block`, nor a power of two):
 * elements past `n` count as 0 and are not written.
 *
 * @param d_in  @p n device ints
 * @param d_out @p n device ints, not overlapping @p d_in; nothing else is written
 * @param n     number of elements (0: nothing is launched)
 * @param block threads per block: a power of two from 1 to BLELLOCH_MAX_BLOCK
 * @return the launch's error (`cudaGetLastError()`), cudaSuccess when nothing was launched
 */
cudaError_t scanExcBlelloch(const int32_t *d_in, int32_t *d_out, size_t n, int block);

/**
 * @brief scanExcBlelloch() with element `i` of each tile kept at shared index
 * `conflictFreeIndex(i)`: the same arithmetic, the same results, fewer bank conflicts.
 *
 * Parameters as scanExcBlelloch().
 */
cudaError_t scanExcBlellochPadded(const int32_t *d_in, int32_t *d_out, size_t n, int block);

/**
 * @brief Kit code (in blelloch.cu, outside your regions): `d_out[i] = conflictFreeIndex(i)` for
 * `i < count`, computed on the device, where the kernels compute it. The bank-conflict test
 * replays the scan's accesses with this table.
 */
cudaError_t conflictFreeIndexTable(int32_t *d_out, int count);

#endif /* SCANLAB_BLELLOCH_H */
