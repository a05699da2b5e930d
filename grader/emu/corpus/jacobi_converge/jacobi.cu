// Laplace's equation on a square plate by Jacobi iteration, as GPU training series set it for
// an exercise: one launch per sweep on a 2D grid of 2D blocks, the two arrays swapped on the
// host after each, and every CHECK_EVERY sweeps a variant of the kernel (a template argument)
// that also finds the largest change, reduced with warp shuffles, then across the block's warps
// in shared memory, then across blocks with an atomicMax on the float's bits (changes are never
// negative, so their bits order as the floats do). The host copies that change back and stops
// below the tolerance, or after MAX_SWEEPS. About 1600 small launches. Written for the emu's
// corpus; it runs the same sweeps on the host, compares every point, and prints PASSED.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#define N 66            // the plate with its fixed edge; 64 x 64 points move
#define BX 32
#define BY 8
#define CHECK_EVERY 100
#define MAX_SWEEPS 4000
#define TOLERANCE 1.0e-4f

#define CUDA_RT_CALL(call)                                                                     \
  {                                                                                            \
    cudaError_t status = call;                                                                 \
    if (status != cudaSuccess) {                                                               \
      fprintf(stderr, "ERROR: %s at %s:%d failed: %s\n", #call, __FILE__, __LINE__,           \
              cudaGetErrorString(status));                                                     \
      exit(status);                                                                            \
    }                                                                                          \
  }

template <bool FIND_CHANGE>
__global__ void sweep(const float *__restrict__ a, float *__restrict__ anew, unsigned int *maxChange) {
  const int ix = blockIdx.x * BX + threadIdx.x + 1, iy = blockIdx.y * BY + threadIdx.y + 1;
  float change = 0.0f;
  if (ix < N - 1 && iy < N - 1) {
    const float v = 0.25f * (a[iy * N + ix + 1] + a[iy * N + ix - 1] + a[(iy + 1) * N + ix] + a[(iy - 1) * N + ix]);
    anew[iy * N + ix] = v;
    change = fabsf(v - a[iy * N + ix]);
  }
  if (FIND_CHANGE) {
    __shared__ float warpMax[BX * BY / 32];
    for (int offset = 16; offset > 0; offset /= 2) change = fmaxf(change, __shfl_down_sync(0xffffffffu, change, offset));
    const int t = threadIdx.y * BX + threadIdx.x;
    if (t % 32 == 0) warpMax[t / 32] = change;
    __syncthreads();
    if (t == 0) {
      for (int w = 1; w < BX * BY / 32; w++) change = fmaxf(change, warpMax[w]);
      atomicMax(maxChange, __float_as_uint(change));
    }
  }
}

static float hostSweep(const std::vector<float> &a, std::vector<float> &anew) {
  float most = 0.0f;
  for (int iy = 1; iy < N - 1; iy++)
    for (int ix = 1; ix < N - 1; ix++) {
      const float v = 0.25f * (a[iy * N + ix + 1] + a[iy * N + ix - 1] + a[(iy + 1) * N + ix] + a[(iy - 1) * N + ix]);
      anew[iy * N + ix] = v;
      most = std::fmax(most, std::fabs(v - a[iy * N + ix]));
    }
  return most;
}

int main() {
  std::vector<float> plate(N * N, 0.0f);
  for (int ix = 0; ix < N; ix++) plate[ix] = 1.0f;                 // the hot top edge
  for (int iy = 0; iy < N; iy++) plate[iy * N] = 0.5f * iy / (N - 1);  // a warm left edge

  float *a, *anew;
  unsigned int *maxChange;
  const size_t bytes = sizeof(float) * N * N;
  CUDA_RT_CALL(cudaMalloc(&a, bytes));
  CUDA_RT_CALL(cudaMalloc(&anew, bytes));
  CUDA_RT_CALL(cudaMalloc(&maxChange, sizeof(unsigned int)));
  CUDA_RT_CALL(cudaMemcpy(a, plate.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_RT_CALL(cudaMemcpy(anew, plate.data(), bytes, cudaMemcpyHostToDevice));

  const dim3 block(BX, BY), grid((N - 2 + BX - 1) / BX, (N - 2 + BY - 1) / BY);
  int sweeps = 0, launches = 0;
  float change = 1.0f;
  while (sweeps < MAX_SWEEPS && change > TOLERANCE) {
    if ((sweeps + 1) % CHECK_EVERY == 0) {
      CUDA_RT_CALL(cudaMemsetAsync(maxChange, 0, sizeof(unsigned int)));
      sweep<true><<<grid, block>>>(a, anew, maxChange);
      unsigned int bits;
      CUDA_RT_CALL(cudaMemcpy(&bits, maxChange, sizeof bits, cudaMemcpyDeviceToHost));
      memcpy(&change, &bits, sizeof change);
    } else {
      sweep<false><<<grid, block>>>(a, anew, nullptr);
    }
    CUDA_RT_CALL(cudaGetLastError());
    std::swap(a, anew);
    sweeps++;
    launches++;
  }
  std::vector<float> got(N * N);
  CUDA_RT_CALL(cudaMemcpy(got.data(), a, bytes, cudaMemcpyDeviceToHost));
  CUDA_RT_CALL(cudaFree(a));
  CUDA_RT_CALL(cudaFree(anew));
  CUDA_RT_CALL(cudaFree(maxChange));

  std::vector<float> ha = plate, hb = plate;
  float hostChange = 0.0f;
  for (int s = 0; s < sweeps; s++) {
    const float c = hostSweep(ha, hb);
    if ((s + 1) % CHECK_EVERY == 0) hostChange = c;
    std::swap(ha, hb);
  }
  double worst = 0.0;
  for (int i = 0; i < N * N; i++) worst = std::fmax(worst, std::fabs((double)got[i] - ha[i]));
  printf("jacobi: %d x %d points, %d sweeps in %d launches, last change %.3e (the host's %.3e), "
         "largest difference from the host %.3e\n", N - 2, N - 2, sweeps, launches, change, hostChange, worst);
  if (worst > 1e-5 || std::fabs(change - hostChange) > 1e-6f) {
    printf("FAILED: the device's sweeps differ from the host's\n");
    return 1;
  }
  if (sweeps < 1000 || sweeps >= MAX_SWEEPS) {
    printf("FAILED: %d sweeps; the plate should settle in between 1000 and %d\n", sweeps, MAX_SWEEPS);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
