/**
 * @file lab08_test.c
 * @brief Lab 08's tests: the single pass with a carry, the two scans across ranks, the compaction
 *        across ranks, the rule that no call waits for the device, and the one-rank timing.
 *
 * The test owns every rank's buffers (each on its rank's device: `r % devices`), fills the
 * shards, and checks each rank's output against the scan of the whole array it computes itself.
 * Sizes, rank counts and thresholds come from `grader/manifests/lab08.toml`.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/** Most shards one call makes (a call's arguments hold three buffers a rank). */
#define MAX_RANKS 12

/** The emu's virtual devices: one a rank, for the largest count a test uses. */
static void emu_devices(void) { setenv("SCANLAB_EMU_DEVICES", "12", 0); }

/** The device rank @p r of @p g uses (the driver's rule: its own, or shared round robin). */
static int rank_device(int r) {
  const int d = hx_device()->devices;
  return strcmp(hx_backend(), "cuda") == 0 ? 0 : r % (d > 0 ? d : 1);
}

/** A call's name for messages: `fn(G ranks, shards {a, b, ...}, seed)`. */
static const char *ranks_ctx(const char *fn, int g, const size_t *n, uint64_t seed, const char *extra) {
  char shards[200] = "";
  for (int r = 0, len = 0; r < g && len < (int)sizeof shards - 24; r++)
    len += snprintf(shards + len, sizeof shards - (size_t)len, "%s%zu", r ? ", " : "", n[r]);
  return hx_ctx("%s(%d rank%s, shards {%s}%s, seed=%llu)", fn, g, g == 1 ? "" : "s", shards, extra,
                (unsigned long long)seed);
}

/** What the call's value says a rank called that waited for the device. */
static const char *sync_name(int code) {
  switch (code) {
    case 1: return "cudaDeviceSynchronize";
    case 2: return "cudaStreamSynchronize";
    case 3: return "cudaEventSynchronize";
    case 4: return "cudaMemset, which waits for the device; cudaMemsetAsync on the rank's stream does not";
    case 5: return "cudaMemcpyAsync with host memory on one side: a round trip through the host, which waits for the copy";
    default: return "a call that waits for the device";
  }
}

/** Fails the test when the call's value names a rank that waited for the device. */
static int report_sync(long long value, const char *ctx) {
  const unsigned ranks = (unsigned)(value & 0xffffffffLL);
  if (!ranks) return 0;
  int first = 0;
  while (!(ranks >> first & 1u)) first++;
  HX_FAIL("%s: rank %d waited for the device inside the call (%s): the call must only queue work on the "
          "rank's stream and return; the all-gather and the kernels are ordered by the stream alone",
          ctx, first, sync_name((int)((value >> 32) & 0xff)));
  return 1;
}

/** The shard sizes of trial @p t of @p g ranks: `sizes[(r + t) % count]`. */
static void shard_sizes(const long long *sizes, int count, int g, int t, size_t *n) {
  for (int r = 0; r < g; r++) n[r] = (size_t)sizes[(r + t) % count];
}

/* ---- the scans across ranks ----------------------------------------------------------------- */

/** Calls @p fn over @p g shards of sizes @p n (random in [lo, hi] from @p seed); checks every
 *  rank's part of the global inclusive scan; @p value (if not NULL) receives the call's value. */
static size_t check_ranks_scan(const char *fn, int g, const size_t *n, uint64_t seed, long long *value) {
  hx_buf *in[MAX_RANKS] = {0}, *out[MAX_RANKS] = {0};
  size_t total = 0, bad = 0;
  for (int r = 0; r < g; r++) total += n[r];
  int32_t *all = (int32_t *)hx_malloc((total ? total : 1) * sizeof(int32_t));
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  const char *ctx = ranks_ctx(fn, g, n, seed, "");
  char saved[400];
  snprintf(saved, sizeof saved, "%s", ctx);
  hx_arg args[1 + 2 * MAX_RANKS];
  int na = 0;
  args[na++] = hx_i64(g);
  hx_fill_i32(all, total, seed, lo, hi);
  size_t at = 0;
  for (int r = 0; all && r < g; r++) {
    in[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    out[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    if (!in[r] || !out[r]) goto done;
    if (n[r]) memcpy(hx_buf_data(in[r]), all + at, n[r] * sizeof(int32_t));
    at += n[r];
    args[na++] = hx_in(in[r]);
    args[na++] = hx_out(out[r]);
  }
  if (!all) goto done;
  {
    long long ret = 0;
    bad = hx_call_list(&ret, fn, saved, na, args);
    if (value) *value = ret;
    if (bad) goto done;
    /* the whole array's inclusive scan, then each rank's part of it */
    int32_t run = 0;
    for (size_t i = 0; i < total; i++) all[i] = run = (int32_t)((uint32_t)run + (uint32_t)all[i]);
    at = 0;
    for (int r = 0; r < g && !bad; r++) {
      bad += hx_check_i32(hx_ctx("%s, rank %d", saved, r), all + at, (const int32_t *)hx_buf_data(out[r]), n[r]);
      at += n[r];
    }
  }
done:
  for (int r = 0; r < g; r++) hx_buf_free(in[r]), hx_buf_free(out[r]);
  free(all);
  return bad + (size_t)hx_failures();
}

static void test_propagate_example(void) {
  emu_devices();
  const size_t n[3] = {3, 0, 3};
  /* shards {3, 1, 7}, {}, {0, 4, 1}: as the header's worked example (a seeded fill would not
   * give those values, so the example's own buffers are filled here) */
  hx_buf *in[3], *out[3];
  const int32_t vals[2][3] = {{3, 1, 7}, {0, 4, 1}};
  const int32_t want[2][3] = {{3, 4, 11}, {11, 15, 16}};
  for (int r = 0; r < 3; r++) {
    in[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    out[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    if (!in[r] || !out[r]) return;
  }
  memcpy(hx_buf_data(in[0]), vals[0], sizeof vals[0]);
  memcpy(hx_buf_data(in[2]), vals[1], sizeof vals[1]);
  const char *names[2] = {"scanShardsPropagate", "scanShardsReduceThenScan"};
  for (int k = 0; k < 2; k++) {
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s(3 ranks, shards {3, 1, 7}, {}, {0, 4, 1})", names[k]);
    if (HX_CALL(names[k], ctx, hx_i64(3), hx_in(in[0]), hx_out(out[0]), hx_in(in[1]), hx_out(out[1]),
                hx_in(in[2]), hx_out(out[2])))
      break;
    if (hx_check_i32(hx_ctx("%s, rank 0", ctx), want[0], (const int32_t *)hx_buf_data(out[0]), 3) ||
        hx_check_i32(hx_ctx("%s, rank 2", ctx), want[1], (const int32_t *)hx_buf_data(out[2]), 3))
      break;
  }
  for (int r = 0; r < 3; r++) hx_buf_free(in[r]), hx_buf_free(out[r]);
}


/* ---- the single pass with a carry ------------------------------------------------------------ */

static void test_carry(void) {
  emu_devices();
  long long sizes[32];
  const int ns = hx_param_int_list("sizes", sizes, 32);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  uint64_t seed = hx_seed();
  for (int k = 0; k < ns && !hx_failures(); k++, seed++) {
    const size_t n = (size_t)sizes[k];
    hx_rng rng = hx_rng_make(seed ^ 0x5ca1ab1eULL);
    const int32_t carry = (int32_t)hx_rng_next(&rng);
    const char *c = hx_ctx("scanIncCarry(n=%zu, *carry=%d, seed=%llu)", n, carry, (unsigned long long)seed);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s", c);
    hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4), *cb = hx_buf_new(1, 4);
    int32_t *want = (int32_t *)hx_malloc((n ? n : 1) * sizeof(int32_t));
    if (in && out && cb && want) {
      hx_fill_i32((int32_t *)hx_buf_data(in), n, seed, lo, hi);
      *(int32_t *)hx_buf_data(cb) = carry;
      const int32_t *x = (const int32_t *)hx_buf_data(in);
      uint32_t run = (uint32_t)carry;
      for (size_t i = 0; i < n; i++) want[i] = (int32_t)(run += (uint32_t)x[i]);
      long long value = 0;
      if (HX_CALL_RET(&value, "scanIncCarry", ctx, hx_in(in), hx_out(out), hx_in(cb)) == 0)
        hx_check_i32(ctx, want, (const int32_t *)hx_buf_data(out), n);
    }
    free(want);
    hx_buf_free(in), hx_buf_free(out), hx_buf_free(cb);
  }
}

/* ---- the compaction across ranks ------------------------------------------------------------- */

static size_t check_compact(int g, const size_t *n, uint64_t seed, int32_t pivot, long long *value) {
  hx_buf *in[MAX_RANKS] = {0}, *out[MAX_RANKS] = {0}, *where[MAX_RANKS] = {0};
  size_t total = 0, bad = 0;
  for (int r = 0; r < g; r++) total += n[r];
  int32_t *all = (int32_t *)hx_malloc((total ? total : 1) * sizeof(int32_t));
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  char ctx[400], extra[48];
  snprintf(extra, sizeof extra, ", pivot %d", pivot);
  snprintf(ctx, sizeof ctx, "%s", ranks_ctx("compactShards", g, n, seed, extra));
  hx_arg a[2 + 3 * MAX_RANKS];
  int na = 0;
  a[na++] = hx_i64(g);
  a[na++] = hx_i64(pivot);
  if (!all) return 1;
  hx_fill_i32(all, total, seed, lo, hi);
  size_t at = 0;
  for (int r = 0; r < g; r++) {
    in[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    out[r] = hx_buf_new_on(rank_device(r), n[r], 4);
    where[r] = hx_buf_new_on(rank_device(r), 2, 8);
    if (!in[r] || !out[r] || !where[r]) goto done;
    if (n[r]) memcpy(hx_buf_data(in[r]), all + at, n[r] * sizeof(int32_t));
    at += n[r];
    a[na++] = hx_in(in[r]);
    a[na++] = hx_out(out[r]);
    a[na++] = hx_out(where[r]);
  }
  bad = hx_call_list(value, "compactShards", ctx, na, a);
  if (bad) goto done;
  {
    /* each rank's kept elements in order, and where they go in the whole compaction */
    int64_t before = 0, kept_all = 0;
    for (size_t i = 0; i < total; i++) kept_all += all[i] > pivot;
    at = 0;
    for (int r = 0; r < g && !bad; r++) {
      int32_t *want = (int32_t *)hx_malloc((n[r] ? n[r] : 1) * sizeof(int32_t));
      size_t kept = 0;
      for (size_t i = 0; want && i < n[r]; i++)
        if (all[at + i] > pivot) want[kept++] = all[at + i];
      if (want) bad += hx_check_i32(hx_ctx("%s, rank %d's kept elements", ctx, r), want,
                                    (const int32_t *)hx_buf_data(out[r]), kept);
      free(want);
      const int64_t *w = (const int64_t *)hx_buf_data(where[r]);
      if (!bad && (w[0] != before || w[1] != kept_all)) {
        HX_FAIL("%s, rank %d: where = {%lld, %lld}, expected {%lld, %lld} (the kept elements of the lower ranks, "
                "and of all ranks)%s",
                ctx, r, (long long)w[0], (long long)w[1], (long long)before, (long long)kept_all,
                hx_poison_note(w, 8, 0));
        bad++;
      }
      before += (int64_t)kept;
      at += n[r];
    }
  }
done:
  for (int r = 0; r < g; r++) hx_buf_free(in[r]), hx_buf_free(out[r]), hx_buf_free(where[r]);
  free(all);
  return bad + (size_t)hx_failures();
}

/** Every rank count of `ranks`, every rotation of `sizes` over the ranks, for a scan across ranks
 *  or (fn "compactShards") the compaction at `pivot`. */
static void shards_test(const char *fn) {
  emu_devices();
  const int compact = strcmp(fn, "compactShards") == 0;
  long long ranks[16], sizes[32];
  const int nr = hx_param_int_list("ranks", ranks, 16), ns = hx_param_int_list("sizes", sizes, 32);
  const int32_t pivot = compact ? (int32_t)hx_param_int("pivot") : 0;
  if (nr < 0 || ns < 1) return;
  uint64_t seed = hx_seed();
  for (int i = 0; i < nr; i++) {
    const int g = (int)ranks[i];
    if (g < 1 || g > MAX_RANKS) {
      HX_FAIL("manifest: ranks = %d (1 to %d)", g, MAX_RANKS);
      return;
    }
    for (int t = 0; t < ns; t++) {
      size_t n[MAX_RANKS];
      shard_sizes(sizes, ns, g, t, n);
      if (compact ? check_compact(g, n, seed++, pivot, NULL) : check_ranks_scan(fn, g, n, seed++, NULL)) return;
    }
  }
}

static void test_propagate_shards(void) { shards_test("scanShardsPropagate"); }
static void test_rts_shards(void) { shards_test("scanShardsReduceThenScan"); }
static void test_compact_shards(void) { shards_test("compactShards"); }

/* ---- no call waits for the device ----------------------------------------------------------- */

/* Each function runs once on shards of different sizes; the call's value names a rank that called
 * something that waits for the device (the driver counts the calls, the same way on every
 * backend), and what. */
static void test_no_host_sync(void) {
  emu_devices();
  const int g = (int)hx_param_int("ranks");
  const size_t per = (size_t)hx_param_int("n");
  const int32_t pivot = (int32_t)hx_param_int("pivot");
  if (hx_failures()) return;
  if (g < 1 || g > MAX_RANKS) HX_SKIP("manifest: ranks = %d (1 to %d)", g, MAX_RANKS);
  const char *fns[2] = {"scanShardsPropagate", "scanShardsReduceThenScan"};
  size_t n[MAX_RANKS];
  for (int r = 0; r < g; r++) n[r] = per + (size_t)r;
  for (int k = 0; k < 2; k++) {
    long long value = 0;
    if (check_ranks_scan(fns[k], g, n, hx_seed() + (uint64_t)k, &value)) return;
    if (report_sync(value, ranks_ctx(fns[k], g, n, hx_seed() + (uint64_t)k, ""))) return;
  }
  {
    long long value = 0;
    char extra[48];
    snprintf(extra, sizeof extra, ", pivot %d", pivot);
    if (check_compact(g, n, hx_seed() + 2, pivot, &value)) return;
    if (report_sync(value, ranks_ctx("compactShards", g, n, hx_seed() + 2, extra))) return;
  }
  {
    hx_buf *in = hx_buf_new(per, 4), *out = hx_buf_new(per, 4), *cb = hx_buf_new(1, 4);
    long long value = 0;
    if (in && out && cb) {
      hx_fill_i32((int32_t *)hx_buf_data(in), per, hx_seed(), -1000, 1000);
      *(int32_t *)hx_buf_data(cb) = 0;
      const char *ctx = hx_ctx("scanIncCarry(n=%zu, *carry=0)", per);
      char saved[120];
      snprintf(saved, sizeof saved, "%s", ctx);
      if (HX_CALL_RET(&value, "scanIncCarry", saved, hx_in(in), hx_out(out), hx_in(cb)) == 0)
        report_sync(value, saved);
    }
    hx_buf_free(in), hx_buf_free(out), hx_buf_free(cb);
  }
}

/* ---- one rank, timed ------------------------------------------------------------------------ */

static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  hxv_result r;
  if (hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, 0, 0, 0, NULL, &r))
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu]: expected %d, got %d%s", ctx, r.first,
            (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* Reduce-then-scan of one rank, on one GPU: 12 bytes an element at best, so at most 0.67 of the
 * copy's bandwidth (which moves 8). Ranks on several GPUs are timed by `make ranks ARGS="--time N"`
 * (labs/08-multi-gpu/ranks/), not graded yet. */
static void test_timing_rts_one(void) {
  emu_devices();
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  {
    const size_t shard[1] = {n};
    if (check_ranks_scan("scanShardsReduceThenScan", 1, shard, hx_seed(), NULL)) return;
  }
  char what[160];
  snprintf(what, sizeof what, "scanShardsReduceThenScan(1 rank, n=%zu)", n);
  hx_model_note(what, (double)n, "element", 8); /* on emu: what the memory model counted */
  HX_REQUIRE_TIMING();
  char ctx[160];
  snprintf(ctx, sizeof ctx, "scanShardsReduceThenScan(1 rank, n=%zu)", n);
  const hx_timed t = {"scanShardsReduceThenScan_1rank", ctx, n, 4, hx_seed(), -1000, 1000, NULL, 0, check_timed, NULL};
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return;
  const double copy_s = hx_time_copy(n * sizeof(int32_t), reps, per_batch);
  const double fraction = copy_s / s;
  hx_metric("fraction_of_copy", fraction);
  hx_note("%s: %.3f ms, %.0f GB/s moved at 12 bytes an element; copy %.0f GB/s: %.3f of copy, the bound 0.667 "
          "(threshold %.3f)",
          ctx, s * 1e3, 12.0 * (double)n / s * 1e-9, 8.0 * (double)n / copy_s * 1e-9, fraction, threshold);
  HX_CHECK(fraction >= threshold, "%s reached %.3f of copy bandwidth; the threshold is %.3f", ctx, fraction,
           threshold);
}

static const hx_test TESTS[] = {
    {"carry", test_carry},
    {"example", test_propagate_example},
    {"propagate_shards", test_propagate_shards},
    {"rts_shards", test_rts_shards},
    {"compact_shards", test_compact_shards},
    {"no_host_sync", test_no_host_sync},
    {"timing_rts_one", test_timing_rts_one},
    {NULL, NULL},
};
HX_SUITE("08", TESTS);
