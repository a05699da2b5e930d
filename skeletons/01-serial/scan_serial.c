/**
 * @file scan_serial.c
 * @brief Lab 01: serial inclusive and exclusive scans over any associative operator.
 */
#include <string.h>

#include "scan_serial.h"

void scanIncSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity) {
  /* STUDENT-BEGIN(lab01) */
  /* TODO(lab01): keep a running total `acc`, starting at the identity. For each element,
   * combine acc with in[i] (acc on the left: op need not be commutative), then store acc
   * in out[i]. Elements are `size` bytes: use memcpy and byte offsets i * size. */
  (void)in, (void)out, (void)n, (void)size, (void)op, (void)identity;
  /* STUDENT-END(lab01) */
}

void scanExcSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity) {
  /* STUDENT-BEGIN(lab01) */
  /* TODO(lab01): as scanIncSerial, but store acc in out[i] *before* combining it with
   * in[i]. in and out may be the same array: copy in[i] aside before you overwrite it. */
  (void)in, (void)out, (void)n, (void)size, (void)op, (void)identity;
  /* STUDENT-END(lab01) */
}
