// What the emu does not emulate fails when compiling, and the message names the feature:
// inline PTX, texture fetches, CUDA graphs, cluster groups. (nvcc builds all of this.)
// emu-test: expect compile-error
// emu-test: stderr inline PTX assembly (asm)
// emu-test: stderr tex1Dfetch: texture fetches are not supported by the ScanLab CPU emulator
// emu-test: stderr CUDA graphs
// emu-test: stderr thread block clusters are not supported
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ unsigned laneId() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

__global__ void fetchKernel(cudaTextureObject_t tex, float *out) {
  out[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x) + laneId();
  cg::this_cluster();
}

int main() {
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  return 0;
}
