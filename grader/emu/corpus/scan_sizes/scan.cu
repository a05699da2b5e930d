// Exclusive sums of many arrays at once. Arrays of up to 1024 elements are scanned in one
// launch: each thread loads 4 elements as a uint4, sums them, and the threads that share an
// array scan their sums in shared memory (Kogge-Stone, a barrier before each read and each
// write). Longer arrays take three launches: the block scan, a scan of the blocks' totals
// (segmented by array), and a pass that adds each block's offset.
#include <cuda_runtime.h>
#include <helper_cuda_lite.h>

#include "scan_common.h"

static unsigned *dTotals = 0, *dOffsets = 0;

// SCAN_VOLATILE (make EXTRA=-DSCAN_VOLATILE): the shared array through a volatile pointer, as
// the CUDA samples' scan has it (a barrier between every two accesses all the same)
#ifdef SCAN_VOLATILE
#define SCAN_SHARED volatile unsigned
#else
#define SCAN_SHARED unsigned
#endif

// The inclusive sum of `mine` over the threads of its segment (segThreads threads, a power of two).
__device__ unsigned segmentScan(SCAN_SHARED *s, unsigned mine, unsigned segThreads) {
  const unsigned t = threadIdx.x, lane = t & (segThreads - 1);
  s[t] = mine;
  for (unsigned offset = 1; offset < segThreads; offset <<= 1) {
    __syncthreads();
    const unsigned add = lane >= offset ? s[t - offset] : 0;
    __syncthreads();
    s[t] += add;
  }
  __syncthreads();
  return s[t];
}

// Scans arrays of `length` elements (4 to 1024); with `totals`, writes each block's total.
__global__ void scanBlocks(uint4 *dst, const uint4 *src, unsigned length, unsigned *totals) {
  __shared__ unsigned s[THREADS];
  const unsigned i = blockIdx.x * THREADS + threadIdx.x;
  const uint4 v = src[i];
  const unsigned sum = v.x + v.y + v.z + v.w;
  const unsigned inclusive = segmentScan(s, sum, length / 4);
  const unsigned before = inclusive - sum;
  uint4 out;
  out.x = before;
  out.y = before + v.x;
  out.z = out.y + v.y;
  out.w = out.z + v.z;
  dst[i] = out;
  if (totals && threadIdx.x == THREADS - 1) totals[blockIdx.x] = inclusive;
}

// Exclusive sums of the block totals, `perArray` blocks to an array (a power of two up to
// THREADS, so that no array's totals straddle two blocks).
__global__ void scanTotals(unsigned *offsets, const unsigned *totals, unsigned count, unsigned perArray) {
  __shared__ unsigned s[THREADS];
  const unsigned t = blockIdx.x * THREADS + threadIdx.x;
  const unsigned mine = t < count ? totals[t] : 0;
  const unsigned inclusive = segmentScan(s, mine, perArray);
  if (t < count) offsets[t] = inclusive - mine;
}

__global__ void addOffsets(uint4 *dst, const unsigned *offsets) {
  const unsigned add = offsets[blockIdx.x];
  uint4 v = dst[blockIdx.x * THREADS + threadIdx.x];
  v.x += add;
  v.y += add;
  v.z += add;
  v.w += add;
  dst[blockIdx.x * THREADS + threadIdx.x] = v;
}

void initScan(unsigned elems) {
  const unsigned blocks = (elems + BLOCK_ELEMS - 1) / BLOCK_ELEMS;
  checkCudaErrors(cudaMalloc((void **)&dTotals, blocks * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc((void **)&dOffsets, blocks * sizeof(unsigned)));
}

void closeScan() {
  checkCudaErrors(cudaFree(dTotals));
  checkCudaErrors(cudaFree(dOffsets));
}

int scanExclusiveShort(unsigned *dDst, const unsigned *dSrc, unsigned batch, unsigned length) {
  const unsigned blocks = batch * length / BLOCK_ELEMS;
  scanBlocks<<<blocks, THREADS>>>((uint4 *)dDst, (const uint4 *)dSrc, length, 0);
  getLastCudaError("scanBlocks() failed");
  return 1;
}

int scanExclusiveLarge(unsigned *dDst, const unsigned *dSrc, unsigned batch, unsigned length) {
  const unsigned blocks = batch * length / BLOCK_ELEMS;
  scanBlocks<<<blocks, THREADS>>>((uint4 *)dDst, (const uint4 *)dSrc, BLOCK_ELEMS, dTotals);
  getLastCudaError("scanBlocks() failed");
  scanTotals<<<(blocks + THREADS - 1) / THREADS, THREADS>>>(dOffsets, dTotals, blocks, length / BLOCK_ELEMS);
  getLastCudaError("scanTotals() failed");
  addOffsets<<<blocks, THREADS>>>((uint4 *)dDst, dOffsets);
  getLastCudaError("addOffsets() failed");
  return 3;
}
