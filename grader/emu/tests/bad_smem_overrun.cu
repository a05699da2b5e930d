// A kernel writes one block's worth past the end of its dynamic shared memory: the guard zone
// behind it is damaged, the launch fails at the next __syncthreads (the emulator's own memory
// is untouched), and the process exits non-zero although it never checked an error.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr block (0,0,0) wrote past the end of its 1024 bytes of dynamic shared memory (first damaged byte at offset 1024, i.e. int index 256), found at __syncthreads (bad_smem_overrun.cu:13)
// emu-test: stderr kernel overrunKernel<<<(1,1,1), (256,1,1), 1024>>> launched at bad_smem_overrun.cu:20 failed: cudaErrorLaunchFailure
// emu-test: stdout unspecified launch failure
#include <cstdio>

__global__ void overrunKernel(int *out) {
  extern __shared__ int s[];
  s[threadIdx.x + blockDim.x] = 1; __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  int *d;
  cudaMalloc(&d, 1024);
  for (int r = 0; r < 4; r++) overrunKernel<<<1, 256, 1024>>>(d);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
