/**
 * @file scan_serial.h
 * @brief Lab 01: the serial scans students write (`skeletons/01-serial/scan_serial.c`).
 *
 * Both scans are generic, in the style of the C library's `qsort`: elements are @p size bytes
 * each, and the operator is a function that combines two of them. The operator must be
 * associative, and @p identity must be its identity element (`op(identity, x) == x`); it need
 * not be commutative, so keep the order: the running total always goes on the left.
 *
 * Worked example with integer addition (identity 0):
 *
 *     in        {3, 1, 7,  0,  4,  1,  6,  3}
 *     inclusive {3, 4, 11, 11, 15, 16, 22, 25}
 *     exclusive {0, 3, 4,  11, 11, 15, 16, 22}
 */
#ifndef SCANLAB_SCAN_SERIAL_H
#define SCANLAB_SCAN_SERIAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest element size, in bytes, the scans must support. */
#define SCAN_MAX_ELEM 64

/**
 * @brief A binary operator on elements: `*result = *a op *b`.
 *
 * @p result may be the same object as @p a or @p b.
 */
typedef void (*scan_op_fn)(void *result, const void *a, const void *b);

/**
 * @brief Inclusive scan: `out[i] = in[0] op in[1] op ... op in[i]`.
 *
 * @param in       @p n elements
 * @param out      @p n elements; may be the same array as @p in (in place), must not
 *                 overlap it otherwise; nothing outside `out[0..n-1]` is written
 * @param n        number of elements (0 is allowed: nothing is written)
 * @param size     bytes per element, 1 to SCAN_MAX_ELEM
 * @param op       associative operator
 * @param identity pointer to the identity element of @p op
 */
void scanIncSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity);

/**
 * @brief Exclusive scan: `out[0] = identity`, `out[i] = in[0] op ... op in[i-1]`.
 *
 * Parameters as scanIncSerial(); in place is allowed, so read `in[i]` before writing `out[i]`.
 */
void scanExcSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_SCAN_SERIAL_H */
