// A scan of any length with warp shuffles, in the style of the CUDA samples' shfl_scan: each
// block scans its elements (shuffles within warps, then the warps' sums), a second launch
// scans the blocks' sums, and a third adds them. Inclusive, checked against the host.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  int warp_id = threadIdx.x / warpSize;
  int value = data[id];
#pragma unroll
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);
    if (lane_id >= i) value += n;
  }
  if (threadIdx.x % warpSize == warpSize - 1) sums[warp_id] = value;
  __syncthreads();
  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];
    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
      if (lane_id >= i) warp_sum += n;
    }
    sums[lane_id] = warp_sum;
  }
  __syncthreads();
  int blockSum = 0;
  if (warp_id > 0) blockSum = sums[warp_id - 1];
  value += blockSum;
  data[id] = value;
  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) partial_sums[blockIdx.x] = value;
}

__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  if (id > len) return;
  if (threadIdx.x == 0) buf = partial_sums[blockIdx.x];
  __syncthreads();
  data[id] += buf;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  int n_elements = 65536, blockSize = 256;
  int gridSize = n_elements / blockSize;
  int nWarps = blockSize / 32, shmem_sz = nWarps * sizeof(int);
  int n_partialSums = n_elements / blockSize, partial_sz = n_partialSums * sizeof(int);
  int *h_data, *h_result, *d_data, *d_partial_sums;
  checkCudaErrors(cudaMallocHost(reinterpret_cast<void **>(&h_data), sizeof(int) * n_elements));
  checkCudaErrors(cudaMallocHost(reinterpret_cast<void **>(&h_result), sizeof(int) * n_elements));
  for (int i = 0; i < n_elements; i++) h_data[i] = rand() % 10;
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_data), sizeof(int) * n_elements));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_partial_sums), partial_sz));
  checkCudaErrors(cudaMemset(d_partial_sums, 0, partial_sz));
  checkCudaErrors(cudaMemcpy(d_data, h_data, sizeof(int) * n_elements, cudaMemcpyHostToDevice));
  shfl_scan_test<<<gridSize, blockSize, shmem_sz>>>(d_data, 32, d_partial_sums);
  shfl_scan_test<<<1, n_partialSums, n_partialSums / 32 * sizeof(int)>>>(d_partial_sums, 32);
  uniform_add<<<gridSize - 1, blockSize>>>(d_data + blockSize, d_partial_sums, n_elements);
  getLastCudaError("scan kernels failed");
  checkCudaErrors(cudaMemcpy(h_result, d_data, sizeof(int) * n_elements, cudaMemcpyDeviceToHost));
  int acc = 0, bad = 0;
  for (int i = 0; i < n_elements; i++) {
    acc += h_data[i];
    if (h_result[i] != acc) {
      if (!bad) printf("scan[%d] = %d, expected %d\n", i, h_result[i], acc);
      bad++;
    }
  }
  checkCudaErrors(cudaFreeHost(h_data));
  checkCudaErrors(cudaFreeHost(h_result));
  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_partial_sums));
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
