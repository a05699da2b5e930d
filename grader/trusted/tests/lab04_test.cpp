/**
 * @file lab04_test.cpp
 * @brief Lab 04 tests: warp scans (shuffle, exclusive, shared memory) on every lane, with
 *        several operators, partial warps and block sizes that are not a multiple of 32.
 *
 * The tests call warpScanBatch() (kit code in the student's file, run by the driver through
 * grader/trusted/tests/lab04_calls.cu) and check the result warp by warp against a scan on the host,
 * naming the wrong lanes. Sizes, block sizes, seeds and thresholds come from
 * `grader/manifests/lab04.toml`.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- the lab's types and operators, as warp_scan.h defines them (no CUDA header here) ---- */

#define WARP_SIZE 32
#define POISON 0xDEADBEEFu
enum WarpScanVariant { WARP_SCAN_INC = 0, WARP_SCAN_EXC = 1, WARP_SCAN_INC_SMEM = 2 };
struct Add {
  template <typename T>
  T operator()(T a, T b) const { return a + b; }
};
struct Max {
  template <typename T>
  T operator()(T a, T b) const { return a > b ? a : b; }
};
struct Min {
  template <typename T>
  T operator()(T a, T b) const { return a < b ? a : b; }
};
struct Affine {
  uint32_t a, b;
};
struct Compose { /* f, then g */
  Affine operator()(Affine f, Affine g) const {
    Affine r;
    r.a = g.a * f.a;
    r.b = g.a * f.b + g.b;
    return r;
  }
};
/* The element type and operator, as lab04_calls.cu numbers them. */
static int kind_of(int32_t, Add) { return 0; }
static int kind_of(int32_t, Max) { return 1; }
static int kind_of(int32_t, Min) { return 2; }
static int kind_of(float, Add) { return 3; }
static int kind_of(Affine, Compose) { return 4; }

/* ---- how the tests see each type --------------------------------------------------------- */

/* Printing, comparing and generating the element types the tests use. */
static void show(char *buf, size_t cap, int32_t v) {
  snprintf(buf, cap, "%d%s", v, (uint32_t)v == POISON ? " (the poison value: never written)" : "");
}
static void show(char *buf, size_t cap, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  snprintf(buf, cap, "%.9g%s", (double)v, bits == POISON ? " (the poison value: never written)" : "");
}
static void show(char *buf, size_t cap, Affine v) {
  snprintf(buf, cap, "{a=%u, b=%u}%s", v.a, v.b,
           v.a == POISON && v.b == POISON ? " (the poison value: never written)" : "");
}

struct Tolerance { double rtol, atol; };
static bool same(int32_t e, int32_t g, Tolerance) { return e == g; }
static bool same(Affine e, Affine g, Tolerance) { return e.a == g.a && e.b == g.b; }
static bool same(float e, float g, Tolerance t) {
  return !isnan(g) && fabs((double)g - (double)e) <= t.atol + t.rtol * fabs((double)e);
}

static const char *type_name(int32_t) { return "int"; }
static const char *type_name(float) { return "float"; }
static const char *type_name(Affine) { return "Affine"; }
static const char *op_name(Add) { return "Add"; }
static const char *op_name(Max) { return "Max"; }
static const char *op_name(Min) { return "Min"; }
static const char *op_name(Compose) { return "Compose"; }

static const char *variant_name(WarpScanVariant v) {
  return v == WARP_SCAN_INC ? "scanIncWarp" : v == WARP_SCAN_EXC ? "scanExcWarp" : "scanIncWarpSmem";
}

/* Random inputs: small ints for Add (no overflow), the full range for Max and Min. */
static void fill(int32_t *a, size_t n, uint64_t seed, Add) { hx_fill_i32(a, n, seed, -1000, 1000); }
static void fill(int32_t *a, size_t n, uint64_t seed, Max) { hx_fill_i32(a, n, seed, INT32_MIN, INT32_MAX); }
static void fill(int32_t *a, size_t n, uint64_t seed, Min) { hx_fill_i32(a, n, seed, INT32_MIN, INT32_MAX); }
static void fill(float *a, size_t n, uint64_t seed, Add) { hx_fill_f32(a, n, seed, 0.0f, 1.0f); }
static void fill(Affine *a, size_t n, uint64_t seed, Compose) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) {
    a[i].a = (uint32_t)hx_rng_range(&r, 1, 9);
    a[i].b = (uint32_t)hx_rng_range(&r, 0, 9);
  }
}

static int32_t identity_of(int32_t, Add) { return 0; }
static int32_t identity_of(int32_t, Max) { return INT32_MIN; }
static int32_t identity_of(int32_t, Min) { return INT32_MAX; }
static float identity_of(float, Add) { return 0.0f; }
static Affine identity_of(Affine, Compose) { Affine id = {1, 0}; return id; }

/* Integer sums wrap on the GPU; on the host add in unsigned so the reference stays defined. */
template <typename T, typename Op>
static T host_apply(Op op, T a, T b) { return op(a, b); }
template <>
int32_t host_apply<int32_t, Add>(Add, int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* ---- the reference: every run of a warp scanned on its own -------------------------------- */

/* Element j is lane (j % block) % 32 of its warp; a run starts wherever that lane is 0. */
static unsigned lane_of(size_t j, int block) { return (unsigned)((j % (size_t)block) % WARP_SIZE); }

template <typename T, typename Op>
static void expected_runs(const T *in, T *out, size_t n, int block, Op op, T identity, bool inclusive) {
  T acc = identity;
  for (size_t j = 0; j < n; j++) {
    if (lane_of(j, block) == 0) acc = identity;
    if (inclusive) acc = host_apply<T, Op>(op, acc, in[j]);
    out[j] = acc;
    if (!inclusive) acc = host_apply<T, Op>(op, acc, in[j]);
  }
}

/* ---- one checked run of warpScanBatch ----------------------------------------------------- */

struct Case {
  WarpScanVariant variant;
  size_t n;
  int block;
  uint64_t seed;
  Tolerance tol;
};

/* The lanes of a mask as "1,2,3" with runs of four or more shortened: "0,5..31". */
static void lane_list(char *buf, size_t cap, unsigned lanes) {
  buf[0] = '\0';
  for (unsigned l = 0; l < WARP_SIZE; l++) {
    if (!(lanes >> l & 1u)) continue;
    unsigned end = l;
    while (end + 1 < WARP_SIZE && (lanes >> (end + 1) & 1u)) end++;
    size_t used = strlen(buf);
    if (end - l >= 3) {
      snprintf(buf + used, cap - used, "%s%u..%u", used ? "," : "", l, end);
      l = end;
    } else {
      snprintf(buf + used, cap - used, "%s%u", used ? "," : "", l);
    }
  }
}

/* Compares warp by warp; one failure names the first wrong warp and its wrong lanes. */
template <typename T>
static size_t check_warps(const char *ctx, const T *expect, const T *got, size_t n, int block,
                          Tolerance tol) {
  size_t bad_warps = 0, warps = 0;
  char detail[900] = "";
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && lane_of(end, block) != 0) end++;
    warps++;
    unsigned wrong = 0;
    for (size_t j = start; j < end; j++)
      if (!same(expect[j], got[j], tol)) wrong |= 1u << (j - start);
    if (wrong && bad_warps++ == 0) {
      size_t b = start / (size_t)block;
      unsigned w = (unsigned)((start % (size_t)block) / WARP_SIZE);
      unsigned first = (unsigned)__builtin_ctz(wrong);
      char lanes[160] = "", e[96], g[96];
      lane_list(lanes, sizeof lanes, wrong);
      show(e, sizeof e, expect[start + first]);
      show(g, sizeof g, got[start + first]);
      snprintf(detail, sizeof detail,
               "block %zu, warp %u (lanes 0..%zu active): wrong lane%s %s (first: lane %u expected %s, got %s)",
               b, w, end - start - 1, __builtin_popcount(wrong) == 1 ? "" : "s", lanes, first, e, g);
    }
    start = end;
  }
  if (bad_warps)
    HX_FAIL("%s: %s; %zu of %zu warp%s wrong", ctx, detail, bad_warps, warps, warps == 1 ? "" : "s");
  return bad_warps;
}

/* Runs one warp scan on an input and checks every lane; returns the number of wrong warps. */
template <typename T, typename Op>
static size_t run_on(const Case &c, Op op, const T *h_in, const char *what = NULL) {
  const T identity = identity_of(T(), op);
  char ctx[320], seed[48];
  snprintf(seed, sizeof seed, "seed=%llu", (unsigned long long)c.seed);
  snprintf(ctx, sizeof ctx, "%s<%s, %s>(n=%zu, block=%d, %s)", variant_name(c.variant),
           type_name(T()), op_name(op), c.n, c.block, what ? what : seed);
  T *expect = (T *)hx_malloc(c.n * sizeof(T) + 1);
  if (!expect) return 1;
  expected_runs(h_in, expect, c.n, c.block, op, identity, c.variant != WARP_SCAN_EXC);
  hx_buf *in = hx_buf_new(c.n, sizeof(T)), *out = hx_buf_new(c.n, sizeof(T));
  size_t bad = 1;
  if (in && out) {
    memcpy(hx_buf_data(in), h_in, c.n * sizeof(T));
    long long err = 0;
    bad = HX_CALL_RET(&err, "warpScanBatch", ctx, hx_in(in), hx_out(out), hx_i64((long long)c.n),
                      hx_i64(c.block), hx_i64(c.variant), hx_i64(kind_of(T(), op)),
                      hx_bytes(&identity, sizeof identity));
    if (!bad && err) {
      HX_FAIL("%s: warpScanBatch returned CUDA error %lld", ctx, err);
      bad = 1;
    }
    if (!bad) bad = check_warps(ctx, expect, (const T *)hx_buf_data(out), c.n, c.block, c.tol);
  }
  hx_buf_free(in);
  hx_buf_free(out);
  free(expect);
  return bad;
}

/* Seeded random input, then run_on(). */
template <typename T, typename Op>
static size_t run_case(const Case &c, Op op) {
  T *in = (T *)hx_malloc(c.n * sizeof(T) + 1);
  if (!in) return 1;
  fill(in, c.n, c.seed, op);
  size_t bad = run_on<T, Op>(c, op, in);
  free(in);
  return bad;
}

/* Every (size, block) pair of the test's parameters with the integer and float operators. */
static void sweep(WarpScanVariant v, bool with_float) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  Tolerance exact = {0, 0}, ftol = {0, 0};
  if (with_float) ftol = Tolerance{hx_param_double("rtol"), hx_param_double("atol")};
  if (hx_failures()) return;
  /* Each operator stops at its first failing case: one message per operator. */
  bool failed[4] = {false, false, false, !with_float};
  for (int b = 0; b < nb; b++)
    for (int s = 0; s < ns; s++) {
      uint64_t seed = hx_seed() + (uint64_t)(s * 131 + b);
      Case c = {v, (size_t)sizes[s], (int)blocks[b], seed, exact};
      if (!failed[0]) failed[0] = run_case<int32_t>(c, Add()) != 0;
      if (!failed[1]) failed[1] = run_case<int32_t>(c, Max()) != 0;
      if (!failed[2]) failed[2] = run_case<int32_t>(c, Min()) != 0;
      c.tol = ftol;
      if (!failed[3]) failed[3] = run_case<float>(c, Add()) != 0;
    }
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* One warp, every lane: the worked example on 8 lanes, then random data on all 32. */
static void test_inc_one_warp(void) {
  const int32_t example[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  Case ex = {WARP_SCAN_INC, 8, 8, 0, {0, 0}};
  if (run_on<int32_t>(ex, Add(), example, "in={3,1,7,0,4,1,6,3}")) return;
  Case full = {WARP_SCAN_INC, WARP_SIZE, WARP_SIZE, hx_seed(), {0, 0}};
  run_case<int32_t>(full, Add());
  run_case<int32_t>(full, Max());
}

static void test_inc_ops(void) { sweep(WARP_SCAN_INC, true); }
static void test_inc_partial_warps(void) { sweep(WARP_SCAN_INC, false); }
static void test_exc_ops(void) { sweep(WARP_SCAN_EXC, true); }
static void test_exc_partial_warps(void) { sweep(WARP_SCAN_EXC, false); }
static void test_smem_ops(void) { sweep(WARP_SCAN_INC_SMEM, true); }
static void test_smem_partial_warps(void) { sweep(WARP_SCAN_INC_SMEM, false); }

/* Affine maps compose in order: a scan that puts the later lane on the left fails here. */
static void test_noncommutative(void) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  const WarpScanVariant all[3] = {WARP_SCAN_INC, WARP_SCAN_EXC, WARP_SCAN_INC_SMEM};
  for (int v = 0; v < 3; v++) {
    bool failed = false; /* one message per scan */
    for (int b = 0; b < nb && !failed; b++)
      for (int s = 0; s < ns && !failed; s++) {
        Case c = {all[v], (size_t)sizes[s], (int)blocks[b], hx_seed() + (uint64_t)s, {0, 0}};
        failed = run_case<Affine>(c, Compose()) != 0;
      }
  }
}

/* A timed call's output against the warp-by-warp sums of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const size_t block = (size_t)t->extra[1].i;
  const bool inclusive = t->extra[2].i != WARP_SCAN_EXC;
  hxv_result r;
  if (hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, !inclusive, block, WARP_SIZE, NULL, &r))
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu]: expected %d, got %d%s", ctx,
            r.first, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* Batched warp scans read and write every element once, as a copy does: report each variant
 * as a fraction of the device copy, timed the same way. */
static void test_timing(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block"), reps = (int)hx_param_int("reps");
  const int per_batch = (int)hx_param_int("per_batch");
  const double threshold = hx_param_double("threshold");
  const double threshold_smem = hx_param_double("threshold_smem");
  if (hx_failures()) return;
  /* Correct first: a wrong answer is not timed. On emu, the memory model's figures of each. */
  const WarpScanVariant all[3] = {WARP_SCAN_INC, WARP_SCAN_EXC, WARP_SCAN_INC_SMEM};
  for (int v = 0; v < 3; v++) {
    Case c = {all[v], n, block, hx_seed(), {0, 0}};
    if (run_case<int32_t>(c, Add())) return;
    char call[160];
    snprintf(call, sizeof call, "%s<int, Add>(n=%zu, block=%d)", variant_name(all[v]), n, block);
    hx_model_note(call, (double)n, "element", 8);
  }
  HX_REQUIRE_TIMING();
  if (n * sizeof(int32_t) <= hx_device()->l2_bytes) {
    HX_FAIL("manifest error: timing needs n*4 bytes (%zu) above the L2 cache (%llu bytes)",
            n * sizeof(int32_t), (unsigned long long)hx_device()->l2_bytes);
    return;
  }
  const double copy_s = hx_time_copy(n * sizeof(int32_t), reps, per_batch);
  double fraction[3];
  for (int v = 0; v < 3; v++) {
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s<int, Add>(n=%zu, block=%d)", variant_name(all[v]), n, block);
    const hx_arg extra[3] = {hx_i64((long long)n), hx_i64(block), hx_i64(all[v])};
    const hx_timed t = {"warpScanBatch_add", ctx, n, 4, hx_seed() + (uint64_t)v, -1000, 1000, extra, 3,
                        check_timed, NULL};
    const double s = hx_time_calls(&t, reps, per_batch);
    if (s != s) return;
    fraction[v] = copy_s / s;
    hx_note("%s: %.3f ms, %.1f GB/s: %.3f of copy (%.1f GB/s)", ctx, s * 1e3,
            2.0 * (double)(n * 4) / s * 1e-9, fraction[v], 2.0 * (double)(n * 4) / copy_s * 1e-9);
  }
  hx_metric("fraction_of_copy", fraction[0]);
  hx_metric("fraction_of_copy_exc", fraction[1]);
  hx_metric("fraction_of_copy_smem", fraction[2]);
  HX_CHECK(fraction[0] >= threshold,
           "scanIncWarp<int, Add>(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[0], threshold);
  HX_CHECK(fraction[1] >= threshold,
           "scanExcWarp<int, Add>(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[1], threshold);
  HX_CHECK(fraction[2] >= threshold_smem,
           "scanIncWarpSmem<int, Add>(n=%zu, block=%d) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, block, fraction[2], threshold_smem);
}

/* ---- shared memory, counted by the emu ------------------------------------------------------- */

/* Runs one warp scan (int Add) on random input; its counters in @p keep. False after a failure,
 * or where there are no counters (a GPU). */
static bool counted_run(WarpScanVariant v, size_t n, int block, hx_counters *keep) {
  Case c = {v, n, block, hx_seed(), {0, 0}};
  if (run_case<int32_t>(c, Add())) return false;
  const hx_counters *k = hx_last_counters();
  if (!k) return false;
  *keep = *k;
  return true;
}

/* The emu counts the shared-memory accesses of the student's code as the hardware groups them:
 * one request per warp and instruction. The shared-memory scan takes log2 32 = 5 steps, each a
 * load and a store (11 requests per warp with the first store); a scan that walks the warp's
 * values one by one takes 32 or more. It must stay at `requests_threshold` requests per warp or
 * below, and the two shuffle scans, which keep their values in registers, make none. The global
 * traffic (the kit's load and store) is shown beside. */
static void test_emu_shared(void) {
  const size_t n = (size_t)hx_param_int("n");
  const int block = (int)hx_param_int("block");
  const double max_requests = hx_param_double("requests_threshold");
  const double min_requests = hx_param_double("requests_floor");
  if (hx_failures()) return;
  if (n % WARP_SIZE || block % WARP_SIZE) {
    HX_FAIL("manifest error: emu_shared counts per warp: n (%zu) and block (%d) must be multiples of 32", n, block);
    return;
  }
  const WarpScanVariant all[3] = {WARP_SCAN_INC, WARP_SCAN_EXC, WARP_SCAN_INC_SMEM};
  hx_counters c[3];
  for (int v = 0; v < 3; v++)
    if (!counted_run(all[v], n, block, &c[v])) {
      if (!hx_failures())
        HX_SKIP("the memory counters come from the emu's probes (make grade BACKEND=emu); on a GPU, `timing` "
                "measures the scans' speed");
      HX_FAIL("emu_shared counts a scan's shared-memory accesses only when its answer is right: the wrong "
              "answer above is the fault (the correctness tests name it too), not the scan's use of shared memory");
      return;
    }
  const double warps = (double)(n / WARP_SIZE);
  double per_warp[3];
  for (int v = 0; v < 3; v++) {
    const unsigned long long *k = c[v].c;
    const double req = (double)(k[HX_C_SLD_REQ] + k[HX_C_SST_REQ]);
    per_warp[v] = req / warps;
    hx_note("%s<int, Add>(n=%zu, block=%d): %.2f shared requests per warp (%llu loads, %llu stores), %.2f bank "
            "conflicts per request; %.2f global bytes per element", variant_name(all[v]), n, block, per_warp[v],
            k[HX_C_SLD_REQ], k[HX_C_SST_REQ], req > 0 ? (double)(k[HX_C_SLD_CONF] + k[HX_C_SST_CONF]) / req : 0.0,
            hx_bytes_moved(&c[v]) / (double)n);
  }
  for (int v = 0; v < 3; v++)
    HX_CHECK(c[v].c[HX_C_SATOM] == 0,
             "%s<int, Add>(n=%zu, block=%d): %llu atomic operations on shared memory, which the emu counts apart "
             "from the requests graded here: a warp scan needs none", variant_name(all[v]), n, block,
             c[v].c[HX_C_SATOM]);
  hx_metric("smem_requests_per_warp", per_warp[2]);
  for (int v = 0; v < 2; v++)
    HX_CHECK(per_warp[v] == 0,
             "%s<int, Add>(n=%zu, block=%d): %.2f shared-memory requests per warp, as the emu counts them; a "
             "shuffle scan keeps its values in registers and makes none", variant_name(all[v]), n, block, per_warp[v]);
  for (int v = 0; v < 3; v++)
    HX_CHECK((double)c[v].c[HX_C_GST_SECT] * 32.0 >= 4.0 * (double)n,
             "%s<int, Add>(n=%zu, block=%d): its kernels' counted stores, %llu bytes, do not cover the %zu bytes of "
             "the output: the emu did not count the launch that wrote it (the probes switched off around it?)",
             variant_name(all[v]), n, block, c[v].c[HX_C_GST_SECT] * 32ull, 4 * n);
  for (int v = 0; v < 3; v++) {
    const double bytes = hx_bytes_moved(&c[v]) / (double)n;
    HX_CHECK(bytes <= 8.25,
             "%s<int, Add>(n=%zu, block=%d): %.2f global bytes per element, as the emu counts them: the kit's launch "
             "loads each element and stores its result (8 bytes); a warp scan keeps its values in registers or in "
             "s, so the rest went through global memory", variant_name(all[v]), n, block, bytes);
  }
  HX_CHECK(per_warp[2] >= min_requests,
           "scanIncWarpSmem<int, Add>(n=%zu, block=%d): %.2f shared-memory requests per warp, as the emu counts "
           "them; at least %.0f: the exercise is the scan through s, each of its log2 32 = 5 steps a load and a "
           "store there (a shuffle scan with a token store to s is not it)", n, block, per_warp[2], min_requests);
  HX_CHECK(per_warp[2] <= max_requests,
           "scanIncWarpSmem<int, Add>(n=%zu, block=%d): %.2f shared-memory requests per warp, as the emu counts them "
           "(one per warp and instruction); log2 32 = 5 steps of a load and a store take 11: at most %.0f",
           n, block, per_warp[2], max_requests);
}

static const hx_test TESTS[] = {
    {"inc_one_warp", test_inc_one_warp},
    {"inc_ops", test_inc_ops},
    {"inc_partial_warps", test_inc_partial_warps},
    {"exc_ops", test_exc_ops},
    {"exc_partial_warps", test_exc_partial_warps},
    {"smem_ops", test_smem_ops},
    {"smem_partial_warps", test_smem_partial_warps},
    {"noncommutative", test_noncommutative},
    {"emu_shared", test_emu_shared},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("04", TESTS);
