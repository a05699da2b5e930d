// A kernel template defined in an included header and launched with deduced template
// arguments: the rewrite took `&fillKernel` for its address, which names no function ("no
// matching function for call to kernel_address(<unresolved overloaded function type>)"); the
// same kernel defined in the .cu file built. Now the rewrite knows the header's kernels.
// emu-test: expect pass
#include <cstdio>
#include "header_kernels.cuh"

int main() {
  float *f;
  int *k;
  cudaMalloc(&f, 64 * sizeof(float));
  cudaMalloc(&k, 64 * sizeof(int));
  fillKernel<<<2, 32>>>(f, 2.5f); /* T deduced: float */
  countKernel<<<1, 64>>>(k);
  float hf[64];
  int hk[64];
  cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
  cudaMemcpy(hk, k, sizeof hk, cudaMemcpyDeviceToHost);
  const bool ok = hf[63] == 2.5f && hk[63] == 63;
  printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
