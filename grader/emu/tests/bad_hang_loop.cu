// A loop that never ends and waits for nobody: each warp spins on a value it read once with a
// plain load (never set, and nothing could make the loop read it again). The emu names the
// hang as in bad_hang.cu, and says it is a loop whose condition never changes, not a wait for
// another block (a look-back, a flag), which is what bad_hang.cu's volatile polling gets.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_HANG_S=1
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: timeout 20
// emu-test: rc 124
// emu-test: stderr cannot end: for 1 s no block has started or finished and no thread has stored anything
// emu-test: stderr emu: hang: a loop that never ends (nothing it reads can change: no store, no volatile or atomic read in the loop) spins so; the process ends here
#include <cstdio>

__global__ void loopKernel(const int *stop, int *out) {
  const int limit = stop[0]; /* 0, and never read again */
  int k = 0;
  while (k <= limit) __syncwarp(); /* k never changes */
  out[threadIdx.x] = k;
}

int main() {
  int *stop, *out;
  cudaMalloc(&stop, sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMemset(stop, 0, sizeof(int));
  loopKernel<<<2, 64>>>(stop, out);
  cudaDeviceSynchronize();
  printf("not reached\n");
  return 0;
}
