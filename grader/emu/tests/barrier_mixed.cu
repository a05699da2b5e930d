// Two halves of a block wait at different __syncthreads calls, in a program's own run (not
// SCANLAB_EMU_STRICT=1): a GPU's barrier counts the threads that arrive at any of its calls
// (an H200 ran it, every thread seeing the other half's stores), so the emu does the same and
// says so once for the pair of lines; the graded runs fail it (bad_barrier_mixed.cu).
// emu-test: expect pass
// emu-test: stderr threads of block (0,0,0) wait at different barriers: 64 at __syncthreads (barrier_mixed.cu:16
// emu-test: stderr as a GPU does, they pass it together (CUDA leaves this undefined
// emu-test: stdout no error; p[0] 129, p[63] 66, p[64] 64, p[127] 1
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
  int *d, h[128];
  cudaMalloc(&d, sizeof h);
  splitBarrierKernel<<<1, 128>>>(d);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s; p[0] %d, p[63] %d, p[64] %d, p[127] %d\n", e == cudaSuccess ? "no error" : cudaGetErrorName(e), h[0],
         h[63], h[64], h[127]);
  return e == cudaSuccess ? 0 : 1;
}
