/**
 * @file cuda_profiler_api.h
 * @brief Emulation backend: `cudaProfilerStart` and `cudaProfilerStop`, which do nothing here
 *        (the memory probes count every launch; see @ref emu).
 */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__
/// @cond EMU_INTERNAL
#include "cuda_runtime_api.h"
SCANLAB_EMU_EXTERN_C_BEGIN
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
SCANLAB_EMU_EXTERN_C_END
/// @endcond
#endif /* __CUDA_PROFILER_API_H__ */
