// A failing kernel in a program that checks nothing and returns 0: the process still fails.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: rc 1
// emu-test: stderr 31 of 32 threads arrived; 1 threads exited without reaching it (first: thread (0,0,0))
__global__ void skipBarrierKernel() {
  if (threadIdx.x == 0) return;
  __syncthreads();
}

int main() {
  skipBarrierKernel<<<1, 32>>>();
  return 0;
}
