// A device assert() that fails only in a kernel's second launch, the one that would run as loops:
// the loops version is written on the kernel's first line, in a function of its own, and its
// assert named that line, that function and the rewrite's names for the locals. A kernel that
// says assert (or __LINE__, __func__) now has no loops version, and the message names the
// assert's own line and the kernel's expression, as on fibers and on a GPU.
// emu-test: loops
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr bad_loops_assert.cu:20: void checkMirror(int*, int): block: [0,0,0], thread: [23,0,0] Assertion `v != bad` failed.
#include <assert.h>
#include <stdio.h>

#define NT 64

__global__ void checkMirror(int *out, int bad) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  const int v = s[NT - 1 - threadIdx.x];
  assert(v != bad);
  out[threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, NT * sizeof(int));
  checkMirror<<<1, NT>>>(d, -1);
  printf("first launch: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  checkMirror<<<1, NT>>>(d, 40);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("second launch: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
