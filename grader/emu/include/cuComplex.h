/**
 * @file cuComplex.h
 * @brief Emulation backend: the toolkit's single- and double-precision complex numbers
 *        (`cuFloatComplex` over `float2`, `cuDoubleComplex` over `double2`), plain C11 as the
 *        toolkit's header is, for host and device code alike.
 *
 * Division scales by the larger part of the divisor, and the magnitude by the larger part of
 * the number, so neither overflows where the result does not.
 */
#ifndef CU_COMPLEX_H_
#define CU_COMPLEX_H_
/// @cond EMU_INTERNAL
#include <math.h>

#include "vector_types.h"

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline cuFloatComplex make_cuFloatComplex(float r, float i) {
  cuFloatComplex z;
  z.x = r;
  z.y = i;
  return z;
}
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) {
  cuDoubleComplex z;
  z.x = r;
  z.y = i;
  return z;
}
static inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static inline float cuCrealf(cuFloatComplex z) { return z.x; }
static inline float cuCimagf(cuFloatComplex z) { return z.y; }
static inline double cuCreal(cuDoubleComplex z) { return z.x; }
static inline double cuCimag(cuDoubleComplex z) { return z.y; }
static inline cuFloatComplex cuConjf(cuFloatComplex z) { return make_cuFloatComplex(z.x, -z.y); }
static inline cuDoubleComplex cuConj(cuDoubleComplex z) { return make_cuDoubleComplex(z.x, -z.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x + b.x, a.y + b.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) {
  return make_cuDoubleComplex(a.x + b.x, a.y + b.y);
}
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x - b.x, a.y - b.y); }
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) {
  return make_cuDoubleComplex(a.x - b.x, a.y - b.y);
}
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
  return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
  return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
  const double s = fabs(b.x) + fabs(b.y), ars = a.x / s, ais = a.y / s, brs = b.x / s, bis = b.y / s;
  const double d = brs * brs + bis * bis;
  return make_cuDoubleComplex((ars * brs + ais * bis) / d, (ais * brs - ars * bis) / d);
}
static inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
  const float s = fabsf(b.x) + fabsf(b.y), ars = a.x / s, ais = a.y / s, brs = b.x / s, bis = b.y / s;
  const float d = brs * brs + bis * bis;
  return make_cuFloatComplex((ars * brs + ais * bis) / d, (ais * brs - ars * bis) / d);
}
static inline double cuCabs(cuDoubleComplex z) { return hypot(z.x, z.y); }
static inline float cuCabsf(cuFloatComplex z) { return hypotf(z.x, z.y); }
static inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
  return make_cuFloatComplex(x.x * y.x + d.x - x.y * y.y, x.x * y.y + d.y + x.y * y.x);
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  return make_cuDoubleComplex(x.x * y.x + d.x - x.y * y.y, x.x * y.y + d.y + x.y * y.x);
}
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) { return make_cuDoubleComplex(z.x, z.y); }
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return make_cuFloatComplex((float)z.x, (float)z.y);
}
/// @endcond
#endif /* CU_COMPLEX_H_ */
