// What blocks of one launch may share without a race, which the check for races between blocks
// (bad_block_race) must let pass in the grader's runs (SCANLAB_EMU_STRICT=1): a table every
// block reads and none writes; each block's sum in a word of its own, next to its neighbours'
// (one 32-byte sector holds eight blocks' words); 8-byte values a block apiece; a byte flag a
// block (4 in a word: the check compares bytes for accesses of 1 byte); a tile read and
// written in place by its block alone; the output of an earlier launch read by every block of
// the next; and blocks that order themselves with atomics and __threadfence (the last block to
// finish adds up the others' sums, as CUDA's threadFenceReduction sample does); a buffer a
// block takes from the device heap, uses and frees, which another block may be handed next;
// and words a block writes a byte at a time and reads whole, its neighbours' beside them.
// emu-test: expect pass
// emu-test: probe
// emu-test: env SCANLAB_EMU_STRICT=1
#include <vector>
#include "emu_test.h"

#define B 128
#define G 40

__device__ int g_table[B];

__global__ void blockSums(const int *in, int *sums, long long *wide, unsigned char *done) {
  __shared__ int s[B];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * B + t] + g_table[t];
  __syncthreads();
  if (t == 0) {
    int acc = 0;
    for (int k = 0; k < B; k++) acc += s[k];
    sums[blockIdx.x] = acc;
    wide[blockIdx.x] = acc;
    done[blockIdx.x] = 1;
  }
}

__global__ void doubleInPlace(int *a) {
  const unsigned i = blockIdx.x * B + threadIdx.x;
  a[i] = a[i] * 2;
  a[i] += 1;
}

__global__ void addTotal(const int *sums, int *out) {
  int total = 0;
  for (int k = 0; k < G; k++) total += sums[k]; /* written by the launch before: ordered */
  out[blockIdx.x * B + threadIdx.x] = total;
}

__global__ void heapPerBlock(const int *in, int *out) {
  __shared__ int *buf;
  if (threadIdx.x == 0) buf = (int *)malloc(B * sizeof(int));
  __syncthreads();
  const unsigned i = blockIdx.x * B + threadIdx.x;
  buf[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = buf[B - 1 - threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) free(buf);
}

__global__ void bytesThenWhole(int *w, int *out) {
  const unsigned t = threadIdx.x, i = blockIdx.x * B + t;
  unsigned char *mine = (unsigned char *)&w[i];
  for (int k = 0; k < 4; k++) mine[k] = (unsigned char)(i >> (8 * k));
  __syncthreads();
  out[i] = w[blockIdx.x * B + (B - 1 - t)];
}

__device__ unsigned g_finished;

__global__ void lastBlockAdds(const int *in, int *partial, int *total) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    int acc = 0;
    for (int k = 0; k < B; k++) acc += in[blockIdx.x * B + k];
    partial[blockIdx.x] = acc;
    __threadfence();
    last = atomicAdd(&g_finished, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int acc = 0;
    for (unsigned k = 0; k < gridDim.x; k++) acc += partial[k];
    *total = acc;
  }
}

int main() {
  std::vector<int> h(B * G), table(B);
  for (int i = 0; i < B * G; i++) h[i] = i % 5;
  for (int t = 0; t < B; t++) table[t] = t % 3;
  CK(cudaMemcpyToSymbol(g_table, table.data(), B * sizeof(int)));
  int *in, *sums, *out, *partial, *total;
  long long *wide;
  unsigned char *done;
  CK(cudaMalloc(&in, B * G * sizeof(int)));
  CK(cudaMalloc(&out, B * G * sizeof(int)));
  CK(cudaMalloc(&sums, G * sizeof(int)));
  CK(cudaMalloc(&partial, G * sizeof(int)));
  CK(cudaMalloc(&total, sizeof(int)));
  CK(cudaMalloc(&wide, G * sizeof(long long)));
  CK(cudaMalloc(&done, G));
  CK(cudaMemcpy(in, h.data(), B * G * sizeof(int), cudaMemcpyHostToDevice));
  blockSums<<<G, B>>>(in, sums, wide, done);
  blockSums<<<G, B>>>(in, sums, wide, done); /* again, now known quiet: blocks in parallel */
  addTotal<<<G, B>>>(sums, out);
  doubleInPlace<<<G, B>>>(in);
  doubleInPlace<<<G, B>>>(in);
  lastBlockAdds<<<G, B>>>(in, partial, total);
  int *mirrored;
  CK(cudaMalloc(&mirrored, B * G * sizeof(int)));
  heapPerBlock<<<G, B>>>(in, mirrored);
  heapPerBlock<<<G, B>>>(in, mirrored); /* again, quiet: blocks in parallel, buffers handed on */
  int *bytewise, *wholes;
  CK(cudaMalloc(&bytewise, B * G * sizeof(int)));
  CK(cudaMalloc(&wholes, B * G * sizeof(int)));
  bytesThenWhole<<<G, B>>>(bytewise, wholes);
  bytesThenWhole<<<G, B>>>(bytewise, wholes); /* quiet: blocks in parallel */
  CK(cudaDeviceSynchronize());
  std::vector<int> got(B * G), s(G);
  std::vector<long long> w(G);
  std::vector<unsigned char> d(G);
  CK(cudaMemcpy(s.data(), sums, G * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(w.data(), wide, G * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(d.data(), done, G, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.data(), out, B * G * sizeof(int), cudaMemcpyDeviceToHost));
  int t;
  CK(cudaMemcpy(&t, total, sizeof(int), cudaMemcpyDeviceToHost));
  long long all = 0, quad = 0;
  int ok = 1;
  for (int b = 0; b < G; b++) {
    int acc = 0;
    for (int k = 0; k < B; k++) acc += h[b * B + k] + table[k];
    ok &= s[b] == acc && w[b] == acc && d[b] == 1;
    all += acc;
  }
  for (int i = 0; i < B * G; i++) {
    ok &= got[i] == (int)all;
    quad += 4 * h[i] + 3;
  }
  ok &= t == (int)quad;
  std::vector<int> mir(B * G), now(B * G);
  CK(cudaMemcpy(mir.data(), mirrored, B * G * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(now.data(), in, B * G * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < B * G; i++) ok &= mir[i] == now[i / B * B + (B - 1 - i % B)];
  std::vector<int> wh(B * G);
  CK(cudaMemcpy(wh.data(), wholes, B * G * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < B * G; i++) ok &= wh[i] == i / B * B + (B - 1 - i % B);
  printf("%s\n", ok ? "all agree" : "WRONG");
  return !ok;
}
