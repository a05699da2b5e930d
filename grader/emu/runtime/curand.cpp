/**
 * @file curand.cpp
 * @brief Emulation backend: cuRAND's host API, on the generators of curand_kernel.h.
 *
 * A generator keeps its type, seed, offset and where it writes (device memory, or host memory
 * for one made by curandCreateGeneratorHost). Each call draws from one state made from the seed
 * and the numbers drawn so far, so two calls continue one sequence, as on a GPU. Numbers for
 * device memory are made on the host and copied in with cudaMemcpy.
 */
#include "emu_internal.h"

#include <vector>

#include "curand.h"
#define SCANLAB_EMU_CURAND_HOST /* the host API makes its states on the host */
#include "curand_kernel.h"

struct curandGenerator_st {
  curandRngType_t type;
  bool host;
  unsigned long long seed, offset;
  curandStateXORWOW_t xorwow;
  curandStatePhilox4_32_10_t philox;
  curandStateMRG32k3a_t mrg;
  bool ready;
};

namespace {

void restart(curandGenerator_st *g) {
  curand_init(g->seed, 0, 0, &g->xorwow);
  curand_init(g->seed, 0, 0, &g->philox);
  curand_init(g->seed, 0, 0, &g->mrg);
  skipahead(g->offset, &g->xorwow);
  skipahead(g->offset, &g->philox);
  skipahead(g->offset, &g->mrg);
  g->ready = true;
}

/* Calls f(state) for the generator's state type; f returns the values to write. */
template <class F>
void with_state(curandGenerator_st *g, F f) {
  if (!g->ready) restart(g);
  if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10) f(&g->philox);
  else if (g->type == CURAND_RNG_PSEUDO_MRG32K3A) f(&g->mrg);
  else f(&g->xorwow);
}

bool pseudo(curandRngType_t t) {
  return t == CURAND_RNG_PSEUDO_DEFAULT || t == CURAND_RNG_PSEUDO_XORWOW || t == CURAND_RNG_PSEUDO_MRG32K3A ||
         t == CURAND_RNG_PSEUDO_MTGP32 || t == CURAND_RNG_PSEUDO_MT19937 || t == CURAND_RNG_PSEUDO_PHILOX4_32_10;
}

curandStatus_t create(curandGenerator_t *out, curandRngType_t type, bool host) {
  if (!out) return CURAND_STATUS_NOT_INITIALIZED;
  if (!pseudo(type)) {
    scanlab_emu::diag("emu: curandCreateGenerator: quasi-random generators are not emulated (CURAND_STATUS_TYPE_ERROR)");
    return CURAND_STATUS_TYPE_ERROR;
  }
  curandGenerator_st *g = new curandGenerator_st();
  g->type = type;
  g->host = host;
  g->seed = 0;
  g->offset = 0;
  g->ready = false;
  *out = g;
  return CURAND_STATUS_SUCCESS;
}

/* Makes n values with make(state, i) on the host and puts them where the generator writes. */
template <class T, class Make>
curandStatus_t fill(curandGenerator_t g, T *out, size_t n, Make make) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (!out && n) return CURAND_STATUS_OUT_OF_RANGE;
  if (!n) return CURAND_STATUS_SUCCESS;
  std::vector<T> v(n);
  with_state(g, [&](auto *s) {
    for (size_t i = 0; i < n; i++) v[i] = make(s, i);
  });
  if (g->host) {
    memcpy(out, v.data(), n * sizeof(T));
    return CURAND_STATUS_SUCCESS;
  }
  const cudaError_t e = cudaMemcpy(out, v.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  return e == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_LAUNCH_FAILURE;
}

}  // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type) {
  return create(generator, rng_type, false);
}
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type) {
  return create(generator, rng_type, true);
}
curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  delete generator;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetVersion(int *version) {
  if (!version) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  (void)stream;
  return generator ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  generator->seed = seed;
  generator->ready = false;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  generator->offset = offset;
  generator->ready = false;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  (void)order;
  return generator ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}
curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  if (!generator->ready) restart(generator);
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num) {
  return fill(generator, outputPtr, num, [](auto *s, size_t) { return curand(s); });
}
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr, size_t num) {
  (void)outputPtr;
  (void)num;
  return generator ? CURAND_STATUS_TYPE_ERROR : CURAND_STATUS_NOT_INITIALIZED; /* 64-bit quasi-random only */
}
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num) {
  return fill(generator, outputPtr, num, [](auto *s, size_t) { return curand_uniform(s); });
}
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num) {
  return fill(generator, outputPtr, num, [](auto *s, size_t) { return curand_uniform_double(s); });
}
/* Normal numbers come in Box-Muller pairs: n must be even, as cuRAND requires. */
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                    float stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  return fill(generator, outputPtr, n, [mean, stddev](auto *s, size_t) { return mean + stddev * curand_normal(s); });
}
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n, double mean,
                                          double stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  return fill(generator, outputPtr, n,
              [mean, stddev](auto *s, size_t) { return mean + stddev * curand_normal_double(s); });
}
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                       float stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  return fill(generator, outputPtr, n, [mean, stddev](auto *s, size_t) { return curand_log_normal(s, mean, stddev); });
}
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n, double mean,
                                             double stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  return fill(generator, outputPtr, n,
              [mean, stddev](auto *s, size_t) { return curand_log_normal_double(s, mean, stddev); });
}
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n, double lambda) {
  if (!(lambda > 0.0)) return CURAND_STATUS_OUT_OF_RANGE;
  return fill(generator, outputPtr, n, [lambda](auto *s, size_t) { return curand_poisson(s, lambda); });
}

}  /* extern "C" */
