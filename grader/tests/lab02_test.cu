/**
 * @file lab02_test.cu
 * @brief Lab 02 tests: Kogge-Stone inclusive sums of one block (in place and double-buffered)
 *        and of many tiles at once, at edge sizes, odd block sizes and large sizes.
 *
 * Every output lives in a guarded device buffer that is poisoned before each call, so an
 * element never written and a write past the end are both caught. Sizes, block sizes, seeds
 * and thresholds come from `grader/manifests/lab02.toml`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_cuda.h"
#include "kogge_stone.h"
#include "scan_ref.h"

/* ---- the three functions under test ------------------------------------------------------ */

typedef void (*scan_fn)(const int *, int *, size_t, int);

typedef struct {
  const char *name;
  scan_fn fn;
  int tiles; /* 1: tile-wise result, any n; 0: one block, n <= blockSize */
} Variant;

static const Variant KS = {"scanIncKoggeStone", scanIncKoggeStone, 0};
static const Variant DB = {"scanIncKoggeStoneDB", scanIncKoggeStoneDB, 0};
static const Variant TILES = {"scanIncKoggeStoneTiles", scanIncKoggeStoneTiles, 1};

/* Inputs are small (|x| <= 1000) so that no tile's sum comes near overflow. */
static const int32_t LO = -1000, HI = 1000;

/* ---- one checked call ----------------------------------------------------------------------- */

/* Compares a whole output; one failure names the first wrong element (and its tile, for the
 * batched scan), the values, and how many elements and tiles are wrong. */
static size_t check_scan(const char *ctx, const int32_t *expect, const int32_t *got, size_t n,
                         int block, int tiles) {
  size_t bad = 0, first = 0, bad_tiles = 0, last_tile = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    if (expect[i] == got[i]) continue;
    if (bad++ == 0) first = i;
    if (i / (size_t)block != last_tile) {
      last_tile = i / (size_t)block;
      bad_tiles++;
    }
  }
  if (!bad) return 0;
  const uint32_t g = (uint32_t)got[first];
  const char *poison = g == HX_POISON || g == 0xEFEFEFEFu ? " (the poison value: never written)" : "";
  if (tiles) {
    size_t ntiles = (n + (size_t)block - 1) / (size_t)block;
    HX_FAIL("%s: first mismatch at [%zu] (tile %zu, element %zu of the tile): expected %d, got %d%s "
            "(%zu mismatch%s in %zu of %zu tiles)", ctx, first, first / (size_t)block,
            first % (size_t)block, (int)expect[first], (int)got[first], poison, bad,
            bad == 1 ? "" : "es", bad_tiles, ntiles);
  } else {
    HX_FAIL("%s: first mismatch at [%zu]: expected %d, got %d%s (%zu mismatch%s)", ctx, first,
            (int)expect[first], (int)got[first], poison, bad, bad == 1 ? "" : "es");
  }
  return bad;
}

/* Runs v on h_in[0..n-1] with blockSize threads per block and checks the output and its guards.
 * Returns the number of problems (0: correct). */
static size_t run_on(const Variant *v, const int32_t *h_in, size_t n, int block, const char *ctx) {
  int32_t *expect = (int32_t *)hx_malloc(n * sizeof(int32_t));
  int32_t *got = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!expect || !got) {
    free(expect);
    free(got);
    return 1;
  }
  if (v->tiles)
    ref_scan_inc_tiles_i32(h_in, expect, n, (size_t)block);
  else
    ref_scan_inc_i32(h_in, expect, n, REF_ADD);
  hx_dbuf d_in = hx_dbuf_alloc(n, sizeof(int32_t)), d_out = hx_dbuf_alloc(n, sizeof(int32_t));
  hx_dbuf_upload(&d_in, h_in);
  hx_dbuf_poison(&d_out);
  v->fn((const int *)d_in.ptr, (int *)d_out.ptr, n, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  hx_dbuf_download(&d_out, got);
  size_t bad = check_scan(ctx, expect, got, n, block, v->tiles);
  bad += (size_t)hx_dbuf_check_guards(&d_out, ctx);
  hx_dbuf_free(&d_in);
  hx_dbuf_free(&d_out);
  free(expect);
  free(got);
  return bad;
}

/* Seeded random input of n ints, then run_on(). */
static size_t run_random(const Variant *v, size_t n, int block, uint64_t seed) {
  int32_t *in = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!in) return 1;
  hx_fill_i32(in, n, seed, LO, HI);
  char ctx[256];
  snprintf(ctx, sizeof ctx, "%s(n=%zu, blockSize=%d, seed=%llu)", v->name, n, block,
           (unsigned long long)seed);
  size_t bad = run_on(v, in, n, block, ctx);
  free(in);
  return bad;
}

/* Calls v with arguments it must reject: it must launch nothing and leave the output alone. */
static void expect_rejected(const Variant *v, size_t n, int block, const char *why) {
  size_t alloc = n ? n : 1;
  hx_dbuf d_in = hx_dbuf_alloc(alloc, sizeof(int32_t)), d_out = hx_dbuf_alloc(alloc, sizeof(int32_t));
  int32_t *zeros = (int32_t *)calloc(alloc, sizeof(int32_t)), *got = (int32_t *)hx_malloc(alloc * 4);
  if (!zeros || !got) {
    HX_FAIL("out of host memory");
  } else {
    hx_dbuf_upload(&d_in, zeros);
    hx_dbuf_poison(&d_out);
    fprintf(stderr, "(expected) ");
    v->fn((const int *)d_in.ptr, (int *)d_out.ptr, n, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    hx_dbuf_download(&d_out, got);
    size_t written = 0;
    for (size_t i = 0; i < alloc; i++) written += (uint32_t)got[i] != HX_POISON;
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s(n=%zu, blockSize=%d)", v->name, n, block);
    if (written)
      HX_FAIL("%s: %s, so nothing may be launched, but %zu output element%s changed", ctx, why,
              written, written == 1 ? "" : "s");
    hx_dbuf_check_guards(&d_out, ctx);
  }
  free(zeros);
  free(got);
  hx_dbuf_free(&d_in);
  hx_dbuf_free(&d_out);
}

/* ---- test bodies shared by the two single-block forms ------------------------------------- */

/* The worked example {3,1,7,0,4,1,6,3}, in blocks of exactly 8 threads and of more. */
static void example(const Variant *v) {
  const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
  long long blocks[16];
  int nb = hx_param_int_list("blocks", blocks, 16);
  for (int b = 0; b < nb; b++) {
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s(in={3,1,7,0,4,1,6,3}, n=8, blockSize=%lld)", v->name, blocks[b]);
    run_on(v, in, 8, (int)blocks[b], ctx);
  }
}

/* n = 0, 1, 31, 32, 33 in one block; n = B-1 and B for block sizes B around a power of two;
 * and the arguments that must be rejected. */
static void edge_sizes(const Variant *v) {
  long long sizes[16], blocks[16];
  int ns = hx_param_int_list("sizes", sizes, 16);
  int nb = hx_param_int_list("edge_blocks", blocks, 16);
  int block = (int)hx_param_int("block");
  if (hx_failures()) return;
  for (int s = 0; s < ns; s++) run_random(v, (size_t)sizes[s], block, hx_seed() + (uint64_t)s);
  for (int b = 0; b < nb; b++) {
    run_random(v, (size_t)blocks[b] - 1, (int)blocks[b], hx_seed() + 100 + (uint64_t)b);
    run_random(v, (size_t)blocks[b], (int)blocks[b], hx_seed() + 200 + (uint64_t)b);
  }
  expect_rejected(v, (size_t)block + 1, block, "n is larger than blockSize");
  expect_rejected(v, 1, 0, "blockSize 0 is not in 1..1024");
  expect_rejected(v, 1, KS_MAX_BLOCK + 1, "blockSize 1025 is not in 1..1024");
}

/* Random data in blocks of many sizes (powers of two, and not; multiples of 32, and not):
 * a full block (n = B) and a partial one (n drawn from 1..B). */
static void block_sizes(const Variant *v) {
  long long blocks[32];
  int nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  hx_rng r = hx_rng_make(hx_seed());
  for (int b = 0; b < nb; b++) {
    int block = (int)blocks[b];
    run_random(v, (size_t)block, block, hx_seed() + (uint64_t)b);
    size_t n = (size_t)hx_rng_range(&r, 1, block);
    run_random(v, n, block, hx_seed() + 1000 + (uint64_t)b);
  }
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_ks_example(void) { example(&KS); }
static void test_ks_edge_sizes(void) { edge_sizes(&KS); }
static void test_ks_block_sizes(void) { block_sizes(&KS); }
static void test_db_example(void) { example(&DB); }
static void test_db_edge_sizes(void) { edge_sizes(&DB); }
static void test_db_block_sizes(void) { block_sizes(&DB); }

/* The batched scan: every (size, block) pair; sizes below one tile, exact multiples of the
 * tile, and short last tiles. */
static void test_tiles(void) {
  long long sizes[32], blocks[32];
  int ns = hx_param_int_list("sizes", sizes, 32), nb = hx_param_int_list("blocks", blocks, 32);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++)
    for (int s = 0; s < ns; s++)
      run_random(&TILES, (size_t)sizes[s], (int)blocks[b], hx_seed() + (uint64_t)(s * 37 + b));
  expect_rejected(&TILES, 100, 0, "blockSize 0 is not in 1..1024");
}

static void test_tiles_large(void) {
  size_t n = (size_t)hx_param_int("n");
  long long blocks[16];
  int nb = hx_param_int_list("blocks", blocks, 16);
  if (hx_failures()) return;
  for (int b = 0; b < nb; b++) run_random(&TILES, n, (int)blocks[b], hx_seed() + (uint64_t)b);
}

/* ---- timing --------------------------------------------------------------------------------- */

typedef struct {
  int in_place; /* 1: scanIncKoggeStoneKernel over every tile; 0: scanIncKoggeStoneTiles */
  const int *in;
  int *out;
  size_t n;
  int block;
} TimingJob;

static void run_timed(void *arg) {
  TimingJob *j = (TimingJob *)arg;
  if (!j->in_place) {
    scanIncKoggeStoneTiles(j->in, j->out, j->n, j->block);
    return;
  }
  unsigned tiles = (unsigned)((j->n + (size_t)j->block - 1) / (size_t)j->block);
  scanIncKoggeStoneKernel<<<tiles, j->block, j->block * sizeof(int)>>>(j->in, j->out, j->n);
  CUDA_CHECK_LAUNCH();
}

/* Buffers of the timing test, freed on every way out. */
typedef struct {
  int32_t *h_in, *expect, *got;
  int *d_in, *d_out;
} TimingBufs;

static void free_timing(TimingBufs *b) {
  if (b->d_in) CUDA_CHECK(cudaFree(b->d_in));
  if (b->d_out) CUDA_CHECK(cudaFree(b->d_out));
  free(b->h_in);
  free(b->expect);
  free(b->got);
  memset(b, 0, sizeof *b);
}

/* Runs one batched form once on the timing input and compares it with the tile-wise
 * reference. Returns 1 when it is right. */
static int timing_answer(TimingBufs *b, TimingJob *j) {
  CUDA_CHECK(cudaMemset(b->d_out, 0xEF, j->n * sizeof(int)));
  run_timed(j);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(b->got, b->d_out, j->n * sizeof(int), cudaMemcpyDeviceToHost));
  return memcmp(b->expect, b->got, j->n * sizeof(int32_t)) == 0;
}

/* The batched scan reads and writes every element once, as a copy does: report it as a
 * fraction of the device copy bandwidth measured in this process. The in-place kernel, run
 * the same way, is reported beside it (not graded) to show what the second barrier costs. */
static void test_timing(void) {
  size_t n = (size_t)hx_param_int("n");
  int block = (int)hx_param_int("block"), reps = (int)hx_param_int("reps");
  double threshold = hx_param_double("threshold");
  if (hx_failures()) return;
  TimingBufs b = {NULL, NULL, NULL, NULL, NULL};
  b.h_in = (int32_t *)hx_malloc(n * sizeof(int32_t));
  b.expect = (int32_t *)hx_malloc(n * sizeof(int32_t));
  b.got = (int32_t *)hx_malloc(n * sizeof(int32_t));
  if (!b.h_in || !b.expect || !b.got) {
    free_timing(&b);
    return;
  }
  hx_fill_i32(b.h_in, n, hx_seed(), LO, HI);
  ref_scan_inc_tiles_i32(b.h_in, b.expect, n, (size_t)block);
  CUDA_CHECK(cudaMalloc((void **)&b.d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc((void **)&b.d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(b.d_in, b.h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  TimingJob db = {0, b.d_in, b.d_out, n, block}, ip = {1, b.d_in, b.d_out, n, block};
  /* Correct first: a wrong answer is not timed. */
  if (!timing_answer(&b, &db)) {
    char ctx[256];
    snprintf(ctx, sizeof ctx, "scanIncKoggeStoneTiles(n=%zu, blockSize=%d, seed=%llu)", n, block,
             (unsigned long long)hx_seed());
    check_scan(ctx, b.expect, b.got, n, block, 1);
    free_timing(&b);
    return;
  }
  if (!hx_timing_available()) {
    free_timing(&b);
    HX_REQUIRE_TIMING();
  }
  if (n * sizeof(int) <= hx_l2_bytes()) {
    HX_FAIL("manifest error: timing needs n*4 bytes (%zu) above the L2 cache (%zu bytes)",
            n * sizeof(int), hx_l2_bytes());
    free_timing(&b);
    return;
  }
  double copy_bw = hx_copy_bandwidth(n * sizeof(int), reps);
  double bytes = 2.0 * (double)(n * sizeof(int)); /* read n ints, write n ints */
  double ms = hx_time_device_ms(run_timed, &db, 2, reps);
  double fraction = bytes / (ms * 1e-3) / copy_bw;
  hx_metric("fraction_of_copy", fraction);
  hx_note("scanIncKoggeStoneTiles(n=%zu, blockSize=%d): %.3f ms, %.1f GB/s: %.3f of copy "
          "(%.1f GB/s; threshold %.3f)", n, block, ms, bytes / (ms * 1e-3) * 1e-9, fraction,
          copy_bw * 1e-9, threshold);
  HX_CHECK(fraction >= threshold,
           "scanIncKoggeStoneTiles(n=%zu, blockSize=%d) reached %.3f of copy bandwidth; the "
           "threshold is %.3f", n, block, fraction, threshold);
  /* Not graded: the in-place kernel on the same tiles, for comparison. */
  if (timing_answer(&b, &ip)) {
    double ms_ip = hx_time_device_ms(run_timed, &ip, 2, reps);
    double f_ip = bytes / (ms_ip * 1e-3) / copy_bw;
    hx_metric("fraction_of_copy_in_place", f_ip);
    hx_note("scanIncKoggeStoneKernel on the same tiles (two barriers per step, not graded): "
            "%.3f ms: %.3f of copy", ms_ip, f_ip);
  } else {
    hx_note("scanIncKoggeStoneKernel launched on %zu tiles gives a wrong answer (does it use "
            "blockIdx.x?): not timed", (n + (size_t)block - 1) / (size_t)block);
  }
  free_timing(&b);
}

static const hx_test TESTS[] = {
    {"ks_example", test_ks_example},
    {"ks_edge_sizes", test_ks_edge_sizes},
    {"ks_block_sizes", test_ks_block_sizes},
    {"db_example", test_db_example},
    {"db_edge_sizes", test_db_edge_sizes},
    {"db_block_sizes", test_db_block_sizes},
    {"tiles", test_tiles},
    {"tiles_large", test_tiles_large},
    {"timing", test_timing},
    {NULL, NULL},
};
HX_SUITE("02", TESTS);
