/**
 * @file lab06_test.cpp
 * @brief Lab 06 tests: the segmented operator (associative, with a non-commutative operator),
 *        the head lanes, the warp scans (operator form and direct form), the block scans and
 *        the single pass, inclusive and exclusive, on several operators and flag patterns.
 *
 * The scans run in the driver (grader/trusted/tests/lab06_calls.cu). The tests make the values and the
 * head flags (one byte per element, four to a 32-bit buffer element), compute the segmented
 * scans on the host, and name the first wrong element with its segment. Sizes, patterns,
 * operators, seeds, tolerances and thresholds come from `grader/manifests/lab06.toml`.
 *
 * Why one file (past 800 lines): one lab's CUnit suite, its tests in the manifest's order.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- the lab's types and operators, as seg_scan.h defines them (no CUDA header here) ------ */

#define WARP 32
#define POISON 0xDEADBEEFu
enum Variant { SEG_WARP_OP_INC = 0, SEG_WARP_OP_EXC = 1, SEG_WARP_INC = 2, SEG_WARP_EXC = 3,
               SEG_BLOCK_INC = 4, SEG_BLOCK_EXC = 5, SEG_BLOCK_INC_TWICE = 6, SEG_BLOCK_EXC_TWICE = 7 };
/* The status words' flags (seg_scan.cu). */
enum { SS_FLAG_INVALID = 0, SS_FLAG_AGGREGATE = 1, SS_FLAG_PREFIX = 2 };
struct Add {
  int32_t operator()(int32_t a, int32_t b) const { return (int32_t)((uint32_t)a + (uint32_t)b); } /* wraps */
  float operator()(float a, float b) const { return a + b; }
};
struct Max {
  int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};
struct Min {
  int32_t operator()(int32_t a, int32_t b) const { return a < b ? a : b; }
};
struct Affine16 {
  uint16_t a, b;
};
struct Compose16 { /* f, then g */
  Affine16 operator()(Affine16 f, Affine16 g) const {
    Affine16 r;
    r.a = (uint16_t)((unsigned)g.a * f.a);
    r.b = (uint16_t)((unsigned)g.a * f.b + g.b);
    return r;
  }
};
template <typename T>
struct FlagValue {
  uint32_t flag;
  T value;
};
/* The element type and operator, as lab06_calls.cu numbers them. */
static int kind_of(int32_t, Add) { return 0; }
static int kind_of(int32_t, Max) { return 1; }
static int kind_of(int32_t, Min) { return 2; }
static int kind_of(float, Add) { return 3; }
static int kind_of(Affine16, Compose16) { return 4; }

static const char *type_name(int32_t) { return "int"; }
static const char *type_name(float) { return "float"; }
static const char *type_name(Affine16) { return "Affine16"; }
static const char *op_name(Add) { return "Add"; }
static const char *op_name(Max) { return "Max"; }
static const char *op_name(Min) { return "Min"; }
static const char *op_name(Compose16) { return "Compose16"; }

static int32_t identity_of(int32_t, Add) { return 0; }
static int32_t identity_of(int32_t, Max) { return INT32_MIN; }
static int32_t identity_of(int32_t, Min) { return INT32_MAX; }
static float identity_of(float, Add) { return 0.0f; }
static Affine16 identity_of(Affine16, Compose16) { Affine16 id = {1, 0}; return id; }

/* ---- printing, comparing, generating ------------------------------------------------------ */

static int is_poison(const void *p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return w == POISON;
}
static void show(char *buf, size_t cap, int32_t v) {
  snprintf(buf, cap, "%d%s", v, is_poison(&v) ? " (the poison value: never written)" : "");
}
static void show(char *buf, size_t cap, float v) {
  snprintf(buf, cap, "%.9g%s", (double)v, is_poison(&v) ? " (the poison value: never written)" : "");
}
static void show(char *buf, size_t cap, Affine16 v) {
  snprintf(buf, cap, "{a=%u, b=%u}%s", v.a, v.b, is_poison(&v) ? " (the poison value: never written)" : "");
}

struct Tolerance { double rtol, atol; };
static bool same(int32_t e, int32_t g, Tolerance) { return e == g; }
static bool same(Affine16 e, Affine16 g, Tolerance) { return e.a == g.a && e.b == g.b; }
static bool same(float e, float g, Tolerance t) {
  return !isnan(g) && fabs((double)g - (double)e) <= t.atol + t.rtol * fabs((double)e);
}

/* Values: the full int range for Add (sums wrap), Max and Min; floats in [0, 1); 16-bit maps
 * with odd slopes (a composition of even slopes soon has slope 0 and forgets what came before). */
static void fill(int32_t *a, size_t n, uint64_t seed, Add) { hx_fill_i32(a, n, seed, INT32_MIN, INT32_MAX); }
static void fill(int32_t *a, size_t n, uint64_t seed, Max) { hx_fill_i32(a, n, seed, INT32_MIN, INT32_MAX); }
static void fill(int32_t *a, size_t n, uint64_t seed, Min) { hx_fill_i32(a, n, seed, INT32_MIN, INT32_MAX); }
static void fill(float *a, size_t n, uint64_t seed, Add) { hx_fill_f32(a, n, seed, 0.0f, 1.0f); }
static void fill(Affine16 *a, size_t n, uint64_t seed, Compose16) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) {
    const uint64_t x = hx_rng_next(&r);
    a[i].a = (uint16_t)(x | 1u);
    a[i].b = (uint16_t)(x >> 16);
  }
}

/* ---- groups and flags ---------------------------------------------------------------------- */

/* What scans together: the live lanes of each warp (as lab 04's batch lays them out), each
 * block, or the whole array. The first element of a group starts a segment, flagged or not. */
enum Mode { WARPS, BLOCKS, WHOLE };
struct Layout {
  Mode mode;
  int block; /* threads per block (WARPS, BLOCKS) */
};
static bool group_start(size_t j, Layout g) {
  if (g.mode == WARPS) return (j % (size_t)g.block) % WARP == 0;
  if (g.mode == BLOCKS) return j % (size_t)g.block == 0;
  return j == 0;
}
static const char *group_word(Layout g) {
  return g.mode == WARPS ? "its warp" : g.mode == BLOCKS ? "its block" : "the array";
}

/* Head flags by pattern name (the manifest's `patterns`), for n elements:
 *   head0       only element 0 flagged
 *   all         every element flagged
 *   none        no element flagged (element 0 starts a segment anyway)
 *   warp_edges  the first and the last lane of every warp
 *   tile_edges  the first and the last element of every tile (`tile`)
 *   span        heads at 3 and n-2 only: one segment spans every tile between
 *   last_tile   a head on the first element of the last (partial) tile, and 1 in 1000 elsewhere
 *   rK          each element a head with probability 1/K (r2, r32, r1000, r1048576, ...)
 *   b80, bff    1 in 8 elements flagged with the byte 0x80 or 0xFF
 *   bytes       1 in 4 elements flagged with a random non-zero byte
 * Returns 0, or -1 (and a failed test) for an unknown name. */
static int make_flags(uint8_t *f, size_t n, const char *pattern, Layout g, size_t tile, uint64_t seed) {
  hx_rng r = hx_rng_make(seed ^ 0xF1A65ull);
  memset(f, 0, n);
  if (!strcmp(pattern, "head0")) {
    if (n) f[0] = 1;
  } else if (!strcmp(pattern, "all")) {
    memset(f, 1, n);
  } else if (!strcmp(pattern, "none")) {
  } else if (!strcmp(pattern, "warp_edges")) {
    for (size_t j = 0; j < n; j++) {
      const size_t lane = g.mode == WHOLE ? j % WARP : (j % (size_t)g.block) % WARP;
      f[j] = lane == 0 || lane == WARP - 1;
    }
  } else if (!strcmp(pattern, "tile_edges")) {
    for (size_t j = 0; j < n; j++) f[j] = j % tile == 0 || j % tile == tile - 1;
  } else if (!strcmp(pattern, "span")) {
    if (n > 3) f[3] = 1;
    if (n > 2) f[n - 2] = 1;
  } else if (!strcmp(pattern, "last_tile")) {
    for (size_t j = 0; j < n; j++) f[j] = hx_rng_next(&r) % 1000 == 0;
    if (n) f[(n - 1) / tile * tile] = 1;
  } else if (pattern[0] == 'r' && atoll(pattern + 1) > 0) {
    const uint64_t k = (uint64_t)atoll(pattern + 1);
    for (size_t j = 0; j < n; j++) f[j] = hx_rng_next(&r) % k == 0;
  } else if (!strcmp(pattern, "b80") || !strcmp(pattern, "bff")) {
    const uint8_t byte = pattern[1] == '8' ? 0x80 : 0xFF;
    for (size_t j = 0; j < n; j++) f[j] = hx_rng_next(&r) % 8 == 0 ? byte : 0;
  } else if (!strcmp(pattern, "bytes")) {
    for (size_t j = 0; j < n; j++) {
      const uint64_t x = hx_rng_next(&r);
      f[j] = x % 4 == 0 ? (uint8_t)(1 + (x >> 8) % 255) : 0;
    }
  } else {
    HX_FAIL("manifest error: unknown flag pattern '%s'", pattern);
    return -1;
  }
  return 0;
}

/* ---- the reference and the check -------------------------------------------------------- */

/* The segmented scan on the host, in order. Float sums accumulate in double (a float running
 * sum of millions of values in [0, 1) soon stops growing: at 2^24 its step is 1). */
template <typename T, typename Op>
static void reference(const T *in, const uint8_t *f, T *out, size_t n, Layout g, bool inclusive, Op op) {
  const T id = identity_of(T(), op);
  T acc = id;
  for (size_t j = 0; j < n; j++) {
    if (f[j] || group_start(j, g)) acc = id;
    if (inclusive) acc = op(acc, in[j]);
    out[j] = acc;
    if (!inclusive) acc = op(acc, in[j]);
  }
}
template <>
void reference<float, Add>(const float *in, const uint8_t *f, float *out, size_t n, Layout g, bool inclusive, Add) {
  double acc = 0;
  for (size_t j = 0; j < n; j++) {
    if (f[j] || group_start(j, g)) acc = 0;
    if (inclusive) acc += in[j];
    out[j] = (float)acc;
    if (!inclusive) acc += in[j];
  }
}

/* Compares; one failure names the first wrong element and its segment: where the segment
 * starts (a flag, or the start of its group), its length, and the element's place in it. */
template <typename T>
static size_t check_segments(const char *ctx, const T *expect, const T *got, const uint8_t *f, size_t n,
                             Layout g, Tolerance tol) {
  size_t bad = 0, bad_segs = 0, first = 0;
  bool seg_bad = false;
  for (size_t j = 0; j < n; j++) {
    if (f[j] || group_start(j, g)) seg_bad = false;
    if (!same(expect[j], got[j], tol)) {
      if (bad++ == 0) first = j;
      if (!seg_bad) bad_segs++;
      seg_bad = true;
    }
  }
  if (!bad) return 0;
  size_t head = first, end = first + 1;
  while (!f[head] && !group_start(head, g)) head--;
  while (end < n && !f[end] && !group_start(end, g)) end++;
  char why[64], e[96], gt[96];
  if (f[head]) snprintf(why, sizeof why, "flag 0x%02x", f[head]);
  else snprintf(why, sizeof why, "unflagged: the start of %s", group_word(g));
  show(e, sizeof e, expect[first]);
  show(gt, sizeof gt, got[first]);
  HX_FAIL("%s: first mismatch at [%zu], element %zu of the segment at [%zu] (%s) of length %zu: expected %s, "
          "got %s (%zu mismatch%s in %zu segment%s)", ctx, first, first - head, head, why, end - head, e, gt, bad,
          bad == 1 ? "" : "es", bad_segs, bad_segs == 1 ? "" : "s");
  return bad;
}

/* ---- one checked call ------------------------------------------------------------------------ */

/* A flags buffer of n bytes: ceil(n/4) 32-bit elements, the bytes past n zero. */
static hx_buf *flags_buf(const uint8_t *f, size_t n) {
  hx_buf *b = hx_buf_new((n + 3) / 4, 4);
  if (b) {
    memset(hx_buf_data(b), 0, (n + 3) / 4 * 4);
    memcpy(hx_buf_data(b), f, n);
  }
  return b;
}

static const char *variant_name(Variant v) {
  static const char *names[] = {"segScanIncWarpOp", "segScanExcWarpOp", "segScanIncWarp", "segScanExcWarp",
                                "segScanIncBlock", "segScanExcBlock", "segScanIncBlock twice on one temp",
                                "segScanExcBlock twice on one temp"};
  return names[v];
}

/* What a test asks of one call. */
struct Case {
  int variant;        /* a Variant, or -1: the single pass (segScanIncGlobal / segScanExcGlobal) */
  bool exclusive;     /* for the single pass */
  size_t n;
  int block;          /* batches only */
  const char *pattern;
  size_t tile;        /* for the tile patterns */
  uint64_t seed;
  Tolerance tol;
  bool in_place;      /* single pass only */
};

/* Runs one case on seeded values (or on @p given values and flags) and checks every element;
 * returns the number of problems (0: correct). */
template <typename T, typename Op>
static size_t run_case(const Case &c, Op op, const T *given = NULL, const uint8_t *given_flags = NULL) {
  const bool global = c.variant < 0;
  const Layout g = {global ? WHOLE : (c.variant >= SEG_BLOCK_INC ? BLOCKS : WARPS), c.block};
  const bool inclusive = global ? !c.exclusive : c.variant % 2 == 0;
  const size_t cap = c.n ? c.n : 1;
  T *in = (T *)hx_malloc(cap * sizeof(T)), *expect = (T *)hx_malloc(cap * sizeof(T));
  uint8_t *f = (uint8_t *)hx_malloc(cap);
  size_t bad = 1;
  hx_buf *bin = NULL, *bout = NULL, *bflags = NULL;
  char ctx[400], shape[64];
  if (!in || !expect || !f) goto done;
  if (given) {
    memcpy(in, given, c.n * sizeof(T));
    memcpy(f, given_flags, c.n);
  } else {
    fill(in, c.n, c.seed, op);
    if (make_flags(f, c.n, c.pattern, g, c.tile, c.seed)) goto done;
  }
  reference(in, f, expect, c.n, g, inclusive, op);
  if (c.variant >= SEG_BLOCK_INC_TWICE) { /* the second call scans the first one's results */
    T *once = (T *)hx_malloc(cap * sizeof(T));
    if (!once) goto done;
    memcpy(once, expect, c.n * sizeof(T));
    reference(once, f, expect, c.n, g, inclusive, op);
    free(once);
  }
  if (global) snprintf(shape, sizeof shape, "%s", c.in_place ? ", in place" : "");
  else snprintf(shape, sizeof shape, ", block=%d", c.block);
  if (given)
    snprintf(ctx, sizeof ctx, "%s<%s, %s>(n=%zu%s, the worked example)",
             global ? (c.exclusive ? "segScanExcGlobal" : "segScanIncGlobal") : variant_name((Variant)c.variant),
             type_name(T()), op_name(op), c.n, shape);
  else
    snprintf(ctx, sizeof ctx, "%s<%s, %s>(n=%zu%s, flags %s, seed=%llu)",
             global ? (c.exclusive ? "segScanExcGlobal" : "segScanIncGlobal") : variant_name((Variant)c.variant),
             type_name(T()), op_name(op), c.n, shape, c.pattern, (unsigned long long)c.seed);
  bin = hx_buf_new(c.n, sizeof(T));
  bout = c.in_place ? bin : hx_buf_new(c.n, sizeof(T));
  bflags = flags_buf(f, c.n);
  if (!bin || !bout || !bflags) goto done;
  memcpy(hx_buf_data(bin), in, c.n * sizeof(T));
  {
    const T id = identity_of(T(), op);
    long long err = 0;
    if (global && c.in_place)
      bad = HX_CALL_RET(&err, "segScanGlobal", ctx, hx_inout(bin), hx_inout(bin), hx_in(bflags),
                        hx_i64((long long)c.n), hx_i64(c.exclusive), hx_i64(kind_of(T(), op)), hx_bytes(&id, sizeof id));
    else if (global)
      bad = HX_CALL_RET(&err, "segScanGlobal", ctx, hx_in(bin), hx_out(bout), hx_in(bflags), hx_i64((long long)c.n),
                        hx_i64(c.exclusive), hx_i64(kind_of(T(), op)), hx_bytes(&id, sizeof id));
    else
      bad = HX_CALL_RET(&err, "segScanBatch", ctx, hx_in(bin), hx_out(bout), hx_in(bflags), hx_i64((long long)c.n),
                        hx_i64(c.block), hx_i64(c.variant), hx_i64(kind_of(T(), op)), hx_bytes(&id, sizeof id));
    if (!bad && err) {
      HX_FAIL("%s: the launch returned CUDA error %lld", ctx, err);
      bad = 1;
    }
  }
  if (!bad) bad = check_segments(ctx, expect, (const T *)hx_buf_data(bout), f, c.n, g, c.tol);
done:
  hx_buf_free(bflags);
  if (!c.in_place) hx_buf_free(bout);
  hx_buf_free(bin);
  free(in);
  free(expect);
  free(f);
  return bad;
}

/* Runs a case with the operator named in the manifest (add, max, min, fadd, compose). */
static size_t run_named(const Case &c, const char *op) {
  if (!strcmp(op, "add")) return run_case<int32_t>(c, Add());
  if (!strcmp(op, "max")) return run_case<int32_t>(c, Max());
  if (!strcmp(op, "min")) return run_case<int32_t>(c, Min());
  if (!strcmp(op, "fadd")) return run_case<float>(c, Add());
  if (!strcmp(op, "compose")) return run_case<Affine16>(c, Compose16());
  HX_FAIL("manifest error: unknown operator '%s' (add, max, min, fadd, compose)", op);
  return 1;
}

/* ---- the manifest's lists ----------------------------------------------------------------- */

#define MAX_LIST 48
typedef hx_words Words;
/* A list parameter's words (filled in place: the words point into the struct's own buffer). */
static void words(const char *key, Words *out) { hx_param_words(key, out); }

static Tolerance float_tolerance(void) {
  Tolerance t = {hx_param_double("rtol"), hx_param_double("atol")};
  return t;
}

/* Every size x block x pattern of the test's parameters, with every operator of `ops`. Each
 * operator stops at its first failing case: one message per operator. */
static void sweep(int variant, bool exclusive, bool use_blocks) {
  long long sizes[MAX_LIST], blocks[MAX_LIST] = {0};
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  const int nb = use_blocks ? hx_param_int_list("blocks", blocks, MAX_LIST) : 1;
  Words patterns, ops;
  words("patterns", &patterns);
  words("ops", &ops);
  const Tolerance ftol = float_tolerance();
  const long long tile = hx_param_int("tile");
  if (hx_failures() || ns < 0 || nb < 0 || patterns.n < 0 || ops.n < 0) return;
  for (int o = 0; o < ops.n; o++) {
    bool failed = false;
    for (int b = 0; b < nb && !failed; b++)
      for (int s = 0; s < ns && !failed; s++)
        for (int p = 0; p < patterns.n && !failed; p++) {
          const Tolerance exact = {0, 0};
          Case c = {variant, exclusive, (size_t)sizes[s], (int)blocks[b], patterns.w[p],
                    use_blocks && variant >= SEG_BLOCK_INC ? (size_t)blocks[b] : (size_t)tile,
                    hx_seed() + (uint64_t)(s * 131 + b * 17 + p), strcmp(ops.w[o], "fadd") ? exact : ftol, false};
          failed = run_named(c, ops.w[o]) != 0;
        }
  }
}

/* ---- part 1: the segmented operator -------------------------------------------------------- */

template <typename T>
static bool same_pair(FlagValue<T> e, FlagValue<T> g) {
  const Tolerance exact = {0, 0};
  return (e.flag != 0) == (g.flag != 0) && same(e.value, g.value, exact);
}

/* A pair for a message: `(flag 0x80, 12)`, with the poison note where it was never written. */
template <typename T>
static void show_pair(char *buf, size_t cap, FlagValue<T> p) {
  char v[96];
  show(v, sizeof v, p.value);
  snprintf(buf, cap, "(flag 0x%02x, %s)", p.flag, v);
}

/* What differs between an expected pair and the one got, in words. */
template <typename T>
static const char *pair_fault(FlagValue<T> e, FlagValue<T> g) {
  const Tolerance exact = {0, 0};
  const bool flag_ok = (e.flag != 0) == (g.flag != 0), value_ok = same(e.value, g.value, exact);
  if (!flag_ok && e.flag) return value_ok ? "the flag is lost (a segment starts inside: the flag must stay set)"
                                          : "the flag is lost and the value is wrong";
  if (!flag_ok) return value_ok ? "the flag is set, though no segment starts inside"
                                : "the flag is set, though no segment starts inside, and the value is wrong";
  return "the value is wrong";
}

/* The elements a pair stands for: a few (head byte, value) elements, each pair the test makes
 * is the summary of such a range (lengths 1 to 3). */
template <typename T>
struct Range {
  int len;
  uint8_t head[9];
  T value[9];
};

/* What a range sums to, by the pair's meaning: the flag is the OR of its heads, the value the
 * combination of its last segment (from its last head, or from its start when it has none),
 * in order. Computed element by element from the range, as a reader of the definition would. */
template <typename T, typename Op>
static FlagValue<T> summary(const Range<T> &r, Op op) {
  FlagValue<T> p;
  p.flag = 0;
  int from = 0;
  for (int k = 0; k < r.len; k++) {
    p.flag |= r.head[k];
    if (r.head[k]) from = k;
  }
  p.value = r.value[from];
  for (int k = from + 1; k < r.len; k++) p.value = op(p.value, r.value[k]);
  return p;
}

/* The range of @p x followed by the range of @p y. */
template <typename T>
static Range<T> joined(const Range<T> &x, const Range<T> &y) {
  Range<T> r = x;
  for (int k = 0; k < y.len; k++) {
    r.head[r.len] = y.head[k];
    r.value[r.len++] = y.value[k];
  }
  return r;
}

/* One call of segOpApply: out[i] = a[i] (+)s b[i]. */
template <typename T, typename Op>
static size_t apply_call(const char *ctx, hx_buf *a, hx_buf *b, hx_buf *out, size_t n, Op op) {
  long long err = 0;
  size_t bad = HX_CALL_RET(&err, "segOpApply", ctx, hx_in(a), hx_in(b), hx_out(out), hx_i64((long long)n),
                           hx_i64(kind_of(T(), op)));
  if (!bad && err) {
    HX_FAIL("%s: the launch returned CUDA error %lld", ctx, err);
    bad = 1;
  }
  return bad;
}

/* Pairs that stand for random ranges of 1 to 3 elements, with head bytes 0, 1, 0x80 and 0xFF:
 * checks a (+)s b against the summary of a's range followed by b's, and (a (+)s b) (+)s c and
 * a (+)s (b (+)s c) against that of the three ranges, all computed on the device. */
template <typename T, typename Op>
static size_t check_operator(size_t n, uint64_t seed, Op op) {
  typedef FlagValue<T> P;
  static const uint8_t HEADS[4] = {1, 0x80, 0xFF, 1};
  T *vals = (T *)hx_malloc(9 * n * sizeof(T));
  Range<T> *ranges = (Range<T> *)hx_malloc(3 * n * sizeof(Range<T>));
  hx_buf *buf[7] = {NULL};
  size_t bad = 1;
  char ctx[4][200];
  if (vals && ranges) {
    for (int k = 0; k < 7; k++) buf[k] = hx_buf_new(n, sizeof(P));
  }
  if (!vals || !ranges || !buf[6]) goto done;
  {
    hx_rng r = hx_rng_make(seed);
    fill(vals, 9 * n, seed, op);
    P *a = (P *)hx_buf_data(buf[0]), *b = (P *)hx_buf_data(buf[1]), *c = (P *)hx_buf_data(buf[2]);
    for (size_t i = 0; i < n; i++) {
      P *ps[3] = {&a[i], &b[i], &c[i]};
      for (int k = 0; k < 3; k++) {
        Range<T> &g = ranges[3 * i + k];
        const uint64_t x = hx_rng_next(&r);
        g.len = 1 + (int)(x % 3);
        for (int e = 0; e < g.len; e++) { /* a head in about one element of four */
          g.head[e] = (x >> (8 + 4 * e)) % 4 == 0 ? HEADS[(x >> (20 + 2 * e)) % 4] : 0;
          g.value[e] = vals[9 * i + 3 * k + e];
        }
        *ps[k] = summary(g, op);
      }
    }
    snprintf(ctx[0], sizeof ctx[0], "Segmented<%s>: a (+)s b (n=%zu pairs, seed=%llu)", op_name(op), n,
             (unsigned long long)seed);
    snprintf(ctx[1], sizeof ctx[1], "Segmented<%s>: (a (+)s b) (+)s c", op_name(op));
    snprintf(ctx[2], sizeof ctx[2], "Segmented<%s>: b (+)s c", op_name(op));
    snprintf(ctx[3], sizeof ctx[3], "Segmented<%s>: a (+)s (b (+)s c)", op_name(op));
    /* buf: 0 a, 1 b, 2 c, 3 ab, 4 (ab)c, 5 bc, 6 a(bc) */
    if (apply_call<T>(ctx[0], buf[0], buf[1], buf[3], n, op) || apply_call<T>(ctx[1], buf[3], buf[2], buf[4], n, op) ||
        apply_call<T>(ctx[2], buf[1], buf[2], buf[5], n, op) || apply_call<T>(ctx[3], buf[0], buf[5], buf[6], n, op))
      goto done;
    const P *ab = (const P *)hx_buf_data(buf[3]), *left = (const P *)hx_buf_data(buf[4]);
    const P *right = (const P *)hx_buf_data(buf[6]);
    bad = 0;
    for (size_t i = 0; i < n && !bad; i++) {
      const Range<T> *g = &ranges[3 * i];
      const P want = summary(joined(g[0], g[1]), op), want3 = summary(joined(joined(g[0], g[1]), g[2]), op);
      char e[128], got[128], s[3][128];
      if (!same_pair(want, ab[i])) {
        show_pair(s[0], sizeof s[0], a[i]);
        show_pair(s[1], sizeof s[1], b[i]);
        show_pair(e, sizeof e, want);
        show_pair(got, sizeof got, ab[i]);
        HX_FAIL("%s: first wrong pair at [%zu]: a = %s, b = %s: expected %s (flag set or not), got %s: %s", ctx[0], i,
                s[0], s[1], e, got, pair_fault(want, ab[i]));
        bad = 1;
      } else if (!same_pair(want3, left[i]) || !same_pair(want3, right[i])) {
        const bool left_bad = !same_pair(want3, left[i]);
        show_pair(s[0], sizeof s[0], a[i]);
        show_pair(s[1], sizeof s[1], b[i]);
        show_pair(s[2], sizeof s[2], c[i]);
        show_pair(e, sizeof e, want3);
        show_pair(got, sizeof got, left_bad ? left[i] : right[i]);
        HX_FAIL("Segmented<%s> is not associative at [%zu] (seed=%llu): a = %s, b = %s, c = %s: %s is %s, expected %s "
                "(flag set or not): %s", op_name(op), i, (unsigned long long)seed, s[0], s[1], s[2],
                left_bad ? "(a (+)s b) (+)s c" : "a (+)s (b (+)s c)", got, e,
                pair_fault(want3, left_bad ? left[i] : right[i]));
        bad = 1;
      }
    }
  }
done:
  for (int k = 0; k < 7; k++) hx_buf_free(buf[k]);
  free(vals);
  free(ranges);
  return bad;
}

static void test_operator(void) {
  const size_t n = (size_t)hx_param_int("n");
  Words ops;
  words("ops", &ops);
  if (hx_failures() || ops.n < 0) return;
  for (int o = 0; o < ops.n; o++) {
    const uint64_t seed = hx_seed() + (uint64_t)o;
    if (!strcmp(ops.w[o], "add")) check_operator<int32_t>(n, seed, Add());
    else if (!strcmp(ops.w[o], "max")) check_operator<int32_t>(n, seed, Max());
    else if (!strcmp(ops.w[o], "min")) check_operator<int32_t>(n, seed, Min());
    else if (!strcmp(ops.w[o], "compose")) check_operator<Affine16>(n, seed, Compose16());
    else HX_FAIL("manifest error: operator '%s' cannot be checked exactly (add, max, min, compose)", ops.w[o]);
  }
}

/* ---- part 1 and 2: warp scans --------------------------------------------------------------- */

/* The worked examples: [[3 1] [7 0 4] [1 6] [3]] (Sengupta, Harris, Garland et al., "Efficient
 * Parallel Scan Algorithms for Many-core GPUs", §1.3.2) and [[1 2 3 4] [6 5] [1 3 5]]
 * (exclusive), on one warp, every warp and block variant, and
 * through the single pass. */
static void test_examples(void) {
  static const int32_t v1[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  static const uint8_t f1[8] = {1, 0, 1, 0, 0, 1, 0, 1};
  static const int32_t v2[9] = {1, 2, 3, 4, 6, 5, 1, 3, 5};
  static const uint8_t f2[9] = {1, 0, 0, 0, 1, 0, 1, 0, 0};
  const Tolerance exact = {0, 0};
  for (int v = -2; v < 6; v++) {
    Case c = {v < 0 ? -1 : v, v == -1, 8, v >= SEG_BLOCK_INC ? 32 : 8, "", 0, 0, exact, false};
    if (run_case<int32_t>(c, Add(), v1, f1)) return;
    c.n = 9;
    c.block = v >= SEG_BLOCK_INC ? 32 : 9;
    if (run_case<int32_t>(c, Add(), v2, f2)) return;
  }
}

/* Head lanes: segHeadLaneBatch against the highest flagged lane at or below each lane. */
static void test_head_lane(void) {
  long long sizes[MAX_LIST], blocks[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST), nb = hx_param_int_list("blocks", blocks, MAX_LIST);
  Words patterns;
  words("patterns", &patterns);
  if (hx_failures() || ns < 0 || nb < 0 || patterns.n < 0) return;
  for (int b = 0; b < nb; b++)
    for (int s = 0; s < ns; s++)
      for (int p = 0; p < patterns.n; p++) {
        const size_t n = (size_t)sizes[s];
        const Layout g = {WARPS, (int)blocks[b]};
        const uint64_t seed = hx_seed() + (uint64_t)(s * 131 + b * 17 + p);
        uint8_t *f = (uint8_t *)hx_malloc(n + 1);
        int32_t *expect = (int32_t *)hx_malloc(4 * n + 4);
        hx_buf *bflags = NULL, *out = NULL;
        size_t bad = 1;
        char ctx[256];
        snprintf(ctx, sizeof ctx, "segHeadLane(n=%zu, block=%d, flags %s, seed=%llu)", n, g.block, patterns.w[p],
                 (unsigned long long)seed);
        if (f && expect && !make_flags(f, n, patterns.w[p], g, (size_t)g.block, seed)) {
          int32_t head = 0;
          for (size_t j = 0; j < n; j++) {
            const int32_t lane = (int32_t)((j % (size_t)g.block) % WARP);
            if (lane == 0) head = 0;
            if (f[j]) head = lane;
            expect[j] = head;
          }
          bflags = flags_buf(f, n);
          out = hx_buf_new(n, 4);
          long long err = 0;
          if (bflags && out)
            bad = HX_CALL_RET(&err, "segHeadLaneBatch", ctx, hx_in(bflags), hx_out(out), hx_i64((long long)n),
                              hx_i64(g.block));
          if (!bad && err) HX_FAIL("%s: the launch returned CUDA error %lld", ctx, err);
          if (!bad && !err) {
            const Tolerance exact = {0, 0};
            bad = check_segments(ctx, expect, (const int32_t *)hx_buf_data(out), f, n, g, exact);
          }
        }
        hx_buf_free(bflags);
        hx_buf_free(out);
        free(f);
        free(expect);
        if (bad) return; /* one message */
      }
}

static void test_warp_op_inc(void) { sweep(SEG_WARP_OP_INC, false, true); }
static void test_warp_op_exc(void) { sweep(SEG_WARP_OP_EXC, false, true); }
static void test_warp_inc(void) { sweep(SEG_WARP_INC, false, true); }
static void test_warp_exc(void) { sweep(SEG_WARP_EXC, false, true); }

/* ---- part 3: block scans ------------------------------------------------------------------- */

static void test_block_inc(void) { sweep(SEG_BLOCK_INC, false, true); }
static void test_block_exc(void) { sweep(SEG_BLOCK_EXC, false, true); }
/* The header promises that temp may be reused as soon as a block scan returns: two calls in a
 * row on one temp, the second on the first one's results, inclusive then exclusive. */
static void test_block_twice(void) {
  sweep(SEG_BLOCK_INC_TWICE, false, true);
  if (!hx_failures()) sweep(SEG_BLOCK_EXC_TWICE, false, true);
}

/* ---- part 4: the single pass --------------------------------------------------------------- */

static void test_global_inc(void) { sweep(-1, false, false); }
static void test_global_exc(void) { sweep(-1, true, false); }
/* Inclusive, then exclusive. */
static void sweep_both(void) {
  sweep(-1, false, false);
  if (!hx_failures()) sweep(-1, true, false);
}
/* Every flag pattern at a few sizes of several tiles. */
static void test_global_flags(void) { sweep_both(); }
/* Segments longer than 32 tiles: the look-back combines window after window, in order. */
static void test_global_long(void) { sweep_both(); }

/* out == in: every tile must be read before it is written. */
static void test_in_place(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  Words ops;
  words("ops", &ops);
  const long long tile = hx_param_int("tile");
  const Tolerance ftol = float_tolerance(), exact = {0, 0};
  if (hx_failures() || ns < 0 || ops.n < 0) return;
  for (int o = 0; o < ops.n; o++)
    for (int x = 0; x < 2; x++)
      for (int s = 0; s < ns; s++) {
        Case c = {-1, x == 1, (size_t)sizes[s], 0, "r32", (size_t)tile, hx_seed() + (uint64_t)s,
                  strcmp(ops.w[o], "fadd") ? exact : ftol, true};
        if (run_named(c, ops.w[o])) return;
      }
}

/* Calls in a row, growing and shrinking, inclusive and exclusive: the status words must grow,
 * and every call must start from a reset counter; then after segScanGlobalRelease(). */
static void test_repeat(void) {
  long long sizes[MAX_LIST];
  const int ns = hx_param_int_list("sizes", sizes, MAX_LIST);
  const long long tile = hx_param_int("tile");
  const Tolerance exact = {0, 0};
  if (hx_failures() || ns < 0) return;
  static const char *pats[3] = {"r32", "none", "r1000"};
  for (int round = 0; round < 2; round++) {
    for (int s = 0; s < ns; s++) {
      Case c = {-1, s % 2 == 1, (size_t)sizes[s], 0, pats[s % 3], (size_t)tile, hx_seed() + (uint64_t)s, exact, false};
      if (s % 4 == 3 ? run_case<Affine16>(c, Compose16()) : run_case<int32_t>(c, Add())) return;
    }
    if (hx_callv(NULL, "segScanGlobalRelease", "segScanGlobalRelease()", hx_end())) return;
  }
}

/* ---- the look-back alone, over several windows -------------------------------------------- */

template <typename T>
static T from_bits(uint32_t b) {
  T v;
  memcpy(&v, &b, 4);
  return v;
}

/* Tiles 0 .. tile-1 publish as the test says: the nearest PREFIX at `prefix`, AGGREGATEs after
 * it, and before it PREFIX or AGGREGATE at random (the look-back must stop at the nearest). Tile
 * `tile` looks back from there: over (tile - prefix) / 32 windows of 32 tiles and more, which
 * no schedule of the emu makes in the single pass. Its carry must be values[prefix] op ... op
 * values[tile - 1] in that order, and it must publish its inclusive prefix. */
template <typename T, typename Op>
static size_t check_lookback(unsigned tile, unsigned prefix, bool has_head, uint64_t seed, Op op) {
  T *vals = (T *)hx_malloc((tile + 1) * sizeof(T));
  hx_buf *bv = hx_buf_new(tile ? tile : 1, 4), *bs = hx_buf_new(tile ? tile : 1, 4);
  hx_buf *status = hx_buf_new(((size_t)tile + 1) * 8, 4), *out = hx_buf_new(3, 4);
  size_t bad = 1;
  if (vals && bv && bs && status && out) {
    fill(vals, tile + 1, seed, op);
    hx_rng r = hx_rng_make(seed ^ 0x100cull);
    int32_t *states = (int32_t *)hx_buf_data(bs);
    for (unsigned j = 0; j < tile; j++)
      states[j] = j == prefix ? SS_FLAG_PREFIX : j > prefix ? SS_FLAG_AGGREGATE
                                                           : (hx_rng_next(&r) & 1 ? SS_FLAG_PREFIX : SS_FLAG_AGGREGATE);
    memcpy(hx_buf_data(bv), vals, tile * sizeof(T));
    const T aggregate = vals[tile];
    char ctx[300];
    snprintf(ctx, sizeof ctx, "lookbackWarp<%s, %s>(tile %u, its first element not a head, %s; the nearest PREFIX at "
             "tile %u, AGGREGATEs after it: %u windows of 32 tiles, seed=%llu)", type_name(T()), op_name(op), tile,
             has_head ? "a head inside it" : "no head in it", prefix, (tile - prefix + 31) / 32,
             (unsigned long long)seed);
    long long err = 0;
    bad = HX_CALL_RET(&err, "segLookbackProbe", ctx, hx_in(bv), hx_in(bs), hx_out(status), hx_out(out),
                      hx_i64(tile), hx_i64(has_head), hx_i64(kind_of(T(), op)), hx_bytes(&aggregate, sizeof aggregate));
    if (!bad && err) {
      HX_FAIL("%s: the launch returned CUDA error %lld", ctx, err);
      bad = 1;
    }
    if (!bad) {
      T carry = vals[prefix];
      for (unsigned j = prefix + 1; j < tile; j++) carry = op(carry, vals[j]);
      const T published = has_head ? aggregate : op(carry, aggregate);
      const uint32_t *o = (const uint32_t *)hx_buf_data(out);
      const Tolerance exact = {0, 0};
      char e[96], g[96];
      const T got_carry = from_bits<T>(o[0]), got_pub = from_bits<T>(o[1]);
      if (!same(carry, got_carry, exact)) {
        show(e, sizeof e, carry);
        show(g, sizeof g, got_carry);
        HX_FAIL("%s: returned the carry %s, expected %s: the windows' values combined in order, tile %u's on the left, "
                "each farther window on the left of the nearer ones", ctx, g, e, prefix);
      } else if (o[2] != SS_FLAG_PREFIX || !same(published, got_pub, exact)) {
        show(e, sizeof e, published);
        show(g, sizeof g, got_pub);
        HX_FAIL("%s: the carry is right, but tile %u then holds %s with the value %s; expected a PREFIX of %s (%s)",
                ctx, tile, o[2] == SS_FLAG_PREFIX ? "a PREFIX" : o[2] == SS_FLAG_AGGREGATE ? "an AGGREGATE" : "nothing",
                g, e, has_head ? "a tile with a head publishes its own value at once" : "op(carry, aggregate)");
      } else {
        bad = 0;
      }
      bad = hx_failures() ? 1 : 0;
    }
  }
  hx_buf_free(bv);
  hx_buf_free(bs);
  hx_buf_free(status);
  hx_buf_free(out);
  free(vals);
  return bad;
}

static void test_lookback_windows(void) {
  long long tiles[MAX_LIST], prefixes[MAX_LIST];
  const int nt = hx_param_int_list("tiles", tiles, MAX_LIST), np = hx_param_int_list("prefixes", prefixes, MAX_LIST);
  Words ops;
  words("ops", &ops);
  if (hx_failures() || nt < 0 || np < 0 || ops.n < 0) return;
  if (nt != np) HX_FAIL("manifest error: 'tiles' and 'prefixes' must have as many values (%d and %d)", nt, np);
  for (int k = 0; k < nt && !hx_failures(); k++) {
    if (prefixes[k] < 0 || prefixes[k] >= tiles[k]) {
      HX_FAIL("manifest error: prefix %lld is not a tile before tile %lld", prefixes[k], tiles[k]);
      return;
    }
    for (int o = 0; o < ops.n; o++)
      for (int h = 0; h < 2; h++) {
        const uint64_t seed = hx_seed() + (uint64_t)(k * 131 + o * 17 + h);
        size_t bad;
        if (!strcmp(ops.w[o], "add")) bad = check_lookback<int32_t>((unsigned)tiles[k], (unsigned)prefixes[k], h, seed, Add());
        else if (!strcmp(ops.w[o], "compose"))
          bad = check_lookback<Affine16>((unsigned)tiles[k], (unsigned)prefixes[k], h, seed, Compose16());
        else {
          HX_FAIL("manifest error: the look-back probe runs add and compose, not '%s'", ops.w[o]);
          return;
        }
        if (bad) return;
      }
  }
}

/* ---- indices past 2^31 and 2^32, cheaply ---------------------------------------------------- */

/* The single pass over the last `len` elements of an array of start + len: the kit's
 * segScanGlobalTail runs the kernel with the tile counter at start / tile, the tile before
 * published as a PREFIX of `carry`, and the arrays offset back by `start`, so the kernel indexes
 * elements start .. start + len - 1 with no more memory than len elements. A kernel that keeps an
 * element offset in 32 bits reads and writes 8 or 16 GiB away from them. */
template <typename T, typename Op>
static size_t check_tail(size_t start, size_t len, bool exclusive, uint64_t seed, Op op) {
  T *in = (T *)hx_malloc(len * sizeof(T)), *expect = (T *)hx_malloc(len * sizeof(T));
  uint8_t *f = (uint8_t *)hx_malloc(len);
  hx_buf *bin = hx_buf_new(len, 4), *bout = hx_buf_new(len, 4), *bflags = NULL;
  size_t bad = 1;
  if (in && expect && f && bin && bout) {
    T carry[1];
    fill(in, len, seed, op);
    fill(carry, 1, seed ^ 0xca77ull, op);
    const Layout whole = {WHOLE, 0};
    make_flags(f, len, "r32", whole, 0, seed);
    f[0] = 0; /* the segment open before `start` goes on into the tail */
    const T id = identity_of(T(), op);
    T acc = carry[0];
    for (size_t j = 0; j < len; j++) {
      if (f[j]) acc = id;
      if (!exclusive) acc = op(acc, in[j]);
      expect[j] = acc;
      if (exclusive) acc = op(acc, in[j]);
    }
    if (exclusive) /* a head's exclusive result is the identity */
      for (size_t j = 0; j < len; j++)
        if (f[j]) expect[j] = id;
    memcpy(hx_buf_data(bin), in, len * sizeof(T));
    bflags = flags_buf(f, len);
    char ctx[300], cs[96];
    show(cs, sizeof cs, carry[0]);
    snprintf(ctx, sizeof ctx, "%s<%s, %s>(n=%zu: elements [%zu, %zu), past 2^%d; the open segment before them "
             "carries %s; flags r32, seed=%llu)", exclusive ? "segScanExcGlobal" : "segScanIncGlobal", type_name(T()),
             op_name(op), start + len, start, start + len, start + len > ((size_t)1 << 32) ? 32 : 31, cs,
             (unsigned long long)seed);
    if (bflags &&
        !HX_CALL("segScanGlobalTail", ctx, hx_in(bin), hx_out(bout), hx_in(bflags), hx_i64((long long)start),
                 hx_i64((long long)(start + len)), hx_i64(exclusive), hx_i64(kind_of(T(), op)), hx_bytes(&id, sizeof id),
                 hx_bytes(carry, sizeof(T)))) {
      const T *got = (const T *)hx_buf_data(bout);
      const Tolerance exact = {0, 0};
      size_t wrong = 0, first = 0;
      for (size_t j = 0; j < len; j++)
        if (!same(expect[j], got[j], exact) && wrong++ == 0) first = j;
      bad = wrong;
      if (wrong) {
        char e[96], g[96];
        show(e, sizeof e, expect[first]);
        show(g, sizeof g, got[first]);
        HX_FAIL("%s: first mismatch at [%zu] (%zu past 2^%d): expected %s, got %s (%zu mismatch%s): are the element "
                "offsets 64-bit (size_t) everywhere, tile * SS_GLOBAL_TILE included?", ctx, start + first,
                start + first - ((start + first) >= ((size_t)1 << 32) ? ((size_t)1 << 32) : ((size_t)1 << 31)),
                (start + first) >= ((size_t)1 << 32) ? 32 : 31, e, g, wrong, wrong == 1 ? "" : "es");
      }
    }
  }
  hx_buf_free(bin);
  hx_buf_free(bout);
  hx_buf_free(bflags);
  free(in);
  free(expect);
  free(f);
  return bad;
}

static void test_offsets_64(void) {
  long long starts[MAX_LIST];
  const int ns = hx_param_int_list("starts", starts, MAX_LIST);
  const long long len = hx_param_int("len"), tile = hx_param_int("tile");
  Words ops;
  words("ops", &ops);
  if (hx_failures() || ns < 0 || ops.n < 0) return;
  for (int k = 0; k < ns; k++)
    if (starts[k] <= 0 || starts[k] % tile || len <= 0) {
      HX_FAIL("manifest error: start %lld is not a positive multiple of the tile (%lld), or len %lld is not above 0",
              starts[k], tile, len);
      return;
    }
  for (int k = 0; k < ns; k++)
    for (int o = 0; o < ops.n; o++)
      for (int x = 0; x < 2; x++) {
        const uint64_t seed = hx_seed() + (uint64_t)(k * 131 + o * 17 + x);
        size_t bad;
        if (!strcmp(ops.w[o], "add")) bad = check_tail<int32_t>((size_t)starts[k], (size_t)len, x, seed, Add());
        else if (!strcmp(ops.w[o], "compose"))
          bad = check_tail<Affine16>((size_t)starts[k], (size_t)len, x, seed, Compose16());
        else {
          HX_FAIL("manifest error: the tail runs add and compose, not '%s'", ops.w[o]);
          return;
        }
        if (bad) return;
      }
}

/* ---- more than 2^31 elements ---------------------------------------------------------------- */

/* Huge inputs: values the test generates (on a GPU, on the device: hx_gen_i32), flags 1 in 1000
 * plus heads around 2^31; the output is checked where it lies, the segment of its first
 * mismatch named from the flags @p f. */
static size_t check_huge(hx_buf *out, hx_buf *bflags, const uint8_t *f, size_t n, uint64_t seed, int lo, int hi,
                         bool exclusive, const char *ctx) {
  hxv_result r;
  if (!hx_verify_scan(hx_source_gen(seed, lo, hi), out, n, exclusive, 0, 0, bflags, &r)) return 0;
  const size_t i = r.first;
  size_t head = i, end = i + 1;
  while (head > 0 && !f[head]) head--;
  while (end < n && !f[end]) end++;
  HX_FAIL("%s: first mismatch at [%zu], element %zu of the segment at [%zu] of length %zu: expected %d, got %d%s",
          ctx, i, i - head, head, end - head, (int)r.expected, (int)r.got,
          (uint32_t)r.got == POISON ? " (the poison value: never written)" : "");
  return 1;
}

static void test_huge(void) {
  const size_t n = (size_t)hx_param_int("n");
  if (hx_failures()) return;
  if (!hx_timing_available() && n > ((size_t)1 << 28))
    HX_SKIP("n=%zu needs %zu GiB of device memory and minutes of CPU time: GPU only (the manifest's emu size is "
            "smaller)", n, (9 * n) >> 30);
  const size_t need = 9 * n + ((size_t)512 << 20);
  const size_t have = (size_t)hx_device()->free_bytes;
  if (hx_timing_available() && have < need)
    HX_SKIP("n=%zu needs %.1f GiB of free device memory; this GPU has %.1f GiB free", n, need / 1073741824.0,
            have / 1073741824.0);
  const uint64_t seed = hx_seed();
  uint8_t *f = (uint8_t *)hx_malloc(n);
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4), *bflags = NULL;
  if (f && in && out) {
    hx_rng r = hx_rng_make(seed);
    for (size_t i = 0; i < n; i += 8) { /* one draw for 8 flags: 1 in 1024 each */
      const uint64_t x = hx_rng_next(&r);
      for (size_t k = 0; k < 8 && i + k < n; k++) f[i + k] = ((x >> (8 * k)) & 0x3ff) == 0 ? 1 : 0;
      (void)x;
    }
    /* heads just below and just above 2^31, so that one segment crosses 2^31 and one starts past it */
    const size_t two31 = (size_t)1 << 31;
    if (n > two31 + 5) {
      f[two31 - 3] = 1;
      f[two31 + 5] = 0x80;
    }
    bflags = flags_buf(f, n);
  }
  for (int x = 0; bflags && x < 2; x++) {
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s<int, Add>(n=%zu, flags 1 in 1024, seed=%llu)",
             x ? "segScanExcGlobal" : "segScanIncGlobal", n, (unsigned long long)seed);
    const int32_t id = 0;
    if (HX_CALL("segScanGlobal", ctx, hx_in_generated(in, seed, -1000, 1000), hx_out(out), hx_in(bflags),
                hx_i64((long long)n), hx_i64(x), hx_i64(0), hx_bytes(&id, sizeof id)))
      break;
    if (check_huge(out, bflags, f, n, seed, -1000, 1000, x == 1, ctx)) break;
  }
  hx_buf_free(bflags);
  hx_buf_free(in);
  hx_buf_free(out);
  free(f);
}

/* ---- timing ----------------------------------------------------------------------------------- */

struct TimedFlags {
  const uint8_t *f;
  bool exclusive;
};

/* A timed call's output against the segmented sum of its generated input. */
static size_t check_timed(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx) {
  const TimedFlags *tf = (const TimedFlags *)t->user;
  return check_huge(out, t->extra[0].buf, tf->f, t->n, seed, (int)t->lo, (int)t->hi, tf->exclusive, ctx);
}

/* Random flags at mean segment length `mean` (1 in `mean` elements a head). */
static void timing_flags(uint8_t *f, size_t n, uint64_t seed, long long mean) {
  hx_rng r = hx_rng_make(seed ^ 0x7133ull);
  for (size_t i = 0; i < n; i++) f[i] = hx_rng_next(&r) % (uint64_t)mean == 0;
}

/* Checks the single pass (int Add) at n with flags of mean segment length `mean` (written to
 * @p f and @p bflags); returns the number of problems. */
static size_t check_one(size_t n, long long mean, bool exclusive, hx_buf *bflags, uint8_t *f) {
  timing_flags(f, n, hx_seed() + (uint64_t)mean, mean);
  memcpy(hx_buf_data(bflags), f, n);
  char ctx[200];
  snprintf(ctx, sizeof ctx, "%s<int, Add>(n=%zu, mean segment length %lld, seed=%llu)",
           exclusive ? "segScanExcGlobal" : "segScanIncGlobal", n, mean, (unsigned long long)hx_seed());
  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
  size_t bad = 1;
  if (in && out) {
    const int32_t id = 0;
    bad = HX_CALL("segScanGlobal", ctx, hx_in_generated(in, hx_seed(), -1000, 1000), hx_out(out), hx_in(bflags),
                  hx_i64((long long)n), hx_i64(exclusive), hx_i64(0), hx_bytes(&id, sizeof id));
    if (!bad) bad = check_huge(out, bflags, f, n, hx_seed(), -1000, 1000, exclusive, ctx);
  }
  hx_buf_free(in);
  hx_buf_free(out);
  return bad;
}

/* On emu, the memory model's figures of the last check_one(), against the 9 bytes per element
 * (in, flags, out) the timing tests count. */
static void model_note(size_t n, long long mean, bool exclusive) {
  char what[160];
  snprintf(what, sizeof what, "%s<int, Add>(n=%zu, mean segment length %lld)",
           exclusive ? "segScanExcGlobal" : "segScanIncGlobal", n, mean);
  hx_model_note(what, (double)n, "element", 9);
}

/* Times the single pass (int Add) on the flags check_one() left in @p f and @p bflags; returns
 * the fraction of copy counting 9 bytes per element (NAN after a failure). */
static double time_one(size_t n, long long mean, bool exclusive, int reps, int per_batch, double copy_s,
                       hx_buf *bflags, const uint8_t *f) {
  char ctx[200];
  snprintf(ctx, sizeof ctx, "%s<int, Add>(n=%zu, mean segment length %lld)", exclusive ? "segScanExcGlobal" : "segScanIncGlobal",
           n, mean);
  const TimedFlags tf = {f, exclusive};
  const hx_arg extra[3] = {hx_in(bflags), hx_i64((long long)n), hx_i64(exclusive)};
  const hx_timed t = {"segScanGlobal_add", ctx, n, 4, hx_seed(), -1000, 1000, extra, 3, check_timed, (void *)&tf};
  const double s = hx_time_calls(&t, reps, per_batch);
  if (s != s) return NAN;
  const double fraction = copy_s / s;
  hx_note("%s: %.3f ms, %.0f GB/s at 9 bytes per element: %.3f of copy", ctx, s * 1e3, 9.0 * (double)n / s * 1e-9,
          fraction);
  return fraction;
}

/* The copy yardstick for n elements of 9 bytes: a copy of 4.5 n bytes reads and writes 9 n. */
static double copy_time(size_t n, int reps, int per_batch) {
  if (n * 4 < 2 * hx_device()->l2_bytes)
    hx_note("n=%zu is small next to the %llu MB L2 cache: the timing flatters", n,
            (unsigned long long)(hx_device()->l2_bytes >> 20));
  const size_t bytes = n / 8 * 36;
  const double copy_s = hx_time_copy(bytes, reps, per_batch);
  hx_note("copy of %zu bytes: %.3f ms, %.0f GB/s (read + write)", bytes, copy_s * 1e3, 2.0 * (double)bytes / copy_s * 1e-9);
  return copy_s;
}

/* The single pass, inclusive and exclusive, at the manifest's mean segment length. */
static void test_timing_global(void) {
  const size_t n = (size_t)hx_param_int("n");
  const long long mean = hx_param_int("mean");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures()) return;
  uint8_t *f = (uint8_t *)hx_malloc(n + 1);
  hx_buf *bflags = hx_buf_new((n + 3) / 4, 4);
  double frac[2] = {NAN, NAN};
  bool ok = f && bflags;
  if (ok) memset(hx_buf_data(bflags), 0, (n + 3) / 4 * 4);
  /* correct first, both forms: a wrong answer is not timed (on emu: the model's figures) */
  for (int x = 1; ok && x >= 0; x--) {
    ok = check_one(n, mean, x == 1, bflags, f) == 0;
    if (ok) model_note(n, mean, x == 1);
  }
  if (ok && hx_timing_available()) {
    const double copy_s = copy_time(n, reps, per_batch);
    frac[0] = time_one(n, mean, false, reps, per_batch, copy_s, bflags, f);
    if (frac[0] == frac[0]) frac[1] = time_one(n, mean, true, reps, per_batch, copy_s, bflags, f);
  }
  hx_buf_free(bflags);
  free(f);
  if (!ok || hx_failures()) return;
  HX_REQUIRE_TIMING();
  if (frac[0] != frac[0] || frac[1] != frac[1]) return;
  hx_metric("fraction_of_copy", frac[0]);
  hx_metric("fraction_of_copy_exc", frac[1]);
  hx_note("inclusive %.3f, exclusive %.3f of copy at 9 bytes per element (threshold %.3f)", frac[0], frac[1], threshold);
  HX_CHECK(frac[0] >= threshold, "segScanIncGlobal<int, Add>(n=%zu) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, frac[0], threshold);
  HX_CHECK(frac[1] >= threshold, "segScanExcGlobal<int, Add>(n=%zu) reached %.3f of copy bandwidth; the threshold is %.3f",
           n, frac[1], threshold);
}

/* The single pass (inclusive) at each mean segment length of `means`: the slowest must reach
 * `threshold` of the fastest's throughput. */
static void test_timing_flat(void) {
  const size_t n = (size_t)hx_param_int("n");
  long long means[8];
  const int nm = hx_param_int_list("means", means, 8);
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps"), per_batch = (int)hx_param_int("per_batch");
  if (hx_failures() || nm < 1) return;
  uint8_t *f = (uint8_t *)hx_malloc(n + 1);
  hx_buf *bflags = hx_buf_new((n + 3) / 4, 4);
  double frac[8], lo = INFINITY, hi = 0, copy_s = 0;
  int ilo = 0, ihi = 0;
  bool ok = f && bflags;
  if (ok) memset(hx_buf_data(bflags), 0, (n + 3) / 4 * 4);
  for (int m = 0; ok && m < nm; m++) { /* at each length: correct first, then timed */
    ok = check_one(n, means[m], false, bflags, f) == 0;
    if (ok) model_note(n, means[m], false);
    if (!ok || !hx_timing_available()) continue;
    if (copy_s == 0) copy_s = copy_time(n, reps, per_batch);
    frac[m] = time_one(n, means[m], false, reps, per_batch, copy_s, bflags, f);
    ok = frac[m] == frac[m];
    if (ok && frac[m] < lo) lo = frac[m], ilo = m;
    if (ok && frac[m] > hi) hi = frac[m], ihi = m;
  }
  hx_buf_free(bflags);
  free(f);
  if (!ok || hx_failures()) return;
  HX_REQUIRE_TIMING();
  hx_metric("flatness", lo / hi);
  hx_metric("fraction_of_copy_min", lo);
  hx_note("slowest: mean length %lld at %.3f of copy; fastest: %lld at %.3f; ratio %.3f (threshold %.3f)", means[ilo],
          lo, means[ihi], hi, lo / hi, threshold);
  HX_CHECK(lo / hi >= threshold,
           "segScanIncGlobal<int, Add>(n=%zu): %.3f of copy at mean segment length %lld, %.3f at %lld: the slowest "
           "reaches %.3f of the fastest; the threshold is %.3f", n, lo, means[ilo], hi, means[ihi], lo / hi, threshold);
}

/* ---- memory traffic, counted by the emu ------------------------------------------------------ */

/* The emu's probes count every global access of the student's kernels as the hardware groups
 * them into 32-byte sectors. The single pass runs once each way on random ints with flags of
 * mean segment length `mean`; the bytes it moved per element (sectors loaded and stored, times
 * 32) must stay at `bytes_threshold` or below: a single pass reads 4 bytes of value and 1 of
 * flag and writes 4, plus its status words. Volatile loads are left out: how often a tile polls
 * its neighbours' status words depends on the schedule. */
static void test_emu_traffic(void) {
  const size_t n = (size_t)hx_param_int("n");
  const long long mean = hx_param_int("mean");
  const double max_bytes = hx_param_double("bytes_threshold");
  if (hx_failures()) return;
  uint8_t *f = (uint8_t *)hx_malloc(n + 1);
  hx_buf *bflags = hx_buf_new((n + 3) / 4, 4);
  double bytes[2] = {0, 0};
  char why[2][400] = {"", ""}; /* what each call's counters show (hx_traffic_diagnosis) */
  bool ok = f && bflags, counted = true;
  if (ok) memset(hx_buf_data(bflags), 0, (n + 3) / 4 * 4);
  for (int x = 0; ok && counted && x < 2; x++) {
    ok = check_one(n, mean, x == 1, bflags, f) == 0;
    const hx_counters *c = hx_last_counters();
    counted = c != NULL;
    if (ok && c) {
      bytes[x] = hx_bytes_moved(c) / (double)n;
      hx_traffic_diagnosis(why[x], sizeof why[x]);
      hx_note("%s<int, Add>(n=%zu, mean segment length %lld): %.2f bytes moved per element (4 in, 1 flag, 4 out: "
              "9; at most %.2f)", x ? "segScanExcGlobal" : "segScanIncGlobal", n, mean, bytes[x], max_bytes);
    }
  }
  hx_buf_free(bflags);
  free(f);
  if (ok && !counted)
    HX_SKIP("the memory counters come from the emu's probes (make grade BACKEND=emu); on a GPU, the timing "
            "tests measure the traffic's cost");
  if (!ok) {
    if (hx_failures()) hx_not_counted("emu_traffic");
    return;
  }
  hx_metric("bytes_per_element", bytes[0]);
  hx_metric("bytes_per_element_exc", bytes[1]);
  for (int x = 0; x < 2; x++) {
    const char *name = x ? "segScanExcGlobal" : "segScanIncGlobal";
    HX_CHECK(bytes[x] >= 8.5, "%s<int, Add>(n=%zu): the emu counted %.2f bytes moved per element, less than the 9 "
             "a segmented scan must read and write: its accesses were not counted", name, n, bytes[x]);
    HX_CHECK(bytes[x] <= max_bytes,
             "%s<int, Add>(n=%zu) moved %.2f bytes per element through global memory (32-byte sectors, as the emu "
             "counts them); a single pass moves 9 (4 in, 1 flag, 4 out) plus its status words: at most %.2f%s",
             name, n, bytes[x], max_bytes, why[x]);
  }
}

/* The single pass once, correct, then the emu's count of how the global sectors it stored were
 * spread over its blocks: a pass whose first block walks every tile while the others return
 * (or take a tile number and return) is right, and a GPU runs it at one multiprocessor's speed:
 * what the timing tests would fail, which the emu cannot time. */
static void test_emu_blocks(void) {
  const size_t n = (size_t)hx_param_int("n");
  const long long mean = hx_param_int("mean");
  const double min_blocks = hx_param_double("min_blocks"), min_ways = hx_param_double("min_ways");
  if (hx_failures()) return;
  uint8_t *f = (uint8_t *)hx_malloc(n + 1);
  hx_buf *bflags = hx_buf_new((n + 3) / 4, 4);
  bool ok = f && bflags;
  if (ok) memset(hx_buf_data(bflags), 0, (n + 3) / 4 * 4);
  hx_emu_depth(1);
  ok = ok && check_one(n, mean, false, bflags, f) == 0;
  hx_emu_depth(0);
  hx_buf_free(bflags);
  free(f);
  if (!ok) {
    if (hx_failures()) hx_not_counted("emu_blocks");
    return;
  }
  char call[96];
  snprintf(call, sizeof call, "segScanIncGlobal<int, Add>(n=%zu, mean segment length %lld)", n, mean);
  if (hx_check_blocks(call, min_blocks) < 0)
    HX_SKIP("the emu's probes count each block's accesses (make grade BACKEND=emu); on a GPU, the timing tests "
            "measure what a grid that leaves its work to a few blocks costs");
  hx_check_depth(call, 9.0 * (double)n, min_ways); /* 4 bytes in, a flag, 4 out */
}

static const hx_test TESTS[] = {
    {"operator", test_operator},
    {"examples", test_examples},
    {"warp_op_inc", test_warp_op_inc},
    {"warp_op_exc", test_warp_op_exc},
    {"head_lane", test_head_lane},
    {"warp_inc", test_warp_inc},
    {"warp_exc", test_warp_exc},
    {"block_inc", test_block_inc},
    {"block_exc", test_block_exc},
    {"block_twice", test_block_twice},
    {"global_inc", test_global_inc},
    {"global_exc", test_global_exc},
    {"global_flags", test_global_flags},
    {"global_long", test_global_long},
    {"lookback_windows", test_lookback_windows},
    {"in_place", test_in_place},
    {"repeat", test_repeat},
    {"huge", test_huge},
    {"offsets_64", test_offsets_64},
    {"emu_traffic", test_emu_traffic},
    {"emu_blocks", test_emu_blocks},
    {"timing_global", test_timing_global},
    {"timing_flat", test_timing_flat},
    {NULL, NULL},
};
HX_SUITE("06", TESTS);
