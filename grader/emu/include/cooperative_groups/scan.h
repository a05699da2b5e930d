/**
 * @file scan.h
 * @brief Emulation backend: `cooperative_groups/scan.h`, whose functions come with cooperative_groups.h.
 */
#include "../cooperative_groups.h"
