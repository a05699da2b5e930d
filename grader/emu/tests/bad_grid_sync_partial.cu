// A cooperative kernel whose block 1 returns before grid.sync(): the other blocks would wait
// forever on a GPU; the emu names the barrier and how many blocks reached it.
// emu-test: expect fail
// emu-test: stderr grid.sync() at bad_grid_sync_partial.cu:13
// emu-test: stderr 2 of 3 blocks arrived; 1 blocks ended without reaching it
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void partialKernel(int *d) {
  if (blockIdx.x == 1) return;
  d[blockIdx.x] = 1;
  cg::this_grid().sync();
}

int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  void *args[] = {&d};
  cudaLaunchCooperativeKernel(partialKernel, 3, 32, args);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
