// A work-efficient scan of one block's tile in shared memory (up-sweep, down-sweep), with the
// classic padding against bank conflicts. Defined in block_scan.cu, called from scan.cu: a
// __device__ function across files (separable compilation).
#pragma once

#define SCAN_BLOCK 256
#define SCAN_TILE (2 * SCAN_BLOCK)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// Scans tile[] (SCAN_TILE elements, padded) exclusively; returns the tile's total.
__device__ int blockExclusiveScan(int *tile);
