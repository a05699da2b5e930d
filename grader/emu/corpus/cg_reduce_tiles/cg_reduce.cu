// Cooperative groups on tiles: cg::reduce with cg::plus, cg::greater and cg::less over
// 32-thread tiles, inclusive and exclusive scans over 16-thread tiles, votes and ballots, and a
// tile made at run time (tiled_partition(block, 8)). Every result is checked on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                                 \
  do {                                                                                           \
    cudaError_t e = (x);                                                                         \
    if (e != cudaSuccess) {                                                                      \
      fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);              \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

struct TileResults {
  int sum, max, min, ballotCount, anyNeg, allSmall;
};

__global__ void tileKernel(const int *in, TileResults *out, int *inc16, int *exc16, int *dyn8, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int sum = cg::reduce(tile, v, cg::plus<int>());
  int mx = cg::reduce(tile, v, cg::greater<int>());
  int mn = cg::reduce(tile, v, cg::less<int>());
  unsigned ballot = tile.ballot(v % 2 == 0);
  int anyNeg = tile.any(v < 0);
  int allSmall = tile.all(v < 1000);
  if (tile.thread_rank() == 0) {
    int t = i / 32;
    out[t].sum = sum;
    out[t].max = mx;
    out[t].min = mn;
    out[t].ballotCount = __popc(ballot);
    out[t].anyNeg = anyNeg;
    out[t].allSmall = allSmall;
  }
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(tile);
  int inc = cg::inclusive_scan(half, v);
  int exc = cg::exclusive_scan(half, v, cg::plus<int>());
  if (i < n) {
    inc16[i] = inc;
    exc16[i] = exc;
  }
  cg::thread_group g8 = cg::tiled_partition(block, 8);
  __shared__ int s[1024];
  s[threadIdx.x] = v;
  g8.sync();
  // each thread adds the element of the next thread of its group of 8 (wrapping around)
  unsigned r = g8.thread_rank();
  int nb = s[threadIdx.x - r + (r + 1) % 8];
  block.sync();
  if (i < n) dyn8[i] = v + nb;
}

int main() {
  const int n = 256 * 64;
  std::vector<int> h(n);
  srand(3);
  for (int i = 0; i < n; i++) h[i] = rand() % 1999 - 999;
  int *d_in, *d_inc, *d_exc, *d_dyn;
  TileResults *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_inc, n * sizeof(int)));
  CHECK(cudaMalloc(&d_exc, n * sizeof(int)));
  CHECK(cudaMalloc(&d_dyn, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n / 32 * sizeof(TileResults)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  tileKernel<<<n / 256, 256>>>(d_in, d_out, d_inc, d_exc, d_dyn, n);
  CHECK(cudaGetLastError());
  std::vector<TileResults> out(n / 32);
  std::vector<int> inc(n), exc(n), dyn(n);
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(TileResults), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(inc.data(), d_inc, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(exc.data(), d_exc, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(dyn.data(), d_dyn, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n / 32; t++) {
    int sum = 0, mx = -100000, mn = 100000, even = 0, neg = 0, small = 1;
    for (int k = 0; k < 32; k++) {
      int v = h[t * 32 + k];
      sum += v;
      mx = v > mx ? v : mx;
      mn = v < mn ? v : mn;
      even += v % 2 == 0;
      neg |= v < 0;
      small &= v < 1000;
    }
    const TileResults &r = out[t];
    if (r.sum != sum || r.max != mx || r.min != mn || r.ballotCount != even || r.anyNeg != neg || r.allSmall != small) {
      if (!bad) printf("tile %d: got sum %d max %d min %d even %d, expected %d %d %d %d\n", t, r.sum, r.max, r.min,
                       r.ballotCount, sum, mx, mn, even);
      bad++;
    }
  }
  for (int i = 0; i < n; i++) {
    int base = i & ~15, acc = 0;
    for (int k = base; k < i; k++) acc += h[k];
    int nb = h[(i & ~7) + ((i & 7) + 1) % 8];
    if (exc[i] != acc || inc[i] != acc + h[i] || dyn[i] != h[i] + nb) {
      if (!bad) printf("element %d: inclusive %d exclusive %d group-of-8 %d; expected %d %d %d\n", i, inc[i], exc[i],
                       dyn[i], acc + h[i], acc, h[i] + nb);
      bad++;
    }
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_inc));
  CHECK(cudaFree(d_exc));
  CHECK(cudaFree(d_dyn));
  CHECK(cudaFree(d_out));
  printf("%d tiles, %d elements checked: %s\n", n / 32, n, bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
