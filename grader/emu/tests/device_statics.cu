// The static-storage variables of device code are global memory on a GPU, and the memory probes
// count them so: a `__device__` array at namespace scope, a `static` array of a kernel, and a
// `static` array of a template device function. Each kernel stages one block of 1024 ints
// through its array (in -> array, a barrier, array -> out, each thread taking its neighbour's:
// t ^ 1): per warp a load of `in` and of the array, a store to the array and to `out`, each one
// request of four 32-byte sectors: 64 requests and 256 sectors of loads, as many of stores, for
// 32 warps. (The probes once saw only cudaMalloc'd
// memory: half of each count, and a kernel could hide its work in such an array.)
// emu-test: expect pass
// emu-test: native no its output is the emu's counters
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: stdout namespace: loads 64 requests 256 sectors, stores 64 requests 256 sectors
// emu-test: stdout kernel: loads 64 requests 256 sectors, stores 64 requests 256 sectors
// emu-test: stdout template: loads 64 requests 256 sectors, stores 64 requests 256 sectors
#include <cstdio>
#include <vector>
#include "emu_test.h"

#define N 1024

__device__ int g_stage[N];

__global__ void throughNamespace(const int *in, int *out) {
  const unsigned t = threadIdx.x;
  g_stage[t] = in[t];
  __syncthreads();
  out[t] = g_stage[t ^ 1];
}

__global__ void throughKernelStatic(const int *in, int *out) {
  static int stage[N];
  const unsigned t = threadIdx.x;
  stage[t] = in[t];
  __syncthreads();
  out[t] = stage[t ^ 1];
}

template <class T>
__device__ T stageOne(T x) {
  static T stage[N];
  stage[threadIdx.x] = x;
  __syncthreads();
  return stage[threadIdx.x ^ 1];
}

__global__ void throughTemplateStatic(const int *in, int *out) { out[threadIdx.x] = stageOne(in[threadIdx.x]); }

int main() {
  std::vector<int> h(N), got(N);
  std::vector<int> want(N);
  for (int i = 0; i < N; i++) h[i] = i * 7 - 100;
  for (int i = 0; i < N; i++) want[i] = h[i ^ 1];
  int *in, *out;
  CK(cudaMalloc(&in, N * sizeof(int)));
  CK(cudaMalloc(&out, N * sizeof(int)));
  CK(cudaMemcpy(in, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  const char *names[3] = {"namespace", "kernel", "template"};
  for (int k = 0; k < 3; k++) {
    unsigned long long c0[4] = {0}, c1[4] = {0};
#ifdef SCANLAB_EMU
    if (scanlab_emu_probe_counters(c0, 4) != 4) {
      printf("the probes' counters are missing\n");
      return 1;
    }
#endif
    CK(cudaMemset(out, 0, N * sizeof(int)));
    if (k == 0) throughNamespace<<<1, N>>>(in, out);
    if (k == 1) throughKernelStatic<<<1, N>>>(in, out);
    if (k == 2) throughTemplateStatic<<<1, N>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, N * sizeof(int), cudaMemcpyDeviceToHost));
    if (!same(names[k], want.data(), got.data(), N)) return 1;
#ifdef SCANLAB_EMU
    scanlab_emu_probe_counters(c1, 4);
#endif
    /* METRIC_NAMES' order: global load requests, load sectors, store requests, store sectors */
    printf("%s: loads %llu requests %llu sectors, stores %llu requests %llu sectors\n", names[k], c1[0] - c0[0],
           c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3]);
  }
  return 0;
}
