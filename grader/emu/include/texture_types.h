/**
 * @file texture_types.h
 * @brief Emulation backend: the texture and surface types live in driver_types.h.
 */
#include "driver_types.h"
