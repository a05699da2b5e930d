// Shared-memory byte accesses: lanes storing or loading single bytes, several in one 4-byte
// word, in one bank, or at one address. Each kernel runs once as one block of 64 threads; the
// emu's counts (SCANLAB_EMU_PROFILE) must equal the table, which holds what Nsight Compute
// measured for these kernels on an H100 (see the README, "Memory probes"). Built with nvcc, the
// same program is what ran under ncu.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_bytes.%p.jsonl
#include <stdint.h>
#include "emu_test.h"

#define N 64

/* consecutive bytes: lanes 4i..4i+3 store the bytes of word i */
__global__ void sByteConsecutiveKernel(const uint8_t *in, uint8_t *out) {
  __shared__ uint8_t s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
/* one byte per word, consecutive words */
__global__ void sByteStride4Kernel(const uint8_t *in, uint8_t *out) {
  __shared__ uint8_t s[4 * N];
  s[4 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[4 * threadIdx.x];
}
/* pairs of lanes in one word: bytes 0 and 2 of consecutive words */
__global__ void sByteStride2Kernel(const uint8_t *in, uint8_t *out) {
  __shared__ uint8_t s[2 * N];
  s[2 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[2 * threadIdx.x];
}
/* every lane one bank, different words: 128 bytes apart */
__global__ void sByteStride128Kernel(const uint8_t *in, uint8_t *out) {
  __shared__ uint8_t s[128 * N];
  s[128 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[128 * threadIdx.x];
}
/* scattered: lane t stores byte (t * 7) % 64 of a 64-byte array, some words shared by lanes */
__global__ void sByteScatterKernel(const uint8_t *in, uint8_t *out) {
  __shared__ uint8_t s[N];
  s[(threadIdx.x * 7) % N] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 5) % N];
}

/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts */
static const ProfileExpect EXPECT[] = {
    {"sByteConsecutiveKernel", {2, 2, 2, 2, 2, 0, 2, 0}},
    {"sByteStride4Kernel", {2, 2, 2, 2, 2, 0, 2, 0}},
    {"sByteStride2Kernel", {2, 2, 2, 2, 2, 0, 2, 0}},
    {"sByteStride128Kernel", {2, 2, 2, 2, 64, 62, 64, 62}},
    {"sByteScatterKernel", {2, 2, 2, 2, 2, 0, 2, 0}},
};

int main() {
  uint8_t *in, *out;
  CK(cudaMalloc(&in, 1024));
  CK(cudaMalloc(&out, 1024));
  CK(cudaMemset(in, 1, 1024));
  sByteConsecutiveKernel<<<1, N>>>(in, out);
  sByteStride4Kernel<<<1, N>>>(in, out);
  sByteStride2Kernel<<<1, N>>>(in, out);
  sByteStride128Kernel<<<1, N>>>(in, out);
  sByteScatterKernel<<<1, N>>>(in, out);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_bytes", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
