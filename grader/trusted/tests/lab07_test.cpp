/**
 * @file lab07_test.cpp
 * @brief Lab 07 tests: compaction (three passes and one), stable partition, split and radix
 *        sort (keys and pairs), line of sight, the
 *        sparse matrix-vector product, the FirstDiff operator and string comparison.
 *
 * The applications run in the driver (grader/trusted/tests/lab07_calls.cu). The tests make the inputs,
 * compute every answer on the host (the sparse product in double precision), and name the
 * input, the seed and the first wrong element. Sizes, patterns, seeds, tolerances and
 * thresholds come from `grader/manifests/lab07.toml`.
 *
 * Why one file (past 800 lines): one lab's CUnit suite, its tests in the manifest's order.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "harness.h"

#define MAX_LIST 64

typedef hx_words Words;
/* A list parameter's words (filled in place: the words point into the struct's own buffer). */
static void words(const char *key, Words *out) { hx_param_words(key, out); }

/* A buffer of at least @p bytes bytes (32-bit elements). */
static hx_buf *byte_buf(size_t bytes) { return hx_buf_new((bytes + 3) / 4 ? (bytes + 3) / 4 : 1, 4); }

/* ==== Part 1: compaction and partition ========================================================= */

/* Inputs by pattern: random values in [0, 999] with a pivot that keeps about 1/2 (r2), 1/10
 * (r10), none or all; or all zeros but one 1 at the first, middle or last element (pivot 0). */
static bool make_select(const char *pattern, size_t n, uint64_t seed, int32_t *in, int32_t *pivot) {
  if (!strcmp(pattern, "r2") || !strcmp(pattern, "r10") || !strcmp(pattern, "none") || !strcmp(pattern, "all")) {
    for (size_t i = 0; i < n; i++) in[i] = hx_gen_i32(seed, i, 0, 999);
    *pivot = !strcmp(pattern, "r2") ? 499 : !strcmp(pattern, "r10") ? 899 : !strcmp(pattern, "none") ? 999 : -1;
    return true;
  }
  if (!strcmp(pattern, "first") || !strcmp(pattern, "middle") || !strcmp(pattern, "last")) {
    memset(in, 0, n * sizeof *in);
    if (n) in[!strcmp(pattern, "first") ? 0 : !strcmp(pattern, "last") ? n - 1 : n / 2] = 1;
    *pivot = 0;
    return true;
  }
  HX_FAIL("manifest: no selection pattern '%s' (r2, r10, none, all, first, middle, last)", pattern);
  return false;
}

/* What a selection writes: the kept elements only (compaction), then the others in input order
 * (partitionStable) or in reverse input order (partitionSinglePass, as CUB's partition). */
enum SelectForm { KEPT_ONLY, OTHERS_IN_ORDER, OTHERS_REVERSED };

static SelectForm select_form(const char *fn) {
  return !strcmp(fn, "partitionStable") ? OTHERS_IN_ORDER
         : !strcmp(fn, "partitionSinglePass") ? OTHERS_REVERSED
                                               : KEPT_ONLY;
}

/* Expected output of a selection of the given form; returns the number kept. */
static size_t expect_select(const int32_t *in, size_t n, int32_t pivot, SelectForm form, int32_t *exp) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (in[i] > pivot) exp[k++] = in[i];
  const size_t kept = k;
  if (form == OTHERS_IN_ORDER)
    for (size_t i = 0; i < n; i++)
      if (in[i] <= pivot) exp[k++] = in[i];
  if (form == OTHERS_REVERSED)
    for (size_t i = n; i-- > 0;)
      if (in[i] <= pivot) exp[k++] = in[i];
  return kept;
}

/* One call of fn ("compactScan", "compactSinglePass", "partitionStable" or
 * "partitionSinglePass"); returns problems. */
static size_t run_select(const char *fn, const char *pattern, size_t n, uint64_t seed) {
  const SelectForm form = select_form(fn);
  const bool both = form != KEPT_ONLY;
  hx_buf *in = hx_buf_new(n ? n : 1, 4), *out = hx_buf_new(n ? n : 1, 4);
  std::vector<int32_t> exp(n ? n : 1);
  size_t bad = 1;
  int32_t pivot = 0;
  if (in && out && make_select(pattern, n, seed, (int32_t *)hx_buf_data(in), &pivot)) {
    const size_t kept = expect_select((const int32_t *)hx_buf_data(in), n, pivot, form, exp.data());
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, keep x > %d, pattern %s, seed=%llu)", fn, n, pivot, pattern,
             (unsigned long long)seed);
    long long got = -1;
    bad = HX_CALL_RET(&got, fn, ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(pivot));
    if (!bad && !HX_CHECK(got == (long long)kept, "%s: returned %lld; %zu elements are greater than %d", ctx, got,
                          kept, pivot))
      bad = 1;
    if (!bad) bad = hx_check_i32(ctx, exp.data(), (const int32_t *)hx_buf_data(out), both ? n : kept);
  }
  hx_buf_free(in);
  hx_buf_free(out);
  return bad;
}

/* Every pattern at every size of the manifest, through `run` (run_select or run_sort); stops at
 * the first failing case. */
typedef size_t (*RunCase)(const char *fn, const char *pattern, size_t n, uint64_t seed);
static void sweep(const char *fn, RunCase run) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  Words pats;
  words("patterns", &pats);
  if (hx_failures() || ns < 0 || pats.n < 0) return;
  for (int p = 0; p < pats.n; p++)
    for (int s = 0; s < ns; s++)
      if (run(fn, pats.w[p], (size_t)sizes[s], hx_seed() + (uint64_t)(p * 131 + s))) return;
}

static void test_compact_scan(void) { sweep("compactScan", run_select); }
static void test_compact_single(void) { sweep("compactSinglePass", run_select); }
static void test_partition(void) { sweep("partitionStable", run_select); }
static void test_partition_single(void) { sweep("partitionSinglePass", run_select); }

/* The example of the handout's compaction figure: keep the odd numbers of
 * {1 3 2 4 8 6 5 4 9 7 3}; here x > pivot
 * on the same values after x -> x odd ? x : -x, pivot 0, so the kept ones are {1 3 5 9 7 3}. */
static void test_compact_example(void) {
  static const int32_t A[11] = {1, 3, 2, 4, 8, 6, 5, 4, 9, 7, 3};
  static const int32_t KEPT[6] = {1, 3, 5, 9, 7, 3};
  static const int32_t PART[11] = {1, 3, 5, 9, 7, 3, -2, -4, -8, -6, -4};
  static const int32_t PART_REVERSED[11] = {1, 3, 5, 9, 7, 3, -4, -6, -8, -4, -2};
  const char *fns[4] = {"compactScan", "compactSinglePass", "partitionStable", "partitionSinglePass"};
  const int32_t *exps[4] = {KEPT, KEPT, PART, PART_REVERSED};
  for (int f = 0; f < 4; f++) {
    hx_buf *in = hx_buf_new(11, 4), *out = hx_buf_new(11, 4);
    if (!in || !out) return;
    int32_t *v = (int32_t *)hx_buf_data(in);
    for (int i = 0; i < 11; i++) v[i] = A[i] % 2 ? A[i] : -A[i];
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s({1 3 -2 -4 -8 -6 5 -4 9 7 3}, keep x > 0)", fns[f]);
    long long got = -1;
    if (!HX_CALL_RET(&got, fns[f], ctx, hx_in(in), hx_out(out), hx_i64(11), hx_i64(0)) &&
        HX_CHECK(got == 6, "%s: returned %lld, expected 6", ctx, got))
      hx_check_i32(ctx, exps[f], (const int32_t *)hx_buf_data(out), f >= 2 ? 11 : 6);
    hx_buf_free(in);
    hx_buf_free(out);
    if (hx_failures()) return;
  }
}

/* Calls in a row, growing and shrinking, each form, then after appRelease(). */
static void test_repeat(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  if (hx_failures() || ns < 0) return;
  const char *fns[4] = {"compactSinglePass", "compactScan", "partitionStable", "partitionSinglePass"};
  for (int round = 0; round < 2; round++) {
    for (int s = 0; s < ns; s++)
      if (run_select(fns[(s + round) % 4], "r2", (size_t)sizes[s], hx_seed() + (uint64_t)s)) return;
    if (round == 0 && HX_CALL("appRelease", "appRelease()", hx_i64(0))) return;
  }
}

/* n past 2^31 (GPU): compaction in one pass and partition, values the test generates. */
static void test_huge(void) {
  const size_t n = (size_t)hx_param_int("n");
  if (hx_failures()) return;
  if (!hx_timing_available() && n > ((size_t)1 << 28))
    HX_SKIP("n=%zu needs %zu GiB of device memory: GPU only (the manifest's emu size is smaller)", n, (8 * n) >> 30);
  const size_t need = 8 * n + ((size_t)512 << 20);
  const size_t have = (size_t)hx_device()->free_bytes;
  if (hx_timing_available() && have < need)
    HX_SKIP("n=%zu needs %.1f GiB of free device memory; this GPU has %.1f GiB free", n, need / 1073741824.0,
            have / 1073741824.0);
  const uint64_t seed = hx_seed();
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  const char *fns[2] = {"compactSinglePass", "partitionStable"};
  for (int f = 0; in && out && f < 2; f++) {
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, values in [0, 999], keep x > 499, seed=%llu)", fns[f], n,
             (unsigned long long)seed);
    long long got = -1;
    if (HX_CALL_RET(&got, fns[f], ctx, hx_in_generated(in, seed, 0, 999), hx_out(out), hx_i64((long long)n),
                    hx_i64(499)))
      break;
    /* checked where the output lies: on a GPU, on the device */
    hxv_result r;
    size_t bad = 0;
    if (hx_verify_select(hx_source_gen(seed, 0, 999), out, n, 499, f == 1, &r)) {
      if (r.where < r.extra)
        HX_FAIL("%s: element %zu (kept as number %lld): expected %d, got %d%s", ctx, r.first, (long long)r.where,
                (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
      else
        HX_FAIL("%s: element %zu (not kept, at %lld): expected %d, got %d%s", ctx, r.first, (long long)r.where,
                (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
      bad = 1;
    }
    if (!bad && !HX_CHECK(got == (long long)r.extra, "%s: returned %lld, expected %lld", ctx, got,
                          (long long)r.extra))
      bad = 1;
    if (bad) break;
  }
  hx_buf_free(in);
  hx_buf_free(out);
}

/* Indices past 2^31 and 2^32, cheaply: the one-pass compaction and the partition's look-back
 * pass over the last `len` elements of an array of start + len, with only those in memory (the
 * kit's appSelectTail: the tile counter at start / APP_TILE, the tile before a PREFIX of the
 * count kept before, the pointers offset back). Half the elements before `start` count as
 * kept, and the partition's first group is given the tail's kept count as its size, so the
 * tail's two groups meet in its output. A kernel that keeps an element offset in 32 bits reads
 * and writes gigabytes away from them. */
static void test_offsets_64(void) {
  long long starts[MAX_LIST];
  const int ns = hx_param_int_list("starts", starts, MAX_LIST);
  const long long len = hx_param_int("len"), tile = hx_param_int("tile");
  if (hx_failures() || ns < 0) return;
  for (int k = 0; k < ns; k++)
    if (starts[k] <= 0 || starts[k] % (2 * tile) || len <= 0) {
      HX_FAIL("manifest error: start %lld is not a positive multiple of twice the tile (%lld), or len %lld is not "
              "above 0", starts[k], tile, len);
      return;
    }
  const size_t m = (size_t)len;
  hx_buf *in = hx_buf_new(m, 4), *out = hx_buf_new(m, 4);
  std::vector<int32_t> exp(m);
  for (int k = 0; in && out && k < ns; k++)
    for (int part = 0; part < 3; part++) { /* compaction, stable partition, partition in one pass */
      const size_t start = (size_t)starts[k], kept_before = start / 2;
      const uint64_t seed = hx_seed() + (uint64_t)(k * 131 + part);
      int32_t *v = (int32_t *)hx_buf_data(in);
      for (size_t i = 0; i < m; i++) v[i] = hx_gen_i32(seed, i, 0, 999);
      const SelectForm form = part == 0 ? KEPT_ONLY : part == 1 ? OTHERS_IN_ORDER : OTHERS_REVERSED;
      const size_t kept = expect_select(v, m, 499, form, exp.data());
      const int bit = start + m > ((size_t)1 << 32) ? 32 : 31;
      char ctx[300];
      snprintf(ctx, sizeof ctx, "%s(n=%zu: elements [%zu, %zu), past 2^%d, with %zu kept before them; keep x > 499, "
               "seed=%llu)", part == 1 ? "partitionStable" : part == 2 ? "partitionSinglePass" : "compactSinglePass",
               start + m, start, start + m, bit,
               kept_before, (unsigned long long)seed);
      long long got = -1;
      if (HX_CALL_RET(&got, "appSelectTail", ctx, hx_in(in), hx_out(out), hx_i64((long long)start),
                      hx_i64((long long)(start + m)), hx_i64(499), hx_i64((long long)kept_before),
                      hx_i64((long long)kept), hx_i64(part)))
        goto done;
      if (part != 1 && !HX_CHECK(got == (long long)(kept_before + kept), "%s: returned %lld, expected %zu (%zu before the "
                             "tail, %zu in it)", ctx, got, kept_before + kept, kept_before, kept))
        goto done;
      const int32_t *o = (const int32_t *)hx_buf_data(out);
      const size_t count = part ? m : kept;
      for (size_t i = 0; i < count; i++)
        if (o[i] != exp[i]) {
          size_t wrong = 0;
          for (size_t j = i; j < count; j++) wrong += o[j] != exp[j];
          HX_FAIL("%s: the tail's output element %zu (%s) is %d%s, expected %d (%zu wrong): are the element offsets "
                  "64-bit (size_t) everywhere, tile * APP_TILE included?", ctx, i, i < kept ? "kept" : "not kept",
                  o[i], hx_poison_note(&o[i], 4, i), exp[i], wrong);
          goto done;
        }
    }
done:
  hx_buf_free(in);
  hx_buf_free(out);
}

/* ==== Part 1b: split and radix sort ============================================================= */

/* Keys by pattern: rand (every bit random), small (keys 0..15: many equal), equal (one key),
 * sorted, reversed, extremes (0 and 0xFFFFFFFF only), digits (each byte from a few values). */
static bool make_keys(const char *pattern, size_t n, uint64_t seed, uint32_t *k) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) {
    const uint32_t x = (uint32_t)hx_rng_next(&r);
    if (!strcmp(pattern, "rand")) k[i] = x;
    else if (!strcmp(pattern, "small")) k[i] = x & 15u;
    else if (!strcmp(pattern, "equal")) k[i] = 0x9E3779B9u;
    else if (!strcmp(pattern, "sorted")) k[i] = (uint32_t)(i * 977u);
    else if (!strcmp(pattern, "reversed")) k[i] = 0xFFFFFFFFu - (uint32_t)(i * 977u);
    else if (!strcmp(pattern, "extremes")) k[i] = x & 1u ? 0xFFFFFFFFu : 0u;
    else if (!strcmp(pattern, "digits")) k[i] = (x & 0x03030303u) * 0x3Fu;
    else {
      HX_FAIL("manifest: no key pattern '%s' (rand, small, equal, sorted, reversed, extremes, digits)", pattern);
      return false;
    }
  }
  return true;
}

/* A stable LSD sort of (key, index) pairs on the host, 8 bits a pass: the reference for both
 * the sorted keys and the order of equal keys. */
static void host_sort(const uint32_t *k, size_t n, std::vector<uint32_t> &keys, std::vector<uint32_t> &idx) {
  keys.assign(k, k + n);
  idx.resize(n);
  for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
  std::vector<uint32_t> k2(n), i2(n);
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) count[((keys[i] >> shift) & 255u) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) {
      const size_t at = count[(keys[i] >> shift) & 255u]++;
      k2[at] = keys[i];
      i2[at] = idx[i];
    }
    keys.swap(k2);
    idx.swap(i2);
  }
}

static size_t check_u32(const char *ctx, const uint32_t *exp, const uint32_t *got, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (exp[i] != got[i]) {
      size_t bad = 0;
      for (size_t j = i; j < n; j++) bad += exp[j] != got[j];
      HX_FAIL("%s: %s [%zu]: expected 0x%08x, got 0x%08x%s (%zu mismatch%s)", ctx, what, i, exp[i], got[i],
              got[i] == 0xDEADBEEFu || got[i] == 0xEFEFEFEFu ? " (the poison value: never written)" : "", bad,
              bad == 1 ? "" : "es");
      return bad;
    }
  return 0;
}

/* splitBit at bits 0, 7 and 31: the keys with the bit clear first, both groups in order. */
static void test_split(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  Words pats;
  words("patterns", &pats);
  if (hx_failures() || ns < 0 || pats.n < 0) return;
  const int bits[3] = {0, 7, 31};
  for (int p = 0; p < pats.n; p++)
    for (int s = 0; s < ns; s++)
      for (int b = 0; b < 3; b++) {
        const size_t n = (size_t)sizes[s];
        const uint64_t seed = hx_seed() + (uint64_t)(p * 131 + s);
        hx_buf *in = hx_buf_new(n ? n : 1, 4), *out = hx_buf_new(n ? n : 1, 4);
        size_t bad = 1;
        if (in && out && make_keys(pats.w[p], n, seed, (uint32_t *)hx_buf_data(in))) {
          const uint32_t *k = (const uint32_t *)hx_buf_data(in);
          std::vector<uint32_t> exp;
          for (size_t i = 0; i < n; i++)
            if (!((k[i] >> bits[b]) & 1u)) exp.push_back(k[i]);
          const size_t first = exp.size();
          for (size_t i = 0; i < n; i++)
            if ((k[i] >> bits[b]) & 1u) exp.push_back(k[i]);
          char ctx[200];
          snprintf(ctx, sizeof ctx, "splitBit(n=%zu, bit %d, keys %s, seed=%llu)", n, bits[b], pats.w[p],
                   (unsigned long long)seed);
          long long got = -1;
          bad = HX_CALL_RET(&got, "splitBit", ctx, hx_in(in), hx_out(out), hx_i64((long long)n), hx_i64(bits[b]));
          if (!bad && !HX_CHECK(got == (long long)first, "%s: returned %lld; %zu keys have the bit clear", ctx, got,
                                first))
            bad = 1;
          if (!bad) bad = check_u32(ctx, exp.data(), (const uint32_t *)hx_buf_data(out), n, "key");
        }
        hx_buf_free(in);
        hx_buf_free(out);
        if (bad) return;
      }
}

/* One sort call: "radixSortSplit" or "radixSortKeys" (keys), or "radixSortPairs" (values are
 * the input positions, so equal keys must come out with increasing values). */
static size_t run_sort(const char *fn, const char *pattern, size_t n, uint64_t seed) {
  const bool pairs = !strcmp(fn, "radixSortPairs");
  hx_buf *in = hx_buf_new(n ? n : 1, 4), *out = hx_buf_new(n ? n : 1, 4);
  hx_buf *vin = pairs ? hx_buf_new(n ? n : 1, 4) : NULL, *vout = pairs ? hx_buf_new(n ? n : 1, 4) : NULL;
  size_t bad = 1;
  if (in && out && (!pairs || (vin && vout)) && make_keys(pattern, n, seed, (uint32_t *)hx_buf_data(in))) {
    std::vector<uint32_t> keys, idx;
    host_sort((const uint32_t *)hx_buf_data(in), n, keys, idx);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, keys %s, seed=%llu)", fn, n, pattern, (unsigned long long)seed);
    if (pairs) {
      uint32_t *v = (uint32_t *)hx_buf_data(vin);
      for (size_t i = 0; i < n; i++) v[i] = (uint32_t)i;
      bad = HX_CALL(fn, ctx, hx_in(in), hx_in(vin), hx_out(out), hx_out(vout), hx_i64((long long)n));
    } else {
      bad = HX_CALL(fn, ctx, hx_in(in), hx_out(out), hx_i64((long long)n));
    }
    if (!bad) bad = check_u32(ctx, keys.data(), (const uint32_t *)hx_buf_data(out), n, "sorted key");
    if (!bad && pairs)
      bad = check_u32(ctx, idx.data(), (const uint32_t *)hx_buf_data(vout), n,
                      "value (the input position; equal keys keep their order) at");
  }
  hx_buf_free(in);
  hx_buf_free(out);
  hx_buf_free(vin);
  hx_buf_free(vout);
  return bad;
}

static void test_sort_split(void) { sweep("radixSortSplit", run_sort); }
static void test_sort_keys(void) { sweep("radixSortKeys", run_sort); }
static void test_sort_pairs(void) { sweep("radixSortPairs", run_sort); }

/* ==== Part 2: line of sight ===================================================================== */

static void expect_sight(const float *alt, size_t n, uint8_t *vis) {
  float best = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const float s = i ? (alt[i] - alt[0]) / (float)i : -INFINITY;
    vis[i] = s > best;
    if (s > best) best = s;
  }
}

/* Terrains: rand (random in [0, 1000)), down (falling: every slope negative), flat (every
 * slope 2: only point 1 visible), hills (a smooth wave). */
static bool make_terrain(const char *kind, size_t n, uint64_t seed, float *alt) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(kind, "rand")) alt[i] = hx_rng_float(&r, 0.0f, 1000.0f);
    else if (!strcmp(kind, "down")) alt[i] = 5000.0f - (float)(i % 4096) - hx_rng_float(&r, 1.0f, 2.0f);
    else if (!strcmp(kind, "flat")) alt[i] = 2.0f * (float)(i % 4194304);
    else if (!strcmp(kind, "hills")) alt[i] = 100.0f * sinf((float)i * 0.001f) + 0.01f * (float)i;
    else {
      HX_FAIL("manifest: no terrain '%s' (rand, down, flat, hills)", kind);
      return false;
    }
  }
  if (!strcmp(kind, "down") && n) alt[0] = 6000.0f;
  return true;
}

static void test_sight(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  Words kinds;
  words("terrains", &kinds);
  if (hx_failures() || ns < 0 || kinds.n < 0) return;
  for (int t = 0; t < kinds.n; t++)
    for (int s = 0; s < ns; s++) {
      const size_t n = (size_t)sizes[s];
      const uint64_t seed = hx_seed() + (uint64_t)(t * 131 + s);
      hx_buf *alt = hx_buf_new(n ? n : 1, 4), *vis = byte_buf(n);
      std::vector<uint8_t> exp(n ? n : 1);
      size_t bad = 1;
      if (alt && vis && make_terrain(kinds.w[t], n, seed, (float *)hx_buf_data(alt))) {
        expect_sight((const float *)hx_buf_data(alt), n, exp.data());
        char ctx[160];
        snprintf(ctx, sizeof ctx, "lineOfSight(n=%zu, terrain %s, seed=%llu)", n, kinds.w[t], (unsigned long long)seed);
        bad = HX_CALL("lineOfSight", ctx, hx_in(alt), hx_out(vis), hx_i64((long long)n));
        if (!bad) bad = hx_check_bytes(ctx, exp.data(), hx_buf_data(vis), n, 1);
      }
      hx_buf_free(alt);
      hx_buf_free(vis);
      if (bad) return;
    }
}

/* ==== Part 3: sparse matrix-vector product ===================================================== */

struct Csr {
  std::vector<int32_t> ptr, col;
  std::vector<float> val;
  int32_t rows;
};

/* Matrices: uniform (row lengths 0..2*mean), power (a few long rows, many short: length
 * mean/2 * u^-1/2, at most 64 * mean), empty_ends (empty first rows, a run of empty rows in the middle, empty
 * trailing rows), zero (nnz = 0), one_row (every non-zero in the middle row). */
static bool make_csr(const char *kind, int32_t rows, int32_t mean, int32_t cols, uint64_t seed, Csr *m) {
  hx_rng r = hx_rng_make(seed);
  m->rows = rows;
  m->ptr.assign((size_t)rows + 1, 0);
  std::vector<int32_t> len((size_t)rows, 0);
  for (int32_t i = 0; i < rows; i++) {
    if (!strcmp(kind, "uniform")) len[i] = (int32_t)(hx_rng_next(&r) % (uint64_t)(2 * mean + 1));
    else if (!strcmp(kind, "power")) {
      const double u = ((double)(hx_rng_next(&r) >> 11) + 1.0) / 9007199254740993.0;
      double l = 0.5 * mean / sqrt(u); /* Pareto, exponent 2: mean about `mean`, a long tail */
      len[i] = (int32_t)(l > 64.0 * mean ? 64.0 * mean : l);
    } else if (!strcmp(kind, "empty_ends")) {
      const bool empty = i < 3 || i >= rows - 5 || (i >= rows / 2 && i < rows / 2 + 7);
      len[i] = empty ? 0 : (int32_t)(1 + hx_rng_next(&r) % (uint64_t)(2 * mean));
    } else if (!strcmp(kind, "zero")) len[i] = 0;
    else if (!strcmp(kind, "one_row")) len[i] = i == rows / 2 ? mean * rows : 0;
    else {
      HX_FAIL("manifest: no matrix '%s' (uniform, power, empty_ends, zero, one_row)", kind);
      return false;
    }
  }
  for (int32_t i = 0; i < rows; i++) m->ptr[i + 1] = m->ptr[i] + len[i];
  const size_t nnz = (size_t)m->ptr[rows];
  m->col.resize(nnz ? nnz : 1);
  m->val.resize(nnz ? nnz : 1);
  for (size_t k = 0; k < nnz; k++) {
    m->col[k] = (int32_t)(hx_rng_next(&r) % (uint64_t)cols);
    m->val[k] = hx_rng_float(&r, -1.0f, 1.0f);
  }
  return true;
}

/* y in double, and the sum of |products| of each row (the scale of its rounding error). */
static void expect_spmv(const Csr &m, const float *x, std::vector<double> &y, std::vector<double> &mag) {
  y.assign((size_t)m.rows, 0.0);
  mag.assign((size_t)m.rows, 0.0);
  for (int32_t i = 0; i < m.rows; i++)
    for (int32_t k = m.ptr[i]; k < m.ptr[i + 1]; k++) {
      const double p = (double)m.val[k] * (double)x[m.col[k]];
      y[i] += p;
      mag[i] += fabs(p);
    }
}

/* Compares y: |got - y| <= atol + rtol * (sum of |products|); names the row and its length. */
static size_t check_y(const char *ctx, const Csr &m, const std::vector<double> &y, const std::vector<double> &mag,
                      const float *got, double rtol, double atol) {
  size_t bad = 0, first = 0;
  for (int32_t i = 0; i < m.rows; i++) {
    const double g = got[i];
    const bool ok = !isnan(g) && fabs(g - y[i]) <= atol + rtol * mag[i];
    if (!ok && bad++ == 0) first = (size_t)i;
  }
  if (bad)
    HX_FAIL("%s: first wrong row %zu (non-zeros %d .. %d, %d of them): expected %.9g, got %.9g%s (tolerance %.1e + "
            "%.1e * sum|a*x|; %zu wrong rows)", ctx, first, m.ptr[first], m.ptr[first + 1] - 1,
            m.ptr[first + 1] - m.ptr[first], y[first], (double)got[first], hx_poison_note(&got[first], 4, first), atol,
            rtol, bad);
  return bad;
}

static void test_spmv(void) {
  long long rows_list[MAX_LIST];
  const int nr = hx_param_int_list("rows", rows_list, MAX_LIST);
  Words kinds;
  words("matrices", &kinds);
  const int32_t mean = (int32_t)hx_param_int("mean");
  const double rtol = hx_param_double("rtol"), atol = hx_param_double("atol");
  if (hx_failures() || nr < 0 || kinds.n < 0) return;
  for (int t = 0; t < kinds.n; t++)
    for (int s = 0; s < nr; s++) {
      const int32_t rows = (int32_t)rows_list[s], cols = rows > 0 ? rows : 1;
      const uint64_t seed = hx_seed() + (uint64_t)(t * 131 + s);
      Csr m;
      if (!make_csr(kinds.w[t], rows, mean, cols, seed, &m)) return;
      const int32_t nnz = m.ptr[rows];
      hx_buf *bp = hx_buf_new((size_t)rows + 1, 4), *bc = hx_buf_new(nnz ? nnz : 1, 4),
             *bv = hx_buf_new(nnz ? nnz : 1, 4), *bx = hx_buf_new((size_t)cols, 4), *by = hx_buf_new(rows ? rows : 1, 4);
      size_t bad = 1;
      if (bp && bc && bv && bx && by) {
        memcpy(hx_buf_data(bp), m.ptr.data(), ((size_t)rows + 1) * 4);
        memcpy(hx_buf_data(bc), m.col.data(), m.col.size() * 4);
        memcpy(hx_buf_data(bv), m.val.data(), m.val.size() * 4);
        float *x = (float *)hx_buf_data(bx);
        hx_rng r = hx_rng_make(seed ^ 0x5eedull);
        for (int32_t i = 0; i < cols; i++) x[i] = hx_rng_float(&r, -1.0f, 1.0f);
        std::vector<double> y, mag;
        expect_spmv(m, x, y, mag);
        char ctx[200];
        snprintf(ctx, sizeof ctx, "spmvCsr(rows=%d, nnz=%d, matrix %s, seed=%llu)", rows, nnz, kinds.w[t],
                 (unsigned long long)seed);
        bad = HX_CALL("spmvCsr", ctx, hx_in(bp), hx_in(bc), hx_in(bv), hx_in(bx), hx_out(by), hx_i64(rows),
                      hx_i64(nnz));
        if (!bad) bad = check_y(ctx, m, y, mag, (const float *)hx_buf_data(by), rtol, atol);
      }
      hx_buf_free(bp);
      hx_buf_free(bc);
      hx_buf_free(bv);
      hx_buf_free(bx);
      hx_buf_free(by);
      if (bad) return;
    }
}

/* ==== Part 4: FirstDiff and string comparison =================================================== */

static int32_t first_diff(int32_t a, int32_t b) { return a != 0 ? a : b; }

/* Every pair and triple of codes: the device's operator against the definition, in both orders
 * (it is not commutative), and associative. */
static void test_first_diff(void) {
  const int32_t codes[3] = {-1, 0, 1};
  hx_buf *a = hx_buf_new(27, 4), *b = hx_buf_new(27, 4), *ab = hx_buf_new(27, 4), *bc = hx_buf_new(27, 4);
  hx_buf *l = hx_buf_new(27, 4), *r = hx_buf_new(27, 4), *c = hx_buf_new(27, 4), *ba = hx_buf_new(27, 4);
  hx_buf *spare = hx_buf_new(27, 4);
  if (!a || !b || !ab || !bc || !l || !r || !c || !ba || !spare) return;
  int32_t *A = (int32_t *)hx_buf_data(a), *B = (int32_t *)hx_buf_data(b), *C = (int32_t *)hx_buf_data(c);
  for (int i = 0; i < 27; i++) {
    A[i] = codes[i / 9];
    B[i] = codes[(i / 3) % 3];
    C[i] = codes[i % 3];
  }
  int32_t exp[27], rev[27];
  for (int i = 0; i < 27; i++) {
    exp[i] = first_diff(A[i], B[i]);
    rev[i] = first_diff(B[i], A[i]);
  }
  if (HX_CALL("firstDiffApply", "FirstDiff()(a, b) and (b, a) for a, b in {-1, 0, +1}", hx_in(a), hx_in(b), hx_out(ab),
              hx_out(ba), hx_i64(27)))
    return;
  if (hx_check_i32("FirstDiff()(a, b), a = -1,0,+1 (9 each), b = -1,0,+1 (3 each)", exp, (const int32_t *)hx_buf_data(ab), 27) ||
      hx_check_i32("FirstDiff()(b, a), the same pairs the other way round", rev, (const int32_t *)hx_buf_data(ba), 27))
    return;
  /* (a op b) op c against a op (b op c) */
  if (HX_CALL("firstDiffApply", "FirstDiff: b op c", hx_in(b), hx_in(c), hx_out(bc), hx_out(spare), hx_i64(27)) ||
      HX_CALL("firstDiffApply", "FirstDiff: (a op b) op c", hx_in(ab), hx_in(c), hx_out(l), hx_out(spare), hx_i64(27)) ||
      HX_CALL("firstDiffApply", "FirstDiff: a op (b op c)", hx_in(a), hx_in(bc), hx_out(r), hx_out(spare), hx_i64(27)))
    return;
  hx_check_i32("FirstDiff: (a op b) op c against a op (b op c), every triple", (const int32_t *)hx_buf_data(l),
               (const int32_t *)hx_buf_data(r), 27);
  HX_CHECK(first_diff(-1, 1) != first_diff(1, -1), "the definition is not commutative");
}

static int cmp_bytes(const uint8_t *a, size_t la, const uint8_t *b, size_t lb) {
  const size_t m = la < lb ? la : lb;
  for (size_t i = 0; i < m; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/* One comparison: strings of lengths la and lb at byte offsets oa and ob of their buffers;
 * `kind` says where they differ: equal, prefix (a a proper prefix of b), first, last (the
 * first difference at the first or the last common position), high (a difference between a
 * byte below 0x80 and one above: compared unsigned), rand (random bytes). */
static size_t run_str(const char *kind, size_t la, size_t lb, size_t oa, size_t ob, uint64_t seed) {
  hx_buf *ba = byte_buf(oa + la + 1), *bb = byte_buf(ob + lb + 1);
  size_t bad = 1;
  if (ba && bb) {
    uint8_t *a = (uint8_t *)hx_buf_data(ba) + oa, *b = (uint8_t *)hx_buf_data(bb) + ob;
    hx_rng r = hx_rng_make(seed);
    for (size_t i = 0; i < la; i++) a[i] = (uint8_t)('a' + hx_rng_next(&r) % 26);
    const size_t m = la < lb ? la : lb;
    for (size_t i = 0; i < lb; i++) b[i] = i < m && strcmp(kind, "rand") ? a[i] : (uint8_t)('a' + hx_rng_next(&r) % 26);
    if (m && !strcmp(kind, "first")) b[0] = (uint8_t)(a[0] == 'z' ? 'a' : a[0] + 1);
    if (m && !strcmp(kind, "last")) a[m - 1] = (uint8_t)(b[m - 1] == 'a' ? 'z' : b[m - 1] - 1);
    if (m && !strcmp(kind, "high")) {
      a[m / 2] = 0x7f;
      b[m / 2] = 0x80;
    }
    const int exp = cmp_bytes(a, la, b, lb);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "strCompare(len_a=%zu, len_b=%zu, %s, a at byte %zu, b at byte %zu, seed=%llu)", la, lb,
             kind, oa, ob, (unsigned long long)seed);
    long long got = 9;
    bad = HX_CALL_RET(&got, "strCompare", ctx, hx_in(ba), hx_in(bb), hx_i64((long long)la), hx_i64((long long)lb),
                      hx_i64((long long)oa), hx_i64((long long)ob));
    if (!bad && !HX_CHECK(got == exp, "%s: returned %lld, expected %d", ctx, got, exp)) bad = 1;
  }
  hx_buf_free(ba);
  hx_buf_free(bb);
  return bad;
}

static void test_strings(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  if (hx_failures() || ns < 0) return;
  /* the handout's example: parallax < parallel */
  {
    hx_buf *ba = byte_buf(8), *bb = byte_buf(8);
    if (!ba || !bb) return;
    memcpy(hx_buf_data(ba), "parallax", 8);
    memcpy(hx_buf_data(bb), "parallel", 8);
    long long got = 9;
    if (!HX_CALL_RET(&got, "strCompare", "strCompare(\"parallax\", \"parallel\")", hx_in(ba), hx_in(bb), hx_i64(8),
                     hx_i64(8), hx_i64(0), hx_i64(0)))
      HX_CHECK(got == -1, "strCompare(\"parallax\", \"parallel\") returned %lld, expected -1", got);
    hx_buf_free(ba);
    hx_buf_free(bb);
    if (hx_failures()) return;
  }
  const char *kinds[6] = {"equal", "first", "last", "high", "rand", "prefix"};
  for (int s = 0; s < ns; s++) {
    const size_t n = (size_t)sizes[s];
    const uint64_t seed = hx_seed() + (uint64_t)s;
    for (int k = 0; k < 6; k++) {
      const bool prefix = !strcmp(kinds[k], "prefix");
      /* the same length; a prefix (shorter a, then shorter b); offsets 0 and unaligned ones */
      if (run_str(kinds[k], n, n, 0, 0, seed)) return;
      if (run_str(kinds[k], n, n, 3, 1, seed + 1)) return;
      if (prefix && (run_str("equal", n, n + 1, 0, 0, seed) || run_str("equal", n + 1, n, 0, 0, seed) ||
                     run_str("equal", n, n + 17, 5, 0, seed)))
        return;
    }
  }
  /* empty strings */
  if (run_str("equal", 0, 0, 0, 0, hx_seed()) || run_str("equal", 0, 5, 0, 0, hx_seed()) ||
      run_str("equal", 5, 0, 0, 0, hx_seed()))
    return;
}

/* Batches of pairs: `kind` rand (lengths 0 .. 2*mean, random letters from 4: differences come
 * early or late), same (b a copy of a: ties, prefixes by length), long (one pair of `mean` *
 * pairs bytes among short ones), empty (every string of a empty, b mixed), gaps (empty strings
 * of a first, in a run in the middle and last, where they start at the end of a). */
static size_t run_batch(const char *kind, uint32_t pairs, uint32_t mean, uint64_t seed) {
  hx_rng r = hx_rng_make(seed);
  std::vector<uint32_t> la(pairs), lb(pairs);
  for (uint32_t p = 0; p < pairs; p++) {
    la[p] = (uint32_t)(hx_rng_next(&r) % (2 * mean + 1));
    lb[p] = (uint32_t)(hx_rng_next(&r) % (2 * mean + 1));
    if (!strcmp(kind, "same")) lb[p] = hx_rng_next(&r) % 3 == 0 ? la[p] + (uint32_t)(hx_rng_next(&r) % 3) : la[p];
    if (!strcmp(kind, "empty")) la[p] = 0;
    if (!strcmp(kind, "gaps") && (p < 2 || p + 3 >= pairs || (p >= pairs / 2 && p < pairs / 2 + 5))) la[p] = 0;
    if (!strcmp(kind, "long") && p == pairs / 2) la[p] = lb[p] = mean * pairs;
  }
  if (strcmp(kind, "rand") && strcmp(kind, "same") && strcmp(kind, "empty") && strcmp(kind, "long") &&
      strcmp(kind, "gaps")) {
    HX_FAIL("manifest: no batch kind '%s' (rand, same, long, empty, gaps)", kind);
    return 1;
  }
  std::vector<uint32_t> oa(pairs + 1, 0), ob(pairs + 1, 0);
  for (uint32_t p = 0; p < pairs; p++) {
    oa[p + 1] = oa[p] + la[p];
    ob[p + 1] = ob[p] + lb[p];
  }
  hx_buf *ba = byte_buf(oa[pairs] + 1), *bb = byte_buf(ob[pairs] + 1), *boa = hx_buf_new(pairs + 1, 4),
         *bob = hx_buf_new(pairs + 1, 4), *bres = hx_buf_new(pairs ? pairs : 1, 4);
  size_t bad = 1;
  if (ba && bb && boa && bob && bres) {
    uint8_t *A = (uint8_t *)hx_buf_data(ba), *B = (uint8_t *)hx_buf_data(bb);
    for (uint32_t p = 0; p < pairs; p++) {
      for (uint32_t i = 0; i < la[p]; i++) A[oa[p] + i] = (uint8_t)('a' + hx_rng_next(&r) % 4);
      for (uint32_t i = 0; i < lb[p]; i++) {
        const bool copy = strcmp(kind, "rand") != 0 && i < la[p];
        B[ob[p] + i] = copy ? A[oa[p] + i] : (uint8_t)('a' + hx_rng_next(&r) % 4);
      }
      if (!strcmp(kind, "long") && p == pairs / 2 && la[p]) B[ob[p] + la[p] - 1] ^= 0x80; /* at the very end */
    }
    memcpy(hx_buf_data(boa), oa.data(), (pairs + 1) * 4);
    memcpy(hx_buf_data(bob), ob.data(), (pairs + 1) * 4);
    std::vector<int32_t> exp(pairs ? pairs : 1);
    for (uint32_t p = 0; p < pairs; p++) exp[p] = cmp_bytes(A + oa[p], la[p], B + ob[p], lb[p]);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "strCompareBatch(pairs=%u, bytes of a %u, of b %u, kind %s, seed=%llu)", pairs, oa[pairs],
             ob[pairs], kind, (unsigned long long)seed);
    bad = HX_CALL("strCompareBatch", ctx, hx_in(ba), hx_in(boa), hx_in(bb), hx_in(bob), hx_out(bres), hx_i64(pairs));
    const int32_t *got = (const int32_t *)hx_buf_data(bres);
    for (uint32_t p = 0; !bad && p < pairs; p++)
      if (got[p] != exp[p]) {
        HX_FAIL("%s: pair %u (a: %u bytes at %u, b: %u bytes at %u): expected %d, got %d%s", ctx, p, la[p], oa[p],
                lb[p], ob[p], exp[p], got[p], hx_poison_note(&got[p], 4, p));
        bad = 1;
      }
  }
  hx_buf_free(ba);
  hx_buf_free(bb);
  hx_buf_free(boa);
  hx_buf_free(bob);
  hx_buf_free(bres);
  return bad;
}

static void test_strings_batch(void) {
  long long counts[MAX_LIST];
  const int nc = hx_param_int_list("pairs", counts, MAX_LIST);
  Words kinds;
  words("kinds", &kinds);
  const uint32_t mean = (uint32_t)hx_param_int("mean");
  if (hx_failures() || nc < 0 || kinds.n < 0) return;
  for (int k = 0; k < kinds.n; k++)
    for (int c = 0; c < nc; c++)
      if (run_batch(kinds.w[k], (uint32_t)counts[c], mean, hx_seed() + (uint64_t)(k * 131 + c))) return;
}

/* ==== timing ======================================================================================= */

/* The copy yardstick for `moved` bytes read plus written: a copy of moved/2 bytes. */
static double copy_time(size_t moved, size_t n, int reps, int per_batch) {
  if (moved < 4 * hx_device()->l2_bytes)
    hx_note("n=%zu is small next to the %llu MB L2 cache: the timing flatters", n,
            (unsigned long long)(hx_device()->l2_bytes >> 20));
  const size_t bytes = moved / 2 / 16 * 16;
  const double s = hx_time_copy(bytes, reps, per_batch);
  hx_note("copy of %zu bytes: %.3f ms, %.0f GB/s (read + write)", bytes, s * 1e3, 2.0 * (double)bytes / s * 1e-9);
  return s;
}

struct SelectTimed {
  int32_t pivot;
};
static size_t check_compact_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const int32_t pivot = ((const SelectTimed *)t->user)->pivot;
  hxv_result r;
  if (hx_verify_select(hx_source_gen(seed, t->lo, t->hi), out, t->n, pivot, 0, &r))
    HX_FAIL("%s: a timed call's output is wrong: element %zu (kept as number %lld) expected %d, got %d%s", ctx,
            r.first, (long long)r.where, (int)r.expected, (int)r.got, hx_poison_note(&r.got, 4, 0));
  return r.count;
}

static void test_timing_compact(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  if (run_select("compactSinglePass", "r2", n, hx_seed())) return; /* correct first */
  char ctx[160];
  snprintf(ctx, sizeof ctx, "compactSinglePassAsync(n=%zu, values in [0, 999], keep x > 499)", n);
  hx_model_note(ctx, (double)n, "element", 6); /* on emu: what the memory model counted */
  HX_REQUIRE_TIMING();
  SelectTimed st = {499};
  const hx_arg extra[2] = {hx_i64((long long)n), hx_i64(499)};
  /* timed without the wait for each count (compactSinglePassAsync), as CUB's DeviceSelect runs */
  const hx_timed t = {"compactSinglePassAsync", ctx, n, 4, hx_seed(), 0, 999, extra, 2, check_compact_timed, &st};
  const size_t moved = 4 * n + 4 * (n / 2); /* read everything, write the kept half */
  const double copy_s = copy_time(moved, n, reps, per_batch);
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return;
  const double frac = copy_s / s;
  hx_metric("fraction_of_copy", frac);
  hx_note("%s: %.3f ms, %.3f of copy counting 6 bytes per element (threshold %.3f)", ctx, s * 1e3, frac, threshold);
  HX_CHECK(frac >= threshold, "%s reached %.3f of copy bandwidth; the threshold is %.3f", ctx, frac, threshold);
}

static size_t check_sight_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  hxv_result r;
  if (hx_verify_sight(hx_source_gen(seed, t->lo, t->hi), out, t->n, &r)) {
    const uint8_t g = (uint8_t)r.got;
    HX_FAIL("%s: a timed call's output is wrong at point %zu: expected %d, got %d%s", ctx, r.first, (int)r.expected,
            (int)r.got, hx_poison_note(&g, 1, r.first));
  }
  return r.count;
}

static void test_timing_sight(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  /* altitudes in [1, 2) as float bits: 0x3f800000 .. 0x3fffffff */
  const int64_t lo = 0x3f800000, hi = 0x3fffffff;
  hx_buf *alt = hx_buf_new(n, 4), *vis = byte_buf(n);
  if (!alt || !vis) return;
  char ctx[160];
  snprintf(ctx, sizeof ctx, "lineOfSight(n=%zu, altitudes in [1, 2), seed=%llu)", n, (unsigned long long)hx_seed());
  size_t bad = HX_CALL("lineOfSightBits", ctx, hx_in_generated(alt, hx_seed(), lo, hi), hx_out(vis), hx_i64((long long)n));
  if (!bad) {
    hx_timed probe = {"lineOfSightBits", ctx, n, 1, hx_seed(), lo, hi, NULL, 0, check_sight_timed, NULL};
    bad = check_sight_timed(&probe, hx_seed(), vis, ctx);
  }
  if (!bad) hx_model_note(ctx, (double)n, "point", 5); /* on emu: what the memory model counted */
  hx_buf_free(alt);
  hx_buf_free(vis);
  if (bad) return;
  HX_REQUIRE_TIMING();
  const hx_arg extra[1] = {hx_i64((long long)n)};
  const hx_timed t = {"lineOfSightBits", ctx, n, 1, hx_seed(), lo, hi, extra, 1, check_sight_timed, NULL};
  const double copy_s = copy_time(5 * n, n, reps, per_batch);
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return;
  const double frac = copy_s / s;
  hx_metric("fraction_of_copy", frac);
  hx_note("%s: %.3f ms, %.3f of copy counting 5 bytes per point (threshold %.3f)", ctx, s * 1e3, frac, threshold);
  HX_CHECK(frac >= threshold, "%s reached %.3f of copy bandwidth; the threshold is %.3f", ctx, frac, threshold);
}

/* The sparse product, timed: the values are generated per call (float bits in [1, 2)), the
 * structure and x stay; the output buffer has nnz floats, of which the first `rows` are y. */
struct SpmvTimed {
  const Csr *m;
  double rtol, atol;
};
static size_t check_spmv_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const SpmvTimed *st = (const SpmvTimed *)t->user;
  const Csr &m = *st->m;
  hxv_result r;
  /* extra: row offsets, columns, x, rows, nnz */
  if (hx_verify_spmv(t->extra[0].buf, t->extra[1].buf, t->extra[2].buf, hx_source_gen(seed, t->lo, t->hi), out,
                     m.rows, st->rtol, st->atol, &r)) {
    const size_t f = r.first;
    const float g = (float)r.fgot;
    HX_FAIL("%s: first wrong row %zu (non-zeros %d .. %d, %d of them): expected %.9g, got %.9g%s (tolerance %.1e + "
            "%.1e * sum|a*x|; %zu wrong rows)", ctx, f, m.ptr[f], m.ptr[f + 1] - 1, m.ptr[f + 1] - m.ptr[f],
            r.fexpected, r.fgot, hx_poison_note(&g, 4, 0), st->atol, st->rtol, r.count);
  }
  return r.count;
}

/* The timed sort's output: in order, and the input's keys (two sums of a mix of every key
 * match: a sorted output that is not a permutation of the input fails). */
static size_t check_sort_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  hxv_result r;
  if (!hx_verify_sort(hx_source_gen(seed, t->lo, t->hi), out, t->n, &r)) return 0;
  if (r.first != HXV_NONE)
    HX_FAIL("%s: a timed call's output is out of order at %zu: %u before %u", ctx, r.first, (unsigned)r.expected,
            (unsigned)r.got);
  else
    HX_FAIL("%s: a timed call's output is sorted but does not hold the input's keys", ctx);
  return r.count;
}

static void test_timing_sort(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  if (run_sort("radixSortKeys", "rand", n, hx_seed())) return; /* correct first */
  char ctx[160];
  snprintf(ctx, sizeof ctx, "radixSortKeys(n=%zu, random 32-bit keys)", n);
  hx_model_note(ctx, (double)n, "key", 32); /* on emu: what the memory model counted */
  HX_REQUIRE_TIMING();
  const hx_arg extra[1] = {hx_i64((long long)n)};
  const hx_timed t = {"radixSortKeys", ctx, n, 4, hx_seed(), INT32_MIN, INT32_MAX, extra, 1, check_sort_timed, NULL};
  const size_t moved = 32 * n; /* 4 passes of 8 bits, each reading and writing every key once */
  const double copy_s = copy_time(moved, n, reps, per_batch);
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return;
  const double frac = copy_s / s;
  hx_metric("fraction_of_copy", frac);
  hx_note("%s: %.3f ms, %.2f G keys/s, %.3f of copy counting 32 bytes per key (threshold %.3f)", ctx, s * 1e3,
          (double)n / s * 1e-9, frac, threshold);
  HX_CHECK(frac >= threshold, "%s reached %.3f of copy bandwidth counting 32 bytes per key; the threshold is %.3f",
           ctx, frac, threshold);
}

static void test_timing_spmv(void) {
  const int32_t rows = (int32_t)hx_param_int("rows"), mean = (int32_t)hx_param_int("mean");
  Words kinds;
  words("matrices", &kinds);
  const double threshold = hx_param_double("threshold"), flat = hx_param_double("flat_threshold");
  const double rtol = hx_param_double("rtol"), atol = hx_param_double("atol");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures() || kinds.n < 0) return;
  double frac[MAX_LIST], lo = INFINITY, hi = 0;
  for (int t = 0; t < kinds.n; t++) {
    Csr m;
    if (!make_csr(kinds.w[t], rows, mean, rows, hx_seed() + (uint64_t)t, &m)) return;
    const int32_t nnz = m.ptr[rows];
    if (nnz < rows) {
      HX_FAIL("manifest: timing_spmv's matrix %s has %d non-zeros for %d rows; the timed output needs nnz >= rows",
              kinds.w[t], nnz, rows);
      return;
    }
    hx_buf *bp = hx_buf_new((size_t)rows + 1, 4), *bc = hx_buf_new(nnz, 4), *bx = hx_buf_new(rows, 4);
    hx_buf *bv = hx_buf_new(nnz, 4), *by = hx_buf_new(nnz, 4);
    bool ok = bp && bc && bx && bv && by;
    char ctx[200];
    snprintf(ctx, sizeof ctx, "spmvCsr(rows=%d, nnz=%d, matrix %s, values in [1, 2), seed=%llu)", rows, nnz,
             kinds.w[t], (unsigned long long)hx_seed());
    std::vector<float> x((size_t)rows);
    if (ok) {
      memcpy(hx_buf_data(bp), m.ptr.data(), ((size_t)rows + 1) * 4);
      memcpy(hx_buf_data(bc), m.col.data(), (size_t)nnz * 4);
      hx_rng r = hx_rng_make(hx_seed() ^ 0x5eedull);
      for (int32_t i = 0; i < rows; i++) x[i] = hx_rng_float(&r, -1.0f, 1.0f);
      memcpy(hx_buf_data(bx), x.data(), (size_t)rows * 4);
    }
    SpmvTimed st = {&m, rtol, atol};
    const hx_arg extra[5] = {hx_in(bp), hx_in(bc), hx_in(bx), hx_i64(rows), hx_i64(nnz)};
    const hx_timed tm = {"spmvTimed", ctx, (size_t)nnz, 4, hx_seed(), 0x3f800000, 0x3fffffff, extra, 5,
                         check_spmv_timed, &st};
    if (ok) { /* correct first */
      ok = !HX_CALL("spmvTimed", ctx, hx_in_generated(bv, hx_seed(), tm.lo, tm.hi), hx_out(by), hx_in(bp), hx_in(bc),
                    hx_in(bx), hx_i64(rows), hx_i64(nnz)) &&
           !check_spmv_timed(&tm, hx_seed(), by, ctx);
      /* on emu: what the memory model counted, against the bytes the timing counts */
      const double counted = 8.0 * nnz + 4.0 * (rows + 1) + 8.0 * rows;
      if (ok) hx_model_note(ctx, (double)nnz, "non-zero", counted / nnz);
    }
    hx_buf_free(bv);
    hx_buf_free(by);
    if (ok && hx_timing_available()) {
      /* values and column indices once, the row offsets, x once and y */
      const size_t moved = 8 * (size_t)nnz + 4 * ((size_t)rows + 1) + 8 * (size_t)rows;
      const double copy_s = copy_time(moved, (size_t)nnz, reps, per_batch);
      const double s = hx_time_calls(&tm, reps, per_batch);
      ok = s == s;
      if (ok) {
        frac[t] = copy_s / s;
        hx_note("%s: %.3f ms, %.0f G non-zeros/s, %.3f of copy", ctx, s * 1e3, nnz / s * 1e-9, frac[t]);
        if (frac[t] < lo) lo = frac[t];
        if (frac[t] > hi) hi = frac[t];
      }
    }
    hx_buf_free(bp);
    hx_buf_free(bc);
    hx_buf_free(bx);
    if (!ok || hx_failures()) return;
  }
  HX_REQUIRE_TIMING();
  hx_metric("fraction_of_copy_min", lo);
  hx_metric("flatness", lo / hi);
  hx_note("slowest %.3f of copy, fastest %.3f: ratio %.3f (thresholds %.3f and %.3f)", lo, hi, lo / hi, threshold, flat);
  HX_CHECK(lo >= threshold, "spmvCsr: the slowest matrix reached %.3f of copy bandwidth; the threshold is %.3f", lo,
           threshold);
  HX_CHECK(lo / hi >= flat, "spmvCsr: the slowest matrix reached %.3f of the fastest's bandwidth; the threshold is %.3f",
           lo / hi, flat);
}

/* ==== memory traffic, counted by the emu ========================================================= */

/* The emu's probes count every global access of the student's kernels as the hardware groups
 * them into 32-byte sectors. The bytes the last call moved per unit (hx_bytes_moved: volatile
 * loads that read a sector again are left out, as how often a tile polls its neighbours' status
 * words depends on the schedule). -1 where there are no counters (a GPU). */
static double moved_per(double units) {
  const hx_counters *c = hx_last_counters();
  return c ? hx_bytes_moved(c) / units : -1;
}

#define EMU_ONLY "the memory counters come from the emu's probes (make grade BACKEND=emu); on a GPU, the timing tests " \
                 "measure the traffic's cost"

/* compactSinglePass once on random values, about half kept: it must move at most
 * `bytes_threshold` bytes per element (it reads 4 and writes 4 per kept element, plus its
 * status words); the three-pass compactScan is shown beside it. */
static void test_emu_compact(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double max_bytes = hx_param_double("bytes_threshold");
  if (hx_failures()) return;
  if (run_select("compactSinglePass", "r2", n, hx_seed())) {
    if (hx_failures()) hx_not_counted("emu_compact");
    return;
  }
  const double single = moved_per((double)n);
  if (single < 0) HX_SKIP(EMU_ONLY);
  size_t kept = 0; /* make_select's r2: values in [0, 999], kept when above 499 */
  for (size_t i = 0; i < n; i++) kept += hx_gen_i32(hx_seed(), i, 0, 999) > 499;
  const double ideal = 4.0 + 4.0 * (double)kept / (double)n;
  hx_metric("bytes_per_element", single);
  if (!run_select("compactScan", "r2", n, hx_seed())) {
    hx_note("compactScan(n=%zu, keep x > 499): %.2f bytes moved per element (three passes)", n, moved_per((double)n));
  }
  { /* the toolkit's own exclusive sum, which the three passes use: given code, held to what the lab teaches */
    hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
    hxv_result r;
    const char *ctx = hx_ctx("appScanExc(n=%zu, the toolkit's exclusive sum)", n);
    if (in && out && !HX_CALL("appScanExc", ctx, hx_in_generated(in, hx_seed(), 0, 1), hx_out(out), hx_i64((long long)n))) {
      const double given = moved_per((double)n);
      if (hx_verify_scan(hx_source_gen(hx_seed(), 0, 1), out, n, 1, 0, 0, NULL, &r)) hx_report_i32(ctx, &r);
      else hx_note("%s: %.2f bytes moved per element (given code: 4 read, 4 written)", ctx, given);
    }
    hx_buf_free(in);
    hx_buf_free(out);
  }
  hx_note("compactSinglePass(n=%zu, keep x > 499, %zu kept): %.2f bytes moved per element (4 read and 4 per kept "
          "element: %.2f; at most %.2f)", n, kept, single, ideal, max_bytes);
  HX_CHECK(single >= ideal - 0.5,
           "compactSinglePass(n=%zu): the emu counted %.2f bytes moved per element, less than the %.2f a compaction "
           "must read and write: its accesses were not counted", n, single, ideal);
  HX_CHECK(single <= max_bytes,
           "compactSinglePass(n=%zu, %zu kept) moved %.2f bytes per element through global memory (32-byte sectors, "
           "as the emu counts them); one pass reads 4 and writes 4 per kept element (%.2f here), plus its status "
           "words: at most %.2f", n, kept, single, ideal, max_bytes);
}

/* lineOfSight once on random altitudes in [1, 2), checked; returns the failures (0: right). */
static size_t sight_once(size_t n) {
  const int64_t lo = 0x3f800000, hi = 0x3fffffff; /* altitudes in [1, 2) as float bits */
  hx_buf *alt = hx_buf_new(n, 4), *vis = byte_buf(n);
  if (!alt || !vis) {
    hx_buf_free(alt);
    hx_buf_free(vis);
    return 1;
  }
  char ctx[160];
  snprintf(ctx, sizeof ctx, "lineOfSight(n=%zu, altitudes in [1, 2), seed=%llu)", n, (unsigned long long)hx_seed());
  size_t bad = HX_CALL("lineOfSightBits", ctx, hx_in_generated(alt, hx_seed(), lo, hi), hx_out(vis), hx_i64((long long)n));
  if (!bad) {
    std::vector<float> a(n);
    std::vector<uint8_t> exp(n);
    for (size_t i = 0; i < n; i++) {
      const int32_t bits = hx_gen_i32(hx_seed(), i, lo, hi);
      memcpy(&a[i], &bits, 4);
    }
    expect_sight(a.data(), n, exp.data());
    const uint8_t *got = (const uint8_t *)hx_buf_data(vis);
    for (size_t i = 0; i < n && !bad; i++)
      if (got[i] != exp[i]) {
        HX_FAIL("%s: first wrong point [%zu]: expected %d, got %d%s", ctx, i, exp[i], got[i], hx_poison_note(&got[i], 1, i));
        bad = 1;
      }
  }
  hx_buf_free(alt);
  hx_buf_free(vis);
  return bad;
}

/* lineOfSight once on random altitudes: it must move at most `bytes_threshold` bytes per point
 * (it reads a 4-byte altitude and writes a 1-byte answer, plus its status words). */
static void test_emu_sight(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double max_bytes = hx_param_double("bytes_threshold");
  if (hx_failures()) return;
  if (sight_once(n)) {
    if (hx_failures()) hx_not_counted("emu_sight");
    return;
  }
  const double bytes = moved_per((double)n);
  if (bytes < 0) HX_SKIP(EMU_ONLY);
  hx_metric("bytes_per_point", bytes);
  hx_note("lineOfSight(n=%zu): %.2f bytes moved per point (4 read, 1 written: 5; at most %.2f)", n, bytes,
          max_bytes);
  HX_CHECK(bytes >= 4.5, "lineOfSight(n=%zu): the emu counted %.2f bytes moved per point, less than the 5 it must read "
           "and write: its accesses were not counted", n, bytes);
  HX_CHECK(bytes <= max_bytes,
           "lineOfSight(n=%zu) moved %.2f bytes per point through global memory (32-byte sectors, as the emu counts "
           "them); one pass reads 4 and writes 1, plus its status words: at most %.2f", n, bytes, max_bytes);
}

/* The two single passes (compaction, half kept, and the line of sight) once each, right, in the
 * emu's depth mode: their work spread over their blocks (hx_check_blocks) and the longest chain
 * of global accesses that waited on one another min_ways times shorter than what the pass must move, at least
 * (hx_check_depth). One block walking every tile, or blocks that each wait for the tile before
 * to be finished before they load their own, are right and as slow on a GPU as one
 * multiprocessor: what the timing tests fail there, which the emu cannot time. */
static void test_emu_blocks(void) {
  const size_t n = (size_t)hx_param_int("n");
  const double min_blocks = hx_param_double("min_blocks"), min_ways = hx_param_double("min_ways");
  if (hx_failures()) return;
  size_t kept = 0; /* make_select's r2: values in [0, 999], kept when above 499 */
  for (size_t i = 0; i < n; i++) kept += hx_gen_i32(hx_seed(), i, 0, 999) > 499;
  hx_emu_depth(1);
  const size_t bad = run_select("compactSinglePass", "r2", n, hx_seed());
  hx_emu_depth(0);
  if (bad) {
    if (hx_failures()) hx_not_counted("emu_blocks");
    return;
  }
  char call[96];
  snprintf(call, sizeof call, "compactSinglePass(n=%zu, %zu kept)", n, kept);
  if (hx_check_blocks(call, min_blocks) < 0) HX_SKIP(EMU_ONLY);
  hx_check_depth(call, 4.0 * (double)(n + kept), min_ways); /* 4 read, 4 per kept element written */
  hx_emu_depth(1);
  const size_t bad_sight = sight_once(n);
  hx_emu_depth(0);
  if (bad_sight) {
    if (hx_failures()) hx_not_counted("emu_blocks");
    return;
  }
  snprintf(call, sizeof call, "lineOfSight(n=%zu)", n);
  hx_check_blocks(call, min_blocks);
  hx_check_depth(call, 5.0 * (double)n, min_ways); /* 4 read, 1 written */
}

static const hx_test TESTS[] = {
    {"compact_example", test_compact_example},
    {"compact_scan", test_compact_scan},
    {"compact_single", test_compact_single},
    {"partition", test_partition},
    {"partition_single", test_partition_single},
    {"split", test_split},
    {"sort_split", test_sort_split},
    {"sort_keys", test_sort_keys},
    {"sort_pairs", test_sort_pairs},
    {"repeat", test_repeat},
    {"huge", test_huge},
    {"offsets_64", test_offsets_64},
    {"sight", test_sight},
    {"spmv", test_spmv},
    {"first_diff", test_first_diff},
    {"strings", test_strings},
    {"strings_batch", test_strings_batch},
    {"emu_compact", test_emu_compact},
    {"emu_sight", test_emu_sight},
    {"emu_blocks", test_emu_blocks},
    {"timing_compact", test_timing_compact},
    {"timing_sight", test_timing_sight},
    {"timing_spmv", test_timing_spmv},
    {"timing_sort", test_timing_sort},
    {NULL, NULL},
};
HX_SUITE("07", TESTS);
