#include "block_scan.cuh"

__device__ int blockExclusiveScan(int *tile) {
  int t = threadIdx.x, offset = 1;
  for (int d = SCAN_TILE >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      tile[bi] += tile[ai];
    }
    offset *= 2;
  }
  __shared__ int total;
  if (t == 0) {
    int last = SCAN_TILE - 1 + CONFLICT_FREE_OFFSET(SCAN_TILE - 1);
    total = tile[last];
    tile[last] = 0;
  }
  for (int d = 1; d < SCAN_TILE; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      int v = tile[ai];
      tile[ai] = tile[bi];
      tile[bi] += v;
    }
  }
  __syncthreads();
  return total;
}
