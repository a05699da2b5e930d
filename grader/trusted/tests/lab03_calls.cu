/**
 * @file lab03_calls.cu
 * @brief Lab 03's call table: the Blelloch tile scans `(in, out, n, block)`, returning their
 *        cudaError_t, and the student's padding function tabulated on the device.
 */
#include <stdint.h>

#include "blelloch.h"
#include "driver.h"

#define ARGS (const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2), (int)drv_i64(c, 3)

static int64_t call_unpadded(drv_call *c) { return (int64_t)scanExcBlelloch(ARGS); }
static int64_t call_padded(drv_call *c) { return (int64_t)scanExcBlellochPadded(ARGS); }

/* conflictFreeIndex_table(out, count): out[i] = conflictFreeIndex(i) for i < count. */
static int64_t call_table(drv_call *c) {
  return (int64_t)conflictFreeIndexTable((int32_t *)drv_ptr(c, 0), (int)drv_i64(c, 1));
}

DRV_TABLE({"scanExcBlelloch", call_unpadded}, {"scanExcBlellochPadded", call_padded},
          {"conflictFreeIndex_table", call_table});
