/**
 * @file lab04_calls.cu
 * @brief Lab 04's call table: warpScanBatch() for each element type and operator the tests use.
 *
 * `warpScanBatch(in, out, n, block, variant, kind, identity)` with `kind` one of KINDS (the
 * element type and operator) and `identity` its bytes; `warpScanBatch_add(in, out, n, block,
 * variant)` is the timed form (int Add).
 */
#include <stdint.h>
#include <string.h>

#include "driver.h"
#include "warp_scan.h"

enum { KIND_INT_ADD, KIND_INT_MAX, KIND_INT_MIN, KIND_FLOAT_ADD, KIND_AFFINE_COMPOSE };

template <typename T, typename Op>
static int64_t batch(drv_call *c, Op op) {
  size_t len = 0;
  const void *id = drv_bytes(c, 6, &len);
  if (len != sizeof(T)) drv_die("warpScanBatch: the identity has %zu bytes, not %zu", len, sizeof(T));
  T identity;
  memcpy(&identity, id, sizeof(T));
  return (int64_t)warpScanBatch<T, Op>((WarpScanVariant)drv_i64(c, 4), (const T *)drv_ptr(c, 0),
                                       (T *)drv_ptr(c, 1), drv_size(c, 2), (int)drv_i64(c, 3), op, identity);
}

static int64_t call_batch(drv_call *c) {
  switch (drv_i64(c, 5)) {
    case KIND_INT_ADD: return batch<int32_t>(c, Add());
    case KIND_INT_MAX: return batch<int32_t>(c, Max());
    case KIND_INT_MIN: return batch<int32_t>(c, Min());
    case KIND_FLOAT_ADD: return batch<float>(c, Add());
    case KIND_AFFINE_COMPOSE: return batch<Affine>(c, Compose());
  }
  drv_die("warpScanBatch: no element type and operator number %lld", (long long)drv_i64(c, 5));
}

static int64_t call_batch_add(drv_call *c) {
  return (int64_t)warpScanBatch<int32_t, Add>((WarpScanVariant)drv_i64(c, 4), (const int32_t *)drv_ptr(c, 0),
                                              (int32_t *)drv_ptr(c, 1), drv_size(c, 2), (int)drv_i64(c, 3),
                                              Add(), 0);
}

DRV_TABLE({"warpScanBatch", call_batch}, {"warpScanBatch_add", call_batch_add});
