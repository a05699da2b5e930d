/**
 * @file lab02_test.c
 * @brief Lab 02 tests: Kogge-Stone inclusive sums of one block (in place and double-buffered)
 *        and of many tiles at once, at edge sizes, odd block sizes and large sizes.
 *
 * The scans run in the driver (grader/trusted/tests/lab02_calls.cu). Every output sits between guard
 * bands and is poisoned before each call, so an element never written and a write past the
 * end are both caught; every input must come back unchanged. Sizes, block sizes, seeds and
 * thresholds come from `grader/manifests/lab02.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scan_ref.h"

/** Largest block size of the GPUs the kit targets (kogge_stone.h's KS_MAX_BLOCK). */
#define KS_MAX_BLOCK 1024
#define POISON 0xDEADBEEFu

/* ---- the three functions under test ------------------------------------------------------ */

typedef struct {
  const char *name; /* the call table's name, and the student's function */
  int tiles;        /* 1: tile-wise result, any n; 0: one block, n <= blockSize */
} Variant;

static const Variant KS = {"scanIncKoggeStone", 0};
static const Variant DB = {"scanIncKoggeStoneDB", 0};
static const Variant TILES = {"scanIncKoggeStoneTiles", 1};

/* Inputs are small (|x| <= 1000) so that no tile's sum comes near overflow. */
static const int32_t LO = -1000, HI = 1000;

/* ---- one checked call ----------------------------------------------------------------------- */

/* Compares a whole output; one failure names the first wrong element (and its tile, for the
 * batched scan), the values, and how many elements and tiles are wrong. */
static size_t check_scan(const char *ctx, const int32_t *expect, const int32_t *got, size_t n,
                         int block, int tiles) {
  size_t bad = 0, first = 0, bad_tiles = 0, last_tile = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    if (expect[i] == got[i]) continue;
    if (bad++ == 0) first = i;
    if (i / (size_t)block != last_tile) {
      last_tile = i / (size_t)block;
      bad_tiles++;
    }
  }
  if (!bad) return 0;
  const char *poison = hx_poison_note(&got[first], 4, first);
  if (tiles) {
    size_t ntiles = (n + (size_t)block - 1) / (size_t)block;
    HX_FAIL("%s: first mismatch at [%zu] (tile %zu, element %zu of the tile): expected %d, got %d%s "
            "(%zu mismatch%s in %zu of %zu tiles)", ctx, first, first / (size_t)block,
            first % (size_t)block, (int)expect[first], (int)got[first], poison, bad,
            bad == 1 ? "" : "es", bad_tiles, ntiles);
  } else {
    HX_FAIL("%s: first mismatch at [%zu]: expected %d, got %d%s (%zu mismatch%s)", ctx, first,
            (int)expect[first], (int)got[first], poison, bad, bad == 1 ? "" : "es");
  }
  return bad;
}

/* Runs v on h_in[0..n-1] with blockSize threads per block and checks the output.
 * Returns the number of problems (0: correct). */
static size_t run_on(const Variant *v, const int32_t *h_in, size_t n, int block, const char *ctx) {
  int32_t *expect = (int32_t *)hx_malloc(n * sizeof(int32_t));
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  size_t bad = 1;
  if (expect && in && out) {
    if (v->tiles)
      ref_scan_inc_tiles_i32(h_in, expect, n, (size_t)block);
    else
      ref_scan_inc_i32(h_in, expect, n, REF_ADD);
    memcpy(hx_buf_data(in), h_in, n * sizeof(int32_t));
    bad = HX_CALL(v->name, ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(block));
    if (!bad) bad = check_scan(ctx, expect, (const int32_t *)hx_buf_data(out), n, block, v->tiles);
  }
  hx_buf_free(in);
  hx_buf_free(out);
  free(expect);
  return bad;
}

/* Seeded random input of n ints, then run_on(). */
static size_t run_random(const Variant *v, size_t n, int block, uint64_t seed) {
  int32_t *in = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!in) return 1;
  hx_fill_i32(in, n, seed, LO, HI);
  char ctx[256];
  snprintf(ctx, sizeof ctx, "%s(n=%zu, blockSize=%d, seed=%llu)", v->name, n, block,
           (unsigned long long)seed);
  size_t bad = run_on(v, in, n, block, ctx);
  free(in);
  return bad;
}

/* Calls v with arguments it must reject: it must launch nothing and leave the output alone. */
static void expect_rejected(const Variant *v, size_t n, int block, const char *why) {
  const size_t alloc = n ? n : 1;
  hx_buf *in = hx_buf_new(alloc, 4), *out = hx_buf_new(alloc, 4);
  char ctx[256];
  snprintf(ctx, sizeof ctx, "%s(n=%zu, blockSize=%d)", v->name, n, block);
  if (in && out) {
    memset(hx_buf_data(in), 0, alloc * 4);
    if (HX_CALL(v->name, ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(block)) == 0) {
      size_t written = 0;
      const uint32_t *got = (const uint32_t *)hx_buf_data(out);
      for (size_t i = 0; i < alloc; i++) written += got[i] != POISON;
      if (written)
        HX_FAIL("%s: %s, so nothing may be launched, but %zu output element%s changed", ctx, why,
                written, written == 1 ? "" : "s");
    }
  }
  hx_buf_free(in);
  hx_buf_free(out);
}

/* ---- test bodies shared by the two single-block forms ------------------------------------- */

/* The worked example {3,1,7,0,4,1,6,3}, in blocks of exactly 8 threads and of more. */
static void example(const Variant *v) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  long long blocks[16];
  int nb = hx_param_int_list("blocks", blocks, 16);
  for (int b = 0; b < nb; b++) {
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s(in={3,1,7,0,4,1,6,3}, n=8, blockSize=%lld)", v->name, blocks[b]);
    run_on(v, in, 8, (int)blocks[b], ctx);
  }
}

/* n = 0, 1, 31, 32, 33 in one block; n = B-1 and B for block sizes B around a power of two;
 * and the arguments that must be rejected. */
static void edge_sizes(const Variant *v) {
  long long sizes[16], blocks[16];
  int ns = hx_param_int_list("sizes", sizes, 16);
  int nb = hx_param_int_list("edge_blocks", blocks, 16);
  int block = (int)hx_param_int("block");
  if (hx_failures()) return;
  for (int s = 0; s < ns; s++) run_random(v, (size_t)sizes[s], block, hx_seed() + (uint64_t)s);
  for (int b = 0; b < nb; b++) {
    run_random(v, (size_t)blocks[b] - 1, (int)blocks[b], hx_seed() + 100 + (uint64_t)b);
    run_random(v, (size_t)blocks[b], (int)blocks[b], hx_seed() + 200 + (uint64_t)b);
  }
  expect_rejected(v, (size_t)block + 1, block, "n is larger than blockSize");
  expect_rejected(v, 1, 0, "blockSize 0 is not in 1..1024");
  expect_rejected(v, 1, KS_MAX_BLOCK + 1, "blockSize 1025 is not in 1..1024");
}

/* Random data in blocks of many sizes (powers of two, and not; multiples of 32, and not):
 * a full block (n = B) and a partial one (n drawn from 1..B). */
static void block_sizes(const Variant *v) {
  long long blocks[32];
  int nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  hx_rng r = hx_rng_make(hx_seed());
  for (int b = 0; b < nb; b++) {
    int block = (int)blocks[b];
    run_random(v, (size_t)block, block, hx_seed() + (uint64_t)b);
    size_t n = (size_t)hx_rng_range(&r, 1, block);
    run_random(v, n, block, hx_seed() + 1000 + (uint64_t)b);
  }
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_ks_example(void) { example(&KS); }
static void test_ks_edge_sizes(void) { edge_sizes(&KS); }
static void test_ks_block_sizes(void) { block_sizes(&KS); }
static void test_db_example(void) { example(&DB); }
static void test_db_edge_sizes(void) { edge_sizes(&DB); }
static void test_db_block_sizes(void) { block_sizes(&DB); }

/* The batched scan: every (size, block) pair; sizes below one tile, exact multiples of the
 * tile, and short last tiles. */
static void test_tiles(void) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++)
    for (int s = 0; s < ns; s++)
      run_random(&TILES, (size_t)sizes[s], (int)blocks[b], hx_seed() + (uint64_t)(s * 37 + b));
  expect_rejected(&TILES, 100, 0, "blockSize 0 is not in 1..1024");
}

static void test_tiles_large(void) {
  size_t n = (size_t)hx_param_int("n");
  long long blocks[16];
  int nb = hx_param_int_list("blocks", blocks, 16);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++) run_random(&TILES, n, (int)blocks[b], hx_seed() + (uint64_t)b);
}

/* ---- timing --------------------------------------------------------------------------------- */

/* A timed call's output against the tile-wise sums of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const size_t block = (size_t)t->extra[1].i;
  hxv_result r;
  if (!hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, 0, block, 0, NULL, &r)) return 0;
  if (t->user) /* the comparison kernel, not graded */
    hx_note("%s gives a wrong answer at [%zu] (does it use blockIdx.x?): not timed", ctx, r.first);
  else
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu] (tile %zu): expected %d, got %d%s", ctx,
            r.first, r.first / block, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* The batched scan reads and writes every element once, as a copy does: report it as a
 * fraction of the device copy, timed the same way. The in-place kernel, launched the same
 * way, is reported beside it (not graded) to show what the second barrier costs. */
static void test_timing(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block"), reps = (int)hx_param_int("reps");
  const int per_batch = (int)hx_param_int("per_batch");
  const double threshold = hx_param_double("threshold");
  if (hx_failures()) return;
  char ctx[256];
  snprintf(ctx, sizeof ctx, "scanIncKoggeStoneTiles(n=%zu, blockSize=%d, seed=%llu)", n, block,
           (unsigned long long)hx_seed());
  /* Correct first (on emu, that is all). */
  {
    int32_t *in = (int32_t *)hx_malloc(n * sizeof(int32_t));
    if (!in) return;
    hx_fill_i32(in, n, hx_seed(), LO, HI);
    const size_t bad = run_on(&TILES, in, n, block, ctx);
    free(in);
    if (bad) return;
  }
  char what[160];
  snprintf(what, sizeof what, "scanIncKoggeStoneTiles(n=%zu, blockSize=%d)", n, block);
  hx_model_note(what, (double)n, "element", 8); /* on emu: what the memory model counted */
  HX_REQUIRE_TIMING();
  if (n * sizeof(int) <= hx_device()->l2_bytes) {
    HX_FAIL("manifest error: timing needs n*4 bytes (%zu) above the L2 cache (%llu bytes)",
            n * sizeof(int), (unsigned long long)hx_device()->l2_bytes);
    return;
  }
  const double bytes = 2.0 * (double)(n * sizeof(int)); /* read n ints, write n ints */
  const hx_arg extra[2] = {hx_i64((long long)n), hx_i64(block)};
  hx_timed t = {"scanIncKoggeStoneTiles", ctx, n, 4, hx_seed(), LO, HI, extra, 2, check_timed, NULL};
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return; /* a wrong answer: reported */
  const double copy_s = hx_time_copy(n * sizeof(int), reps, per_batch);
  const double fraction = copy_s / s;
  hx_metric("fraction_of_copy", fraction);
  hx_note("scanIncKoggeStoneTiles(n=%zu, blockSize=%d): %.3f ms, %.1f GB/s: %.3f of copy "
          "(%.1f GB/s; threshold %.3f)", n, block, s * 1e3, bytes / s * 1e-9, fraction,
          bytes / copy_s * 1e-9, threshold);
  HX_CHECK(fraction >= threshold,
           "scanIncKoggeStoneTiles(n=%zu, blockSize=%d) reached %.3f of copy bandwidth; the "
           "threshold is %.3f", n, block, fraction, threshold);
  /* Not graded: the in-place kernel on the same tiles, for comparison. */
  if (hx_failures()) return;
  snprintf(ctx, sizeof ctx, "scanIncKoggeStoneKernel on %zu tiles of %d", (n + (size_t)block - 1) / (size_t)block,
           block);
  t.fn = "scanIncKoggeStoneKernel_tiles";
  t.user = &t; /* a wrong answer here is a note, not a failure */
  const double s_ip = hx_time_calls(&t, reps, per_batch);
  if (s_ip == s_ip) {
    hx_metric("fraction_of_copy_in_place", copy_s / s_ip);
    hx_note("scanIncKoggeStoneKernel on the same tiles (two barriers per step, not graded): "
            "%.3f ms: %.3f of copy", s_ip * 1e3, copy_s / s_ip);
  }
}

/* ---- work shared among a block's threads, counted by the emu ------------------------------- */

/* Each scan once, correct, then the emu's count of how its blocks' memory accesses were shared:
 * a scan that thread 0 does alone, one element after another, is right and (on the emu) even
 * quick, but no faster on a GPU than one thread; the emu fails it here, naming that. */
static void test_emu_parallel(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block");
  const double max_share = hx_param_double("max_share"), min_lanes = hx_param_double("min_lanes");
  const double max_accesses = hx_param_double("max_accesses");
  const Variant *all[3] = {&KS, &DB, &TILES};
  for (int k = 0; k < 3; k++) {
    const size_t m = all[k]->tiles ? n : (size_t)block;
    if (run_random(all[k], m, block, hx_seed() + (uint64_t)k)) continue;
    char call[128];
    snprintf(call, sizeof call, "%s(n=%zu, blockSize=%d)", all[k]->name, m, block);
    if (hx_check_parallel(call, max_share, min_lanes) < 0)
      HX_SKIP("the emu's probes count each thread's accesses (make grade BACKEND=emu); on a GPU, `timing` "
              "measures what a serial block costs");
    const hx_counters *c = hx_last_counters();
    const double per = c ? (double)c->c[HX_C_W_ACCESSES] / (double)m : 0;
    if (c) hx_note("%s: %.1f memory accesses per element (at most %.0f)", call, per, max_accesses);
    HX_CHECK(!c || per <= max_accesses,
             "%s: %.1f memory accesses per element, as the emu counts each thread's loads and stores of shared and "
             "global memory; at most %.0f: Kogge-Stone takes log2(blockSize) steps, each a load or two and a store "
             "a thread (a thread that adds up every element before its own makes blockSize / 2 reads on average)",
             call, per, max_accesses);
  }
}

static const hx_test TESTS[] = {
    {"ks_example", test_ks_example},
    {"ks_edge_sizes", test_ks_edge_sizes},
    {"ks_block_sizes", test_ks_block_sizes},
    {"db_example", test_db_example},
    {"db_edge_sizes", test_db_edge_sizes},
    {"db_block_sizes", test_db_block_sizes},
    {"tiles", test_tiles},
    {"tiles_large", test_tiles_large},
    {"emu_parallel", test_emu_parallel},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("02", TESTS);
