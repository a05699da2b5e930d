// A program's own run (no SCANLAB_EMU_STRICT) whose blocks race in a way that a GPU forgives:
// every block that finds a negative value sets one flag to 1, as a breadth-first search sets
// "something changed". All blocks store the same value, so the GPU's answer is the program's,
// and so is the emu's; the emu says once that the blocks race (CUDA's model calls it a data
// race) and lets the run go on. The grader's runs fail it (blocks_apart, bad_block_race).
// emu-test: expect pass
// emu-test: probe
// emu-test: stderr race between blocks on global memory at byte offset 0 of
// emu-test: stderr in kernel anyNegative
// emu-test: stdout found: 1
#include <vector>
#include "emu_test.h"

#define B 64
#define G 16

__global__ void anyNegative(const int *in, int *found) {
  if (threadIdx.x == 0 && in[blockIdx.x * B + 3] < 0) *found = 1; /* one thread a block */
}

int main() {
  std::vector<int> h(B * G);
  for (int i = 0; i < B * G; i++) h[i] = i % 7 == 3 ? -1 : i;
  int *in, *found;
  CK(cudaMalloc(&in, B * G * sizeof(int)));
  CK(cudaMalloc(&found, sizeof(int)));
  CK(cudaMemcpy(in, h.data(), B * G * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(found, 0, sizeof(int)));
  anyNegative<<<G, B>>>(in, found);
  anyNegative<<<G, B>>>(in, found);
  int f = 0;
  CK(cudaMemcpy(&f, found, sizeof(int), cudaMemcpyDeviceToHost));
  printf("found: %d\n", f);
  return f != 1;
}
