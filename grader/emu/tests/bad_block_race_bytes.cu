// bad_block_race with bytes: every block stages its tile of chars through one static array of
// chars all blocks share. Accesses of 1 and 2 bytes are compared byte by byte (blocks may own
// neighbouring bytes of one word, as blocks_apart's flags do), so this race is found as the
// race on ints is, on every machine.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: stderr race between blocks on global memory at byte offset 0 of stage (a static variable of device code)
// emu-test: stderr in kernel stageBytes
// emu-test: stderr (128 bytes in all)
#include "emu_test.h"

#define B 128
#define G 16

__global__ void stageBytes(const unsigned char *in, unsigned char *out) {
  static unsigned char stage[B];
  const unsigned t = threadIdx.x;
  stage[t] = in[blockIdx.x * B + t];
  __syncthreads();
  out[blockIdx.x * B + t] = stage[B - 1 - t];
}

int main() {
  unsigned char *in, *out;
  CK(cudaMalloc(&in, B * G));
  CK(cudaMalloc(&out, B * G));
  CK(cudaMemset(in, 7, B * G));
  stageBytes<<<G, B>>>(in, out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
