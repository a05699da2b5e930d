/**
 * @file lab01_test.c
 * @brief Lab 01 tests: serial inclusive and exclusive scans over several operators.
 *
 * The student's scans run in the driver (grader/trusted/tests/lab01_calls.c names them and the
 * operators); this file makes the inputs, computes the references and compares. Sizes, seeds
 * and thresholds come from `grader/manifests/lab01.toml`.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scan_ref.h"

/* ---- operators: the driver's numbers (lab01_calls.c), the reference's, and the identities -- */

enum { OP_ADD_I32, OP_MAX_I32, OP_MIN_I32, OP_MUL_I32, OP_ADD_F32, OP_MAX_F32, OP_COMPOSE };

typedef struct {
  ref_op ref;
  int op;
  int32_t identity;
  int32_t lo, hi; /* input range: small factors for mul so products stay interesting */
} int_op;

static const int_op INT_OPS[] = {
    {REF_ADD, OP_ADD_I32, 0, -1000, 1000},
    {REF_MAX, OP_MAX_I32, INT32_MIN, INT32_MIN, INT32_MAX},
    {REF_MIN, OP_MIN_I32, INT32_MAX, INT32_MIN, INT32_MAX},
    {REF_MUL, OP_MUL_I32, 1, -3, 3},
};

/* A non-commutative operator: composition of affine maps x -> a*x + b (mod 2^32).
 * (f then g) applied to x is g(f(x)) = ga*(fa*x + fb) + gb. */
typedef struct { uint32_t a, b; } affine;
static affine compose(affine f, affine g) {
  affine out = {g.a * f.a, g.a * f.b + g.b};
  return out;
}

static const char *scan_name(int inclusive) { return inclusive ? "scanIncSerial" : "scanExcSerial"; }

/* Calls the student's scan on buffers in and out (the same buffer: in place). */
static size_t call_scan(int inclusive, hx_buf *in, hx_buf *out, size_t n, size_t size, int op,
                        const void *identity, const char *ctx) {
  if (in == out)
    return HX_CALL(scan_name(inclusive), ctx, hx_inout(in), hx_inout(in), hx_i64((long long)n),
                   hx_i64((long long)size), hx_i64(op), hx_bytes(identity, size));
  return HX_CALL(scan_name(inclusive), ctx, hx_in(in), hx_out(out), hx_i64((long long)n),
                 hx_i64((long long)size), hx_i64(op), hx_bytes(identity, size));
}

/* ---- helpers -------------------------------------------------------------------------------- */

/* Runs one int scan (into a poisoned output, or in place) and compares it with the reference. */
static void check_int_scan(int inclusive, const int_op *op, size_t n, uint64_t seed, int in_place) {
  hx_buf *in = hx_buf_new(n, 4), *out = in_place ? in : hx_buf_new(n, 4);
  int32_t *expect = (int32_t *)hx_malloc(n * sizeof *expect);
  char ctx[256];
  if (!in || !out || !expect) goto done;
  hx_fill_i32((int32_t *)hx_buf_data(in), n, seed, op->lo, op->hi);
  (inclusive ? ref_scan_inc_i32 : ref_scan_exc_i32)((const int32_t *)hx_buf_data(in), expect, n, op->ref);
  snprintf(ctx, sizeof ctx, "%s(op=%s, n=%zu, %sseed=%llu)", scan_name(inclusive), ref_op_name(op->ref), n,
           in_place ? "in place, " : "", (unsigned long long)seed);
  if (call_scan(inclusive, in, out, n, 4, op->op, &op->identity, ctx) == 0)
    hx_check_i32(ctx, expect, (const int32_t *)hx_buf_data(out), n);
done:
  free(expect);
  hx_buf_free(in);
  if (!in_place) hx_buf_free(out);
}

static void check_example(int inclusive) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  const int32_t inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
  const int32_t exc[8] = {0, 3, 4, 11, 11, 15, 16, 22};
  hx_buf *b_in = hx_buf_new(8, 4), *b_out = hx_buf_new(8, 4);
  if (b_in && b_out) {
    memcpy(hx_buf_data(b_in), in, sizeof in);
    const int32_t zero = 0;
    const char *ctx = inclusive ? "scanIncSerial(op=add, in={3,1,7,0,4,1,6,3})"
                                : "scanExcSerial(op=add, in={3,1,7,0,4,1,6,3})";
    if (call_scan(inclusive, b_in, b_out, 8, 4, OP_ADD_I32, &zero, ctx) == 0)
      hx_check_i32(ctx, inclusive ? inc : exc, (const int32_t *)hx_buf_data(b_out), 8);
  }
  hx_buf_free(b_in);
  hx_buf_free(b_out);
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
    hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
    float *expect = (float *)hx_malloc(n * sizeof *expect);
    if (!in || !out || !expect) {
      hx_buf_free(in);
      hx_buf_free(out);
      free(expect);
      return;
    }
    const float *h_in = (const float *)hx_buf_data(in), *got = (const float *)hx_buf_data(out);
    hx_fill_f32((float *)hx_buf_data(in), n, seed, 0.0f, 1.0f);
    for (int inclusive = 1; inclusive >= 0; inclusive--) {
      const float zero = 0.0f, lowest = -INFINITY; /* max's identity: -FLT_MAX is not below -INFINITY */
      char ctx[256];
      /* sum: the student accumulates in float, the reference in double */
      (inclusive ? ref_scan_inc_f32 : ref_scan_exc_f32)(h_in, expect, n, REF_ADD);
      snprintf(ctx, sizeof ctx, "%s(op=add float, n=%zu, seed=%llu)", scan_name(inclusive), n,
               (unsigned long long)seed);
      if (call_scan(inclusive, in, out, n, 4, OP_ADD_F32, &zero, ctx) == 0)
        hx_check_f32(ctx, expect, got, n, rtol, 1e-6);
      /* max: exact */
      (inclusive ? ref_scan_inc_f32 : ref_scan_exc_f32)(h_in, expect, n, REF_MAX);
      if (!inclusive && n > 0) expect[0] = -INFINITY; /* the identity handed in */
      snprintf(ctx, sizeof ctx, "%s(op=max float, n=%zu, seed=%llu)", scan_name(inclusive), n,
               (unsigned long long)seed);
      if (call_scan(inclusive, in, out, n, 4, OP_MAX_F32, &lowest, ctx) == 0)
        hx_check_f32(ctx, expect, got, n, 0.0, 0.0);
    }
    hx_buf_free(in);
    hx_buf_free(out);
    free(expect);
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
  hx_buf *in = hx_buf_new(n, sizeof(affine)), *out = hx_buf_new(n, sizeof(affine));
  affine *expect = (affine *)hx_malloc(n * sizeof *expect);
  if (!in || !out || !expect) goto done;
  affine *h_in = (affine *)hx_buf_data(in);
  hx_rng r = hx_rng_make(hx_seed());
  for (size_t i = 0; i < n; i++) {
    h_in[i].a = (uint32_t)hx_rng_range(&r, 1, 9);
    h_in[i].b = (uint32_t)hx_rng_range(&r, 0, 9);
  }
  const affine id = {1, 0};
  for (int inclusive = 1; inclusive >= 0; inclusive--) {
    affine acc = id;
    for (size_t i = 0; i < n; i++) {
      if (inclusive) acc = compose(acc, h_in[i]);
      expect[i] = acc;
      if (!inclusive) acc = compose(acc, h_in[i]);
    }
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s(op=affine composition (not commutative), n=%zu, seed=%llu)",
             scan_name(inclusive), n, (unsigned long long)hx_seed());
    if (call_scan(inclusive, in, out, n, sizeof(affine), OP_COMPOSE, &id, ctx) == 0 &&
        hx_check_bytes(ctx, expect, hx_buf_data(out), n, sizeof(affine))) {
      /* which of the two faults that fail this test alone: the scan with its operands swapped,
       * or another (an affine map is the tests' only element of 8 bytes) */
      const affine *got = (const affine *)hx_buf_data(out);
      affine sw = id;
      size_t same = 0, unwritten = 0;
      for (size_t i = 0; i < n; i++) {
        if (inclusive) sw = compose(h_in[i], sw);
        same += got[i].a == sw.a && got[i].b == sw.b;
        unwritten += *hx_poison_note(&got[i], sizeof(affine), i) != 0;
        if (!inclusive) sw = compose(h_in[i], sw);
      }
      if (unwritten == n) { /* nothing written (a skeleton): the poison note says it */
      } else if (same == n)
        hx_note("these are the answers of the scan with the operator's operands swapped: op(x[i], acc) "
                "where the running total goes on the left, op(acc, x[i])");
      else
        hx_note("not the answers of a scan with the operands swapped: with the tests' only 8-byte "
                "element, look for an element size taken as 4 bytes (sizeof(int), or an int pointer, "
                "where every offset is i * size)");
    }
  }
done:
  free(expect);
  hx_buf_free(in);
  hx_buf_free(out);
}

/* The output of one timed call, against the inclusive sum of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  hxv_result r;
  if (hx_verify_scan(hx_source_gen(seed, t->lo, t->hi), out, t->n, 0, 0, 0, NULL, &r))
    HX_FAIL("%s: a timed call's output is wrong: first mismatch at [%zu]: expected %d, got %d%s", ctx,
            r.first, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

/* The serial scan reads and writes each element once, as memcpy does; report how close it
 * comes to the CPU's own memcpy, timed the same way (in CPU seconds, which the machine's load
 * does not stretch) in a process without student code. */
static void test_timing(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps");
  if (hx_failures()) return;
  char ctx[160];
  snprintf(ctx, sizeof ctx, "scanIncSerial(op=add, n=%zu, seed=%llu)", n, (unsigned long long)hx_seed());
  const hx_arg extra[] = {hx_i64((long long)n)};
  const hx_timed t = {"scanIncSerial_add", ctx, n, 4, hx_seed(), -1000, 1000, extra, 1, check_timed, NULL};
  const double scan_s = hx_time_calls(&t, reps, 1);
  if (scan_s != scan_s) return; /* NaN: a wrong answer, already reported */
  const double copy_s = hx_time_copy(n * 4, reps, 1);
  const double fraction = copy_s / scan_s;
  hx_metric("fraction_of_memcpy", fraction);
  hx_note("scanIncSerial: %.2f GB/s, memcpy %.2f GB/s, each by the CPU time it took: %.3f of memcpy (threshold %.3f)",
          2.0 * (double)(n * 4) / scan_s * 1e-9, 2.0 * (double)(n * 4) / copy_s * 1e-9, fraction, threshold);
  HX_CHECK(fraction >= threshold,
           "scanIncSerial(n=%zu) reached %.3f of memcpy bandwidth; the threshold is %.3f", n, fraction,
           threshold);
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
