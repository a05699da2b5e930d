/**
 * @file scanlab_emu.h
 * @brief Included first (`-include scanlab_emu.h`) in every `.cu` file built for the CPU
 *        emulation backend: what nvcc provides implicitly.
 *
 * nvcc includes `cuda_runtime.h` in every `.cu` file, and with it a few standard headers
 * (`<stdio.h>`, `<stdlib.h>`, `<string.h>`, `<math.h>`, `<cmath>`, ...); this header does the
 * same for the host compiler, no more (not `<stdint.h>`, which a program may replace with
 * typedefs of its own), and defines `__CUDACC__`, so code that tests it takes its CUDA path.
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
#if defined(SCANLAB_EMU_PROBED) && defined(__cplusplus) && defined(__x86_64__)
/* With the memory probes, a copy or fill the compiler leaves as a call (its size known only at
 * run time) goes to the probes' own memcpy, memmove and memset (probe.cpp), which count it as
 * the loads and stores it is; one of a known size the instrumentation already reads as a range.
 * The names are the functions' mangled ones in namespace scanlab_emu (x86-64's C++ ABI). */
#pragma redefine_extname memcpy _ZN11scanlab_emu12probe_memcpyEPvPKvm
#pragma redefine_extname memmove _ZN11scanlab_emu13probe_memmoveEPvPKvm
#pragma redefine_extname memset _ZN11scanlab_emu12probe_memsetEPvim
#endif
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __cplusplus
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#endif
/// @endcond
#include "cuda_runtime.h"
/* Not CUDA: how many calls the calling host thread has made so far that wait for the device
 * (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a synchronous copy other
 * than host to host, cudaMemset, cudaFree, cudaFreeHost, ...); *last, where last is not null,
 * gets the name of the latest such call (a static string), or null before the first. The kit's
 * driver reads it around a call that must not wait (README, "Several devices"). */
#ifdef __cplusplus
extern "C"
#endif
/** The calls of the calling host thread so far that waited for the device (cudaDeviceSynchronize,
 *  cudaStreamSynchronize, a synchronous copy, cudaFree, ...); @p last, if not NULL, receives the
 *  name of the latest. */
unsigned long long scanlab_emu_host_syncs(const char **last);
/// @cond EMU_INTERNAL
#ifdef SCANLAB_EMU_STACK_KB_DEFAULT
/* emu-nvcc defines it: each CUDA thread's stack, unless SCANLAB_EMU_STACK_KB says */
static const int scanlab_emu_stack_kb_default_ = ::scanlab_emu::set_default_stack_kb(SCANLAB_EMU_STACK_KB_DEFAULT);
/* An object built for the emulator, linked without its runtime (by the C++ compiler against the
 * toolkit's libcudart, say), fails with this name first among the undefined ones, so the
 * message says what to do. */
namespace scanlab_emu {
void this_object_needs_the_emulators_runtime_link_with_emu_nvcc_or_CUDA_PATH_set_to_build_emu_toolkit();
}
__attribute__((used)) static void scanlab_emu_link_hint_() {
  ::scanlab_emu::this_object_needs_the_emulators_runtime_link_with_emu_nvcc_or_CUDA_PATH_set_to_build_emu_toolkit();
}
#endif
#if defined(SCANLAB_EMU_PROBED) && defined(__cplusplus)
/* a file built with the probes (EMU_PROBE_FLAGS): they are on in the program (a file built for
 * lockstep only, EMU_LOCKSTEP_FLAGS, has GCC's hooks but not this) */
namespace scanlab_emu {
bool probes_built_in();
}
static const bool scanlab_emu_probed_ = ::scanlab_emu::probes_built_in();
#endif
/// @endcond
#endif /* SCANLAB_EMU_H */
