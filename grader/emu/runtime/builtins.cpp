/**
 * @file builtins.cpp
 * @brief Emulation backend: the definitions of the built-in variables `gridDim` and
 *        `blockDim`.
 *
 * Device code sees them as `extern __thread ::uint3` (scanlab_emu_device.h); the scheduler sets
 * them when a worker starts a block (sched.cpp).
 */
#include "vector_types.h"

__thread ::uint3 gridDim;
__thread ::uint3 blockDim;
