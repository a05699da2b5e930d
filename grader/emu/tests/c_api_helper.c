/* Plain C11 use of the emulator's cuda_runtime.h, as the kit's harness does. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#if !SCANLAB_EMU
#error "SCANLAB_EMU should be 1"
#endif

int c_side_checks(void) {
  int *d = NULL, h[64], back[64];
  size_t free_b = 0, total_b = 0;
  cudaDeviceProp prop;
  cudaEvent_t a, b;
  float ms = -1.0f;
  int i;
  for (i = 0; i < 64; i++) h[i] = i * 3;
  if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess) return 1;
  if (cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  if (cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost) != cudaSuccess) return 3;
  if (memcmp(h, back, sizeof h) != 0) return 4;
  if (cudaMemset(d, 0, sizeof h) != cudaSuccess) return 5;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 6;
  if (strcmp(prop.name, "ScanLab CPU emulator") != 0 || prop.warpSize != 32 || prop.major != 9) return 7;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || free_b > total_b || total_b == 0) return 8;
  if (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess) return 9;
  cudaEventRecord(a, 0);
  cudaEventRecord(b, 0);
  cudaEventSynchronize(b);
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess || ms < 0.0f) return 10;
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (cudaFree(d) != cudaSuccess) return 11;
  printf("c side: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  return 0;
}
