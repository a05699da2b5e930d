/**
 * @file cuda_runtime.h
 * @brief The CUDA runtime API as the CPU emulation backend (`emu`) provides it.
 *
 * This header replaces the toolkit's `cuda_runtime.h` when a program is built for the
 * `emu` backend. The host part (types, enums, `cudaMalloc`, `cudaMemcpy`, events, device
 * properties, ...) is plain C11 with C linkage, so `.c` files can include it. The device
 * part (kernels, built-in variables, barriers, warp collectives, atomics) is C++ and is only
 * seen by C++ translation units: see scanlab_emu_device.h.
 *
 * Enum names and numeric values follow the real runtime, so error codes compare equal and
 * print the same names. See @ref emu for what the backend does and cannot do.
 */
#ifndef SCANLAB_EMU_CUDA_RUNTIME_H
#define SCANLAB_EMU_CUDA_RUNTIME_H

/** Defined to 1 when building for the CPU emulation backend; code can test it. */
#define SCANLAB_EMU 1

/// @cond EMU_INTERNAL
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define CUDART_VERSION 12000

/* CUDA function and variable qualifiers: nothing to do on the CPU. */
#define __host__
#define __device__
#define __global__
#define __constant__
#define __managed__
#define __forceinline__ inline
/* Empty on purpose: libstdc++ spells `__attribute__((__noinline__))`, which stays valid. */
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#ifndef __CUDA_ALIGN__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#endif

#ifdef __cplusplus
#define SCANLAB_EMU_EXTERN_C extern "C"
#define SCANLAB_EMU_EXTERN_C_BEGIN extern "C" {
#define SCANLAB_EMU_EXTERN_C_END }
#define SCANLAB_EMU_DEFAULT(v) = v
#else
#define SCANLAB_EMU_EXTERN_C extern
#define SCANLAB_EMU_EXTERN_C_BEGIN
#define SCANLAB_EMU_EXTERN_C_END
#define SCANLAB_EMU_DEFAULT(v)
#endif

SCANLAB_EMU_EXTERN_C_BEGIN

/* ---- error codes (names and values of the real runtime) ---- */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorProfilerDisabled = 5,
  cudaErrorProfilerNotInitialized = 6,
  cudaErrorProfilerAlreadyStarted = 7,
  cudaErrorProfilerAlreadyStopped = 8,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidTexture = 18,
  cudaErrorInvalidTextureBinding = 19,
  cudaErrorInvalidChannelDescriptor = 20,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorAddressOfConstant = 22,
  cudaErrorTextureFetchFailed = 23,
  cudaErrorTextureNotBound = 24,
  cudaErrorSynchronizationError = 25,
  cudaErrorInvalidFilterSetting = 26,
  cudaErrorInvalidNormSetting = 27,
  cudaErrorMixedDeviceExecution = 28,
  cudaErrorNotYetImplemented = 31,
  cudaErrorMemoryValueTooLarge = 32,
  cudaErrorStubLibrary = 34,
  cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorInvalidSurface = 37,
  cudaErrorDuplicateVariableName = 43,
  cudaErrorDuplicateTextureName = 44,
  cudaErrorDuplicateSurfaceName = 45,
  cudaErrorDevicesUnavailable = 46,
  cudaErrorIncompatibleDriverContext = 49,
  cudaErrorMissingConfiguration = 52,
  cudaErrorPriorLaunchFailure = 53,
  cudaErrorLaunchMaxDepthExceeded = 65,
  cudaErrorLaunchFileScopedTex = 66,
  cudaErrorLaunchFileScopedSurf = 67,
  cudaErrorSyncDepthExceeded = 68,
  cudaErrorLaunchPendingCountExceeded = 69,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorDeviceNotLicensed = 102,
  cudaErrorSoftwareValidityNotEstablished = 103,
  cudaErrorStartupFailure = 127,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorDeviceUninitialized = 201,
  cudaErrorMapBufferObjectFailed = 205,
  cudaErrorUnmapBufferObjectFailed = 206,
  cudaErrorArrayIsMapped = 207,
  cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorAlreadyAcquired = 210,
  cudaErrorNotMapped = 211,
  cudaErrorNotMappedAsArray = 212,
  cudaErrorNotMappedAsPointer = 213,
  cudaErrorECCUncorrectable = 214,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorDeviceAlreadyInUse = 216,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218,
  cudaErrorInvalidGraphicsContext = 219,
  cudaErrorNvlinkUncorrectable = 220,
  cudaErrorJitCompilerNotFound = 221,
  cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorJitCompilationDisabled = 223,
  cudaErrorUnsupportedExecAffinity = 224,
  cudaErrorUnsupportedDevSideSync = 225,
  cudaErrorContained = 226,
  cudaErrorInvalidSource = 300,
  cudaErrorFileNotFound = 301,
  cudaErrorSharedObjectSymbolNotFound = 302,
  cudaErrorSharedObjectInitFailed = 303,
  cudaErrorOperatingSystem = 304,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorLossyQuery = 402,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchIncompatibleTexturing = 703,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorSetOnActiveProcess = 708,
  cudaErrorContextIsDestroyed = 709,
  cudaErrorAssert = 710,
  cudaErrorTooManyPeers = 711,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorTensorMemoryLeak = 721,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorSystemNotReady = 802,
  cudaErrorSystemDriverMismatch = 803,
  cudaErrorCompatNotSupportedOnDevice = 804,
  cudaErrorMpsConnectionFailed = 805,
  cudaErrorMpsRpcFailure = 806,
  cudaErrorMpsServerNotReady = 807,
  cudaErrorMpsMaxClientsReached = 808,
  cudaErrorMpsMaxConnectionsReached = 809,
  cudaErrorMpsClientTerminated = 810,
  cudaErrorCdpNotSupported = 811,
  cudaErrorCdpVersionMismatch = 812,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureMerge = 902,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorTimeout = 909,
  cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorExternalDevice = 911,
  cudaErrorInvalidClusterSize = 912,
  cudaErrorFunctionNotLoaded = 913,
  cudaErrorInvalidResourceType = 914,
  cudaErrorInvalidResourceConfiguration = 915,
  cudaErrorUnknown = 999,
  cudaErrorApiFailureBase = 10000,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
typedef enum cudaMemcpyKind cudaMemcpyKind;

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeMax
};
typedef enum cudaFuncAttribute cudaFuncAttribute;

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
typedef enum cudaFuncCache cudaFuncCache;

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};
typedef enum cudaDeviceAttr cudaDeviceAttr;

/* ---- vector types ---- */
#define SCANLAB_EMU_VEC2(T, N, A) typedef struct __attribute__((aligned(A))) N { T x, y; } N;
#define SCANLAB_EMU_VEC3(T, N) typedef struct N { T x, y, z; } N;
#define SCANLAB_EMU_VEC4(T, N, A) typedef struct __attribute__((aligned(A))) N { T x, y, z, w; } N;
SCANLAB_EMU_VEC2(char, char2, 2)
SCANLAB_EMU_VEC2(unsigned char, uchar2, 2)
SCANLAB_EMU_VEC2(short, short2, 4)
SCANLAB_EMU_VEC2(unsigned short, ushort2, 4)
SCANLAB_EMU_VEC2(int, int2, 8)
SCANLAB_EMU_VEC2(unsigned int, uint2, 8)
SCANLAB_EMU_VEC2(float, float2, 8)
SCANLAB_EMU_VEC2(long long, longlong2, 16)
SCANLAB_EMU_VEC2(unsigned long long, ulonglong2, 16)
SCANLAB_EMU_VEC2(double, double2, 16)
SCANLAB_EMU_VEC3(int, int3)
SCANLAB_EMU_VEC3(unsigned int, uint3)
SCANLAB_EMU_VEC3(float, float3)
SCANLAB_EMU_VEC4(char, char4, 4)
SCANLAB_EMU_VEC4(unsigned char, uchar4, 4)
SCANLAB_EMU_VEC4(short, short4, 8)
SCANLAB_EMU_VEC4(unsigned short, ushort4, 8)
SCANLAB_EMU_VEC4(int, int4, 16)
SCANLAB_EMU_VEC4(unsigned int, uint4, 16)
SCANLAB_EMU_VEC4(float, float4, 16)
SCANLAB_EMU_VEC4(long long, longlong4, 32)
SCANLAB_EMU_VEC4(unsigned long long, ulonglong4, 32)
SCANLAB_EMU_VEC4(double, double4, 32)
#undef SCANLAB_EMU_VEC2
#undef SCANLAB_EMU_VEC3
#undef SCANLAB_EMU_VEC4

#define SCANLAB_EMU_MAKE2(N, T) static inline N make_##N(T x, T y) { N r; r.x = x; r.y = y; return r; }
#define SCANLAB_EMU_MAKE3(N, T) static inline N make_##N(T x, T y, T z) { N r; r.x = x; r.y = y; r.z = z; return r; }
#define SCANLAB_EMU_MAKE4(N, T) \
  static inline N make_##N(T x, T y, T z, T w) { N r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
SCANLAB_EMU_MAKE2(char2, char)
SCANLAB_EMU_MAKE2(uchar2, unsigned char)
SCANLAB_EMU_MAKE2(short2, short)
SCANLAB_EMU_MAKE2(ushort2, unsigned short)
SCANLAB_EMU_MAKE2(int2, int)
SCANLAB_EMU_MAKE2(uint2, unsigned int)
SCANLAB_EMU_MAKE2(float2, float)
SCANLAB_EMU_MAKE2(longlong2, long long)
SCANLAB_EMU_MAKE2(ulonglong2, unsigned long long)
SCANLAB_EMU_MAKE2(double2, double)
SCANLAB_EMU_MAKE3(int3, int)
SCANLAB_EMU_MAKE3(uint3, unsigned int)
SCANLAB_EMU_MAKE3(float3, float)
SCANLAB_EMU_MAKE4(char4, char)
SCANLAB_EMU_MAKE4(uchar4, unsigned char)
SCANLAB_EMU_MAKE4(short4, short)
SCANLAB_EMU_MAKE4(ushort4, unsigned short)
SCANLAB_EMU_MAKE4(int4, int)
SCANLAB_EMU_MAKE4(uint4, unsigned int)
SCANLAB_EMU_MAKE4(float4, float)
SCANLAB_EMU_MAKE4(longlong4, long long)
SCANLAB_EMU_MAKE4(ulonglong4, unsigned long long)
SCANLAB_EMU_MAKE4(double4, double)
#undef SCANLAB_EMU_MAKE2
#undef SCANLAB_EMU_MAKE3
#undef SCANLAB_EMU_MAKE4

/* dim3: a plain struct in C; with constructors in C++ (as in the real header). */
struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

/* ---- opaque handles ---- */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

/* ---- device properties (the fields programs commonly read) ---- */
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int concurrentManagedAccess;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  size_t reservedSharedMemPerBlock;
};
typedef struct cudaDeviceProp cudaDeviceProp;

/* Kernel attributes reported by cudaFuncGetAttributes. */
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};
typedef struct cudaFuncAttributes cudaFuncAttributes;

/* ---- host API ---- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags SCANLAB_EMU_DEFAULT(cudaMemAttachGlobal));
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                               size_t offset SCANLAB_EMU_DEFAULT(0),
                               cudaMemcpyKind kind SCANLAB_EMU_DEFAULT(cudaMemcpyHostToDevice));
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                 size_t offset SCANLAB_EMU_DEFAULT(0),
                                 cudaMemcpyKind kind SCANLAB_EMU_DEFAULT(cudaMemcpyDeviceToHost));
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags SCANLAB_EMU_DEFAULT(0));

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize);

/* Not CUDA: bytes copied device->host and host->device through the runtime so far (the
 * kit's driver reads them around a student's call). */
void scanlab_emu_copy_counters(unsigned long long *d2h, unsigned long long *h2d);
/* Not CUDA: the memory counters of every probed launch so far (global load requests and
 * sectors, store requests and sectors, shared load wavefronts and bank conflicts, store
 * wavefronts and conflicts, shared load and store requests, global load sectors of volatile
 * loads); the number written, 0 without probes. */
int scanlab_emu_probe_counters(unsigned long long *out, int n);

SCANLAB_EMU_EXTERN_C_END
/// @endcond

#ifdef __cplusplus
#include "scanlab_emu_device.h"
#endif

#endif /* SCANLAB_EMU_CUDA_RUNTIME_H */
