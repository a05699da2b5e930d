/**
 * @file cuda_pipeline.h
 * @brief Emulation backend: the pipeline primitives of asynchronous copies into shared memory
 *        (`__pipeline_memcpy_async`, `__pipeline_commit`, `__pipeline_wait_prior`).
 *
 * A copy here is done when it is issued, so committing and waiting have nothing left to do; a
 * program still needs its `__syncthreads()` before other threads read what was copied, as on
 * a GPU.
 */
#ifndef SCANLAB_EMU_CUDA_PIPELINE_H
#define SCANLAB_EMU_CUDA_PIPELINE_H
/// @cond EMU_INTERNAL
#include "cuda_runtime.h"

#ifdef __cplusplus
/* size_and_align bytes from src to dst; the last zfill of them are zero instead */
inline void __pipeline_memcpy_async(void *dst, const void *src, size_t size_and_align, size_t zfill = 0) {
  const size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
  __builtin_memcpy(dst, src, copied);
  __builtin_memset(static_cast<char *>(dst) + copied, 0, size_and_align - copied);
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t prior) { (void)prior; }
#endif
/// @endcond
#endif /* SCANLAB_EMU_CUDA_PIPELINE_H */
