// The race detector catches a missing __syncthreads under the forward schedule alone (where
// the answer happens to be right): a Kogge-Stone step reads s[t-d] while thread t-d, in
// another warp, writes it in the same barrier interval. With the barrier, the same kernel is
// clean, and so is a warp that orders its lanes with __syncwarp.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: stderr emu: race on a __shared__ array's shared memory at byte offset
// emu-test: stderr in kernel racyScanKernel, block (0,0,0): thread (0,0,0) writes it at
// emu-test: stderr :44 and thread (32,0,0) reads it at
// emu-test: stderr :42, in different warps with no __syncthreads between them
#include "emu_test.h"

template <bool SYNC>
__global__ void scanKernel(int *data) {
  __shared__ int s[256];
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  for (int d = 32; d < 256; d *= 2) {
    int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    if (SYNC) __syncthreads();
    s[threadIdx.x] += t;
    __syncthreads();
  }
  data[threadIdx.x] = s[threadIdx.x];
}
__global__ void warpKernel(int *data) {
  __shared__ int s[32];
  s[threadIdx.x] = data[threadIdx.x];
  __syncwarp();
  int v = s[31 - threadIdx.x];
  __syncwarp();
  s[threadIdx.x] = v;
  __syncwarp();
  data[threadIdx.x] = s[threadIdx.x];
}
__global__ void racyScanKernel(int *data) {
  __shared__ int s[256];
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  for (int d = 32; d < 256; d *= 2) {
    int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    /* missing: __syncthreads(); */
    s[threadIdx.x] += t;
    __syncthreads();
  }
  data[threadIdx.x] = s[threadIdx.x];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 256 * sizeof(int)));
  CK(cudaMemset(d, 0, 256 * sizeof(int)));
  scanKernel<true><<<1, 256>>>(d);
  CK(cudaDeviceSynchronize());
  warpKernel<<<1, 32>>>(d);
  CK(cudaDeviceSynchronize());
  printf("clean kernels passed\n");
  racyScanKernel<<<1, 256>>>(d);
  CK(cudaDeviceSynchronize());
  return 0;
}
