/**
 * @file lab07_calls.cu
 * @brief Lab 07's call table: compaction, partition, line of sight, the sparse product, string
 *        comparison, the FirstDiff operator, and appRelease().
 *
 * Byte arrays (visibility, strings) travel in buffers of 32-bit elements, four bytes to one.
 *
 *     compactScan(in, out, n, pivot)           -> kept count
 *     compactSinglePass(in, out, n, pivot)     -> kept count
 *     compactSinglePassAsync(in, out, n, pivot)  the timed form: the count left on the device
 *     partitionStable(in, out, n, pivot)       -> size of the first group
 *     partitionSinglePass(in, out, n, pivot)   -> size of the first group
 *     splitBit(in, out, n, bit)                -> size of the first group
 *     radixSortSplit(in, out, n)
 *     radixSortKeys(in, out, n)                 (also the timed form)
 *     radixSortPairs(keys_in, vals_in, keys_out, vals_out, n)
 *     lineOfSight(alt, vis, n)
 *     lineOfSightBits(alt_bits, vis, n)         the timed form: altitudes generated as float bits
 *     spmvCsr(row_ptr, col, val, x, y, rows, nnz)
 *     spmvTimed(val_bits, y, row_ptr, col, x, rows, nnz)   the timed form (values as float bits)
 *     strCompare(a, b, len_a, len_b, off_a, off_b) -> -1, 0, +1 (strings at byte offsets)
 *     strCompareBatch(a, off_a, b, off_b, result, pairs)
 *     firstDiffApply(a, b, ab, ba, n)           ab[i] = FirstDiff()(a[i], b[i]), ba[i] = FirstDiff()(b[i], a[i])
 *     appRelease()
 *     appScanExc(in, out, n)                   the toolkit's exclusive sum (given code)
 *     appSelectTail(in, out, start, n, pivot, kept_before, kept_total, partition)
 *                                              in, out: elements [start, n) only
 */
#include <stdint.h>

#include "driver.h"
#include "apps.h"

static int64_t call_compact_scan(drv_call *c) {
  return (int64_t)compactScan((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                              (int32_t)drv_i64(c, 3));
}
static int64_t call_compact_single(drv_call *c) {
  return (int64_t)compactSinglePass((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                                    (int32_t)drv_i64(c, 3));
}
/* The timed form: the count stays on the device, in a word of the driver's (the timed check
 * reads the output itself). The word is allocated by the first call (the median of the
 * batches leaves that one out). */
static int64_t call_compact_async(drv_call *c) {
  static unsigned long long *kept = NULL;
  if (!kept && cudaMalloc((void **)&kept, sizeof *kept) != cudaSuccess)
    drv_die("compactSinglePassAsync: no device memory for the count's word");
  compactSinglePassAsync((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                         (int32_t)drv_i64(c, 3), kept);
  return 0;
}
static int64_t call_partition(drv_call *c) {
  return (int64_t)partitionStable((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                                  (int32_t)drv_i64(c, 3));
}
static int64_t call_partition_single(drv_call *c) {
  return (int64_t)partitionSinglePass((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                                      (int32_t)drv_i64(c, 3));
}
static int64_t call_split(drv_call *c) {
  return (int64_t)splitBit((const uint32_t *)drv_ptr(c, 0), (uint32_t *)drv_ptr(c, 1), drv_size(c, 2),
                           (int)drv_i64(c, 3));
}
static int64_t call_sort_split(drv_call *c) {
  radixSortSplit((const uint32_t *)drv_ptr(c, 0), (uint32_t *)drv_ptr(c, 1), drv_size(c, 2));
  return 0;
}
static int64_t call_sort_keys(drv_call *c) {
  radixSortKeys((const uint32_t *)drv_ptr(c, 0), (uint32_t *)drv_ptr(c, 1), drv_size(c, 2));
  return 0;
}
static int64_t call_sort_pairs(drv_call *c) {
  radixSortPairs((const uint32_t *)drv_ptr(c, 0), (const uint32_t *)drv_ptr(c, 1), (uint32_t *)drv_ptr(c, 2),
                 (uint32_t *)drv_ptr(c, 3), drv_size(c, 4));
  return 0;
}
static int64_t call_sight(drv_call *c) {
  lineOfSight((const float *)drv_ptr(c, 0), (uint8_t *)drv_ptr(c, 1), drv_size(c, 2));
  return 0;
}
static int64_t call_spmv(drv_call *c) {
  spmvCsr((const int32_t *)drv_ptr(c, 0), (const int32_t *)drv_ptr(c, 1), (const float *)drv_ptr(c, 2),
          (const float *)drv_ptr(c, 3), (float *)drv_ptr(c, 4), (int32_t)drv_i64(c, 5), (int32_t)drv_i64(c, 6));
  return 0;
}
static int64_t call_spmv_timed(drv_call *c) {
  spmvCsr((const int32_t *)drv_ptr(c, 2), (const int32_t *)drv_ptr(c, 3), (const float *)drv_ptr(c, 0),
          (const float *)drv_ptr(c, 4), (float *)drv_ptr(c, 1), (int32_t)drv_i64(c, 5), (int32_t)drv_i64(c, 6));
  return 0;
}
static int64_t call_str(drv_call *c) {
  const uint8_t *a = (const uint8_t *)drv_ptr(c, 0) + drv_size(c, 4);
  const uint8_t *b = (const uint8_t *)drv_ptr(c, 1) + drv_size(c, 5);
  if (drv_size(c, 4) + drv_size(c, 2) > drv_buf_bytes(c, 0) || drv_size(c, 5) + drv_size(c, 3) > drv_buf_bytes(c, 1))
    drv_die("strCompare: a string runs past its buffer");
  return (int64_t)strCompare(a, drv_size(c, 2), b, drv_size(c, 3));
}
static int64_t call_str_batch(drv_call *c) {
  strCompareBatch((const uint8_t *)drv_ptr(c, 0), (const uint32_t *)drv_ptr(c, 1), (const uint8_t *)drv_ptr(c, 2),
                  (const uint32_t *)drv_ptr(c, 3), (int32_t *)drv_ptr(c, 4), (uint32_t)drv_i64(c, 5));
  return 0;
}
static int64_t call_first_diff(drv_call *c) {
  firstDiffApply((const int32_t *)drv_ptr(c, 0), (const int32_t *)drv_ptr(c, 1), (int32_t *)drv_ptr(c, 2),
                 (int32_t *)drv_ptr(c, 3), drv_size(c, 4));
  return 0;
}
static int64_t call_release(drv_call *c) { return (void)c, appRelease(), 0; }
static int64_t call_app_scan(drv_call *c) {
  appScanExc((const uint32_t *)drv_ptr(c, 0), (uint32_t *)drv_ptr(c, 1), drv_size(c, 2));
  return 0;
}
static int64_t call_select_tail(drv_call *c) {
  return (int64_t)appSelectTail((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2),
                                drv_size(c, 3), (int32_t)drv_i64(c, 4), drv_size(c, 5), drv_size(c, 6),
                                (int)drv_i64(c, 7));
}

DRV_TABLE({"compactScan", call_compact_scan}, {"compactSinglePass", call_compact_single},
          {"compactSinglePassAsync", call_compact_async},
          {"partitionStable", call_partition}, {"partitionSinglePass", call_partition_single}, {"splitBit", call_split}, {"radixSortSplit", call_sort_split},
          {"radixSortKeys", call_sort_keys}, {"radixSortPairs", call_sort_pairs}, {"lineOfSight", call_sight}, {"lineOfSightBits", call_sight},
          {"spmvCsr", call_spmv}, {"spmvTimed", call_spmv_timed}, {"strCompare", call_str}, {"strCompareBatch", call_str_batch},
          {"firstDiffApply", call_first_diff}, {"appRelease", call_release},
          {"appSelectTail", call_select_tail}, {"appScanExc", call_app_scan});
