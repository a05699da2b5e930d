// deviceQuery in the style of the CUDA samples, in a host .cpp built by nvcc: the driver and
// runtime versions, every commonly printed property, the compute mode by name, and the
// profiler's start and stop around a kernel launched from kernels.cu. It checks that the values
// are sane rather than what they are.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "helper_cuda_lite.h"

extern "C" int launchIota(int *out, int n);

static const char *computeModeName(int mode) {
  switch (mode) {
    case cudaComputeModeDefault: return "Default";
    case cudaComputeModeExclusive: return "Exclusive";
    case cudaComputeModeProhibited: return "Prohibited";
    case cudaComputeModeExclusiveProcess: return "Exclusive Process";
  }
  return "Unknown";
}

int main(int argc, char **argv) {
  int deviceCount = 0, bad = 0;
  checkCudaErrors(cudaGetDeviceCount(&deviceCount));
  if (deviceCount == 0) {
    printf("There are no available device(s) that support CUDA\n");
    return 1;
  }
  int driverVersion = 0, runtimeVersion = 0;
  checkCudaErrors(cudaDriverGetVersion(&driverVersion));
  checkCudaErrors(cudaRuntimeGetVersion(&runtimeVersion));
  printf("Detected %d CUDA Capable device(s); driver %d.%d, runtime %d.%d\n", deviceCount, driverVersion / 1000,
         (driverVersion % 100) / 10, runtimeVersion / 1000, (runtimeVersion % 100) / 10);
  for (int dev = 0; dev < deviceCount; ++dev) {
    cudaDeviceProp p;
    checkCudaErrors(cudaSetDevice(dev));
    checkCudaErrors(cudaGetDeviceProperties(&p, dev));
    int mode = -1;
    checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
    printf("Device %d: \"%s\"\n", dev, p.name);
    printf("  CUDA Capability Major/Minor version number:    %d.%d\n", p.major, p.minor);
    printf("  Total amount of global memory:                 %.0f MBytes\n", p.totalGlobalMem / 1048576.0);
    printf("  (%3d) Multiprocessors, (%3d) CUDA Cores/MP\n", p.multiProcessorCount, coresPerSM(p.major, p.minor));
    printf("  Total amount of shared memory per block:       %zu bytes\n", p.sharedMemPerBlock);
    printf("  Warp size:                                     %d\n", p.warpSize);
    printf("  Maximum number of threads per block:           %d\n", p.maxThreadsPerBlock);
    printf("  Max dimension size of a thread block (x,y,z): (%d, %d, %d)\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
           p.maxThreadsDim[2]);
    printf("  Max dimension size of a grid size    (x,y,z): (%d, %d, %d)\n", p.maxGridSize[0], p.maxGridSize[1],
           p.maxGridSize[2]);
    printf("  Concurrent copy and kernel execution:          %s with %d copy engine(s)\n",
           (p.asyncEngineCount ? "Yes" : "No"), p.asyncEngineCount);
    printf("  Device supports Unified Addressing (UVA):      %s\n", p.unifiedAddressing ? "Yes" : "No");
    printf("  Device supports Managed Memory:                %s\n", p.managedMemory ? "Yes" : "No");
    printf("  Supports Cooperative Kernel Launch:            %s\n", p.cooperativeLaunch ? "Yes" : "No");
    printf("  Compute Mode: < %s >\n", computeModeName(mode));
    bad += p.warpSize != 32 || p.maxThreadsPerBlock < 1024 || p.multiProcessorCount < 1 || p.major < 1;
#if CUDART_VERSION < 13000  // CUDA 13 dropped the field; the attribute stays
    bad += mode != p.computeMode;
#endif
    bad += strlen(p.name) == 0;
  }
  int n = 1000, *d = nullptr, h[1000];
  checkCudaErrors(cudaMalloc(&d, n * sizeof(int)));
  checkCudaErrors(cudaProfilerStart());
  bad += launchIota(d, n);
  checkCudaErrors(cudaProfilerStop());
  checkCudaErrors(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) bad += h[i] != i;
  checkCudaErrors(cudaFree(d));
  const char *name = nullptr;
  if (cuGetErrorName(CUDA_SUCCESS, &name) != CUDA_SUCCESS || !name) bad++;
  printf("deviceQueryLite, CUDA Driver = CUDART, NumDevs = %d\nResult = %s\n", deviceCount, bad ? "FAIL" : "PASS");
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
