// A look-back that never publishes: each block but the first waits for the block before it to
// set its flag, and no block sets one. Built with the memory probes, the emu names the hang
// once nothing has started, finished or been stored for SCANLAB_EMU_HANG_S seconds (1 here),
// long before the watchdog's limit: which blocks run, the warp that spins and what it read
// last (a volatile load of the flags), and the warps that wait at the barrier.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_HANG_S=1
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: timeout 20
// emu-test: rc 124
// emu-test: stderr emu: hang: kernel chainKernel<<<(8,1,1), (128,1,1), 0>>> launched at bad_hang.cu:39 cannot end: for 1 s no block has started or finished and no thread has stored anything (SCANLAB_EMU_HANG_S sets the time)
// emu-test: stderr emu: hang: block (1,0,0): warp 0 spins (32 of its threads run without end): the last access of thread
// emu-test: stderr is a volatile load of global memory at byte offset 0 of a device allocation of 32 bytes
// emu-test: stderr warps 1-3 wait at __syncthreads (bad_hang.cu:28)
// emu-test: stdout before the launch
#include <cstdio>

__global__ void chainKernel(volatile int *flags, int *out) {
  __shared__ int ready;
  const int b = blockIdx.x;
  if (threadIdx.x < 32 && b > 0) {
    int seen = 0;
    while (!__all_sync(0xffffffffu, seen)) seen = flags[b - 1] != 0; /* flags[b] is never set */
    if (threadIdx.x == 0) ready = 1;
  }
  __syncthreads();
  out[b * 128 + threadIdx.x] = ready;
}

int main() {
  int *flags, *out;
  cudaMalloc(&flags, 8 * sizeof(int));
  cudaMalloc(&out, 8 * 128 * sizeof(int));
  cudaMemset(flags, 0, 8 * sizeof(int));
  printf("before the launch\n");
  fflush(stdout);
  chainKernel<<<8, 128>>>(flags, out);
  cudaDeviceSynchronize();
  printf("not reached\n");
  return 0;
}
