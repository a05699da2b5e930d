// Three-kernel global inclusive scan of 2^20 ints: block scans in shared memory (Kogge-Stone,
// double-buffered), a scan of the block sums, a uniform add. Prints the wall time of the three
// launches; the emulator must stay under 1 s with 2 workers, and the build with the memory
// probes must take less than 5 times as long as the plain one (one worker, best of 3 each).
// emu-test: expect pass
// emu-test: schedules forward random:3
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: max-ms 1000
// emu-test: probe-ratio 5 3
#include <chrono>
#include <vector>
#include "emu_test.h"

#define BLOCK 256
#define SUMS_BLOCK 1024

/* Inclusive Kogge-Stone scan of one block of BLOCK elements; writes the block's total. */
__global__ void scanBlockKernel(const int *in, int *out, int *sums, int n) {
  __shared__ int buf[2][BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int t = threadIdx.x, src = 0;
  buf[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < BLOCK; d *= 2) {
    buf[1 - src][t] = buf[src][t] + (t >= d ? buf[src][t - d] : 0);
    src = 1 - src;
    __syncthreads();
  }
  if (i < n) out[i] = buf[src][t];
  if (t == BLOCK - 1) sums[blockIdx.x] = buf[src][t];
}

/* Exclusive scan of up to 4*SUMS_BLOCK block sums in one block: 4 per thread, then Kogge-Stone. */
__global__ void scanSumsKernel(int *sums, int m) {
  __shared__ int s[SUMS_BLOCK];
  int t = threadIdx.x;
  int v[4], acc = 0;
  for (int k = 0; k < 4; k++) {
    int j = 4 * t + k;
    v[k] = j < m ? sums[j] : 0;
    acc += v[k];
  }
  s[t] = acc;
  __syncthreads();
  for (int d = 1; d < SUMS_BLOCK; d *= 2) {
    int x = t >= d ? s[t - d] : 0;
    __syncthreads();
    s[t] += x;
    __syncthreads();
  }
  int run = s[t] - acc;
  for (int k = 0; k < 4; k++) {
    int j = 4 * t + k;
    if (j < m) sums[j] = run;
    run += v[k];
  }
}

__global__ void addKernel(int *out, const int *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += sums[blockIdx.x];
}

int main() {
  const int n = 1 << 20, nb = (n + BLOCK - 1) / BLOCK;
  std::vector<int> h(n), ref(n), got(n);
  unsigned s = 42;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    h[i] = (int)(s >> 24) - 128;
  }
  long long acc = 0;
  for (int i = 0; i < n; i++) ref[i] = (int)(acc += h[i]);
  int *d_in, *d_out, *d_sums;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMalloc(&d_sums, nb * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  auto t0 = std::chrono::steady_clock::now();
  scanBlockKernel<<<nb, BLOCK>>>(d_in, d_out, d_sums, n);
  CK(cudaGetLastError());
  scanSumsKernel<<<1, SUMS_BLOCK>>>(d_sums, nb);
  CK(cudaGetLastError());
  addKernel<<<nb, BLOCK>>>(d_out, d_sums, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (!same("bench_scan3", ref.data(), got.data(), n)) return 1;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("bench_scan3: n=%d, %d-thread blocks, %d workers\ntime_ms: %.1f\n", n, BLOCK, p.multiProcessorCount, ms);
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_sums));
  return 0;
}
