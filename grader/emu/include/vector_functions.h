/**
 * @file vector_functions.h
 * @brief Emulation backend: `make_int2`, `make_float4`, ... for every vector type, under the
 *        toolkit's include guard, plain C11.
 */
#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__
/// @cond EMU_INTERNAL
#include "vector_types.h"

#define SCANLAB_EMU_MAKE1(N, T) static inline N make_##N(T x) { N r; r.x = x; return r; }
#define SCANLAB_EMU_MAKE2(N, T) static inline N make_##N(T x, T y) { N r; r.x = x; r.y = y; return r; }
#define SCANLAB_EMU_MAKE3(N, T) static inline N make_##N(T x, T y, T z) { N r; r.x = x; r.y = y; r.z = z; return r; }
#define SCANLAB_EMU_MAKE4(N, T) \
  static inline N make_##N(T x, T y, T z, T w) { N r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
#define SCANLAB_EMU_MAKE_ALL(N, T) \
  SCANLAB_EMU_MAKE1(N##1, T) SCANLAB_EMU_MAKE2(N##2, T) SCANLAB_EMU_MAKE3(N##3, T) SCANLAB_EMU_MAKE4(N##4, T)
SCANLAB_EMU_MAKE_ALL(char, signed char)
SCANLAB_EMU_MAKE_ALL(uchar, unsigned char)
SCANLAB_EMU_MAKE_ALL(short, short)
SCANLAB_EMU_MAKE_ALL(ushort, unsigned short)
SCANLAB_EMU_MAKE_ALL(int, int)
SCANLAB_EMU_MAKE_ALL(uint, unsigned int)
SCANLAB_EMU_MAKE_ALL(long, long)
SCANLAB_EMU_MAKE_ALL(ulong, unsigned long)
SCANLAB_EMU_MAKE_ALL(longlong, long long)
SCANLAB_EMU_MAKE_ALL(ulonglong, unsigned long long)
SCANLAB_EMU_MAKE_ALL(float, float)
SCANLAB_EMU_MAKE_ALL(double, double)
#undef SCANLAB_EMU_MAKE_ALL
#undef SCANLAB_EMU_MAKE1
#undef SCANLAB_EMU_MAKE2
#undef SCANLAB_EMU_MAKE3
#undef SCANLAB_EMU_MAKE4
/// @endcond
#endif /* __VECTOR_FUNCTIONS_H__ */
