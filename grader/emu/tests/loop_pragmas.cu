// A program's own loop pragmas stand right before their loops after the rewrite (which wraps
// other loops in a block): `#pragma GCC ivdep` and `#pragma GCC unroll 4` in host and device
// code, and `#pragma omp parallel for collapse(2)` over two loops (ignored without -fopenmp,
// but its loops stay as written).
// emu-test: expect pass
// emu-test: stdout pragmas ok
#include "emu_test.h"

__global__ void scale(float *v, int n) {
  float *p = v + threadIdx.x * n;
#pragma GCC ivdep
  for (int i = 0; i < n; i++) p[i] *= 2.0f;
}

int main() {
  const int n = 8, rows = 32;
  float h[rows * n];
#pragma GCC unroll 4
  for (int i = 0; i < rows * n; i++) h[i] = (float)i;
  float *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  scale<<<1, rows>>>(d, n);
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  int bad = 0;
#pragma omp parallel for collapse(2) reduction(+ : bad)
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < n; c++) bad += h[r * n + c] != 2.0f * (r * n + c);
  if (bad) return 1;
  printf("pragmas ok\n");
  return 0;
}
