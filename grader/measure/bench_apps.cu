/**
 * @file bench_apps.cu
 * @brief `make bench`, lab 07: the applications of scan beside the library a user would pick
 *        (CUB's select, partition and radix sort, cuSPARSE's SpMV) and the device copy.
 *
 * bench.py builds this file with lab 07's solution and reads what it prints, as for bench.cu:
 * `DEVICE <json>`, `PLAN <count>`, `BEGIN <variant>\t<log2 n>`, `RESULT <json>`.
 *
 * Bytes counted (read plus written), as the lab's tests count them:
 * - compaction and CUB's `Select::If`: 4n read and 4 bytes for each kept element written
 *   (half kept: 6 bytes per element); partition and CUB's `Partition::If`: 8n;
 * - line of sight: 4n read, n written (5 bytes per point);
 * - the sparse product (and cuSPARSE's): values and column indices once (8 bytes per non-zero),
 *   the row offsets, x once and y (4 bytes per row each);
 * - radix sort: 8n for keys, 16n for pairs (what one pass would move), for ours and CUB's;
 *   ours is checked sorted (keys) or equal to CUB's stable order (pairs);
 * - string comparison: both strings (2 bytes per byte of a), and for the batch also both
 *   offsets and the result of each pair (12 bytes a pair); the pairs are 1 to 127 bytes long
 *   and differ in one byte at a random place. No library compares strings on a GPU.
 * "x lib" is the variant's speed over its library's in the same run (1 for the libraries).
 * Every output is checked against the library's before it is timed.
 *
 *     bench_apps [--min-log2 20] [--max-log2 28] [--reps 25] [--only TEXT|TEXT...]
 */
#include <cub/cub.cuh>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "apps.h"

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "bench_apps: %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)
#define CS(call)                                                                                   \
  do {                                                                                             \
    cusparseStatus_t s_ = (call);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      fprintf(stderr, "bench_apps: %s at %s:%d: status %d\n", #call, __FILE__, __LINE__, (int)s_); \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* CUDA_CHECK in the solution's file (grader/trusted/include/cuda_check.h) ends up here. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "bench_apps: %s at %s:%d: %s\n", expr, file, line, cudaGetErrorString(err));
  exit(1);
}

/* ---- the data of one size ---------------------------------------------------------------- */

static size_t g_n;                 /* elements (non-zeros for the sparse product) */
static int32_t *d_in, *d_out, *d_ref, *d_num;
static float *d_alt;
static uint8_t *d_vis, *d_vis_ref;
static uint32_t *d_keys, *d_keys_out, *d_keys_ref, *d_vals, *d_vals_out, *d_vals_ref;
static int32_t *d_row_ptr, *d_col, g_rows, g_nnz;
static float *d_val, *d_x, *d_y, *d_y_ref;
static void *d_temp;
static size_t g_temp_bytes;
static cusparseHandle_t g_sp;

static void *temp(size_t bytes) {
  if (bytes > g_temp_bytes) {
    if (d_temp) CK(cudaFree(d_temp));
    CK(cudaMalloc(&d_temp, bytes));
    g_temp_bytes = bytes;
  }
  return d_temp;
}

struct Keep {
  __host__ __device__ bool operator()(int32_t x) const { return x > 499; }
};

/* ---- the variants ------------------------------------------------------------------------ */

static size_t g_kept; /* what the last selection returned */

static void runCopy() { CK(cudaMemcpyAsync(d_out, d_in, g_n * 3 / 4 * sizeof(int32_t), cudaMemcpyDeviceToDevice)); }
static void runCubSelect() {
  size_t b = 0;
  CK(cub::DeviceSelect::If(nullptr, b, d_in, d_ref, d_num, (int64_t)g_n, Keep()));
  CK(cub::DeviceSelect::If(temp(b), b, d_in, d_ref, d_num, (int64_t)g_n, Keep()));
}
static void runCubPartition() {
  size_t b = 0;
  CK(cub::DevicePartition::If(nullptr, b, d_in, d_ref, d_num, (int64_t)g_n, Keep()));
  CK(cub::DevicePartition::If(temp(b), b, d_in, d_ref, d_num, (int64_t)g_n, Keep()));
}
static unsigned long long *d_kept; /* where compactSinglePassAsync() leaves its count */
static void runCompactSingle() { g_kept = compactSinglePass(d_in, d_out, g_n, 499); }
static void runCompactAsync() { compactSinglePassAsync(d_in, d_out, g_n, 499, d_kept); }
static void runCompactScan() { g_kept = compactScan(d_in, d_out, g_n, 499); }
static void runPartition() { g_kept = partitionStable(d_in, d_out, g_n, 499); }
static void runPartitionAsync() { partitionSinglePassAsync(d_in, d_out, g_n, 499, d_kept); }
static void runPartitionStableAsync() { partitionStableAsync(d_in, d_out, g_n, 499, d_kept); }
static void runSight() { lineOfSight(d_alt, d_vis, g_n); }
static void runCubSort() {
  size_t b = 0;
  CK(cub::DeviceRadixSort::SortKeys(nullptr, b, d_keys, d_keys_ref, (int64_t)g_n));
  CK(cub::DeviceRadixSort::SortKeys(temp(b), b, d_keys, d_keys_ref, (int64_t)g_n));
}
static void runCubSortPairs() {
  size_t b = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, b, d_keys, d_keys_ref, d_vals, d_vals_ref, (int64_t)g_n));
  CK(cub::DeviceRadixSort::SortPairs(temp(b), b, d_keys, d_keys_ref, d_vals, d_vals_ref, (int64_t)g_n));
}
static void runSortKeys() { radixSortKeys(d_keys, d_keys_out, g_n); }
static void runSortPairs() { radixSortPairs(d_keys, d_vals, d_keys_out, d_vals_out, g_n); }
static void runSpmv() { spmvCsr(d_row_ptr, d_col, d_val, d_x, d_y, g_rows, g_nnz); }

/* Strings of n bytes: a; c equal to a but for its last byte (one pair); b, a batch of pairs of
 * 1 to 127 bytes back to back, each equal to its string of a but for one byte at a random place. */
static uint8_t *d_sa, *d_sb, *d_sc;
static uint32_t *d_off_a, *d_off_b, g_pairs;
static int32_t *d_res, g_str_one, g_str_one_ref;
static std::vector<int32_t> g_res_ref;
static void runStrOne() { g_str_one = strCompare(d_sa, g_n, d_sc, g_n); }
static void runStrBatch() { strCompareBatch(d_sa, d_off_a, d_sb, d_off_b, d_res, g_pairs); }

static cusparseSpMatDescr_t g_mat;
static cusparseDnVecDescr_t g_vx, g_vy;
static void *g_sp_buf;
static void runCusparse() {
  const float one = 1.0f, zero = 0.0f;
  CS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g_mat, g_vx, &zero, g_vy, CUDA_R_32F,
                  CUSPARSE_SPMV_ALG_DEFAULT, g_sp_buf));
}

enum Kind { SELECT, PARTITION, SIGHT, SORT, SORT_PAIRS, SPMV_UNIFORM, SPMV_POWER, STR_ONE, STR_BATCH, COPY };
struct Variant {
  const char *name;
  const char *lab;  /* "07", or "-" for a yardstick */
  void (*run)();
  Kind kind;
  const char *lib;  /* the name of the library variant it is compared with (NULL: none) */
};
static const char *const CUB_SELECT = "CUB DeviceSelect::If (half kept)";
static const char *const CUB_PARTITION = "CUB DevicePartition::If";
static const char *const CUB_SORT_KEYS = "CUB DeviceRadixSort::SortKeys";
static const char *const CUB_SORT_PAIRS = "CUB DeviceRadixSort::SortPairs";
static const char *const SPARSE_UNIFORM = "cuSPARSE SpMV, uniform rows";
static const char *const SPARSE_POWER = "cuSPARSE SpMV, power-law rows";
static const Variant VARIANTS[] = {
    {"device copy (cudaMemcpy)", "-", runCopy, COPY, NULL},
    {CUB_SELECT, "-", runCubSelect, SELECT, NULL},
    {"07 compaction, single pass, count left on the device", "07", runCompactAsync, SELECT, CUB_SELECT},
    {"07 compaction, single pass, count read by the host", "07", runCompactSingle, SELECT, CUB_SELECT},
    {"07 compaction, flags + scan + scatter", "07", runCompactScan, SELECT, CUB_SELECT},
    {CUB_PARTITION, "-", runCubPartition, PARTITION, NULL},
    {"07 partition, single pass, count left on the device", "07", runPartitionAsync, PARTITION, CUB_PARTITION},
    {"07 stable partition (count + one pass), count left on the device", "07", runPartitionStableAsync, PARTITION,
     CUB_PARTITION},
    {"07 stable partition (count + one pass), count read by the host", "07", runPartition, PARTITION, CUB_PARTITION},
    {"07 line of sight", "07", runSight, SIGHT, NULL},
    {CUB_SORT_KEYS, "-", runCubSort, SORT, NULL},
    {"07 radix sort, keys (4 passes of 8 bits)", "07", runSortKeys, SORT, CUB_SORT_KEYS},
    {CUB_SORT_PAIRS, "-", runCubSortPairs, SORT_PAIRS, NULL},
    {"07 radix sort, pairs", "07", runSortPairs, SORT_PAIRS, CUB_SORT_PAIRS},
    {SPARSE_UNIFORM, "-", runCusparse, SPMV_UNIFORM, NULL},
    {"07 SpMV (segmented sum), uniform rows", "07", runSpmv, SPMV_UNIFORM, SPARSE_UNIFORM},
    {SPARSE_POWER, "-", runCusparse, SPMV_POWER, NULL},
    {"07 SpMV (segmented sum), power-law rows", "07", runSpmv, SPMV_POWER, SPARSE_POWER},
    {"07 string comparison, one pair", "07", runStrOne, STR_ONE, NULL},
    {"07 string comparison, batch (mean 64 bytes)", "07", runStrBatch, STR_BATCH, NULL},
};
static const int NVARIANTS = (int)(sizeof VARIANTS / sizeof VARIANTS[0]);

/* The index of the library variant v is compared with (-1: none). */
static int libOf(const Variant &v) {
  for (int k = 0; v.lib && k < NVARIANTS; k++)
    if (!strcmp(VARIANTS[k].name, v.lib)) return k;
  return -1;
}

/* ---- inputs ------------------------------------------------------------------------------ */

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A CSR matrix with rows = n / 32 and about 32 non-zeros a row (uniform: 0..64; power: a
 * Pareto tail), random columns, values in [-1, 1); x in [-1, 1). */
static void makeMatrix(size_t n, bool power, uint64_t seed) {
  g_rows = (int32_t)(n / 32);
  std::vector<int32_t> ptr((size_t)g_rows + 1, 0);
  for (int32_t r = 0; r < g_rows; r++) {
    const uint64_t h = mix(seed * 7919 + (uint64_t)r);
    int32_t len;
    if (power) {
      const double u = ((double)(h >> 11) + 1.0) / 9007199254740993.0;
      len = (int32_t)std::min(16.0 / std::sqrt(u), 2048.0);
    } else {
      len = (int32_t)(h % 65);
    }
    ptr[r + 1] = ptr[r] + len;
  }
  g_nnz = ptr[g_rows];
  std::vector<int32_t> col((size_t)g_nnz);
  std::vector<float> val((size_t)g_nnz), x((size_t)g_rows);
  for (int32_t k = 0; k < g_nnz; k++) {
    const uint64_t h = mix(seed ^ (0xC01ull << 40) ^ (uint64_t)k);
    col[k] = (int32_t)(h % (uint64_t)g_rows);
    val[k] = (float)((double)(h >> 40) / 16777216.0 * 2.0 - 1.0);
  }
  for (int32_t r = 0; r < g_rows; r++) x[r] = (float)((double)(mix(seed + 3 + (uint64_t)r) >> 40) / 16777216.0 * 2.0 - 1.0);
  CK(cudaMemcpy(d_row_ptr, ptr.data(), ptr.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_col, col.data(), col.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_val, val.data(), val.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_x, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  if (g_mat) CS(cusparseDestroySpMat(g_mat));
  if (g_vx) CS(cusparseDestroyDnVec(g_vx));
  if (g_vy) CS(cusparseDestroyDnVec(g_vy));
  CS(cusparseCreateCsr(&g_mat, g_rows, g_rows, g_nnz, d_row_ptr, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CS(cusparseCreateDnVec(&g_vx, g_rows, d_x, CUDA_R_32F));
  CS(cusparseCreateDnVec(&g_vy, g_rows, d_y_ref, CUDA_R_32F));
  const float one = 1.0f, zero = 0.0f;
  size_t b = 0;
  CS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g_mat, g_vx, &zero, g_vy, CUDA_R_32F,
                             CUSPARSE_SPMV_ALG_DEFAULT, &b));
  if (g_sp_buf) CK(cudaFree(g_sp_buf));
  CK(cudaMalloc(&g_sp_buf, b ? b : 1));
}

static void makeStrings(size_t n, uint64_t seed) {
  std::vector<uint8_t> a(n), b;
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t h = mix(seed + i);
    for (size_t j = 0; j < 8 && i + j < n; j++) a[i + j] = (uint8_t)(h >> (8 * j));
  }
  b = a;
  std::vector<uint32_t> off(1, 0);
  g_res_ref.clear();
  while (off.back() < n) {
    const uint64_t h = mix(seed ^ ((uint64_t)off.size() << 32));
    const uint32_t len = (uint32_t)std::min<uint64_t>(1 + h % 127, n - off.back());
    const uint32_t at = off.back() + (uint32_t)((h >> 8) % len);
    const uint8_t delta = (uint8_t)(1 + (h >> 20) % 255);
    b[at] = (uint8_t)(a[at] + delta);
    g_res_ref.push_back(a[at] < b[at] ? -1 : 1);
    off.push_back(off.back() + len);
  }
  g_pairs = (uint32_t)(off.size() - 1);
  CK(cudaMemcpy(d_sa, a.data(), n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_sb, b.data(), n, cudaMemcpyHostToDevice));
  a[n - 1] ^= 0x80; /* c: a with its last byte changed, the sign of the difference known */
  g_str_one_ref = a[n - 1] & 0x80 ? -1 : 1; /* strCompare(a, c): c greater where its bit is set */
  CK(cudaMemcpy(d_sc, a.data(), n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_off_a, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_off_b, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
}

static __global__ void fillKernel(int32_t *a, float *alt, uint32_t *keys, uint32_t *vals, size_t n, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    a[i] = (int32_t)(x % 1000);
    alt[i] = 1.0f + (float)((x >> 20) & 0xFFFFF) / 1048576.0f;
    keys[i] = (uint32_t)(x >> 32);
    vals[i] = (uint32_t)i;
  }
}

static double medianMs(void (*run)(), int warm, int reps) {
  for (int i = 0; i < warm; i++) run();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(ev[2 * i], 0));
    run();
    CK(cudaEventRecord(ev[2 * i + 1], 0));
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; i++) {
    float t = 0;
    CK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
    ms[i] = t;
  }
  for (auto &e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

/* Bytes a variant of this kind counts at this size. */
static double counted(Kind k) {
  switch (k) {
    case SELECT: return 4.0 * g_n + 4.0 * g_kept;
    case PARTITION: return 8.0 * g_n;
    case SIGHT: return 5.0 * g_n;
    case SORT: return 8.0 * g_n;
    case SORT_PAIRS: return 16.0 * g_n;
    case SPMV_UNIFORM:
    case SPMV_POWER: return 8.0 * g_nnz + 4.0 * (g_rows + 1) + 8.0 * g_rows;
    case STR_ONE: return 2.0 * g_n;
    case STR_BATCH: return 2.0 * g_n + 12.0 * g_pairs; /* both strings, both offsets, a result */
    case COPY: return 2.0 * (double)(g_n * 3 / 4 * sizeof(int32_t));
  }
  return 1;
}

/* Checks the variant's last output against the library's; returns the number of differences. */
static size_t check(const Variant &v) {
  CK(cudaDeviceSynchronize());
  if (v.run == runCompactAsync || v.run == runPartitionAsync || v.run == runPartitionStableAsync) {
    unsigned long long kept = 0;
    CK(cudaMemcpy(&kept, d_kept, sizeof kept, cudaMemcpyDeviceToHost));
    g_kept = (size_t)kept;
  }
  if (v.kind == SELECT || v.kind == PARTITION) {
    int32_t num = 0;
    CK(cudaMemcpy(&num, d_num, 4, cudaMemcpyDeviceToHost));
    const size_t len = v.kind == SELECT ? (size_t)num : g_n;
    std::vector<int32_t> a(len), b(len);
    CK(cudaMemcpy(a.data(), d_out, len * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), d_ref, len * 4, cudaMemcpyDeviceToHost));
    /* CUB: the rest in reverse order, as the single pass writes it; the stable one keeps the order */
    if (v.kind == PARTITION && v.run != runPartitionAsync) std::reverse(b.begin() + num, b.end());
    size_t bad = g_kept != (size_t)num;
    for (size_t i = 0; i < len; i++) bad += a[i] != b[i];
    return bad;
  }
  if (v.kind == SORT || v.kind == SORT_PAIRS) { /* against CUB's sort of the same keys (both stable) */
    if (v.kind == SORT) runCubSort();
    else runCubSortPairs();
    CK(cudaDeviceSynchronize());
    std::vector<uint32_t> a(g_n), b(g_n);
    size_t bad = 0;
    CK(cudaMemcpy(a.data(), d_keys_out, g_n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), d_keys_ref, g_n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < g_n; i++) bad += a[i] != b[i];
    if (v.kind == SORT_PAIRS) {
      CK(cudaMemcpy(a.data(), d_vals_out, g_n * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), d_vals_ref, g_n * 4, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < g_n; i++) bad += a[i] != b[i];
    }
    return bad;
  }
  if (v.kind == SIGHT) {
    std::vector<float> alt(g_n);
    std::vector<uint8_t> vis(g_n);
    CK(cudaMemcpy(alt.data(), d_alt, g_n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vis.data(), d_vis, g_n, cudaMemcpyDeviceToHost));
    float best = -INFINITY;
    size_t bad = 0;
    for (size_t i = 0; i < g_n; i++) {
      const float s = i ? (alt[i] - alt[0]) / (float)i : -INFINITY;
      bad += vis[i] != (s > best);
      best = std::max(best, s);
    }
    return bad;
  }
  if (v.kind == SPMV_UNIFORM || v.kind == SPMV_POWER) {
    std::vector<float> a((size_t)g_rows), b((size_t)g_rows);
    CK(cudaMemcpy(a.data(), d_y, a.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), d_y_ref, b.size() * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); i++) bad += !(std::fabs(a[i] - b[i]) <= 1e-3f + 1e-4f * std::fabs(b[i]));
    return bad;
  }
  if (v.kind == STR_ONE) return g_str_one != g_str_one_ref;
  if (v.kind == STR_BATCH) {
    std::vector<int32_t> r(g_pairs);
    CK(cudaMemcpy(r.data(), d_res, (size_t)g_pairs * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (uint32_t p = 0; p < g_pairs; p++) bad += r[p] != g_res_ref[p];
    return bad;
  }
  return 0;
}

/* Whether @p name contains one of the texts of @p only, separated by '|' (as bench.cu reads it). */
static bool matches(const char *name, const char *only) {
  std::string all(only);
  size_t from = 0;
  for (;;) {
    const size_t bar = all.find('|', from);
    const std::string part = all.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
    if (!part.empty() && strstr(name, part.c_str())) return true;
    if (bar == std::string::npos) return false;
    from = bar + 1;
  }
}

int main(int argc, char **argv) {
  int min_log2 = 20, max_log2 = 28, reps = 25;
  const char *only = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--min-log2") && i + 1 < argc) min_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc) max_log2 = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, atoi(argv[++i]));
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--extra-log2") && i + 1 < argc) ++i; /* bench.cu's option: ignored */
    else {
      fprintf(stderr, "usage: bench_apps [--min-log2 N] [--max-log2 N] [--reps N] [--only TEXT]\n");
      return 2;
    }
  }
  for (int k = 0; k < NVARIANTS; k++) /* a library is timed before what is compared with it */
    if (VARIANTS[k].lib && (libOf(VARIANTS[k]) < 0 || libOf(VARIANTS[k]) > k)) {
      fprintf(stderr, "bench_apps: variant '%s': its library '%s' is not a variant listed before it\n",
              VARIANTS[k].name, VARIANTS[k].lib);
      return 2;
    }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  printf("DEVICE {\"name\": \"%s\", \"sms\": %d, \"l2_mb\": %d, \"memory_gb\": %.1f, \"reps\": %d}\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize >> 20, total_b / 1e9, reps);
  /* the copy always, the variants asked for, and the library each of them is compared with */
  std::vector<bool> want(NVARIANTS, false);
  for (int k = 0; k < NVARIANTS; k++)
    if (!only || k == 0 || matches(VARIANTS[k].name, only)) {
      want[k] = true;
      if (libOf(VARIANTS[k]) >= 0) want[libOf(VARIANTS[k])] = true;
    }
  std::vector<int> chosen;
  for (int k = 0; k < NVARIANTS; k++)
    if (want[k]) chosen.push_back(k);
  printf("PLAN %d\n", (int)chosen.size() * (max_log2 - min_log2 + 1));
  fflush(stdout);
  CS(cusparseCreate(&g_sp));
  const size_t nmax = (size_t)1 << max_log2;
  /* the largest power-law matrix has about 1.1 times the non-zeros of the uniform one */
  const size_t nzmax = nmax + nmax / 2;
  CK(cudaMalloc(&d_in, nmax * 4));
  CK(cudaMalloc(&d_out, nmax * 4));
  CK(cudaMalloc(&d_ref, nmax * 4));
  CK(cudaMalloc(&d_num, 8));
  CK(cudaMalloc(&d_kept, sizeof *d_kept));
  CK(cudaMalloc(&d_alt, nmax * 4));
  CK(cudaMalloc(&d_vis, nmax));
  CK(cudaMalloc(&d_vis_ref, nmax));
  CK(cudaMalloc(&d_keys, nmax * 4));
  CK(cudaMalloc(&d_keys_out, nmax * 4));
  CK(cudaMalloc(&d_keys_ref, nmax * 4));
  CK(cudaMalloc(&d_vals, nmax * 4));
  CK(cudaMalloc(&d_vals_out, nmax * 4));
  CK(cudaMalloc(&d_vals_ref, nmax * 4));
  CK(cudaMalloc(&d_row_ptr, (nmax / 32 + 1) * 4));
  CK(cudaMalloc(&d_col, nzmax * 4));
  CK(cudaMalloc(&d_val, nzmax * 4));
  CK(cudaMalloc(&d_x, nmax / 32 * 4 + 4));
  CK(cudaMalloc(&d_y, nmax / 32 * 4 + 4));
  CK(cudaMalloc(&d_y_ref, nmax / 32 * 4 + 4));
  CK(cudaMalloc(&d_sa, nmax));
  CK(cudaMalloc(&d_sb, nmax));
  CK(cudaMalloc(&d_sc, nmax));
  CK(cudaMalloc(&d_off_a, (nmax + 1) * 4)); /* pairs are at least a byte long */
  CK(cudaMalloc(&d_off_b, (nmax + 1) * 4));
  CK(cudaMalloc(&d_res, nmax * 4));
  for (int lg = min_log2; lg <= max_log2; lg++) {
    g_n = (size_t)1 << lg;
    fillKernel<<<2048, 256>>>(d_in, d_alt, d_keys, d_vals, g_n, 0xA991ull + (unsigned)lg);
    CK(cudaGetLastError());
    int shape = -1; /* the matrix in memory: 0 uniform, 1 power */
    bool strings = false;
    double t_copy = 0, t_lib[NVARIANTS] = {0};
    for (int k : chosen) {
      const Variant &v = VARIANTS[k];
      if ((v.kind == SPMV_UNIFORM || v.kind == SPMV_POWER) && shape != (v.kind == SPMV_POWER)) {
        shape = v.kind == SPMV_POWER;
        if ((size_t)1 << lg > nmax) continue;
        makeMatrix(g_n, shape == 1, 0x5BA75Eull + (unsigned)lg);
        if ((size_t)g_nnz > nzmax) {
          fprintf(stderr, "bench_apps: the matrix has %d non-zeros, more than the %zu reserved\n", g_nnz, nzmax);
          return 1;
        }
        runCusparse(); /* the reference y */
      }
      if ((v.kind == STR_ONE || v.kind == STR_BATCH) && !strings) {
        makeStrings(g_n, 0x57123ull + (unsigned)lg);
        strings = true;
      }
      printf("BEGIN %s\t%d\n", v.name, lg);
      fflush(stdout);
      if (v.kind == SELECT && v.lab[0] == '-') {
        runCubSelect(); /* the reference and the count */
        int32_t num = 0;
        CK(cudaMemcpy(&num, d_num, 4, cudaMemcpyDeviceToHost));
        g_kept = (size_t)num;
      }
      if (v.kind == PARTITION && v.lab[0] == '-') runCubPartition();
      CK(cudaMemset(d_out, 0xEF, g_n * 4));
      v.run();
      const size_t bad = v.lab[0] == '-' ? 0 : check(v);
      const double ms = medianMs(v.run, 3, reps);
      if (k == 0) t_copy = ms;
      if (v.lab[0] == '-') t_lib[k] = ms;
      const double bytes = counted(v.kind);
      const double copy_rate = counted(COPY) / t_copy;
      const double frac = bytes / ms / copy_rate;
      const int lib = libOf(v);
      const double x_lib = lib >= 0 && t_lib[lib] > 0 ? t_lib[lib] / ms : 1.0;
      const size_t elems = v.kind == SPMV_UNIFORM || v.kind == SPMV_POWER ? (size_t)g_nnz : g_n;
      printf("RESULT {\"variant\": \"%s\", \"lab\": \"%s\", \"log2n\": %d, \"n\": %zu, \"ms\": %.6f, \"gbps\": %.3f, "
             "\"frac_copy\": %.6f, \"x_cub\": %.6f, \"bytes_per_elem\": %.3f, \"check\": \"%s\", \"ok\": %s, "
             "\"bad\": %zu}\n",
             v.name, v.lab, lg, elems, ms, bytes / ms * 1e-6, frac, x_lib, bytes / (double)elems,
             v.lab[0] == '-' ? "library" : "against the library", bad ? "false" : "true", bad);
      fflush(stdout);
    }
  }
  CS(cusparseDestroy(g_sp));
  return 0;
}
