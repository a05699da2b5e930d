/**
 * @file hx_verify.c
 * @brief The host versions of the trusted side's output checks (see hx_verify.h): plain loops
 *        that recompute the reference as they go.
 */
#include "hx_verify.h"

#include <math.h>
#include <string.h>

#include "hx_proto.h"

int32_t hxv_at(const hxv_input *in, size_t i) {
  return in->p ? in->p[i] : hxp_gen_value(in->seed, i, in->lo, in->hi);
}

static void clear(hxv_result *r) {
  memset(r, 0, sizeof *r);
  r->first = HXV_NONE;
}

/* Records a wrong element; the first one keeps its values. */
static void wrong(hxv_result *r, size_t i, int64_t expected, int64_t got) {
  if (r->count++ == 0) {
    r->first = i;
    r->expected = expected;
    r->got = got;
  }
}

static int is_head(const hxv_segments *seg, size_t i) {
  if (i == 0) return 1;
  if (seg && seg->tile) {
    const size_t sub = seg->sub ? seg->sub : seg->tile;
    if ((i % seg->tile) % sub == 0) return 1;
  }
  return seg && seg->flags && seg->flags[i] != 0;
}

size_t hxv_scan_host(const hxv_input *in, const int32_t *out, size_t n, int exclusive, const hxv_segments *seg,
                     hxv_result *r) {
  clear(r);
  uint32_t acc = 0; /* unsigned: wraps as the GPU adds */
  for (size_t i = 0; i < n; i++) {
    if (is_head(seg, i)) acc = 0;
    const uint32_t x = (uint32_t)hxv_at(in, i);
    if (!exclusive) acc += x;
    if ((int32_t)acc != out[i]) wrong(r, i, (int32_t)acc, out[i]);
    if (exclusive) acc += x;
  }
  return r->count;
}

size_t hxv_select_host(const hxv_input *in, const int32_t *out, size_t n, int32_t pivot, int partition,
                       hxv_result *r) {
  clear(r);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) kept += hxv_at(in, i) > pivot;
  size_t k = 0, m = kept;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = hxv_at(in, i);
    const int keep = x > pivot;
    if (!keep && !partition) continue;
    const size_t at = keep ? k++ : m++;
    if (out[at] != x) {
      if (r->count == 0) r->where = (int64_t)at;
      wrong(r, i, x, out[at]);
    }
  }
  r->extra = (int64_t)kept;
  return r->count;
}

size_t hxv_sight_host(const hxv_input *in, const uint8_t *vis, size_t n, hxv_result *r) {
  clear(r);
  float best = -INFINITY, a0 = 0.0f;
  for (size_t i = 0; i < n; i++) {
    const int32_t bits = hxv_at(in, i);
    float a;
    memcpy(&a, &bits, 4);
    if (i == 0) a0 = a;
    const float s = i ? (a - a0) / (float)i : -INFINITY;
    const uint8_t v = s > best;
    if (s > best) best = s;
    if (vis[i] != v) wrong(r, i, v, vis[i]);
  }
  return r->count;
}

size_t hxv_sort_host(const hxv_input *in, const uint32_t *out, size_t n, hxv_result *r) {
  clear(r);
  uint64_t in_a = 0, in_b = 0, out_a = 0, out_b = 0;
  for (size_t i = 0; i < n; i++) {
    const uint32_t k = (uint32_t)hxv_at(in, i);
    in_a += hxv_sort_mix(k, 1);
    in_b += hxv_sort_mix(k, 0x5EED);
    out_a += hxv_sort_mix(out[i], 1);
    out_b += hxv_sort_mix(out[i], 0x5EED);
    if (i > 0 && out[i - 1] > out[i]) wrong(r, i, out[i - 1], out[i]);
  }
  if (in_a != out_a || in_b != out_b) {
    r->extra = 1;
    r->count++;
  }
  return r->count;
}

size_t hxv_spmv_host(const int32_t *ptr, const int32_t *col, const float *x, const hxv_input *val, const float *y,
                     int32_t rows, double rtol, double atol, hxv_result *r) {
  clear(r);
  for (int32_t i = 0; i < rows; i++) {
    double sum = 0.0, mag = 0.0;
    for (int32_t k = ptr[i]; k < ptr[i + 1]; k++) {
      const int32_t bits = hxv_at(val, (size_t)k);
      float v;
      memcpy(&v, &bits, 4);
      const double p = (double)v * (double)x[col[k]];
      sum += p;
      mag += fabs(p);
    }
    const double g = y[i];
    if (isnan(g) || fabs(g - sum) > atol + rtol * mag) {
      if (r->count == 0) {
        r->fexpected = sum;
        r->fgot = g;
      }
      wrong(r, (size_t)i, 0, 0);
    }
  }
  return r->count;
}
