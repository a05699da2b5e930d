// clock() and clock64() in device code read the CUDA thread's own counter: a kernel that waits
// for some cycles (a common way to make work or to show streams overlapping) takes as long as
// its loop, not that long in each of its threads in turn (512 threads of 20 ms each would take
// 10 s with a wall clock; the timeout is 5 s). Each thread's counter only moves forward.
// emu-test: expect pass
// emu-test: timeout 5
#include <ctime>

#include "emu_test.h"

__global__ void waitKernel(long long *out, clock_t cycles) {
  clock_t start = clock(), now = start;
  while (now - start < cycles) now = clock();
  long long a = clock64(), b = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = (now - start >= cycles) && b > a ? 1 : 0;
}

int main() {
  long long *out;
  CK(cudaMallocManaged(&out, 512 * sizeof(long long)));
  waitKernel<<<2, 256>>>(out, 20000000);  // 20 ms at 1 GHz
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < 512; i++)
    if (out[i] != 1) {
      printf("thread %d: its clock did not advance as it waited\n", i);
      return 1;
    }
  clock_t host = clock();
  return host >= 0 ? 0 : 1;
}
