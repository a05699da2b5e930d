// printf in kernels reaches stdout; under the forward schedule threads print in order.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: stdout block 0 thread 0 of 4
// emu-test: stdout block 1 thread 3 of 4
#include <cstdio>

__global__ void helloKernel() { printf("block %d thread %d of %d\n", blockIdx.x, threadIdx.x, blockDim.x); }

int main() {
  helloKernel<<<2, 4>>>();
  cudaDeviceSynchronize();
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
