// malloc and free in device code take from the device heap: cudaLimitMallocHeapSize bytes (8 MiB
// unless the program sets it before its first kernel that allocates; at least 4 MiB: an H200 reads
// back 4194304 after 1 MiB). Each thread allocates, fills and frees a block; thread 0 then asks
// for 2 MiB, which the heap holds, and for all of it, 4 MiB, and gets null, as on the H200 (which
// also refused 8 MiB of its default 8 MiB, where the emu once handed out the host's memory). Stores into the heap are the device's: the probes do not
// take them for stores to the host's memory.
// emu-test: expect pass
// emu-test: probe
// emu-test: stdout heap limit 4194304
// emu-test: stdout sums right, 2 MiB given, 4 MiB null
#include <cstdlib>
#include "emu_test.h"

__global__ void useHeap(int *sums, int *given) {
  const unsigned t = threadIdx.x;
  int *mine = (int *)malloc(64 * sizeof(int));
  if (!mine) {
    sums[t] = -1;
    return;
  }
  for (int k = 0; k < 64; k++) mine[k] = (int)t + k;
  int s = 0;
  for (int k = 0; k < 64; k++) s += mine[k];
  sums[t] = s;
  free(mine);
  if (t == 0) {
    void *some = malloc((size_t)2 << 20), *all = malloc((size_t)4 << 20);
    given[0] = some != nullptr;
    given[1] = all != nullptr;
    free(some);
    free(all);
  }
}

int main() {
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)1 << 20));
  size_t limit = 0;
  CK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  printf("heap limit %zu\n", limit);
  int *sums, *given, h[128], g[2] = {0, 0};
  CK(cudaMalloc(&sums, sizeof h));
  CK(cudaMalloc(&given, sizeof g));
  useHeap<<<1, 128>>>(sums, given);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g, given, sizeof g, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < 128; t++) bad += h[t] != 64 * t + 64 * 63 / 2;
  printf("sums %s, 2 MiB %s, 4 MiB %s\n", bad ? "wrong" : "right", g[0] ? "given" : "null", g[1] ? "given" : "null");
  return bad || !g[0] || g[1];
}
