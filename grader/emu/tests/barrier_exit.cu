// Threads that return before a __syncthreads the others wait at, in a program's own run (not
// SCANLAB_EMU_STRICT=1): a GPU counts exited threads as arrived and runs it (an H100 gave the
// right answer, and synccheck reports nothing), so the emu does the same and says so once for
// the barrier's line; the graded runs fail it (bad_barrier_exit.cu).
// emu-test: expect pass
// emu-test: stderr __syncthreads at barrier_exit.cu:14 in block (0,0,0): 200 of 256 threads arrived; 56 threads exited without reaching it
// emu-test: stderr as a GPU does, the barrier counts them as arrived (CUDA leaves this undefined
#include <cstdio>

__global__ void earlyExitKernel(int *p, int n) {
  __shared__ int s[256];
  if (threadIdx.x >= n) return;
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[n - 1 - threadIdx.x];
}

int main() {
  int h[256], *d;
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  earlyExitKernel<<<1, 256>>>(d, 200);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = e != cudaSuccess;
  for (int i = 0; i < 200; i++) bad += h[i] != 199 - i;
  for (int i = 200; i < 256; i++) bad += h[i] != i;
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
