/**
 * @file lab01_test.c
 * @brief Lab 01 tests: serial inclusive and exclusive scans over several operators.
 *
 * Sizes, seeds and thresholds come from `grader/manifests/lab01.toml`.
 */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scan_ref.h"
#include "scan_serial.h"

/* ---- operators handed to the student's scans ---------------------------------------------- */

static void add_i32(void *r, const void *a, const void *b) {
  *(int32_t *)r = (int32_t)((uint32_t) * (const int32_t *)a + (uint32_t) * (const int32_t *)b);
}
static void max_i32(void *r, const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  *(int32_t *)r = x > y ? x : y;
}
static void min_i32(void *r, const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  *(int32_t *)r = x < y ? x : y;
}
static void mul_i32(void *r, const void *a, const void *b) {
  *(int32_t *)r = (int32_t)((uint32_t) * (const int32_t *)a * (uint32_t) * (const int32_t *)b);
}
static void add_f32(void *r, const void *a, const void *b) {
  *(float *)r = *(const float *)a + *(const float *)b;
}
static void max_f32(void *r, const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  *(float *)r = x > y ? x : y;
}

typedef struct {
  ref_op ref;
  scan_op_fn fn;
  int32_t identity;
  int32_t lo, hi; /* input range: small factors for mul so products stay interesting */
} int_op;

static const int_op INT_OPS[] = {
    {REF_ADD, add_i32, 0, -1000, 1000},
    {REF_MAX, max_i32, INT32_MIN, INT32_MIN, INT32_MAX},
    {REF_MIN, min_i32, INT32_MAX, INT32_MIN, INT32_MAX},
    {REF_MUL, mul_i32, 1, -3, 3},
};

/* A non-commutative operator: composition of affine maps x -> a*x + b (mod 2^32).
 * (f then g) applied to x is g(f(x)) = ga*(fa*x + fb) + gb. */
typedef struct { uint32_t a, b; } affine;
static void compose(void *r, const void *f_, const void *g_) {
  affine f = *(const affine *)f_, g = *(const affine *)g_;
  affine out = {g.a * f.a, g.a * f.b + g.b};
  *(affine *)r = out;
}

/* ---- helpers -------------------------------------------------------------------------------- */

typedef void (*scan_fn)(const void *, void *, size_t, size_t, scan_op_fn, const void *);

/* Runs one int scan into a guarded output and compares it with the reference. */
static void check_int_scan(int inclusive, const int_op *op, size_t n, uint64_t seed, int in_place) {
  const char *name = inclusive ? "scanIncSerial" : "scanExcSerial";
  int32_t *in = (int32_t *)hx_malloc(n * sizeof *in);
  int32_t *expect = (int32_t *)hx_malloc(n * sizeof *expect);
  int32_t *out = (int32_t *)hx_host_guarded(n * sizeof *out);
  if (!in || !expect || !out) goto done;
  hx_fill_i32(in, n, seed, op->lo, op->hi);
  (inclusive ? ref_scan_inc_i32 : ref_scan_exc_i32)(in, expect, n, op->ref);
  const char *ctx = hx_ctx("%s(op=%s, n=%zu, %sseed=%llu)", name, ref_op_name(op->ref), n,
                           in_place ? "in place, " : "", (unsigned long long)seed);
  if (in_place) {
    memcpy(out, in, n * sizeof *in);
    (inclusive ? scanIncSerial : scanExcSerial)(out, out, n, sizeof *out, op->fn, &op->identity);
  } else {
    (inclusive ? scanIncSerial : scanExcSerial)(in, out, n, sizeof *out, op->fn, &op->identity);
  }
  char ctx_copy[512];
  snprintf(ctx_copy, sizeof ctx_copy, "%s", ctx);
  hx_check_i32(ctx_copy, expect, out, n);
  hx_host_check_guards(out, n * sizeof *out, sizeof *out, ctx_copy);
done:
  free(in);
  free(expect);
  hx_host_free_guarded(out);
}

static void check_example(int inclusive) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  const int32_t inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
  const int32_t exc[8] = {0, 3, 4, 11, 11, 15, 16, 22};
  int32_t *out = (int32_t *)hx_host_guarded(sizeof in);
  if (!out) return;
  const int32_t zero = 0;
  (inclusive ? scanIncSerial : scanExcSerial)(in, out, 8, sizeof *out, add_i32, &zero);
  const char *ctx = inclusive ? "scanIncSerial(op=add, in={3,1,7,0,4,1,6,3})"
                              : "scanExcSerial(op=add, in={3,1,7,0,4,1,6,3})";
  hx_check_i32(ctx, inclusive ? inc : exc, out, 8);
  hx_host_check_guards(out, sizeof in, sizeof *out, ctx);
  hx_host_free_guarded(out);
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_inc_example(void) { check_example(1); }
static void test_exc_example(void) { check_example(0); }

/* n = 0 must write nothing; n = 1 must write exactly one element. */
static void test_edge_sizes(void) {
  for (int inclusive = 1; inclusive >= 0; inclusive--)
    for (size_t n = 0; n <= 2; n++) check_int_scan(inclusive, &INT_OPS[0], n, hx_seed(), 0);
}

/* The exclusive scan starts with the operator's identity, whatever the input. */
static void test_exc_identity(void) {
  for (size_t k = 0; k < sizeof INT_OPS / sizeof INT_OPS[0]; k++)
    check_int_scan(0, &INT_OPS[k], 5, hx_seed() + k, 0);
}

static void random_int_ops(int inclusive) {
  long long sizes[32];
  int count = hx_param_int_list("sizes", sizes, 32);
  for (size_t k = 0; k < sizeof INT_OPS / sizeof INT_OPS[0]; k++)
    for (int s = 0; s < count; s++)
      check_int_scan(inclusive, &INT_OPS[k], (size_t)sizes[s], hx_seed() + (uint64_t)s, 0);
}
static void test_inc_random(void) { random_int_ops(1); }
static void test_exc_random(void) { random_int_ops(0); }

static void test_float_ops(void) {
  long long sizes[32];
  int count = hx_param_int_list("sizes", sizes, 32);
  double rtol = hx_param_double("rtol");
  for (int s = 0; s < count; s++) {
    size_t n = (size_t)sizes[s];
    uint64_t seed = hx_seed() + (uint64_t)s;
    float *in = (float *)hx_malloc(n * sizeof *in), *expect = (float *)hx_malloc(n * sizeof *in);
    float *out = (float *)hx_host_guarded(n * sizeof *out);
    if (!in || !expect || !out) { free(in); free(expect); hx_host_free_guarded(out); return; }
    hx_fill_f32(in, n, seed, 0.0f, 1.0f);
    for (int inclusive = 1; inclusive >= 0; inclusive--) {
      const float zero = 0.0f, lowest = -FLT_MAX;
      const char *name = inclusive ? "scanIncSerial" : "scanExcSerial";
      scan_fn scan = inclusive ? scanIncSerial : scanExcSerial;
      char ctx[256];
      /* sum: the student accumulates in float, the reference in double */
      (inclusive ? ref_scan_inc_f32 : ref_scan_exc_f32)(in, expect, n, REF_ADD);
      scan(in, out, n, sizeof *out, add_f32, &zero);
      snprintf(ctx, sizeof ctx, "%s(op=add float, n=%zu, seed=%llu)", name, n,
               (unsigned long long)seed);
      hx_check_f32(ctx, expect, out, n, rtol, 1e-6);
      /* max: exact */
      (inclusive ? ref_scan_inc_f32 : ref_scan_exc_f32)(in, expect, n, REF_MAX);
      if (!inclusive && n > 0) expect[0] = -FLT_MAX; /* the identity handed in */
      scan(in, out, n, sizeof *out, max_f32, &lowest);
      snprintf(ctx, sizeof ctx, "%s(op=max float, n=%zu, seed=%llu)", name, n,
               (unsigned long long)seed);
      hx_check_f32(ctx, expect, out, n, 0.0, 0.0);
      hx_host_check_guards(out, n * sizeof *out, sizeof *out, ctx);
    }
    free(in);
    free(expect);
    hx_host_free_guarded(out);
  }
}

static void test_in_place(void) {
  long long sizes[32];
  int count = hx_param_int_list("sizes", sizes, 32);
  for (int s = 0; s < count; s++)
    for (int inclusive = 1; inclusive >= 0; inclusive--)
      check_int_scan(inclusive, &INT_OPS[0], (size_t)sizes[s], hx_seed() + (uint64_t)s, 1);
}

/* Affine maps compose in order, so a scan that swaps the operands gives a different answer. */
static void test_noncommutative(void) {
  size_t n = (size_t)hx_param_int("n");
  affine *in = (affine *)hx_malloc(n * sizeof *in), *expect = (affine *)hx_malloc(n * sizeof *in);
  affine *out = (affine *)hx_host_guarded(n * sizeof *out);
  if (!in || !expect || !out) goto done;
  hx_rng r = hx_rng_make(hx_seed());
  for (size_t i = 0; i < n; i++) {
    in[i].a = (uint32_t)hx_rng_range(&r, 1, 9);
    in[i].b = (uint32_t)hx_rng_range(&r, 0, 9);
  }
  const affine id = {1, 0};
  for (int inclusive = 1; inclusive >= 0; inclusive--) {
    affine acc = id;
    for (size_t i = 0; i < n; i++) {
      if (inclusive) compose(&acc, &acc, &in[i]);
      expect[i] = acc;
      if (!inclusive) compose(&acc, &acc, &in[i]);
    }
    (inclusive ? scanIncSerial : scanExcSerial)(in, out, n, sizeof *out, compose, &id);
    const char *ctx = hx_ctx("%s(op=affine composition (not commutative), n=%zu, seed=%llu)",
                             inclusive ? "scanIncSerial" : "scanExcSerial", n,
                             (unsigned long long)hx_seed());
    char c[512];
    snprintf(c, sizeof c, "%s", ctx);
    hx_check_bytes(c, expect, out, n, sizeof *out);
    hx_host_check_guards(out, n * sizeof *out, sizeof *out, c);
  }
done:
  free(in);
  free(expect);
  hx_host_free_guarded(out);
}

struct timing_job { const int32_t *in; int32_t *out; size_t n; };
static void run_inc(void *arg) {
  struct timing_job *j = (struct timing_job *)arg;
  const int32_t zero = 0;
  scanIncSerial(j->in, j->out, j->n, sizeof(int32_t), add_i32, &zero);
}

/* The serial scan reads and writes each element once, as memcpy does; report how close it
 * comes to the CPU's own memcpy bandwidth. */
static void test_timing(void) {
  size_t n = (size_t)hx_param_int("n");
  double threshold = hx_param_double("threshold");
  int reps = (int)hx_param_int("reps");
  if (hx_failures()) return;
  struct timing_job j = {(int32_t *)hx_malloc(n * 4), (int32_t *)hx_malloc(n * 4), n};
  int32_t *expect = (int32_t *)hx_malloc(n * 4);
  if (!j.in || !j.out || !expect) goto done;
  hx_fill_i32((int32_t *)j.in, n, hx_seed(), -1000, 1000);
  memset(j.out, 0xEF, n * 4);
  ref_scan_inc_i32(j.in, expect, n, REF_ADD);
  run_inc(&j);
  if (hx_check_i32(hx_ctx("scanIncSerial(op=add, n=%zu, seed=%llu)", n,
                          (unsigned long long)hx_seed()), expect, j.out, n))
    goto done; /* a wrong answer is not timed */
  double t = hx_time_cpu(run_inc, &j, 1, reps);
  double scan_bw = 2.0 * (double)(n * 4) / t;
  double copy_bw = hx_memcpy_bandwidth(n * 4, reps);
  double fraction = scan_bw / copy_bw;
  hx_metric("fraction_of_memcpy", fraction);
  hx_note("scanIncSerial: %.2f GB/s, memcpy %.2f GB/s: %.3f of memcpy (threshold %.3f)",
          scan_bw * 1e-9, copy_bw * 1e-9, fraction, threshold);
  HX_CHECK(fraction >= threshold,
           "scanIncSerial(n=%zu) reached %.3f of memcpy bandwidth; the threshold is %.3f",
           n, fraction, threshold);
done:
  free((void *)j.in);
  free(j.out);
  free(expect);
}

static const hx_test TESTS[] = {
    {"inc_example", test_inc_example},
    {"exc_example", test_exc_example},
    {"edge_sizes", test_edge_sizes},
    {"exc_identity", test_exc_identity},
    {"inc_random", test_inc_random},
    {"exc_random", test_exc_random},
    {"float_ops", test_float_ops},
    {"in_place", test_in_place},
    {"noncommutative", test_noncommutative},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("01", TESTS);
