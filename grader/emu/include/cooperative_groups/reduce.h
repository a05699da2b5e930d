/**
 * @file reduce.h
 * @brief Emulation backend: `cooperative_groups/reduce.h`, whose functions come with cooperative_groups.h.
 */
#include "../cooperative_groups.h"
