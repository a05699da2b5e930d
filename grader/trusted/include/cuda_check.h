/**
 * @file cuda_check.h
 * @brief Checked CUDA calls for the lab files: CUDA_CHECK() and CUDA_CHECK_LAUNCH().
 *
 * Plain C API (macros), usable from `.c` and `.cu` files and on both backends. On an error
 * the message names the file, the line, the expression and the error, and the running test
 * fails there: after most CUDA errors the context is unusable, so nothing can go on.
 * @code
 * CUDA_CHECK(cudaMalloc(&d_tmp, n * sizeof(int)));
 * myKernel<<<blocks, threads>>>(d_tmp, n);
 * CUDA_CHECK_LAUNCH();
 * @endcode
 */
#ifndef SCANLAB_CUDA_CHECK_H
#define SCANLAB_CUDA_CHECK_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Checks a CUDA runtime call; on an error it prints the file and line, the error's name and
 *  description, and the expression, then exits. */
#define CUDA_CHECK(expr) scanlab_cuda_check((expr), #expr, __FILE__, __LINE__)

/** Checks the launch just made (`cudaGetLastError`): a bad configuration fails here. */
#define CUDA_CHECK_LAUNCH() scanlab_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/** Implementation of CUDA_CHECK() (provided by the kit's driver). */
void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_CUDA_CHECK_H */
