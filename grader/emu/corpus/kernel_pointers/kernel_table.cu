// Kernels chosen at run time: a table of kernel pointers, a pointer picked from it, a kernel
// template instance taken by address, and the same kernels through cudaLaunchKernel with an
// argument array. The results are checked; with the emu's probes each profile line must name
// the kernel that ran, not the pointer.
#include <cstdio>
#include <cstdlib>

typedef void (*Kernel)(int *, int, int);

__global__ void addKernel(int *d, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += v;
}
__global__ void mulKernel(int *d, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= v;
}
template <int SHIFT>
__global__ void shiftKernel(int *d, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = (d[i] << SHIFT) + v;
}

struct Step {
  Kernel fn;
  int value;
  const char *name;
};

static int run(Kernel k, int *d, int n, int v) {
  k<<<(n + 63) / 64, 64>>>(d, n, v);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int main() {
  const int n = 300;
  int h[n], *d;
  for (int i = 0; i < n; i++) h[i] = i;
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  Kernel table[] = {addKernel, mulKernel, shiftKernel<2>};
  Step steps[] = {{addKernel, 5, "add"}, {mulKernel, 3, "mul"}, {shiftKernel<1>, 7, "shift"}};
  int errors = 0;
  for (int s = 0; s < 3; s++) {
    Kernel k = table[s];
    k<<<(n + 63) / 64, 64>>>(d, n, s + 1);  // add 1, mul 2, shift by 2 then add 3
  }
  for (const Step &st : steps) errors += run(st.fn, d, n, st.value);
  int vv = 10, nn = n;
  void *args[] = {&d, &nn, &vv};
  if (cudaLaunchKernel((const void *)addKernel, dim3((n + 127) / 128), dim3(128), args, 0, 0) != cudaSuccess) errors++;
  if (cudaLaunchKernel(shiftKernel<0>, dim3((n + 127) / 128), dim3(128), args, 0, 0) != cudaSuccess) errors++;
  cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, mulKernel) != cudaSuccess || attr.maxThreadsPerBlock < 64) errors++;
  int out[n];
  cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n && !errors; i++) {
    int x = ((i + 1) * 2 << 2) + 3;
    x = (((x + 5) * 3) << 1) + 7;
    x = ((x + 10) << 0) + 10;
    if (out[i] != x) {
      printf("element %d: %d, expected %d\n", i, out[i], x);
      errors++;
    }
  }
  cudaFree(d);
  printf("%s\n", errors ? "FAILED" : "PASSED");
  return errors ? 1 : 0;
}
