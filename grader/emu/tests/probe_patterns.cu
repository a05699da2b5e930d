// The memory counters on access patterns whose costs are known: global loads and stores
// (coalesced, strided, offset, broadcast, a partial warp, a divergent warp, 8- and 16-byte
// accesses) and shared ones (strides 1, 2 and 32, padded, broadcast, 8- and 16-byte). Each
// kernel runs once as one block; the emu's counts (SCANLAB_EMU_PROFILE) must equal the table,
// which holds what Nsight Compute measured for these kernels on an H100 (see the README). Built
// with nvcc, the same program is what ran under ncu.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_patterns.%p.jsonl
#include "emu_test.h"

#define N 64

__global__ void gCoalescedKernel(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void gStride2Kernel(const int *in, int *out) { out[threadIdx.x] = in[2 * threadIdx.x]; }
__global__ void gStride32Kernel(const int *in, int *out) { out[threadIdx.x] = in[32 * threadIdx.x]; }
__global__ void gOffset1Kernel(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x + 1]; }
__global__ void gBroadcastKernel(const int *in, int *out) { out[threadIdx.x] = in[0]; }
__global__ void gDivergentKernel(const int *in, int *out) {
  if (threadIdx.x & 1) out[threadIdx.x] = in[threadIdx.x];
}
__global__ void gVec2Kernel(const int2 *in, int2 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void gVec4Kernel(const int4 *in, int4 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void gVec4Stride2Kernel(const int4 *in, int4 *out) { out[threadIdx.x] = in[2 * threadIdx.x]; }

__global__ void sStride1Kernel(const int *in, int *out) {
  __shared__ int s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
__global__ void sStride2Kernel(const int *in, int *out) {
  __shared__ int s[2 * N];
  s[2 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[2 * threadIdx.x];
}
__global__ void sStride32Kernel(const int *in, int *out) {
  __shared__ int s[32 * N];
  s[32 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[32 * threadIdx.x];
}
__global__ void sPadded33Kernel(const int *in, int *out) {
  __shared__ int s[33 * N];
  s[33 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[33 * threadIdx.x];
}
__global__ void sBroadcastKernel(const int *in, int *out) {
  __shared__ int s[1];
  if (threadIdx.x == 0) s[0] = in[0];
  __syncthreads();
  out[threadIdx.x] = s[0];
}
__global__ void sVec2Kernel(const int2 *in, int2 *out) {
  __shared__ int2 s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
__global__ void sVec4Kernel(const int4 *in, int4 *out) {
  __shared__ int4 s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
__global__ void sVec4Stride2Kernel(const int4 *in, int4 *out) {
  __shared__ int4 s[2 * N];
  s[2 * threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[2 * threadIdx.x];
}

/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts */
static const ProfileExpect EXPECT[] = {
    {"gCoalescedKernel", {2, 8, 2, 8, 0, 0, 0, 0}},
    {"gStride2Kernel", {2, 16, 2, 8, 0, 0, 0, 0}},
    {"gStride32Kernel", {2, 64, 2, 8, 0, 0, 0, 0}},
    {"gOffset1Kernel", {2, 10, 2, 8, 0, 0, 0, 0}},
    {"gBroadcastKernel", {2, 2, 2, 8, 0, 0, 0, 0}},
    {"gCoalescedKernel", {2, 5, 2, 5, 0, 0, 0, 0}}, /* 40 threads: a partial warp */
    {"gDivergentKernel", {2, 8, 2, 8, 0, 0, 0, 0}},
    {"gVec2Kernel", {2, 16, 2, 16, 0, 0, 0, 0}},
    {"gVec4Kernel", {2, 32, 2, 32, 0, 0, 0, 0}},
    {"gVec4Stride2Kernel", {2, 64, 2, 32, 0, 0, 0, 0}},
    {"sStride1Kernel", {2, 8, 2, 8, 2, 0, 2, 0}},
    {"sStride2Kernel", {2, 8, 2, 8, 4, 2, 4, 2}},
    {"sStride32Kernel", {2, 8, 2, 8, 64, 62, 64, 62}},
    {"sPadded33Kernel", {2, 8, 2, 8, 2, 0, 2, 0}},
    {"sBroadcastKernel", {1, 1, 2, 8, 2, 0, 1, 0}},
    {"sVec2Kernel", {2, 16, 2, 16, 4, 0, 4, 0}},
    {"sVec4Kernel", {2, 32, 2, 32, 8, 0, 8, 0}},
    {"sVec4Stride2Kernel", {2, 32, 2, 32, 16, 8, 16, 8}},
};

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, 64 * N * sizeof(int4)));
  CK(cudaMalloc(&out, 64 * N * sizeof(int4)));
  CK(cudaMemset(in, 1, 64 * N * sizeof(int4)));
  int4 *in4 = (int4 *)in, *out4 = (int4 *)out;
  int2 *in2 = (int2 *)in, *out2 = (int2 *)out;
  gCoalescedKernel<<<1, N>>>(in, out);
  gStride2Kernel<<<1, N>>>(in, out);
  gStride32Kernel<<<1, N>>>(in, out);
  gOffset1Kernel<<<1, N>>>(in, out);
  gBroadcastKernel<<<1, N>>>(in, out);
  gCoalescedKernel<<<1, 40>>>(in, out);
  gDivergentKernel<<<1, N>>>(in, out);
  gVec2Kernel<<<1, N>>>(in2, out2);
  gVec4Kernel<<<1, N>>>(in4, out4);
  gVec4Stride2Kernel<<<1, N>>>(in4, out4);
  sStride1Kernel<<<1, N>>>(in, out);
  sStride2Kernel<<<1, N>>>(in, out);
  sStride32Kernel<<<1, N>>>(in, out);
  sPadded33Kernel<<<1, N>>>(in, out);
  sBroadcastKernel<<<1, N>>>(in, out);
  sVec2Kernel<<<1, N>>>(in2, out2);
  sVec4Kernel<<<1, N>>>(in4, out4);
  sVec4Stride2Kernel<<<1, N>>>(in4, out4);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_patterns", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
