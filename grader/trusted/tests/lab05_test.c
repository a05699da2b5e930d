/**
 * @file lab05_test.c
 * @brief Lab 05 tests: the block scan, the any-length block scan, and the three scans of any
 *        length (scan-then-propagate, reduce-then-scan, decoupled look-back).
 *
 * The scans run in the driver (grader/trusted/tests/lab05_calls.cu). Sizes, seeds, value ranges and
 * thresholds come from `grader/manifests/lab05.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scan_ref.h"

/* ---- the functions under test ---------------------------------------------------------------- */

typedef struct {
  const char *name; /* the call table's name, and the student's function */
  int exclusive;
} variant;

static const variant ANY_INC = {"scanIncBlockAnyLength", 0};
static const variant ANY_EXC = {"scanExcBlockAnyLength", 1};
static const variant PROP_INC = {"scanIncPropagate", 0};
static const variant PROP_EXC = {"scanExcPropagate", 1};
static const variant RTS_INC = {"scanIncReduceThenScan", 0};
static const variant RTS_EXC = {"scanExcReduceThenScan", 1};
static const variant LB_INC = {"scanIncLookback", 0};
static const variant LB_EXC = {"scanExcLookback", 1};

#define MAX_SIZES 64

/* ---- helpers ----------------------------------------------------------------------------------- */

/* Runs v on seeded random ints in [lo, hi] into a guarded, poisoned output (or in place) and
 * compares with the CPU reference. Returns the number of problems found (0: correct). */
static size_t check_scan(const variant *v, size_t n, uint64_t seed, int32_t lo, int32_t hi,
                         int in_place) {
  size_t bad = 1;
  int32_t *expect = (int32_t *)hx_malloc((n ? n : 1) * sizeof(int32_t));
  hx_buf *in = hx_buf_new(n, 4), *out = in_place ? in : hx_buf_new(n, 4);
  char ctx[256];
  if (expect && in && out) {
    int32_t *h_in = (int32_t *)hx_buf_data(in);
    hx_fill_i32(h_in, n, seed, lo, hi);
    (v->exclusive ? ref_scan_exc_i32 : ref_scan_inc_i32)(h_in, expect, n, REF_ADD);
    snprintf(ctx, sizeof ctx, "%s(n=%zu, %svalues in [%d, %d], seed=%llu)", v->name, n,
             in_place ? "in place, " : "", lo, hi, (unsigned long long)seed);
    if (in_place)
      bad = HX_CALL(v->name, ctx, hx_inout(in), hx_inout(in), hx_i64((long long)n));
    else
      bad = HX_CALL(v->name, ctx, hx_in(in), hx_out(out), hx_i64((long long)n));
    if (!bad) bad = hx_check_i32(ctx, expect, (const int32_t *)hx_buf_data(out), n);
    /* On the emu, the output must have been stored by a kernel: a scan done by host code on
     * device memory it reopened (or reached some other way around the lab's rules) is right
     * and moves nothing through the device; on a GPU the timing tests see it. Only from 4096
     * elements: a small call may rightly store nothing (an inclusive scan of one element in
     * place). */
    const hx_counters *c = bad || n < 4096 ? NULL : hx_last_counters();
    if (c && (double)c->c[HX_C_GST_SECT] * 32.0 < 4.0 * (double)n) {
      HX_FAIL("%s: right, but its kernels stored %llu bytes, less than the %zu bytes of the output: the output was "
              "not written by a kernel (a scan on the host?)", ctx, c->c[HX_C_GST_SECT] * 32ull, 4 * n);
      bad = 1;
    }
  }
  free(expect);
  hx_buf_free(in);
  if (!in_place) hx_buf_free(out);
  return bad;
}

/* The manifest's `sizes` list, checked with every variant given; stops a variant at its first
 * failing size so the log shows one clear message per function. */
static void check_sizes(const variant *const *vs, int nv, int in_place) {
  long long sizes[MAX_SIZES];
  const int count = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (count < 0 || hx_failures()) return;
  for (int k = 0; k < nv; k++)
    for (int s = 0; s < count; s++)
      if (check_scan(vs[k], (size_t)sizes[s], hx_seed() + (uint64_t)s, lo, hi, in_place)) break;
}

/* ---- part 1: the block scan -------------------------------------------------------------------- */

/* scanIncBlockTiles on an input: every block scans its own tile of `block` elements. */
static size_t check_tiles(const int32_t *h_in, size_t n, int block, const char *ctx) {
  int32_t *expect = (int32_t *)hx_malloc((n ? n : 1) * sizeof(int32_t));
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  size_t bad = 1;
  if (expect && in && out) {
    memcpy(hx_buf_data(in), h_in, n * sizeof(int32_t));
    ref_scan_inc_tiles_i32(h_in, expect, n, (size_t)block);
    bad = HX_CALL("scanIncBlockTiles", ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(block));
    if (!bad) bad = hx_check_i32(ctx, expect, (const int32_t *)hx_buf_data(out), n);
  }
  free(expect);
  hx_buf_free(in);
  hx_buf_free(out);
  return bad;
}

static void test_block_example(void) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  check_tiles(in, 8, 32, "scanIncBlockTiles(in={3,1,7,0,4,1,6,3}, block=32)");
}

/* Every block scans its own tile of `block` elements: compare with the tile-wise reference. */
static void test_block_sizes(void) {
  long long blocks[16], sizes[MAX_SIZES];
  const int nb = hx_param_int_list("blocks", blocks, 16);
  const int ns = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (nb < 0 || ns < 0 || hx_failures()) return;
  for (int b = 0; b < nb; b++) {
    for (int s = 0; s < ns; s++) {
      const size_t n = (size_t)sizes[s];
      const uint64_t seed = hx_seed() + (uint64_t)s;
      int32_t *in = (int32_t *)hx_malloc((n ? n : 1) * sizeof(int32_t));
      size_t bad = 1;
      if (in) {
        char ctx[256];
        snprintf(ctx, sizeof ctx, "scanIncBlock via scanIncBlockTiles(n=%zu, block=%lld, seed=%llu)", n,
                 blocks[b], (unsigned long long)seed);
        hx_fill_i32(in, n, seed, lo, hi);
        bad = check_tiles(in, n, (int)blocks[b], ctx);
      }
      free(in);
      if (bad) break; /* one message per block size */
    }
  }
}

/* ---- part 2 and 3: scans of any length ---------------------------------------------------------- */

static void test_anylength_inc(void) { const variant *v[] = {&ANY_INC}; check_sizes(v, 1, 0); }
static void test_anylength_exc(void) { const variant *v[] = {&ANY_EXC}; check_sizes(v, 1, 0); }
static void test_propagate_inc(void) { const variant *v[] = {&PROP_INC}; check_sizes(v, 1, 0); }
static void test_propagate_exc(void) { const variant *v[] = {&PROP_EXC}; check_sizes(v, 1, 0); }
static void test_rts_inc(void) { const variant *v[] = {&RTS_INC}; check_sizes(v, 1, 0); }
static void test_rts_exc(void) { const variant *v[] = {&RTS_EXC}; check_sizes(v, 1, 0); }
static void test_lookback_inc(void) { const variant *v[] = {&LB_INC}; check_sizes(v, 1, 0); }
static void test_lookback_exc(void) { const variant *v[] = {&LB_EXC}; check_sizes(v, 1, 0); }

/* out == in: every scan must read a tile before it overwrites it. */
static void test_in_place(void) {
  const variant *v[] = {&ANY_INC, &PROP_INC, &PROP_EXC, &RTS_INC, &RTS_EXC, &LB_INC, &LB_EXC};
  check_sizes(v, (int)(sizeof v / sizeof v[0]), 1);
}

/* Sums that overflow 32 bits wrap around, as the hardware adds. */
static void test_wraparound(void) {
  const variant *v[] = {&ANY_INC, &PROP_INC, &RTS_EXC, &LB_INC, &LB_EXC};
  check_sizes(v, (int)(sizeof v / sizeof v[0]), 0);
}

/* Many calls in a row, growing and shrinking, without freeing: the scratch memory must grow,
 * and every call of (c) must start from a reset tile counter and status words. Then release
 * the scratch and scan once more. */
static void test_repeat(void) {
  long long sizes[MAX_SIZES];
  const int count = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (count < 0 || hx_failures()) return;
  const variant *vs[] = {&LB_INC, &LB_EXC, &PROP_INC, &RTS_INC};
  for (int k = 0; k < 4; k++) {
    for (int s = 0; s < count; s++)
      if (check_scan(vs[k], (size_t)sizes[s], hx_seed() + (uint64_t)s, lo, hi, 0)) return;
    if (hx_callv(NULL, "scanGlobalRelease", "scanGlobalRelease()", hx_end())) return;
    if (check_scan(vs[k], (size_t)sizes[0], hx_seed(), lo, hi, 0)) return;
  }
}

/* ---- more than 2^31 elements ------------------------------------------------------------------ */

/* Runs v on n ints the test generates (on a GPU, on the device: the host never holds them)
 * and checks the output where it lies. Returns the number of problems. */
static size_t check_generated_scan(const variant *v, size_t n, uint64_t seed, hx_buf *in, hx_buf *out,
                                   const char *ctx) {
  size_t bad = HX_CALL(v->name, ctx, hx_in_generated(in, seed, -1000, 1000), hx_out(out), hx_i64((long long)n));
  if (bad) return bad;
  hxv_result r;
  hx_verify_scan(hx_source_gen(seed, -1000, 1000), out, n, v->exclusive, 0, 0, NULL, &r);
  return hx_report_i32(ctx, &r);
}

static void test_huge(void) {
  const size_t n = (size_t)hx_param_int("n");
  if (hx_failures()) return;
  if (!hx_timing_available() && n > ((size_t)1 << 28))
    HX_SKIP("n=%zu needs %zu GiB of device memory and minutes of CPU time: GPU only (the manifest's "
            "emu size is smaller)", n, (2 * n * sizeof(int32_t)) >> 30);
  const size_t need = 2 * n * sizeof(int32_t) + ((size_t)512 << 20);
  const size_t have = (size_t)hx_device()->free_bytes;
  if (hx_timing_available() && have < need)
    HX_SKIP("n=%zu needs %.1f GiB of free device memory; this GPU has %.1f GiB free", n,
            need / 1073741824.0, have / 1073741824.0);
  const uint64_t seed = hx_seed();
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  const variant *vs[] = {&PROP_INC, &RTS_INC, &LB_INC, &LB_EXC};
  for (int k = 0; in && out && k < 4; k++) {
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, seed=%llu)", vs[k]->name, n, (unsigned long long)seed);
    if (check_generated_scan(vs[k], n, seed, in, out, ctx)) break;
  }
  hx_buf_free(in);
  hx_buf_free(out);
}

/* ---- timing ---------------------------------------------------------------------------------------- */

/* A timed call's output against the inclusive sum of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  hxv_result r;
  if (hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, 0, 0, 0, NULL, &r))
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu]: expected %d, got %d%s", ctx,
            r.first, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* Checks v at n, then times it: bandwidth counting n reads and n writes, as a fraction of the
 * device copy, timed the same way. */
static void timing(const variant *v) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  { /* a wrong answer is not timed */
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, values in [-1000, 1000], seed=%llu)", v->name, n,
             (unsigned long long)hx_seed());
    hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
    const size_t bad = !in || !out || check_generated_scan(v, n, hx_seed(), in, out, ctx);
    hx_buf_free(in);
    hx_buf_free(out);
    if (bad) return;
  }
  char what[160];
  snprintf(what, sizeof what, "%s(n=%zu)", v->name, n);
  hx_model_note(what, (double)n, "element", 8); /* on emu: what the memory model counted */
  HX_REQUIRE_TIMING();
  if (n * sizeof(int32_t) < 2 * hx_device()->l2_bytes)
    hx_note("n=%zu is small next to the %llu MB L2 cache: the timing flatters", n,
            (unsigned long long)(hx_device()->l2_bytes >> 20));
  char ctx[160];
  snprintf(ctx, sizeof ctx, "%s(n=%zu)", v->name, n);
  const hx_arg extra[1] = {hx_i64((long long)n)};
  const hx_timed t = {v->name, ctx, n, 4, hx_seed(), -1000, 1000, extra, 1, check_timed, NULL};
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return;
  const double copy_s = hx_time_copy(n * sizeof(int32_t), reps, per_batch);
  const double bytes = 2.0 * (double)(n * sizeof(int32_t));
  const double fraction = copy_s / s;
  hx_metric("fraction_of_copy", fraction);
  hx_note("%s: %.3f ms, %.0f GB/s; copy %.0f GB/s: %.3f of copy (threshold %.3f)", ctx, s * 1e3,
          bytes / s * 1e-9, bytes / copy_s * 1e-9, fraction, threshold);
  HX_CHECK(fraction >= threshold, "%s reached %.3f of copy bandwidth; the threshold is %.3f", ctx, fraction,
           threshold);
}

static void test_timing_propagate(void) { timing(&PROP_INC); }
static void test_timing_rts(void) { timing(&RTS_INC); }
static void test_timing_lookback(void) { timing(&LB_INC); }

/* ---- memory traffic, counted by the emu ---------------------------------------------------- */

/* The emu's probes count every global access of the student's kernels as the hardware groups
 * them into 32-byte sectors. Each scan runs once on random ints; the bytes it moved
 * (hx_bytes_moved) per element are compared with the 8 a copy moves: the single pass must stay
 * under `bytes_threshold`; the three-kernel forms are shown beside it. Volatile loads that read
 * a sector again are left out: how often a tile polls its neighbours' status words depends on
 * the schedule, the data the scan moves does not. */
static double counted_bytes(const variant *v, size_t n, double *requests) {
  if (check_scan(v, n, hx_seed(), -1000, 1000, 0)) return -1;
  const hx_counters *c = hx_last_counters();
  if (!c) return -2;
  *requests = (double)(c->c[HX_C_GLD_REQ] + c->c[HX_C_GST_REQ]);
  return hx_bytes_moved(c) / (double)n;
}

static void test_emu_traffic(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double max_bytes = hx_param_double("bytes_threshold");
  if (hx_failures()) return;
  double req = 0;
  const double lb = counted_bytes(&LB_INC, n, &req);
  if (lb == -2)
    HX_SKIP("the memory counters come from the emu's probes (make grade BACKEND=emu); on a GPU, the timing "
            "tests measure the traffic's cost");
  if (lb < 0) {
    if (hx_failures()) hx_not_counted("emu_traffic");
    return;
  }
  hx_metric("lookback_bytes_per_element", lb);
  char why[400];
  hx_traffic_diagnosis(why, sizeof why); /* what the single pass's counters show, before the others run */
  const variant *others[2] = {&PROP_INC, &RTS_INC};
  for (int k = 0; k < 2; k++) {
    double r = 0;
    const double b = counted_bytes(others[k], n, &r);
    if (b >= 0)
      hx_note("%s(n=%zu): %.2f bytes moved per element in %.0f global requests", others[k]->name, n, b, r);
  }
  hx_note("scanIncLookback(n=%zu): %.2f bytes moved per element in %.0f global requests (a copy moves 8; at most "
          "%.2f)", n, lb, req, max_bytes);
  HX_CHECK(lb >= 7.5, "scanIncLookback(n=%zu): the emu counted %.2f bytes moved per element, less than the 8 a scan "
           "must read and write: its accesses were not counted", n, lb);
  HX_CHECK(lb <= max_bytes,
           "scanIncLookback(n=%zu) moved %.2f bytes per element through global memory (32-byte sectors, as the "
           "emu counts them); a single pass moves 8 plus its status words: at most %.2f%s", n, lb, max_bytes, why);
}

/* ---- work shared among a block's threads, counted by the emu ------------------------------- */

/* The block scan (through scanIncBlockTiles) once, correct, then the emu's count of how its
 * blocks' memory accesses were shared among the threads: a block scan that thread 0 does alone
 * is right, but a GPU runs it no faster than one thread. */
static void test_emu_parallel(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block");
  const double max_share = hx_param_double("max_share"), min_lanes = hx_param_double("min_lanes");
  if (hx_failures()) return;
  int32_t *in = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!in) return;
  hx_fill_i32(in, n, hx_seed(), -1000, 1000);
  char call[128];
  snprintf(call, sizeof call, "scanIncBlock via scanIncBlockTiles(n=%zu, block=%d)", n, block);
  const size_t bad = check_tiles(in, n, block, call);
  free(in);
  if (!bad && hx_check_parallel(call, max_share, min_lanes) < 0)
    HX_SKIP("the emu's probes count each thread's accesses (make grade BACKEND=emu); on a GPU, the timing tests "
            "measure what a serial block costs");
}

/* ---- work spread over blocks, counted by the emu ------------------------------------------- */

/* Each global scan once, correct, in the emu's depth mode, then the emu's counts of how its
 * work was spread over its blocks and how long a chain of it waited on one another. A scan
 * that hands the input to one block (the any-length block scan, launched once), or whose block
 * 0 walks every tile while the others return, is right, and a GPU runs it at one
 * multiprocessor's speed; so does one whose blocks each wait for the block before to finish
 * its tile before they start their own, whatever the grid: what the timing tests would fail,
 * which the emu cannot time. */
static void test_emu_blocks(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double min_blocks = hx_param_double("min_blocks"), min_ways = hx_param_double("min_ways");
  if (hx_failures()) return;
  const variant *vs[] = {&PROP_INC, &RTS_INC, &LB_INC};
  hx_emu_depth(1);
  for (int k = 0; k < 3; k++) {
    if (check_scan(vs[k], n, hx_seed(), -1000, 1000, 0)) {
      if (hx_failures()) hx_not_counted("emu_blocks");
      break;
    }
    char call[96];
    snprintf(call, sizeof call, "%s(n=%zu)", vs[k]->name, n);
    const int spread = hx_check_blocks(call, min_blocks);
    if (spread < 0) {
      hx_skip("the emu's probes count each block's accesses (make grade BACKEND=emu); on a GPU, the timing tests "
              "measure what a grid that leaves its work to a few blocks costs");
      break;
    }
    hx_check_depth(call, 8.0 * (double)n, min_ways);
  }
  hx_emu_depth(0);
}

static const hx_test TESTS[] = {
    {"block_example", test_block_example},
    {"block_sizes", test_block_sizes},
    {"anylength_inc", test_anylength_inc},
    {"anylength_exc", test_anylength_exc},
    {"propagate_inc", test_propagate_inc},
    {"propagate_exc", test_propagate_exc},
    {"rts_inc", test_rts_inc},
    {"rts_exc", test_rts_exc},
    {"lookback_inc", test_lookback_inc},
    {"lookback_exc", test_lookback_exc},
    {"in_place", test_in_place},
    {"wraparound", test_wraparound},
    {"repeat", test_repeat},
    {"huge", test_huge},
    {"emu_traffic", test_emu_traffic},
    {"emu_parallel", test_emu_parallel},
    {"emu_blocks", test_emu_blocks},
    {"timing_propagate", test_timing_propagate},
    {"timing_rts", test_timing_rts},
    {"timing_lookback", test_timing_lookback},
    {NULL, NULL},
};
HX_SUITE("05", TESTS);
