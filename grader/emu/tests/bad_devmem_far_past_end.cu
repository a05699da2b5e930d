// A write 5000 ints past the end of a 1000-int allocation (20000 bytes past it) lands in the
// inaccessible fence behind the allocation, not in another allocation: it faults at once.
// emu-test: expect fail
// emu-test: rc -11
// emu-test: stderr emu: kernel farKernel, block (0,0,0), thread (7,0,0): 
// emu-test: stderr past the end of a device allocation of 4000 bytes (at byte offset 20000 past its end)
// emu-test: stderr emu: kernel farKernel<<<(1,1,1), (32,1,1), 0>>> launched at bad_devmem_far_past_end.cu:20 failed
#include <cstdio>

__global__ void farKernel(int *p, int n) {
  if (threadIdx.x == 7) p[n + 5000] = 1;
}

int main() {
  int *a, *b, *c;
  cudaMalloc(&a, 1000 * sizeof(int));
  cudaMalloc(&b, 1000 * sizeof(int));
  cudaMalloc(&c, 1000 * sizeof(int));
  cudaMemset(c, 0, 1000 * sizeof(int));
  farKernel<<<1, 32>>>(b, 1000);
  cudaDeviceSynchronize();
  return 0;
}
