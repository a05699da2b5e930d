// A null pointer passed to a kernel as nvcc accepts it: NULL (g++'s NULL is an integer, and the
// launcher must not turn it into a `long` argument that no pointer parameter takes) and a
// literal 0, the null pointer of older code (forwarded as an `int`, it was a g++ error: "invalid
// conversion from 'int' to 'unsigned int*'"). A literal 0 stays 0 for an integer parameter and
// builds a parameter of class type as nvcc builds it.
// emu-test: expect pass
#include <stddef.h>

#include "emu_test.h"

__global__ void optionalKernel(const int *in, int *out, int fallback) {
  out[threadIdx.x] = in ? in[threadIdx.x] + 1 : fallback;
}

struct Scale {
  int k;
  __host__ __device__ Scale(int v) : k(v + 3) {}
};

__global__ void scaledKernel(const int *in, int *out, Scale s, long offset) {
  out[threadIdx.x] = (in ? in[threadIdx.x] * s.k : s.k) + (int)offset;
}

template <class T>
__global__ void fillKernel(T *out, const T *in, T value) {
  out[threadIdx.x] = in ? in[threadIdx.x] : value;
}

int main() {
  int *d, h[32], want[32];
  CK(cudaMalloc(&d, sizeof h));
  optionalKernel<<<1, 32>>>(NULL, d, 7);  // no input: every element 7
  optionalKernel<<<1, 32>>>(d, d, 0);     // then 8
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) want[i] = 8;
  if (!same("optionalKernel with NULL", want, h, 32)) return 1;

  optionalKernel<<<1, 32>>>(0, d, 0);  // a literal 0 for the pointer and for the int: every element 0
  scaledKernel<<<1, 32>>>(0, d, 0, 0L);  // Scale(0): every element 3
  scaledKernel<<<1, 32>>>(d, d, 0, 0x0);  // then 9
  fillKernel<int><<<1, 32>>>(d, 0, 0);    // no input: every element 0
  fillKernel<int><<<1, 32>>>(d, d, 5);    // each element copied onto itself: still 0
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) want[i] = 0;
  if (!same("literal 0 arguments", want, h, 32)) return 1;
  scaledKernel<<<1, 32>>>(0, d, 0, 4);  // 3 + 4
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) want[i] = 7;
  if (!same("a literal 0 building a Scale", want, h, 32)) return 1;
  CK(cudaFree(d));
  printf("ok\n");
  return 0;
}
