/**
 * @file hx_dev.cu
 * @brief The trusted side's device (see hx_dev.h): buffers the test owns and exports to the
 *        driver, fills, and checks made where the data lies.
 *
 * The output checks recompute their reference in two passes over chunks of CHUNK elements:
 * the first reduces each chunk (a segment's running sum, a count of kept elements, a largest
 * slope), the host combines the chunks' results in order into each chunk's carry-in (a few MB
 * at most: 2^31 elements are 2^19 chunks), and the second rescans each chunk from its carry,
 * comparing as it goes. Counts and the first index gather through atomics; a third, one-chunk
 * launch fetches the first mismatch's expected value. The kernels are written for clarity, not
 * speed (each thread walks ITEMS consecutive elements); they still read the gigabytes a test
 * checks in milliseconds, where bringing them back to the host took seconds.
 *
 * Built with nvcc for the `cuda` backend, without fast math: the line-of-sight check's float
 * slopes must round as the host's do. The same file builds for the emu (SCANLAB_EMU), without
 * the virtual memory API, for the self-test that holds these checks to hx_verify.c's.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCANLAB_EMU
#include <cuda.h>
#endif

#include "hx_dev.h"
#include "hx_proto.h"

#define THREADS 256
#define ITEMS 16
#define CHUNK ((size_t)THREADS * ITEMS)

static char err_text[512];
extern "C" const char *hxd_error(void) { return err_text; }

static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err_text, sizeof err_text, fmt, ap);
  va_end(ap);
  return -1;
}

/* 0, or -1 naming the CUDA error and the step. */
static int ck(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return 0;
  return fail("CUDA error %s (%s) in the test's own %s", cudaGetErrorName(e), cudaGetErrorString(e), what);
}

/* A launch's configuration error now, or its run's error at the next wait. */
static int launched(const char *what) { return ck(cudaGetLastError(), what); }

static unsigned grid_for(size_t n) {
  size_t blocks = (n + THREADS - 1) / THREADS;
#ifdef SCANLAB_EMU
  const size_t cap = 64;
#else
  const size_t cap = 8192;
#endif
  return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

/* ---- what a check brings back -------------------------------------------------------------- */

struct Found {
  unsigned long long count, first, last;
  long long expected, got, where;
  double fexpected;
  unsigned long long sums[4];
};

static Found *d_found = NULL;

static int found_reset(void) {
  if (!d_found && ck(cudaMalloc((void **)&d_found, sizeof(Found)), "allocation of a check's result")) return -1;
  Found h;
  memset(&h, 0, sizeof h);
  h.first = ~0ull;
  return ck(cudaMemcpy(d_found, &h, sizeof h, cudaMemcpyHostToDevice), "reset of a check's result");
}

static int found_get(Found *h) {
  if (ck(cudaDeviceSynchronize(), "check")) return -1;
  return ck(cudaMemcpy(h, d_found, sizeof *h, cudaMemcpyDeviceToHost), "copy of a check's result");
}

static __device__ void found_mismatch(Found *f, unsigned long long i) {
  atomicAdd(&f->count, 1ull);
  atomicMin(&f->first, i);
}

static size_t as_index(unsigned long long i) { return i == ~0ull ? HXV_NONE : (size_t)i; }

/* ---- context, memory ------------------------------------------------------------------------- */

extern "C" int hxd_init(char *device, size_t cap) {
  if (ck(cudaFree(0), "context")) return -1;
  int dev = 0;
  cudaDeviceProp p;
  if (ck(cudaGetDevice(&dev), "device query") || ck(cudaGetDeviceProperties(&p, dev), "device query")) return -1;
  snprintf(device, cap, "%s", p.name);
  return 0;
}

#ifndef SCANLAB_EMU
static int cu_ck(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return 0;
  const char *name = "?";
  cuGetErrorName(r, &name);
  return fail("CUDA driver error %s in %s", name, what);
}

static int access_desc(CUmemAccessDesc *a) {
  int dev = 0;
  CUdevice d;
  if (ck(cudaGetDevice(&dev), "device query") || cu_ck(cuDeviceGet(&d, dev), "cuDeviceGet")) return -1;
  memset(a, 0, sizeof *a);
  a->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a->location.id = d;
  a->flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return 0;
}
#endif

extern "C" int hxd_alloc_shared(size_t bytes, void **dptr, size_t *mapped, int *fd) {
#ifdef SCANLAB_EMU
  (void)bytes, (void)dptr, (void)mapped, (void)fd;
  return fail("shared device memory needs a GPU");
#else
  CUmemAccessDesc acc;
  if (access_desc(&acc)) return -1;
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = acc.location;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  if (cu_ck(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity"))
    return -1;
  const size_t size = (bytes + gran - 1) / gran * gran;
  CUmemGenericAllocationHandle h;
  if (cu_ck(cuMemCreate(&h, size, &prop, 0), "cuMemCreate (device memory for a buffer)")) return -1;
  CUdeviceptr va = 0;
  int rc = cu_ck(cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve");
  if (!rc) rc = cu_ck(cuMemMap(va, size, 0, h, 0), "cuMemMap");
  if (!rc) rc = cu_ck(cuMemSetAccess(va, size, &acc, 1), "cuMemSetAccess");
  if (!rc) rc = cu_ck(cuMemExportToShareableHandle(fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                      "cuMemExportToShareableHandle");
  cuMemRelease(h); /* the mapping keeps the memory */
  if (rc) {
    if (va) {
      cuMemUnmap(va, size);
      cuMemAddressFree(va, size);
    }
    return -1;
  }
  *dptr = (void *)va;
  *mapped = size;
  return 0;
#endif
}

extern "C" void hxd_free_shared(void *dptr, size_t mapped) {
#ifndef SCANLAB_EMU
  if (!dptr) return;
  cudaDeviceSynchronize();
  cuMemUnmap((CUdeviceptr)dptr, mapped);
  cuMemAddressFree((CUdeviceptr)dptr, mapped);
#else
  (void)dptr, (void)mapped;
#endif
}

extern "C" int hxd_alloc(void **dptr, size_t bytes) {
  return ck(cudaMalloc(dptr, bytes ? bytes : 4), "allocation");
}
extern "C" void hxd_free(void *dptr) {
  if (dptr) cudaFree(dptr);
}
extern "C" int hxd_upload(void *dst, const void *src, size_t bytes) {
  return ck(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "copy to the device");
}
extern "C" int hxd_download(void *dst, const void *src, size_t bytes) {
  return ck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "copy to the host");
}
extern "C" int hxd_copy(void *dst, const void *src, size_t bytes) {
  return ck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy on the device");
}
extern "C" int hxd_sync(void) { return ck(cudaDeviceSynchronize(), "work"); }

static __global__ void fillKernel(uint32_t *p, size_t words, uint32_t w) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
    p[i] = w;
}
extern "C" int hxd_fill(void *p, size_t words, uint32_t w) {
  if (!words) return 0;
  fillKernel<<<grid_for(words), THREADS>>>((uint32_t *)p, words, w);
  return launched("fill");
}

static __global__ void generateKernel(int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = hxp_gen_value(seed, i, lo, hi);
}
extern "C" int hxd_generate(int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi) {
  if (!n) return 0;
  generateKernel<<<grid_for(n), THREADS>>>(p, n, seed, lo, hi);
  return launched("input generator");
}

/* ---- guards, inputs unchanged ----------------------------------------------------------------- */

static __global__ void wordsNotKernel(const uint32_t *p, size_t words, uint32_t w, Found *f) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
    if (p[i] != w) {
      found_mismatch(f, i);
      atomicMax(&f->last, (unsigned long long)i);
    }
}
extern "C" int hxd_words_not(const void *p, size_t words, uint32_t w, size_t *count, size_t *first, size_t *last) {
  Found h;
  if (found_reset()) return -1;
  if (words) {
    wordsNotKernel<<<grid_for(words), THREADS>>>((const uint32_t *)p, words, w, d_found);
    if (launched("guard check")) return -1;
  }
  if (found_get(&h)) return -1;
  *count = (size_t)h.count;
  *first = as_index(h.first);
  *last = h.count ? (size_t)h.last : HXV_NONE;
  return 0;
}

static __global__ void compareKernel(const uint32_t *a, const uint32_t *b, size_t n, size_t words, Found *f) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    bool same = true;
    for (size_t k = 0; k < words; k++) same = same && a[i * words + k] == b[i * words + k];
    if (!same) found_mismatch(f, i);
  }
}
extern "C" int hxd_compare(const void *a, const void *b, size_t n, size_t elem, size_t *count, size_t *first) {
  Found h;
  if (found_reset()) return -1;
  if (n) {
    compareKernel<<<grid_for(n), THREADS>>>((const uint32_t *)a, (const uint32_t *)b, n, elem / 4, d_found);
    if (launched("input check")) return -1;
  }
  if (found_get(&h)) return -1;
  *count = (size_t)h.count;
  *first = as_index(h.first);
  return 0;
}

static __global__ void generatedKernel(const int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi, Found *f) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    if (p[i] != hxp_gen_value(seed, i, lo, hi)) found_mismatch(f, i);
}
extern "C" int hxd_check_generated(const int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi, size_t *count,
                                   size_t *first) {
  Found h;
  if (found_reset()) return -1;
  if (n) {
    generatedKernel<<<grid_for(n), THREADS>>>(p, n, seed, lo, hi, d_found);
    if (launched("input check")) return -1;
  }
  if (found_get(&h)) return -1;
  *count = (size_t)h.count;
  *first = as_index(h.first);
  return 0;
}

/* ---- a block-wide scan, for the chunked checks ------------------------------------------------- */

/* The inclusive scan of one value per thread across the block under `op` (associative, not
 * necessarily commutative), in the double-buffered shared array @p s (2 * THREADS values);
 * @p excl receives the exclusive one (@p id for thread 0). */
template <typename T, typename Op>
static __device__ T block_scan(T v, T id, T *s, Op op, T *excl) {
  const int t = threadIdx.x;
  int cur = 0;
  s[t] = v;
  __syncthreads();
  for (int d = 1; d < THREADS; d <<= 1) {
    T x = s[cur * THREADS + t];
    if (t >= d) x = op(s[cur * THREADS + t - d], x);
    s[(cur ^ 1) * THREADS + t] = x;
    __syncthreads();
    cur ^= 1;
  }
  const T inc = s[cur * THREADS + t];
  *excl = t ? s[cur * THREADS + t - 1] : id;
  __syncthreads(); /* s is free again */
  return inc;
}

/* The chunks of n elements and thread t's first element in chunk c. */
static size_t chunks_of(size_t n) { return (n + CHUNK - 1) / CHUNK; }
static __device__ size_t item0(size_t c) { return c * CHUNK + (size_t)threadIdx.x * ITEMS; }

/* Runs pass 1, combines the chunks' results on the host, runs pass 2 (and, with a mismatch,
 * pass 2 again over the first mismatch's chunk to fetch its expected value). Agg is the
 * per-chunk result; combine(a, b) is a then b. */
template <typename Agg, typename Combine>
static int carries(const Agg *d_agg, Agg **d_carry, size_t nchunks, Agg id, Combine combine, Agg *total) {
  Agg *h = (Agg *)malloc(nchunks * sizeof(Agg));
  if (!h) return fail("out of host memory for %zu chunk results", nchunks);
  int rc = ck(cudaMemcpy(h, d_agg, nchunks * sizeof(Agg), cudaMemcpyDeviceToHost), "copy of the chunks' results");
  Agg run = id;
  for (size_t c = 0; !rc && c < nchunks; c++) {
    const Agg here = h[c];
    h[c] = run;
    run = combine(run, here);
  }
  if (total) *total = run;
  if (!rc) rc = ck(cudaMalloc((void **)d_carry, nchunks * sizeof(Agg)), "allocation of the chunks' carries");
  if (!rc) rc = ck(cudaMemcpy(*d_carry, h, nchunks * sizeof(Agg), cudaMemcpyHostToDevice), "copy of the carries");
  free(h);
  return rc;
}

/* ---- scans ----------------------------------------------------------------------------------- */

struct SegSum {
  unsigned f, v; /* a head seen; the sum since the last head (wrapping) */
};
struct SegOp {
  __host__ __device__ SegSum operator()(SegSum a, SegSum b) const {
    SegSum r;
    r.f = a.f | b.f;
    r.v = b.f ? b.v : a.v + b.v;
    return r;
  }
};

struct ScanArgs {
  const int32_t *in;
  uint64_t seed;
  int64_t lo, hi;
  const int32_t *out;
  size_t n, tile, sub;
  const uint8_t *flags;
  int exclusive;
};

static __device__ SegSum scan_item(const ScanArgs &a, size_t i) {
  SegSum e;
  e.v = (unsigned)(a.in ? a.in[i] : hxp_gen_value(a.seed, i, a.lo, a.hi));
  e.f = i == 0 || (a.tile && (i % a.tile) % a.sub == 0) || (a.flags && a.flags[i]);
  return e;
}

static __device__ SegSum scan_thread(const ScanArgs &a, size_t c) {
  SegSum acc = {0, 0};
  const SegOp op;
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) acc = op(acc, scan_item(a, i));
  return acc;
}

static __global__ void scanPass1(ScanArgs a, SegSum *agg) {
  __shared__ SegSum s[2 * THREADS];
  const size_t c = blockIdx.x;
  SegSum ex;
  const SegSum id = {0, 0};
  const SegSum inc = block_scan(scan_thread(a, c), id, s, SegOp(), &ex);
  if (threadIdx.x == THREADS - 1) agg[c] = inc;
}

static __global__ void scanPass2(ScanArgs a, const SegSum *carry, size_t chunk0, unsigned long long report, Found *f) {
  __shared__ SegSum s[2 * THREADS];
  const size_t c = chunk0 + blockIdx.x;
  const SegOp op;
  SegSum ex;
  const SegSum id = {0, 0};
  block_scan(scan_thread(a, c), id, s, op, &ex);
  SegSum run = op(carry[c], ex);
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) {
    const SegSum x = scan_item(a, i);
    run = op(run, x);
    const int32_t expect = (int32_t)(a.exclusive ? run.v - x.v : run.v);
    if (report != ~0ull) {
      if (i == report) {
        f->expected = expect;
        f->got = a.out[i];
      }
    } else if (expect != a.out[i]) {
      found_mismatch(f, i);
    }
  }
}

static void clear_result(hxv_result *r) {
  memset(r, 0, sizeof *r);
  r->first = HXV_NONE;
}

extern "C" int hxd_scan(const hxv_input *in, const int32_t *out, size_t n, int exclusive, const hxv_segments *seg,
                        hxv_result *r) {
  clear_result(r);
  if (!n) return 0;
  ScanArgs a;
  memset(&a, 0, sizeof a);
  a.in = in->p;
  a.seed = in->seed;
  a.lo = in->lo;
  a.hi = in->hi;
  a.out = out;
  a.n = n;
  a.exclusive = exclusive;
  if (seg) {
    a.tile = seg->tile;
    a.sub = seg->sub ? seg->sub : seg->tile;
    a.flags = seg->flags;
  }
  const size_t nc = chunks_of(n);
  SegSum *agg = NULL, *carry = NULL;
  Found h;
  int rc = ck(cudaMalloc((void **)&agg, nc * sizeof(SegSum)), "allocation of the chunks' results");
  if (!rc) {
    scanPass1<<<(unsigned)nc, THREADS>>>(a, agg);
    rc = launched("scan check");
  }
  const SegSum id = {0, 0};
  if (!rc) rc = carries(agg, &carry, nc, id, SegOp(), (SegSum *)NULL);
  if (!rc) rc = found_reset();
  if (!rc) {
    scanPass2<<<(unsigned)nc, THREADS>>>(a, carry, 0, ~0ull, d_found);
    rc = launched("scan check") || found_get(&h);
  }
  if (!rc && h.count) {
    scanPass2<<<1, THREADS>>>(a, carry, (size_t)(h.first / CHUNK), h.first, d_found);
    rc = launched("scan check") || found_get(&h);
    r->count = (size_t)h.count;
    r->first = (size_t)h.first;
    r->expected = h.expected;
    r->got = h.got;
  }
  cudaFree(agg);
  cudaFree(carry);
  return rc ? -1 : 0;
}

/* ---- compaction and partition ------------------------------------------------------------------ */

struct SelectArgs {
  const int32_t *in;
  uint64_t seed;
  int64_t lo, hi;
  const int32_t *out;
  size_t n;
  int32_t pivot;
  int partition;
  unsigned long long kept; /* pass 2: the total */
};
struct AddU64 {
  __host__ __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a + b; }
};

static __device__ int32_t select_item(const SelectArgs &a, size_t i) {
  return a.in ? a.in[i] : hxp_gen_value(a.seed, i, a.lo, a.hi);
}
static __device__ unsigned long long select_thread(const SelectArgs &a, size_t c) {
  unsigned long long k = 0;
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) k += select_item(a, i) > a.pivot;
  return k;
}

static __global__ void selectPass1(SelectArgs a, unsigned long long *agg) {
  __shared__ unsigned long long s[2 * THREADS];
  unsigned long long ex;
  const unsigned long long inc = block_scan(select_thread(a, blockIdx.x), 0ull, s, AddU64(), &ex);
  if (threadIdx.x == THREADS - 1) agg[blockIdx.x] = inc;
}

static __global__ void selectPass2(SelectArgs a, const unsigned long long *carry, size_t chunk0, unsigned long long report,
                                   Found *f) {
  __shared__ unsigned long long s[2 * THREADS];
  const size_t c = chunk0 + blockIdx.x;
  unsigned long long ex;
  block_scan(select_thread(a, c), 0ull, s, AddU64(), &ex);
  unsigned long long before = carry[c] + ex; /* kept elements before this thread's first */
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) {
    const int32_t x = select_item(a, i);
    const bool keep = x > a.pivot;
    if (!keep && !a.partition) continue;
    const unsigned long long at = keep ? before : a.kept + (i - before);
    if (keep) before++;
    if (report != ~0ull) {
      if (i == report) {
        f->expected = x;
        f->got = a.out[at];
        f->where = (long long)at;
      }
    } else if (a.out[at] != x) {
      found_mismatch(f, i);
    }
  }
}

extern "C" int hxd_select(const hxv_input *in, const int32_t *out, size_t n, int32_t pivot, int partition,
                          hxv_result *r) {
  clear_result(r);
  if (!n) return 0;
  SelectArgs a;
  memset(&a, 0, sizeof a);
  a.in = in->p;
  a.seed = in->seed;
  a.lo = in->lo;
  a.hi = in->hi;
  a.out = out;
  a.n = n;
  a.pivot = pivot;
  a.partition = partition;
  const size_t nc = chunks_of(n);
  unsigned long long *agg = NULL, *carry = NULL, total = 0;
  Found h;
  int rc = ck(cudaMalloc((void **)&agg, nc * sizeof *agg), "allocation of the chunks' results");
  if (!rc) {
    selectPass1<<<(unsigned)nc, THREADS>>>(a, agg);
    rc = launched("compaction check");
  }
  if (!rc) rc = carries(agg, &carry, nc, 0ull, AddU64(), &total);
  a.kept = total;
  r->extra = (int64_t)total;
  if (!rc) rc = found_reset();
  if (!rc) {
    selectPass2<<<(unsigned)nc, THREADS>>>(a, carry, 0, ~0ull, d_found);
    rc = launched("compaction check") || found_get(&h);
  }
  if (!rc && h.count) {
    selectPass2<<<1, THREADS>>>(a, carry, (size_t)(h.first / CHUNK), h.first, d_found);
    rc = launched("compaction check") || found_get(&h);
    r->count = (size_t)h.count;
    r->first = (size_t)h.first;
    r->expected = h.expected;
    r->got = h.got;
    r->where = h.where;
  }
  cudaFree(agg);
  cudaFree(carry);
  return rc ? -1 : 0;
}

/* ---- line of sight --------------------------------------------------------------------------- */

struct SightArgs {
  const int32_t *in;
  uint64_t seed;
  int64_t lo, hi;
  const uint8_t *vis;
  size_t n;
  float a0;
};
struct MaxF {
  __host__ __device__ float operator()(float a, float b) const { return b > a ? b : a; }
};

static __device__ float slope(const SightArgs &a, size_t i) {
  if (i == 0) return -INFINITY;
  const int32_t bits = a.in ? a.in[i] : hxp_gen_value(a.seed, i, a.lo, a.hi);
  return (__int_as_float(bits) - a.a0) / (float)i;
}
static __device__ float sight_thread(const SightArgs &a, size_t c) {
  float m = -INFINITY;
  const MaxF op;
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) m = op(m, slope(a, i));
  return m;
}

static __global__ void sightPass1(SightArgs a, float *agg) {
  __shared__ float s[2 * THREADS];
  float ex;
  const float inc = block_scan(sight_thread(a, blockIdx.x), -INFINITY, s, MaxF(), &ex);
  if (threadIdx.x == THREADS - 1) agg[blockIdx.x] = inc;
}

static __global__ void sightPass2(SightArgs a, const float *carry, size_t chunk0, unsigned long long report, Found *f) {
  __shared__ float s[2 * THREADS];
  const size_t c = chunk0 + blockIdx.x;
  const MaxF op;
  float ex;
  block_scan(sight_thread(a, c), -INFINITY, s, op, &ex);
  float best = op(carry[c], ex);
  for (size_t i = item0(c), e = i + ITEMS; i < e && i < a.n; i++) {
    const float sl = slope(a, i);
    const uint8_t v = sl > best;
    best = op(best, sl);
    if (report != ~0ull) {
      if (i == report) {
        f->expected = v;
        f->got = a.vis[i];
      }
    } else if (v != a.vis[i]) {
      found_mismatch(f, i);
    }
  }
}

extern "C" int hxd_sight(const hxv_input *in, const uint8_t *vis, size_t n, hxv_result *r) {
  clear_result(r);
  if (!n) return 0;
  SightArgs a;
  memset(&a, 0, sizeof a);
  a.in = in->p;
  a.seed = in->seed;
  a.lo = in->lo;
  a.hi = in->hi;
  a.vis = vis;
  a.n = n;
  int32_t bits0 = 0;
  if (in->p) {
    if (ck(cudaMemcpy(&bits0, in->p, 4, cudaMemcpyDeviceToHost), "copy of the first altitude")) return -1;
  } else {
    bits0 = hxp_gen_value(in->seed, 0, in->lo, in->hi);
  }
  memcpy(&a.a0, &bits0, 4);
  const size_t nc = chunks_of(n);
  float *agg = NULL, *carry = NULL;
  Found h;
  int rc = ck(cudaMalloc((void **)&agg, nc * sizeof *agg), "allocation of the chunks' results");
  if (!rc) {
    sightPass1<<<(unsigned)nc, THREADS>>>(a, agg);
    rc = launched("line-of-sight check");
  }
  if (!rc) rc = carries(agg, &carry, nc, -INFINITY, MaxF(), (float *)NULL);
  if (!rc) rc = found_reset();
  if (!rc) {
    sightPass2<<<(unsigned)nc, THREADS>>>(a, carry, 0, ~0ull, d_found);
    rc = launched("line-of-sight check") || found_get(&h);
  }
  if (!rc && h.count) {
    sightPass2<<<1, THREADS>>>(a, carry, (size_t)(h.first / CHUNK), h.first, d_found);
    rc = launched("line-of-sight check") || found_get(&h);
    r->count = (size_t)h.count;
    r->first = (size_t)h.first;
    r->expected = h.expected;
    r->got = h.got;
  }
  cudaFree(agg);
  cudaFree(carry);
  return rc ? -1 : 0;
}

/* ---- sort ------------------------------------------------------------------------------------- */

static __global__ void sortKernel(hxv_input in, const uint32_t *out, size_t n, Found *f) {
  unsigned long long s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t k = (uint32_t)(in.p ? in.p[i] : hxp_gen_value(in.seed, i, in.lo, in.hi));
    s0 += hxv_sort_mix(k, 1);
    s1 += hxv_sort_mix(k, 0x5EED);
    s2 += hxv_sort_mix(out[i], 1);
    s3 += hxv_sort_mix(out[i], 0x5EED);
    if (i > 0 && out[i - 1] > out[i]) found_mismatch(f, i);
  }
  atomicAdd(&f->sums[0], s0); /* sums wrap mod 2^64, in any order alike */
  atomicAdd(&f->sums[1], s1);
  atomicAdd(&f->sums[2], s2);
  atomicAdd(&f->sums[3], s3);
}

extern "C" int hxd_sort(const hxv_input *in, const uint32_t *out, size_t n, hxv_result *r) {
  clear_result(r);
  Found h;
  if (found_reset()) return -1;
  if (n) {
    sortKernel<<<grid_for(n), THREADS>>>(*in, out, n, d_found);
    if (launched("sort check")) return -1;
  }
  if (found_get(&h)) return -1;
  r->count = (size_t)h.count;
  if (h.count) {
    uint32_t pair[2];
    r->first = (size_t)h.first;
    if (ck(cudaMemcpy(pair, out + h.first - 1, 8, cudaMemcpyDeviceToHost), "copy of a sort's keys")) return -1;
    r->expected = pair[0];
    r->got = pair[1];
  }
  if (h.sums[0] != h.sums[2] || h.sums[1] != h.sums[3]) {
    r->extra = 1;
    r->count++;
  }
  return 0;
}

/* ---- the sparse product --------------------------------------------------------------------- */

struct SpmvArgs {
  const int32_t *ptr, *col;
  const float *x, *y;
  hxv_input val;
  int32_t rows;
  double rtol, atol;
};

static __device__ void row_sums(const SpmvArgs &a, int32_t i, double *sum, double *mag) {
  double s = 0.0, m = 0.0;
  for (int32_t k = a.ptr[i]; k < a.ptr[i + 1]; k++) {
    const int32_t bits = a.val.p ? a.val.p[k] : hxp_gen_value(a.val.seed, (size_t)k, a.val.lo, a.val.hi);
    const double p = (double)__int_as_float(bits) * (double)a.x[a.col[k]];
    s += p;
    m += fabs(p);
  }
  *sum = s;
  *mag = m;
}

static __global__ void spmvKernel(SpmvArgs a, Found *f) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.rows; i += gridDim.x * blockDim.x) {
    double s, m;
    row_sums(a, i, &s, &m);
    const double g = a.y[i];
    if (isnan(g) || fabs(g - s) > a.atol + a.rtol * m) found_mismatch(f, (unsigned long long)i);
  }
}
static __global__ void spmvRowKernel(SpmvArgs a, int32_t i, Found *f) {
  double s, m;
  row_sums(a, i, &s, &m);
  f->fexpected = s;
}

extern "C" int hxd_spmv(const int32_t *ptr, const int32_t *col, const float *x, const hxv_input *val, const float *y,
                        int32_t rows, double rtol, double atol, hxv_result *r) {
  clear_result(r);
  SpmvArgs a;
  a.ptr = ptr;
  a.col = col;
  a.x = x;
  a.y = y;
  a.val = *val;
  a.rows = rows;
  a.rtol = rtol;
  a.atol = atol;
  Found h;
  if (found_reset()) return -1;
  if (rows > 0) {
    spmvKernel<<<grid_for((size_t)rows), THREADS>>>(a, d_found);
    if (launched("sparse product check")) return -1;
  }
  if (found_get(&h)) return -1;
  if (!h.count) return 0;
  spmvRowKernel<<<1, 1>>>(a, (int32_t)h.first, d_found);
  float got = 0;
  if (launched("sparse product check") || found_get(&h) ||
      ck(cudaMemcpy(&got, y + h.first, 4, cudaMemcpyDeviceToHost), "copy of a row's result"))
    return -1;
  r->count = (size_t)h.count;
  r->first = (size_t)h.first;
  r->fexpected = h.fexpected;
  r->fgot = got;
  return 0;
}
