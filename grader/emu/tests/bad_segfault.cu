// A kernel writes through a null pointer: the emulator names the kernel, block and thread,
// then the process dies of the signal, as a GPU context dies of an illegal address.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr segmentation fault in block (0,0,0), thread (0,0,0): invalid memory access
// emu-test: stderr kernel nullWriteKernel<<<(1,1,1), (32,1,1), 0>>> launched at bad_segfault.cu:13 failed
#include <cstdio>

__global__ void nullWriteKernel(int *p) { p[threadIdx.x] = 1; }

int main() {
  fflush(stdout);
  nullWriteKernel<<<1, 32>>>(nullptr);
  cudaDeviceSynchronize();
  return 0;
}
