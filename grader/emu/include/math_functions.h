/**
 * @file math_functions.h
 * @brief Emulation backend: the toolkit's `math_functions.h`, whose functions come with cuda_runtime.h.
 */
#include "cuda_runtime.h"
