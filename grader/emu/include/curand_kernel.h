/**
 * @file curand_kernel.h
 * @brief Emulation backend: cuRAND's device API (per-thread generator states).
 *
 * The three pseudo-random generators cuRAND names, each run by the algorithm of its name:
 * XORWOW (`curandState`, Marsaglia's xorshift with a Weyl sequence added, "Xorshift RNGs",
 * 2003), Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", 2011) and MRG32k3a (L'Ecuyer, "Good parameters and implementations for combined
 * multiple recursive random number generators", 1999). The distributions are those of cuRAND's
 * documentation: uniform in (0, 1], normal by the Box-Muller transform, log-normal, Poisson.
 *
 * The numbers are not cuRAND's own sequence: `curand_init` spreads the seed and the
 * subsequence over the state with SplitMix64 (Steele, Lea and Flood, 2014) instead of jumping
 * 2^67 steps ahead, so a program gets numbers of the same distribution and independence, not
 * the same numbers it would get on a GPU. Quasi-random (Sobol) states are not emulated: their
 * use does not compile.
 */
#ifndef CURAND_KERNEL_H_
#define CURAND_KERNEL_H_
/// @cond EMU_INTERNAL
#include "cuda_runtime.h"
#include "curand.h"

#ifdef __cplusplus
#include <math.h>

namespace scanlab_emu {
namespace rng {
inline unsigned long long splitmix(unsigned long long &s) {
  unsigned long long z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* 2^-32, and half of it: a 32-bit integer x maps to x * 2^-32 + 2^-33, in (0, 1] */
constexpr float INV32 = 2.3283064365386963e-10f;
constexpr double INV32D = 2.3283064365386963e-10;
constexpr double INV53 = 1.1102230246251565e-16; /* 2^-53 */
}  // namespace rng
}  // namespace scanlab_emu
/* curand_init is a __device__ function, which nvcc refuses to call from host code; the emu
 * fails such a call when it runs (device_function_on_host). The runtime's host API
 * (curand.cpp) makes its states on the host on purpose, with SCANLAB_EMU_CURAND_HOST defined. */
#ifdef SCANLAB_EMU_CURAND_HOST
#define SCANLAB_EMU_DEVICE_ONLY(fn) ((void)scanlab_emu_file, (void)scanlab_emu_line)
#else
#define SCANLAB_EMU_DEVICE_ONLY(fn) \
  (::scanlab_emu::tls.fiber ? (void)0 : ::scanlab_emu::device_function_on_host(fn, scanlab_emu_file, scanlab_emu_line))
#endif

/* ---- states ---- */
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

struct curandStateMRG32k3a {
  double s1[3], s2[3];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

struct curandStateSobol32;
typedef struct curandStateSobol32 curandStateSobol32_t;
struct curandStateScrambledSobol32;
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;

/* ---- XORWOW ---- */
inline unsigned int curand(curandStateXORWOW_t *s) {
  const unsigned int t = s->v[0] ^ (s->v[0] >> 2);
  s->v[0] = s->v[1];
  s->v[1] = s->v[2];
  s->v[2] = s->v[3];
  s->v[3] = s->v[4];
  s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
  s->d += 362437u;
  return s->v[4] + s->d;
}
inline void skipahead(unsigned long long n, curandStateXORWOW_t *s) {
  while (n--) (void)curand(s);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateXORWOW_t *s, SCANLAB_EMU_SITE) {
  SCANLAB_EMU_DEVICE_ONLY("curand_init");
  unsigned long long mix = seed ^ (subsequence * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  (void)::scanlab_emu::rng::splitmix(mix);
  mix ^= subsequence;
  unsigned int any = 0;
  for (int k = 0; k < 5; k++) any |= s->v[k] = (unsigned int)(::scanlab_emu::rng::splitmix(mix) >> 16);
  if (!any) s->v[0] = 1u; /* xorshift's state must not be all zero */
  s->d = (unsigned int)::scanlab_emu::rng::splitmix(mix);
  s->boxmuller_flag = s->boxmuller_flag_double = 0;
  s->boxmuller_extra = 0.0f;
  s->boxmuller_extra_double = 0.0;
  skipahead(offset, s);
}

/* ---- Philox4x32-10: a counter-based generator; four numbers per counter value ---- */
namespace scanlab_emu {
namespace rng {
inline uint4 philox(uint4 c, uint2 k) {
  for (int r = 0; r < 10; r++) {
    const unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
    const uint4 n = {(unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1, (unsigned int)(p0 >> 32) ^ c.w ^ k.y,
                     (unsigned int)p0};
    c = n;
    k.x += 0x9E3779B9u;
    k.y += 0xBB67AE85u;
  }
  return c;
}
inline void philox_add(curandStatePhilox4_32_10_t *s, unsigned long long n) {
  const unsigned long long lo = ((unsigned long long)s->ctr.y << 32 | s->ctr.x), sum = lo + n;
  s->ctr.x = (unsigned int)sum;
  s->ctr.y = (unsigned int)(sum >> 32);
  if (sum < lo && ++s->ctr.z == 0) ++s->ctr.w;
}
}  // namespace rng
}  // namespace scanlab_emu
inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *s) {
  const unsigned long long pos = s->STATE + n;
  ::scanlab_emu::rng::philox_add(s, pos / 4);
  s->STATE = (unsigned int)(pos % 4);
  s->output = ::scanlab_emu::rng::philox(s->ctr, s->key);
}
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *s) {
  const unsigned long long hi = ((unsigned long long)s->ctr.w << 32 | s->ctr.z) + n;
  s->ctr.z = (unsigned int)hi;
  s->ctr.w = (unsigned int)(hi >> 32);
  s->output = ::scanlab_emu::rng::philox(s->ctr, s->key);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStatePhilox4_32_10_t *s, SCANLAB_EMU_SITE) {
  SCANLAB_EMU_DEVICE_ONLY("curand_init");
  s->key = uint2{(unsigned int)seed, (unsigned int)(seed >> 32)};
  s->ctr = uint4{0u, 0u, (unsigned int)subsequence, (unsigned int)(subsequence >> 32)};
  s->STATE = 0;
  s->boxmuller_flag = s->boxmuller_flag_double = 0;
  s->boxmuller_extra = 0.0f;
  s->boxmuller_extra_double = 0.0;
  skipahead(offset, s);
}
inline unsigned int curand(curandStatePhilox4_32_10_t *s) {
  const unsigned int r = (&s->output.x)[s->STATE];
  if (++s->STATE == 4) {
    s->STATE = 0;
    ::scanlab_emu::rng::philox_add(s, 1);
    s->output = ::scanlab_emu::rng::philox(s->ctr, s->key);
  }
  return r;
}
inline uint4 curand4(curandStatePhilox4_32_10_t *s) {
  uint4 r;
  r.x = curand(s);
  r.y = curand(s);
  r.z = curand(s);
  r.w = curand(s);
  return r;
}

/* ---- MRG32k3a: two recurrences modulo primes near 2^32, combined ---- */
namespace scanlab_emu {
namespace rng {
constexpr double MRG_M1 = 4294967087.0, MRG_M2 = 4294944443.0;
inline double mrg_next(curandStateMRG32k3a_t *s) {
  double p1 = 1403580.0 * s->s1[1] - 810728.0 * s->s1[0];
  p1 = fmod(p1, MRG_M1);
  if (p1 < 0) p1 += MRG_M1;
  s->s1[0] = s->s1[1];
  s->s1[1] = s->s1[2];
  s->s1[2] = p1;
  double p2 = 527612.0 * s->s2[2] - 1370589.0 * s->s2[0];
  p2 = fmod(p2, MRG_M2);
  if (p2 < 0) p2 += MRG_M2;
  s->s2[0] = s->s2[1];
  s->s2[1] = s->s2[2];
  s->s2[2] = p2;
  return p1 > p2 ? p1 - p2 : p1 - p2 + MRG_M1; /* in [1, M1] */
}
}  // namespace rng
}  // namespace scanlab_emu
inline void skipahead(unsigned long long n, curandStateMRG32k3a_t *s) {
  while (n--) (void)::scanlab_emu::rng::mrg_next(s);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateMRG32k3a_t *s, SCANLAB_EMU_SITE) {
  SCANLAB_EMU_DEVICE_ONLY("curand_init");
  unsigned long long mix = seed ^ (subsequence * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  for (int k = 0; k < 3; k++) {
    s->s1[k] = (double)(1 + ::scanlab_emu::rng::splitmix(mix) % 4294967086ull);
    s->s2[k] = (double)(1 + ::scanlab_emu::rng::splitmix(mix) % 4294944442ull);
  }
  s->boxmuller_flag = s->boxmuller_flag_double = 0;
  s->boxmuller_extra = 0.0f;
  s->boxmuller_extra_double = 0.0;
  skipahead(offset, s);
}
inline unsigned int curand(curandStateMRG32k3a_t *s) {
  return (unsigned int)((::scanlab_emu::rng::mrg_next(s) - 1.0) * (4294967296.0 / ::scanlab_emu::rng::MRG_M1));
}

/* ---- quasi-random states: not emulated ---- */
template <class... A>
void curand_init(unsigned int *direction_vectors, unsigned int offset, curandStateSobol32_t *s, A...)
    SCANLAB_EMU_UNSUPPORTED("cuRAND's quasi-random (Sobol) generators");
template <class... A>
void curand_init(unsigned int *direction_vectors, unsigned int scramble, unsigned int offset,
                 curandStateScrambledSobol32_t *s, A...)
    SCANLAB_EMU_UNSUPPORTED("cuRAND's quasi-random (Sobol) generators");

/* ---- distributions, for every state ---- */
template <class S>
inline float curand_uniform(S *s) {
  return (float)curand(s) * ::scanlab_emu::rng::INV32 + ::scanlab_emu::rng::INV32 / 2.0f;
}
template <class S>
inline double curand_uniform_double(S *s) {
  /* 53 random bits from two numbers, in (0, 1] */
  const unsigned long long a = curand(s), b = curand(s);
  const unsigned long long bits = (a << 21) ^ (b >> 11);
  return (double)(bits & ((1ull << 53) - 1)) * ::scanlab_emu::rng::INV53 + ::scanlab_emu::rng::INV53 / 2.0;
}
inline float4 curand_uniform4(curandStatePhilox4_32_10_t *s) {
  return float4{curand_uniform(s), curand_uniform(s), curand_uniform(s), curand_uniform(s)};
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t *s) {
  return double2{curand_uniform_double(s), curand_uniform_double(s)};
}
template <class S>
inline float2 curand_normal2(S *s) {
  const float u = curand_uniform(s), v = curand_uniform(s);
  const float r = sqrtf(-2.0f * logf(u)), a = 6.28318530717958647692f * v;
  return float2{r * cosf(a), r * sinf(a)};
}
template <class S>
inline double2 curand_normal2_double(S *s) {
  const double u = curand_uniform_double(s), v = curand_uniform_double(s);
  const double r = sqrt(-2.0 * log(u)), a = 6.28318530717958647692 * v;
  return double2{r * cos(a), r * sin(a)};
}
/* one of a Box-Muller pair now, the other at the next call */
template <class S>
inline float curand_normal(S *s) {
  if (s->boxmuller_flag) {
    s->boxmuller_flag = 0;
    return s->boxmuller_extra;
  }
  const float2 p = curand_normal2(s);
  s->boxmuller_extra = p.y;
  s->boxmuller_flag = 1;
  return p.x;
}
template <class S>
inline double curand_normal_double(S *s) {
  if (s->boxmuller_flag_double) {
    s->boxmuller_flag_double = 0;
    return s->boxmuller_extra_double;
  }
  const double2 p = curand_normal2_double(s);
  s->boxmuller_extra_double = p.y;
  s->boxmuller_flag_double = 1;
  return p.x;
}
inline float4 curand_normal4(curandStatePhilox4_32_10_t *s) {
  const float2 a = curand_normal2(s), b = curand_normal2(s);
  return float4{a.x, a.y, b.x, b.y};
}
template <class S>
inline float curand_log_normal(S *s, float mean, float stddev) {
  return expf(mean + stddev * curand_normal(s));
}
template <class S>
inline double curand_log_normal_double(S *s, double mean, double stddev) {
  return exp(mean + stddev * curand_normal_double(s));
}
template <class S>
inline float2 curand_log_normal2(S *s, float mean, float stddev) {
  const float2 p = curand_normal2(s);
  return float2{expf(mean + stddev * p.x), expf(mean + stddev * p.y)};
}
/* Poisson: counting exponential gaps below lambda for small lambda; above 64, the normal
 * approximation rounded to the nearest count (its error is below 1% of the deviation there). */
template <class S>
inline unsigned int curand_poisson(S *s, double lambda) {
  if (!(lambda > 0.0)) return 0u;
  if (lambda > 64.0) {
    const double x = lambda + sqrt(lambda) * curand_normal_double(s) + 0.5;
    return x < 0.0 ? 0u : (unsigned int)x;
  }
  const double limit = exp(-lambda);
  double p = curand_uniform_double(s);
  unsigned int k = 0;
  while (p > limit) {
    p *= curand_uniform_double(s);
    k++;
  }
  return k;
}
inline uint4 curand_poisson4(curandStatePhilox4_32_10_t *s, double lambda) {
  return uint4{curand_poisson(s, lambda), curand_poisson(s, lambda), curand_poisson(s, lambda),
               curand_poisson(s, lambda)};
}
#endif /* __cplusplus */
/// @endcond
#endif /* CURAND_KERNEL_H_ */
