/**
 * @file tune_segscan.cu
 * @brief Lab 06's measurements: the single-pass segmented scan of the solution against the
 *        device copy, CUB's DeviceScan::InclusiveSumByKey, CUB's generic InclusiveScan over
 *        (flag, value) pairs with a segmented operator, and Thrust's inclusive_scan_by_key, at
 *        several mean segment lengths; and the warp operator form beside the direct form.
 *
 * Built with the solution file, whose tile shape can be changed with -DSS_GLOBAL_THREADS,
 * -DSS_GLOBAL_ITEMS and -DSS_GLOBAL_MIN_BLOCKS (run_tune.sh builds one binary per shape):
 *
 *     nvcc -O3 -std=c++17 -arch=sm_90 -Igrader/trusted/include solutions/06-segmented-scan/seg_scan.cu \
 *          labs/06-segmented-scan/bench/tune_segscan.cu -o tune
 *     tune [--log2 26,28] [--means 1,32,1000,1048576] [--reps 20] [--ours-only]
 *
 * Every output is checked against CUB's InclusiveSumByKey (keys: the segment number of each
 * element, the inclusive sum of the flags) before it is timed. Times are medians of `reps`
 * calls, each between its own pair of CUDA events, after 3 untimed calls. Bandwidth figures are
 * fractions of the device copy's (cudaMemcpyAsync, device to device, bytes read + written)
 * measured in the same process: `frac9` counts 9 bytes per element (4 value + 1 flag in, 4 out)
 * for every variant; `frac_own` counts what each one must move (12 for by-key with int keys).
 * One line per measurement: `RESULT {json}`.
 */
#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "seg_scan.h"

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "tune: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

/* The solution checks its CUDA calls with the harness's function; supply it. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "tune: %s:%d: CUDA error %s in '%s'\n", file, line, cudaGetErrorName(err), expr);
  exit(3);
}

static __device__ unsigned long long mix(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Values in [-1000, 1000]; flags: 1 in `mean` elements a head (byte 1); keys: 1 where flagged. */
__global__ void fillKernel(int *v, uint8_t *f, int *keys, size_t n, unsigned long long mean, unsigned long long seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const unsigned long long z = mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    v[i] = (int)(z % 2001u) - 1000;
    const int head = mean <= 1 || (z >> 20) % mean == 0 || i == 0;
    f[i] = (uint8_t)head;
    keys[i] = head;
  }
}

/* Counts the elements of out that differ from ref (exclusive: ref - in). */
__global__ void countKernel(const int *in, const int *ref, const int *out, size_t n, int exclusive,
                            unsigned long long *bad) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    c += out[i] != (exclusive ? ref[i] - in[i] : ref[i]);
  if (c) atomicAdd(bad, c);
}

/* Warp-tile reference: each run of 32 elements scanned on its own, segmented (blocks of 256). */
__global__ void warpTilesCheck(const int *in, const uint8_t *f, const int *out, size_t n, unsigned long long *bad) {
  unsigned long long c = 0;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t * 32 < n; t += (size_t)gridDim.x * blockDim.x) {
    int run = 0;
    for (size_t i = t * 32; i < n && i < t * 32 + 32; i++) {
      run = (f[i] || i == t * 32) ? in[i] : run + in[i];
      c += out[i] != run;
    }
  }
  if (c) atomicAdd(bad, c);
}

struct Pair {
  int f, v;
};
struct SegAdd {
  __host__ __device__ Pair operator()(Pair a, Pair b) const {
    Pair c;
    c.f = a.f | b.f;
    c.v = b.f ? b.v : a.v + b.v;
    return c;
  }
};
struct ToPair {
  __host__ __device__ Pair operator()(const thrust::tuple<uint8_t, int> &t) const {
    Pair p;
    p.f = thrust::get<0>(t);
    p.v = thrust::get<1>(t);
    return p;
  }
};
struct TakeValue {
  __host__ __device__ int operator()(const Pair &p) const { return p.v; }
};

struct Bufs {
  int *in, *out, *ref, *keys;
  uint8_t *f;
  size_t n;
  void *temp;
  size_t temp_bytes;
};

static void reserve(Bufs &b, size_t bytes) {
  if (bytes <= b.temp_bytes) return;
  if (b.temp) CK(cudaFree(b.temp));
  CK(cudaMalloc(&b.temp, bytes));
  b.temp_bytes = bytes;
}

typedef void (*run_fn)(Bufs &b);
static void runCopy(Bufs &b) { CK(cudaMemcpyAsync(b.out, b.in, b.n * 4, cudaMemcpyDeviceToDevice, 0)); }
static void runOursInc(Bufs &b) { segScanIncGlobal<int32_t, Add>(b.in, b.f, b.out, b.n, Add()); }
static void runOursExc(Bufs &b) { segScanExcGlobal<int32_t, Add>(b.in, b.f, b.out, b.n, Add(), 0); }
static void runCubByKey(Bufs &b) {
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, b.keys, b.in, b.out, (int64_t)b.n));
  reserve(b, bytes);
  CK(cub::DeviceScan::InclusiveSumByKey(b.temp, bytes, b.keys, b.in, b.out, (int64_t)b.n));
}
static void runCubPairs(Bufs &b) {
  auto first = thrust::make_transform_iterator(thrust::make_zip_iterator(thrust::make_tuple(b.f, b.in)), ToPair());
  auto dst = thrust::make_transform_output_iterator(b.out, TakeValue());
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveScan(nullptr, bytes, first, dst, SegAdd(), (int64_t)b.n));
  reserve(b, bytes);
  CK(cub::DeviceScan::InclusiveScan(b.temp, bytes, first, dst, SegAdd(), (int64_t)b.n));
}
static void runThrustByKey(Bufs &b) { thrust::inclusive_scan_by_key(thrust::device, b.keys, b.keys + b.n, b.in, b.out); }
static void runWarpOp(Bufs &b) {
  CK((segScanBatch<int32_t, Add>(SEG_WARP_OP_INC, b.in, b.f, b.out, b.n, 256, Add(), 0)));
}
static void runWarpDirect(Bufs &b) {
  CK((segScanBatch<int32_t, Add>(SEG_WARP_INC, b.in, b.f, b.out, b.n, 256, Add(), 0)));
}

static double medianMs(run_fn fn, Bufs &b, int reps) {
  for (int i = 0; i < 3; i++) fn(b);
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(ev[2 * i], 0));
    fn(b);
    CK(cudaEventRecord(ev[2 * i + 1], 0));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
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

static std::vector<long long> parseList(const char *s) {
  std::vector<long long> out;
  for (const char *p = s; *p;) {
    out.push_back(atoll(p));
    while (*p && *p != ',') p++;
    if (*p == ',') p++;
  }
  return out;
}

int main(int argc, char **argv) {
  std::vector<long long> log2s = parseList("26,28"), means = parseList("1,32,1000,1048576");
  int reps = 20;
  bool ours_only = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--log2") && i + 1 < argc) log2s = parseList(argv[++i]);
    else if (!strcmp(argv[i], "--means") && i + 1 < argc) means = parseList(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ours-only")) ours_only = true;
    else {
      fprintf(stderr, "usage: %s [--log2 26,28] [--means 1,32,1000,1048576] [--reps 20] [--ours-only]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("DEVICE {\"name\": \"%s\", \"sms\": %d, \"l2_mb\": %d, \"threads\": %d, \"items\": %d, \"tile\": %d, "
         "\"min_blocks\": %d, \"reps\": %d}\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
         SS_GLOBAL_THREADS, SS_GLOBAL_ITEMS, SS_GLOBAL_TILE, SS_GLOBAL_MIN_BLOCKS, reps);
  fflush(stdout);
  const size_t nmax = (size_t)1 << *std::max_element(log2s.begin(), log2s.end());
  Bufs b = {};
  CK(cudaMalloc(&b.in, nmax * 4));
  CK(cudaMalloc(&b.out, nmax * 4));
  CK(cudaMalloc(&b.ref, nmax * 4));
  CK(cudaMalloc(&b.keys, nmax * 4));
  CK(cudaMalloc(&b.f, nmax));
  unsigned long long *d_bad;
  CK(cudaMalloc(&d_bad, sizeof *d_bad));
  struct V {
    const char *name;
    run_fn fn;
    int check;      /* 0 inclusive, 1 exclusive, 2 warp tiles */
    double own;     /* bytes per element it must move */
    bool lib;
  };
  const V vs[] = {
      {"CUB InclusiveSumByKey (int keys)", runCubByKey, 0, 12, false}, /* first: x_cub's yardstick */
      {"06 single pass, inclusive", runOursInc, 0, 9, false},
      {"06 single pass, exclusive", runOursExc, 1, 9, false},
      {"Thrust inclusive_scan_by_key (int keys)", runThrustByKey, 0, 12, true},
      {"CUB InclusiveScan, (flag, value) pairs", runCubPairs, 0, 9, true},
      {"06 warp tiles, operator form", runWarpOp, 2, 9, true},
      {"06 warp tiles, direct form", runWarpDirect, 2, 9, true},
  };
  for (long long lg : log2s) {
    b.n = (size_t)1 << lg;
    for (long long mean : means) {
      fillKernel<<<4096, 256>>>(b.in, b.f, b.keys, b.n, (unsigned long long)mean, 0x5EC5CA11ull + (unsigned)lg);
      CK(cudaGetLastError());
      {
        size_t bytes = 0;
        CK(cub::DeviceScan::InclusiveSum(nullptr, bytes, b.keys, b.keys, (int64_t)b.n));
        reserve(b, bytes);
        CK(cub::DeviceScan::InclusiveSum(b.temp, bytes, b.keys, b.keys, (int64_t)b.n));
        int *save = b.out;
        b.out = b.ref;
        runCubByKey(b);
        b.out = save;
      }
      CK(cudaDeviceSynchronize());
      const double t_copy = medianMs(runCopy, b, reps);
      const double copy_bw = 8.0 * (double)b.n / (t_copy * 1e-3); /* bytes per second, read + write */
      double t_cub = 0;
      for (const V &v : vs) {
        if (v.lib && ours_only) continue;
        CK(cudaMemset(b.out, 0xEF, b.n * 4));
        v.fn(b);
        CK(cudaDeviceSynchronize());
        CK(cudaMemset(d_bad, 0, sizeof *d_bad));
        if (v.check == 2) warpTilesCheck<<<2048, 256>>>(b.in, b.f, b.out, b.n, d_bad);
        else countKernel<<<2048, 256>>>(b.in, b.ref, b.out, b.n, v.check, d_bad);
        CK(cudaGetLastError());
        unsigned long long bad = 0;
        CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        const double ms = medianMs(v.fn, b, reps);
        if (v.fn == runCubByKey) t_cub = ms;
        const double eps = (double)b.n / (ms * 1e-3);
        printf("RESULT {\"variant\": \"%s\", \"log2n\": %lld, \"mean\": %lld, \"ms\": %.5f, \"copy_ms\": %.5f, "
               "\"gelem_s\": %.2f, \"frac9\": %.4f, \"frac_own\": %.4f, \"x_cub\": %.4f, \"bad\": %llu}\n",
               v.name, lg, mean, ms, t_copy, eps * 1e-9, 9.0 * eps / copy_bw, v.own * eps / copy_bw,
               t_cub > 0 ? t_cub / ms : 0.0, bad);
        fflush(stdout);
      }
    }
  }
  segScanGlobalRelease();
  CK(cudaFree(b.in));
  CK(cudaFree(b.out));
  CK(cudaFree(b.ref));
  CK(cudaFree(b.keys));
  CK(cudaFree(b.f));
  CK(cudaFree(d_bad));
  if (b.temp) CK(cudaFree(b.temp));
  return 0;
}
