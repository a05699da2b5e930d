// A null pointer passed to a kernel as nvcc accepts it: NULL (g++'s NULL is an integer, and the
// launcher must not turn it into a `long` argument that no pointer parameter takes) and a
// literal 0, the null pointer of older code (forwarded as an `int`, it was a g++ error: "invalid
// conversion from 'int' to 'unsigned int*'"). A literal 0 stays 0 for an integer parameter, and
// builds a parameter of class type as nvcc builds it (from an integer, or from a pointer); a
// comment beside it, a kernel declared before it is defined, a launch in a #define over two
// lines, and a 0 inside a call among the arguments (left as it is) are as nvcc takes them.
// emu-test: expect pass
#include <stddef.h>

#include <algorithm>

#include "emu_test.h"

__global__ void optionalKernel(const int *in, int *out, int fallback);

struct Scale {
  int k;
  __host__ __device__ Scale(int v) : k(v + 3) {}
};

struct View {  // built from a pointer: a literal 0 is its null
  const int *p;
  __host__ __device__ View(const int *q) : p(q) {}
};

struct Tracked {  // a destructor of its own: the launcher copies it bitwise, once
  int v;
  __host__ __device__ Tracked(int x) : v(x) {}
  __host__ __device__ ~Tracked() {}
};

__global__ void scaledKernel(const int *in, int *out, Scale s, long offset) {
  out[threadIdx.x] = (in ? in[threadIdx.x] * s.k : s.k) + (int)offset;
}

__global__ void viewKernel(View in, int *out, Tracked t, const int *more) {
  out[threadIdx.x] = (in.p ? in.p[threadIdx.x] : 0) + t.v + (more ? 100 : 0);
}

template <class T>
__global__ void fillKernel(T *out, const T *in, T value) {
  out[threadIdx.x] = in ? in[threadIdx.x] : value;
}

#define LAUNCH_OPTIONAL(out) \
  optionalKernel<<<1, 32>>>(0, \
                            out, 0)

static int check(const char *what, int *d, int value) {
  int h[32], want[32];
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) want[i] = value;
  return same(what, want, h, 32);
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  optionalKernel<<<1, 32>>>(NULL, d, 7);  // no input: every element 7
  optionalKernel<<<1, 32>>>(d, d, 0);     // then 8
  if (!check("NULL for a pointer", d, 8)) return 1;

  optionalKernel<<<1, 32>>>(0, d, 0 /* no fallback */);  // a literal 0 for the pointer and the int
  if (!check("a literal 0 for a pointer and an int", d, 0)) return 1;
  scaledKernel<<<1, 32>>>(0, d, 0, 0L);  // Scale(0): every element 3
  if (!check("a literal 0 building a class, 0L for a long", d, 3)) return 1;
  scaledKernel<<<1, 32>>>(d, d, 0, 0x0);  // 3 * 3
  if (!check("0x0 for a long", d, 9)) return 1;
  scaledKernel<<<1, 32>>>(0, d, std::max(0, 2), 4);  // a 0 inside a call stays an int: Scale(2) + 4
  if (!check("a 0 inside a call", d, 9)) return 1;
  fillKernel<int><<<1, 32>>>(d, 0, 0);  // no input: every element 0
  if (!check("a literal 0 to a template's instance", d, 0)) return 1;
  viewKernel<<<1, 32>>>(0, d, 5, 0);  // a View of nothing, a Tracked(5), no more: 5
  if (!check("a class built from a null pointer, beside one with a destructor", d, 5)) return 1;
  LAUNCH_OPTIONAL(d);
  if (!check("a launch in a #define", d, 0)) return 1;
  CK(cudaFree(d));
  printf("ok\n");
  return 0;
}

__global__ void optionalKernel(const int *in, int *out, int fallback) {
  out[threadIdx.x] = in ? in[threadIdx.x] + 1 : fallback;
}
