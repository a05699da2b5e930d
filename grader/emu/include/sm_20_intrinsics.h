/**
 * @file sm_20_intrinsics.h
 * @brief Emulation backend: the device functions this header declares are in cuda_runtime.h.
 */
#include "cuda_runtime.h"
