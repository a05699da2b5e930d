/**
 * @file lab03_test.cpp
 * @brief Lab 03 tests: the work-efficient (Blelloch) tile scan, unpadded and padded, its bank
 *        conflicts replayed on the CPU, and both timed against the device copy.
 *
 * The scans and the padding function run in the driver (grader/trusted/tests/lab03_calls.cu). Sizes,
 * block sizes, seeds, the stated conflict degree and the thresholds come from
 * `grader/manifests/lab03.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ref_lab03.h"
#include "scan_ref.h"

/* From blelloch.h (the test side includes no CUDA header). */
#define BLELLOCH_MAX_BLOCK 1024
#define POISON 0xDEADBEEFu

struct Variant {
  const char *name; /* the call table's name, and the student's function */
};
static const Variant UNPADDED = {"scanExcBlelloch"};
static const Variant PADDED = {"scanExcBlellochPadded"};

/* The call's return value: a cudaError_t, 0 for success. */
static bool call_failed(long long err, const char *ctx) {
  if (err == 0) return false;
  HX_FAIL("%s returned CUDA error %lld (a launch it could not make?)", ctx, err);
  return true;
}

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
            hx_poison_note(&got[first], 4, first), bad,
            bad == 1 ? "" : "es", bad_tiles, bad_tiles == 1 ? "" : "s");
  }
  return bad;
}

/* Runs one scan on a given input and checks it against the tile-wise reference. */
static size_t run_on(const Variant &v, const int32_t *h_in, size_t n, int block, const char *what) {
  const size_t tile = (size_t)block * 2; /* two elements per thread */
  int32_t *expect = (int32_t *)hx_malloc(n * 4 + 4);
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  size_t bad = 1;
  if (expect && in && out) {
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, block=%d, %s)", v.name, n, block, what);
    ref_scan_exc_tiles_i32(h_in, expect, n, tile);
    memcpy(hx_buf_data(in), h_in, n * 4);
    long long err = 0;
    bad = HX_CALL_RET(&err, v.name, ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(block));
    if (!bad && call_failed(err, ctx)) bad = 1;
    if (!bad) bad = check_tiles(ctx, expect, (const int32_t *)hx_buf_data(out), n, tile);
  }
  hx_buf_free(in);
  hx_buf_free(out);
  free(expect);
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

/* The student's conflictFreeIndex, tabulated on the device for 0 .. 2*BLELLOCH_MAX_BLOCK-1. */
static int32_t padded_table[2 * BLELLOCH_MAX_BLOCK];
static int identity_index(int i) { return i; }
static int padded_index(int i) { return padded_table[i]; }

static void test_bank_conflicts(void) {
  const int block = (int)hx_param_int("block");
  const int max_degree = (int)hx_param_int("max_degree");
  const double max_overhead = hx_param_double("max_overhead");
  if (hx_failures()) return;
  if (block < 1 || block > BLELLOCH_MAX_BLOCK || (block & (block - 1)) != 0) {
    HX_FAIL("manifest error: block=%d must be a power of two from 1 to %d", block, BLELLOCH_MAX_BLOCK);
    return;
  }
  const int elems = 2 * BLELLOCH_MAX_BLOCK;
  hx_buf *table = hx_buf_new((size_t)elems, 4);
  long long err = 0;
  if (!table) return;
  const char *ctx = "conflictFreeIndex(0 .. 2047), on the device";
  if (HX_CALL_RET(&err, "conflictFreeIndex_table", ctx, hx_out(table), hx_i64(elems)) || call_failed(err, ctx)) {
    hx_buf_free(table);
    return;
  }
  memcpy(padded_table, hx_buf_data(table), sizeof padded_table);
  hx_buf_free(table);
  /* conflictFreeIndex must be one-to-one, or two elements would share a word. */
  int top = 0;
  for (int i = 0; i < elems; i++) {
    int p = padded_index(i);
    if (p < 0) {
      HX_FAIL("conflictFreeIndex(%d) = %d: a shared-memory index cannot be negative", i, p);
      return;
    }
    if ((uint32_t)p == POISON || p > 64 * elems) {
      HX_FAIL("conflictFreeIndex(%d) = %d: far beyond any tile's shared memory", i, p);
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
    int p = padded_index(i);
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
  const int words = padded_index(2 * block - 1) + 1;
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

/* A timed call's output against the tile-wise exclusive sums of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const size_t tile = 2 * (size_t)t->extra[1].i;
  hxv_result r;
  if (hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, 1, tile, 0, NULL, &r))
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu] (tile %zu): expected %d, got %d%s", ctx,
            r.first, r.first / tile, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* Both versions in one run, each as a fraction of the device copy bandwidth; the padded one
 * must be faster by the stated factor, and each must meet its own bar (so slowing the
 * unpadded scan down cannot make the speedup). */
static void test_timing(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block"), reps = (int)hx_param_int("reps");
  const int per_batch = (int)hx_param_int("per_batch");
  const double threshold = hx_param_double("threshold");
  const double threshold_padded = hx_param_double("threshold_padded");
  const double min_speedup = hx_param_double("min_padded_speedup");
  if (hx_failures()) return;
  int32_t *h_in = (int32_t *)hx_malloc(n * 4 + 4);
  if (!h_in) return;
  hx_fill_i32(h_in, n, hx_seed(), -1000, 1000);
  char what[64];
  snprintf(what, sizeof what, "seed=%llu", (unsigned long long)hx_seed());
  /* Correct first: a wrong answer is not timed. On emu, the memory model's figures of each. */
  bool wrong = false;
  for (int v = 0; v < 2 && !wrong; v++) {
    const Variant &var = v ? PADDED : UNPADDED;
    wrong = run_on(var, h_in, n, block, what) != 0;
    char call[160];
    snprintf(call, sizeof call, "%s(n=%zu, block=%d)", var.name, n, block);
    if (!wrong) hx_model_note(call, (double)n, "element", 8);
  }
  free(h_in);
  if (wrong) return;
  HX_REQUIRE_TIMING();
  if (n * 4 <= hx_device()->l2_bytes) {
    HX_FAIL("manifest error: timing needs n*4 bytes (%zu) above the L2 cache (%llu bytes)", n * 4,
            (unsigned long long)hx_device()->l2_bytes);
    return;
  }
  const Variant *vs[2] = {&UNPADDED, &PADDED};
  const hx_arg extra[2] = {hx_i64((long long)n), hx_i64(block)};
  double fraction[2], sec[2];
  const double copy_s = hx_time_copy(n * 4, reps, per_batch);
  for (int v = 0; v < 2; v++) {
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, block=%d)", vs[v]->name, n, block);
    const hx_timed t = {vs[v]->name, ctx, n, 4, hx_seed() + (uint64_t)v, -1000, 1000, extra, 2, check_timed, NULL};
    sec[v] = hx_time_calls(&t, reps, per_batch);
    if (sec[v] != sec[v]) return;
    fraction[v] = copy_s / sec[v];
    hx_note("%s: %.3f ms, %.1f GB/s: %.3f of copy (%.1f GB/s)", ctx, sec[v] * 1e3,
            2.0 * (double)(n * 4) / sec[v] * 1e-9, fraction[v], 2.0 * (double)(n * 4) / copy_s * 1e-9);
  }
  hx_note("padded / unpadded speed: %.3f", sec[0] / sec[1]);
  hx_metric("fraction_of_copy", fraction[0]);
  hx_metric("fraction_of_copy_padded", fraction[1]);
  hx_metric("padded_speedup", sec[0] / sec[1]);
  HX_CHECK(fraction[0] >= threshold,
           "scanExcBlelloch(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[0], threshold);
  HX_CHECK(fraction[1] >= threshold_padded,
           "scanExcBlellochPadded(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[1], threshold_padded);
  HX_CHECK(sec[0] / sec[1] >= min_speedup,
           "scanExcBlellochPadded(n=%zu, block=%d) is %.2fx as fast as the unpadded scan; it should be"
           " at least %.2fx (are the padded indices used for every shared-memory access?)",
           n, block, sec[0] / sec[1], min_speedup);
}

/* ---- bank conflicts, counted by the emu ------------------------------------------------------- */

/* Runs one batched scan on random input and returns its shared-memory counters (NULL after a
 * failure). */
static const hx_counters *counted_run(const Variant &v, size_t n, int block, hx_counters *keep) {
  if (run_random(v, n, block, hx_seed())) return NULL;
  const hx_counters *c = hx_last_counters();
  if (!c) return NULL;
  *keep = *c;
  return keep;
}

/* Shared-memory load requests per element scanned, at most `max_loads`: each step of the two
 * sweeps reads its two operands once, and the tile is read out once (176 requests a tile of 1024
 * at block = 512). A step that reads an operand again after its store (`x[a] = x[b]; x[b] +=
 * left;`) makes 36 more a tile: the compiler cannot prove a != b and loads x[b] twice, on the GPU
 * (ncu) as on the emu. Conflicts do not count here (requests, not wavefronts). */
static void check_shared_loads(const char *name, const char *metric, const hx_counters &c, size_t n, int block,
                               double max_loads, double min_loads) {
  const double loads = (double)c.c[HX_C_SLD_REQ] / (double)n;
  hx_metric(metric, loads);
  HX_CHECK(loads <= max_loads,
           "%s(n=%zu, block=%d): %.3f shared-memory load requests per element (%llu); at most %.3f, which is "
           "each sweep step reading its two operands once and the tile read out once: a value read again after "
           "a store (x[a] = x[b]; x[b] += left; loads x[b] twice)? Read both operands into registers first",
           name, n, block, loads, c.c[HX_C_SLD_REQ], max_loads);
  HX_CHECK((double)c.c[HX_C_GST_SECT] * 32.0 >= 4.0 * (double)n,
           "%s(n=%zu, block=%d): its kernels' counted stores, %llu bytes, do not cover the %zu bytes of the "
           "output: the emu did not count the launch that wrote it (the probes switched off around it?), and "
           "counts of another launch cannot stand for it", name, n, block, c.c[HX_C_GST_SECT] * 32ull, 4 * n);
  HX_CHECK(loads >= min_loads,
           "%s(n=%zu, block=%d): %.3f shared-memory load requests per element (%llu); at least %.3f: the up-sweep "
           "and the down-sweep read their operands from the tile in shared memory, level by level (a scan of "
           "warp shuffles, or one that keeps the tile in registers, is not this lab's Blelloch scan)",
           name, n, block, loads, c.c[HX_C_SLD_REQ], min_loads);
}

/* The emu counts every shared-memory access of the student's kernels as the hardware groups
 * them (one request per warp and instruction; a request that needs k passes through the banks
 * has k - 1 conflicts). The padded scan must keep its conflicts per element scanned under
 * `conflicts_threshold`: a count per element, which more requests cannot lower (conflicts per
 * request can be drowned in conflict-free requests). Both figures are shown, and the unpadded
 * scan's beside them. */
static void test_emu_conflicts(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block");
  const double max_rate = hx_param_double("conflicts_threshold");
  const double max_loads = hx_param_double("shared_loads_threshold");
  const double min_loads = hx_param_double("shared_loads_floor");
  if (hx_failures()) return;
  hx_counters pad, unpad;
  bool unpad_counted = false;
  if (!counted_run(PADDED, n, block, &pad)) {
    if (!hx_failures())
      HX_SKIP("the memory counters come from the emu's probes (make grade BACKEND=emu); on a GPU, `timing` "
              "measures the padding's effect");
    hx_not_counted("emu_conflicts");
    return;
  }
  const double req = (double)(pad.c[HX_C_SLD_REQ] + pad.c[HX_C_SST_REQ]);
  const double conf = (double)(pad.c[HX_C_SLD_CONF] + pad.c[HX_C_SST_CONF]);
  const double rate = conf / (double)n;
  hx_metric("conflicts_per_element", rate);
  if (counted_run(UNPADDED, n, block, &unpad)) {
    unpad_counted = true;
    const double ureq = (double)(unpad.c[HX_C_SLD_REQ] + unpad.c[HX_C_SST_REQ]);
    const double uconf = (double)(unpad.c[HX_C_SLD_CONF] + unpad.c[HX_C_SST_CONF]);
    hx_note("scanExcBlelloch(n=%zu, block=%d): %.0f bank conflicts (%.2f per element) in %.0f shared requests "
            "(%.2f per request); loads %llu wavefronts, stores %llu", n, block, uconf, uconf / (double)n, ureq,
            ureq > 0 ? uconf / ureq : 0.0, unpad.c[HX_C_SLD_WAVE], unpad.c[HX_C_SST_WAVE]);
  }
  hx_note("scanExcBlellochPadded(n=%zu, block=%d): %.0f bank conflicts (%.2f per element; at most %.2f) in %.0f "
          "shared requests (%.2f per request); loads %llu wavefronts, stores %llu", n, block, conf, rate, max_rate,
          req, req > 0 ? conf / req : 0.0, pad.c[HX_C_SLD_WAVE], pad.c[HX_C_SST_WAVE]);
  HX_CHECK(req > 0, "scanExcBlellochPadded(n=%zu, block=%d): the emu counted no shared-memory access", n, block);
  HX_CHECK(pad.c[HX_C_SATOM] == 0,
           "scanExcBlellochPadded(n=%zu, block=%d): %llu atomic operations on shared memory, whose bank conflicts "
           "the emu does not count: the scan needs none", n, block, pad.c[HX_C_SATOM]);
  HX_CHECK(rate <= max_rate,
           "scanExcBlellochPadded(n=%zu, block=%d): %.2f bank conflicts per element (%.0f for %zu elements); at "
           "most %.2f: some accesses still share a bank", n, block, rate, conf, n, max_rate);
  check_shared_loads("scanExcBlellochPadded", "shared_loads_per_element_padded", pad, n, block, max_loads, min_loads);
  if (unpad_counted)
    check_shared_loads("scanExcBlelloch", "shared_loads_per_element", unpad, n, block, max_loads, min_loads);
}

static const hx_test TESTS[] = {
    {"example", test_example},
    {"single_tile", test_single_tile},
    {"batched", test_batched},
    {"padded_example", test_padded_example},
    {"padded_single_tile", test_padded_single_tile},
    {"padded_batched", test_padded_batched},
    {"bank_conflicts", test_bank_conflicts},
    {"emu_conflicts", test_emu_conflicts},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("03", TESTS);
