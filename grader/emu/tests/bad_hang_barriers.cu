// A block that waits for a flag no one sets, all its threads polling it between barriers: it
// stores nothing, but completes a barrier again and again, and each completion is a little of
// the emulator's own work (the guards, the probes' epoch). Such work counts as progress for the
// hang detector only when it lasts (log_heavy_epoch.cu), so this hang is still named. What its
// warps are doing when it is named depends on the moment (at the barrier, or just past it with
// no access made yet): the test holds the lines that do not.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_HANG_S=1
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: timeout 20
// emu-test: rc 124
// emu-test: stderr emu: hang: kernel waitKernel<<<(2,1,1), (128,1,1), 0>>> launched at bad_hang_barriers.cu:33 cannot end: for 1 s no block has started or finished and no thread has stored anything
// emu-test: stderr emu: hang: block (1,0,0):
// emu-test: stderr the process ends here
#include <cstdio>

__global__ void waitKernel(volatile int *flags, int *out) {
  const int b = blockIdx.x;
  if (b > 0)
    while (!flags[b - 1]) __syncthreads(); /* block 0 never sets its flag */
  out[b * blockDim.x + threadIdx.x] = b;
}

int main() {
  int *flags, *out;
  cudaMalloc(&flags, 2 * sizeof(int));
  cudaMalloc(&out, 256 * sizeof(int));
  cudaMemset(flags, 0, 2 * sizeof(int));
  printf("before the launch\n");
  fflush(stdout);
  waitKernel<<<2, 128>>>(flags, out);
  cudaDeviceSynchronize();
  printf("not reached\n");
  return 0;
}
