// Every block of a launch stages its tile through one scratch array that all blocks share (a
// `static` array of the kernel: global memory on a GPU). Blocks of one launch run at the same
// time on a GPU and nothing orders them, so one block overwrites another's tile: a race between
// blocks. On the emu a graded build ran the blocks one after another on one core, and took turns
// on several, so the answer came out right with one worker and wrong with two: a verdict that
// depended on the machine. With the probes, any word two blocks of a launch touch, one of them
// writing, in a kernel that has no atomic, fence or volatile access (nothing that could order
// blocks), fails the grader's runs (SCANLAB_EMU_STRICT=1) on every machine.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: stderr race between blocks on global memory at byte offset 0 of
// emu-test: stderr in kernel stageShared
// emu-test: stderr 256 words
#include "emu_test.h"

#define B 256
#define G 64

__global__ void stageShared(const int *in, int *out) {
  static int scratch[B];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * B + t;
  scratch[t] = in[i];
  __syncthreads();
  int sum = 0;
  for (unsigned k = 0; k <= t; k++) sum += scratch[k];
  __syncthreads();
  out[i] = sum;
}

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, B * G * sizeof(int)));
  CK(cudaMalloc(&out, B * G * sizeof(int)));
  CK(cudaMemset(in, 0, B * G * sizeof(int)));
  stageShared<<<G, B>>>(in, out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
