// Lanes that skip an access in some iterations of a loop: a warp runs each iteration's access
// together, with the lanes that make it in that iteration, so the counting must group the
// lanes' accesses by iteration (the loop context cu2cpp.py gives every loop), not by how
// many times each lane made the access. In each kernel lanes 0-15 of a warp take the even
// iterations and lanes 16-31 the odd ones; grouped by count, the two halves would share one
// access. Loops of a count given at run time (not unrolled), as for, while, do-while and
// nested loops. Each kernel runs once (64 threads); the emu's counts (SCANLAB_EMU_PROFILE)
// must equal the table, which holds what Nsight Compute measured for these kernels on an
// H100. Built with nvcc, the same program is what ran under ncu.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_loops.%p.jsonl
#include "emu_test.h"

#define N 64

/* row i of in and out, lane-half by lane-half: 16 lanes, 64 bytes, 2 sectors per access */
__global__ void gForKernel(const int *in, int *out, int n) {
  const unsigned t = threadIdx.x;
  for (int i = 0; i < n; i++)
    if ((int)(t >> 4 & 1) == (i & 1)) out[i * N + t] = in[i * N + t];
}
/* row i of the warp's rows of s, at banks 0-15: one wavefront per access, no conflict */
__global__ void sWhileKernel(int *out, int n) {
  __shared__ int s[2 * 4 * 32];
  const unsigned t = threadIdx.x, lane = t % 32;
  int *rows = s + t / 32 * 4 * 32;
  int i = 0;
  while (i < n) {
    if ((int)(lane >> 4 & 1) == (i & 1)) rows[i * 32 + (lane & 15)] = (int)t + i;
    i++;
  }
  __syncwarp();
  out[t] = rows[lane] + rows[lane + 32 * (n - 1)];
}
/* the same at banks 16-31, loaded and stored (+=) */
__global__ void sDoKernel(int *out, int n) {
  __shared__ int s[2 * 4 * 32];
  const unsigned t = threadIdx.x, lane = t % 32;
  int *rows = s + t / 32 * 4 * 32;
  for (int k = 0; k < 4 * 32; k += 32) rows[k + lane] = 0;
  __syncwarp();
  int i = 0;
  do {
    if ((int)(lane >> 4 & 1) == (i & 1)) rows[i * 32 + 16 + (lane & 15)] += (int)t;
  } while (++i < n);
  __syncwarp();
  out[t] = rows[lane] + rows[lane + 32 * (n - 1)];
}
/* the inner loop's iterations under each outer one */
__global__ void gNestedKernel(const int *in, int *out, int n) {
  const unsigned t = threadIdx.x;
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < n; i++) {
      if ((int)(t >> 4 & 1) != (i & 1)) continue;
      out[(o * n + i) * N + t] = in[i * N + t] + o;
    }
}
/* per kernel: global ld requests, sectors; st requests, sectors; shared ld wavefronts,
   conflicts; st wavefronts, conflicts */
static const ProfileExpect EXPECT[] = {
    {"gForKernel", {8, 16, 8, 16, 0, 0, 0, 0}},
    {"sWhileKernel", {0, 0, 2, 8, 4, 0, 8, 0}},
    {"sDoKernel", {0, 0, 2, 8, 12, 0, 16, 0}},
    {"gNestedKernel", {16, 32, 16, 32, 0, 0, 0, 0}},
};

int main() {
  int *in, *out;
  CK(cudaMalloc(&in, 16 * N * sizeof(int)));
  CK(cudaMalloc(&out, 16 * N * sizeof(int)));
  CK(cudaMemset(in, 1, 16 * N * sizeof(int)));
  int n = 4;
  gForKernel<<<1, N>>>(in, out, n);
  sWhileKernel<<<1, N>>>(out, n);
  sDoKernel<<<1, N>>>(out, n);
  gNestedKernel<<<1, N>>>(in, out, n);
  CK(cudaDeviceSynchronize());
  if (!check_profile("probe_loops", EXPECT, (int)(sizeof EXPECT / sizeof EXPECT[0]))) return 1;
  printf("ok\n");
  return 0;
}
