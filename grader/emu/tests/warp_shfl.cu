// Warp shuffles: inclusive scan with __shfl_up_sync for int, unsigned, float, long long and
// double; broadcast with __shfl_sync; butterfly reduction with __shfl_xor_sync; segmented
// __shfl_down_sync with width 8; ballot/any/all/activemask; a partial last warp.
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

template <class T>
__device__ T scanIncWarp(T v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    T t = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += t;
  }
  return v;
}

template <class T>
__global__ void warpScanKernel(const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  v = scanIncWarp(v);
  if (i < n) out[i] = v;
}

__global__ void miscKernel(int *out) {
  int lane = threadIdx.x & 31, w = threadIdx.x / 32;
  int *o = out + threadIdx.x * 8;
  o[0] = __shfl_sync(0xffffffffu, lane * 10 + w, 5);                 /* broadcast lane 5 */
  int s = lane;
  for (int m = 16; m >= 1; m /= 2) s += __shfl_xor_sync(0xffffffffu, s, m);
  o[1] = s;                                                            /* 496 everywhere */
  o[2] = __shfl_down_sync(0xffffffffu, lane, 2, 8);                    /* within groups of 8 */
  o[3] = (int)__ballot_sync(0xffffffffu, lane % 3 == 0);
  o[4] = __any_sync(0xffffffffu, lane == 7) + 2 * __all_sync(0xffffffffu, lane < 32);
  o[5] = (int)__activemask();
  o[6] = __shfl_sync(0xffffffffu, lane, lane + 1, 16);                 /* rotate within 16 */
  o[7] = __popc(__ballot_sync(0xffffffffu, 1));
}

template <class T>
static int check(const char *what, int n, int block) {
  std::vector<T> h(n), ref(n), got(n);
  for (int i = 0; i < n; i++) h[i] = (T)((i * 37) % 11);
  T *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(T)));
  CK(cudaMalloc(&d_out, n * sizeof(T)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  warpScanKernel<<<(n + block - 1) / block, block>>>(d_in, d_out, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) ref[i] = (i % 32 && i % block ? ref[i - 1] : T(0)) + h[i];
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  return same(what, ref.data(), got.data(), n);
}

int main() {
  int ok = check<int>("int", 1000, 256) & check<unsigned>("unsigned", 333, 96) & check<float>("float", 512, 128) &
           check<long long>("long long", 100, 64) & check<double>("double", 70, 70);
  const int T = 64;
  int *d;
  CK(cudaMalloc(&d, T * 8 * sizeof(int)));
  miscKernel<<<1, T>>>(d);
  CK(cudaGetLastError());
  std::vector<int> got(T * 8), ref(T * 8);
  CK(cudaMemcpy(got.data(), d, T * 8 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < T; t++) {
    int lane = t & 31, w = t / 32;
    int *r = &ref[t * 8];
    unsigned b = 0;
    for (int l = 0; l < 32; l++) b |= (l % 3 == 0 ? 1u : 0u) << l;
    r[0] = 50 + w;
    r[1] = 496;
    r[2] = (lane % 8) + 2 < 8 ? lane + 2 : lane;
    r[3] = (int)b;
    r[4] = 3;
    r[5] = -1;
    r[6] = (lane & ~15) | ((lane + 1) & 15);
    r[7] = 32;
  }
  ok &= same("misc", ref.data(), got.data(), T * 8);
  if (!ok) return 1;
  printf("ok\n");
  return 0;
}
