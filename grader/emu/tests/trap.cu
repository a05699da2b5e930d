// __trap() ends the launch: the kernel's later stores never happen, the synchronization after it
// reports the failure, and the error is sticky (the next call returns it too). The emu did not
// declare __trap, so a kernel that called it did not compile.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stdout after the trap: cudaErrorLaunchFailure, then cudaErrorLaunchFailure; the store after it: not made
#include <cstdio>

__global__ void trapKernel(int *out, int bad) {
  if (threadIdx.x == bad) {
    __trap();
    *out = 1; /* never reached */
  }
}

int main() {
  int *d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  trapKernel<<<1, 32>>>(d, 7);
  const cudaError_t first = cudaDeviceSynchronize();
  int h = -1;
  const cudaError_t second = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("after the trap: %s, then %s; the store after it: %s\n", cudaGetErrorName(first), cudaGetErrorName(second),
         h == 1 ? "made" : "not made");
  return first != cudaSuccess && second != cudaSuccess ? 0 : 1;
}
