/**
 * @file kogge_stone_profile.cu
 * @brief The program `make profile LAB=02` runs under Nsight Compute and on the emu: one call
 *        of a Kogge-Stone scan (one block in place, one block double-buffered, or the batched
 *        tiles) on random ints; it checks the answer.
 *
 * Usage: `kogge_stone_profile ks|db|tiles N BLOCK`. `ks` calls scanIncKoggeStone()
 * (scanIncKoggeStoneKernel), `db` scanIncKoggeStoneDB() and `tiles` scanIncKoggeStoneTiles()
 * (both scanIncKoggeStoneDBKernel). Built by grader/measure/profile_banks.py together with a
 * submission's `kogge_stone.cu`; prints `PROFILE case=... n=... block=... tiles=... wrong=...`
 * and exits non-zero when the scan is wrong (1) or the arguments are (2).
 *
 * Example: `kogge_stone_profile tiles 4196 1024` scans 5 tiles of 1024 threads, the last one
 * 100 elements long.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kogge_stone.h"

/* CUDA_CHECK in the submission's file (grader/trusted/include/cuda_check.h) ends up here. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "kogge_stone_profile: %s at %s:%d: %s\n", expr, file, line, cudaGetErrorString(err));
  exit(3);
}

/** Checks a CUDA call: the message names the file, the line, the call and the error. */
#define CK(...) scanlab_cuda_check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  const int ks = strcmp(which, "ks") == 0, db = strcmp(which, "db") == 0, tiles = strcmp(which, "tiles") == 0;
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 0;
  const int block = argc > 3 ? atoi(argv[3]) : 0;
  if (!(ks || db || tiles) || n == 0 || block < 1 || block > KS_MAX_BLOCK || (!tiles && n > (size_t)block)) {
    fprintf(stderr, "usage: %s ks|db|tiles N BLOCK (block from 1 to %d; N at most BLOCK for ks and db)\n",
            argv[0], KS_MAX_BLOCK);
    return 2;
  }
  int *h_in = (int *)malloc(n * sizeof(int)), *h_out = (int *)malloc(n * sizeof(int));
  if (!h_in || !h_out) {
    fprintf(stderr, "kogge_stone_profile: out of host memory\n");
    return 3;
  }
  uint32_t r = 12345u;
  for (size_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    h_in[i] = (int)(r >> 22) - 512;
  }
  int *d_in, *d_out;
  CK(cudaMalloc((void **)&d_in, n * sizeof(int)));
  CK(cudaMalloc((void **)&d_out, n * sizeof(int)));
  CK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  if (ks) scanIncKoggeStone(d_in, d_out, n, block);
  else if (db) scanIncKoggeStoneDB(d_in, d_out, n, block);
  else scanIncKoggeStoneTiles(d_in, d_out, n, block);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

  size_t wrong = 0, first = 0;
  uint32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % (size_t)block == 0) acc = 0;
    acc += (uint32_t)h_in[i];
    if (h_out[i] != (int)acc && wrong++ == 0) first = i;
  }
  printf("PROFILE case=%s n=%zu block=%d tiles=%zu wrong=%zu\n", which, n, block,
         (n + (size_t)block - 1) / (size_t)block, wrong);
  if (wrong)
    fprintf(stderr, "kogge_stone_profile: %s(n=%zu, block=%d): first mismatch at [%zu] (%zu mismatches)\n", which,
            n, block, first, wrong);
  free(h_in);
  free(h_out);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  return wrong ? 1 : 0;
}
