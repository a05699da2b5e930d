// The memory probes keep at most 2^22 accesses per thread between two barriers. A thread that
// makes more (here thread 0 reads 5 million words in one stretch) has its later accesses left
// out of the counters and of the race check: the launch still runs and computes, and the emu
// says so on stderr once, naming the kernel. (Before, the counters came out low in silence.)
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward
// emu-test: stderr emu: kernel longReadKernel: a thread made more than 4194304 memory accesses between two barriers
#include "emu_test.h"

#define WORDS 1024
#define READS 5000000

__global__ void longReadKernel(const int *in, long long *out) {
  if (threadIdx.x != 0) return;
  long long sum = 0;
  for (int k = 0; k < READS; k++) sum += in[k % WORDS];
  *out = sum;
}

int main() {
  int *in;
  long long *out, got = 0;
  CK(cudaMalloc(&in, WORDS * sizeof(int)));
  CK(cudaMalloc(&out, sizeof(long long)));
  CK(cudaMemset(in, 0, WORDS * sizeof(int)));
  longReadKernel<<<1, 32>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  if (got != 0) {
    printf("sum %lld, expected 0\n", got);
    return 1;
  }
  printf("ok\n");
  return 0;
}
