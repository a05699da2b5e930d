/**
 * @file lab01_calls.c
 * @brief Lab 01's call table: what the tests may ask the driver to call, and the operators
 *        they hand the student's scans (kit code, running beside the student's file).
 *
 * Arguments: `scanIncSerial(in, out, n, size, op, identity)` with `op` an operator number
 * (see OPS) and `identity` its identity's bytes; `scanIncSerial_add(in, out, n)` is the
 * timed form (int sum).
 */
#include <stdint.h>

#include "driver.h"
#include "scan_serial.h"

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
/* Affine maps x -> a*x + b (mod 2^32), "f then g": not commutative. */
typedef struct { uint32_t a, b; } affine;
static void compose(void *r, const void *f_, const void *g_) {
  affine f = *(const affine *)f_, g = *(const affine *)g_;
  affine out = {g.a * f.a, g.a * f.b + g.b};
  *(affine *)r = out;
}

/* The operator numbers the tests use (lab01_test.c has the same list). */
static const scan_op_fn OPS[] = {add_i32, max_i32, min_i32, mul_i32, add_f32, max_f32, compose};

static scan_op_fn op_of(drv_call *c, int k) {
  const int64_t i = drv_i64(c, k);
  if (i < 0 || i >= (int64_t)(sizeof OPS / sizeof OPS[0])) drv_die("no operator number %lld", (long long)i);
  return OPS[i];
}

static int64_t call_inc(drv_call *c) {
  scanIncSerial(drv_ptr(c, 0), drv_ptr(c, 1), drv_size(c, 2), drv_size(c, 3), op_of(c, 4), drv_bytes(c, 5, NULL));
  return 0;
}
static int64_t call_exc(drv_call *c) {
  scanExcSerial(drv_ptr(c, 0), drv_ptr(c, 1), drv_size(c, 2), drv_size(c, 3), op_of(c, 4), drv_bytes(c, 5, NULL));
  return 0;
}
static int64_t call_inc_add(drv_call *c) {
  const int32_t zero = 0;
  scanIncSerial(drv_ptr(c, 0), drv_ptr(c, 1), drv_size(c, 2), sizeof(int32_t), add_i32, &zero);
  return 0;
}

DRV_TABLE({"scanIncSerial", call_inc}, {"scanExcSerial", call_exc}, {"scanIncSerial_add", call_inc_add});
