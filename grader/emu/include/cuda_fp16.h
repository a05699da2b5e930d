/**
 * @file cuda_fp16.h
 * @brief Emulation backend: half precision (`__half`, `__half2`) as the toolkit's header has
 *        it, on the host and in device code alike.
 *
 * A `__half` holds the 16 bits of an IEEE 754 binary16 value. Every operation computes in
 * double and rounds once to binary16, to nearest even: for a sum, product, quotient or square
 * root of two halves that is the correctly rounded result the GPU gives, and for `__hfma` the
 * product is exact in double, so the fused result is rounded once as well. The `*_rz`, `*_rd`
 * and `*_ru` conversions round as named. Division, `hrcp` and the transcendental functions
 * are correctly rounded here; on a GPU they may be one unit in the last place away.
 */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
/// @cond EMU_INTERNAL
#include "cuda_runtime.h"

#ifdef __cplusplus
#include <math.h>
#include <string.h>

#include <limits>

namespace scanlab_emu {
namespace fp16 {
enum Round { NEAREST, ZERO, DOWN, UP };
/* binary16 bits of @p v, rounded as @p mode says; NaN stays NaN (quiet), overflow goes to
 * infinity (or to the largest finite value where the mode rounds toward zero). */
inline unsigned short from_double(double v, Round mode = NEAREST) {
  unsigned long long b;
  memcpy(&b, &v, 8);
  const unsigned short sign = (unsigned short)((b >> 48) & 0x8000u);
  const bool neg = sign != 0;
  if (v != v) return (unsigned short)(sign | 0x7e00u);
  double a = fabs(v);
  if (a == INFINITY) return (unsigned short)(sign | 0x7c00u);
  int e;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  /* the unit in the last place of the result: 2^(e - 11) for normals, 2^-24 below 2^-14 */
  int ulp_exp = e - 11;
  if (ulp_exp < -24) ulp_exp = -24;
  const double q = ldexp(a, -ulp_exp); /* the value in units of the last place */
  double r = floor(q);
  const double frac = q - r;
  bool up = false;
  if (frac > 0) {
    switch (mode) {
      case NEAREST: up = frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) == 1.0); break;
      case ZERO: up = false; break;
      case DOWN: up = neg; break;
      case UP: up = !neg; break;
    }
  }
  if (up) r += 1;
  const double out = ldexp(r, ulp_exp); /* exact: at most 12 significant bits */
  if (out >= 65520.0 || out > 65504.0) {
    const bool to_max = mode == ZERO || (mode == DOWN && !neg) || (mode == UP && neg);
    return (unsigned short)(sign | (to_max ? 0x7bffu : 0x7c00u));
  }
  if (out < ldexp(1.0, -14)) return (unsigned short)(sign | (unsigned short)ldexp(out, 24)); /* subnormal */
  int oe;
  const double om = frexp(out, &oe); /* om in [0.5, 1) */
  const unsigned mant = (unsigned)ldexp(om, 11) & 0x3ffu;
  return (unsigned short)(sign | (unsigned short)((oe + 14) << 10) | mant);
}
inline double to_double(unsigned short h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0x1f) v = mant ? NAN : INFINITY;
  else if (exp == 0) v = ldexp((double)mant, -24);
  else v = ldexp((double)(mant | 0x400), exp - 25);
  return (h & 0x8000u) ? -v : v;
}
}  // namespace fp16
}  // namespace scanlab_emu

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

struct __attribute__((aligned(2))) __half {
 protected:
  unsigned short __x;

 public:
  __half() = default;
  __half(const __half_raw &r) : __x(r.x) {}
  __half(float f) : __x(::scanlab_emu::fp16::from_double(f)) {}
  __half(double d) : __x(::scanlab_emu::fp16::from_double(d)) {}
  __half(int i) : __x(::scanlab_emu::fp16::from_double(i)) {}
  __half(unsigned i) : __x(::scanlab_emu::fp16::from_double(i)) {}
  __half(short i) : __x(::scanlab_emu::fp16::from_double(i)) {}
  __half(unsigned short i) : __x(::scanlab_emu::fp16::from_double(i)) {}
  __half(long long i) : __x(::scanlab_emu::fp16::from_double((double)i)) {}
  __half(unsigned long long i) : __x(::scanlab_emu::fp16::from_double((double)i)) {}
  __half &operator=(const __half_raw &r) {
    __x = r.x;
    return *this;
  }
  operator __half_raw() const { return __half_raw{__x}; }
  operator float() const { return (float)::scanlab_emu::fp16::to_double(__x); }
  explicit operator bool() const { return (__x & 0x7fffu) != 0; }
  explicit operator int() const { return (int)::scanlab_emu::fp16::to_double(__x); }
  explicit operator double() const { return ::scanlab_emu::fp16::to_double(__x); }
};

struct __attribute__((aligned(4))) __half2 {
  __half x, y;
  __half2() = default;
  __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  operator __half2_raw() const { return __half2_raw{__half_raw(x).x, __half_raw(y).x}; }
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;

#define CUDART_INF_FP16 (__half(__half_raw{0x7c00u}))
#define CUDART_NAN_FP16 (__half(__half_raw{0x7fffu}))
#define CUDART_MIN_DENORM_FP16 (__half(__half_raw{0x0001u}))
#define CUDART_MAX_NORMAL_FP16 (__half(__half_raw{0x7bffu}))
#define CUDART_ONE_FP16 (__half(__half_raw{0x3c00u}))
#define CUDART_ZERO_FP16 (__half(__half_raw{0x0000u}))

namespace scanlab_emu {
namespace fp16 {
inline unsigned short bits(__half h) { return __half_raw(h).x; }
inline __half make(unsigned short b) { return __half(__half_raw{b}); }
inline double d(__half h) { return to_double(bits(h)); }
inline __half round(double v, Round m = NEAREST) { return make(from_double(v, m)); }
inline bool nan(__half h) { return (bits(h) & 0x7fffu) > 0x7c00u; }
}  // namespace fp16
}  // namespace scanlab_emu

#define SCANLAB_EMU_FP16 ::scanlab_emu::fp16

/* ---- conversions ---- */
inline __half __float2half(float a) { return SCANLAB_EMU_FP16::round(a); }
inline __half __float2half_rn(float a) { return SCANLAB_EMU_FP16::round(a); }
inline __half __float2half_rz(float a) { return SCANLAB_EMU_FP16::round(a, SCANLAB_EMU_FP16::ZERO); }
inline __half __float2half_rd(float a) { return SCANLAB_EMU_FP16::round(a, SCANLAB_EMU_FP16::DOWN); }
inline __half __float2half_ru(float a) { return SCANLAB_EMU_FP16::round(a, SCANLAB_EMU_FP16::UP); }
inline __half __double2half(double a) { return SCANLAB_EMU_FP16::round(a); }
inline float __half2float(__half a) { return (float)SCANLAB_EMU_FP16::d(a); }
inline __half2 __float2half2_rn(float a) { return __half2(__float2half_rn(a), __float2half_rn(a)); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half_rn(a), __float2half_rn(b)); }
inline __half2 __float22half2_rn(float2 a) { return __floats2half2_rn(a.x, a.y); }
inline float2 __half22float2(__half2 a) { return float2{__half2float(a.x), __half2float(a.y)}; }
inline float __low2float(__half2 a) { return __half2float(a.x); }
inline float __high2float(__half2 a) { return __half2float(a.y); }
inline __half __low2half(__half2 a) { return a.x; }
inline __half __high2half(__half2 a) { return a.y; }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __half2half2(__half a) { return __half2(a, a); }
inline __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
inline __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }
inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
inline short __half_as_short(__half h) { return (short)SCANLAB_EMU_FP16::bits(h); }
inline unsigned short __half_as_ushort(__half h) { return SCANLAB_EMU_FP16::bits(h); }
inline __half __short_as_half(short s) { return SCANLAB_EMU_FP16::make((unsigned short)s); }
inline __half __ushort_as_half(unsigned short s) { return SCANLAB_EMU_FP16::make(s); }
#define SCANLAB_EMU_FROM_INT(NAME, T)                                                            \
  inline __half NAME##_rn(T i) { return SCANLAB_EMU_FP16::round((double)i); }                      \
  inline __half NAME##_rz(T i) { return SCANLAB_EMU_FP16::round((double)i, SCANLAB_EMU_FP16::ZERO); } \
  inline __half NAME##_rd(T i) { return SCANLAB_EMU_FP16::round((double)i, SCANLAB_EMU_FP16::DOWN); } \
  inline __half NAME##_ru(T i) { return SCANLAB_EMU_FP16::round((double)i, SCANLAB_EMU_FP16::UP); }
SCANLAB_EMU_FROM_INT(__int2half, int)
SCANLAB_EMU_FROM_INT(__uint2half, unsigned int)
SCANLAB_EMU_FROM_INT(__short2half, short)
SCANLAB_EMU_FROM_INT(__ushort2half, unsigned short)
SCANLAB_EMU_FROM_INT(__ll2half, long long)
SCANLAB_EMU_FROM_INT(__ull2half, unsigned long long)
#undef SCANLAB_EMU_FROM_INT
/* to integers: NaN gives 0, out of range saturates, as the GPU's conversions do */
namespace scanlab_emu {
namespace fp16 {
template <class T>
inline T to_int(__half h, double (*how)(double)) {
  if (nan(h)) return 0;
  const double v = how(d(h)), lo = (double)std::numeric_limits<T>::min(), hi = (double)std::numeric_limits<T>::max();
  return v <= lo ? std::numeric_limits<T>::min() : v >= hi ? std::numeric_limits<T>::max() : (T)v;
}
}  // namespace fp16
}  // namespace scanlab_emu
#define SCANLAB_EMU_TO_INT(NAME, T)                                                      \
  inline T NAME##_rn(__half h) { return SCANLAB_EMU_FP16::to_int<T>(h, ::nearbyint); }     \
  inline T NAME##_rz(__half h) { return SCANLAB_EMU_FP16::to_int<T>(h, ::trunc); }         \
  inline T NAME##_rd(__half h) { return SCANLAB_EMU_FP16::to_int<T>(h, ::floor); }         \
  inline T NAME##_ru(__half h) { return SCANLAB_EMU_FP16::to_int<T>(h, ::ceil); }
SCANLAB_EMU_TO_INT(__half2int, int)
SCANLAB_EMU_TO_INT(__half2uint, unsigned int)
SCANLAB_EMU_TO_INT(__half2short, short)
SCANLAB_EMU_TO_INT(__half2ushort, unsigned short)
SCANLAB_EMU_TO_INT(__half2ll, long long)
SCANLAB_EMU_TO_INT(__half2ull, unsigned long long)
#undef SCANLAB_EMU_TO_INT

/* ---- arithmetic: computed in double, rounded once ---- */
inline __half __hadd(__half a, __half b) { return SCANLAB_EMU_FP16::round(SCANLAB_EMU_FP16::d(a) + SCANLAB_EMU_FP16::d(b)); }
inline __half __hsub(__half a, __half b) { return SCANLAB_EMU_FP16::round(SCANLAB_EMU_FP16::d(a) - SCANLAB_EMU_FP16::d(b)); }
inline __half __hmul(__half a, __half b) { return SCANLAB_EMU_FP16::round(SCANLAB_EMU_FP16::d(a) * SCANLAB_EMU_FP16::d(b)); }
inline __half __hdiv(__half a, __half b) { return SCANLAB_EMU_FP16::round(SCANLAB_EMU_FP16::d(a) / SCANLAB_EMU_FP16::d(b)); }
inline __half __hfma(__half a, __half b, __half c) {
  return SCANLAB_EMU_FP16::round(fma(SCANLAB_EMU_FP16::d(a), SCANLAB_EMU_FP16::d(b), SCANLAB_EMU_FP16::d(c)));
}
inline __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
inline __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
inline __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }
namespace scanlab_emu {
namespace fp16 {
inline __half sat(__half h) {
  if (nan(h)) return make(0);
  const double v = d(h);
  return v < 0 ? make(0) : v > 1 ? make(0x3c00u) : h;
}
}  // namespace fp16
}  // namespace scanlab_emu
inline __half __hadd_sat(__half a, __half b) { return SCANLAB_EMU_FP16::sat(__hadd(a, b)); }
inline __half __hsub_sat(__half a, __half b) { return SCANLAB_EMU_FP16::sat(__hsub(a, b)); }
inline __half __hmul_sat(__half a, __half b) { return SCANLAB_EMU_FP16::sat(__hmul(a, b)); }
inline __half __hfma_sat(__half a, __half b, __half c) { return SCANLAB_EMU_FP16::sat(__hfma(a, b, c)); }
inline __half __hneg(__half a) { return SCANLAB_EMU_FP16::make((unsigned short)(SCANLAB_EMU_FP16::bits(a) ^ 0x8000u)); }
inline __half __habs(__half a) { return SCANLAB_EMU_FP16::make((unsigned short)(SCANLAB_EMU_FP16::bits(a) & 0x7fffu)); }
inline __half __hmax(__half a, __half b) {
  return SCANLAB_EMU_FP16::nan(a) ? b : SCANLAB_EMU_FP16::nan(b) ? a : (SCANLAB_EMU_FP16::d(a) >= SCANLAB_EMU_FP16::d(b) ? a : b);
}
inline __half __hmin(__half a, __half b) {
  return SCANLAB_EMU_FP16::nan(a) ? b : SCANLAB_EMU_FP16::nan(b) ? a : (SCANLAB_EMU_FP16::d(a) <= SCANLAB_EMU_FP16::d(b) ? a : b);
}
inline __half __hmax_nan(__half a, __half b) { return SCANLAB_EMU_FP16::nan(a) || SCANLAB_EMU_FP16::nan(b) ? CUDART_NAN_FP16 : __hmax(a, b); }
inline __half __hmin_nan(__half a, __half b) { return SCANLAB_EMU_FP16::nan(a) || SCANLAB_EMU_FP16::nan(b) ? CUDART_NAN_FP16 : __hmin(a, b); }

/* ---- comparisons (the u forms are true where either side is NaN) ---- */
#define SCANLAB_EMU_CMP(NAME, OP)                                                                               \
  inline bool NAME(__half a, __half b) { return SCANLAB_EMU_FP16::d(a) OP SCANLAB_EMU_FP16::d(b); }                  \
  inline bool NAME##u(__half a, __half b) {                                                                     \
    return SCANLAB_EMU_FP16::nan(a) || SCANLAB_EMU_FP16::nan(b) || SCANLAB_EMU_FP16::d(a) OP SCANLAB_EMU_FP16::d(b);      \
  }                                                                                                             \
  inline __half2 NAME##2(__half2 a, __half2 b) {                                                                \
    return __half2(NAME(a.x, b.x) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16,                                        \
                   NAME(a.y, b.y) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16);                                       \
  }
SCANLAB_EMU_CMP(__heq, ==)
SCANLAB_EMU_CMP(__hne, !=)
SCANLAB_EMU_CMP(__hlt, <)
SCANLAB_EMU_CMP(__hle, <=)
SCANLAB_EMU_CMP(__hgt, >)
SCANLAB_EMU_CMP(__hge, >=)
#undef SCANLAB_EMU_CMP
inline bool __hbeq2(__half2 a, __half2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }
inline bool __hbne2(__half2 a, __half2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }
inline bool __hblt2(__half2 a, __half2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }
inline bool __hble2(__half2 a, __half2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }
inline bool __hbgt2(__half2 a, __half2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }
inline bool __hbge2(__half2 a, __half2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }
inline bool __hisnan(__half a) { return SCANLAB_EMU_FP16::nan(a); }
inline int __hisinf(__half a) {
  const unsigned short b = SCANLAB_EMU_FP16::bits(a);
  return b == 0x7c00u ? 1 : b == 0xfc00u ? -1 : 0;
}
inline __half2 __hisnan2(__half2 a) {
  return __half2(__hisnan(a.x) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16, __hisnan(a.y) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16);
}

/* ---- pairs ---- */
#define SCANLAB_EMU_PAIR2(NAME, ONE)                                                              \
  inline __half2 NAME(__half2 a, __half2 b) { return __half2(ONE(a.x, b.x), ONE(a.y, b.y)); }
SCANLAB_EMU_PAIR2(__hadd2, __hadd)
SCANLAB_EMU_PAIR2(__hsub2, __hsub)
SCANLAB_EMU_PAIR2(__hmul2, __hmul)
SCANLAB_EMU_PAIR2(__h2div, __hdiv)
SCANLAB_EMU_PAIR2(__hadd2_sat, __hadd_sat)
SCANLAB_EMU_PAIR2(__hsub2_sat, __hsub_sat)
SCANLAB_EMU_PAIR2(__hmul2_sat, __hmul_sat)
SCANLAB_EMU_PAIR2(__hmax2, __hmax)
SCANLAB_EMU_PAIR2(__hmin2, __hmin)
SCANLAB_EMU_PAIR2(__hadd2_rn, __hadd)
SCANLAB_EMU_PAIR2(__hsub2_rn, __hsub)
SCANLAB_EMU_PAIR2(__hmul2_rn, __hmul)
#undef SCANLAB_EMU_PAIR2
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

/* ---- functions ---- */
#define SCANLAB_EMU_FN(NAME, EXPR)                                                          \
  inline __half NAME(__half a) {                                                            \
    const double x = SCANLAB_EMU_FP16::d(a);                                                   \
    return SCANLAB_EMU_FP16::round(EXPR);                                                      \
  }
SCANLAB_EMU_FN(hsqrt, sqrt(x))
SCANLAB_EMU_FN(hrsqrt, 1.0 / sqrt(x))
SCANLAB_EMU_FN(hrcp, 1.0 / x)
SCANLAB_EMU_FN(hexp, exp(x))
SCANLAB_EMU_FN(hexp2, exp2(x))
SCANLAB_EMU_FN(hexp10, pow(10.0, x))
SCANLAB_EMU_FN(hlog, log(x))
SCANLAB_EMU_FN(hlog2, log2(x))
SCANLAB_EMU_FN(hlog10, log10(x))
SCANLAB_EMU_FN(hsin, sin(x))
SCANLAB_EMU_FN(hcos, cos(x))
SCANLAB_EMU_FN(hfloor, floor(x))
SCANLAB_EMU_FN(hceil, ceil(x))
SCANLAB_EMU_FN(htrunc, trunc(x))
SCANLAB_EMU_FN(hrint, nearbyint(x))
#undef SCANLAB_EMU_FN
#define SCANLAB_EMU_FN2(NAME) \
  inline __half2 h2##NAME(__half2 a) { return __half2(h##NAME(a.x), h##NAME(a.y)); }
SCANLAB_EMU_FN2(sqrt)
SCANLAB_EMU_FN2(rsqrt)
SCANLAB_EMU_FN2(rcp)
SCANLAB_EMU_FN2(exp)
SCANLAB_EMU_FN2(exp2)
SCANLAB_EMU_FN2(exp10)
SCANLAB_EMU_FN2(log)
SCANLAB_EMU_FN2(log2)
SCANLAB_EMU_FN2(log10)
SCANLAB_EMU_FN2(sin)
SCANLAB_EMU_FN2(cos)
SCANLAB_EMU_FN2(floor)
SCANLAB_EMU_FN2(ceil)
SCANLAB_EMU_FN2(trunc)
SCANLAB_EMU_FN2(rint)
#undef SCANLAB_EMU_FN2

/* ---- operators ---- */
inline __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
inline __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
inline __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
inline __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
inline __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
inline __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
inline __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
inline __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
inline __half operator+(const __half &a) { return a; }
inline __half operator-(const __half &a) { return __hneg(a); }
inline __half &operator++(__half &a) { return a = __hadd(a, CUDART_ONE_FP16); }
inline __half &operator--(__half &a) { return a = __hsub(a, CUDART_ONE_FP16); }
inline __half operator++(__half &a, int) {
  const __half old = a;
  ++a;
  return old;
}
inline __half operator--(__half &a, int) {
  const __half old = a;
  --a;
  return old;
}
inline bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
inline bool operator!=(const __half &a, const __half &b) { return __hneu(a, b); }
inline bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
inline bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
inline bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
inline bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }
inline __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
inline __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
inline __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
inline __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
inline __half2 &operator+=(__half2 &a, const __half2 &b) { return a = __hadd2(a, b); }
inline __half2 &operator-=(__half2 &a, const __half2 &b) { return a = __hsub2(a, b); }
inline __half2 &operator*=(__half2 &a, const __half2 &b) { return a = __hmul2(a, b); }
inline __half2 &operator/=(__half2 &a, const __half2 &b) { return a = __h2div(a, b); }
inline __half2 operator-(const __half2 &a) { return __hneg2(a); }
inline bool operator==(const __half2 &a, const __half2 &b) { return __hbeq2(a, b); }
inline bool operator!=(const __half2 &a, const __half2 &b) { return __hbne2(a, b); }

/* ---- device-only: atomics (a compare-and-swap on the 32-bit word holding the value) ---- */
#if defined(__CUDACC__) || defined(SCANLAB_EMU_RUNTIME)
inline __half2 atomicAdd(__half2 *address, __half2 val) {
  unsigned *word = reinterpret_cast<unsigned *>(address);
  const unsigned old = ::scanlab_emu::atomic_update(word, [val](unsigned o) {
    __half2 v;
    memcpy(static_cast<void *>(&v), &o, 4);
    v = __hadd2(v, val);
    unsigned n;
    memcpy(&n, &v, 4);
    return n;
  });
  __half2 r;
  memcpy(static_cast<void *>(&r), &old, 4);
  return r;
}
inline __half atomicAdd(__half *address, __half val) {
  const __UINTPTR_TYPE__ p = reinterpret_cast<__UINTPTR_TYPE__>(address);
  unsigned *word = reinterpret_cast<unsigned *>(p & ~(__UINTPTR_TYPE__)3);
  const int shift = (p & 2) ? 16 : 0;
  const unsigned old = ::scanlab_emu::atomic_update(word, [val, shift](unsigned o) {
    const __half h = __ushort_as_half((unsigned short)(o >> shift));
    const unsigned n = __half_as_ushort(__hadd(h, val));
    return (o & ~(0xffffu << shift)) | (n << shift);
  });
  return __ushort_as_half((unsigned short)(old >> shift));
}
#endif

#undef SCANLAB_EMU_FP16
#endif /* __cplusplus */
/// @endcond
#endif /* __CUDA_FP16_H__ */
