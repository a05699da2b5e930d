// grid.sync() in a kernel launched with <<<...>>>: its blocks are not all resident at once, so
// on a GPU the barrier hangs or fails; the emu says so at the call.
// emu-test: expect fail
// emu-test: stderr grid.sync() at bad_grid_sync.cu:12
// emu-test: stderr was not launched with cudaLaunchCooperativeKernel
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void plainKernel(int *d) {
  d[threadIdx.x] = 1;
  cg::this_grid().sync();
}

int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  plainKernel<<<2, 32>>>(d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
