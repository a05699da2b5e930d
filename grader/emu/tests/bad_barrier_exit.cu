// Threads that return before a __syncthreads the others wait at: under SCANLAB_EMU_STRICT=1,
// as the grader runs, the launch fails (CUDA leaves it undefined; barrier_exit.cu: a
// program's own run gets what a GPU does).
// emu-test: expect fail
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: stderr __syncthreads at bad_barrier_exit.cu:15 in block (0,0,0): 200 of 256 threads arrived; 56 threads exited without reaching it (first: thread (200,0,0))
// emu-test: stderr kernel earlyExitKernel<<<(1,1,1), (256,1,1), 0>>> launched at bad_barrier_exit.cu:22 failed
// emu-test: stdout cudaDeviceSynchronize: cudaErrorLaunchFailure
#include <cstdio>

__global__ void earlyExitKernel(int *p, int n) {
  __shared__ int s[256];
  if (threadIdx.x >= n) return;
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[255 - threadIdx.x];
}

int main() {
  int *d;
  cudaMalloc(&d, 256 * sizeof(int));
  earlyExitKernel<<<1, 256>>>(d, 200);
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  printf("cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0; /* the emulator still makes the process fail */
}
