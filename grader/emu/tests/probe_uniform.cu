// Shared loads that every lane of a warp makes at one address, and loads of lane pairs that
// share an address: 8- and 16-byte accesses, and runs of 4-byte loads at constant offsets,
// which nvcc's assembler (ptxas) joins into one 8- or 16-byte load (a block scan reading its
// warps' totals is such a run). Each kernel runs once as one block of 64 threads (the last, 128);
// the emu's counts (SCANLAB_EMU_PROFILE) must equal the table, which holds what Nsight Compute
// measured for these kernels on an H100 (see the README, "Memory probes"). Built with nvcc, the
// same program is what ran under ncu.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_uniform.%p.jsonl
#include "emu_test.h"

#define N 64

/* one 16-byte (8-byte) value, read by every lane */
__global__ void sVec4UniformKernel(const int4 *in, int4 *out) {
  __shared__ int4 s[1];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  out[threadIdx.x] = s[0];
}
__global__ void sVec2UniformKernel(const int2 *in, int2 *out) {
  __shared__ int2 s[1];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  out[threadIdx.x] = s[0];
}
/* lanes 2i and 2i+1 read value i */
__global__ void sVec4PairsKernel(const int4 *in, int4 *out) {
  __shared__ int4 s[N / 2];
  if (threadIdx.x < N / 2) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x / 2];
}
__global__ void sVec2PairsKernel(const int2 *in, int2 *out) {
  __shared__ int2 s[N / 2];
  if (threadIdx.x < N / 2) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x / 2];
}
/* 4-byte loads at constant offsets, the same for every lane */
__global__ void sUniform4Kernel(const int *in, int *out) {
  __shared__ int s[4];
  if (threadIdx.x < 4) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[0] + s[1] * 3 + s[2] * 5 + s[3] * 7;
}
__global__ void sUniform2Kernel(const int *in, int *out) {
  __shared__ int s[4];
  if (threadIdx.x < 4) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[2] - 3 * s[3];
}
__global__ void sUniformOddKernel(const int *in, int *out) { /* words 1 and 2: no aligned pair */
  __shared__ int s[4];
  if (threadIdx.x < 4) s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[1] - 3 * s[2];
}
/* a block scan's last step: each warp's total in shared memory, every thread reads all four */
__global__ void sWarpTotalsKernel(const int *in, int *out) {
  __shared__ int totals[4];
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) totals[warp] = in[warp];
  __syncthreads();
  int before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < 4; w++) {
    const int v = totals[w];
    if (w < warp) before += v;
    total += v;
  }
  out[threadIdx.x] = before * 3 + total;
}

/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts */
static const ProfileExpect EXPECT[] = {
    {"sVec4UniformKernel", {1, 1, 2, 32, 4, 0, 1, 0}}, /* 2 wavefronts per warp, not 4 */
    {"sVec2UniformKernel", {1, 1, 2, 16, 2, 0, 1, 0}}, /* 1 per warp, not 2 */
    {"sVec4PairsKernel", {1, 16, 2, 32, 4, 0, 4, 0}},
    {"sVec2PairsKernel", {1, 8, 2, 16, 2, 0, 2, 0}},
    {"sUniform4Kernel", {1, 1, 2, 8, 4, 0, 1, 0}},   /* one LDS.128: 2 per warp */
    {"sUniform2Kernel", {1, 1, 2, 8, 2, 0, 1, 0}},   /* one LDS.64: 1 per warp */
    {"sUniformOddKernel", {1, 1, 2, 8, 4, 0, 1, 0}}, /* words 1, 2: two LDS, 1 each */
    {"sWarpTotalsKernel", {4, 4, 4, 16, 8, 0, 4, 0}},
};

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, 64 * N * sizeof(int4)));
  CK(cudaMalloc(&out, 64 * N * sizeof(int4)));
  CK(cudaMemset(in, 1, 64 * N * sizeof(int4)));
  int4 *in4 = (int4 *)in, *out4 = (int4 *)out;
  int2 *in2 = (int2 *)in, *out2 = (int2 *)out;
  sVec4UniformKernel<<<1, N>>>(in4, out4);
  sVec2UniformKernel<<<1, N>>>(in2, out2);
  sVec4PairsKernel<<<1, N>>>(in4, out4);
  sVec2PairsKernel<<<1, N>>>(in2, out2);
  sUniform4Kernel<<<1, N>>>(in, out);
  sUniform2Kernel<<<1, N>>>(in, out);
  sUniformOddKernel<<<1, N>>>(in, out);
  sWarpTotalsKernel<<<1, 2 * N>>>(in, out);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_uniform", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
