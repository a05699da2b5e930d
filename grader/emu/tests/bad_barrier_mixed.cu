// Two halves of a block wait at different __syncthreads calls: under SCANLAB_EMU_STRICT=1, as
// the grader runs, the launch fails (CUDA leaves it undefined; barrier_mixed.cu: a program's own
// run gets what a GPU does).
// emu-test: expect fail
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: stderr threads of block (0,0,0) wait at different barriers: 64 at __syncthreads (bad_barrier_mixed.cu:15; first: thread (0,0,0)), 64 at __syncthreads (bad_barrier_mixed.cu:18; first: thread (64,0,0))
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void splitBarrierKernel(int *p) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 64) {
    s[threadIdx.x] += 1;
    __syncthreads();
  } else {
    s[threadIdx.x] += 2;
    __syncthreads();
  }
  p[threadIdx.x] = s[127 - threadIdx.x];
}

int main() {
  int *d;
  cudaMalloc(&d, 128 * sizeof(int));
  splitBarrierKernel<<<1, 128>>>(d);
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  return 1;
}
