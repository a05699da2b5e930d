// cuda.h includes <stdint.h> in the toolkit, so a program that includes it and brings its own
// uint64_t of another type (unsigned long long, where <stdint.h> has unsigned long) does not
// build with nvcc; the emu's cuda.h did not include it, and the program built here.
// emu-test: expect compile-error
// emu-test: stderr conflicting declaration 'typedef long long unsigned int uint64_t'
#include <cuda.h>
typedef unsigned long long uint64_t;

__global__ void k(uint64_t *out) { out[threadIdx.x] = threadIdx.x; }

int main() {
  uint64_t *out;
  cudaMalloc(&out, 32 * sizeof(uint64_t));
  k<<<1, 32>>>(out);
  return cudaDeviceSynchronize() != cudaSuccess;
}
