/**
 * @file device_atomic_functions.h
 * @brief Emulation backend: the toolkit's `device_atomic_functions.h`, whose functions come with cuda_runtime.h.
 */
#include "cuda_runtime.h"
