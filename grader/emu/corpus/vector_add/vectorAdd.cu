// Vector addition in the style of the CUDA samples: the helper header's checks, device
// selection, events around the kernel, a check of every element against the host.
#include <stdio.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  const int numElements = 50000;
  size_t size = numElements * sizeof(float);
  float *h_A = (float *)malloc(size), *h_B = (float *)malloc(size), *h_C = (float *)malloc(size);
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = rand() / (float)RAND_MAX;
    h_B[i] = rand() / (float)RAND_MAX;
  }
  float *d_A = NULL, *d_B = NULL, *d_C = NULL;
  checkCudaErrors(cudaMalloc((void **)&d_A, size));
  checkCudaErrors(cudaMalloc((void **)&d_B, size));
  checkCudaErrors(cudaMalloc((void **)&d_C, size));
  checkCudaErrors(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  checkCudaErrors(cudaEventRecord(start, 0));
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  getLastCudaError("vectorAdd kernel failed");
  checkCudaErrors(cudaEventRecord(stop, 0));
  checkCudaErrors(cudaEventSynchronize(stop));
  float ms = 0;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
  checkCudaErrors(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int i = 0; i < numElements; ++i) {
    if (h_C[i] != h_A[i] + h_B[i]) {
      if (!bad) fprintf(stderr, "Result verification failed at element %d: %f != %f\n", i, h_C[i], h_A[i] + h_B[i]);
      bad++;
    }
  }
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  free(h_A);
  free(h_B);
  free(h_C);
  printf("%s (%d mismatches; kernel %s ms)\n", bad ? "FAILED" : "PASSED", bad, ms >= 0 ? "measured" : "?");
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
