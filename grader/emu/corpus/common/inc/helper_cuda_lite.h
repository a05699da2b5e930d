// Error checking and device selection in the style of the CUDA samples' helper_cuda.h
// (written for this corpus). Like the samples' header, it defines its CUDA parts only when
// the toolkit's headers came first: it tests their include guards, __DRIVER_TYPES_H__ for the
// error checks and __CUDA_RUNTIME_H__ for the device helpers.
#ifndef HELPER_CUDA_LITE_H
#define HELPER_CUDA_LITE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_string_lite.h"

#ifdef __DRIVER_TYPES_H__
static const char *errorEnumName(cudaError_t error) { return cudaGetErrorName(error); }

template <typename T>
void checkResult(T result, const char *const expr, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, static_cast<int>(result),
            errorEnumName(result), expr);
    exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) checkResult((val), #val, __FILE__, __LINE__)

#define getLastCudaError(msg) lastCudaError(msg, __FILE__, __LINE__)
inline void lastCudaError(const char *msg, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%d) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, msg,
            static_cast<int>(err), cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}
#endif  // __DRIVER_TYPES_H__

#ifdef __CUDA_RUNTIME_H__
// CUDA cores per multiprocessor, by compute capability (0xMm).
inline int coresPerSM(int major, int minor) {
  static const struct { int sm; int cores; } table[] = {
      {0x60, 64}, {0x61, 128}, {0x70, 64}, {0x75, 64}, {0x80, 64}, {0x86, 128}, {0x89, 128}, {0x90, 128}, {-1, -1}};
  int i = 0;
  for (; table[i].sm != -1; i++)
    if (table[i].sm == ((major << 4) + minor)) return table[i].cores;
  return table[i - 1].cores;
}

inline int gpuDeviceInit(int dev) {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  if (count == 0 || dev < 0 || dev >= count) {
    fprintf(stderr, "gpuDeviceInit(): device %d is not a valid device (%d devices)\n", dev, count);
    return -dev;
  }
  int computeMode = -1, major = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&computeMode, cudaDevAttrComputeMode, dev));
  checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (computeMode == cudaComputeModeProhibited) {
    fprintf(stderr, "gpuDeviceInit(): the device is in <Compute Mode Prohibited>\n");
    return -1;
  }
  if (major < 1) {
    fprintf(stderr, "gpuDeviceInit(): the device does not support CUDA\n");
    exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(dev));
  return dev;
}

// The device with the most multiprocessors x cores x clock.
inline int gpuGetMaxGflopsDeviceId() {
  int count = 0, best = 0;
  unsigned long long bestPerf = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  for (int dev = 0; dev < count; dev++) {
    int mode = -1, major = 0, minor = 0, sms = 0, clock = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
    if (mode == cudaComputeModeProhibited) continue;
    checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev) != cudaSuccess) clock = 1;
    unsigned long long perf = (unsigned long long)sms * coresPerSM(major, minor) * (clock ? clock : 1);
    if (perf > bestPerf) {
      bestPerf = perf;
      best = dev;
    }
  }
  return best;
}

inline int findCudaDevice(int argc, const char **argv) {
  int dev = 0;
  if (checkCmdLineFlag(argc, argv, "device")) {
    dev = getCmdLineArgumentInt(argc, argv, "device");
    dev = gpuDeviceInit(dev);
    if (dev < 0) exit(EXIT_FAILURE);
  } else {
    dev = gpuGetMaxGflopsDeviceId();
    checkCudaErrors(cudaSetDevice(dev));
    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
    printf("GPU Device %d: \"%s\" with compute capability %d.%d\n\n", dev, prop.name, prop.major, prop.minor);
  }
  return dev;
}
#endif  // __CUDA_RUNTIME_H__

#endif  // HELPER_CUDA_LITE_H
