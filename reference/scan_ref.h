/**
 * @file scan_ref.h
 * @brief CPU reference scans: the ground truth every graded test compares against.
 *
 * Written for clarity, not speed, and independent of the students' code. Integer sums wrap
 * modulo 2^32 as on the GPU (computed in unsigned arithmetic, so the C code stays defined);
 * float sums accumulate in double.
 *
 * Worked example (add): in `{3,1,7,0,4,1,6,3}` gives inclusive `{3,4,11,11,15,16,22,25}` and
 * exclusive `{0,3,4,11,11,15,16,22}`.
 */
#ifndef SCANLAB_SCAN_REF_H
#define SCANLAB_SCAN_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The operators the references know. */
typedef enum {
  REF_ADD, /**< a + b, identity 0 (wraps modulo 2^32 for ints) */
  REF_MAX, /**< max(a, b), identity INT32_MIN or -infinity */
  REF_MIN, /**< min(a, b), identity INT32_MAX or +infinity */
  REF_MUL  /**< a * b, identity 1 (wraps modulo 2^32 for ints) */
} ref_op;

/** Identity of @p op over int32. */
int32_t ref_identity_i32(ref_op op);
/** @p a op @p b over int32, wrapping where the GPU wraps. */
int32_t ref_apply_i32(ref_op op, int32_t a, int32_t b);
/** Name of @p op ("add", "max", "min", "mul"). */
const char *ref_op_name(ref_op op);

/** Inclusive scan of @p n ints with @p op; @p out may equal @p in. */
void ref_scan_inc_i32(const int32_t *in, int32_t *out, size_t n, ref_op op);
/** Exclusive scan of @p n ints with @p op (out[0] = identity); @p out may equal @p in. */
void ref_scan_exc_i32(const int32_t *in, int32_t *out, size_t n, ref_op op);
/** Inclusive scan of floats with @p op, accumulated in double. */
void ref_scan_inc_f32(const float *in, float *out, size_t n, ref_op op);
/** Exclusive scan of floats with @p op, accumulated in double. */
void ref_scan_exc_f32(const float *in, float *out, size_t n, ref_op op);
/**
 * @brief Tile-wise inclusive sum: each tile of @p tile elements is scanned on its own (the
 * result of a batched launch where every block scans its own tile). The last tile may be short.
 */
void ref_scan_inc_tiles_i32(const int32_t *in, int32_t *out, size_t n, size_t tile);
/** Tile-wise exclusive sum, as ref_scan_inc_tiles_i32() but exclusive. */
void ref_scan_exc_tiles_i32(const int32_t *in, int32_t *out, size_t n, size_t tile);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_SCAN_REF_H */
