// Block 0 spins on a flag nobody sets: the watchdog ends the process.
// emu-test: expect fail
// emu-test: env SCANLAB_EMU_WATCHDOG_S=1
// emu-test: rc 124
// emu-test: stderr emu: watchdog: kernel spinKernel<<<(1,1,1), (32,1,1), 0>>> launched at bad_watchdog.cu:18 did not finish within 1 s (SCANLAB_EMU_WATCHDOG_S); blocks still running: (0,0,0)
// emu-test: stdout before the launch
#include <cstdio>

__global__ void spinKernel(volatile int *flag) {
  while (*flag == 0) __nanosleep(1000);
}

int main() {
  int *d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  printf("before the launch\n");
  spinKernel<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  printf("not reached\n");
  return 0;
}
