// Explicit 2D heat diffusion: one launch per time step, ping-pong buffers, a shared-memory
// tile with a halo of one cell, and a 2D grid of 16x16 blocks.
#include <cstdio>
#include <cstdlib>

#include "heat.h"

#define TILE 16
#define CUDA_SAFE_CALL(call)                                                                 \
  do {                                                                                       \
    cudaError_t err = call;                                                                  \
    if (cudaSuccess != err) {                                                                \
      fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__,      \
              cudaGetErrorString(err));                                                      \
      exit(EXIT_FAILURE);                                                                    \
    }                                                                                        \
  } while (0)

__global__ void heatStep(const float *in, float *out, int nx, int ny, float alpha) {
  __shared__ float t[TILE + 2][TILE + 2];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < nx && y < ny;
  t[ty][tx] = inside ? in[y * nx + x] : 0.0f;
  if (threadIdx.x == 0 && x > 0 && inside) t[ty][0] = in[y * nx + x - 1];
  if (threadIdx.x == TILE - 1 && x + 1 < nx && inside) t[ty][TILE + 1] = in[y * nx + x + 1];
  if (threadIdx.y == 0 && y > 0 && inside) t[0][tx] = in[(y - 1) * nx + x];
  if (threadIdx.y == TILE - 1 && y + 1 < ny && inside) t[TILE + 1][tx] = in[(y + 1) * nx + x];
  __syncthreads();
  if (!inside) return;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[y * nx + x] = t[ty][tx];  // fixed boundary
    return;
  }
  float left = t[ty][tx - 1], right = t[ty][tx + 1], up = t[ty - 1][tx], down = t[ty + 1][tx];
  out[y * nx + x] = t[ty][tx] + alpha * (left + right + up + down - 4.0f * t[ty][tx]);
}

int heatRun(const HeatParams &p, float *grid, int steps) {
  size_t bytes = (size_t)p.nx * p.ny * sizeof(float);
  float *d_a, *d_b;
  CUDA_SAFE_CALL(cudaMalloc((void **)&d_a, bytes));
  CUDA_SAFE_CALL(cudaMalloc((void **)&d_b, bytes));
  CUDA_SAFE_CALL(cudaMemcpy(d_a, grid, bytes, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), blocks((p.nx + TILE - 1) / TILE, (p.ny + TILE - 1) / TILE);
  for (int s = 0; s < steps; s++) {
    heatStep<<<blocks, block>>>(d_a, d_b, p.nx, p.ny, p.alpha);
    float *tmp = d_a;
    d_a = d_b;
    d_b = tmp;
  }
  CUDA_SAFE_CALL(cudaGetLastError());
  CUDA_SAFE_CALL(cudaMemcpy(grid, d_a, bytes, cudaMemcpyDeviceToHost));
  CUDA_SAFE_CALL(cudaFree(d_a));
  CUDA_SAFE_CALL(cudaFree(d_b));
  return steps;
}
