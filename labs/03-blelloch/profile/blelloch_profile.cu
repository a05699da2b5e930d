/**
 * @file blelloch_profile.cu
 * @brief The program `make profile LAB=03` runs under Nsight Compute: one batched scan,
 *        unpadded or padded, of random ints; it checks the answer and prints the bank conflicts
 *        the CPU replay predicts, so the measured counters can be set beside them.
 *
 * Usage: `blelloch_profile unpadded|padded [n] [block]` (defaults 2^24 and 512).
 * Built by `make profile LAB=03` (grader/measure/profile_banks.py) together with a
 * submission's `blelloch.cu`; exits non-zero when the scan is wrong.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blelloch.h"
#include "ref_lab03.h"

static int identity_index(int i) { return i; }
static int padded_index(int i) { return conflictFreeIndex(i); }

static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "blelloch_profile: %s: %s\n", what, cudaGetErrorString(err));
    exit(3);
  }
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "unpadded") != 0 && strcmp(argv[1], "padded") != 0)) {
    fprintf(stderr, "usage: %s unpadded|padded [n] [block]\n", argv[0]);
    return 2;
  }
  const int padded = strcmp(argv[1], "padded") == 0;
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : (size_t)1 << 24;
  const int block = argc > 3 ? atoi(argv[3]) : 512;
  if (n == 0 || block < 1 || block > BLELLOCH_MAX_BLOCK || (block & (block - 1)) != 0) {
    fprintf(stderr, "blelloch_profile: n must be positive and block a power of two up to %d\n",
            BLELLOCH_MAX_BLOCK);
    return 2;
  }
  const size_t tile = 2 * (size_t)block, tiles = (n + tile - 1) / tile;

  int32_t *h_in = (int32_t *)malloc(n * 4), *h_out = (int32_t *)malloc(n * 4);
  if (!h_in || !h_out) {
    fprintf(stderr, "blelloch_profile: out of host memory\n");
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
  check((padded ? scanExcBlellochPadded : scanExcBlelloch)(d_in, d_out, n, block), "launch");
  check(cudaDeviceSynchronize(), "the scan");
  check(cudaMemcpy(h_out, d_out, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");

  size_t wrong = 0;
  for (size_t t0 = 0; t0 < n; t0 += tile) {
    uint32_t acc = 0;
    for (size_t i = t0; i < n && i < t0 + tile; i++) {
      wrong += h_out[i] != (int32_t)acc;
      acc += (uint32_t)h_in[i];
    }
  }
  ref_bank_step steps[REF_BANK_MAX_STEPS];
  int count = ref_blelloch_bank_replay(block, padded ? padded_index : identity_index, steps,
                                       REF_BANK_MAX_STEPS);
  long long excess = 0;
  for (int k = 0; k < count; k++) excess += steps[k].excess;
  printf("PROFILE variant=%s n=%zu block=%d tiles=%zu predicted_conflicts_per_tile=%lld wrong=%zu\n",
         argv[1], n, block, tiles, excess, wrong);
  free(h_in);
  free(h_out);
  check(cudaFree(d_in), "cudaFree");
  check(cudaFree(d_out), "cudaFree");
  if (wrong) fprintf(stderr, "blelloch_profile: the %s scan is wrong on %zu elements\n", argv[1], wrong);
  return wrong ? 1 : 0;
}
