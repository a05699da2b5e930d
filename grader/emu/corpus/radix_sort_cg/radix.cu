// LSD radix sort, one bit per pass, by split: each block ranks its keys with cooperative
// groups (a tile's exclusive scan of the bit, then the warps' totals), the blocks' counts are
// scanned on the host, and a scatter kernel places every key. Checked against std::sort.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;

// zeros[b]: keys of block b whose bit is 0; rank[i]: the key's rank among the block's keys
// with the same bit.
__global__ void rankKernel(const unsigned *keys, int n, int bit, int *zeros, int *rank) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int warpOnes[WARPS];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int one = i < n ? (keys[i] >> bit) & 1 : 0;
  int onesBefore = cg::exclusive_scan(warp, one);
  if (warp.thread_rank() == 31) warpOnes[warp.meta_group_rank()] = onesBefore + one;
  block.sync();
  for (int w = 0; w < (int)warp.meta_group_rank(); w++) onesBefore += warpOnes[w];
  int valid = min(BLOCK, n - (int)(blockIdx.x * BLOCK));
  int totalOnes = 0;
  for (int w = 0; w < WARPS; w++) totalOnes += warpOnes[w];
  if (i < n) rank[i] = one ? onesBefore : (int)threadIdx.x - onesBefore;
  if (threadIdx.x == 0) zeros[blockIdx.x] = valid - totalOnes;
}

__global__ void scatterKernel(const unsigned *in, unsigned *out, int n, int bit, const int *rank,
                              const int *zeroBase, const int *oneBase) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n) return;
  int one = (in[i] >> bit) & 1;
  out[(one ? oneBase : zeroBase)[blockIdx.x] + rank[i]] = in[i];
}

int main() {
  const int n = 20000, blocks = (n + BLOCK - 1) / BLOCK, bits = 16;
  std::vector<unsigned> h(n);
  unsigned s = 99;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    h[i] = s >> 16;
  }
  unsigned *d_a, *d_b;
  int *d_zeros, *d_rank, *d_zeroBase, *d_oneBase;
  cudaMalloc(&d_a, n * sizeof(unsigned));
  cudaMalloc(&d_b, n * sizeof(unsigned));
  cudaMalloc(&d_zeros, blocks * sizeof(int));
  cudaMalloc(&d_rank, n * sizeof(int));
  cudaMalloc(&d_zeroBase, blocks * sizeof(int));
  cudaMalloc(&d_oneBase, blocks * sizeof(int));
  cudaMemcpy(d_a, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  std::vector<int> zeros(blocks), zb(blocks), ob(blocks);
  for (int bit = 0; bit < bits; bit++) {
    rankKernel<<<blocks, BLOCK>>>(d_a, n, bit, d_zeros, d_rank);
    cudaMemcpy(zeros.data(), d_zeros, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    int totalZeros = 0;
    for (int b = 0; b < blocks; b++) totalZeros += zeros[b];
    int z = 0, o = totalZeros;
    for (int b = 0; b < blocks; b++) {
      int valid = std::min(BLOCK, n - b * BLOCK);
      zb[b] = z;
      ob[b] = o;
      z += zeros[b];
      o += valid - zeros[b];
    }
    cudaMemcpy(d_zeroBase, zb.data(), blocks * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_oneBase, ob.data(), blocks * sizeof(int), cudaMemcpyHostToDevice);
    scatterKernel<<<blocks, BLOCK>>>(d_a, d_b, n, bit, d_rank, d_zeroBase, d_oneBase);
    std::swap(d_a, d_b);
  }
  std::vector<unsigned> out(n);
  cudaError_t e = cudaMemcpy(out.data(), d_a, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::sort(h.begin(), h.end());
  int bad = e != cudaSuccess;
  for (int i = 0; i < n && !bad; i++)
    if (out[i] != h[i]) {
      std::printf("sorted[%d] = %u, expected %u\n", i, out[i], h[i]);
      bad = 1;
    }
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_zeros);
  cudaFree(d_rank);
  cudaFree(d_zeroBase);
  cudaFree(d_oneBase);
  std::printf("%d keys, %d bits: %s\n", n, bits, bad ? "FAILED" : "PASSED");
  return bad;
}
