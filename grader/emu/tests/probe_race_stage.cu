// A block that stages values in shared memory across warps without a __syncthreads is reported
// as a race between two warps, with the barrier it needs, even where a pair of lanes of one warp
// races on the staged array too: here every thread reads its neighbour's word, so the first
// reader to meet an unordered write is thread 0, in the writer's warp; the pair the message
// names is thread 31 and thread 32, whose order only __syncthreads gives.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: stderr clean kernel passed
// emu-test: stderr emu: race on a __shared__ array's shared memory at byte offset 128 in kernel stageKernel, block (0,0,0)
// emu-test: stderr in different warps with no __syncthreads between them: __syncthreads() between the two accesses orders them
#include "emu_test.h"

__global__ void stageKernel(int *data, bool sync) {
  __shared__ int s[128];
  s[threadIdx.x] = data[threadIdx.x];
  if (sync) __syncthreads();
  data[threadIdx.x] = s[(threadIdx.x + 1) % 128];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 128 * sizeof(int)));
  CK(cudaMemset(d, 0, 128 * sizeof(int)));
  stageKernel<<<1, 128>>>(d, true);
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "clean kernel passed\n");
  stageKernel<<<1, 128>>>(d, false);
  CK(cudaDeviceSynchronize());
  return 0;
}
