// Unbounded recursion in a kernel overflows its fiber stack into the guard page.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr fiber stack overflow: the thread's locals need more than its stack of 64 KiB (raise SCANLAB_EMU_STACK_KB)
#include <cstdio>

__device__ int deep(volatile int *p, int n) {
  volatile char pad[512];
  pad[n % 512] = (char)n;
  return n <= 0 ? 0 : deep(p, n - 1) + pad[n % 512] + p[0];
}

__global__ void recurseKernel(int *p) { p[1] = deep(p, 1 << 30); }

int main() {
  int *d;
  cudaMalloc(&d, 2 * sizeof(int));
  cudaMemset(d, 0, 2 * sizeof(int));
  recurseKernel<<<1, 1>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
