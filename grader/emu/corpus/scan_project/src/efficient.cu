// Work-efficient (Blelloch) scan over global memory, padded to a power of two, and stream
// compaction built on it.
#include "efficient.h"

#define blockSize 128

namespace StreamCompaction {
namespace Efficient {
using StreamCompaction::Common::PerformanceTimer;
PerformanceTimer &timer() {
  static PerformanceTimer timer;
  return timer;
}

__global__ void kernUpSweep(int n, int stride, int *data) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int idx = (k + 1) * stride * 2 - 1;
  if (idx >= n) return;
  data[idx] += data[idx - stride];
}

__global__ void kernDownSweep(int n, int stride, int *data) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int idx = (k + 1) * stride * 2 - 1;
  if (idx >= n) return;
  int t = data[idx - stride];
  data[idx - stride] = data[idx];
  data[idx] += t;
}

// Exclusive scan of dev_data (length pow2, a power of two) in place.
static void scanDevice(int pow2, int *dev_data) {
  for (int stride = 1; stride < pow2; stride *= 2) {
    int threads = pow2 / (stride * 2);
    kernUpSweep<<<(threads + blockSize - 1) / blockSize, blockSize>>>(pow2, stride, dev_data);
    checkCUDAError("kernUpSweep failed!");
  }
  cudaMemset(dev_data + pow2 - 1, 0, sizeof(int));
  for (int stride = pow2 / 2; stride >= 1; stride /= 2) {
    int threads = pow2 / (stride * 2);
    kernDownSweep<<<(threads + blockSize - 1) / blockSize, blockSize>>>(pow2, stride, dev_data);
    checkCUDAError("kernDownSweep failed!");
  }
}

void scan(int n, int *odata, const int *idata) {
  int pow2 = 1 << ilog2ceil(n);
  int *dev_data;
  cudaMalloc((void **)&dev_data, pow2 * sizeof(int));
  cudaMemset(dev_data, 0, pow2 * sizeof(int));
  cudaMemcpy(dev_data, idata, n * sizeof(int), cudaMemcpyHostToDevice);
  timer().startGpuTimer();
  scanDevice(pow2, dev_data);
  timer().endGpuTimer();
  cudaMemcpy(odata, dev_data, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dev_data);
}

int compact(int n, int *odata, const int *idata) {
  int pow2 = 1 << ilog2ceil(n);
  int *dev_in, *dev_out, *dev_bools, *dev_indices;
  cudaMalloc((void **)&dev_in, n * sizeof(int));
  cudaMalloc((void **)&dev_out, n * sizeof(int));
  cudaMalloc((void **)&dev_bools, n * sizeof(int));
  cudaMalloc((void **)&dev_indices, pow2 * sizeof(int));
  checkCUDAError("cudaMalloc failed!");
  cudaMemcpy(dev_in, idata, n * sizeof(int), cudaMemcpyHostToDevice);
  dim3 grid((n + blockSize - 1) / blockSize);
  timer().startGpuTimer();
  StreamCompaction::Common::kernMapToBoolean<<<grid, blockSize>>>(n, dev_bools, dev_in);
  cudaMemset(dev_indices, 0, pow2 * sizeof(int));
  cudaMemcpy(dev_indices, dev_bools, n * sizeof(int), cudaMemcpyDeviceToDevice);
  scanDevice(pow2, dev_indices);
  StreamCompaction::Common::kernScatter<<<grid, blockSize>>>(n, dev_out, dev_in, dev_bools, dev_indices);
  timer().endGpuTimer();
  int last = 0, lastBool = 0;
  cudaMemcpy(&last, dev_indices + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&lastBool, dev_bools + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  int count = last + lastBool;
  cudaMemcpy(odata, dev_out, count * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dev_in);
  cudaFree(dev_out);
  cudaFree(dev_bools);
  cudaFree(dev_indices);
  return count;
}
}  // namespace Efficient
}  // namespace StreamCompaction
