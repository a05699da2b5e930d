// Kernels whose loops version (loops.py) must not run, or must stop running: a block
// reduction that ends in legacy warp-synchronous code (lanes read each other's volatile stores
// with no barrier between: its first launch, thread by thread, sees that, and every launch stays
// so, right as a GPU's converged warp); a kernel that shares a volatile word between threads
// only when its argument asks, through helper functions (its first launch does not share, so
// its second runs as loops; the helpers, calls of their own, keep the hooks the loops version is
// compiled without, so the loops see the word shared, say so, and send the launches after it
// back to threads; shared in the kernel's own code, the loops would not see it); and a kernel
// whose barrier comes from a header's macro (the rewrite reads the program's own headers and
// leaves it on fibers; where it could not, its first launch would meet a barrier the loops
// version does not hold, and keep it on fibers).
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel legacySum: its later launches run thread by thread, not as loops
// emu-test: stderr emu: kernel sometimesShared: its later launches run as loops
// emu-test: stderr emu: kernel sometimesShared ran as loops over each block's threads
// emu-test: stderr reads a volatile store of thread (0,0,0) since their last barrier
// emu-test: stdout all right
#include <cstdio>

#include "loops_sync_macro.h"

#define THREADS 128

__global__ void legacySum(const int *in, int *out) {
  __shared__ int part[THREADS];
  const unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * THREADS + t];
  __syncthreads();
  for (unsigned half = THREADS / 2; half > 32; half >>= 1) {
    if (t < half) part[t] += part[t + half];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *v = part;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0) out[blockIdx.x] = part[0];
}

__device__ __noinline__ int peek(volatile int *w, unsigned i) { return w[i]; }
__device__ __noinline__ void poke(volatile int *w, unsigned i, int v) { w[i] = v; }

__global__ void sometimesShared(int *out, int share) {
  __shared__ volatile int word[THREADS];
  const unsigned t = threadIdx.x;
  word[t] = (int)t;
  __syncthreads();
  if (share && t == 0) poke(word, 1, 1000);
  const int seen = share && t == 1 ? peek(word, 1) : word[t];
  __syncthreads();
  out[blockIdx.x * THREADS + t] = seen;
}

__global__ void macroBarrier(int *data) {
  __shared__ int tile[THREADS];
  const unsigned t = threadIdx.x;
  tile[t] = data[blockIdx.x * THREADS + t];
  __syncthreads();
  const int mine = tile[THREADS - 1 - t];
  BLOCK_SYNC();
  tile[t] = mine;
  __syncthreads();
  data[blockIdx.x * THREADS + t] = tile[t];
}

int main() {
  const int blocks = 4, n = blocks * THREADS;
  int *d, *o, h[n], r[n];
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&o, sizeof h);
  int bad = 0;
  for (int launch = 0; launch < 4; launch++) {
    for (int i = 0; i < n; i++) h[i] = (i * 7 + launch) % 23 - 11;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    legacySum<<<blocks, THREADS>>>(d, o);
    cudaMemcpy(r, o, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
      int want = 0;
      for (int k = 0; k < THREADS; k++) want += h[b * THREADS + k];
      bad += r[b] != want;
    }
    sometimesShared<<<blocks, THREADS>>>(o, launch == 2);
    cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) bad += i % THREADS != 1 && r[i] != i % THREADS;
    macroBarrier<<<blocks, THREADS>>>(d);
    cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) bad += r[i] != h[i / THREADS * THREADS + THREADS - 1 - i % THREADS];
  }
  printf(bad ? "WRONG (%d)\n" : "all right\n", bad);
  return bad != 0;
}
