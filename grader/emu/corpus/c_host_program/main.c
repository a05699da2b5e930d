/* A host program in C11 (built with the C compiler) driving kernels through a C interface.
   It includes the runtime API's header as C code does. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

int main(void) {
  enum { N = 4096 };
  int *h = malloc(N * sizeof(int)), bad = 0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    printf("no device\n");
    return 1;
  }
  for (int i = 0; i < N; i++) h[i] = i - N / 2;
  if (gpu_abs_clamp(h, N, 1000) != 0) {
    printf("gpu_abs_clamp failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  for (int i = 0; i < N; i++) {
    int v = abs(i - N / 2), want = v > 1000 ? 1000 : v;
    if (h[i] != want) {
      if (!bad) printf("h[%d] = %d, expected %d\n", i, h[i], want);
      bad++;
    }
  }
  free(h);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
