// Grouping threads by a key at run time: cg::labeled_partition and cg::binary_partition of a
// warp's tile, match_any and a per-group reduction, each group leader counting its members
// into a histogram with one atomic. Checked against the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void groupByKey(const int *keys, const int *vals, int *count, int *sum, int *evenOdd, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int key = i < n ? keys[i] : -1, val = i < n ? vals[i] : 0;
  cg::coalesced_group same = cg::labeled_partition(warp, key);
  int s = cg::reduce(same, val, cg::plus<int>());
  unsigned peers = warp.match_any(key);
  if (same.thread_rank() == 0 && key >= 0) {
    atomicAdd(&count[key], (int)same.size());
    atomicAdd(&sum[key], s);
    if ((unsigned)__popc(peers) != same.size()) atomicAdd(&count[0], 1000000);  // must never happen
  }
  cg::coalesced_group parity = cg::binary_partition(warp, (val & 1) != 0);
  if (parity.thread_rank() == 0 && i < n) atomicAdd(&evenOdd[val & 1], (int)parity.size());
}

int main() {
  const int n = 10000, K = 8;
  std::vector<int> keys(n), vals(n), count(K), sum(K), eo(2), rc(K, 0), rs(K, 0), reo(2, 0);
  for (int i = 0; i < n; i++) {
    keys[i] = (i * 7 + i / 13) % K;
    vals[i] = i % 5;
    rc[keys[i]]++;
    rs[keys[i]] += vals[i];
  }
  // threads past n in the last warp carry val 0 (even) and are counted too
  int padded = (n + 31) / 32 * 32;
  for (int i = 0; i < padded; i++) reo[i < n ? vals[i] & 1 : 0]++;
  int *d_keys, *d_vals, *d_count, *d_sum, *d_eo;
  cudaMalloc(&d_keys, n * sizeof(int));
  cudaMalloc(&d_vals, n * sizeof(int));
  cudaMalloc(&d_count, K * sizeof(int));
  cudaMalloc(&d_sum, K * sizeof(int));
  cudaMalloc(&d_eo, 2 * sizeof(int));
  cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_vals, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_count, 0, K * sizeof(int));
  cudaMemset(d_sum, 0, K * sizeof(int));
  cudaMemset(d_eo, 0, 2 * sizeof(int));
  groupByKey<<<(n + 127) / 128, 128>>>(d_keys, d_vals, d_count, d_sum, d_eo, n);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(count.data(), d_count, K * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(sum.data(), d_sum, K * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(eo.data(), d_eo, 2 * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = e != cudaSuccess;
  for (int k = 0; k < K; k++)
    if (count[k] != rc[k] || sum[k] != rs[k]) {
      std::printf("key %d: count %d sum %d, expected %d %d\n", k, count[k], sum[k], rc[k], rs[k]);
      bad++;
    }
  if (eo[0] + eo[1] != padded || eo[1] != reo[1]) {
    std::printf("parity groups: %d even %d odd, expected %d %d\n", eo[0], eo[1], reo[0], reo[1]);
    bad++;
  }
  cudaFree(d_keys);
  cudaFree(d_vals);
  cudaFree(d_count);
  cudaFree(d_sum);
  cudaFree(d_eo);
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
