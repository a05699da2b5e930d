/**
 * @file host_defines.h
 * @brief Emulation backend: the CUDA qualifiers (`__global__`, `__device__`, ...) as the host
 *        compiler reads them, under the toolkit's include guard.
 */
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__
/// @cond EMU_INTERNAL
/* CUDA function and variable qualifiers: nothing to do on the CPU. */
#define __host__
#define __device__
#define __global__ __attribute__((noinline)) /* a kernel stays a function of its own: the lines of its code in a race report (an -O2 build with -g1 names an inlined body by the launch's line) */
#define __constant__
#define __managed__
#define __forceinline__ inline
/* Empty on purpose: libstdc++ spells `__attribute__((__noinline__))`, which stays valid. */
#define __noinline__
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define CUDARTAPI
#define CUDAAPI
#ifndef __CUDA_ALIGN__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#endif
#ifndef __DEVICE_FUNCTIONS_DECL__
#define __DEVICE_FUNCTIONS_DECL__
#endif

/* What the emulator does not do is an error where it is used, naming the feature. */
#define SCANLAB_EMU_UNSUPPORTED(what) \
  __attribute__((unavailable("not supported by the ScanLab CPU emulator (emu): " what)))
/// @endcond
#endif /* __HOST_DEFINES_H__ */
