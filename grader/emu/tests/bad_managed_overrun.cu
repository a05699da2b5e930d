// Managed memory is the host's too, and it is fenced the same way: host code that writes one
// int past the end of a 1001-int managed allocation damages its slack, which
// cudaDeviceSynchronize finds; the process fails.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: cudaDeviceSynchronize: host code wrote past the end of a managed allocation of 4004 bytes (first damaged byte at byte offset 0 past its end) (cudaErrorIllegalAddress)
// emu-test: stdout sync: cudaErrorIllegalAddress
#include <cstdio>

int main() {
  int *m;
  cudaMallocManaged(&m, 1001 * sizeof(int));
  for (int i = 0; i <= 1001; i++) m[i] = i; /* one too many */
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
