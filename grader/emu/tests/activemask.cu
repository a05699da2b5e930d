// __activemask() inside a branch names the lanes that took it, as on a GPU: lanes with
// lane % 3 == 0 see 0x49249249; the warp-aggregated atomic built on it (a leader per branch adds
// the popcount) counts every lane once; in converged code every live lane, a partial warp too.
// emu-test: expect pass
// emu-test: stdout activemask ok
#include "emu_test.h"

__global__ void masks(unsigned *m, int *counter, int *slot) {
  const int lane = threadIdx.x & 31;
  m[threadIdx.x] = 0;
  if (lane % 3 == 0) {
    const unsigned active = __activemask();
    m[threadIdx.x] = active;
    const int leader = __ffs(active) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(counter, __popc(active));
    base = __shfl_sync(active, base, leader);
    slot[threadIdx.x] = base + __popc(active & ((1u << lane) - 1));
  }
  __syncwarp();
  m[blockDim.x + threadIdx.x] = __activemask();
}

int main() {
  const int n = 64 + 20; /* a partial last warp of 20 lanes */
  unsigned *d_m, h_m[2 * 84];
  int *d_c, *d_s, h_c, h_s[84];
  CK(cudaMalloc(&d_m, sizeof h_m));
  CK(cudaMalloc(&d_c, sizeof(int)));
  CK(cudaMalloc(&d_s, sizeof h_s));
  CK(cudaMemset(d_c, 0, sizeof(int)));
  CK(cudaMemset(d_s, 0xff, sizeof h_s));
  masks<<<1, n>>>(d_m, d_c, d_s);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h_m, d_m, sizeof h_m, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&h_c, d_c, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h_s, d_s, sizeof h_s, cudaMemcpyDeviceToHost));
  int bad = 0, taken = 0;
  bool seen[84] = {};
  for (int t = 0; t < n; t++) {
    const int lane = t & 31, warp_lanes = t < 64 ? 32 : 20;
    const unsigned live = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1;
    const unsigned want = lane % 3 == 0 ? 0x49249249u & live : 0u;
    if (h_m[t] != want) printf("thread %d: __activemask() in the branch %08x, want %08x\n", t, h_m[t], want), bad++;
    if (h_m[n + t] != live) printf("thread %d: converged __activemask() %08x, want %08x\n", t, h_m[n + t], live), bad++;
    if (lane % 3 == 0) {
      taken++;
      if (h_s[t] < 0 || h_s[t] >= n || seen[h_s[t]]) printf("thread %d: slot %d\n", t, h_s[t]), bad++;
      else seen[h_s[t]] = true;
    }
  }
  if (h_c != taken) printf("counter %d, want %d\n", h_c, taken), bad++;
  if (bad) return 1;
  printf("activemask ok\n");
  return 0;
}
