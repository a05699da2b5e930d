// A spin only a later launch makes, run as loops: thread 0 waits for a flag that thread 64 of its
// block sets, with no barrier between (valid CUDA since Volta: the two are in different warps).
// The first launch, whose flag is already set, spins nowhere, so the kernel's later launches run
// as loops, one thread after another between barriers: thread 0 waits for ever for thread 64,
// which runs after it. The watchdog ends the process and says that the launch ran as loops and
// how to run it thread by thread (SCANLAB_EMU_LOOPS=0, with which it passes).
// emu-test: loops
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_WATCHDOG_S=2
// emu-test: rc 124
// emu-test: stdout first launch: 128
// emu-test: stderr did not finish within 2 s (SCANLAB_EMU_WATCHDOG_S); blocks still running: (0,0,0); the launch ran each block's threads as loops (the kernel's loops version, from its second launch on), where a thread that waits for a later thread of its block, with no barrier between, waits for ever (SCANLAB_EMU_LOOPS=0 runs every launch thread by thread)
#include <cstdio>

__global__ void handOff(volatile int *flag, int *out) {
  __shared__ int s[128];
  if (threadIdx.x == 64) *flag = 1;
  if (threadIdx.x == 0)
    while (*flag == 0) {
    }
  s[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 128; i++) sum += s[i];
    *out = sum;
  }
}

int main() {
  int *flag, *out, h = 0;
  cudaMalloc(&flag, sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemset(flag, 1, sizeof(int)); /* already set: no thread waits */
  handOff<<<1, 128>>>(flag, out);
  cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("first launch: %d\n", h);
  fflush(stdout);
  cudaMemset(flag, 0, sizeof(int));
  handOff<<<1, 128>>>(flag, out);
  cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("second launch: %d\n", h);
  return h == 128 ? 0 : 1;
}
