// The math API beyond C's: the inverse error functions round-trip through erf and erfc (down to
// erfc's 1e-300), normcdf and normcdfinv agree, sinpi / cospi are exact at integers and halves;
// directed roundings bracket the exact result (rd <= exact <= ru, one unit apart at most, rz
// toward zero) for sums, products, quotients and square roots of random floats and doubles;
// __dp4a, __fns, the halves of a double and a few SIMD intrinsics on known values.
// emu-test: expect pass
// emu-test: native no it calls device intrinsics (directed roundings, __dp4a) from host code
// emu-test: schedules forward
// emu-test: stdout math ok
#include <math.h>

#include "emu_test.h"

__global__ void none() {}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double uniform() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

template <class T>
static int bracket(const char *what, T rd, T rn, T ru, T rz, long double exact) {
  const T up = nextafter(rd, (T)INFINITY);
  const bool ok = (long double)rd <= exact && exact <= (long double)ru && (ru == rd || ru == up) &&
                  (rn == rd || rn == ru) && (exact >= 0 ? rz == rd : rz == ru);
  if (!ok) printf("%s: rd %.17Lg rn %.17Lg ru %.17Lg rz %.17Lg, exact %.21Lg\n", what, (long double)rd,
                  (long double)rn, (long double)ru, (long double)rz, exact);
  return ok;
}

int main() {
  none<<<1, 1>>>();
  int bad = 0;
  for (double y = -0.9999999; y < 1.0; y += 0.0013)
    if (fabs(erf(erfinv(y)) - y) > 4e-16) printf("erf(erfinv(%g)) = %.17g\n", y, erf(erfinv(y))), bad++;
  for (double y = 1e-300; y < 2.0; y *= 1.7)
    if (fabs(erfc(erfcinv(y)) - y) > 1e-13 * y) printf("erfc(erfcinv(%g)) = %.17g\n", y, erfc(erfcinv(y))), bad++;
  for (float p = 0.001f; p < 1.0f; p += 0.0137f)
    if (fabsf(normcdff(normcdfinvf(p)) - p) > 1e-6f) printf("normcdff(normcdfinvf(%g))\n", p), bad++;
  if (fabsf(erfinvf(0.5f) - 0.476936276f) > 1e-7f || fabsf(erfcxf(30.0f) - 0.0187958888f) > 1e-9f ||
      sinpif(3.0f) != 0.0f || cospif(2.5f) != 0.0f || sinpi(0.5) != 1.0 || rcbrtf(8.0f) != 0.5f ||
      norm3df(1, 2, 2) != 3.0f || fabs(cyl_bessel_i0(1.0) - 1.2660658777520082) > 1e-15)
    printf("a special function's value is wrong\n"), bad++;
  for (int k = 0; k < 20000; k++) {
    const float a = (float)(ldexp(uniform(), (int)(uniform() * 20) - 10) * (uniform() < 0.5 ? -1 : 1));
    const float b = (float)(ldexp(uniform() + 0.1, (int)(uniform() * 20) - 10) * (uniform() < 0.5 ? -1 : 1));
    bad += !bracket("__fadd", __fadd_rd(a, b), __fadd_rn(a, b), __fadd_ru(a, b), __fadd_rz(a, b),
                    (long double)a + (long double)b);
    bad += !bracket("__fmul", __fmul_rd(a, b), __fmul_rn(a, b), __fmul_ru(a, b), __fmul_rz(a, b),
                    (long double)a * (long double)b);
    bad += !bracket("__fdiv", __fdiv_rd(a, b), __fdiv_rn(a, b), __fdiv_ru(a, b), __fdiv_rz(a, b),
                    (long double)a / (long double)b);
    bad += !bracket("__fsqrt", __fsqrt_rd(fabsf(a)), __fsqrt_rn(fabsf(a)), __fsqrt_ru(fabsf(a)), __fsqrt_rz(fabsf(a)),
                    sqrtl(fabsl((long double)a)));
    const double x = uniform() * 1e3 - 500, y = uniform() + 0.5;
    bad += !bracket("__dmul", __dmul_rd(x, y), __dmul_rn(x, y), __dmul_ru(x, y), __dmul_rz(x, y),
                    (long double)x * (long double)y);
    bad += !bracket("__double2float", __double2float_rd(x), __double2float_rn(x), __double2float_ru(x),
                    __double2float_rz(x), (long double)x);
    if (bad > 10) break;
  }
  if (__dp4a(0x01020304, 0x01010101, 10) != 20 || __dp4a(0xff000000u, 0x02000000u, 0u) != 510u ||
      __dp4a((int)0xff000000, 0x02000000, 0) != -2 || __fns(0xf0f0u, 0, 3) != 6 || __fns(0xf0f0u, 15, -2) != 14 ||
      __hiloint2double(__double2hiint(-3.25), __double2loint(-3.25)) != -3.25 ||
      __vaddss4(0x7f7f8080u, 0x01010101u) != 0x7f7f8181u || __vsadu4(0x01020304u, 0x04030201u) != 8u ||
      __vcmpgtu2(0x00050001u, 0x00010005u) != 0xffff0000u || __vabsss4(0x80u) != 0x7fu)
    printf("an integer intrinsic's value is wrong\n"), bad++;
  if (bad) return 1;
  printf("math ok\n");
  return 0;
}
