// A warp collective is device code: nvcc refuses __shfl_sync (and __ballot_sync, __syncwarp and
// the rest) called from host code. The emu printed a warning, returned the value unchanged and
// let the program go on; now the call fails the program, naming the function and its line.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: __shfl_sync at bad_shfl_host.cu:13 is a __device__ function called from host code
#include <cstdio>

__global__ void kernel() {}

int main() {
  int x = 5;
  int y = __shfl_sync(0xffffffffu, x, 0);
  kernel<<<1, 1>>>();
  printf("%d\n", y);
  return 0;
}
