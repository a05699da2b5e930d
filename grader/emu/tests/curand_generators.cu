// cuRAND's device and host APIs: for XORWOW, Philox4x32-10 and MRG32k3a states, uniform numbers
// lie in (0, 1] with the mean and variance of U(0, 1), normal numbers have mean 0 and variance 1,
// Poisson counts have mean lambda (small and large); two subsequences of one seed differ; a
// state and a copy of it give the same numbers; the host API fills device and host memory and
// refuses an odd count of normal numbers; a Monte Carlo estimate of pi is within its error.
// emu-test: expect pass
// emu-test: schedules forward random:1
// emu-test: stdout curand ok
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <math.h>

#include "emu_test.h"

#define THREADS 256
#define PER 64

template <class S>
__global__ void draw(unsigned long long seed, float *uni, float *nor, unsigned *poi_small, unsigned *poi_large,
                     unsigned *first, int *copy_differs) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  S s;
  curand_init(seed, t, 0, &s);
  S copy = s;
  first[t] = curand(&copy);
  S again = s; /* a copy gives the state's numbers */
  if (curand(&again) != first[t]) atomicExch(copy_differs, 1);
  for (int k = 0; k < PER; k++) {
    uni[t * PER + k] = curand_uniform(&s);
    nor[t * PER + k] = curand_normal(&s);
  }
  poi_small[t] = curand_poisson(&s, 3.5);
  poi_large[t] = curand_poisson(&s, 400.0);
}

__global__ void piKernel(unsigned long long seed, unsigned *inside, int per) {
  curandStatePhilox4_32_10_t s;
  curand_init(seed, blockIdx.x * blockDim.x + threadIdx.x, 0, &s);
  unsigned count = 0;
  for (int k = 0; k < per; k++) {
    const float4 u = curand_uniform4(&s);
    count += (u.x * u.x + u.y * u.y <= 1.0f) + (u.z * u.z + u.w * u.w <= 1.0f);
  }
  atomicAdd(inside, count);
}

static int moments(const char *what, const float *v, size_t n, double mean, double var, double lo, double hi) {
  double m = 0, q = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(v[i] > lo && v[i] <= hi)) {
      printf("%s: value %g at %zu outside (%g, %g]\n", what, v[i], i, lo, hi);
      return 0;
    }
    m += v[i];
  }
  m /= n;
  for (size_t i = 0; i < n; i++) q += (v[i] - m) * (v[i] - m);
  q /= n - 1;
  /* six standard errors of the mean; 5% on the variance (n >= 16384) */
  if (fabs(m - mean) > 6 * sqrt(var / n) || fabs(q - var) > 0.05 * var) {
    printf("%s: mean %g (want %g), variance %g (want %g)\n", what, m, mean, q, var);
    return 0;
  }
  return 1;
}

template <class S>
static int check(const char *name) {
  const int n = 2 * THREADS;
  float *uni, *nor;
  unsigned *ps, *pl, *first;
  CK(cudaMallocManaged(&uni, n * PER * sizeof(float)));
  CK(cudaMallocManaged(&nor, n * PER * sizeof(float)));
  CK(cudaMallocManaged(&ps, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&pl, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&first, n * sizeof(unsigned)));
  int *copy_differs;
  CK(cudaMallocManaged(&copy_differs, sizeof(int)));
  *copy_differs = 0;
  draw<S><<<2, THREADS>>>(1234ull, uni, nor, ps, pl, first, copy_differs);
  CK(cudaDeviceSynchronize());
  char what[64];
  int ok = 1;
  snprintf(what, sizeof what, "%s uniform", name);
  ok &= moments(what, uni, (size_t)n * PER, 0.5, 1.0 / 12.0, 0.0, 1.0);
  snprintf(what, sizeof what, "%s normal", name);
  ok &= moments(what, nor, (size_t)n * PER, 0.0, 1.0, -1e9, 1e9);
  double ms = 0, ml = 0;
  for (int i = 0; i < n; i++) {
    ms += ps[i];
    ml += pl[i];
  }
  ms /= n;
  ml /= n;
  if (fabs(ms - 3.5) > 6 * sqrt(3.5 / n) || fabs(ml - 400.0) > 6 * sqrt(400.0 / n)) {
    printf("%s poisson: means %g (want 3.5), %g (want 400)\n", name, ms, ml);
    ok = 0;
  }
  int same = 0;
  for (int i = 1; i < n; i++) same += first[i] == first[0];
  if (same > 2) {
    printf("%s: %d subsequences start with the same number\n", name, same);
    ok = 0;
  }
  CK(cudaFree(uni));
  CK(cudaFree(nor));
  CK(cudaFree(ps));
  CK(cudaFree(pl));
  if (*copy_differs) {
    printf("%s: a copy of a state gives other numbers\n", name);
    ok = 0;
  }
  CK(cudaFree(first));
  CK(cudaFree(copy_differs));
  return ok;
}

static int fail(const char *call) {
  printf("%s failed\n", call);
  return 1;
}

/* curand_init and curand are device functions: the offset's check runs in a kernel */
__global__ void philoxOffset(unsigned *same) {
  curandStatePhilox4_32_10_t a, b;
  curand_init(7, 3, 0, &a);
  curand_init(7, 3, 5, &b);
  for (int k = 0; k < 5; k++) (void)curand(&a);
  *same = curand(&a) == curand(&b);
}

int main() {
  int ok = check<curandState>("XORWOW") & check<curandStatePhilox4_32_10_t>("Philox") &
           check<curandStateMRG32k3a_t>("MRG32k3a");

  /* Philox with an offset is the sequence skipped ahead */
  unsigned *same;
  cudaMallocManaged(&same, sizeof *same);
  *same = 0;
  philoxOffset<<<1, 1>>>(same);
  cudaDeviceSynchronize();
  if (!*same) printf("Philox offset 5 is not five numbers later\n"), ok = 0;
  cudaFree(same);

  /* the host API */
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return fail("curandCreateGenerator");
  curandSetPseudoRandomGeneratorSeed(gen, 42ull);
  const size_t m = 1 << 16;
  float *d, *h = (float *)malloc(m * sizeof(float));
  CK(cudaMalloc(&d, m * sizeof(float)));
  if (curandGenerateUniform(gen, d, m) != CURAND_STATUS_SUCCESS) return fail("curandGenerateUniform");
  CK(cudaMemcpy(h, d, m * sizeof(float), cudaMemcpyDeviceToHost));
  ok &= moments("host API uniform", h, m, 0.5, 1.0 / 12.0, 0.0, 1.0);
  if (curandGenerateNormal(gen, d, m, 2.0f, 3.0f) != CURAND_STATUS_SUCCESS) return fail("curandGenerateNormal");
  CK(cudaMemcpy(h, d, m * sizeof(float), cudaMemcpyDeviceToHost));
  ok &= moments("host API normal", h, m, 2.0, 9.0, -1e9, 1e9);
  if (curandGenerateNormal(gen, d, 3, 0.0f, 1.0f) != CURAND_STATUS_LENGTH_NOT_MULTIPLE)
    printf("an odd count of normal numbers was not refused\n"), ok = 0;
  curandDestroyGenerator(gen);
  curandGenerator_t hg;
  if (curandCreateGeneratorHost(&hg, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS)
    return fail("curandCreateGeneratorHost");
  if (curandGenerateUniform(hg, h, m) != CURAND_STATUS_SUCCESS) return fail("curandGenerateUniform (host)");
  ok &= moments("host generator uniform", h, m, 0.5, 1.0 / 12.0, 0.0, 1.0);
  curandDestroyGenerator(hg);
#ifdef SCANLAB_EMU /* the emu has no quasi-random generator, and says so; cuRAND has them */
  if (curandCreateGenerator(&hg, CURAND_RNG_QUASI_SOBOL32) != CURAND_STATUS_TYPE_ERROR)
    printf("a quasi-random generator was not refused\n"), ok = 0;
#endif
  free(h);
  CK(cudaFree(d));

  /* pi from 2^19 points */
  unsigned *inside;
  CK(cudaMallocManaged(&inside, sizeof(unsigned)));
  *inside = 0;
  piKernel<<<16, 128>>>(99ull, inside, 128);
  CK(cudaDeviceSynchronize());
  const double pts = 16.0 * 128 * 128 * 2, pi = 4.0 * *inside / pts;
  if (fabs(pi - 3.14159265358979) > 6 * 4 * sqrt(0.25 * M_PI * (1 - 0.25 * M_PI) / pts))
    printf("pi estimate %g\n", pi), ok = 0;
  if (!ok) return 1;
  printf("curand ok\n");
  return 0;
}
