/**
 * @file device_types.h
 * @brief Emulation backend: the toolkit's `device_types.h` (the rounding modes, which live in
 *        driver_types.h here).
 */
#ifndef __DEVICE_TYPES_H__
#define __DEVICE_TYPES_H__
#include "driver_types.h"
#endif /* __DEVICE_TYPES_H__ */
