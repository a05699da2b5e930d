// A block scan built from warp scans: the shared-memory warp scan with __syncwarp, the warp
// totals scanned by warp 0 with shuffles, then added back. Blocks of 1024 and of 1000 threads
// (a partial last warp).
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

/* Shared-memory warp scan (the Volta-safe form: every step is fenced by __syncwarp). */
__device__ int scanWarpSmem(volatile int *s, int lane, int v) {
  s[lane] = v;
  __syncwarp();
  for (int d = 1; d < 32; d *= 2) {
    int t = lane >= d ? s[lane - d] : 0;
    __syncwarp();
    s[lane] += t;
    __syncwarp();
  }
  return s[lane];
}

__device__ int scanIncBlock(int v) {
  __shared__ int warpBuf[32][32];
  __shared__ int totals[32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) / 32;
  v = scanWarpSmem(warpBuf[w], lane, v);
  if (lane == 31 || threadIdx.x == blockDim.x - 1) totals[w] = v;
  __syncthreads();
  if (w == 0) {
    int t = lane < nwarps ? totals[lane] : 0;
    for (int d = 1; d < 32; d *= 2) {
      int u = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d) t += u;
    }
    if (lane < nwarps) totals[lane] = t;
  }
  __syncthreads();
  return w ? v + totals[w - 1] : v;
}

__global__ void blockScanKernel(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = scanIncBlock(i < n ? in[i] : 0);
  if (i < n) out[i] = v;
}

static int run(int n, int block) {
  std::vector<int> h(n), ref(n), got(n);
  for (int i = 0; i < n; i++) h[i] = (i * 31) % 17 - 8;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  blockScanKernel<<<(n + block - 1) / block, block>>>(d_in, d_out, n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) ref[i] = (i % block ? ref[i - 1] : 0) + h[i];
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  return same("scanIncBlock", ref.data(), got.data(), n);
}

int main() {
  if (!run(5000, 1024) || !run(3000, 1000)) return 1;
  printf("ok\n");
  return 0;
}
