/**
 * @file cuda.h
 * @brief Emulation backend: the driver API is not emulated; this pulls in the runtime API.
 */
#include "cuda_runtime.h"
