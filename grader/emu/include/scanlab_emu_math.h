/**
 * @file scanlab_emu_math.h
 * @brief Emulation backend: the rest of CUDA's math API and intrinsics for device code: directed
 *        roundings, the conversions that name one, the special functions C lacks (`normcdff`,
 *        `erfinvf`, `sinpif`, `norm3df`, ...), `__dp4a` and the SIMD video intrinsics.
 *
 * A directed rounding (`_rz`, `_rd`, `_ru`) is the round-to-nearest result moved one unit in
 * the last place where the exact error of the operation says the true value lies on the other
 * side: the error of a sum by Knuth's two-sum, of a product, quotient and square root by a fused
 * multiply-add. The inverse error functions start from Giles's single-precision approximation
 * ("Approximating the erfinv function", GPU Computing Gems, 2011) and take three Newton steps in
 * double.
 */
#ifndef SCANLAB_EMU_MATH_H
#define SCANLAB_EMU_MATH_H
/// @cond EMU_INTERNAL
#include <math.h>

#include <cmath>
#include <limits>

namespace scanlab_emu {
namespace mathx {
enum Dir { RZ, RD, RU };
inline float next(float r, float to) { return nextafterf(r, to); }
inline double next(double r, double to) { return nextafter(r, to); }
/* r is the nearest result, err the sign of (exact - r) */
template <class T>
inline T direct(T r, T err, Dir d) {
  if (err == 0 || r != r || std::isinf(r)) return r;
  if (d == RU) return err > 0 ? next(r, (T)INFINITY) : r;
  if (d == RD) return err < 0 ? next(r, -(T)INFINITY) : r;
  return (r > 0 && err < 0) || (r < 0 && err > 0) ? next(r, (T)0) : r;
}
template <class T>
inline T add(T a, T b, Dir d) {
  const T s = a + b, bb = s - a;
  return direct(s, (a - (s - bb)) + (b - bb), d);
}
template <class T>
inline T mul(T a, T b, Dir d) {
  const T p = a * b;
  return direct(p, std::fma(a, b, -p), d);
}
template <class T>
inline T div(T a, T b, Dir d) {
  const T q = a / b, r = std::fma(-q, b, a);
  return direct(q, b > 0 ? r : -r, d);
}
template <class T>
inline T sqrt_(T x, Dir d) {
  const T s = std::sqrt(x);
  return direct(s, std::fma(-s, s, x), d);
}
/* a wider value w rounded to the narrower type T */
template <class T, class W>
inline T narrow(W w, Dir d) {
  const T r = (T)w;
  return direct(r, (T)(w > (W)r ? 1 : w < (W)r ? -1 : 0), d);
}
inline double giles(double w) { /* Giles's polynomial in w = -log((1 - x)(1 + x)) */
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p;
}
constexpr double TWO_OVER_SQRT_PI = 1.1283791670955125739;
inline double erfcinv(double y) { /* y in (0, 2) */
  if (!(y > 0.0 && y < 2.0)) return y == 0.0 ? INFINITY : y == 2.0 ? -INFINITY : NAN;
  if (y > 1.0) return -erfcinv(2.0 - y);
  const double w = -std::log(y * (2.0 - y));
  /* Giles's fit holds where single precision can go (w up to about 16); below, the leading
   * terms of erfc's asymptotic expansion, erfc(x) ~ exp(-x^2) / (x sqrt(pi)) */
  const double l = -std::log(y);
  double x = w <= 16.0 ? giles(w) * (1.0 - y) : std::sqrt(l - 0.5 * std::log(l) - 0.5723649429247001);
  for (int k = 0; k < 4; k++) {
    const double slope = TWO_OVER_SQRT_PI * std::exp(-x * x);
    if (slope == 0.0) break;
    x += (std::erfc(x) - y) / slope;
  }
  return x;
}
inline double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? INFINITY : y == -1.0 ? -INFINITY : NAN;
  if (std::fabs(y) >= 0.5) return y > 0 ? erfcinv(1.0 - y) : -erfcinv(1.0 + y);
  double x = giles(-std::log1p(-y * y)) * y;
  for (int k = 0; k < 3; k++) x -= (std::erf(x) - y) / (TWO_OVER_SQRT_PI * std::exp(-x * x));
  return x;
}
inline double erfcx(double x) {
  if (x < 25.0) return std::exp(x * x) * std::erfc(x);
  const double t = 1.0 / (2.0 * x * x); /* the asymptotic series, to five terms */
  return (1.0 - t * (1.0 - 3.0 * t * (1.0 - 5.0 * t * (1.0 - 7.0 * t)))) / (x * 1.7724538509055160273);
}
inline double sinpi(double x) {
  const double r = std::fmod(x, 2.0);
  if (r == std::floor(r)) return std::copysign(0.0, x);
  return std::sin(3.14159265358979323846 * r);
}
inline double cospi(double x) {
  const double r = std::fmod(std::fabs(x), 2.0);
  if (r == 0.5 || r == 1.5) return 0.0;
  return std::cos(3.14159265358979323846 * r);
}
}  // namespace mathx
}  // namespace scanlab_emu

#define SCANLAB_EMU_MX ::scanlab_emu::mathx
/* ---- arithmetic with a rounding mode ---- */
#define SCANLAB_EMU_DIRECTED(SUFFIX, DIR)                                                                \
  inline float __fadd_##SUFFIX(float a, float b) { return SCANLAB_EMU_MX::add(a, b, SCANLAB_EMU_MX::DIR); } \
  inline float __fsub_##SUFFIX(float a, float b) { return SCANLAB_EMU_MX::add(a, -b, SCANLAB_EMU_MX::DIR); } \
  inline float __fmul_##SUFFIX(float a, float b) { return SCANLAB_EMU_MX::mul(a, b, SCANLAB_EMU_MX::DIR); } \
  inline float __fdiv_##SUFFIX(float a, float b) { return SCANLAB_EMU_MX::div(a, b, SCANLAB_EMU_MX::DIR); } \
  inline float __frcp_##SUFFIX(float a) { return SCANLAB_EMU_MX::div(1.0f, a, SCANLAB_EMU_MX::DIR); }     \
  inline float __fsqrt_##SUFFIX(float a) { return SCANLAB_EMU_MX::sqrt_(a, SCANLAB_EMU_MX::DIR); }         \
  inline double __dadd_##SUFFIX(double a, double b) { return SCANLAB_EMU_MX::add(a, b, SCANLAB_EMU_MX::DIR); } \
  inline double __dsub_##SUFFIX(double a, double b) { return SCANLAB_EMU_MX::add(a, -b, SCANLAB_EMU_MX::DIR); } \
  inline double __dmul_##SUFFIX(double a, double b) { return SCANLAB_EMU_MX::mul(a, b, SCANLAB_EMU_MX::DIR); } \
  inline double __ddiv_##SUFFIX(double a, double b) { return SCANLAB_EMU_MX::div(a, b, SCANLAB_EMU_MX::DIR); } \
  inline double __drcp_##SUFFIX(double a) { return SCANLAB_EMU_MX::div(1.0, a, SCANLAB_EMU_MX::DIR); }      \
  inline double __dsqrt_##SUFFIX(double a) { return SCANLAB_EMU_MX::sqrt_(a, SCANLAB_EMU_MX::DIR); }        \
  inline float __double2float_##SUFFIX(double a) { return SCANLAB_EMU_MX::narrow<float>(a, SCANLAB_EMU_MX::DIR); } \
  inline float __int2float_##SUFFIX(int a) { return SCANLAB_EMU_MX::narrow<float>((double)a, SCANLAB_EMU_MX::DIR); } \
  inline float __uint2float_##SUFFIX(unsigned a) {                                                      \
    return SCANLAB_EMU_MX::narrow<float>((double)a, SCANLAB_EMU_MX::DIR);                                \
  }                                                                                                      \
  inline float __ll2float_##SUFFIX(long long a) {                                                       \
    return SCANLAB_EMU_MX::narrow<float>((long double)a, SCANLAB_EMU_MX::DIR);                           \
  }                                                                                                      \
  inline float __ull2float_##SUFFIX(unsigned long long a) {                                             \
    return SCANLAB_EMU_MX::narrow<float>((long double)a, SCANLAB_EMU_MX::DIR);                           \
  }                                                                                                      \
  inline double __ll2double_##SUFFIX(long long a) {                                                     \
    return SCANLAB_EMU_MX::narrow<double>((long double)a, SCANLAB_EMU_MX::DIR);                          \
  }                                                                                                      \
  inline double __ull2double_##SUFFIX(unsigned long long a) {                                           \
    return SCANLAB_EMU_MX::narrow<double>((long double)a, SCANLAB_EMU_MX::DIR);                          \
  }
SCANLAB_EMU_DIRECTED(rz, RZ)
SCANLAB_EMU_DIRECTED(rd, RD)
SCANLAB_EMU_DIRECTED(ru, RU)
#undef SCANLAB_EMU_DIRECTED
inline float __frsqrt_rn(float x) { return (float)(1.0 / std::sqrt((double)x)); }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __ull2float_rn(unsigned long long a) { return (float)a; }
inline double __ll2double_rn(long long a) { return (double)a; }
inline double __ull2double_rn(unsigned long long a) { return (double)a; }
inline double __uint2double_rn(unsigned a) { return (double)a; }

/* ---- to integers with a rounding mode (NaN gives 0; out of range saturates, as on a GPU) ---- */
namespace scanlab_emu {
namespace mathx {
template <class I, class F>
inline I to_int(F x, F (*how)(F)) {
  if (x != x) return 0;
  const F v = how(x);
  if (v <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (v >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)v;
}
inline float rn(float x) { return nearbyintf(x); }
inline double rn(double x) { return nearbyint(x); }
inline float rz(float x) { return truncf(x); }
inline double rz(double x) { return trunc(x); }
inline float rd(float x) { return floorf(x); }
inline double rd(double x) { return floor(x); }
inline float ru(float x) { return ceilf(x); }
inline double ru(double x) { return ceil(x); }
}  // namespace mathx
}  // namespace scanlab_emu
#define SCANLAB_EMU_TOINT(NAME, I, F, MODE) \
  inline I NAME##_##MODE(F x) { return SCANLAB_EMU_MX::to_int<I, F>(x, SCANLAB_EMU_MX::MODE); }
SCANLAB_EMU_TOINT(__float2uint, unsigned, float, rd)
SCANLAB_EMU_TOINT(__float2uint, unsigned, float, ru)
SCANLAB_EMU_TOINT(__float2ll, long long, float, rd)
SCANLAB_EMU_TOINT(__float2ll, long long, float, ru)
SCANLAB_EMU_TOINT(__float2ull, unsigned long long, float, rn)
SCANLAB_EMU_TOINT(__float2ull, unsigned long long, float, rz)
SCANLAB_EMU_TOINT(__float2ull, unsigned long long, float, rd)
SCANLAB_EMU_TOINT(__float2ull, unsigned long long, float, ru)
SCANLAB_EMU_TOINT(__double2int, int, double, rd)
SCANLAB_EMU_TOINT(__double2int, int, double, ru)
SCANLAB_EMU_TOINT(__double2uint, unsigned, double, rn)
SCANLAB_EMU_TOINT(__double2uint, unsigned, double, rz)
SCANLAB_EMU_TOINT(__double2uint, unsigned, double, rd)
SCANLAB_EMU_TOINT(__double2uint, unsigned, double, ru)
SCANLAB_EMU_TOINT(__double2ll, long long, double, rn)
SCANLAB_EMU_TOINT(__double2ll, long long, double, rz)
SCANLAB_EMU_TOINT(__double2ll, long long, double, rd)
SCANLAB_EMU_TOINT(__double2ll, long long, double, ru)
SCANLAB_EMU_TOINT(__double2ull, unsigned long long, double, rn)
SCANLAB_EMU_TOINT(__double2ull, unsigned long long, double, rz)
SCANLAB_EMU_TOINT(__double2ull, unsigned long long, double, rd)
SCANLAB_EMU_TOINT(__double2ull, unsigned long long, double, ru)
#undef SCANLAB_EMU_TOINT

/* ---- the halves of a double ---- */
inline int __double2hiint(double x) { return (int)(unsigned)(::scanlab_emu::to_bits(x) >> 32); }
inline int __double2loint(double x) { return (int)(unsigned)::scanlab_emu::to_bits(x); }
inline double __hiloint2double(int hi, int lo) {
  return ::scanlab_emu::from_bits<double>((unsigned long long)(unsigned)hi << 32 | (unsigned)lo);
}

/* ---- special functions ---- */
inline float normcdff(float x) { return (float)(0.5 * std::erfc(-(double)x * 0.70710678118654752440)); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
inline float normcdfinvf(float p) { return (float)(-1.41421356237309504880 * SCANLAB_EMU_MX::erfcinv(2.0 * p)); }
inline double normcdfinv(double p) { return -1.41421356237309504880 * SCANLAB_EMU_MX::erfcinv(2.0 * p); }
inline float erfinvf(float y) { return (float)SCANLAB_EMU_MX::erfinv(y); }
inline double erfinv(double y) { return SCANLAB_EMU_MX::erfinv(y); }
inline float erfcinvf(float y) { return (float)SCANLAB_EMU_MX::erfcinv(y); }
inline double erfcinv(double y) { return SCANLAB_EMU_MX::erfcinv(y); }
inline float erfcxf(float x) { return (float)SCANLAB_EMU_MX::erfcx(x); }
inline double erfcx(double x) { return SCANLAB_EMU_MX::erfcx(x); }
/* glibc 2.41 declares sinpi and cospi (C23): theirs are used where they exist */
#if !(defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 41)))
inline float sinpif(float x) { return (float)SCANLAB_EMU_MX::sinpi(x); }
inline double sinpi(double x) { return SCANLAB_EMU_MX::sinpi(x); }
inline float cospif(float x) { return (float)SCANLAB_EMU_MX::cospi(x); }
inline double cospi(double x) { return SCANLAB_EMU_MX::cospi(x); }
#endif
inline void sincospif(float x, float *s, float *c) {
  *s = sinpif(x);
  *c = cospif(x);
}
inline void sincospi(double x, double *s, double *c) {
  *s = sinpi(x);
  *c = cospi(x);
}
inline float rcbrtf(float x) { return (float)(1.0 / std::cbrt((double)x)); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline float rhypotf(float a, float b) { return (float)(1.0 / std::hypot((double)a, (double)b)); }
inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }
inline float norm3df(float a, float b, float c) { return (float)std::hypot((double)a, (double)b, (double)c); }
inline double norm3d(double a, double b, double c) { return std::hypot(a, b, c); }
inline float rnorm3df(float a, float b, float c) { return (float)(1.0 / std::hypot((double)a, (double)b, (double)c)); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / std::hypot(a, b, c); }
inline float norm4df(float a, float b, float c, float d) {
  return (float)std::hypot(std::hypot((double)a, (double)b), std::hypot((double)c, (double)d));
}
inline double norm4d(double a, double b, double c, double d) { return std::hypot(std::hypot(a, b), std::hypot(c, d)); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline float normf(int dim, const float *a) {
  double s = 0;
  for (int i = 0; i < dim; i++) s = std::hypot(s, (double)a[i]);
  return (float)s;
}
inline double norm(int dim, const double *a) {
  double s = 0;
  for (int i = 0; i < dim; i++) s = std::hypot(s, a[i]);
  return s;
}
inline float rnormf(int dim, const float *a) { return 1.0f / normf(dim, a); }
inline double rnorm(int dim, const double *a) { return 1.0 / norm(dim, a); }
inline float cyl_bessel_i0f(float x) { return (float)std::cyl_bessel_i(0.0, std::fabs((double)x)); }
inline double cyl_bessel_i0(double x) { return std::cyl_bessel_i(0.0, std::fabs(x)); }
inline float cyl_bessel_i1f(float x) { return (float)std::copysign(std::cyl_bessel_i(1.0, std::fabs((double)x)), (double)x); }
inline double cyl_bessel_i1(double x) { return std::copysign(std::cyl_bessel_i(1.0, std::fabs(x)), x); }
inline float fdividef(float a, float b) { return a / b; }
inline double fdivide(double a, double b) { return a / b; }

/* ---- integers ---- */
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
/* the position of the offset-th set bit of mask counted from base (forwards for a positive
 * offset, backwards for a negative one), 0xffffffff where there is none */
inline unsigned __fns(unsigned mask, unsigned base, int offset) {
  if (base > 31) return 0xffffffffu;
  if (offset == 0) return 0xffffffffu;
  int left = offset > 0 ? offset : -offset;
  for (int b = (int)base; b >= 0 && b < 32; b += offset > 0 ? 1 : -1)
    if ((mask >> b) & 1u && --left == 0) return (unsigned)b;
  return 0xffffffffu;
}
/* four 8-bit products (or two 16-by-8-bit ones) added to c */
inline int __dp4a(int a, int b, int c) {
  for (int k = 0; k < 4; k++) c += (int)(signed char)(a >> (8 * k)) * (int)(signed char)(b >> (8 * k));
  return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 4; k++) c += ((a >> (8 * k)) & 0xffu) * ((b >> (8 * k)) & 0xffu);
  return c;
}
inline int __dp2a_lo(int a, int b, int c) {
  for (int k = 0; k < 2; k++) c += (int)(short)(a >> (16 * k)) * (int)(signed char)(b >> (8 * k));
  return c;
}
inline int __dp2a_hi(int a, int b, int c) {
  for (int k = 0; k < 2; k++) c += (int)(short)(a >> (16 * k)) * (int)(signed char)(b >> (8 * k + 16));
  return c;
}
inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 2; k++) c += ((a >> (16 * k)) & 0xffffu) * ((b >> (8 * k)) & 0xffu);
  return c;
}
inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 2; k++) c += ((a >> (16 * k)) & 0xffffu) * ((b >> (8 * k + 16)) & 0xffu);
  return c;
}

/* ---- SIMD video intrinsics: 2 lanes of 16 bits or 4 of 8 bits in a word ---- */
namespace scanlab_emu {
namespace mathx {
template <int BITS, class F>
inline unsigned lanes(unsigned a, unsigned b, F f) {
  const unsigned m = (1u << BITS) - 1u;
  unsigned r = 0;
  for (int k = 0; k < 32; k += BITS) {
    const unsigned ua = (a >> k) & m, ub = (b >> k) & m;
    const int sa = (int)(ua << (32 - BITS)) >> (32 - BITS), sb = (int)(ub << (32 - BITS)) >> (32 - BITS);
    r |= ((unsigned)f(ua, ub, sa, sb) & m) << k;
  }
  return r;
}
template <int BITS>
inline int sat_s(int v) {
  const int hi = (1 << (BITS - 1)) - 1, lo = -(1 << (BITS - 1));
  return v > hi ? hi : v < lo ? lo : v;
}
template <int BITS>
inline int sat_u(int v) {
  const int hi = (1 << BITS) - 1;
  return v > hi ? hi : v < 0 ? 0 : v;
}
}  // namespace mathx
}  // namespace scanlab_emu
#define SCANLAB_EMU_V(NAME, EXPR)                                                                     \
  inline unsigned NAME##2(unsigned a, unsigned b) {                                                   \
    return SCANLAB_EMU_MX::lanes<16>(a, b, [](unsigned ua, unsigned ub, int sa, int sb) {             \
      const int B = 16; (void)B; (void)ua; (void)ub; (void)sa; (void)sb;                              \
      return (int)(EXPR);                                                                             \
    });                                                                                               \
  }                                                                                                   \
  inline unsigned NAME##4(unsigned a, unsigned b) {                                                   \
    return SCANLAB_EMU_MX::lanes<8>(a, b, [](unsigned ua, unsigned ub, int sa, int sb) {              \
      const int B = 8; (void)B; (void)ua; (void)ub; (void)sa; (void)sb;                               \
      return (int)(EXPR);                                                                             \
    });                                                                                               \
  }
#define SCANLAB_EMU_SAT_S(v) (B == 16 ? SCANLAB_EMU_MX::sat_s<16>(v) : SCANLAB_EMU_MX::sat_s<8>(v))
#define SCANLAB_EMU_SAT_U(v) (B == 16 ? SCANLAB_EMU_MX::sat_u<16>(v) : SCANLAB_EMU_MX::sat_u<8>(v))
#define SCANLAB_EMU_ALL1 ((1 << B) - 1)
SCANLAB_EMU_V(__vadd, ua + ub)
SCANLAB_EMU_V(__vsub, ua - ub)
SCANLAB_EMU_V(__vaddss, SCANLAB_EMU_SAT_S(sa + sb))
SCANLAB_EMU_V(__vsubss, SCANLAB_EMU_SAT_S(sa - sb))
SCANLAB_EMU_V(__vaddus, SCANLAB_EMU_SAT_U((int)(ua + ub)))
SCANLAB_EMU_V(__vsubus, SCANLAB_EMU_SAT_U((int)ua - (int)ub))
SCANLAB_EMU_V(__vabsdiffs, sa > sb ? sa - sb : sb - sa)
SCANLAB_EMU_V(__vabsdiffu, ua > ub ? ua - ub : ub - ua)
SCANLAB_EMU_V(__vavgu, (ua + ub + 1) >> 1)
SCANLAB_EMU_V(__vhaddu, (ua + ub) >> 1)
SCANLAB_EMU_V(__vmaxs, sa > sb ? sa : sb)
SCANLAB_EMU_V(__vmaxu, ua > ub ? ua : ub)
SCANLAB_EMU_V(__vmins, sa < sb ? sa : sb)
SCANLAB_EMU_V(__vminu, ua < ub ? ua : ub)
SCANLAB_EMU_V(__vcmpeq, ua == ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpne, ua != ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpges, sa >= sb ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpgeu, ua >= ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpgts, sa > sb ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpgtu, ua > ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmples, sa <= sb ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpleu, ua <= ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmplts, sa < sb ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vcmpltu, ua < ub ? SCANLAB_EMU_ALL1 : 0)
SCANLAB_EMU_V(__vseteq, ua == ub)
SCANLAB_EMU_V(__vsetne, ua != ub)
SCANLAB_EMU_V(__vsetges, sa >= sb)
SCANLAB_EMU_V(__vsetgeu, ua >= ub)
SCANLAB_EMU_V(__vsetgts, sa > sb)
SCANLAB_EMU_V(__vsetgtu, ua > ub)
SCANLAB_EMU_V(__vsetles, sa <= sb)
SCANLAB_EMU_V(__vsetleu, ua <= ub)
SCANLAB_EMU_V(__vsetlts, sa < sb)
SCANLAB_EMU_V(__vsetltu, ua < ub)
#undef SCANLAB_EMU_V
#define SCANLAB_EMU_V1(NAME, EXPR)                                                                        \
  inline unsigned NAME##2(unsigned a) {                                                                   \
    return SCANLAB_EMU_MX::lanes<16>(a, 0u, [](unsigned ua, unsigned, int sa, int) {                      \
      const int B = 16; (void)B; (void)ua; (void)sa;                                                      \
      return (int)(EXPR);                                                                                 \
    });                                                                                                   \
  }                                                                                                       \
  inline unsigned NAME##4(unsigned a) {                                                                   \
    return SCANLAB_EMU_MX::lanes<8>(a, 0u, [](unsigned ua, unsigned, int sa, int) {                       \
      const int B = 8; (void)B; (void)ua; (void)sa;                                                       \
      return (int)(EXPR);                                                                                 \
    });                                                                                                   \
  }
SCANLAB_EMU_V1(__vneg, -sa)
SCANLAB_EMU_V1(__vnegss, SCANLAB_EMU_SAT_S(-sa))
SCANLAB_EMU_V1(__vabs, sa < 0 ? -sa : sa)
SCANLAB_EMU_V1(__vabsss, SCANLAB_EMU_SAT_S(sa < 0 ? -sa : sa))
#undef SCANLAB_EMU_V1
#undef SCANLAB_EMU_SAT_S
#undef SCANLAB_EMU_SAT_U
#undef SCANLAB_EMU_ALL1
/* sums of absolute differences of the lanes */
inline unsigned __vsads2(unsigned a, unsigned b) {
  unsigned d = __vabsdiffs2(a, b);
  return (d & 0xffffu) + (d >> 16);
}
inline unsigned __vsadu2(unsigned a, unsigned b) {
  unsigned d = __vabsdiffu2(a, b);
  return (d & 0xffffu) + (d >> 16);
}
inline unsigned __vsads4(unsigned a, unsigned b) {
  unsigned d = __vabsdiffs4(a, b);
  return (d & 0xffu) + ((d >> 8) & 0xffu) + ((d >> 16) & 0xffu) + (d >> 24);
}
inline unsigned __vsadu4(unsigned a, unsigned b) {
  unsigned d = __vabsdiffu4(a, b);
  return (d & 0xffu) + ((d >> 8) & 0xffu) + ((d >> 16) & 0xffu) + (d >> 24);
}
#undef SCANLAB_EMU_MX
/// @endcond
#endif /* SCANLAB_EMU_MATH_H */
