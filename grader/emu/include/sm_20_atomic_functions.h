/**
 * @file sm_20_atomic_functions.h
 * @brief Emulation backend: the device functions this header declares are in cuda_runtime.h.
 */
#include "cuda_runtime.h"
