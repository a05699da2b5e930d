/**
 * @file scan_serial.c
 * @brief Lab 01: serial inclusive and exclusive scans over any associative operator.
 */
#include <string.h>

#include "scan_serial.h"

void scanIncSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity) {
  /* STUDENT-BEGIN(lab01) */
  const unsigned char *src = (const unsigned char *)in;
  unsigned char *dst = (unsigned char *)out;
  unsigned char acc[SCAN_MAX_ELEM];
  memcpy(acc, identity, size);
  for (size_t i = 0; i < n; i++) {
    op(acc, acc, src + i * size);   /* running total on the left: order matters */
    memcpy(dst + i * size, acc, size);
  }
  /* STUDENT-END(lab01) */
}

void scanExcSerial(const void *in, void *out, size_t n, size_t size, scan_op_fn op,
                   const void *identity) {
  /* STUDENT-BEGIN(lab01) */
  const unsigned char *src = (const unsigned char *)in;
  unsigned char *dst = (unsigned char *)out;
  unsigned char acc[SCAN_MAX_ELEM], x[SCAN_MAX_ELEM];
  memcpy(acc, identity, size);
  for (size_t i = 0; i < n; i++) {
    memcpy(x, src + i * size, size);  /* read before writing: in place is allowed */
    memcpy(dst + i * size, acc, size);
    op(acc, acc, x);
  }
  /* STUDENT-END(lab01) */
}
