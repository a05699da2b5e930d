// cudaMemcpy past the end of a device allocation, and cudaFree of a host pointer, return
// cudaErrorInvalidValue with a diagnostic.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr cudaMemcpy of 4096 bytes: the destination range of 4096 bytes at offset 0 overruns its device allocation of 4000 bytes by 96 bytes (cudaErrorInvalidValue)
// emu-test: stderr cudaMemcpy of 16 bytes: the source
// emu-test: stderr is not device memory (not from cudaMalloc) (cudaErrorInvalidValue)
// emu-test: stdout overrun: cudaErrorInvalidValue
// emu-test: stdout free: cudaErrorInvalidValue
#include <cstdio>
#include <cstdlib>

int main() {
  char *d, h[4096] = {0};
  cudaMalloc(&d, 4000);
  printf("overrun: %s\n", cudaGetErrorName(cudaMemcpy(d, h, 4096, cudaMemcpyHostToDevice)));
  printf("wrong kind: %s\n", cudaGetErrorName(cudaMemcpy(h, h + 16, 16, cudaMemcpyDeviceToHost)));
  printf("free: %s\n", cudaGetErrorName(cudaFree(h)));
  return 1;
}
