/**
 * @file nvtx3/nvToolsExt.h
 * @brief Emulation backend: NVTX 3's path to the same no-op markers and ranges.
 */
#include "../nvToolsExt.h"
