// Kernels defined in a header (header_kernels.cu launches them): a template whose arguments the
// launch deduces, and a plain kernel.
#pragma once
template <class T>
__global__ void fillKernel(T *out, T value) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}
__global__ void countKernel(int *out) { out[threadIdx.x] = (int)threadIdx.x; }
