/**
 * @file builtin_types.h
 * @brief Emulation backend: every type of the runtime API (driver_types.h, vector_types.h).
 */
#include "device_types.h"
#include "driver_types.h"
#include "vector_types.h"
