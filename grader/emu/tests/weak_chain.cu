// A chained scan across blocks through plain memory: each block draws a tile, waits for the
// flag of the tile before it (a volatile load), reads that tile's running total from a plain
// array, stores its own with a plain store and then raises its flag (a volatile store). With
// __threadfence() between the total's store and the flag's a GPU orders them, and the emu's
// weak-ordering check (runtime/probe.cpp) passes it under every schedule; bad_weak_chain.cu
// leaves the fence out.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse random:1 random:20261122
// emu-test: stdout chain: 64 tiles right
#include "emu_test.h"

#ifndef NO_FENCE
#define NO_FENCE 0
#endif

__global__ void chainKernel(const int *in, int *total, volatile int *flag, unsigned *counter, int *out) {
  if (threadIdx.x != 0) return;
  const unsigned tile = atomicAdd(counter, 1u);
  int prev = 0;
  if (tile > 0) {
    while (flag[tile - 1] == 0) {
    }
    prev = total[tile - 1];
  }
  total[tile] = prev + in[tile];
  if (!NO_FENCE) __threadfence();
  flag[tile] = 1;
  out[tile] = prev;
}

int main() {
  const int n = 64;
  int h_in[n], h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = i % 7 + 1;
  int *in, *total, *flag, *out;
  unsigned *counter;
  CK(cudaMalloc(&in, n * sizeof(int)));
  CK(cudaMalloc(&total, n * sizeof(int)));
  CK(cudaMalloc(&flag, n * sizeof(int)));
  CK(cudaMalloc(&out, n * sizeof(int)));
  CK(cudaMalloc(&counter, sizeof(unsigned)));
  CK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  CK(cudaMemset(flag, 0, n * sizeof(int)));
  CK(cudaMemset(counter, 0, sizeof(unsigned)));
  chainKernel<<<n, 32>>>(in, total, flag, counter, out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  int run = 0;
  for (int i = 0; i < n; i++) {
    if (h_out[i] != run) {
      printf("chain: tile %d: expected %d, got %d\n", i, run, h_out[i]);
      return 1;
    }
    run += h_in[i];
  }
  printf("chain: %d tiles right\n", n);
  return 0;
}
