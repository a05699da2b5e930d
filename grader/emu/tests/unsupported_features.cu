// What the emu does not emulate fails when compiling, and the message names the feature:
// inline PTX, layered textures, event nodes of CUDA graphs, cluster groups, tensor core
// fragments (mma.h), tiles larger than a warp and their block_tile_memory. (nvcc builds all of
// this.)
// emu-test: expect compile-error
// emu-test: stderr inline PTX assembly (asm)
// emu-test: stderr tex2DLayered: layered textures are not supported by the ScanLab CPU emulator
// emu-test: stderr event nodes of CUDA graphs
// emu-test: stderr thread block clusters are not supported
// emu-test: stderr mma.h: warp matrix (tensor core) operations (nvcuda::wmma) are not supported
// emu-test: stderr cg::block_tile_memory: thread block tiles larger than a warp
// emu-test: stderr the ScanLab CPU emulator (emu) supports tiles of 1, 2, 4, 8, 16 or 32 threads
#include <cooperative_groups.h>
#include <mma.h>

namespace cg = cooperative_groups;

__device__ unsigned laneId() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

__global__ void wideTileKernel(int *out) {
  __shared__ cg::block_tile_memory<256> memory;
  cg::thread_block block = cg::this_thread_block(memory);
  out[threadIdx.x] = cg::tiled_partition<64>(block).thread_rank();
}

__global__ void fetchKernel(cudaTextureObject_t tex, float *out) {
  out[threadIdx.x] = tex2DLayered<float>(tex, threadIdx.x, 0.5f, 0) + laneId();
  cg::this_cluster();
}

int main() {
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaGraphNode_t node;
  cudaEvent_t event;
  cudaEventCreate(&event);
  cudaGraphAddEventRecordNode(&node, graph, NULL, 0, event);
  return 0;
}
