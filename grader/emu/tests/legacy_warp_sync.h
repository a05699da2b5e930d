/**
 * @file legacy_warp_sync.h
 * @brief Pre-Volta warp-synchronous code for the emu's tests: `volatile` shared memory and no
 *        `__syncwarp`, the way older course code and libraries wrote a warp's scan and a
 *        warp's reduction (a segmented scan's inner step, a vector SpMV's row sums).
 *
 * Converged warps on a GPU run each statement for all 32 lanes before the next, so these give
 * the right answer there (an H100 does); CUDA has not promised a converged warp since Volta.
 */
#ifndef LEGACY_WARP_SYNC_H
#define LEGACY_WARP_SYNC_H
/// @cond EMU_INTERNAL
#include "emu_test.h"

/* Inclusive scan of one warp's values in s[32 + lane], the 32 words below zero. */
__device__ int legacyWarpScan(volatile int *s, int lane, int v) {
  s[lane] = 0;
  const int i = 32 + lane;
  s[i] = v;
  s[i] += s[i - 1];
  s[i] += s[i - 2];
  s[i] += s[i - 4];
  s[i] += s[i - 8];
  s[i] += s[i - 16];
  return s[i];
}

/* Each warp scans its 32 values; then a row sum per warp, halving with `if (lane < k)`. */
__global__ void legacyKernel(const int *in, int *scan, int *rowsum) {
  __shared__ int scratch[4][64];
  __shared__ volatile int sums[128];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  scan[blockIdx.x * blockDim.x + threadIdx.x] = legacyWarpScan(scratch[warp], lane, v);
  int sum = v;
  sums[threadIdx.x] = sum;
  if (lane < 16) sums[threadIdx.x] = sum = sum + sums[threadIdx.x + 16];
  if (lane < 8) sums[threadIdx.x] = sum = sum + sums[threadIdx.x + 8];
  if (lane < 4) sums[threadIdx.x] = sum = sum + sums[threadIdx.x + 4];
  if (lane < 2) sums[threadIdx.x] = sum = sum + sums[threadIdx.x + 2];
  if (lane < 1) sums[threadIdx.x] = sum = sum + sums[threadIdx.x + 1];
  if (lane == 0) rowsum[blockIdx.x * 4 + warp] = sums[threadIdx.x];
}

/* Runs the kernel on 8 blocks of 128 threads; returns 0 when both outputs are right. */
static int legacyMain() {
  const int n = 8 * 128;
  int h[n], ref[n], got[n], rows[8 * 4], refRows[8 * 4];
  for (int i = 0; i < n; i++) h[i] = (i * 7 + 3) % 11;
  for (int w = 0; w < n / 32; w++) {
    int run = 0;
    for (int l = 0; l < 32; l++) ref[w * 32 + l] = run += h[w * 32 + l];
    refRows[w] = run;
  }
  int *in, *scan, *rowsum;
  CK(cudaMalloc(&in, sizeof h));
  CK(cudaMalloc(&scan, sizeof h));
  CK(cudaMalloc(&rowsum, sizeof rows));
  CK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  legacyKernel<<<8, 128>>>(in, scan, rowsum);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, scan, sizeof got, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(rows, rowsum, sizeof rows, cudaMemcpyDeviceToHost));
  return same("legacy warp scan", ref, got, n) && same("legacy row sums", refRows, rows, 8 * 4) ? 0 : 1;
}
/// @endcond
#endif
