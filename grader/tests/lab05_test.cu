/**
 * @file lab05_test.cu
 * @brief Lab 05 tests: the block scan, the any-length block scan, and the three scans of any
 *        length (scan-then-propagate, reduce-then-scan, decoupled look-back).
 *
 * Sizes, seeds, value ranges and thresholds come from `grader/manifests/lab05.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global_scan.h"
#include "harness.h"
#include "harness_cuda.h"
#include "scan_ref.h"

/* ---- the functions under test ---------------------------------------------------------------- */

typedef void (*scan_fn)(const int32_t *, int32_t *, size_t);
typedef struct {
  const char *name;
  scan_fn fn;
  int exclusive;
} variant;

static const variant ANY_INC = {"scanIncBlockAnyLength", scanIncBlockAnyLength, 0};
static const variant ANY_EXC = {"scanExcBlockAnyLength", scanExcBlockAnyLength, 1};
static const variant PROP_INC = {"scanIncPropagate", scanIncPropagate, 0};
static const variant PROP_EXC = {"scanExcPropagate", scanExcPropagate, 1};
static const variant RTS_INC = {"scanIncReduceThenScan", scanIncReduceThenScan, 0};
static const variant RTS_EXC = {"scanExcReduceThenScan", scanExcReduceThenScan, 1};
static const variant LB_INC = {"scanIncLookback", scanIncLookback, 0};
static const variant LB_EXC = {"scanExcLookback", scanExcLookback, 1};

#define MAX_SIZES 64

/* ---- helpers ----------------------------------------------------------------------------------- */

/* Runs v on seeded random ints in [lo, hi] into a guarded, poisoned output (or in place) and
 * compares with the CPU reference. Returns the number of problems found (0: correct). */
static size_t check_scan(const variant *v, size_t n, uint64_t seed, int32_t lo, int32_t hi,
                         int in_place) {
  size_t bad = 1;
  const size_t bytes = (n ? n : 1) * sizeof(int32_t);
  int32_t *in = (int32_t *)hx_malloc(bytes), *expect = (int32_t *)hx_malloc(bytes);
  int32_t *got = (int32_t *)hx_malloc(bytes);
  hx_dbuf d_in = hx_dbuf_alloc(n, sizeof(int32_t)), d_out = {NULL, NULL, 0, 0};
  char ctx[256];
  if (!in || !expect || !got) goto done;
  hx_fill_i32(in, n, seed, lo, hi);
  (v->exclusive ? ref_scan_exc_i32 : ref_scan_inc_i32)(in, expect, n, REF_ADD);
  snprintf(ctx, sizeof ctx, "%s(n=%zu, %svalues in [%d, %d], seed=%llu)", v->name, n,
           in_place ? "in place, " : "", lo, hi, (unsigned long long)seed);
  hx_dbuf_poison(&d_in);
  hx_dbuf_upload(&d_in, in);
  if (in_place) {
    v->fn((const int32_t *)d_in.ptr, (int32_t *)d_in.ptr, n);
  } else {
    d_out = hx_dbuf_alloc(n, sizeof(int32_t));
    hx_dbuf_poison(&d_out);
    v->fn((const int32_t *)d_in.ptr, (int32_t *)d_out.ptr, n);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  {
    hx_dbuf *res = in_place ? &d_in : &d_out;
    hx_dbuf_download(res, got);
    bad = hx_check_i32(ctx, expect, got, n);
    bad += (size_t)hx_dbuf_check_guards(res, ctx);
  }
  if (!in_place) {
    /* the input must come back unchanged */
    hx_dbuf_download(&d_in, got);
    if (n && memcmp(in, got, n * sizeof *in) != 0) {
      HX_FAIL("%s: the input array was modified (it is const)", ctx);
      bad++;
    }
  }
done:
  free(in);
  free(expect);
  free(got);
  hx_dbuf_free(&d_in);
  if (d_out.base) hx_dbuf_free(&d_out);
  return bad;
}

/* The manifest's `sizes` list, checked with every variant given; stops a variant at its first
 * failing size so the log shows one clear message per function. */
static void check_sizes(const variant *const *vs, int nv, int in_place) {
  long long sizes[MAX_SIZES];
  const int count = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (count < 0 || hx_failures()) return;
  for (int k = 0; k < nv; k++)
    for (int s = 0; s < count; s++)
      if (check_scan(vs[k], (size_t)sizes[s], hx_seed() + (uint64_t)s, lo, hi, in_place)) break;
}

/* ---- part 1: the block scan -------------------------------------------------------------------- */

static void test_block_example(void) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  const int32_t inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
  int32_t got[8];
  hx_dbuf d_in = hx_dbuf_alloc(8, 4), d_out = hx_dbuf_alloc(8, 4);
  const char *ctx = "scanIncBlockTiles(in={3,1,7,0,4,1,6,3}, block=32)";
  hx_dbuf_upload(&d_in, in);
  hx_dbuf_poison(&d_out);
  scanIncBlockTiles((const int32_t *)d_in.ptr, (int32_t *)d_out.ptr, 8, 32);
  CUDA_CHECK(cudaDeviceSynchronize());
  hx_dbuf_download(&d_out, got);
  hx_check_i32(ctx, inc, got, 8);
  hx_dbuf_check_guards(&d_out, ctx);
  hx_dbuf_free(&d_in);
  hx_dbuf_free(&d_out);
}

/* Every block scans its own tile of `block` elements: compare with the tile-wise reference. */
static void test_block_sizes(void) {
  long long blocks[16], sizes[MAX_SIZES];
  const int nb = hx_param_int_list("blocks", blocks, 16);
  const int ns = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (nb < 0 || ns < 0 || hx_failures()) return;
  for (int b = 0; b < nb; b++) {
    for (int s = 0; s < ns; s++) {
      const size_t n = (size_t)sizes[s];
      const uint64_t seed = hx_seed() + (uint64_t)s;
      const size_t bytes = (n ? n : 1) * sizeof(int32_t);
      int32_t *in = (int32_t *)hx_malloc(bytes), *expect = (int32_t *)hx_malloc(bytes);
      int32_t *got = (int32_t *)hx_malloc(bytes);
      size_t bad = 1;
      if (in && expect && got) {
        hx_dbuf d_in = hx_dbuf_alloc(n, 4), d_out = hx_dbuf_alloc(n, 4);
        char ctx[256];
        snprintf(ctx, sizeof ctx, "scanIncBlock via scanIncBlockTiles(n=%zu, block=%lld, seed=%llu)", n,
                 blocks[b], (unsigned long long)seed);
        hx_fill_i32(in, n, seed, lo, hi);
        ref_scan_inc_tiles_i32(in, expect, n, (size_t)blocks[b]);
        hx_dbuf_upload(&d_in, in);
        hx_dbuf_poison(&d_out);
        scanIncBlockTiles((const int32_t *)d_in.ptr, (int32_t *)d_out.ptr, n, (int)blocks[b]);
        CUDA_CHECK(cudaDeviceSynchronize());
        hx_dbuf_download(&d_out, got);
        bad = hx_check_i32(ctx, expect, got, n) + (size_t)hx_dbuf_check_guards(&d_out, ctx);
        hx_dbuf_free(&d_in);
        hx_dbuf_free(&d_out);
      }
      free(in);
      free(expect);
      free(got);
      if (bad) break; /* one message per block size */
    }
  }
}

/* ---- part 2 and 3: scans of any length ---------------------------------------------------------- */

static void test_anylength_inc(void) { const variant *v[] = {&ANY_INC}; check_sizes(v, 1, 0); }
static void test_anylength_exc(void) { const variant *v[] = {&ANY_EXC}; check_sizes(v, 1, 0); }
static void test_propagate_inc(void) { const variant *v[] = {&PROP_INC}; check_sizes(v, 1, 0); }
static void test_propagate_exc(void) { const variant *v[] = {&PROP_EXC}; check_sizes(v, 1, 0); }
static void test_rts_inc(void) { const variant *v[] = {&RTS_INC}; check_sizes(v, 1, 0); }
static void test_rts_exc(void) { const variant *v[] = {&RTS_EXC}; check_sizes(v, 1, 0); }
static void test_lookback_inc(void) { const variant *v[] = {&LB_INC}; check_sizes(v, 1, 0); }
static void test_lookback_exc(void) { const variant *v[] = {&LB_EXC}; check_sizes(v, 1, 0); }

/* out == in: every scan must read a tile before it overwrites it. */
static void test_in_place(void) {
  const variant *v[] = {&ANY_INC, &PROP_INC, &PROP_EXC, &RTS_INC, &RTS_EXC, &LB_INC, &LB_EXC};
  check_sizes(v, (int)(sizeof v / sizeof v[0]), 1);
}

/* Sums that overflow 32 bits wrap around, as the hardware adds. */
static void test_wraparound(void) {
  const variant *v[] = {&ANY_INC, &PROP_INC, &RTS_EXC, &LB_INC, &LB_EXC};
  check_sizes(v, (int)(sizeof v / sizeof v[0]), 0);
}

/* Many calls in a row, growing and shrinking, without freeing: the scratch memory must grow,
 * and every call of (c) must start from a reset tile counter and status words. Then release
 * the scratch and scan once more. */
static void test_repeat(void) {
  long long sizes[MAX_SIZES];
  const int count = hx_param_int_list("sizes", sizes, MAX_SIZES);
  const int32_t lo = (int32_t)hx_param_int("lo"), hi = (int32_t)hx_param_int("hi");
  if (count < 0 || hx_failures()) return;
  const variant *vs[] = {&LB_INC, &LB_EXC, &PROP_INC, &RTS_INC};
  for (int k = 0; k < 4; k++) {
    for (int s = 0; s < count; s++)
      if (check_scan(vs[k], (size_t)sizes[s], hx_seed() + (uint64_t)s, lo, hi, 0)) return;
    scanGlobalRelease();
    if (check_scan(vs[k], (size_t)sizes[0], hx_seed(), lo, hi, 0)) return;
  }
}

/* ---- more than 2^31 elements ------------------------------------------------------------------ */

/* The value at index i of the huge input: a hash of (seed, i), so the host can recompute any
 * chunk without keeping 8 GiB of input. */
__host__ __device__ static inline int32_t huge_value(uint64_t seed, size_t i) {
  uint64_t z = seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (int32_t)(z % 2001u) - 1000;
}

static __global__ void hugeFillKernel(int32_t *a, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = huge_value(seed, i);
}

/* Compares the device output with the reference, chunk by chunk, recomputing the input. */
static void check_huge(const variant *v, const hx_dbuf *out, size_t n, uint64_t seed) {
  const size_t chunk = (size_t)1 << 26;
  int32_t *got = (int32_t *)hx_malloc(chunk * sizeof(int32_t));
  if (!got) return;
  uint32_t acc = 0; /* unsigned: the reference wraps as the GPU does */
  size_t mismatches = 0, first = 0;
  int32_t first_expect = 0, first_got = 0;
  for (size_t start = 0; start < n; start += chunk) {
    const size_t m = n - start < chunk ? n - start : chunk;
    CUDA_CHECK(cudaMemcpy(got, (const int32_t *)out->ptr + start, m * sizeof(int32_t), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < m; k++) {
      const uint32_t x = (uint32_t)huge_value(seed, start + k);
      if (!v->exclusive) acc += x;
      if ((int32_t)acc != got[k]) {
        if (!mismatches) {
          first = start + k;
          first_expect = (int32_t)acc;
          first_got = got[k];
        }
        mismatches++;
      }
      if (v->exclusive) acc += x;
    }
  }
  char ctx[256];
  snprintf(ctx, sizeof ctx, "%s(n=%zu, seed=%llu)", v->name, n, (unsigned long long)seed);
  if (mismatches)
    HX_FAIL("%s: first mismatch at [%zu]: expected %d, got %d%s (%zu mismatches)", ctx, first,
            first_expect, first_got,
            (uint32_t)first_got == HX_POISON ? " (the poison value: never written)" : "", mismatches);
  hx_dbuf_check_guards(out, ctx);
  free(got);
}

static void test_huge(void) {
  const size_t n = (size_t)hx_param_int("n");
  if (hx_failures()) return;
  if (!hx_timing_available() && n > ((size_t)1 << 28))
    HX_SKIP("n=%zu needs %zu GiB of device memory and minutes of CPU time: GPU only (the manifest's "
            "emu size is smaller)", n, (2 * n * sizeof(int32_t)) >> 30);
  const size_t need = 2 * n * sizeof(int32_t) + ((size_t)256 << 20);
  const size_t have = hx_free_device_bytes();
  if (have < need)
    HX_SKIP("n=%zu needs %.1f GiB of free device memory; this GPU has %.1f GiB free", n,
            need / 1073741824.0, have / 1073741824.0);
  const uint64_t seed = hx_seed();
  int32_t *d_in = NULL;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int32_t)));
  hugeFillKernel<<<4096, 256>>>(d_in, n, seed);
  CUDA_CHECK_LAUNCH();
  hx_dbuf out = hx_dbuf_alloc(n, sizeof(int32_t));
  const variant *vs[] = {&PROP_INC, &RTS_INC, &LB_INC, &LB_EXC};
  for (int k = 0; k < 4; k++) {
    hx_dbuf_poison(&out);
    vs[k]->fn(d_in, (int32_t *)out.ptr, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    check_huge(vs[k], &out, n, seed);
  }
  scanGlobalRelease();
  hx_dbuf_free(&out);
  CUDA_CHECK(cudaFree(d_in));
}

/* ---- timing ---------------------------------------------------------------------------------------- */

struct timing_job {
  scan_fn fn;
  const int32_t *in;
  int32_t *out;
  size_t n;
};
static void run_job(void *arg) {
  struct timing_job *j = (struct timing_job *)arg;
  j->fn(j->in, j->out, j->n);
}

/* Checks v at n, then times it: bandwidth counting n reads and n writes, as a fraction of the
 * device copy measured in this process. */
static void timing(const variant *v) {
  const size_t n = (size_t)hx_param_int("n");
  const double threshold = hx_param_double("threshold");
  const int reps = (int)hx_param_int("reps");
  if (hx_failures()) return;
  if (check_scan(v, n, hx_seed(), -1000, 1000, 0)) return; /* a wrong answer is not timed */
  HX_REQUIRE_TIMING();
  if (n * sizeof(int32_t) < 2 * hx_l2_bytes())
    hx_note("n=%zu is small next to the %zu MB L2 cache: the timing flatters", n, hx_l2_bytes() >> 20);
  hx_dbuf in = hx_dbuf_alloc(n, 4), out = hx_dbuf_alloc(n, 4);
  int32_t *h = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!h) return;
  hx_fill_i32(h, n, hx_seed(), -1000, 1000);
  hx_dbuf_upload(&in, h);
  free(h);
  struct timing_job job = {v->fn, (const int32_t *)in.ptr, (int32_t *)out.ptr, n};
  const double ms = hx_time_device_ms(run_job, &job, 3, reps);
  const double bw = 2.0 * (double)(n * sizeof(int32_t)) / (ms * 1e-3);
  const double copy = hx_copy_bandwidth(n * sizeof(int32_t), reps);
  const double fraction = bw / copy;
  hx_metric("fraction_of_copy", fraction);
  hx_note("%s(n=%zu): %.3f ms, %.0f GB/s; copy %.0f GB/s: %.3f of copy (threshold %.3f)", v->name, n,
          ms, bw * 1e-9, copy * 1e-9, fraction, threshold);
  HX_CHECK(fraction >= threshold, "%s(n=%zu) reached %.3f of copy bandwidth; the threshold is %.3f",
           v->name, n, fraction, threshold);
  hx_dbuf_free(&in);
  hx_dbuf_free(&out);
}

static void test_timing_propagate(void) { timing(&PROP_INC); }
static void test_timing_rts(void) { timing(&RTS_INC); }
static void test_timing_lookback(void) { timing(&LB_INC); }

static const hx_test TESTS[] = {
    {"block_example", test_block_example},
    {"block_sizes", test_block_sizes},
    {"anylength_inc", test_anylength_inc},
    {"anylength_exc", test_anylength_exc},
    {"propagate_inc", test_propagate_inc},
    {"propagate_exc", test_propagate_exc},
    {"rts_inc", test_rts_inc},
    {"rts_exc", test_rts_exc},
    {"lookback_inc", test_lookback_inc},
    {"lookback_exc", test_lookback_exc},
    {"in_place", test_in_place},
    {"wraparound", test_wraparound},
    {"repeat", test_repeat},
    {"huge", test_huge},
    {"timing_propagate", test_timing_propagate},
    {"timing_rts", test_timing_rts},
    {"timing_lookback", test_timing_lookback},
    {NULL, NULL},
};
HX_SUITE("05", TESTS);
