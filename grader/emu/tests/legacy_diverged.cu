// Warp-synchronous code whose lanes diverge, in a program's own run (legacy_volatile.cu has the
// converged forms): lane 0 of each warp broadcasts a value through volatile shared memory that
// every lane then reads (the store comes first, as a GPU runs the branch before the warp meets
// again), and each lane makes two stores before the warp's scan reads them (every lane's first
// store before any lane's second). An H200 gives the right answers; the emu must, in any order.
// emu-test: expect pass
// emu-test: stderr warp-synchronous
#include "emu_test.h"

__global__ void divergedKernel(const int *in, int *bcast, int *scan) {
  __shared__ volatile int vals[64], b[2], s[2][48];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  vals[threadIdx.x] = in[threadIdx.x];
  const int v = vals[threadIdx.x];
  if (lane == 0) b[warp] = v * 10;
  bcast[threadIdx.x] = b[warp];
  volatile int *t = s[warp];
  t[lane] = 0;                  /* the low 16 words: zeros below the scan */
  t[lane + 16] = v;             /* lanes 0..15 overwrite the zeros of lanes 16..31 */
  if (lane < 16) {
    const int i = lane + 16;
    t[i] += t[i - 1];
    t[i] += t[i - 2];
    t[i] += t[i - 4];
    t[i] += t[i - 8];
    scan[threadIdx.x] = t[i];
  }
}

int main() {
  int h[64], refB[64], gotB[64], refS[64], gotS[64];
  for (int i = 0; i < 64; i++) h[i] = i % 7 + 1;
  for (int w = 0; w < 2; w++) {
    int run = 0;
    for (int l = 0; l < 32; l++) {
      refB[w * 32 + l] = h[w * 32] * 10;
      run += l < 16 ? h[w * 32 + l] : 0;
      refS[w * 32 + l] = l < 16 ? run : -1;
    }
  }
  int *in, *b, *s;
  CK(cudaMalloc(&in, sizeof h));
  CK(cudaMalloc(&b, sizeof h));
  CK(cudaMalloc(&s, sizeof h));
  CK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  CK(cudaMemset(s, 0xff, sizeof h));
  divergedKernel<<<1, 64>>>(in, b, s);
  CK(cudaMemcpy(gotB, b, sizeof gotB, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotS, s, sizeof gotS, cudaMemcpyDeviceToHost));
  return same("broadcast", refB, gotB, 64) && same("two stores, then the scan", refS, gotS, 64) ? 0 : 1;
}
