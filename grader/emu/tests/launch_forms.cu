// Launches through expressions other than a kernel's name, and launches written inside macro
// bodies (one line, several lines with continuations, the kernel as a macro parameter): all
// ordinary CUDA that cu2cpp.py must rewrite. Line numbers stay where they were.
// emu-test: expect pass
#include "emu_test.h"

__global__ void addKernel(int *d, int v) { d[threadIdx.x] += v; }
__global__ void mulKernel(int *d, int v) { d[threadIdx.x] *= v; }

typedef void (*KernelFn)(int *, int);
struct Table {
  KernelFn fn[2];
  KernelFn first;
};
static KernelFn pick(int k) { return k ? mulKernel : addKernel; }

#define LAUNCH_ADD(d, v) addKernel<<<1, 32>>>(d, v)
#define LAUNCH_ANY(kernel, d, v)                 \
  do {                                           \
    kernel<<<1, 32 /* threads */>>>(             \
        d,                                       \
        v);                                      \
    CK(cudaGetLastError());                      \
  } while (0)

__global__ void lineKernel(int *line) { *line = __LINE__; }

int main() {
  int *d, h[32];
  KernelFn kernels[2] = {addKernel, mulKernel};
  Table t = {{addKernel, mulKernel}, addKernel};
  Table *pt = &t;
  KernelFn fp = mulKernel;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemset(d, 0, sizeof h));
  for (int k = 0; k < 2; k++) kernels[k]<<<1, 32>>>(d, 3);  // (0 + 3) * 3 = 9
  LAUNCH_ADD(d, 1);                                         // 10
  LAUNCH_ANY(mulKernel, d, 2);                              // 20
  LAUNCH_ANY(kernels[0], d, 1);                             // 21
  t.fn[1]<<<1, 32>>>(d, 2);                                 // 42
  pt->first<<<1, 32>>>(d, 1);                               // 43
  (*fp)<<<1, 32>>>(d, 2);                                   // 86
  if (d) pick(0)<<<1, 32>>>(d, 4);                          // 90
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++)
    if (h[i] != 90) {
      printf("element %d: expected 90, got %d\n", i, h[i]);
      return 1;
    }
  int *d_line, line = 0;
  CK(cudaMalloc(&d_line, sizeof(int)));
  lineKernel<<<1, 1>>>(d_line);
  CK(cudaMemcpy(&line, d_line, sizeof line, cudaMemcpyDeviceToHost));
  if (line != 26 || __LINE__ != 55) {
    printf("line numbers moved: kernel line %d (expected 26), here %d (expected 55)\n", line, __LINE__);
    return 1;
  }
  printf("ok\n");
  return 0;
}
