// __syncthreads is a __device__ function: nvcc refuses a call from host code ("calling a
// __device__ function from a __host__ function is not allowed"). The emu printed a warning,
// ignored the call and let the program go on to exit 0; now the call fails the program, naming
// the function and its line, as curand_init's does. In a kernel it works as before.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: __syncthreads at bad_sync_host.cu:20 is a __device__ function called from host code
#include <cstdio>

__global__ void twice(int *out) {
  out[threadIdx.x] = threadIdx.x;
  __syncthreads(); /* in a kernel: as before */
  out[threadIdx.x] += out[31 - threadIdx.x];
}

int main() {
  int *out;
  cudaMallocManaged(&out, 32 * sizeof(int));
  twice<<<1, 32>>>(out);
  __syncthreads();
  printf("%d\n", cudaDeviceSynchronize() == cudaSuccess ? out[0] : -1);
  return 0;
}
