// Blocks in flight take turns (turns.cpp): with the memory probes, every block of a launch runs
// exactly once under every schedule, whatever the host's cores (SCANLAB_EMU_WORKERS is 7 here,
// not a divisor of anything), the emulated device has 4 multiprocessors, and a look-back that
// waits for every tile before it gets the right answer while tiles publish late.
// emu-test: expect pass
// emu-test: native no it checks the emu's multiprocessors and host threads
// emu-test: probe
// emu-test: env SCANLAB_EMU_WORKERS=7
// emu-test: schedules forward reverse random:1 random:20261122
#include <vector>
#include "emu_test.h"

#define TILE 64
#define WINDOW 4
#ifndef ONLY_NEAREST
#define ONLY_NEAREST 0
#endif

/* Each block adds 1 to its own counter, with an atomic so that it is a publish point. */
__global__ void countBlocks(unsigned *seen) {
  if (threadIdx.x == 0) atomicAdd(&seen[blockIdx.x], 1u);
  __syncthreads();
}

/* A single pass over tiles drawn from a counter: publish the tile's sum (flag 1), look back over
 * a window of WINDOW tiles until one holds an inclusive prefix (flag 2), waiting while any tile
 * between is unpublished; publish the prefix. */
__global__ void lookbackSum(const int *in, int *out, unsigned long long *status, unsigned *counter, int tiles) {
  __shared__ unsigned tile;
  __shared__ int total, before;
  for (;;) {
    if (threadIdx.x == 0) {
      tile = atomicAdd(counter, 1u);
      total = 0;
    }
    __syncthreads();
    const int t = (int)tile;
    if (t >= tiles) return;
    atomicAdd(&total, in[t * TILE + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
      volatile unsigned long long *st = status;
      int sum = 0;
      if (t == 0) {
        st[0] = (2ull << 32) | (unsigned)total;
      } else {
        st[t] = (1ull << 32) | (unsigned)total;
        int end = t - 1;
        for (;;) {
          bool wait = false, prefix = false;
          int k = 0, add = 0;
          for (; k < WINDOW && end - k >= 0; k++) {
            const unsigned long long w = st[end - k];
            const unsigned flag = (unsigned)(w >> 32);
            if (flag == 0) {
              wait = ONLY_NEAREST ? k == 0 : true; /* the fault: waits for the nearest tile only */
              if (wait || ONLY_NEAREST) break;
            }
            add += (int)(unsigned)w;
            if (flag == 2) { prefix = true; break; }
          }
          if (wait) continue;
          sum += add;
          if (prefix || end - k < 0) break;
          end -= WINDOW;
        }
        st[t] = (2ull << 32) | (unsigned)(sum + total);
      }
      before = sum;
    }
    __syncthreads();
    out[t * TILE + threadIdx.x] = before;
    __syncthreads();
  }
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (sms != 4) {
    printf("multiprocessors: %d, expected 4 whatever the host\n", sms);
    return 1;
  }
  for (int blocks : {1, 3, 31, 32, 33, 200}) {
    unsigned *seen;
    CK(cudaMalloc(&seen, blocks * sizeof(unsigned)));
    CK(cudaMemset(seen, 0, blocks * sizeof(unsigned)));
    countBlocks<<<blocks, 64>>>(seen);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned> h(blocks);
    CK(cudaMemcpy(h.data(), seen, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
      if (h[b] != 1) {
        printf("grid of %d: block %d ran %u times\n", blocks, b, h[b]);
        return 1;
      }
    CK(cudaFree(seen));
  }
  const int tiles = 90;
  std::vector<int> in(tiles * TILE), want(tiles * TILE), got(tiles * TILE);
  for (int i = 0; i < tiles * TILE; i++) in[i] = (i * 7919) % 23 - 11;
  int run = 0; /* each tile's elements get the sum of the tiles before it */
  for (int t = 0; t < tiles; t++) {
    for (int j = 0; j < TILE; j++) want[t * TILE + j] = run;
    for (int j = 0; j < TILE; j++) run += in[t * TILE + j];
  }
  int *d_in, *d_out;
  unsigned long long *status;
  unsigned *counter;
  CK(cudaMalloc(&d_in, in.size() * sizeof(int)));
  CK(cudaMalloc(&d_out, in.size() * sizeof(int)));
  CK(cudaMalloc(&status, tiles * sizeof(unsigned long long)));
  CK(cudaMalloc(&counter, sizeof(unsigned)));
  CK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
  for (int rep = 0; rep < 3; rep++) {
    CK(cudaMemset(status, 0, tiles * sizeof(unsigned long long)));
    CK(cudaMemset(counter, 0, sizeof(unsigned)));
    lookbackSum<<<24, TILE>>>(d_in, d_out, status, counter, tiles);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    if (!same("look-back", want.data(), got.data(), got.size())) return 1;
  }
  printf("ok\n");
  return 0;
}
