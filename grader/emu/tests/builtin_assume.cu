// __builtin_assume in device code, one of CUDA's optimization hints: nvcc compiles it, and it
// changes nothing a correct program computes. The emu's host compiler has no such built-in; a
// kernel that used it did not compile ("not declared in this scope").
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stdout sum of 0..99: 4950
#include <cstdio>

__device__ int triangle(int n) {
  __builtin_assume(n > 0);
  int s = 0;
  for (int i = 0; i < n; i++) s += i;
  return s;
}

__global__ void sumKernel(int *out, int n) {
  __builtin_assume(blockDim.x == 1);
  *out = triangle(n);
}

int main() {
  int *d, h = -1;
  cudaMalloc(&d, sizeof *d);
  sumKernel<<<1, 1>>>(d, 100);
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("sum of 0..99: %d\n", h);
  return h == 4950 ? 0 : 1;
}
