// Host side of the reduction: calls the explicitly instantiated reduce<T>() of
// reduction_kernel.cu for int, float and double, and checks each sum against the host's.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helper_cuda_lite.h"
#include "reduction.h"

template <class T>
T hostSum(const T *data, int n) {
  T sum = data[0], c = (T)0.0;  // Kahan summation for floating types
  for (int i = 1; i < n; i++) {
    T y = data[i] - c;
    T t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

template <class T>
bool runTest(const char *type, int n, int threads, int whichKernel, double tolerance) {
  T *h = (T *)malloc(n * sizeof(T));
  for (int i = 0; i < n; i++) h[i] = (T)(rand() & 0xFF) / ((T)1 + (sizeof(T) == sizeof(int) ? 0 : 1));
  int factor = whichKernel >= 4 ? 2 : 1;
  int blocks = (n + threads * factor - 1) / (threads * factor);
  T *d_in, *d_out;
  checkCudaErrors(cudaMalloc((void **)&d_in, n * sizeof(T)));
  checkCudaErrors(cudaMalloc((void **)&d_out, blocks * sizeof(T)));
  checkCudaErrors(cudaMemcpy(d_in, h, n * sizeof(T), cudaMemcpyHostToDevice));
  reduce<T>(n, threads, blocks, whichKernel, d_in, d_out);
  getLastCudaError("reduction kernel failed");
  // the blocks' partial sums are added on the host
  T *partial = (T *)malloc(blocks * sizeof(T));
  checkCudaErrors(cudaMemcpy(partial, d_out, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  T gpu = 0;
  for (int i = 0; i < blocks; i++) gpu += partial[i];
  T cpu = hostSum(h, n);
  bool ok = fabs((double)gpu - (double)cpu) <= tolerance * fabs((double)cpu);
  printf("reduce<%s> kernel %d, n=%d, threads=%d: GPU %.6f, CPU %.6f %s\n", type, whichKernel, n, threads, (double)gpu,
         (double)cpu, ok ? "ok" : "MISMATCH");
  free(h);
  free(partial);
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  return ok;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  bool ok = true;
  ok &= runTest<int>("int", 1 << 16, 256, 0, 0.0);
  ok &= runTest<int>("int", 100003, 128, 2, 0.0);
  ok &= runTest<int>("int", 1 << 17, 512, 4, 0.0);
  ok &= runTest<float>("float", 77777, 256, 4, 1e-5);
  ok &= runTest<double>("double", 65536 + 17, 64, 4, 1e-12);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
