// malloc and free in device code take from the device heap: cudaLimitMallocHeapSize bytes (8 MiB
// unless the program sets it before its first kernel that allocates), global memory to the probes.
// Each thread allocates, fills and frees a block; one asks for more than the heap holds and gets
// null, as on a GPU (an H200 returned null for 1 GiB of its default 8 MiB heap, where the emu
// once handed out the host's memory). Stores into the heap are the device's: the probes do not
// take them for stores to the host's memory.
// emu-test: expect pass
// emu-test: probe
// emu-test: stdout heap limit 1048576
// emu-test: stdout sums right, too large null
#include <cstdlib>
#include "emu_test.h"

__global__ void useHeap(int *sums, int *tooLarge) {
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
    void *big = malloc((size_t)2 << 20); /* more than the 1 MiB heap set below */
    *tooLarge = big == nullptr;
    free(big);
  }
}

int main() {
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)1 << 20));
  size_t limit = 0;
  CK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  printf("heap limit %zu\n", limit);
  int *sums, *tooLarge, h[128], big = 0;
  CK(cudaMalloc(&sums, sizeof h));
  CK(cudaMalloc(&tooLarge, sizeof(int)));
  useHeap<<<1, 128>>>(sums, tooLarge);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&big, tooLarge, sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < 128; t++) bad += h[t] != 64 * t + 64 * 63 / 2;
  printf("sums %s, too large %s\n", bad ? "wrong" : "right", big ? "null" : "not null");
  return bad || !big;
}
