// Naive (Hillis-Steele) scan over global memory: one launch per level, ping-pong buffers.
#include "naive.h"

#define blockSize 128

namespace StreamCompaction {
namespace Naive {
using StreamCompaction::Common::PerformanceTimer;
PerformanceTimer &timer() {
  static PerformanceTimer timer;
  return timer;
}

__global__ void kernNaiveScanStep(int n, int offset, int *odata, const int *idata) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  odata[k] = k >= offset ? idata[k - offset] + idata[k] : idata[k];
}

__global__ void kernShiftRight(int n, int *odata, const int *idata) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  odata[k] = k == 0 ? 0 : idata[k - 1];
}

void scan(int n, int *odata, const int *idata) {
  int *dev_a, *dev_b;
  cudaMalloc((void **)&dev_a, n * sizeof(int));
  checkCUDAError("cudaMalloc dev_a failed!");
  cudaMalloc((void **)&dev_b, n * sizeof(int));
  checkCUDAError("cudaMalloc dev_b failed!");
  cudaMemcpy(dev_a, idata, n * sizeof(int), cudaMemcpyHostToDevice);
  dim3 fullBlocksPerGrid((n + blockSize - 1) / blockSize);
  timer().startGpuTimer();
  for (int d = 1; d <= ilog2ceil(n); d++) {
    kernNaiveScanStep<<<fullBlocksPerGrid, blockSize>>>(n, 1 << (d - 1), dev_b, dev_a);
    checkCUDAError("kernNaiveScanStep failed!");
    std::swap(dev_a, dev_b);
  }
  kernShiftRight<<<fullBlocksPerGrid, blockSize>>>(n, dev_b, dev_a);
  timer().endGpuTimer();
  cudaMemcpy(odata, dev_b, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dev_a);
  cudaFree(dev_b);
}
}  // namespace Naive
}  // namespace StreamCompaction
