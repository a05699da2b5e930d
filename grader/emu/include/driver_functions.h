/**
 * @file driver_functions.h
 * @brief Emulation backend: the small constructors of the runtime's structures
 *        (`make_cudaExtent`, `make_cudaPos`, `make_cudaPitchedPtr`), under the toolkit's guard.
 */
#ifndef __DRIVER_FUNCTIONS_H__
#define __DRIVER_FUNCTIONS_H__
/// @cond EMU_INTERNAL
#include "driver_types.h"

static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
  struct cudaPitchedPtr s;
  s.ptr = d;
  s.pitch = p;
  s.xsize = xsz;
  s.ysize = ysz;
  return s;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  struct cudaPos p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  struct cudaExtent e;
  e.width = w;
  e.height = h;
  e.depth = d;
  return e;
}
/// @endcond
#endif /* __DRIVER_FUNCTIONS_H__ */
