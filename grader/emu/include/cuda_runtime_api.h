/**
 * @file cuda_runtime_api.h
 * @brief Emulation backend: same as cuda_runtime.h (the real toolkit splits them).
 */
#include "cuda_runtime.h"
