// A __shared__ variable of an unnamed union or struct type, declared in the kernel and at file
// scope: one block's memory seen two ways (a sort's ranking masks overlaid on its sorted tile),
// and a struct whose members are arrays. The declaration ends at the ';' after the braces.
// emu-test: expect pass
#include "emu_test.h"

__shared__ struct {
  int lo[32];
  int hi[32];
} fileScopePair;

__global__ void overlayKernel(int *out) {
  __shared__ union {
    unsigned masks[2][32];
    unsigned keys[64];
  } s_u;
  const int t = threadIdx.x;
  s_u.masks[t / 32][t % 32] = (unsigned)t * 3u;
  fileScopePair.lo[t % 32] = t;
  fileScopePair.hi[t % 32] = -t;
  __syncthreads();
  out[t] = (int)s_u.keys[63 - t] + (t < 32 ? fileScopePair.lo[t] + fileScopePair.hi[t] : 0);
}

int main() {
  int *d = nullptr, h[64], want[64];
  CK(cudaMalloc(&d, sizeof h));
  overlayKernel<<<1, 64>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; t++) want[t] = (63 - t) * 3;
  CK(cudaFree(d));
  if (!same("overlaid shared union", want, h, 64)) return 1;
  printf("shared union: ok\n");
  return 0;
}
