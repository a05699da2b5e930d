// Where the counting must not join a lane's adjacent shared accesses into one 8- or 16-byte
// access, and where it must not drop a load: a warp collective between two loads, an atomic
// between two loads of one word, a load that also runs without the other one, and 8-byte
// loads by odd lanes only. Each kernel runs once (64 threads; sPartialKernel as 2
// blocks); the emu's counts (SCANLAB_EMU_PROFILE) must equal the table, which holds what
// Nsight Compute measured for these kernels on an H100. Built with nvcc, the same program is
// what ran under ncu.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_runs.%p.jsonl
#include "emu_test.h"

#define N 64

__global__ void sSyncwarpBetweenKernel(const int *in, int *out) {
  __shared__ int s[2 * N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  s[t + N] = in[t + N];
  __syncthreads();
  const int a = s[2 * t];
  __syncwarp();
  const int b = s[2 * t + 1];
  out[t] = a - 3 * b;
}
__global__ void sAtomicBetweenKernel(const int *in, int *out) {
  __shared__ int s[N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  const int a = s[t];
  atomicAdd(&s[t], 1);
  const int b = s[t];
  out[t] = a - 3 * b;
}
__global__ void sPartialKernel(const int *in, int *out) {
  __shared__ int s[2 * N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  s[t + N] = in[t + N];
  __syncthreads();
  int a = 0;
  if (blockIdx.x == 0) a = s[2 * t];
  const int b = s[2 * t + 1];
  out[blockIdx.x * N + t] = a - 3 * b;
}
__global__ void sOddLanesVec2Kernel(const int2 *in, int2 *out) {
  __shared__ int2 s[N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t & 1) out[t] = s[t];
}
/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts */
static const ProfileExpect EXPECT[] = {
    {"sSyncwarpBetweenKernel", {4, 16, 2, 8, 8, 4, 4, 0}}, /* two loads, 2-way each */
    {"sAtomicBetweenKernel", {2, 8, 2, 8, 4, 0, 2, 0}},    /* both loads made */
    {"sPartialKernel", {8, 32, 4, 16, 12, 6, 8, 0}},       /* not joined */
    {"sOddLanesVec2Kernel", {2, 16, 2, 16, 4, 2, 4, 0}},   /* 2 wavefronts, 1 conflict per warp */
};

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, 64 * N * sizeof(int4)));
  CK(cudaMalloc(&out, 64 * N * sizeof(int4)));
  CK(cudaMemset(in, 1, 64 * N * sizeof(int4)));
  sSyncwarpBetweenKernel<<<1, N>>>(in, out);
  sAtomicBetweenKernel<<<1, N>>>(in, out);
  sPartialKernel<<<2, N>>>(in, out);
  sOddLanesVec2Kernel<<<1, N>>>((const int2 *)in, (int2 *)out);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_runs", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
