/**
 * @file device_launch_parameters.h
 * @brief Emulation backend: the built-in variables come with cuda_runtime.h.
 */
#include "cuda_runtime.h"
