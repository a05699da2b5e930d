// The runtime's headers are shaped like the toolkit's: helper headers test their include
// guards before defining their checks; enums such as cudaComputeModeProhibited exist;
// cuda_profiler_api.h and cuda.h come with no-op and minimal functions; a program may bring
// its own fixed-width typedefs, the same as <stdint.h>'s where it includes cuda.h (which
// includes <stdint.h>, as the toolkit's does; bad_cuda_h_stdint.cu); device assert() fails the
// launch with cudaErrorAssert, as on a GPU. cudaDeviceProp's computeMode and clockRate are
// CUDA 12's (the emu's version); CUDA 13 removed them.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stderr Assertion `v < 100` failed.
// emu-test: stdout guards ok
#include <assert.h>
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>

typedef unsigned long uint64_t; /* <stdint.h>'s on x86-64 Linux */
typedef unsigned int uint32_t;

#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__VECTOR_TYPES_H__) || \
    !defined(__CUDA_RUNTIME_API_H__) || !defined(__CUDA_PROFILER_API_H__) || !defined(__cuda_cuda_h__)
#error "a toolkit include guard is missing"
#endif

__global__ void sumKernel(const uint32_t *in, uint64_t *out) { atomicAdd((unsigned long long *)out, in[threadIdx.x]); }
__global__ void assertKernel(int v) { assert(v < 100); }

int main() {
  int mode = -1;
  if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0) != cudaSuccess || mode == cudaComputeModeProhibited)
    return 1;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
#if CUDART_VERSION < 13000
  if (p.computeMode != cudaComputeModeDefault || p.clockRate <= 0) return 2;
#endif
  if (!p.cooperativeLaunch) return 2;
  const char *name = 0;
  if (cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &name) != CUDA_SUCCESS || !name) return 3;
  uint32_t *in;
  uint64_t *out;
  cudaMallocManaged(&in, 64 * sizeof(uint32_t));
  cudaMallocManaged(&out, sizeof(uint64_t));
  for (int i = 0; i < 64; i++) in[i] = 0x80000000u + i;
  *out = 0;
  if (cudaProfilerStart() != cudaSuccess) return 4;
  sumKernel<<<1, 64>>>(in, out);
  if (cudaProfilerStop() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return 5;
  if (*out != 64ull * 0x80000000ull + 2016) return 6;
  assertKernel<<<1, 32>>>(7);
  if (cudaDeviceSynchronize() != cudaSuccess) return 7;
  assertKernel<<<1, 32>>>(700);
  if (cudaDeviceSynchronize() != cudaErrorAssert || cudaMalloc(&in, 4) != cudaErrorAssert) return 8;
  printf("guards ok\n");
  return 0;
}
