/**
 * @file cuda.h
 * @brief Emulation backend: the driver API is not emulated; this header gives the runtime API
 *        and the few driver calls that helper headers make (error names, device count and name,
 *        versions), under the toolkit's include guard.
 */
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
/// @cond EMU_INTERNAL
#include <stdint.h> /* as the toolkit's cuda.h: a program's own uint64_t must agree with it */

#include "cuda_runtime_api.h"

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

#define CUDA_VERSION CUDART_VERSION
#define CUDAAPI

SCANLAB_EMU_EXTERN_C_BEGIN
typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuGetErrorString(CUresult error, const char **pStr);
SCANLAB_EMU_EXTERN_C_END
/// @endcond
#endif /* __cuda_cuda_h__ */
