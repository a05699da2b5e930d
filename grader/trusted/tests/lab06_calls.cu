/**
 * @file lab06_calls.cu
 * @brief Lab 06's call table: the segmented operator, the warp and block scans (batched), the
 *        head lanes, the single pass for each element type and operator the tests use, and
 *        segScanGlobalRelease().
 *
 * Argument order: values in, values out, flags (bytes, four to a 32-bit buffer element), n,
 * then what the function needs. `kind` (one of KINDS) picks the element type and operator;
 * `identity` carries its bytes.
 *
 *     segOpApply(a, b, out, n, kind)                      pairs (flag, value), 8 bytes each
 *     segHeadLaneBatch(flags, out, n, block)
 *     segScanBatch(in, out, flags, n, block, variant, kind, identity)
 *     segScanGlobal(in, out, flags, n, exclusive, kind, identity)
 *     segScanGlobal_add(in, out, flags, n, exclusive)     the timed form (int Add)
 *     segScanGlobalRelease()
 *     segLookbackProbe(values, states, status, out, tile, has_head, kind, aggregate)   int Add or Compose16
 *     segScanGlobalTail(in, out, flags, start, n, exclusive, kind, identity, carry)   int Add or Compose16:
 *                      in, out and flags hold elements [start, n) only
 */
#include <stdint.h>
#include <string.h>

#include "driver.h"
#include "seg_scan.h"

enum { KIND_INT_ADD, KIND_INT_MAX, KIND_INT_MIN, KIND_FLOAT_ADD, KIND_AFFINE16_COMPOSE };

#define FLAGS(k) (const uint8_t *)drv_ptr(c, (k))

/* The identity's bytes, checked against the element type. */
template <typename T>
static T identity_arg(drv_call *c, int k) {
  size_t len = 0;
  const void *p = drv_bytes(c, k, &len);
  if (len != sizeof(T)) drv_die("%s: the identity has %zu bytes, not %zu", "lab06", len, sizeof(T));
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T, typename Op>
static int64_t apply(drv_call *c, Op op) {
  return (int64_t)segOpApply<T, Op>((const FlagValue<T> *)drv_ptr(c, 0), (const FlagValue<T> *)drv_ptr(c, 1),
                                    (FlagValue<T> *)drv_ptr(c, 2), drv_size(c, 3), op);
}

template <typename T, typename Op>
static int64_t batch(drv_call *c, Op op) {
  return (int64_t)segScanBatch<T, Op>((SegScanVariant)drv_i64(c, 5), (const T *)drv_ptr(c, 0), FLAGS(2),
                                      (T *)drv_ptr(c, 1), drv_size(c, 3), (int)drv_i64(c, 4), op,
                                      identity_arg<T>(c, 7));
}

template <typename T, typename Op>
static int64_t global(drv_call *c, Op op) {
  const T identity = identity_arg<T>(c, 6);
  if (drv_i64(c, 4)) segScanExcGlobal<T, Op>((const T *)drv_ptr(c, 0), FLAGS(2), (T *)drv_ptr(c, 1), drv_size(c, 3), op, identity);
  else segScanIncGlobal<T, Op>((const T *)drv_ptr(c, 0), FLAGS(2), (T *)drv_ptr(c, 1), drv_size(c, 3), op);
  return 0;
}

/* One switch over the kinds for each entry. */
#define BY_KIND(fn, k)                                                                  \
  switch (drv_i64(c, (k))) {                                                            \
    case KIND_INT_ADD: return fn<int32_t>(c, Add());                                    \
    case KIND_INT_MAX: return fn<int32_t>(c, Max());                                    \
    case KIND_INT_MIN: return fn<int32_t>(c, Min());                                    \
    case KIND_FLOAT_ADD: return fn<float>(c, Add());                                    \
    case KIND_AFFINE16_COMPOSE: return fn<Affine16>(c, Compose16());                    \
  }                                                                                     \
  drv_die("no element type and operator number %lld", (long long)drv_i64(c, (k)))

static int64_t call_apply(drv_call *c) { BY_KIND(apply, 4); }
static int64_t call_batch(drv_call *c) { BY_KIND(batch, 6); }
static int64_t call_global(drv_call *c) { BY_KIND(global, 5); }

static int64_t call_head_lane(drv_call *c) {
  return (int64_t)segHeadLaneBatch(FLAGS(0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2), (int)drv_i64(c, 3));
}

static int64_t call_global_add(drv_call *c) {
  const int32_t *in = (const int32_t *)drv_ptr(c, 0);
  int32_t *out = (int32_t *)drv_ptr(c, 1);
  if (drv_i64(c, 4)) segScanExcGlobal<int32_t, Add>(in, FLAGS(2), out, drv_size(c, 3), Add(), 0);
  else segScanIncGlobal<int32_t, Add>(in, FLAGS(2), out, drv_size(c, 3), Add());
  return 0;
}

static int64_t call_release(drv_call *c) { return (void)c, segScanGlobalRelease(), 0; }

template <typename T, typename Op>
static int64_t lookback_probe(drv_call *c, Op op) {
  return (int64_t)segLookbackProbe<T, Op>((const T *)drv_ptr(c, 0), (const int32_t *)drv_ptr(c, 1), drv_ptr(c, 2),
                                          (uint32_t *)drv_ptr(c, 3), (unsigned)drv_i64(c, 4), drv_i64(c, 5) != 0,
                                          identity_arg<T>(c, 7), op);
}

template <typename T, typename Op>
static int64_t global_tail(drv_call *c, Op op) {
  segScanGlobalTail<T, Op>((const T *)drv_ptr(c, 0), FLAGS(2), (T *)drv_ptr(c, 1), drv_size(c, 3), drv_size(c, 4), op,
                           identity_arg<T>(c, 7), identity_arg<T>(c, 8), drv_i64(c, 5) != 0);
  return 0;
}

/* The probes exist for int Add and Compose16 only. */
#define BY_PROBE_KIND(fn, k)                                                            \
  switch (drv_i64(c, (k))) {                                                            \
    case KIND_INT_ADD: return fn<int32_t>(c, Add());                                    \
    case KIND_AFFINE16_COMPOSE: return fn<Affine16>(c, Compose16());                    \
  }                                                                                     \
  drv_die("no look-back probe for element type and operator number %lld", (long long)drv_i64(c, (k)))

static int64_t call_lookback_probe(drv_call *c) { BY_PROBE_KIND(lookback_probe, 6); }
static int64_t call_global_tail(drv_call *c) { BY_PROBE_KIND(global_tail, 6); }

DRV_TABLE({"segOpApply", call_apply}, {"segHeadLaneBatch", call_head_lane}, {"segScanBatch", call_batch},
          {"segScanGlobal", call_global}, {"segScanGlobal_add", call_global_add},
          {"segScanGlobalRelease", call_release}, {"segLookbackProbe", call_lookback_probe},
          {"segScanGlobalTail", call_global_tail});
