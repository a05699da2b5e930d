/**
 * @file verify_test.cu
 * @brief The trusted side's output checks, host against device: every check of hx_verify.h runs
 *        in both versions (hx_verify.c on the host, hx_dev.cu on the device) on the same
 *        outputs, right and with planted faults, and must find the same thing.
 *
 * Built for the emu by `make check` and with nvcc by `make check-gpu` (grader/selftest/run.py).
 * Prints one line per disagreement and ends with `verify: N cases, N disagreements`; exits 1
 * on any disagreement, or when a planted fault goes unseen by both.
 *
 *     verify_test [LARGE]     LARGE: also sizes around LARGE (a GPU: 2^22 + 13)
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_dev.h"
#include "hx_proto.h"
#include "hx_verify.h"

static int cases = 0, bad = 0;

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void *to_device(const void *h, size_t bytes) {
  void *d = NULL;
  if (hxd_alloc(&d, bytes) || (bytes && hxd_upload(d, h, bytes))) {
    fprintf(stderr, "verify_test: %s\n", hxd_error());
    exit(2);
  }
  return d;
}

/* Host and device results must be the same; a planted fault must be seen. */
static void agree(const char *what, size_t n, const char *fault, int rc, const hxv_result *h, const hxv_result *d,
                  int planted) {
  cases++;
  char why[256] = "";
  if (rc) snprintf(why, sizeof why, "device check failed: %s", hxd_error());
  else if (h->count != d->count || h->first != d->first || h->expected != d->expected || h->got != d->got ||
           h->where != d->where || h->extra != d->extra || h->fexpected != d->fexpected || h->fgot != d->fgot)
    snprintf(why, sizeof why,
             "host count %zu first %zu expected %lld got %lld where %lld extra %lld (%.9g, %.9g); device count %zu "
             "first %zu expected %lld got %lld where %lld extra %lld (%.9g, %.9g)",
             h->count, h->first, (long long)h->expected, (long long)h->got, (long long)h->where, (long long)h->extra,
             h->fexpected, h->fgot, d->count, d->first, (long long)d->expected, (long long)d->got, (long long)d->where,
             (long long)d->extra, d->fexpected, d->fgot);
  else if (planted && !h->count)
    snprintf(why, sizeof why, "the planted fault was not seen");
  else if (!planted && h->count)
    snprintf(why, sizeof why, "a right output was called wrong (%zu at %zu)", h->count, h->first);
  if (*why) {
    bad++;
    printf("%s(n=%zu, %s): %s\n", what, n, fault, why);
  }
}

/* Faults planted in an output of n elements of 4 bytes: none, one element, a run, the tail. */
static const char *FAULTS[] = {"right", "one element", "a run", "the last element"};
static int plant(uint32_t *o, size_t n, int kind) {
  if (kind == 0 || n == 0) return 0;
  if (kind == 1) o[rnd() % n] ^= 1u << (rnd() % 31);
  if (kind == 2) {
    const size_t at = rnd() % n;
    for (size_t i = at; i < n && i < at + 40; i++) o[i] += 7;
  }
  if (kind == 3) o[n - 1] = HXP_POISON;
  return 1;
}

/* ---- scans ------------------------------------------------------------------------------------ */

static void scan_case(size_t n, int exclusive, size_t tile, size_t sub, int flagged, int generated) {
  int32_t *in = (int32_t *)malloc(n * 4 + 4), *out = (int32_t *)malloc(n * 4 + 4);
  uint8_t *f = (uint8_t *)malloc(n + 4);
  const uint64_t seed = rnd();
  hxv_input hin = {NULL, seed, -1000, 1000};
  for (size_t i = 0; i < n; i++) {
    in[i] = generated ? hxp_gen_value(seed, i, -1000, 1000) : (int32_t)(rnd() >> 33) - (1 << 29);
    f[i] = flagged && rnd() % 37 == 0;
  }
  if (!generated) hin.p = in;
  hxv_segments seg = {tile, sub, flagged ? f : NULL};
  hxv_result r;
  for (int k = 0; k < 4; k++) {
    /* the right output, from the host check's own meaning: zero faults found */
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
      const int head = i == 0 || (tile && (i % tile) % (sub ? sub : tile) == 0) || (flagged && f[i]);
      if (head) acc = 0;
      if (!exclusive) acc += (uint32_t)in[i];
      out[i] = (int32_t)acc;
      if (exclusive) acc += (uint32_t)in[i];
    }
    const int planted = plant((uint32_t *)out, n, k);
    hxv_result h, d;
    hxv_scan_host(&hin, out, n, exclusive, &seg, &h);
    int32_t *d_in = (int32_t *)to_device(in, n * 4), *d_out = (int32_t *)to_device(out, n * 4);
    uint8_t *d_f = (uint8_t *)to_device(f, n);
    hxv_input din = hin;
    if (!generated) din.p = d_in;
    hxv_segments dseg = {tile, sub, flagged ? d_f : NULL};
    const int rc = hxd_scan(&din, d_out, n, exclusive, &dseg, &d);
    char what[160];
    snprintf(what, sizeof what, "scan %s tile %zu sub %zu%s%s", exclusive ? "exclusive" : "inclusive", tile, sub,
             flagged ? " flags" : "", generated ? " generated" : "");
    agree(what, n, FAULTS[k], rc, &h, &d, planted);
    hxd_free(d_in);
    hxd_free(d_out);
    hxd_free(d_f);
  }
  (void)r;
  free(in);
  free(out);
  free(f);
}

/* ---- compaction and partition ---------------------------------------------------------------- */

static void select_case(size_t n, int partition, int generated) {
  int32_t *in = (int32_t *)malloc(n * 4 + 4), *out = (int32_t *)malloc(n * 4 + 4);
  const uint64_t seed = rnd();
  hxv_input hin = {NULL, seed, 0, 999};
  for (size_t i = 0; i < n; i++) in[i] = generated ? hxp_gen_value(seed, i, 0, 999) : (int32_t)(rnd() % 1000);
  if (!generated) hin.p = in;
  for (int k = 0; k < 4; k++) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (in[i] > 499) out[m++] = in[i];
    const size_t kept = m;
    for (size_t i = 0; i < n; i++)
      if (in[i] <= 499) {
        if (partition) out[m] = in[i];
        else out[m] = (int32_t)HXP_POISON;
        m++;
      }
    int planted = 0;
    if (k && (partition ? n : kept)) planted = plant((uint32_t *)out, partition ? n : kept, k);
    hxv_result h, d;
    hxv_select_host(&hin, out, n, 499, partition, &h);
    int32_t *d_in = (int32_t *)to_device(in, n * 4), *d_out = (int32_t *)to_device(out, n * 4);
    hxv_input din = hin;
    if (!generated) din.p = d_in;
    const int rc = hxd_select(&din, d_out, n, 499, partition, &d);
    agree(partition ? "partition" : "compaction", n, FAULTS[k], rc, &h, &d, planted);
    hxd_free(d_in);
    hxd_free(d_out);
  }
  free(in);
  free(out);
}

/* ---- line of sight ---------------------------------------------------------------------------- */

static void sight_case(size_t n, int generated) {
  int32_t *in = (int32_t *)malloc(n * 4 + 4);
  uint8_t *vis = (uint8_t *)malloc(n + 4);
  const uint64_t seed = rnd();
  hxv_input hin = {NULL, seed, 0x3f800000, 0x3fffffff};
  for (size_t i = 0; i < n; i++) {
    const float a = generated ? 0.0f : 1000.0f * (float)(rnd() >> 40) / (float)(1 << 24) + 0.01f * (float)i;
    int32_t bits;
    memcpy(&bits, &a, 4);
    in[i] = generated ? hxp_gen_value(seed, i, 0x3f800000, 0x3fffffff) : bits;
  }
  if (!generated) hin.p = in;
  for (int k = 0; k < 3; k++) {
    float best = -INFINITY, a0 = 0;
    for (size_t i = 0; i < n; i++) {
      float a;
      memcpy(&a, &in[i], 4);
      if (i == 0) a0 = a;
      const float s = i ? (a - a0) / (float)i : -INFINITY;
      vis[i] = s > best;
      if (s > best) best = s;
    }
    int planted = 0;
    if (k == 1 && n) vis[rnd() % n] ^= 1, planted = 1;
    if (k == 2 && n) vis[n - 1] = 0xEF, planted = 1;
    hxv_result h, d;
    hxv_sight_host(&hin, vis, n, &h);
    int32_t *d_in = (int32_t *)to_device(in, n * 4);
    uint8_t *d_vis = (uint8_t *)to_device(vis, n);
    hxv_input din = hin;
    if (!generated) din.p = d_in;
    const int rc = hxd_sight(&din, d_vis, n, &d);
    agree(generated ? "sight generated" : "sight", n, FAULTS[k], rc, &h, &d, planted);
    hxd_free(d_in);
    hxd_free(d_vis);
  }
  free(in);
  free(vis);
}

/* ---- sort ----------------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void sort_case(size_t n) {
  uint32_t *out = (uint32_t *)malloc(n * 4 + 4);
  const uint64_t seed = rnd();
  const hxv_input in = {NULL, seed, INT32_MIN, INT32_MAX};
  for (int k = 0; k < 4; k++) {
    for (size_t i = 0; i < n; i++) out[i] = (uint32_t)hxp_gen_value(seed, i, INT32_MIN, INT32_MAX);
    qsort(out, n, 4, cmp_u32);
    int planted = 0;
    if (k == 1 && n > 1) { /* a swap: out of order, same keys */
      const size_t a = rnd() % (n - 1);
      const uint32_t t = out[a];
      out[a] = out[a + 1];
      out[a + 1] = t;
      planted = out[a] != out[a + 1];
    }
    if (k == 2 && n) out[n - 1] = 0xFFFFFFFFu, planted = 1; /* in order, a key replaced */
    if (k == 3 && n > 1) out[0] = out[1], planted = 1;
    hxv_result h, d;
    hxv_sort_host(&in, out, n, &h);
    uint32_t *d_out = (uint32_t *)to_device(out, n * 4);
    const int rc = hxd_sort(&in, d_out, n, &d);
    agree("sort", n, FAULTS[k], rc, &h, &d, planted && (h.count || d.count));
    hxd_free(d_out);
  }
  free(out);
}

/* ---- the sparse product ------------------------------------------------------------------------ */

static void spmv_case(int32_t rows) {
  int32_t *ptr = (int32_t *)malloc(((size_t)rows + 1) * 4);
  ptr[0] = 0;
  for (int32_t i = 0; i < rows; i++) ptr[i + 1] = ptr[i] + (int32_t)(rnd() % 9) + (i % 97 == 0 ? 300 : 0);
  const int32_t nnz = ptr[rows];
  int32_t *col = (int32_t *)malloc((size_t)nnz * 4 + 4);
  float *x = (float *)malloc((size_t)rows * 4 + 4), *y = (float *)malloc((size_t)rows * 4 + 4);
  for (int32_t k = 0; k < nnz; k++) col[k] = (int32_t)(rnd() % (uint64_t)rows);
  for (int32_t i = 0; i < rows; i++) x[i] = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  const hxv_input val = {NULL, rnd(), 0x3f800000, 0x3fffffff};
  for (int k = 0; k < 3; k++) {
    for (int32_t i = 0; i < rows; i++) {
      double s = 0;
      for (int32_t j = ptr[i]; j < ptr[i + 1]; j++) {
        const int32_t bits = hxp_gen_value(val.seed, (size_t)j, val.lo, val.hi);
        float v;
        memcpy(&v, &bits, 4);
        s += (double)v * (double)x[col[j]];
      }
      y[i] = (float)s;
    }
    int planted = 0;
    if (k == 1 && rows) y[rnd() % (uint64_t)rows] += 0.5f, planted = 1;
    if (k == 2 && rows) y[rows - 1] = NAN, planted = 1;
    hxv_result h, d;
    hxv_spmv_host(ptr, col, x, &val, y, rows, 1e-5, 1e-6, &h);
    int32_t *d_ptr = (int32_t *)to_device(ptr, ((size_t)rows + 1) * 4), *d_col = (int32_t *)to_device(col, (size_t)nnz * 4);
    float *d_x = (float *)to_device(x, (size_t)rows * 4), *d_y = (float *)to_device(y, (size_t)rows * 4);
    const int rc = hxd_spmv(d_ptr, d_col, d_x, &val, d_y, rows, 1e-5, 1e-6, &d);
    /* NaN never equals itself: compare the got values by their bits */
    if (isnan(h.fgot) && isnan(d.fgot)) h.fgot = d.fgot = 0;
    agree("spmv", (size_t)rows, FAULTS[k], rc, &h, &d, planted);
    hxd_free(d_ptr);
    hxd_free(d_col);
    hxd_free(d_x);
    hxd_free(d_y);
  }
  free(ptr);
  free(col);
  free(x);
  free(y);
}

/* ---- guards and inputs ------------------------------------------------------------------------- */

static void words_case(size_t words) {
  uint32_t *w = (uint32_t *)malloc(words * 4 + 4);
  for (size_t i = 0; i < words; i++) w[i] = HXP_POISON;
  size_t a = words ? rnd() % words : 0, b = words ? rnd() % words : 0;
  if (words) w[a] = 1, w[b] = 2;
  uint32_t *d = (uint32_t *)to_device(w, words * 4);
  size_t count, first, last;
  cases++;
  const size_t lo = a < b ? a : b, hi = a < b ? b : a;
  if (hxd_words_not(d, words, HXP_POISON, &count, &first, &last) ||
      (words && (count != (a == b ? 1u : 2u) || first != lo || last != hi)) || (!words && count)) {
    bad++;
    printf("words_not(%zu): count %zu first %zu last %zu, expected %zu %zu %zu\n", words, count, first, last,
           (size_t)(a == b ? 1 : 2), lo, hi);
  }
  const uint64_t seed = rnd();
  for (size_t i = 0; i < words; i++) w[i] = (uint32_t)hxp_gen_value(seed, i, -5, 5);
  if (words) w[b] += 1;
  hxd_free(d);
  d = (uint32_t *)to_device(w, words * 4);
  cases++;
  if (hxd_check_generated((const int32_t *)d, words, seed, -5, 5, &count, &first) || (words && (count != 1 || first != b))) {
    bad++;
    printf("check_generated(%zu): count %zu first %zu, expected 1 %zu\n", words, count, first, b);
  }
  hxd_free(d);
  free(w);
}

int main(int argc, char **argv) {
  char device[128];
  if (hxd_init(device, sizeof device)) {
    fprintf(stderr, "verify_test: %s\n", hxd_error());
    return 2;
  }
  size_t sizes[16] = {0, 1, 31, 4095, 4096, 4097, 70001};
  int ns = 7;
  if (argc > 1) {
    const size_t large = (size_t)strtoull(argv[1], NULL, 10);
    sizes[ns++] = large;
    sizes[ns++] = large + 4096;
  }
  for (int s = 0; s < ns; s++) {
    const size_t n = sizes[s];
    for (int ex = 0; ex < 2; ex++) {
      scan_case(n, ex, 0, 0, 0, 1);
      scan_case(n, ex, 0, 0, 0, 0);
      scan_case(n, ex, 1024, 0, 0, 1);
      scan_case(n, ex, 256, 32, 0, 1);
      scan_case(n, ex, 0, 0, 1, 0);
    }
    select_case(n, 0, 1);
    select_case(n, 1, 0);
    sight_case(n, 1);
    sight_case(n, 0);
    sort_case(n);
    words_case(n);
    if (n < ((size_t)1 << 24)) spmv_case((int32_t)n);
  }
  printf("verify: %d cases, %d disagreements (%s)\n", cases, bad, device);
  return bad ? 1 : 0;
}
