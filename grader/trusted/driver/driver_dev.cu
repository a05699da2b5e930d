/**
 * @file driver_dev.cu
 * @brief The driver's device side for the `cuda` and `emu` backends: the test's device memory
 *        mapped (`cuda`), shared buffers made device memory (`emu`), waiting, the copy yardstick.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#ifndef SCANLAB_EMU
#include <cuda.h>
#endif

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

/* Called from the driver's first constructor, before the C++ objects of the program are made:
 * the emu needs nothing yet (its runtime's objects are not made), the CUDA runtime its context. */
extern "C" int drv_dev_init(char *err, size_t cap) {
#ifdef SCANLAB_EMU
  (void)err;
  (void)cap;
  return 0;
#else
  return failed(cudaFree(0), "cudaFree(0)", err, cap);
#endif
}

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
extern "C" int drv_dev_alloc_on(int device, void **p, size_t bytes, char *err, size_t cap) {
  int cur = 0;
  if (device == 0) return drv_dev_alloc(p, bytes, err, cap);
  if (failed(cudaGetDevice(&cur), "cudaGetDevice", err, cap) || failed(cudaSetDevice(device), "cudaSetDevice", err, cap))
    return -1;
  const int rc = failed(cudaMalloc(p, bytes), "cudaMalloc", err, cap);
  cudaSetDevice(cur);
  return rc;
}
extern "C" int drv_dev_count(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? n : 1;
}
extern "C" void drv_dev_free(void *p) { cudaFree(p); }
extern "C" int drv_dev_adopt(int device, int fd, size_t bytes, void **p) {
#ifdef SCANLAB_EMU
  return scanlab_emu_adopt(fd, bytes, device, p);
#else
  (void)device, (void)fd, (void)bytes, (void)p;
  return 1; /* a GPU's memory is apart: the test exports device memory instead (HXM_DEVICE) */
#endif
}
extern "C" void drv_dev_release(void *p) {
#ifdef SCANLAB_EMU
  scanlab_emu_release(p);
#else
  (void)p;
#endif
}
extern "C" int drv_dev_upload(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return failed(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (to the device)", err, cap);
}
extern "C" int drv_dev_download(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return failed(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (to the host)", err, cap);
}

extern "C" int drv_dev_import(int fd, uint64_t bytes, void **p, char *err, size_t cap) {
#ifdef SCANLAB_EMU
  (void)fd, (void)bytes, (void)p;
  snprintf(err, cap, "device memory from the test needs a GPU");
  return 1;
#else
  const char *what = "cuDeviceGet";
  int dev = 0;
  CUdevice d;
  CUmemGenericAllocationHandle h;
  CUdeviceptr va = 0;
  CUresult r = cudaGetDevice(&dev) == cudaSuccess ? cuDeviceGet(&d, dev) : CUDA_ERROR_INVALID_DEVICE;
  if (r == CUDA_SUCCESS) {
    what = "cuMemImportFromShareableHandle";
    r = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  }
  if (r == CUDA_SUCCESS) {
    what = "cuMemAddressReserve";
    r = cuMemAddressReserve(&va, bytes, 0, 0, 0);
    if (r == CUDA_SUCCESS) {
      what = "cuMemMap";
      r = cuMemMap(va, bytes, 0, h, 0);
    }
    if (r == CUDA_SUCCESS) {
      CUmemAccessDesc acc;
      memset(&acc, 0, sizeof acc);
      acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      acc.location.id = d;
      acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      what = "cuMemSetAccess";
      r = cuMemSetAccess(va, bytes, &acc, 1);
    }
    cuMemRelease(h); /* the mapping keeps the memory */
  }
  if (r != CUDA_SUCCESS) {
    const char *name = "?";
    cuGetErrorName(r, &name);
    snprintf(err, cap, "CUDA driver error %s in %s (mapping the test's buffer of %llu bytes)", name, what,
             (unsigned long long)bytes);
    if (va) cuMemAddressFree(va, bytes);
    return 1;
  }
  *p = (void *)va;
  return 0;
#endif
}

extern "C" void drv_dev_unmap(void *p, uint64_t bytes) {
#ifndef SCANLAB_EMU
  cudaDeviceSynchronize();
  cuMemUnmap((CUdeviceptr)p, bytes);
  cuMemAddressFree((CUdeviceptr)p, bytes);
#else
  (void)p, (void)bytes;
#endif
}

static __global__ void startKernel(int *p) {
  if (p) *p = 0;
}

/* On the emu, the first launch starts the worker threads: from the call thread, so that they
 * inherit its confinement. */
extern "C" void drv_dev_thread_start(void) {
  startKernel<<<1, 1>>>(NULL);
  cudaDeviceSynchronize();
}

extern "C" int drv_dev_own_threads(int *tids, int cap) {
#ifdef SCANLAB_EMU
  return scanlab_emu_thread_ids(tids, cap);
#else
  (void)tids;
  (void)cap;
  return 0; /* the CUDA runtime's threads start with the context: the driver saw them then */
#endif
}

extern "C" int drv_dev_settle(char *err, size_t cap) {
  startKernel<<<1, 1>>>(NULL);
  if (failed(cudaGetLastError(), "a kernel of the driver's", err, cap)) return 1;
  return drv_dev_sync(err, cap) == 0 ? 0 : 1;
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

/* The emu's watch over a call's outputs (scanlab_emu_watch): how many changed by other means
 * than the device's (a launch, the runtime's copies and sets) when the call ended; 0 on a GPU,
 * where the host cannot reach device memory. */
extern "C" void drv_dev_watch(const void *const *ptrs, const size_t *bytes, int n) {
#ifdef SCANLAB_EMU
  scanlab_emu_watch(ptrs, bytes, n);
#else
  (void)ptrs;
  (void)bytes;
  (void)n;
#endif
}

extern "C" void drv_dev_depth(int on) {
#ifdef SCANLAB_EMU
  scanlab_emu_depth(on);
#else
  (void)on;
#endif
}

extern "C" int drv_dev_watch_changed(void) {
#ifdef SCANLAB_EMU
  return scanlab_emu_watch_changed();
#else
  return 0;
#endif
}

/* CUDA_CHECK() in the student's file (cuda_check.h): the call fails, with the message. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  drv_die("%s:%d: CUDA error %s (%s) in '%s'", file, line, cudaGetErrorName(err), cudaGetErrorString(err), expr);
}
