// bad_block_race through the device heap: one kernel mallocs a scratch array and keeps it in a
// `__device__` pointer; the next stages every block's tile through it. The probes neither count
// the heap nor race-check it within a block (a block freed and handed to another thread would
// read as a race), but the check of races between blocks follows it: without it the kernel,
// quiet after its one-block first launch, ran its blocks in parallel and its answer hung on the
// host's cores. A block's bytes freed and handed on to another block are not a race
// (blocks_apart).
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: stderr race between blocks on global memory at byte offset
// emu-test: stderr in kernel stageHeap
// emu-test: stdout first launch: no error
#include "emu_test.h"

#define B 64
#define G 32

__device__ int *g_scratch;

__global__ void makeScratch() { g_scratch = (int *)malloc(B * sizeof(int)); }

__global__ void stageHeap(const int *in, int *out) {
  const unsigned t = threadIdx.x, i = blockIdx.x * B + t;
  g_scratch[t] = in[i];
  __syncthreads();
  out[i] = g_scratch[B - 1 - t];
}

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, B * G * sizeof(int)));
  CK(cudaMalloc(&out, B * G * sizeof(int)));
  CK(cudaMemset(in, 0, B * G * sizeof(int)));
  makeScratch<<<1, 1>>>();
  stageHeap<<<1, B>>>(in, out); /* one block: the kernel is heard quiet */
  printf("first launch: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  stageHeap<<<G, B>>>(in, out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
