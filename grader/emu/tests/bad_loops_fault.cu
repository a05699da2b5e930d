// A kernel run as loops (rewritten by loops.py, its second launch) writes far past the end of its
// device allocation in thread (77,0,0), in a stretch between barriers that asks nothing of the
// running thread (loops.py runs it without setting the thread's records, which would cost a
// third of a scan's time): the emulator names the kernel and the block, says it cannot name the
// thread, and how to have it named (on fibers, bad_segfault.cu, it names it).
// emu-test: loops
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel mirrorWrite: its later launches run as loops
// emu-test: stderr segmentation fault in block (1,0,0), a thread the kernel's loops version does not track (SCANLAB_EMU_LOOPS=0 names it): invalid memory access
#include <cstdio>

__global__ void mirrorWrite(int *d, int bad) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  const int v = s[127 - threadIdx.x] + 128 * blockIdx.x;
  __syncthreads();
  d[v + (v == bad) * (1 << 28)] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 256 * sizeof(int));
  mirrorWrite<<<2, 128>>>(d, -1);
  cudaDeviceSynchronize();
  fflush(stderr);
  mirrorWrite<<<2, 128>>>(d, 128 + 50);
  cudaDeviceSynchronize();
  return 0;
}
