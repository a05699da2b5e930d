// Template kernels: explicit arguments (`k<int, 256><<<...>>>`), deduced arguments
// (`k<<<...>>>(ptr)`), a multi-line launch, a __device__ function template with its own
// __shared__ array (shared by the block), __forceinline__, __restrict__, a functor operator.
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

struct Max {
  __device__ __host__ int operator()(int a, int b) const { return max(a, b); }
};
struct Add {
  template <class T>
  __device__ __host__ T operator()(T a, T b) const { return a + b; }
};

/* Reduces v over the block; the scratch array lives in this device function. */
template <class T, int B, class Op>
__device__ __forceinline__ T blockReduce(T v, Op op) {
  __shared__ T scratch[B];
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = B / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  T r = scratch[0];
  __syncthreads();
  return r;
}

template <class T, int B, class Op>
__global__ void __launch_bounds__(B) reduceKernel(const T *__restrict__ in, T *__restrict__ out, Op op) {
  T v = in[blockIdx.x * B + threadIdx.x];
  T r = blockReduce<T, B>(v, op);
  T r2 = blockReduce<T, B>(v, op); /* a second call: the same scratch, re-used */
  if (threadIdx.x == 0) out[blockIdx.x] = r2 == r ? r : T(-1);
}

template <class T>
__global__ void fillKernel(T *p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + (T)i;
}

int main() {
  const int B = 128, G = 4, n = B * G;
  int *d_in, *d_out;
  double *d_dbl;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, G * sizeof(int)));
  CK(cudaMalloc(&d_dbl, n * sizeof(double)));
  fillKernel<<<G, B>>>(d_in, 1, n);
  fillKernel<<<G,
               B>>>(d_dbl,
                    0.5,
                    n);
  CK(cudaGetLastError());
  reduceKernel<int, B, Add><<<G, B>>>(d_in, d_out, Add());
  std::vector<int> got(G);
  CK(cudaMemcpy(got.data(), d_out, G * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < G; b++) {
    int want = 0;
    for (int i = b * B; i < (b + 1) * B; i++) want += i + 1;
    if (got[b] != want) {
      printf("sum of block %d: expected %d, got %d\n", b, want, got[b]);
      return 1;
    }
  }
  reduceKernel<int, B, Max><<<G, B>>>(d_in, d_out, Max{});
  CK(cudaMemcpy(got.data(), d_out, G * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < G; b++)
    if (got[b] != (b + 1) * B) {
      printf("max of block %d: expected %d, got %d\n", b, (b + 1) * B, got[b]);
      return 1;
    }
  double *d_dout, hd[G];
  CK(cudaMalloc(&d_dout, G * sizeof(double)));
  reduceKernel<double, B, Add><<<G, B>>>(d_dbl, d_dout, Add());
  CK(cudaMemcpy(hd, d_dout, sizeof hd, cudaMemcpyDeviceToHost));
  for (int b = 0; b < G; b++) {
    double want = 0;
    for (int i = b * B; i < (b + 1) * B; i++) want += 0.5 + i;
    if (hd[b] != want) {
      printf("double sum of block %d: expected %g, got %g\n", b, want, hd[b]);
      return 1;
    }
  }
  printf("ok\n");
  return 0;
}
