// NULL passed to a kernel, as nvcc accepts it: g++'s NULL is an integer, and the launcher must
// not turn it into a `long` argument that no pointer parameter takes.
// emu-test: expect pass
#include <stddef.h>

#include "emu_test.h"

__global__ void optionalKernel(const int *in, int *out, int fallback) {
  out[threadIdx.x] = in ? in[threadIdx.x] + 1 : fallback;
}

int main() {
  int *d, h[32], want[32];
  CK(cudaMalloc(&d, sizeof h));
  optionalKernel<<<1, 32>>>(NULL, d, 7);  // no input: every element 7
  optionalKernel<<<1, 32>>>(d, d, 0);     // then 8
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) want[i] = 8;
  if (!same("optionalKernel", want, h, 32)) return 1;
  CK(cudaFree(d));
  printf("ok\n");
  return 0;
}
