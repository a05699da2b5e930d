// Which barrier a race message suggests. A shuffle, vote or match exchanges values between the
// lanes of a warp but orders none of their memory accesses (CUDA's memory model: __syncwarp
// does): a warp whose lanes count digits in shared memory, the lowest lane of each digit
// updating its count, with a __match_any_sync and a __shfl_sync between one item and the next
// (lab 07's radix ranking without its __syncwarp), races on the counts, and the message says
// that the shuffle does not order them and that __syncwarp would. With __syncwarp it is clean.
// (probe_race_stage.cu: a race between warps.)
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: stderr clean kernels passed
// emu-test: stderr emu: race on a __shared__ array's shared memory at byte offset
// emu-test: stderr in kernel rankKernel<false>, block (0,0,0)
// emu-test: stderr in one warp: a shuffle, vote or match between them exchanges values, not memory; __syncwarp() between the two accesses orders them
#include "emu_test.h"

template <bool SYNC>
__global__ void rankKernel(const int *keys, int *rank) {
  __shared__ unsigned count[4];
  const unsigned lane = threadIdx.x;
  if (lane < 4) count[lane] = 0;
  __syncwarp();
  for (int i = 0; i < 4; i++) {
    const unsigned d = (unsigned)keys[32 * i + lane] & 3u;
    const unsigned peers = __match_any_sync(0xffffffffu, d);
    const int leader = __ffs(peers) - 1;
    unsigned before = 0;
    if ((int)lane == leader) {
      before = count[d];
      count[d] = before + __popc(peers);
    }
    rank[32 * i + lane] = (int)(__shfl_sync(0xffffffffu, before, leader) + __popc(peers & ((1u << lane) - 1u)));
    if (SYNC) __syncwarp();
  }
}

int main() {
  int *keys, *rank;
  CK(cudaMalloc(&keys, 128 * sizeof(int)));
  CK(cudaMalloc(&rank, 128 * sizeof(int)));
  int h[128];
  for (int i = 0; i < 128; i++) h[i] = (i * 7) % 5;
  CK(cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice));
  rankKernel<true><<<1, 32>>>(keys, rank);
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "clean kernels passed\n");
  rankKernel<false><<<1, 32>>>(keys, rank);
  CK(cudaDeviceSynchronize());
  return 0;
}
