/**
 * @file api.cpp
 * @brief Host runtime API of the emulation backend: errors, memory, devices, streams, events.
 */
/// @cond EMU_INTERNAL
#include "emu_internal.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace scanlab_emu {

/* ------------------------------------------------------------------ errors */

static std::atomic<int> g_last(cudaSuccess);
static std::atomic<int> g_sticky(cudaSuccess);
static std::atomic<bool> g_kernel_failed(false);

std::mutex &diag_mutex() {
  static std::mutex m;
  return m;
}

void diag(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::lock_guard<std::mutex> g(diag_mutex());
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  va_end(ap);
}

void set_error(cudaError_t e) { g_last.store(e); }
void set_sticky(cudaError_t e) {
  g_sticky.store(e);
  g_last.store(e);
}
cudaError_t sticky_error() { return (cudaError_t)g_sticky.load(); }
void note_kernel_failure() { g_kernel_failed.store(true); }

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* A kernel that failed makes the process fail, even when the program did not check. */
static void exit_check() {
  if (!g_kernel_failed.load()) return;
  fflush(nullptr);
  _exit(1);
}
__attribute__((constructor(101))) static void register_exit_check() { atexit(exit_check); }

struct ErrName {
  cudaError_t e;
  const char *name;
};
static const ErrName ERR_NAMES[] = {
  {cudaSuccess, "cudaSuccess"},
  {cudaErrorInvalidValue, "cudaErrorInvalidValue"},
  {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation"},
  {cudaErrorInitializationError, "cudaErrorInitializationError"},
  {cudaErrorCudartUnloading, "cudaErrorCudartUnloading"},
  {cudaErrorProfilerDisabled, "cudaErrorProfilerDisabled"},
  {cudaErrorProfilerNotInitialized, "cudaErrorProfilerNotInitialized"},
  {cudaErrorProfilerAlreadyStarted, "cudaErrorProfilerAlreadyStarted"},
  {cudaErrorProfilerAlreadyStopped, "cudaErrorProfilerAlreadyStopped"},
  {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration"},
  {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue"},
  {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol"},
  {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer"},
  {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer"},
  {cudaErrorInvalidTexture, "cudaErrorInvalidTexture"},
  {cudaErrorInvalidTextureBinding, "cudaErrorInvalidTextureBinding"},
  {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor"},
  {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection"},
  {cudaErrorAddressOfConstant, "cudaErrorAddressOfConstant"},
  {cudaErrorTextureFetchFailed, "cudaErrorTextureFetchFailed"},
  {cudaErrorTextureNotBound, "cudaErrorTextureNotBound"},
  {cudaErrorSynchronizationError, "cudaErrorSynchronizationError"},
  {cudaErrorInvalidFilterSetting, "cudaErrorInvalidFilterSetting"},
  {cudaErrorInvalidNormSetting, "cudaErrorInvalidNormSetting"},
  {cudaErrorMixedDeviceExecution, "cudaErrorMixedDeviceExecution"},
  {cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented"},
  {cudaErrorMemoryValueTooLarge, "cudaErrorMemoryValueTooLarge"},
  {cudaErrorStubLibrary, "cudaErrorStubLibrary"},
  {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver"},
  {cudaErrorCallRequiresNewerDriver, "cudaErrorCallRequiresNewerDriver"},
  {cudaErrorInvalidSurface, "cudaErrorInvalidSurface"},
  {cudaErrorDuplicateVariableName, "cudaErrorDuplicateVariableName"},
  {cudaErrorDuplicateTextureName, "cudaErrorDuplicateTextureName"},
  {cudaErrorDuplicateSurfaceName, "cudaErrorDuplicateSurfaceName"},
  {cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable"},
  {cudaErrorIncompatibleDriverContext, "cudaErrorIncompatibleDriverContext"},
  {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration"},
  {cudaErrorPriorLaunchFailure, "cudaErrorPriorLaunchFailure"},
  {cudaErrorLaunchMaxDepthExceeded, "cudaErrorLaunchMaxDepthExceeded"},
  {cudaErrorLaunchFileScopedTex, "cudaErrorLaunchFileScopedTex"},
  {cudaErrorLaunchFileScopedSurf, "cudaErrorLaunchFileScopedSurf"},
  {cudaErrorSyncDepthExceeded, "cudaErrorSyncDepthExceeded"},
  {cudaErrorLaunchPendingCountExceeded, "cudaErrorLaunchPendingCountExceeded"},
  {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction"},
  {cudaErrorNoDevice, "cudaErrorNoDevice"},
  {cudaErrorInvalidDevice, "cudaErrorInvalidDevice"},
  {cudaErrorDeviceNotLicensed, "cudaErrorDeviceNotLicensed"},
  {cudaErrorSoftwareValidityNotEstablished, "cudaErrorSoftwareValidityNotEstablished"},
  {cudaErrorStartupFailure, "cudaErrorStartupFailure"},
  {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage"},
  {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized"},
  {cudaErrorMapBufferObjectFailed, "cudaErrorMapBufferObjectFailed"},
  {cudaErrorUnmapBufferObjectFailed, "cudaErrorUnmapBufferObjectFailed"},
  {cudaErrorArrayIsMapped, "cudaErrorArrayIsMapped"},
  {cudaErrorAlreadyMapped, "cudaErrorAlreadyMapped"},
  {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice"},
  {cudaErrorAlreadyAcquired, "cudaErrorAlreadyAcquired"},
  {cudaErrorNotMapped, "cudaErrorNotMapped"},
  {cudaErrorNotMappedAsArray, "cudaErrorNotMappedAsArray"},
  {cudaErrorNotMappedAsPointer, "cudaErrorNotMappedAsPointer"},
  {cudaErrorECCUncorrectable, "cudaErrorECCUncorrectable"},
  {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit"},
  {cudaErrorDeviceAlreadyInUse, "cudaErrorDeviceAlreadyInUse"},
  {cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported"},
  {cudaErrorInvalidPtx, "cudaErrorInvalidPtx"},
  {cudaErrorInvalidGraphicsContext, "cudaErrorInvalidGraphicsContext"},
  {cudaErrorNvlinkUncorrectable, "cudaErrorNvlinkUncorrectable"},
  {cudaErrorJitCompilerNotFound, "cudaErrorJitCompilerNotFound"},
  {cudaErrorUnsupportedPtxVersion, "cudaErrorUnsupportedPtxVersion"},
  {cudaErrorJitCompilationDisabled, "cudaErrorJitCompilationDisabled"},
  {cudaErrorUnsupportedExecAffinity, "cudaErrorUnsupportedExecAffinity"},
  {cudaErrorUnsupportedDevSideSync, "cudaErrorUnsupportedDevSideSync"},
  {cudaErrorContained, "cudaErrorContained"},
  {cudaErrorInvalidSource, "cudaErrorInvalidSource"},
  {cudaErrorFileNotFound, "cudaErrorFileNotFound"},
  {cudaErrorSharedObjectSymbolNotFound, "cudaErrorSharedObjectSymbolNotFound"},
  {cudaErrorSharedObjectInitFailed, "cudaErrorSharedObjectInitFailed"},
  {cudaErrorOperatingSystem, "cudaErrorOperatingSystem"},
  {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle"},
  {cudaErrorIllegalState, "cudaErrorIllegalState"},
  {cudaErrorLossyQuery, "cudaErrorLossyQuery"},
  {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound"},
  {cudaErrorNotReady, "cudaErrorNotReady"},
  {cudaErrorIllegalAddress, "cudaErrorIllegalAddress"},
  {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources"},
  {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout"},
  {cudaErrorLaunchIncompatibleTexturing, "cudaErrorLaunchIncompatibleTexturing"},
  {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled"},
  {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled"},
  {cudaErrorSetOnActiveProcess, "cudaErrorSetOnActiveProcess"},
  {cudaErrorContextIsDestroyed, "cudaErrorContextIsDestroyed"},
  {cudaErrorAssert, "cudaErrorAssert"},
  {cudaErrorTooManyPeers, "cudaErrorTooManyPeers"},
  {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered"},
  {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered"},
  {cudaErrorHardwareStackError, "cudaErrorHardwareStackError"},
  {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction"},
  {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress"},
  {cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace"},
  {cudaErrorInvalidPc, "cudaErrorInvalidPc"},
  {cudaErrorLaunchFailure, "cudaErrorLaunchFailure"},
  {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge"},
  {cudaErrorTensorMemoryLeak, "cudaErrorTensorMemoryLeak"},
  {cudaErrorNotPermitted, "cudaErrorNotPermitted"},
  {cudaErrorNotSupported, "cudaErrorNotSupported"},
  {cudaErrorSystemNotReady, "cudaErrorSystemNotReady"},
  {cudaErrorSystemDriverMismatch, "cudaErrorSystemDriverMismatch"},
  {cudaErrorCompatNotSupportedOnDevice, "cudaErrorCompatNotSupportedOnDevice"},
  {cudaErrorMpsConnectionFailed, "cudaErrorMpsConnectionFailed"},
  {cudaErrorMpsRpcFailure, "cudaErrorMpsRpcFailure"},
  {cudaErrorMpsServerNotReady, "cudaErrorMpsServerNotReady"},
  {cudaErrorMpsMaxClientsReached, "cudaErrorMpsMaxClientsReached"},
  {cudaErrorMpsMaxConnectionsReached, "cudaErrorMpsMaxConnectionsReached"},
  {cudaErrorMpsClientTerminated, "cudaErrorMpsClientTerminated"},
  {cudaErrorCdpNotSupported, "cudaErrorCdpNotSupported"},
  {cudaErrorCdpVersionMismatch, "cudaErrorCdpVersionMismatch"},
  {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported"},
  {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated"},
  {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge"},
  {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched"},
  {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined"},
  {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation"},
  {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit"},
  {cudaErrorCapturedEvent, "cudaErrorCapturedEvent"},
  {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread"},
  {cudaErrorTimeout, "cudaErrorTimeout"},
  {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure"},
  {cudaErrorExternalDevice, "cudaErrorExternalDevice"},
  {cudaErrorInvalidClusterSize, "cudaErrorInvalidClusterSize"},
  {cudaErrorFunctionNotLoaded, "cudaErrorFunctionNotLoaded"},
  {cudaErrorInvalidResourceType, "cudaErrorInvalidResourceType"},
  {cudaErrorInvalidResourceConfiguration, "cudaErrorInvalidResourceConfiguration"},
  {cudaErrorUnknown, "cudaErrorUnknown"},
  {cudaErrorApiFailureBase, "cudaErrorApiFailureBase"},
};

/* ------------------------------------------------------------------ memory */

struct Alloc {
  size_t size;
  int kind; /* 0 device, 1 pinned host, 2 managed, 3 symbol */
};
static std::mutex g_mem_mutex;
static std::map<uintptr_t, Alloc> g_allocs;
static size_t g_allocated = 0;

static size_t total_memory() {
  static size_t t = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t v = (pages > 0 && page > 0) ? (size_t)pages * (size_t)page / 2 : (size_t)8 << 30;
    return v;
  }();
  return t;
}

/* The allocation holding p, or null. */
static const std::pair<const uintptr_t, Alloc> *find_alloc(const void *p) {
  uintptr_t a = (uintptr_t)p;
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return nullptr;
  --it;
  if (a >= it->first && a < it->first + (it->second.size ? it->second.size : 1)) return &*it;
  return nullptr;
}

bool range_is_device(const void *p, size_t n) {
  std::lock_guard<std::mutex> g(g_mem_mutex);
  auto *a = find_alloc(p);
  return a && (uintptr_t)p + n <= a->first + a->second.size;
}

void register_device_range(const void *p, size_t n) {
  std::lock_guard<std::mutex> g(g_mem_mutex);
  if (!find_alloc(p)) g_allocs[(uintptr_t)p] = Alloc{n, 3};
}

/* Explains why [p, p+n) is not device memory, for cudaMemcpy and cudaMemset. */
static void explain_range(char *out, size_t cap, const char *what, const void *p, size_t n) {
  std::lock_guard<std::mutex> g(g_mem_mutex);
  auto *a = find_alloc(p);
  if (!a)
    snprintf(out, cap, "the %s %p is not device memory (not from cudaMalloc)", what, p);
  else
    snprintf(out, cap, "the %s range of %zu bytes at offset %zu overruns its device allocation of %zu bytes by %zu bytes",
             what, n, (size_t)((uintptr_t)p - a->first), a->second.size,
             (size_t)((uintptr_t)p + n - a->first - a->second.size));
}

static cudaError_t do_alloc(void **p, size_t size, int kind, const char *fn) {
  if (!p) {
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  *p = nullptr;
  if (size == 0) return cudaSuccess;
  {
    std::lock_guard<std::mutex> g(g_mem_mutex);
    if (kind != 1 && size > total_memory() - g_allocated) {
      diag("emu: %s of %zu bytes: out of device memory (%zu of %zu bytes in use) (cudaErrorMemoryAllocation)", fn,
           size, g_allocated, total_memory());
      set_error(cudaErrorMemoryAllocation);
      return cudaErrorMemoryAllocation;
    }
  }
  void *m = malloc(size); /* exactly the size asked for, so AddressSanitizer sees overruns */
  if (!m) {
    set_error(cudaErrorMemoryAllocation);
    return cudaErrorMemoryAllocation;
  }
  std::lock_guard<std::mutex> g(g_mem_mutex);
  g_allocs[(uintptr_t)m] = Alloc{size, kind};
  if (kind != 1) g_allocated += size;
  *p = m;
  return cudaSuccess;
}

static cudaError_t do_free(void *p, bool host, const char *fn) {
  if (!p) return cudaSuccess;
  std::lock_guard<std::mutex> g(g_mem_mutex);
  auto it = g_allocs.find((uintptr_t)p);
  if (it == g_allocs.end() || it->second.kind == 3 || (it->second.kind == 1) != host) {
    fprintf(stderr, "emu: %s(%p): not a pointer returned by %s (already freed?) (cudaErrorInvalidValue)\n", fn, p,
            host ? "cudaMallocHost" : "cudaMalloc");
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  if (it->second.kind != 1) g_allocated -= it->second.size;
  g_allocs.erase(it);
  free(p);
  return cudaSuccess;
}

static cudaError_t check_copy(const char *fn, void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
  if ((int)kind < 0 || (int)kind > 4) {
    diag("emu: %s: invalid cudaMemcpyKind %d (cudaErrorInvalidMemcpyDirection)", fn, (int)kind);
    set_error(cudaErrorInvalidMemcpyDirection);
    return cudaErrorInvalidMemcpyDirection;
  }
  if (n == 0) return cudaSuccess;
  if (!dst || !src) {
    diag("emu: %s: null %s pointer (cudaErrorInvalidValue)", fn, dst ? "source" : "destination");
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  char why[300];
  bool bad = false;
  if ((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) && !range_is_device(dst, n)) {
    explain_range(why, sizeof why, "destination", dst, n);
    bad = true;
  } else if ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !range_is_device(src, n)) {
    explain_range(why, sizeof why, "source", src, n);
    bad = true;
  }
  if (bad) {
    diag("emu: %s of %zu bytes: %s (cudaErrorInvalidValue)", fn, n, why);
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

}  // namespace scanlab_emu

using namespace scanlab_emu;

/* Every call returns the sticky error of a failed kernel, as the real runtime does. */
#define STICKY_CHECK()                         \
  do {                                         \
    cudaError_t s_ = sticky_error();           \
    if (s_ != cudaSuccess) return s_;          \
  } while (0)

struct CUstream_st {
  unsigned flags;
};
struct CUevent_st {
  double t;
  bool recorded;
};

/* Bytes copied between host and device through the runtime: the kit's driver reads them
 * around a student's call, where the lab's work must stay on the device. */
static std::atomic<unsigned long long> g_d2h{0}, g_h2d{0};

static void count_copy(const void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDefault) {
    const bool d = range_is_device(dst, n), s = range_is_device(src, n);
    kind = d && s ? cudaMemcpyDeviceToDevice : d ? cudaMemcpyHostToDevice
                                                 : s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
  }
  if (kind == cudaMemcpyDeviceToHost) g_d2h += n;
  if (kind == cudaMemcpyHostToDevice) g_h2d += n;
}

extern "C" {

void scanlab_emu_copy_counters(unsigned long long *d2h, unsigned long long *h2d) {
  if (d2h) *d2h = g_d2h.load();
  if (h2d) *h2d = g_h2d.load();
}

cudaError_t cudaGetLastError(void) {
  cudaError_t s = sticky_error();
  if (s != cudaSuccess) return s;
  return (cudaError_t)g_last.exchange(cudaSuccess);
}
cudaError_t cudaPeekAtLastError(void) {
  cudaError_t s = sticky_error();
  return s != cudaSuccess ? s : (cudaError_t)g_last.load();
}

const char *cudaGetErrorName(cudaError_t error) {
  for (const ErrName &n : ERR_NAMES)
    if (n.e == error) return n.name;
  return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
    default: return cudaGetErrorName(error);
  }
}

cudaError_t cudaGetDeviceCount(int *count) {
  if (!count) return cudaErrorInvalidValue;
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device) {
  if (!device) return cudaErrorInvalidValue;
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  STICKY_CHECK();
  if (device != 0) {
    set_error(cudaErrorInvalidDevice);
    return cudaErrorInvalidDevice;
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device) {
  if (!p) return cudaErrorInvalidValue;
  if (device != 0) {
    set_error(cudaErrorInvalidDevice);
    return cudaErrorInvalidDevice;
  }
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "ScanLab CPU emulator");
  p->totalGlobalMem = total_memory();
  p->sharedMemPerBlock = 49152;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = 1000000;
  p->totalConstMem = 65536;
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->deviceOverlap = 0;
  p->multiProcessorCount = config().workers;
  p->concurrentKernels = 0;
  p->asyncEngineCount = 0;
  p->unifiedAddressing = 1;
  p->memoryClockRate = 1000000;
  p->memoryBusWidth = 64;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = 233472;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->sharedMemPerBlockOptin = 232448;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  if (!value || device != 0) return cudaErrorInvalidValue;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default: *value = 0; break;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  STICKY_CHECK();
  sync_all();
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  std::lock_guard<std::mutex> g(g_mem_mutex);
  for (auto &a : g_allocs)
    if (a.second.kind != 3) free((void *)a.first);
  g_allocs.clear();
  g_allocated = 0;
  g_sticky.store(cudaSuccess);
  g_last.store(cudaSuccess);
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  (void)config;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  STICKY_CHECK();
  std::lock_guard<std::mutex> g(g_mem_mutex);
  if (free_bytes) *free_bytes = total_memory() - g_allocated;
  if (total_bytes) *total_bytes = total_memory();
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version) {
  if (!version) return cudaErrorInvalidValue;
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *version) {
  if (!version) return cudaErrorInvalidValue;
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  STICKY_CHECK();
  return do_alloc(devPtr, size, 0, "cudaMalloc");
}
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  (void)flags;
  STICKY_CHECK();
  return do_alloc(devPtr, size, 2, "cudaMallocManaged");
}
cudaError_t cudaFree(void *devPtr) {
  STICKY_CHECK();
  return do_free(devPtr, false, "cudaFree");
}
cudaError_t cudaMallocHost(void **ptr, size_t size) {
  STICKY_CHECK();
  return do_alloc(ptr, size, 1, "cudaMallocHost");
}
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  (void)flags;
  STICKY_CHECK();
  return do_alloc(ptr, size, 1, "cudaHostAlloc");
}
cudaError_t cudaFreeHost(void *ptr) {
  STICKY_CHECK();
  return do_free(ptr, true, "cudaFreeHost");
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  STICKY_CHECK();
  cudaError_t e = check_copy("cudaMemcpy", dst, src, count, kind);
  if (e != cudaSuccess) return e;
  count_copy(dst, src, count, kind);
  if (count) memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  STICKY_CHECK();
  cudaError_t e = check_copy("cudaMemcpyAsync", dst, src, count, kind);
  if (e != cudaSuccess) return e;
  count_copy(dst, src, count, kind);
  if (count) memmove(dst, src, count);
  return cudaSuccess;
}
static cudaError_t memset_impl(const char *fn, void *p, int value, size_t count) {
  STICKY_CHECK();
  if (count == 0) return cudaSuccess;
  if (!range_is_device(p, count)) {
    char why[300];
    explain_range(why, sizeof why, "destination", p, count);
    diag("emu: %s of %zu bytes: %s (cudaErrorInvalidValue)", fn, count, why);
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  memset(p, value, count);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return memset_impl("cudaMemset", devPtr, value, count); }
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  (void)stream;
  return memset_impl("cudaMemsetAsync", devPtr, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind) {
  STICKY_CHECK();
  if (!symbol || (!src && count) || (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
                                     kind != cudaMemcpyDefault)) {
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  if (kind != cudaMemcpyDeviceToDevice) g_h2d += count;
  if (count) memmove((char *)symbol + offset, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
  STICKY_CHECK();
  if (!symbol || (!dst && count) || (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
                                     kind != cudaMemcpyDefault)) {
    set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  if (kind != cudaMemcpyDeviceToDevice) g_d2h += count;
  if (count) memmove(dst, (const char *)symbol + offset, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  STICKY_CHECK();
  if (!devPtr || !symbol) return cudaErrorInvalidSymbol;
  *devPtr = (void *)symbol;
  return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  (void)symbol;
  if (!size) return cudaErrorInvalidValue;
  *size = 0;
  return cudaErrorInvalidSymbol; /* unknown from C; the C++ overload knows the type */
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
  STICKY_CHECK();
  if (!stream) return cudaErrorInvalidValue;
  *stream = new CUstream_st{flags};
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if ((uintptr_t)stream > 2) delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  (void)stream;
  STICKY_CHECK();
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  (void)stream;
  STICKY_CHECK();
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  (void)stream;
  (void)event;
  (void)flags;
  STICKY_CHECK();
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  (void)flags;
  STICKY_CHECK();
  if (!event) return cudaErrorInvalidValue;
  *event = new CUevent_st{0.0, false};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  (void)stream;
  STICKY_CHECK();
  if (!event) return cudaErrorInvalidResourceHandle;
  event->t = now_s();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  STICKY_CHECK();
  return event ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  STICKY_CHECK();
  return event ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  STICKY_CHECK();
  if (!ms) return cudaErrorInvalidValue;
  if (!start || !end || !start->recorded || !end->recorded) {
    set_error(cudaErrorInvalidResourceHandle);
    return cudaErrorInvalidResourceHandle;
  }
  *ms = (float)((end->t - start->t) * 1000.0);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

cudaError_t(cudaFuncSetAttribute)(const void *func, cudaFuncAttribute attr, int value) {
  return func_set_attribute(nullptr, func, attr, value);
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  STICKY_CHECK();
  if (!attr) return cudaErrorInvalidValue;
  memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = dynamic_smem_limit_for(func);
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config) {
  (void)func;
  (void)config;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize) {
  (void)func;
  if (!numBlocks || blockSize <= 0) return cudaErrorInvalidValue;
  int n = 2048 / blockSize;
  if (dynamicSMemSize) {
    int m = (int)(233472 / dynamicSMemSize);
    if (m < n) n = m;
  }
  if (n > 32) n = 32;
  *numBlocks = n;
  return cudaSuccess;
}

}  /* extern "C" */
/// @endcond
