// Filtering with warp-aggregated atomics (cooperative groups): the threads of a warp that keep
// an element form a coalesced group, one of them reserves room for all with one atomicAdd,
// and each writes at its rank. Checked against the host's filter (order aside).
#include <cooperative_groups.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define checkCuda(call)                                                                    \
  do {                                                                                     \
    cudaError_t err = (call);                                                              \
    if (err != cudaSuccess) {                                                              \
      printf("%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__, cudaGetErrorName(err), #call); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

__device__ int atomicAggInc(int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
  return active.shfl(base, 0) + active.thread_rank();
}

__global__ void filterKernel(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  if (src[i] > 0) dst[atomicAggInc(nres)] = src[i];
}

// The same without aggregation: one atomic per kept element.
__global__ void filterPlainKernel(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && src[i] > 0) dst[atomicAdd(nres, 1)] = src[i];
}

int main() {
  const int n = 1 << 17;
  std::vector<int> h(n);
  srand(7);
  for (int i = 0; i < n; i++) h[i] = (rand() % 21) - 10;
  std::vector<int> expected;
  for (int x : h)
    if (x > 0) expected.push_back(x);
  std::sort(expected.begin(), expected.end());

  int *d_src, *d_dst, *d_n;
  checkCuda(cudaMalloc(&d_src, n * sizeof(int)));
  checkCuda(cudaMalloc(&d_dst, n * sizeof(int)));
  checkCuda(cudaMalloc(&d_n, sizeof(int)));
  checkCuda(cudaMemcpy(d_src, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = true;
  for (int variant = 0; variant < 2; variant++) {
    checkCuda(cudaMemset(d_n, 0, sizeof(int)));
    if (variant == 0)
      filterKernel<<<(n + 255) / 256, 256>>>(d_dst, d_n, d_src, n);
    else
      filterPlainKernel<<<(n + 255) / 256, 256>>>(d_dst, d_n, d_src, n);
    checkCuda(cudaGetLastError());
    int count = 0;
    checkCuda(cudaMemcpy(&count, d_n, sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> got(count > 0 && count <= n ? count : 0);
    checkCuda(cudaMemcpy(got.data(), d_dst, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    std::sort(got.begin(), got.end());
    bool same = got == expected;
    printf("%s: %d of %d kept (expected %zu) %s\n", variant ? "plain atomics" : "warp-aggregated", count, n,
           expected.size(), same ? "ok" : "WRONG");
    ok &= same;
  }
  checkCuda(cudaFree(d_src));
  checkCuda(cudaFree(d_dst));
  checkCuda(cudaFree(d_n));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
