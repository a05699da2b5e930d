// The memory counters on struct copies. GCC reports the copy of a struct whose size exceeds its
// alignment (here 8 bytes of two 4-byte fields, aligned to 4) as a byte range. In global memory
// nvcc copies it field-sized, as two 4-byte loads or stores, and so do the probes: each 4-byte
// piece is one instruction of its own, grouped lane by lane (piece k of one lane with piece k of
// the others), so a warp copying 32 consecutive pairs makes two requests of 8 sectors, not one
// of 16. In shared memory nvcc knows where the array lies and copies the pair with one 8-byte
// access; the probes merge the pieces of a copy at an 8-byte boundary likewise. The same struct
// declared with alignas(8) is one 8-byte access everywhere (GCC's __tsan_read8, nvcc's 64-bit
// load), counted as an int2 is. Each kernel runs once as one block of 64 threads (two warps);
// the emu's counts (SCANLAB_EMU_PROFILE) must equal the table, which holds what ncu measured for
// these kernels on an H100.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_struct_counts.%p.jsonl
#include <stdint.h>
#include "emu_test.h"

#define N 64

struct FlagVal { /* 8 bytes, aligned to 4: copied as a range */
  uint32_t flag;
  float value;
};
struct alignas(8) FlagVal8 { /* 8 bytes, aligned to 8: one 8-byte access */
  uint32_t flag;
  float value;
};

__global__ void gPairKernel(const FlagVal *in, FlagVal *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void gPairOddKernel(const FlagVal *in, FlagVal *out) {
  if (threadIdx.x & 1) out[threadIdx.x] = in[threadIdx.x];
}
/* lanes 0-15 of each warp copy a second pair: the warp's lanes run different numbers of
   instructions, so they are grouped by instruction and occurrence (the general path) */
__global__ void gPairHalfKernel(const FlagVal *in, FlagVal *out) {
  out[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x % 32 < 16) out[threadIdx.x + N] = in[threadIdx.x + N];
}
__global__ void sPairKernel(const FlagVal *in, FlagVal *out) {
  __shared__ FlagVal s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
/* a lone __shared__ pair (not an array), stored by thread 0, both fields read by every thread:
   NVVM makes each field a variable of its own (s_one_$_0, s_one_$_1 in the PTX), and ptxas
   places the two side by side at an 8-byte boundary and stores them with one STS.64 and loads
   them with one LDS.64 (GCC: one 8-byte store, two 4-byte loads that the counting joins) */
__global__ void sLoneKernel(const FlagVal *in, float *out) {
  __shared__ FlagVal s_one;
  if (threadIdx.x == 0) s_one = in[0];
  __syncthreads();
  out[threadIdx.x] = s_one.flag + s_one.value;
}
/* a lone __shared__ struct holding an array that lane 0 of each warp indexes by its warp: nvcc
   keeps it whole, and a warp's pair is one 8-byte store (STS.64) */
struct Totals {
  FlagVal warp[N / 32];
};
__global__ void sLoneIndexedKernel(const FlagVal *in, float *out) {
  __shared__ Totals s_tot;
  if (threadIdx.x % 32 == 0) s_tot.warp[threadIdx.x / 32] = in[threadIdx.x / 32];
  __syncthreads();
  out[threadIdx.x] = s_tot.warp[threadIdx.x / 32].value;
}
__global__ void gPair8Kernel(const FlagVal8 *in, FlagVal8 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void sPair8Kernel(const FlagVal8 *in, FlagVal8 *out) {
  __shared__ FlagVal8 s[N];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x];
}

/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts, as ncu measured them on an H100. In global memory a pair
   aligned to 4 is two 4-byte accesses (nvcc cannot know the pointer's alignment): a piece of 32
   lanes 8 bytes apart is one request of 8 sectors. In shared memory nvcc knows where the array
   lies and copies each pair with one 8-byte access, aligned or not by declaration: 2 wavefronts
   per warp, no conflict. */
static const ProfileExpect EXPECT[] = {
    {"gPairKernel", {4, 32, 4, 32, 0, 0, 0, 0}},
    {"gPairOddKernel", {4, 32, 4, 32, 0, 0, 0, 0}},
    {"gPairHalfKernel", {8, 48, 8, 48, 0, 0, 0, 0}},
    {"sPairKernel", {4, 32, 4, 32, 4, 0, 4, 0}},
    {"sLoneKernel", {2, 2, 2, 8, 2, 0, 1, 0}},
    {"sLoneIndexedKernel", {4, 4, 2, 8, 2, 0, 2, 0}},
    {"gPair8Kernel", {2, 16, 2, 16, 0, 0, 0, 0}},
    {"sPair8Kernel", {2, 16, 2, 16, 4, 0, 4, 0}},
};

int main() {
  FlagVal *in, *out;
  CK(cudaMalloc(&in, 2 * N * sizeof(FlagVal)));
  CK(cudaMalloc(&out, 2 * N * sizeof(FlagVal)));
  CK(cudaMemset(in, 1, 2 * N * sizeof(FlagVal)));
  FlagVal8 *in8 = (FlagVal8 *)in, *out8 = (FlagVal8 *)out;
  gPairKernel<<<1, N>>>(in, out);
  gPairOddKernel<<<1, N>>>(in, out);
  gPairHalfKernel<<<1, N>>>(in, out);
  sPairKernel<<<1, N>>>(in, out);
  sLoneKernel<<<1, N>>>(in, (float *)out);
  sLoneIndexedKernel<<<1, N>>>(in, (float *)out);
  gPair8Kernel<<<1, N>>>(in8, out8);
  sPair8Kernel<<<1, N>>>(in8, out8);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_struct_counts", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
