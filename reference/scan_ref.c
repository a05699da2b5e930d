/**
 * @file scan_ref.c
 * @brief CPU reference scans (see scan_ref.h).
 */
#include "scan_ref.h"

#include <math.h>

int32_t ref_identity_i32(ref_op op) {
  switch (op) {
    case REF_ADD: return 0;
    case REF_MAX: return INT32_MIN;
    case REF_MIN: return INT32_MAX;
    case REF_MUL: return 1;
  }
  return 0;
}

int32_t ref_apply_i32(ref_op op, int32_t a, int32_t b) {
  switch (op) {
    case REF_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
    case REF_MAX: return a > b ? a : b;
    case REF_MIN: return a < b ? a : b;
    case REF_MUL: return (int32_t)((uint32_t)a * (uint32_t)b);
  }
  return 0;
}

const char *ref_op_name(ref_op op) {
  static const char *const names[] = {"add", "max", "min", "mul"};
  return (unsigned)op < 4 ? names[op] : "?";
}

void ref_scan_inc_i32(const int32_t *in, int32_t *out, size_t n, ref_op op) {
  int32_t acc = ref_identity_i32(op);
  for (size_t i = 0; i < n; i++) out[i] = acc = ref_apply_i32(op, acc, in[i]);
}

void ref_scan_exc_i32(const int32_t *in, int32_t *out, size_t n, ref_op op) {
  int32_t acc = ref_identity_i32(op);
  for (size_t i = 0; i < n; i++) {
    int32_t x = in[i];
    out[i] = acc;
    acc = ref_apply_i32(op, acc, x);
  }
}

static double apply_f64(ref_op op, double a, double b) {
  switch (op) {
    case REF_ADD: return a + b;
    case REF_MAX: return a > b ? a : b;
    case REF_MIN: return a < b ? a : b;
    case REF_MUL: return a * b;
  }
  return 0;
}

static double identity_f64(ref_op op) {
  switch (op) {
    case REF_ADD: return 0.0;
    case REF_MAX: return -INFINITY;
    case REF_MIN: return INFINITY;
    case REF_MUL: return 1.0;
  }
  return 0.0;
}

void ref_scan_inc_f32(const float *in, float *out, size_t n, ref_op op) {
  double acc = identity_f64(op);
  for (size_t i = 0; i < n; i++) {
    acc = apply_f64(op, acc, in[i]);
    out[i] = (float)acc;
  }
}

void ref_scan_exc_f32(const float *in, float *out, size_t n, ref_op op) {
  double acc = identity_f64(op);
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)acc;
    acc = apply_f64(op, acc, x);
  }
}

void ref_scan_inc_tiles_i32(const int32_t *in, int32_t *out, size_t n, size_t tile) {
  for (size_t start = 0; start < n; start += tile)
    ref_scan_inc_i32(in + start, out + start, n - start < tile ? n - start : tile, REF_ADD);
}

void ref_scan_exc_tiles_i32(const int32_t *in, int32_t *out, size_t n, size_t tile) {
  for (size_t start = 0; start < n; start += tile)
    ref_scan_exc_i32(in + start, out + start, n - start < tile ? n - start : tile, REF_ADD);
}
