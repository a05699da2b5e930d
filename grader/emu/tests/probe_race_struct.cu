// The race detector sees struct copies: GCC reports the copy of an 8-byte struct of two 4-byte
// fields as a byte range (__tsan_read_range / __tsan_write_range), which the probes split into
// 4-byte accesses. Each thread stores its pair into shared memory and reads the pair of the
// thread 32 ahead (another warp): without a __syncthreads between the two, thread 0 reads s[32]
// before or after thread 32 writes it, a race under every schedule. With the barrier, the same
// kernel is clean and its answer right.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse random:1 random:2
// emu-test: stdout clean kernel passed
// emu-test: stderr emu: race on a __shared__ array's shared memory at byte offset 256 in kernel racyPairKernel, block (0,0,0)
// emu-test: stderr thread (0,0,0) reads it at
// emu-test: stderr :33 and thread (32,0,0) writes it at
// emu-test: stderr :32, in different warps with no __syncthreads between them
#include <stdint.h>
#include "emu_test.h"

struct FlagVal {
  uint32_t flag;
  float value;
};

__global__ void pairKernel(const FlagVal *in, FlagVal *out) {
  __shared__ FlagVal s[64];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}
__global__ void racyPairKernel(const FlagVal *in, FlagVal *out) {
  __shared__ FlagVal s[64];
  /* thread t writes s[t] here, and thread t - 32 (another warp) reads it on the next line */
  s[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64]; /* missing: __syncthreads() before it */
}

int main() {
  FlagVal h_in[64], h_out[64];
  for (int i = 0; i < 64; i++) h_in[i] = FlagVal{(uint32_t)i, 0.5f * (float)i};
  FlagVal *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof h_in));
  CK(cudaMalloc(&d_out, sizeof h_out));
  CK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  pairKernel<<<1, 64>>>(d_in, d_out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (h_out[i].flag != (uint32_t)((i + 32) % 64) || h_out[i].value != 0.5f * (float)((i + 32) % 64)) {
      printf("pairKernel: first mismatch at [%d]: expected {%d, %g}, got {%u, %g}\n", i, (i + 32) % 64,
             0.5 * ((i + 32) % 64), h_out[i].flag, (double)h_out[i].value);
      return 1;
    }
  printf("clean kernel passed\n");
  racyPairKernel<<<1, 64>>>(d_in, d_out);
  CK(cudaDeviceSynchronize());
  return 0;
}
