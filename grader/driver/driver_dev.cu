/**
 * @file driver_dev.cu
 * @brief The driver's device side for the `cuda` and `emu` backends: device copies of the
 *        shared buffers, poison and generated inputs (kit kernels), waiting, the copy yardstick.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "hx_proto.h"

static int failed(cudaError_t e, const char *what, char *err, size_t cap) {
  if (e == cudaSuccess) return 0;
  snprintf(err, cap, "CUDA error %s (%s) in %s", cudaGetErrorName(e), cudaGetErrorString(e), what);
  return 1;
}

extern "C" const char *drv_backend(void) {
#ifdef SCANLAB_EMU
  return "emu";
#else
  return "cuda";
#endif
}

extern "C" int drv_dev_is_host(void) { return 0; }

extern "C" int drv_dev_init(char *err, size_t cap) { return failed(cudaFree(0), "cudaFree(0)", err, cap); }

extern "C" void drv_dev_info(char *name, size_t cap, uint64_t *l2, uint64_t *free_b, uint64_t *total) {
  cudaDeviceProp p;
  int dev = 0;
  size_t f = 0, t = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    snprintf(name, cap, "unknown");
    *l2 = 0;
  } else {
    snprintf(name, cap, "%s", p.name);
    *l2 = (uint64_t)p.l2CacheSize;
  }
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) f = t = 0;
  *free_b = f;
  *total = t;
}

extern "C" int drv_dev_alloc(void **p, size_t bytes, char *err, size_t cap) {
  return failed(cudaMalloc(p, bytes), "cudaMalloc", err, cap);
}
extern "C" void drv_dev_free(void *p) { cudaFree(p); }
extern "C" int drv_dev_upload(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return failed(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (to the device)", err, cap);
}
extern "C" int drv_dev_download(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return failed(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (to the host)", err, cap);
}

static __global__ void poisonKernel(unsigned *p, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
    p[i] = HXP_POISON;
}

static __global__ void generateKernel(int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = hxp_gen_value(seed, i, lo, hi);
}

static unsigned grid_for(size_t n) {
  size_t blocks = (n + 255) / 256;
#ifdef SCANLAB_EMU
  const size_t cap = 64; /* the emulator runs blocks on a few workers: fewer, longer blocks */
#else
  const size_t cap = 8192;
#endif
  return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

extern "C" int drv_dev_poison(void *p, size_t bytes, char *err, size_t cap) {
  poisonKernel<<<grid_for(bytes / 4), 256>>>((unsigned *)p, bytes / 4);
  return failed(cudaGetLastError(), "the poison kernel", err, cap);
}

extern "C" int drv_dev_generate(int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi, char *err,
                                size_t cap) {
  if (n == 0) return 0;
  generateKernel<<<grid_for(n), 256>>>(p, n, seed, lo, hi);
  return failed(cudaGetLastError(), "the input generator", err, cap);
}

extern "C" int drv_dev_sync(char *err, size_t cap) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  failed(e, "the call (reported when waiting for the device)", err, cap);
  /* A sticky error survives cudaGetLastError(): the context is gone. */
  return cudaPeekAtLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ? 2 : 1;
}

extern "C" int drv_dev_copy(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0), "the copy", err, cap);
}

extern "C" void drv_dev_copy_counters(uint64_t *d2h, uint64_t *h2d) {
#ifdef SCANLAB_EMU
  unsigned long long d = 0, h = 0;
  scanlab_emu_copy_counters(&d, &h);
  *d2h = d;
  *h2d = h;
#else
  *d2h = *h2d = 0; /* on a GPU, the build refuses the copy calls in student code instead */
#endif
}

/* The emu's memory counters so far (its probes count the student's kernels); 0 on a GPU. */
extern "C" int drv_dev_probe_counters(uint64_t *c, int n) {
#ifdef SCANLAB_EMU
  unsigned long long v[HXP_COUNTERS] = {0};
  const int k = scanlab_emu_probe_counters(v, n < HXP_COUNTERS ? n : HXP_COUNTERS);
  for (int i = 0; i < k; i++) c[i] = v[i];
  return k;
#else
  (void)c;
  (void)n;
  return 0;
#endif
}

/* CUDA_CHECK() in the student's file (cuda_check.h): the call fails, with the message. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  drv_die("%s:%d: CUDA error %s (%s) in '%s'", file, line, cudaGetErrorName(err), cudaGetErrorString(err), expr);
}
