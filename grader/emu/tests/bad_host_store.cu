// A kernel handed the host's own memory (malloc'd, not pinned, registered or managed) stores into
// it. A GPU's kernel cannot reach that memory: an H200 (pageableMemoryAccess 0) fails the launch
// with cudaErrorIllegalAddress. With the probes (graded builds), the emu ends the program at the
// store, naming the thread and the line; without them a program's own run goes on as before.
// (A grader's self-test keeps the submission this stops: a host scan between two kernels that
// copied the input into malloc'd memory and out of it, graded 5/5 on the emu, 0/5 on the GPU.)
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward
// emu-test: stderr stores to the host's own memory
// emu-test: stderr the store is at bad_host_store
// emu-test: stderr :16; a kernel's memory is the device's
#include <cstdlib>
#include "emu_test.h"

__global__ void copyOut(const int *in, int *hostBuffer) { hostBuffer[threadIdx.x] = in[threadIdx.x]; }

int main() {
  int *in;
  CK(cudaMalloc(&in, 32 * sizeof(int)));
  CK(cudaMemset(in, 0, 32 * sizeof(int)));
  int *h = (int *)malloc(32 * sizeof(int));
  copyOut<<<1, 32>>>(in, h);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  free(h);
  return 0;
}
