/**
 * @file apps_profile.cu
 * @brief The program `make profile LAB=07` runs under Nsight Compute and on the emu: one call
 *        of one of lab 07's applications on random data; it checks the answer.
 *
 * Usage: `apps_profile CASE N`, CASE one of
 *
 * - `app_scan_exc`: appScanExc(), the kit's: appScanExcKernel;
 * - `compact_scan`: compactScan(): compactFlagsKernel, appScanExcKernel, compactScatterKernel;
 * - `compact_single`: compactSinglePass(): compactKernel;
 * - `partition`: partitionStable(): partitionCountKernel, partitionKernel<true> (KeepAbove);
 * - `partition_single`: partitionSinglePass(): partitionKernel<false> (KeepAbove);
 * - `split`: splitBit(), bit 3: partitionCountKernel, partitionKernel<true> (BitClear);
 * - `radix_keys`, `radix_pairs`: radixSortKeys(), radixSortPairs(): radixHistogramKernel,
 *   radixDigitStartKernel, then 4 passes of radixOnesweepKernel<false> or <true>;
 * - `line_of_sight`: lineOfSight(): lineOfSightKernel;
 * - `spmv`: spmvCsr() with N non-zeros: spmvTileRowsKernel, spmvKernel;
 * - `spmv_empty`: spmvCsr() with N rows and no non-zero: zeroKernel;
 * - `str_compare`: strCompare() of N bytes each: strTileKernel, strFinishKernel;
 * - `str_batch`: strCompareBatch() with N bytes of a: strTilePairsKernel, strBatchKernel;
 * - `str_batch_empty`: strCompareBatch() of N pairs, every a empty: strEmptyKernel;
 * - `first_diff`: firstDiffApply(): firstDiffKernel.
 *
 * Built by grader/measure/profile_banks.py together with a submission's `apps.cu`; prints
 * `PROFILE case=... n=... wrong=...` and exits non-zero when the result is wrong (1) or the
 * arguments are (2). Example: `apps_profile compact_single 12388` compacts 4 tiles of
 * APP_TILE = 4096 (the last one 100 long), keeping the elements above 0, about half.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"

/* CUDA_CHECK in the submission's file (grader/trusted/include/cuda_check.h) ends up here. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "apps_profile: %s at %s:%d: %s\n", expr, file, line, cudaGetErrorString(err));
  exit(3);
}
/** Checks a CUDA call: the message names the file, the line, the call and the error. */
#define CK(...) scanlab_cuda_check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

static uint32_t g_rng = 12345u;
/** The next pseudo-random 32-bit number (a fixed LCG: the GPU and the emu see the same data). */
static uint32_t rnd(void) {
  g_rng = g_rng * 1664525u + 1013904223u;
  return g_rng ^ (g_rng >> 15);
}

/** @p bytes bytes of device memory, a copy of @p h (NULL: left as cudaMalloc leaves it). */
static void *upload(const void *h, size_t bytes) {
  void *d = NULL;
  CK(cudaMalloc(&d, bytes ? bytes : 4));
  if (h && bytes) CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
  return d;
}
/** A host copy of @p bytes bytes of device memory at @p d. */
static void *download(const void *d, size_t bytes) {
  void *h = malloc(bytes ? bytes : 4);
  if (!h) {
    fprintf(stderr, "apps_profile: out of host memory\n");
    exit(3);
  }
  if (bytes) CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
  return h;
}

static size_t g_wrong, g_first;
/** Counts a mismatch at @p i (the first is reported). */
static void expect(int ok, size_t i) {
  if (!ok && g_wrong++ == 0) g_first = i;
}

/** qsort's order of 64-bit unsigned integers. */
static int cmpU64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Compaction, partition, split: keep in[i] > 0 (bit 3 clear for the split). */
static void runSelect(const char *name, size_t n) {
  const int split = strcmp(name, "split") == 0, partition = strcmp(name, "partition") == 0;
  const int single = strcmp(name, "partition_single") == 0; /* the others in reverse order */
  int32_t *h = (int32_t *)malloc(n * 4), *want = (int32_t *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) h[i] = split ? (int32_t)rnd() : (int32_t)(rnd() % 1024) - 512;
  size_t kept = 0, rest = 0;
  for (size_t i = 0; i < n; i++) {
    const int keep = split ? ((uint32_t)h[i] >> 3 & 1u) == 0 : h[i] > 0;
    if (keep) want[kept++] = h[i];
  }
  for (size_t i = 0; (partition || split || single) && i < n; i++) {
    const size_t j = single ? n - 1 - i : i;
    const int keep = split ? ((uint32_t)h[j] >> 3 & 1u) == 0 : h[j] > 0;
    if (!keep) want[kept + rest++] = h[j];
  }
  int32_t *d_in = (int32_t *)upload(h, n * 4), *d_out = (int32_t *)upload(NULL, n * 4);
  size_t got;
  if (strcmp(name, "compact_scan") == 0) got = compactScan(d_in, d_out, n, 0);
  else if (strcmp(name, "compact_single") == 0) got = compactSinglePass(d_in, d_out, n, 0);
  else if (partition) got = partitionStable(d_in, d_out, n, 0);
  else if (single) got = partitionSinglePass(d_in, d_out, n, 0);
  else got = splitBit((const uint32_t *)d_in, (uint32_t *)d_out, n, 3);
  CK(cudaDeviceSynchronize());
  int32_t *out = (int32_t *)download(d_out, n * 4);
  expect(got == kept, n);
  for (size_t i = 0; i < kept + rest; i++) expect(out[i] == want[i], i);
}

/* radixSortKeys() or radixSortPairs() of random keys, values their positions: checked against
 * the stable order (key, then position). */
static void runRadix(size_t n, int pairs) {
  uint32_t *k = (uint32_t *)malloc(n * 4), *v = (uint32_t *)malloc(n * 4);
  uint64_t *both = (uint64_t *)malloc(n * 8);
  for (size_t i = 0; i < n; i++) {
    k[i] = rnd();
    v[i] = (uint32_t)i;
    both[i] = (uint64_t)k[i] << 32 | i; /* sorted by key, then position: the stable order */
  }
  qsort(both, n, 8, cmpU64);
  uint32_t *d_k = (uint32_t *)upload(k, n * 4), *d_v = (uint32_t *)upload(v, n * 4);
  uint32_t *d_ko = (uint32_t *)upload(NULL, n * 4), *d_vo = (uint32_t *)upload(NULL, n * 4);
  if (pairs) radixSortPairs(d_k, d_v, d_ko, d_vo, n);
  else radixSortKeys(d_k, d_ko, n);
  CK(cudaDeviceSynchronize());
  uint32_t *ko = (uint32_t *)download(d_ko, n * 4), *vo = (uint32_t *)download(d_vo, n * 4);
  for (size_t i = 0; i < n; i++)
    expect(ko[i] == (uint32_t)(both[i] >> 32) && (!pairs || vo[i] == (uint32_t)both[i]), i);
}

/* lineOfSight() of altitudes that climb slowly with noise: each point checked against a serial
 * running maximum of the slopes, computed in float as the kernel does. */
static void runLineOfSight(size_t n) {
  float *alt = (float *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) alt[i] = (float)(rnd() % 1000) + (float)i * 0.25f;
  float *d_alt = (float *)upload(alt, n * 4);
  uint8_t *d_vis = (uint8_t *)upload(NULL, n);
  lineOfSight(d_alt, d_vis, n);
  CK(cudaDeviceSynchronize());
  uint8_t *vis = (uint8_t *)download(d_vis, n);
  float best = -INFINITY;
  expect(vis[0] == 0, 0);
  for (size_t i = 1; i < n; i++) {
    const float slope = (alt[i] - alt[0]) / (float)i;
    expect(vis[i] == (slope > best), i);
    if (slope > best) best = slope;
  }
}

/* CSR with rows of 0 to 15 non-zeros (small integers: every sum is exact in float). */
static void runSpmv(size_t n, int empty) {
  const int32_t cols = 1000;
  int32_t rows = 0, cap = (int32_t)n + 2;
  int32_t *row_ptr = (int32_t *)malloc(((size_t)cap + 1) * 4);
  row_ptr[0] = 0;
  if (empty) rows = (int32_t)n;
  for (int32_t r = 1; r <= rows; r++) row_ptr[r] = 0;
  while (!empty && (size_t)row_ptr[rows] < n && rows < cap) {
    const uint32_t len = rnd() % 16;
    row_ptr[rows + 1] = row_ptr[rows] + (int32_t)((size_t)row_ptr[rows] + len > n ? n - (size_t)row_ptr[rows] : len);
    rows++;
  }
  const int32_t nnz = row_ptr[rows];
  int32_t *col = (int32_t *)malloc((size_t)nnz * 4 + 4);
  float *val = (float *)malloc((size_t)nnz * 4 + 4), *x = (float *)malloc((size_t)cols * 4);
  for (int32_t k = 0; k < nnz; k++) {
    col[k] = (int32_t)(rnd() % (uint32_t)cols);
    val[k] = (float)((int32_t)(rnd() % 17) - 8);
  }
  for (int32_t j = 0; j < cols; j++) x[j] = (float)((int32_t)(rnd() % 17) - 8);
  int32_t *d_rp = (int32_t *)upload(row_ptr, ((size_t)rows + 1) * 4), *d_col = (int32_t *)upload(col, (size_t)nnz * 4);
  float *d_val = (float *)upload(val, (size_t)nnz * 4), *d_x = (float *)upload(x, (size_t)cols * 4);
  float *d_y = (float *)upload(NULL, (size_t)rows * 4);
  CK(cudaMemset(d_y, 0xff, (size_t)rows * 4)); /* NaN: a row left unwritten shows */
  spmvCsr(d_rp, d_col, d_val, d_x, d_y, rows, nnz);
  CK(cudaDeviceSynchronize());
  float *y = (float *)download(d_y, (size_t)rows * 4);
  for (int32_t r = 0; r < rows; r++) {
    float sum = 0.0f;
    for (int32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) sum += val[k] * x[col[k]];
    expect(y[r] == sum, (size_t)r);
  }
}

/* strCompare() of two strings of n and n + 3 bytes that differ in one byte of the last tile. */
static void runStrCompare(size_t n) {
  uint8_t *a = (uint8_t *)malloc(n + 3), *b = (uint8_t *)malloc(n + 3);
  for (size_t i = 0; i < n + 3; i++) a[i] = b[i] = (uint8_t)rnd();
  const size_t at = n > 77 ? n - 77 : n / 2; /* the one difference, in the last tile */
  a[at] = 10;
  b[at] = 200;
  uint8_t *d_a = (uint8_t *)upload(a, n), *d_b = (uint8_t *)upload(b, n + 3);
  const int got = strCompare(d_a, n, d_b, n + 3);
  CK(cudaDeviceSynchronize());
  expect(got == -1, 0);
}

/* Pairs of 1 to 127 bytes (some empty) that differ in one byte, in length, or not at all. */
static void runStrBatch(size_t n, int empty) {
  uint32_t pairs = 0, cap = (uint32_t)n + 1;
  uint32_t *off_a = (uint32_t *)malloc(((size_t)cap + 1) * 4), *off_b = (uint32_t *)malloc(((size_t)cap + 1) * 4);
  uint8_t *a = (uint8_t *)malloc(n + 1), *b = (uint8_t *)malloc(5 * n + 256); /* lb <= la + 4 */
  int32_t *want = (int32_t *)malloc((size_t)cap * 4);
  off_a[0] = off_b[0] = 0;
  while (pairs < cap && (empty ? pairs < (uint32_t)n : off_a[pairs] < n)) {
    const uint32_t kind = rnd() % 4, room = empty ? 0u : (uint32_t)n - off_a[pairs];
    uint32_t la = empty ? 0u : rnd() % 128;
    if (la > room) la = room;
    uint32_t lb = kind == 1 ? la + 1 + rnd() % 4 : kind == 2 && la > 0 ? la - 1 : la;
    if (empty) lb = rnd() % 3;
    uint8_t *pa = a + off_a[pairs], *pb = b + off_b[pairs];
    for (uint32_t i = 0; i < la; i++) pa[i] = (uint8_t)rnd();
    for (uint32_t i = 0; i < lb; i++) pb[i] = i < la ? pa[i] : (uint8_t)rnd();
    int32_t w = la < lb ? -1 : la > lb ? 1 : 0;
    if (kind == 3 && la > 0 && lb > 0) { /* one byte differs */
      const uint32_t at = rnd() % (la < lb ? la : lb);
      pb[at] = (uint8_t)(pa[at] + 1 + rnd() % 255);
      w = pa[at] < pb[at] ? -1 : 1;
    }
    want[pairs] = w;
    off_a[pairs + 1] = off_a[pairs] + la;
    off_b[pairs + 1] = off_b[pairs] + lb;
    pairs++;
  }
  uint8_t *d_a = (uint8_t *)upload(a, off_a[pairs]), *d_b = (uint8_t *)upload(b, off_b[pairs]);
  uint32_t *d_oa = (uint32_t *)upload(off_a, ((size_t)pairs + 1) * 4);
  uint32_t *d_ob = (uint32_t *)upload(off_b, ((size_t)pairs + 1) * 4);
  int32_t *d_res = (int32_t *)upload(NULL, (size_t)pairs * 4);
  strCompareBatch(d_a, d_oa, d_b, d_ob, d_res, pairs);
  CK(cudaDeviceSynchronize());
  int32_t *res = (int32_t *)download(d_res, (size_t)pairs * 4);
  for (uint32_t p = 0; p < pairs; p++) expect(res[p] == want[p], p);
}

/* appScanExc() of counts 0-15. */
static void runAppScanExc(size_t n) {
  uint32_t *h = (uint32_t *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) h[i] = rnd() % 16;
  uint32_t *d_in = (uint32_t *)upload(h, n * 4), *d_out = (uint32_t *)upload(NULL, n * 4);
  appScanExc(d_in, d_out, n);
  CK(cudaDeviceSynchronize());
  uint32_t *out = (uint32_t *)download(d_out, n * 4), acc = 0;
  for (size_t i = 0; i < n; i++) {
    expect(out[i] == acc, i);
    acc += h[i];
  }
}

/* firstDiffApply() of codes -1, 0, +1. */
static void runFirstDiff(size_t n) {
  int32_t *a = (int32_t *)malloc(n * 4), *b = (int32_t *)malloc(n * 4);
  for (size_t i = 0; i < n; i++) {
    a[i] = (int32_t)(rnd() % 3) - 1;
    b[i] = (int32_t)(rnd() % 3) - 1;
  }
  int32_t *d_a = (int32_t *)upload(a, n * 4), *d_b = (int32_t *)upload(b, n * 4);
  int32_t *d_ab = (int32_t *)upload(NULL, n * 4), *d_ba = (int32_t *)upload(NULL, n * 4);
  firstDiffApply(d_a, d_b, d_ab, d_ba, n);
  CK(cudaDeviceSynchronize());
  int32_t *ab = (int32_t *)download(d_ab, n * 4), *ba = (int32_t *)download(d_ba, n * 4);
  for (size_t i = 0; i < n; i++) expect(ab[i] == (a[i] != 0 ? a[i] : b[i]) && ba[i] == (b[i] != 0 ? b[i] : a[i]), i);
}

static const char *const CASES[] = {"app_scan_exc", "compact_scan", "compact_single", "partition",
                                    "partition_single", "split",
                                    "radix_keys", "radix_pairs", "line_of_sight", "spmv", "spmv_empty",
                                    "str_compare", "str_batch", "str_batch_empty", "first_diff"};

int main(int argc, char **argv) {
  const char *name = NULL;
  for (size_t k = 0; argc > 1 && k < sizeof CASES / sizeof CASES[0]; k++)
    if (strcmp(argv[1], CASES[k]) == 0) name = CASES[k];
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 0;
  if (!name || n == 0 || n > (1u << 30)) {
    fprintf(stderr, "usage: %s CASE N: CASE one of", argv[0]);
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) fprintf(stderr, " %s", CASES[k]);
    fprintf(stderr, "; N from 1 to 2^30\n");
    return 2;
  }
  if (strcmp(name, "app_scan_exc") == 0) runAppScanExc(n);
  else if (strncmp(name, "radix_", 6) == 0) runRadix(n, strcmp(name, "radix_pairs") == 0);
  else if (strcmp(name, "line_of_sight") == 0) runLineOfSight(n);
  else if (strncmp(name, "spmv", 4) == 0) runSpmv(n, strcmp(name, "spmv_empty") == 0);
  else if (strcmp(name, "str_compare") == 0) runStrCompare(n);
  else if (strncmp(name, "str_batch", 9) == 0) runStrBatch(n, strcmp(name, "str_batch_empty") == 0);
  else if (strcmp(name, "first_diff") == 0) runFirstDiff(n);
  else runSelect(name, n);
  printf("PROFILE case=%s n=%zu tiles=%zu wrong=%zu\n", name, n, (n + APP_TILE - 1) / APP_TILE, g_wrong);
  if (g_wrong)
    fprintf(stderr, "apps_profile: %s(n=%zu): first mismatch at [%zu] (%zu mismatches)\n", name, n, g_first,
            g_wrong);
  appRelease();
  return g_wrong ? 1 : 0; /* the host and device buffers go with the process */
}
