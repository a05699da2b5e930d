// bad_block_race with mixed widths: one block writes a word whole and another reads it a byte
// at a time (or writes bytes of a word another reads whole). The word's cell and its bytes'
// cells are compared with each other, so the race is found whichever access comes first and on
// every machine; a block that mixes widths on words of its own races with nobody.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: args words-then-bytes
// emu-test: stderr race between blocks on global memory at byte offset 0 of shared (a static variable of device code)
// emu-test: stderr in kernel mixed
#include "emu_test.h"

#include <string.h>

#define B 64

// Block 0 writes its tile of ints into `shared`; block 1 reads the same memory as bytes (or, with
// bytes-then-words, block 0 writes bytes and block 1 reads ints). Blocks 2 and up each mix
// widths on a word of their own: their ints written whole and read back by bytes.
__global__ void mixed(int *out, int bytes_first) {
  static int shared[B];
  static int own[64 * B];
  const unsigned t = threadIdx.x, b = blockIdx.x;
  if (b == 0) {
    if (bytes_first) ((unsigned char *)shared)[4 * t] = (unsigned char)t;
    else shared[t] = (int)t;
  } else if (b == 1) {
    out[t] = bytes_first ? shared[t] : ((const unsigned char *)shared)[4 * t + 1];
  } else {
    own[b * B + t] = (int)(b + t);
    __syncthreads();
    out[b * B + t] = ((const unsigned char *)own)[4 * (b * B + (B - 1 - t))];
  }
}

int main(int argc, char **argv) {
  const int bytes_first = argc > 1 && strcmp(argv[1], "bytes-then-words") == 0;
  int *out;
  CK(cudaMalloc(&out, 64 * B * sizeof(int)));
  mixed<<<8, B>>>(out, bytes_first);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
