// Stream compaction with a three-phase scan: each block scans its tile in shared memory (warp
// shuffles, then the warps' totals), the blocks' totals are scanned by one block, and a last
// pass adds each block's offset and scatters the kept elements.
#include <cstdio>
#include <cstdlib>

#include "compact.h"

extern "C" const int COMPACT_BLOCK = 256;
#define WARPS (256 / 32)

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

static float g_ms = 0;

// Inclusive scan of one value per thread over the block; returns the block's total too.
__device__ int blockScanInclusive(int v, int *total) {
  __shared__ int warpSums[WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  if (lane == 31) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int s = lane < WARPS ? warpSums[lane] : 0;
    for (int d = 1; d < WARPS; d <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, s, d);
      if (lane >= d) s += up;
    }
    if (lane < WARPS) warpSums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) v += warpSums[warp - 1];
  *total = warpSums[WARPS - 1];
  __syncthreads();
  return v;
}

__global__ void scanTilesKernel(const int *in, int *out, int *blockTotals, int n, int threshold, int flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i < n ? in[i] : 0;
  int v = flags ? (i < n && x > threshold) : x;
  int total;
  int inc = blockScanInclusive(v, &total);
  if (i < n) out[i] = inc - v;
  if (threadIdx.x == 0) blockTotals[blockIdx.x] = total;
}

__global__ void scanTotalsKernel(int *totals, int nblocks) {
  // one block: the totals in chunks of blockDim.x, carrying the running sum
  __shared__ int carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < nblocks; base += blockDim.x) {
    int i = base + threadIdx.x;
    int v = i < nblocks ? totals[i] : 0;
    int total;
    int inc = blockScanInclusive(v, &total);
    if (i < nblocks) totals[i] = carry + inc - v;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
}

__global__ void addOffsetsKernel(int *out, const int *offsets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += offsets[blockIdx.x];
}

__global__ void scatterKernel(const int *in, const int *idx, int *out, int n, int threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold) out[idx[i]] = in[i];
}

static void scanDevice(const int *d_in, int *d_out, int n, int threshold, int flags) {
  int blocks = (n + COMPACT_BLOCK - 1) / COMPACT_BLOCK;
  int *d_totals;
  CUDA_CHECK(cudaMalloc(&d_totals, blocks * sizeof(int)));
  scanTilesKernel<<<blocks, COMPACT_BLOCK>>>(d_in, d_out, d_totals, n, threshold, flags);
  CUDA_CHECK(cudaGetLastError());
  scanTotalsKernel<<<1, COMPACT_BLOCK>>>(d_totals, blocks);
  CUDA_CHECK(cudaGetLastError());
  addOffsetsKernel<<<blocks, COMPACT_BLOCK>>>(d_out, d_totals, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFree(d_totals));
}

extern "C" void gpu_exclusive_scan(const int *in, int *out, int n) {
  int *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
  scanDevice(d_in, d_out, n, 0, 0);
  CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
}

extern "C" int gpu_compact_greater(const int *in, int *out, int n, int threshold) {
  int *d_in, *d_idx, *d_out;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_idx, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaEventRecord(start));
  scanDevice(d_in, d_idx, n, threshold, 1);
  int blocks = (n + COMPACT_BLOCK - 1) / COMPACT_BLOCK;
  scatterKernel<<<blocks, COMPACT_BLOCK>>>(d_in, d_idx, d_out, n, threshold);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  CUDA_CHECK(cudaEventElapsedTime(&g_ms, start, stop));
  int lastIdx = 0, lastVal = 0;
  CUDA_CHECK(cudaMemcpy(&lastIdx, d_idx + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
  lastVal = in[n - 1] > threshold;
  int count = lastIdx + lastVal;
  CUDA_CHECK(cudaMemcpy(out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_idx));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return count;
}

extern "C" float gpu_last_ms(void) { return g_ms; }
