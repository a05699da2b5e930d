// A cooperative launch (cudaLaunchCooperativeKernel) runs every block at once, so a grid-wide
// barrier (grid.sync()) works: each block writes its part, waits for the grid, then reads the
// other blocks' parts, twice. Through the typed and the void * forms of the launch.
// emu-test: expect pass
#include <cooperative_groups.h>

#include "emu_test.h"

namespace cg = cooperative_groups;

__global__ void rotateKernel(int *data, int *out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long i = grid.thread_rank(), n = grid.size();
  if (!grid.is_valid()) return;
  for (int r = 0; r < rounds; r++) {
    int v = data[(i + 1) % n];
    grid.sync();
    data[i] = v + 1;
    grid.sync();
  }
  out[i] = data[i];
}

int main() {
  int perSm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, rotateKernel, 64, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int blocks = perSm * sms < 6 ? perSm * sms : 6, n = blocks * 64, rounds = 3;
  int *data, *out;
  CK(cudaMallocManaged(&data, n * sizeof(int)));
  CK(cudaMallocManaged(&out, n * sizeof(int)));
  for (int form = 0; form < 2; form++) {
    for (int i = 0; i < n; i++) data[i] = i;
    void *args[] = {&data, &out, &rounds};
    if (form == 0)
      CK(cudaLaunchCooperativeKernel(rotateKernel, dim3(blocks), dim3(64), args, 0, 0));
    else
      CK(cudaLaunchCooperativeKernel((void *)rotateKernel, blocks, 64, args));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
      if (out[i] != (i + rounds) % n + rounds) {
        printf("form %d: out[%d] = %d, expected %d\n", form, i, out[i], (i + rounds) % n + rounds);
        return 1;
      }
  }
  return 0;
}
