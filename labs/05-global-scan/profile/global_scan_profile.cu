/**
 * @file global_scan_profile.cu
 * @brief The program `make profile LAB=05` runs under Nsight Compute and on the emu: one call
 *        of one of lab 05's scans on random ints; it checks the answer.
 *
 * Usage: `global_scan_profile CASE N [BLOCK]`, CASE one of
 *
 * - `block_tiles`: scanIncBlockTiles(), BLOCK threads per block: scanBlockTilesKernel;
 * - `anylength_inc`, `anylength_exc`: scanIncBlockAnyLength(), scanExcBlockAnyLength():
 *   scanBlockAnyLengthKernel<false>, <true>;
 * - `propagate_inc`, `propagate_exc`: scanIncPropagate(), scanExcPropagate(): scanTilesKernel
 *   per level, addOffsetsKernel;
 * - `rts_inc`, `rts_exc`: scanIncReduceThenScan(), scanExcReduceThenScan(): reduceRangesKernel,
 *   scanBlockAnyLengthKernel<true>, scanRangesKernel<false>, <true>;
 * - `lookback_inc`, `lookback_exc`: scanIncLookback(), scanExcLookback():
 *   scanLookbackKernel<false>, <true>.
 *
 * Built by grader/measure/profile_banks.py together with a submission's `global_scan.cu`; prints
 * `PROFILE case=... n=... wrong=...` and exits non-zero when the scan is wrong (1) or the
 * arguments are (2). Example: `global_scan_profile lookback_inc 24676` scans 4 tiles of
 * GS_LOOKBACK_TILE = 8192 (the last one 100 long): tiles 1-3 look back; with N = 8192 the
 * one tile publishes its prefix at once and polls nothing.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global_scan.h"

/* CUDA_CHECK in the submission's file (grader/trusted/include/cuda_check.h) ends up here. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "global_scan_profile: %s at %s:%d: %s\n", expr, file, line, cudaGetErrorString(err));
  exit(3);
}
/** Checks a CUDA call: the message names the file, the line, the call and the error. */
#define CK(...) scanlab_cuda_check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

typedef void (*scan_fn)(const int32_t *, int32_t *, size_t);

/** A case: its name, the scan it calls (NULL: scanIncBlockTiles), and whether it is exclusive. */
typedef struct {
  const char *name;
  scan_fn fn;
  int exclusive;
} profile_case;

static const profile_case CASES[] = {
    {"block_tiles", NULL, 0},
    {"anylength_inc", scanIncBlockAnyLength, 0},
    {"anylength_exc", scanExcBlockAnyLength, 1},
    {"propagate_inc", scanIncPropagate, 0},
    {"propagate_exc", scanExcPropagate, 1},
    {"rts_inc", scanIncReduceThenScan, 0},
    {"rts_exc", scanExcReduceThenScan, 1},
    {"lookback_inc", scanIncLookback, 0},
    {"lookback_exc", scanExcLookback, 1},
};

int main(int argc, char **argv) {
  const profile_case *c = NULL;
  for (size_t k = 0; argc > 1 && k < sizeof CASES / sizeof CASES[0]; k++)
    if (strcmp(argv[1], CASES[k].name) == 0) c = &CASES[k];
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 0;
  const int block = argc > 3 ? atoi(argv[3]) : 256;
  if (!c || n == 0 || block < GS_WARP || block > GS_BLOCK_MAX || block % GS_WARP != 0) {
    fprintf(stderr, "usage: %s CASE N [BLOCK]: CASE one of", argv[0]);
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) fprintf(stderr, " %s", CASES[k].name);
    fprintf(stderr, "; N > 0; BLOCK (block_tiles) a multiple of 32 from 32 to %d\n", GS_BLOCK_MAX);
    return 2;
  }
  int32_t *h_in = (int32_t *)malloc(n * 4), *h_out = (int32_t *)malloc(n * 4);
  if (!h_in || !h_out) {
    fprintf(stderr, "global_scan_profile: out of host memory\n");
    return 3;
  }
  uint32_t r = 12345u;
  for (size_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    h_in[i] = (int32_t)(r >> 22) - 512;
  }
  int32_t *d_in, *d_out;
  CK(cudaMalloc((void **)&d_in, n * 4));
  CK(cudaMalloc((void **)&d_out, n * 4));
  CK(cudaMemcpy(d_in, h_in, n * 4, cudaMemcpyHostToDevice));
  if (c->fn) c->fn(d_in, d_out, n);
  else scanIncBlockTiles(d_in, d_out, n, block);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_out, d_out, n * 4, cudaMemcpyDeviceToHost));

  /* the reference: one scan of the whole array, or of each block's tile for block_tiles */
  const size_t group = c->fn ? n : (size_t)block;
  size_t wrong = 0, first = 0;
  uint32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % group == 0) acc = 0;
    const uint32_t before = acc;
    acc += (uint32_t)h_in[i];
    if (h_out[i] != (int32_t)(c->exclusive ? before : acc) && wrong++ == 0) first = i;
  }
  printf("PROFILE case=%s n=%zu block=%d wrong=%zu\n", c->name, n, c->fn ? 0 : block, wrong);
  if (wrong)
    fprintf(stderr, "global_scan_profile: %s(n=%zu): first mismatch at [%zu] (%zu mismatches)\n", c->name, n,
            first, wrong);
  free(h_in);
  free(h_out);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  scanGlobalRelease();
  return wrong ? 1 : 0;
}
