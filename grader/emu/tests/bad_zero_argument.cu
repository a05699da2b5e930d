// A kernel that stores through a pointer argument launched with a literal `0`: an H200 fails the
// launch (cudaErrorIllegalAddress). The emu ran it without a word: the argument, of a type that
// carries no value (the rewrite's stand-in for a literal 0), reached the inlined kernel as a constant null, and GCC
// dropped the store as undefined behaviour. Each argument that carries no value now goes in as
// its parameter's value, which the kernel reads as a GPU's does.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr emu: segmentation fault in block (0,0,0), thread (0,0,0): invalid memory access at address 0x4
// emu-test: stderr emu: kernel storeKernel<<<(1,1,1), (1,1,1), 0>>> launched at bad_zero_argument.cu:18 failed
#include <cstdio>

__global__ void storeKernel(int *out, int v) { out[1] = v; }

int main() {
  int *d;
  cudaMalloc(&d, 2 * sizeof(int));
  storeKernel<<<1, 1>>>(d, 1);
  storeKernel<<<1, 1>>>(0, 2);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("after the launch with 0 for a pointer: %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
