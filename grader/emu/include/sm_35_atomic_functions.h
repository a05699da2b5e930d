/**
 * @file sm_35_atomic_functions.h
 * @brief Emulation backend: the device functions this header declares are in cuda_runtime.h.
 */
#include "cuda_runtime.h"
