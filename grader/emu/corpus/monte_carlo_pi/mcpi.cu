// Week 6: Monte Carlo. Estimate pi three ways and check each against its own statistical
// error: (1) every thread its own XORWOW state from curand_init, points from curand_uniform;
// (2) Philox states, four numbers per call with curand_uniform4; (3) the host API filling a
// device buffer with curandGenerateUniform, counted by a kernel. Then a normal sample's mean
// and variance from curand_normal.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#define CUDA_OK(x)                                                                          \
  do {                                                                                      \
    cudaError_t e = (x);                                                                    \
    if (e != cudaSuccess) {                                                                 \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)
#define CURAND_OK(x)                                                                        \
  do {                                                                                      \
    if ((x) != CURAND_STATUS_SUCCESS) {                                                     \
      std::printf("%s:%d: cuRAND call failed\n", __FILE__, __LINE__);                       \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

__global__ void setupXorwow(curandState *states, unsigned long long seed) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void countXorwow(curandState *states, int per, unsigned long long *hits) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s = states[id];
  unsigned long long in = 0;
  for (int k = 0; k < per; k++) {
    const float x = curand_uniform(&s), y = curand_uniform(&s);
    in += x * x + y * y <= 1.0f;
  }
  states[id] = s;
  atomicAdd(hits, in);
}

__global__ void countPhilox(unsigned long long seed, int per, unsigned long long *hits) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, id, 0, &s);
  unsigned long long in = 0;
  for (int k = 0; k < per; k += 2) {
    const float4 u = curand_uniform4(&s);
    in += (u.x * u.x + u.y * u.y <= 1.0f) + (u.z * u.z + u.w * u.w <= 1.0f);
  }
  atomicAdd(hits, in);
}

__global__ void countBuffer(const float *xy, size_t points, unsigned long long *hits) {
  unsigned long long in = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < points; i += (size_t)gridDim.x * blockDim.x)
    in += xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1] <= 1.0f;
  atomicAdd(hits, in);
}

__global__ void normals(curandState *states, int per, float *sum, float *sumsq) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s = states[id];
  float a = 0, b = 0;
  for (int k = 0; k < per; k++) {
    const float z = curand_normal(&s);
    a += z;
    b += z * z;
  }
  atomicAdd(sum, a);
  atomicAdd(sumsq, b);
}

static bool close_to_pi(const char *how, unsigned long long hits, double points) {
  const double pi = 4.0 * hits / points, q = M_PI / 4;
  const double err = 4.0 * std::sqrt(q * (1 - q) / points);
  std::printf("%-28s pi = %.5f (error %.5f, %.1f standard errors)\n", how, pi, std::fabs(pi - M_PI),
              std::fabs(pi - M_PI) / err);
  return std::fabs(pi - M_PI) < 5 * err;
}

int main() {
  const int blocks = 32, threads = 128, per = 256, n = blocks * threads;
  curandState *states;
  unsigned long long *hits, h;
  CUDA_OK(cudaMalloc(&states, n * sizeof(curandState)));
  CUDA_OK(cudaMalloc(&hits, sizeof(unsigned long long)));
  bool ok = true;

  setupXorwow<<<blocks, threads>>>(states, 1234ull);
  CUDA_OK(cudaMemset(hits, 0, sizeof(unsigned long long)));
  countXorwow<<<blocks, threads>>>(states, per, hits);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
  ok &= close_to_pi("XORWOW, curand_uniform:", h, (double)n * per);

  CUDA_OK(cudaMemset(hits, 0, sizeof(unsigned long long)));
  countPhilox<<<blocks, threads>>>(99ull, per, hits);
  CUDA_OK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
  ok &= close_to_pi("Philox, curand_uniform4:", h, (double)n * per);

  const size_t points = 1 << 20;
  float *xy;
  CUDA_OK(cudaMalloc(&xy, 2 * points * sizeof(float)));
  curandGenerator_t gen;
  CURAND_OK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
  CURAND_OK(curandSetPseudoRandomGeneratorSeed(gen, 4321ull));
  CURAND_OK(curandGenerateUniform(gen, xy, 2 * points));
  CUDA_OK(cudaMemset(hits, 0, sizeof(unsigned long long)));
  countBuffer<<<blocks, threads>>>(xy, points, hits);
  CUDA_OK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
  ok &= close_to_pi("host API, GenerateUniform:", h, (double)points);
  CURAND_OK(curandDestroyGenerator(gen));

  float *sums, hs[2];
  CUDA_OK(cudaMalloc(&sums, 2 * sizeof(float)));
  CUDA_OK(cudaMemset(sums, 0, 2 * sizeof(float)));
  normals<<<blocks, threads>>>(states, per, sums, sums + 1);
  CUDA_OK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
  const double m = hs[0] / ((double)n * per), var = hs[1] / ((double)n * per) - m * m;
  std::printf("normal sample: mean %.4f, variance %.4f\n", m, var);
  ok &= std::fabs(m) < 5.0 / std::sqrt((double)n * per) && std::fabs(var - 1.0) < 0.02;

  CUDA_OK(cudaFree(states));
  CUDA_OK(cudaFree(hits));
  CUDA_OK(cudaFree(xy));
  CUDA_OK(cudaFree(sums));
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}
