/**
 * @file warp_scan_profile.cu
 * @brief The program `make profile LAB=04` runs under Nsight Compute: one batched warp scan
 *        of ints, with shuffles or through shared memory; it checks the answer.
 *
 * Usage: `warp_scan_profile shfl|smem [n] [block]` (defaults 2^24 and 256).
 * Built by `make profile LAB=04` (grader/measure/profile_banks.py) together with a
 * submission's `warp_scan.cu`; exits non-zero when the scan is wrong.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_scan.h"

static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "warp_scan_profile: %s: %s\n", what, cudaGetErrorString(err));
    exit(3);
  }
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "shfl") != 0 && strcmp(argv[1], "smem") != 0)) {
    fprintf(stderr, "usage: %s shfl|smem [n] [block]\n", argv[0]);
    return 2;
  }
  const WarpScanVariant variant = strcmp(argv[1], "smem") == 0 ? WARP_SCAN_INC_SMEM : WARP_SCAN_INC;
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : (size_t)1 << 24;
  const int block = argc > 3 ? atoi(argv[3]) : 256;
  if (n == 0 || block < 1 || block > 1024) {
    fprintf(stderr, "warp_scan_profile: n must be positive and block from 1 to 1024\n");
    return 2;
  }
  int32_t *h_in = (int32_t *)malloc(n * 4), *h_out = (int32_t *)malloc(n * 4);
  if (!h_in || !h_out) {
    fprintf(stderr, "warp_scan_profile: out of host memory\n");
    return 3;
  }
  uint32_t r = 12345u;
  for (size_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    h_in[i] = (int32_t)(r >> 22) - 512;
  }
  int32_t *d_in, *d_out;
  check(cudaMalloc((void **)&d_in, n * 4), "cudaMalloc");
  check(cudaMalloc((void **)&d_out, n * 4), "cudaMalloc");
  check(cudaMemcpy(d_in, h_in, n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(warpScanBatch<int32_t, Add>(variant, d_in, d_out, n, block, Add(), 0), "launch");
  check(cudaDeviceSynchronize(), "the scan");
  check(cudaMemcpy(h_out, d_out, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  size_t wrong = 0;
  int32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    if ((i % (size_t)block) % WARP_SIZE == 0) acc = 0;
    acc += h_in[i];
    wrong += h_out[i] != acc;
  }
  const size_t per_block = ((size_t)block + WARP_SIZE - 1) / WARP_SIZE;
  const size_t warps = n / (size_t)block * per_block + (n % (size_t)block + WARP_SIZE - 1) / WARP_SIZE;
  printf("PROFILE variant=%s n=%zu block=%d warps=%zu wrong=%zu\n", argv[1], n, block, warps, wrong);
  free(h_in);
  free(h_out);
  check(cudaFree(d_in), "cudaFree");
  check(cudaFree(d_out), "cudaFree");
  if (wrong) fprintf(stderr, "warp_scan_profile: the %s scan is wrong on %zu elements\n", argv[1], wrong);
  return wrong ? 1 : 0;
}
