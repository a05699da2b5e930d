// A C11 file using the runtime API (compiled with gcc -std=c11 -pedantic) linked with a .cu.
// emu-test: expect pass
// emu-test: native no it checks the emu's header from C (SCANLAB_EMU, the device's name)
// emu-test: schedules forward
// emu-test: extra c_api_helper.c
// emu-test: stdout c side: ScanLab CPU emulator
#include <cstdio>

extern "C" int c_side_checks(void);

__global__ void touchKernel(int *p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  int r = c_side_checks();
  if (r) {
    printf("C side check %d failed\n", r);
    return 1;
  }
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  touchKernel<<<1, 32>>>(d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
