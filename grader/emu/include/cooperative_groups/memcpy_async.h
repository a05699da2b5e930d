/**
 * @file memcpy_async.h
 * @brief Emulation backend: `cooperative_groups/memcpy_async.h`, whose functions come with cooperative_groups.h.
 */
#include "../cooperative_groups.h"
