/**
 * @file scanlab_emu.h
 * @brief Included first (`-include scanlab_emu.h`) in every `.cu` file built for the CPU
 *        emulation backend: what nvcc provides implicitly.
 *
 * nvcc includes `cuda_runtime.h` in every `.cu` file; this header does the same for the host
 * compiler and defines `__CUDACC__`, so code that tests it takes its CUDA path.
 */
#ifndef SCANLAB_EMU_H
#define SCANLAB_EMU_H
/// @cond EMU_INTERNAL
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
/* nvcc hands only host code to the host compiler, so device code never meets these host
   warnings there (`threadIdx.x >= d` with an int d is everywhere in CUDA code). With -Werror
   they would stop sources that build with nvcc. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
/// @endcond
#include "cuda_runtime.h"
#endif /* SCANLAB_EMU_H */
