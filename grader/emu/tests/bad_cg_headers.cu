// cg::reduce, the scans and cg::memcpy_async each come from their own header in the toolkit
// (cooperative_groups/reduce.h, scan.h, memcpy_async.h): with cooperative_groups.h alone, nvcc
// refuses them, and so does the emu (it declared them all in cooperative_groups.h, so a
// program without the header built here and not with nvcc).
// emu-test: expect compile-error
// emu-test: stderr 'reduce' is not a member of 'cg'
// emu-test: stderr 'inclusive_scan' is not a member of 'cg'
// emu-test: stderr 'memcpy_async' is not a member of 'cg'
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out) {
  __shared__ int s[32];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  out[warp.thread_rank()] = cg::reduce(warp, 1, cg::plus<int>()) + cg::inclusive_scan(warp, 1);
  cg::memcpy_async(cg::this_thread_block(), s, out, sizeof s);
}

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  k<<<1, 32>>>(out);
  return cudaDeviceSynchronize() != cudaSuccess;
}
