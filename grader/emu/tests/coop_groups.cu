// Cooperative groups under every schedule: tile shuffles of values larger than 8 bytes,
// sub-tiles inside a warp's collective, cg::reduce and the scans, coalesced groups formed in a
// divergent branch (warp-aggregated atomics) and labeled partitions. Results checked on host.
// emu-test: expect pass
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "emu_test.h"

namespace cg = cooperative_groups;

struct Big {
  double a, b;
  int c;
};

__global__ void tileKernel(int *out, int *counter, int *slots) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> eight = cg::tiled_partition<8>(warp);
  int r = (int)block.thread_rank();
  Big big = {r * 0.5, r * 2.0, r};
  Big from = warp.shfl(big, (warp.thread_rank() + 1) % 32);
  int s8 = cg::reduce(eight, r, cg::plus<int>());  // a sub-tile's collective...
  int s32 = cg::reduce(warp, r, cg::plus<int>());  // ...then the whole warp's
  int inc = cg::inclusive_scan(eight, 1);
  int ex = cg::exclusive_scan(warp, r, cg::plus<int>());
  int ok = from.c == (r / 32) * 32 + (warp.thread_rank() + 1) % 32 && from.a == from.c * 0.5 && from.b == from.c * 2.0;
  out[r] = ok && inc == (int)eight.thread_rank() + 1 && eight.meta_group_rank() == warp.thread_rank() / 8 &&
           s8 == 8 * (r / 8 * 8) + 28 && s32 == 32 * (r / 32 * 32) + 496 &&
           ex == (r % 32) * (r / 32 * 32) + (r % 32) * (r % 32 - 1) / 2;
  if (r % 3 == 0) {  // a divergent branch: the coalesced group is the lanes that took it
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
    base = active.shfl(base, 0);
    slots[base + active.thread_rank()] = r;
  }
  cg::coalesced_group parity = cg::labeled_partition(warp, r & 1);
  if (parity.size() != 16 || cg::reduce(parity, 1, cg::plus<int>()) != 16) out[r] = 0;
}

int main() {
  const int n = 96;
  int *out, *counter, *slots;
  CK(cudaMallocManaged(&out, n * sizeof(int)));
  CK(cudaMallocManaged(&counter, sizeof(int)));
  CK(cudaMallocManaged(&slots, n * sizeof(int)));
  *counter = 0;
  for (int i = 0; i < n; i++) slots[i] = -1;
  tileKernel<<<1, n>>>(out, counter, slots);
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++)
    if (out[i] != 1) {
      printf("thread %d: wrong tile result\n", i);
      return 1;
    }
  if (*counter != 32) {
    printf("coalesced groups reserved %d slots, expected 32\n", *counter);
    return 1;
  }
  int seen[n] = {0};
  for (int k = 0; k < 32; k++)
    if (slots[k] < 0 || slots[k] % 3 || seen[slots[k]]++) {
      printf("slot %d holds %d\n", k, slots[k]);
      return 1;
    }
  return 0;
}
