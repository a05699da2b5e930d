// The race between blocks of bad_block_race, in a kernel the emu already knows to be quiet (its
// earlier launch had no atomic, fence or volatile access), whose blocks run in parallel on the
// workers: the answer depends on how they interleave, so with one worker it comes out right and
// with two it may not. The check looks at which blocks touched which words, not at the order,
// so both worker counts fail the same way, naming the array (cudaMalloc'd memory here). It runs
// with two workers, the blocks in parallel and the shadow's cells updated from both threads
// (bad_block_race runs with one).
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward random:1
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: stderr race between blocks on global memory at byte offset 0 of
// emu-test: stderr in kernel stageThrough
// emu-test: stdout first launch: no error
#include "emu_test.h"

#define B 128
#define G 300

__global__ void stageThrough(const int *in, int *out, int *scratch) {
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * B + t;
  scratch[t] = in[i];
  __syncthreads();
  out[i] = scratch[B - 1 - t];
}

int main() {
  int *in, *out, *scratch;
  CK(cudaMalloc(&in, B * G * sizeof(int)));
  CK(cudaMalloc(&out, B * G * sizeof(int)));
  CK(cudaMalloc(&scratch, B * sizeof(int)));
  CK(cudaMemset(in, 0, B * G * sizeof(int)));
  stageThrough<<<1, B>>>(in, out, scratch); /* one block: no race, and the kernel is heard quiet */
  printf("first launch: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  stageThrough<<<G, B>>>(in, out, scratch);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
