/**
 * @file vector_types.h
 * @brief Emulation backend: the CUDA vector types (`int2`, `float4`, ...) and `dim3`, under
 *        the toolkit's include guard, plain C11 (with `dim3`'s constructors in C++).
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
/// @cond EMU_INTERNAL
#include "host_defines.h"

#define SCANLAB_EMU_VEC1(T, N, A) typedef struct __attribute__((aligned(A))) N { T x; } N;
#define SCANLAB_EMU_VEC2(T, N, A) typedef struct __attribute__((aligned(A))) N { T x, y; } N;
#define SCANLAB_EMU_VEC3(T, N) typedef struct N { T x, y, z; } N;
#define SCANLAB_EMU_VEC4(T, N, A) typedef struct __attribute__((aligned(A))) N { T x, y, z, w; } N;
#define SCANLAB_EMU_VEC_ALL(T, N, A1, A2, A4) \
  SCANLAB_EMU_VEC1(T, N##1, A1) SCANLAB_EMU_VEC2(T, N##2, A2) SCANLAB_EMU_VEC3(T, N##3) SCANLAB_EMU_VEC4(T, N##4, A4)
SCANLAB_EMU_VEC_ALL(signed char, char, 1, 2, 4)
SCANLAB_EMU_VEC_ALL(unsigned char, uchar, 1, 2, 4)
SCANLAB_EMU_VEC_ALL(short, short, 2, 4, 8)
SCANLAB_EMU_VEC_ALL(unsigned short, ushort, 2, 4, 8)
SCANLAB_EMU_VEC_ALL(int, int, 4, 8, 16)
SCANLAB_EMU_VEC_ALL(unsigned int, uint, 4, 8, 16)
SCANLAB_EMU_VEC_ALL(long, long, 8, 16, 16)
SCANLAB_EMU_VEC_ALL(unsigned long, ulong, 8, 16, 16)
SCANLAB_EMU_VEC_ALL(long long, longlong, 8, 16, 16)
SCANLAB_EMU_VEC_ALL(unsigned long long, ulonglong, 8, 16, 16)
SCANLAB_EMU_VEC_ALL(float, float, 4, 8, 16)
SCANLAB_EMU_VEC_ALL(double, double, 8, 16, 16)
#undef SCANLAB_EMU_VEC_ALL
#undef SCANLAB_EMU_VEC1
#undef SCANLAB_EMU_VEC2
#undef SCANLAB_EMU_VEC3
#undef SCANLAB_EMU_VEC4

/* dim3: a plain struct in C; with constructors in C++ (as in the real header). */
struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;
/// @endcond
#endif /* __VECTOR_TYPES_H__ */
