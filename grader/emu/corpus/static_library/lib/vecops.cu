#include "vecops.h"

namespace vecops {
namespace {
__global__ void axpyKernel(int n, float a, const float *x, const float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
__global__ void sumKernel(int n, const float *x, float *result) {
  __shared__ float part[256];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  part[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, part[0]);
}
template <class Op>
__global__ void transformKernel(int n, const float *in, float *out, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}
}  // namespace

void axpy(int n, float a, const float *d_x, const float *d_y, float *d_out) {
  axpyKernel<<<(n + 255) / 256, 256>>>(n, a, d_x, d_y, d_out);
}

float sum(int n, const float *d_x) {
  float *d_r, r = 0;
  cudaMalloc(&d_r, sizeof(float));
  cudaMemset(d_r, 0, sizeof(float));
  sumKernel<<<16, 256>>>(n, d_x, d_r);
  cudaMemcpy(&r, d_r, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_r);
  return r;
}

template <class Op>
void transform(int n, const float *d_in, float *d_out, Op op) {
  transformKernel<<<(n + 127) / 128, 128>>>(n, d_in, d_out, op);
}
template void transform<Square>(int, const float *, float *, Square);
template void transform<Negate>(int, const float *, float *, Negate);
}  // namespace vecops
