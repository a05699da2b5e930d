// Atomics on int, unsigned, unsigned long long and float; __syncthreads_count/and/or.
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

struct Counters {
  int add, sub, exch, cas, mn, mx, andv, orv, xorv;
  unsigned inc, uadd;
  unsigned long long ull;
  float f;
  int cnt, all, any;
};

__global__ void atomicsKernel(Counters *c, int *hist) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->add, 2);
  atomicSub(&c->sub, 1);
  atomicExch(&c->exch, 7);
  int old = c->cas;
  while (atomicCAS(&c->cas, old, old + 1) != old) old = c->cas;
  atomicMin(&c->mn, t);
  atomicMax(&c->mx, t);
  atomicAnd(&c->andv, ~(1 << (t % 31)));
  atomicOr(&c->orv, 1 << (t % 31));
  atomicXor(&c->xorv, 1);
  atomicInc(&c->inc, 9u);
  atomicAdd(&c->uadd, 3u);
  atomicAdd(&c->ull, 1ull << 33);
  atomicAdd(&c->f, 0.5f);
  atomicAdd(&hist[t % 10], 1);
  int n = __syncthreads_count(threadIdx.x % 4 == 0);
  int a = __syncthreads_and(threadIdx.x < 1000);
  int o = __syncthreads_or(threadIdx.x == 17);
  if (threadIdx.x == 0) {
    atomicAdd(&c->cnt, n);
    atomicAdd(&c->all, a);
    atomicAdd(&c->any, o);
  }
}

int main() {
  const int B = 8, T = 128, N = B * T;
  Counters h = {};
  h.mn = 1 << 30;
  h.mx = -1;
  h.andv = -1;
  Counters *d;
  int *dh;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMalloc(&dh, 10 * sizeof(int)));
  CK(cudaMemset(dh, 0, 10 * sizeof(int)));
  CK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  atomicsKernel<<<B, T>>>(d, dh);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  int hist[10];
  CK(cudaMemcpy(hist, dh, sizeof hist, cudaMemcpyDeviceToHost));
  int ok = h.add == 2 * N && h.sub == -N && h.exch == 7 && h.cas == N && h.mn == 0 && h.mx == N - 1 &&
           h.andv == (int)0x80000000 && h.orv == 0x7fffffff && h.xorv == 0 && h.inc == (unsigned)(N % 10) &&
           h.uadd == 3u * N && h.ull == (unsigned long long)N << 33 && h.f == 0.5f * N && h.cnt == B * T / 4 &&
           h.all == B && h.any == B;
  for (int k = 0; k < 10; k++) ok &= hist[k] == N / 10 + (k < N % 10);
  if (!ok) {
    printf("atomics: wrong: add %d sub %d exch %d cas %d min %d max %d and %x or %x xor %d inc %u uadd %u f %g cnt %d "
           "all %d any %d\n", h.add, h.sub, h.exch, h.cas, h.mn, h.mx, h.andv, h.orv, h.xorv, h.inc, h.uadd, h.f,
           h.cnt, h.all, h.any);
    return 1;
  }
  printf("ok\n");
  return 0;
}
