// Block 0 fails at a barrier; block 1 spins on a flag block 0 would have set. The failure
// stops the spinning block at its next switch point, so the launch fails at once instead of
// waiting for the watchdog.
// emu-test: expect fail
// emu-test: env SCANLAB_EMU_WATCHDOG_S=30
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: timeout 10
// emu-test: rc 1
// emu-test: stderr 16 of 32 threads arrived; 16 threads exited without reaching it
// emu-test: stdout cudaErrorLaunchFailure
#include <cstdio>

__global__ void neighborKernel(volatile int *flag) {
  if (blockIdx.x == 0) {
    if (threadIdx.x >= 16) return;
    __syncthreads();
    *flag = 1;
  } else {
    while (*flag == 0) __nanosleep(100);
  }
}

int main() {
  int *d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  neighborKernel<<<2, 32>>>(d);
  printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 1;
}
