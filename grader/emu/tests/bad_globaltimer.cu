// __globaltimer() is not a function of CUDA's (nvcc 13.0: identifier "__globaltimer" is
// undefined; the global timer is a PTX register, read with inline PTX): a program that calls it
// does not build with nvcc, and so not on the emu either, which once declared it.
// emu-test: expect compile-error
// emu-test: stderr __globaltimer
#include <cstdio>

__global__ void stampKernel(unsigned long long *out) { *out = __globaltimer(); }

int main() {
  unsigned long long *d;
  cudaMalloc(&d, sizeof *d);
  stampKernel<<<1, 1>>>(d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
