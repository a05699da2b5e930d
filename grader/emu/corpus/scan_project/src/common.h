// Shared declarations of the stream compaction project: error checks, a timer on CUDA events,
// the map and scatter kernels.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define FILENAME (strrchr(__FILE__, '/') ? strrchr(__FILE__, '/') + 1 : __FILE__)
#define checkCUDAError(msg) checkCUDAErrorFn(msg, FILENAME, __LINE__)

void checkCUDAErrorFn(const char *msg, const char *file = NULL, int line = -1);

inline int ilog2(int x) {
  int lg = 0;
  while (x >>= 1) ++lg;
  return lg;
}
inline int ilog2ceil(int x) { return x == 1 ? 0 : ilog2(x - 1) + 1; }

namespace StreamCompaction {
namespace Common {
__global__ void kernMapToBoolean(int n, int *bools, const int *idata);
__global__ void kernScatter(int n, int *odata, const int *idata, const int *bools, const int *indices);

// Times host code with std::chrono and device code with CUDA events.
class PerformanceTimer {
 public:
  PerformanceTimer() {
    cudaEventCreate(&event_start);
    cudaEventCreate(&event_end);
  }
  ~PerformanceTimer() {
    cudaEventDestroy(event_start);
    cudaEventDestroy(event_end);
  }
  void startCpuTimer() {
    if (cpu_timer_started) throw std::runtime_error("CPU timer already started");
    cpu_timer_started = true;
    time_start_cpu = std::chrono::high_resolution_clock::now();
  }
  void endCpuTimer() {
    auto end = std::chrono::high_resolution_clock::now();
    if (!cpu_timer_started) throw std::runtime_error("CPU timer not started");
    prev_elapsed_time_cpu_milliseconds =
        std::chrono::duration<double, std::milli>(end - time_start_cpu).count();
    cpu_timer_started = false;
  }
  void startGpuTimer() {
    if (gpu_timer_started) throw std::runtime_error("GPU timer already started");
    gpu_timer_started = true;
    cudaEventRecord(event_start);
  }
  void endGpuTimer() {
    cudaEventRecord(event_end);
    cudaEventSynchronize(event_end);
    if (!gpu_timer_started) throw std::runtime_error("GPU timer not started");
    cudaEventElapsedTime(&prev_elapsed_time_gpu_milliseconds, event_start, event_end);
    gpu_timer_started = false;
  }
  float getCpuElapsedTimeForPreviousOperation() { return (float)prev_elapsed_time_cpu_milliseconds; }
  float getGpuElapsedTimeForPreviousOperation() { return prev_elapsed_time_gpu_milliseconds; }

 private:
  cudaEvent_t event_start = nullptr, event_end = nullptr;
  std::chrono::high_resolution_clock::time_point time_start_cpu;
  bool cpu_timer_started = false, gpu_timer_started = false;
  double prev_elapsed_time_cpu_milliseconds = 0;
  float prev_elapsed_time_gpu_milliseconds = 0;
};
}  // namespace Common
}  // namespace StreamCompaction
