// Lane 0 of warp 0 waits at __syncwarp for lanes that wait at __syncthreads: nobody can run.
// emu-test: expect fail
// emu-test: stderr deadlock in block (0,0,0): no thread can proceed (1 at __syncwarp bad_deadlock.cu:10, 63 at __syncthreads bad_deadlock.cu:12)
// emu-test: stderr __syncwarp at bad_deadlock.cu:10 in block (0,0,0): lane 0 of warp 0 waits for lane 1, which waits at __syncthreads (bad_deadlock.cu:12)
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void deadlockKernel(int *p) {
  if (threadIdx.x == 0) {
    __syncwarp();
  } else {
    __syncthreads();
  }
  p[threadIdx.x] = 1;
}

int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  deadlockKernel<<<1, 64>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
