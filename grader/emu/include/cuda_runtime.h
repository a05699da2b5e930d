/**
 * @file cuda_runtime.h
 * @brief The CUDA runtime API as the CPU emulation backend (`emu`) provides it.
 *
 * This header replaces the toolkit's `cuda_runtime.h` when a program is built for the
 * `emu` backend, and is shaped like it: the same include guard (`__CUDA_RUNTIME_H__`), and
 * the same split into driver_types.h, vector_types.h, vector_functions.h and
 * cuda_runtime_api.h, each under the toolkit's guard, so the common helper headers that test
 * those guards find what they look for. The host part (types, enums, `cudaMalloc`,
 * `cudaMemcpy`, events, device properties, ...) is plain C11 with C linkage, so `.c` files can
 * include it. The device part (kernels, built-in variables, barriers, warp collectives,
 * atomics) is C++ and is only seen by C++ translation units: see scanlab_emu_device.h.
 *
 * Enum names and numeric values follow the real runtime, so error codes compare equal and
 * print the same names. See @ref emu for what the backend does and cannot do.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
/// @cond EMU_INTERNAL
#define SCANLAB_EMU_CUDA_RUNTIME_H
/// @endcond

/** Defined to 1 when building for the CPU emulation backend; code can test it. */
#define SCANLAB_EMU 1

/// @cond EMU_INTERNAL
#include <stddef.h>
#include <string.h>

#include "host_defines.h"
#include "builtin_types.h"
#include "cuda_runtime_api.h"
#include "driver_functions.h"
#include "vector_functions.h"
/// @endcond

#ifdef __cplusplus
#include "scanlab_emu_device.h"
#endif

#endif /* __CUDA_RUNTIME_H__ */
