// Decoupled look-back style inter-block wait: each block takes a ticket (atomicAdd), computes
// its tile sum, then one warp spins on the previous tile's flag (volatile loads after
// __threadfence, __nanosleep between polls) before publishing its inclusive prefix.
// A second kernel spins with atomicCAS/atomicAdd only. Needs blocks run in order.
// emu-test: expect pass
// emu-test: env SCANLAB_EMU_WORKERS=2
#include <vector>
#include "emu_test.h"

#define TILE 128

__device__ unsigned ticket;

__global__ void chainedScanKernel(const int *in, int *out, volatile int *flags, volatile int *prefix, int n) {
  __shared__ int tile;
  __shared__ int s[TILE];
  __shared__ int exclusive;
  if (threadIdx.x == 0) tile = (int)atomicAdd(&ticket, 1u);
  __syncthreads();
  const int b = tile, i = b * TILE + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < TILE; d *= 2) {
    int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    __syncthreads();
    s[threadIdx.x] += t;
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    int ex = 0;
    if (b > 0) {
      int ready = 0;
      do {
        __nanosleep(100);
        if (threadIdx.x == 0) ready = flags[b - 1];
        ready = __shfl_sync(0xffffffffu, ready, 0);
      } while (!ready);
      __threadfence();
      ex = prefix[b - 1];
    }
    if (threadIdx.x == 0) {
      exclusive = ex;
      prefix[b] = ex + s[TILE - 1];
      __threadfence();
      flags[b] = 1;
    }
  }
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x] + exclusive;
}

__global__ void atomicChainKernel(int *flags, int *vals) {
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b > 0)
      while (atomicAdd(&flags[b - 1], 0) == 0) {
      }
    vals[b] = (b > 0 ? vals[b - 1] : 0) + b;
    __threadfence();
    atomicExch(&flags[b], 1);
  }
}

int main() {
  const int n = 20000, nb = (n + TILE - 1) / TILE;
  std::vector<int> h(n), ref(n), got(n);
  for (int i = 0; i < n; i++) h[i] = (i % 9) - 4;
  int *d_in, *d_out, *d_flags, *d_prefix;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMalloc(&d_flags, nb * sizeof(int)));
  CK(cudaMalloc(&d_prefix, nb * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_flags, 0, nb * sizeof(int)));
  unsigned zero = 0;
  CK(cudaMemcpyToSymbol(ticket, &zero, sizeof zero));
  chainedScanKernel<<<nb, TILE>>>(d_in, d_out, d_flags, d_prefix, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) ref[i] = (i ? ref[i - 1] : 0) + h[i];
  if (!same("chained scan", ref.data(), got.data(), n)) return 1;
  const int m = 300;
  int *d_f, *d_v;
  CK(cudaMalloc(&d_f, m * sizeof(int)));
  CK(cudaMalloc(&d_v, m * sizeof(int)));
  CK(cudaMemset(d_f, 0, m * sizeof(int)));
  atomicChainKernel<<<m, 64>>>(d_f, d_v);
  CK(cudaDeviceSynchronize());
  std::vector<int> v(m);
  CK(cudaMemcpy(v.data(), d_v, m * sizeof(int), cudaMemcpyDeviceToHost));
  if (v[m - 1] != m * (m - 1) / 2) {
    printf("atomic chain: expected %d, got %d\n", m * (m - 1) / 2, v[m - 1]);
    return 1;
  }
  printf("ok\n");
  return 0;
}
