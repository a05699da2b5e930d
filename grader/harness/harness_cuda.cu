/**
 * @file harness_cuda.cu
 * @brief Device-side harness: checked CUDA calls, guarded buffers, event timing, copy bandwidth.
 */
#include "harness_cuda.h"
#include "harness_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hx_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  char msg[768];
  snprintf(msg, sizeof msg, "%s:%d: CUDA error %s (%s) in '%s'", file, line, cudaGetErrorName(err),
           cudaGetErrorString(err), expr);
  fprintf(stderr, "%s\n", msg);
  hx_fail_at(file, line, "%s", msg);
  /* The context may be unusable now: end the test here, telling the grader why. */
  hx_internal_send("end", "fail", NULL, NAN);
  exit(3);
}

/* ---- guarded buffers ---------------------------------------------------------------------- */

static const size_t GUARD_BYTES = HX_GUARD_WORDS * 4;

static __global__ void poisonKernel(unsigned *p, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = HX_POISON;
}

static void poison_words(void *p, size_t words) {
  if (words == 0) return;
  size_t blocks = (words + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  poisonKernel<<<(unsigned)blocks, 256>>>((unsigned *)p, words);
  CUDA_CHECK_LAUNCH();
}

hx_dbuf hx_dbuf_alloc(size_t n, size_t elem) {
  hx_dbuf b = {NULL, NULL, n, elem};
  if (elem % 4 != 0) {
    HX_FAIL("harness: guarded buffers hold elements of a multiple of 4 bytes, not %zu", elem);
    return b;
  }
  CUDA_CHECK(cudaMalloc(&b.base, n * elem + 2 * GUARD_BYTES));
  b.ptr = (char *)b.base + GUARD_BYTES;
  poison_words(b.base, HX_GUARD_WORDS);
  poison_words((char *)b.ptr + n * elem, HX_GUARD_WORDS);
  CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

void hx_dbuf_poison(hx_dbuf *b) {
  poison_words(b->base, (b->n * b->elem + 2 * GUARD_BYTES) / 4);
  CUDA_CHECK(cudaDeviceSynchronize());
}

void hx_dbuf_upload(hx_dbuf *b, const void *src) {
  if (b->n) CUDA_CHECK(cudaMemcpy(b->ptr, src, b->n * b->elem, cudaMemcpyHostToDevice));
}

void hx_dbuf_download(const hx_dbuf *b, void *dst) {
  if (b->n) CUDA_CHECK(cudaMemcpy(dst, b->ptr, b->n * b->elem, cudaMemcpyDeviceToHost));
}

int hx_dbuf_check_guards(const hx_dbuf *b, const char *ctx) {
  unsigned *front = (unsigned *)malloc(GUARD_BYTES), *back = (unsigned *)malloc(GUARD_BYTES);
  if (!front || !back) {
    free(front);
    free(back);
    HX_FAIL("out of host memory checking guard bands");
    return 1;
  }
  CUDA_CHECK(cudaMemcpy(front, b->base, GUARD_BYTES, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(back, (char *)b->ptr + b->n * b->elem, GUARD_BYTES, cudaMemcpyDeviceToHost));
  size_t words = b->elem / 4, changed_front = 0, changed_back = 0;
  long long first_back = -1, last_front = -1;
  for (size_t i = 0; i < HX_GUARD_WORDS; i++) {
    if (front[i] != HX_POISON) { changed_front++; if (last_front < 0) last_front = (long long)i; }
    if (back[i] != HX_POISON) { changed_back++; if (first_back < 0) first_back = (long long)i; }
  }
  int bad = 0;
  if (changed_back) {
    HX_FAIL("%s: write past the end of the output at index %zu (n=%zu; %zu guard word%s changed)",
            ctx, b->n + (size_t)first_back / words, b->n, changed_back, changed_back == 1 ? "" : "s");
    bad = 1;
  }
  if (changed_front) {
    long long idx = -(long long)((HX_GUARD_WORDS - (size_t)last_front + words - 1) / words);
    HX_FAIL("%s: write before the start of the output at index %lld (n=%zu; %zu guard word%s changed)",
            ctx, idx, b->n, changed_front, changed_front == 1 ? "" : "s");
    bad = 1;
  }
  free(front);
  free(back);
  return bad;
}

void hx_dbuf_free(hx_dbuf *b) {
  if (b->base) CUDA_CHECK(cudaFree(b->base));
  memset(b, 0, sizeof *b);
}

/* ---- timing ------------------------------------------------------------------------------- */

int hx_timing_available(void) {
#ifdef SCANLAB_EMU
  return 0;
#else
  return 1;
#endif
}

double hx_time_device_ms(void (*fn)(void *arg), void *arg, int warmup, int reps) {
  if (reps < 1) reps = 1;
  for (int i = 0; i < warmup; i++) fn(arg);
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t *ev = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * 2 * (size_t)reps);
  double *ms = (double *)malloc(sizeof(double) * (size_t)reps);
  if (!ev || !ms) {
    free(ev);
    free(ms);
    HX_FAIL("out of host memory for timing");
    return NAN;
  }
  for (int i = 0; i < 2 * reps; i++) CUDA_CHECK(cudaEventCreate(&ev[i]));
  for (int i = 0; i < reps; i++) {
    CUDA_CHECK(cudaEventRecord(ev[2 * i], 0));
    fn(arg);
    CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], 0));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; i++) {
    float t;
    CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
    ms[i] = t;
  }
  for (int i = 0; i < 2 * reps; i++) CUDA_CHECK(cudaEventDestroy(ev[i]));
  double m = hx_median(ms, reps);
  free(ev);
  free(ms);
  return m;
}

struct copy_job { void *dst; const void *src; size_t bytes; };

static void run_copy(void *arg) {
  struct copy_job *j = (struct copy_job *)arg;
  CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, 0));
}

double hx_copy_bandwidth(size_t bytes, int reps) {
  struct copy_job j = {NULL, NULL, bytes};
  CUDA_CHECK(cudaMalloc(&j.dst, bytes));
  CUDA_CHECK(cudaMalloc((void **)&j.src, bytes));
  CUDA_CHECK(cudaMemset(j.dst, 1, bytes));
  CUDA_CHECK(cudaMemset((void *)j.src, 2, bytes));
  double ms = hx_time_device_ms(run_copy, &j, 3, reps);
  CUDA_CHECK(cudaFree(j.dst));
  CUDA_CHECK(cudaFree((void *)j.src));
  return 2.0 * (double)bytes / (ms * 1e-3);
}

size_t hx_l2_bytes(void) {
  int dev = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  return (size_t)l2;
}

size_t hx_free_device_bytes(void) {
  size_t free_b = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
  return free_b;
}
