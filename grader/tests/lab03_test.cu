/**
 * @file lab03_test.cu
 * @brief Lab 03 tests: the work-efficient (Blelloch) tile scan, unpadded and padded, its bank
 *        conflicts replayed on the CPU, and both timed against the device copy.
 *
 * Sizes, block sizes, seeds, the stated conflict degree and the thresholds come from
 * `grader/manifests/lab03.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blelloch.h"
#include "harness.h"
#include "harness_cuda.h"
#include "ref_lab03.h"
#include "scan_ref.h"

typedef cudaError_t (*scan_fn)(const int32_t *, int32_t *, size_t, int);

struct Variant {
  const char *name;
  scan_fn fn;
};
static const Variant UNPADDED = {"scanExcBlelloch", scanExcBlelloch};
static const Variant PADDED = {"scanExcBlellochPadded", scanExcBlellochPadded};

/* ---- correctness ---------------------------------------------------------------------------- */

/* Tile-aware comparison: names the first wrong element with its tile and position. */
static size_t check_tiles(const char *ctx, const int32_t *expect, const int32_t *got, size_t n,
                          size_t tile) {
  size_t bad = 0, first = 0, bad_tiles = 0, last_bad_tile = (size_t)-1;
  for (size_t j = 0; j < n; j++)
    if (expect[j] != got[j]) {
      if (bad++ == 0) first = j;
      if (j / tile != last_bad_tile) {
        bad_tiles++;
        last_bad_tile = j / tile;
      }
    }
  if (bad) {
    size_t tiles = (n + tile - 1) / tile;
    HX_FAIL("%s: first mismatch at [%zu] (tile %zu of %zu, position %zu): expected %d, got %d%s "
            "(%zu mismatch%s in %zu tile%s)",
            ctx, first, first / tile, tiles, first % tile, (int)expect[first], (int)got[first],
            (uint32_t)got[first] == HX_POISON ? " (the poison value: never written)" : "", bad,
            bad == 1 ? "" : "es", bad_tiles, bad_tiles == 1 ? "" : "s");
  }
  return bad;
}

/* Runs one scan on a given input and checks it against the tile-wise reference. */
static size_t run_on(const Variant &v, const int32_t *h_in, size_t n, int block, const char *what) {
  const size_t tile = 2 * (size_t)block;
  int32_t *expect = (int32_t *)hx_malloc(n * 4 + 4), *got = (int32_t *)hx_malloc(n * 4 + 4);
  if (!expect || !got) {
    free(expect);
    free(got);
    return 1;
  }
  char ctx[256];
  snprintf(ctx, sizeof ctx, "%s(n=%zu, block=%d, %s)", v.name, n, block, what);
  ref_scan_exc_tiles_i32(h_in, expect, n, tile);
  hx_dbuf d_in = hx_dbuf_alloc(n, 4), d_out = hx_dbuf_alloc(n, 4);
  hx_dbuf_upload(&d_in, h_in);
  hx_dbuf_poison(&d_out);
  CUDA_CHECK(v.fn((const int32_t *)d_in.ptr, (int32_t *)d_out.ptr, n, block));
  CUDA_CHECK(cudaDeviceSynchronize());
  hx_dbuf_download(&d_out, got);
  size_t bad = check_tiles(ctx, expect, got, n, tile);
  bad += (size_t)hx_dbuf_check_guards(&d_out, ctx);
  hx_dbuf_free(&d_in);
  hx_dbuf_free(&d_out);
  free(expect);
  free(got);
  return bad;
}

static size_t run_random(const Variant &v, size_t n, int block, uint64_t seed) {
  int32_t *in = (int32_t *)hx_malloc(n * 4 + 4);
  if (!in) return 1;
  hx_fill_i32(in, n, seed, -1000, 1000);
  char what[64];
  snprintf(what, sizeof what, "seed=%llu", (unsigned long long)seed);
  size_t bad = run_on(v, in, n, block, what);
  free(in);
  return bad;
}

/* One tile: the manifest's sizes, then sizes around the block size and the tile size; the
 * test stops at the first wrong case. */
static void single_tile(const Variant &v) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++) {
    const long long B = blocks[b];
    const long long around[5] = {B - 1, B, B + 1, 2 * B - 1, 2 * B};
    for (int s = 0; s < ns + 5; s++) {
      long long n = s < ns ? sizes[s] : around[s - ns];
      if (n < 0 || n > 2 * B) continue; /* one tile at most */
      bool seen = false;                /* each size once per block size */
      for (int k = 0; k < s; k++) seen |= (k < ns ? sizes[k] : around[k - ns]) == n;
      if (seen) continue;
      /* The first counterexample is enough: stop there. */
      if (run_random(v, (size_t)n, (int)B, hx_seed() + (uint64_t)(s * 131 + b))) return;
    }
  }
}

/* Many tiles, the last one short or full; every block scans its own tile. Stops at the first
 * wrong case. */
static void batched(const Variant &v) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++) {
    const long long B = blocks[b];
    const long long around[3] = {2 * B + 1, 4 * B, 6 * B - 1};
    for (int s = 0; s < ns + 3; s++) { /* the small sizes around the tile first */
      long long n = s < 3 ? around[s] : sizes[s - 3];
      if (run_random(v, (size_t)n, (int)B, hx_seed() + (uint64_t)(s * 131 + b))) return;
    }
  }
}

/* ---- bank conflicts, replayed on the CPU ------------------------------------------------------ */

static int identity_index(int i) { return i; }
static int padded_index(int i) { return conflictFreeIndex(i); }

static void test_bank_conflicts(void) {
  const int block = (int)hx_param_int("block");
  const int max_degree = (int)hx_param_int("max_degree");
  const double max_overhead = hx_param_double("max_overhead");
  if (hx_failures()) return;
  if (block < 1 || block > BLELLOCH_MAX_BLOCK || (block & (block - 1)) != 0) {
    HX_FAIL("manifest error: block=%d must be a power of two from 1 to %d", block, BLELLOCH_MAX_BLOCK);
    return;
  }
  /* conflictFreeIndex must be one-to-one, or two elements would share a word. */
  const int elems = 2 * BLELLOCH_MAX_BLOCK;
  int top = 0;
  for (int i = 0; i < elems; i++) {
    int p = conflictFreeIndex(i);
    if (p < 0) {
      HX_FAIL("conflictFreeIndex(%d) = %d: a shared-memory index cannot be negative", i, p);
      return;
    }
    if (p > top) top = p;
  }
  unsigned char *seen = (unsigned char *)calloc((size_t)top + 1, 1);
  int *who = (int *)calloc((size_t)top + 1, sizeof(int));
  if (!seen || !who) {
    free(seen);
    free(who);
    HX_FAIL("out of host memory");
    return;
  }
  for (int i = 0; i < elems; i++) {
    int p = conflictFreeIndex(i);
    if (seen[p]) {
      HX_FAIL("conflictFreeIndex is not one-to-one: elements %d and %d both map to %d", who[p], i, p);
      free(seen);
      free(who);
      return;
    }
    seen[p] = 1;
    who[p] = i;
  }
  free(seen);
  free(who);
  const int words = conflictFreeIndex(2 * block - 1) + 1;
  const double overhead = (double)words / (2.0 * block) - 1.0;

  ref_bank_step before[REF_BANK_MAX_STEPS], after[REF_BANK_MAX_STEPS];
  const int count = ref_blelloch_bank_replay(block, identity_index, before, REF_BANK_MAX_STEPS);
  ref_blelloch_bank_replay(block, padded_index, after, REF_BANK_MAX_STEPS);
  int worst = 0, worst_before = 0, worst_step = 0;
  long long excess_before = 0, excess_after = 0;
  hx_note("bank conflicts of one tile (block=%d, %d ints), n-way degree per step: unpadded -> padded",
          block, 2 * block);
  for (int k = 0; k < count; k++) {
    hx_note("  %-36s %2d-way -> %2d-way", before[k].label, before[k].degree, after[k].degree);
    if (after[k].degree > worst) {
      worst = after[k].degree;
      worst_step = k;
    }
    if (before[k].degree > worst_before) worst_before = before[k].degree;
    excess_before += before[k].excess;
    excess_after += after[k].excess;
  }
  hx_note("worst step: %d-way unpadded, %d-way padded; extra shared-memory passes per tile: "
          "%lld unpadded, %lld padded (what ncu counts as bank conflicts)",
          worst_before, worst, excess_before, excess_after);
  hx_note("padding: %d ints of shared memory per tile instead of %d (%.1f%% more)", words,
          2 * block, 100.0 * overhead);
  hx_metric("max_degree_unpadded", worst_before);
  hx_metric("max_degree_padded", worst);
  hx_metric("conflicts_per_tile_unpadded", (double)excess_before);
  hx_metric("conflicts_per_tile_padded", (double)excess_after);
  HX_CHECK(worst <= max_degree,
           "conflictFreeIndex at block=%d: the worst step, '%s', is %d-way in the padded scan "
           "(%d-way unpadded); the padded scan must be at most %d-way in every step",
           block, after[worst_step].label, worst, before[worst_step].degree, max_degree);
  HX_CHECK(overhead <= max_overhead,
           "conflictFreeIndex at block=%d: %d ints per tile of %d is %.1f%% of padding; at most "
           "%.1f%% is allowed", block, words, 2 * block, 100.0 * overhead, 100.0 * max_overhead);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_example(void) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  run_on(UNPADDED, in, 8, 4, "in={3,1,7,0,4,1,6,3}");
}
static void test_single_tile(void) { single_tile(UNPADDED); }
static void test_batched(void) { batched(UNPADDED); }
static void test_padded_example(void) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  run_on(PADDED, in, 8, 4, "in={3,1,7,0,4,1,6,3}");
}
static void test_padded_single_tile(void) { single_tile(PADDED); }
static void test_padded_batched(void) { batched(PADDED); }

struct TimingJob {
  scan_fn fn;
  const int32_t *in;
  int32_t *out;
  size_t n;
  int block;
};
static void run_timed(void *arg) {
  TimingJob *j = (TimingJob *)arg;
  CUDA_CHECK(j->fn(j->in, j->out, j->n, j->block));
}

/* Both versions in one run, each as a fraction of the device copy bandwidth. */
static void test_timing(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block"), reps = (int)hx_param_int("reps");
  const double threshold = hx_param_double("threshold");
  const double threshold_padded = hx_param_double("threshold_padded");
  const double min_speedup = hx_param_double("min_padded_speedup");
  if (hx_failures()) return;
  int32_t *h_in = (int32_t *)hx_malloc(n * 4 + 4);
  if (!h_in) return;
  hx_fill_i32(h_in, n, hx_seed(), -1000, 1000);
  char what[64];
  snprintf(what, sizeof what, "seed=%llu", (unsigned long long)hx_seed());
  /* Correct first: a wrong answer is not timed. */
  const bool wrong = run_on(UNPADDED, h_in, n, block, what) || run_on(PADDED, h_in, n, block, what);
  if (wrong || !hx_timing_available()) {
    free(h_in);
    if (wrong) return;
  }
  HX_REQUIRE_TIMING();
  if (n * 4 <= hx_l2_bytes()) {
    HX_FAIL("manifest error: timing needs n*4 bytes (%zu) above the L2 cache (%zu bytes)", n * 4,
            hx_l2_bytes());
    free(h_in);
    return;
  }
  int32_t *d_in = NULL, *d_out = NULL;
  CUDA_CHECK(cudaMalloc((void **)&d_in, n * 4));
  CUDA_CHECK(cudaMalloc((void **)&d_out, n * 4));
  CUDA_CHECK(cudaMemcpy(d_in, h_in, n * 4, cudaMemcpyHostToDevice));
  free(h_in);
  const double copy_bw = hx_copy_bandwidth(n * 4, reps);
  const Variant *vs[2] = {&UNPADDED, &PADDED};
  double fraction[2], ms[2];
  for (int v = 0; v < 2; v++) {
    TimingJob j = {vs[v]->fn, d_in, d_out, n, block};
    ms[v] = hx_time_device_ms(run_timed, &j, 2, reps);
    fraction[v] = 2.0 * (double)(n * 4) / (ms[v] * 1e-3) / copy_bw;
    hx_note("%s(n=%zu, block=%d): %.3f ms, %.1f GB/s: %.3f of copy (%.1f GB/s)", vs[v]->name, n,
            block, ms[v], 2.0 * (double)(n * 4) / (ms[v] * 1e-3) * 1e-9, fraction[v], copy_bw * 1e-9);
  }
  hx_note("padded / unpadded speed: %.3f", ms[0] / ms[1]);
  hx_metric("fraction_of_copy", fraction[0]);
  hx_metric("fraction_of_copy_padded", fraction[1]);
  hx_metric("padded_speedup", ms[0] / ms[1]);
  HX_CHECK(fraction[0] >= threshold,
           "scanExcBlelloch(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[0], threshold);
  HX_CHECK(fraction[1] >= threshold_padded,
           "scanExcBlellochPadded(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[1], threshold_padded);
  HX_CHECK(ms[0] / ms[1] >= min_speedup,
           "scanExcBlellochPadded(n=%zu, block=%d) is %.2fx as fast as the unpadded scan; it should be"
           " at least %.2fx (are the padded indices used for every shared-memory access?)",
           n, block, ms[0] / ms[1], min_speedup);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
}

static const hx_test TESTS[] = {
    {"example", test_example},
    {"single_tile", test_single_tile},
    {"batched", test_batched},
    {"padded_example", test_padded_example},
    {"padded_single_tile", test_padded_single_tile},
    {"padded_batched", test_padded_batched},
    {"bank_conflicts", test_bank_conflicts},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("03", TESTS);
