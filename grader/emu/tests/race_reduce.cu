// A shared-memory tree reduction missing the barrier inside its loop: some schedule
// (reverse) lets a thread read a partial sum before it is written.
// emu-test: expect racy
// emu-test: schedules forward reverse random:1
#include "emu_test.h"

__global__ void racyReduceKernel(const int *in, int *out) {
  __shared__ int s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    /* missing: __syncthreads(); */
  }
  if (threadIdx.x == 0) *out = s[0];
}

int main() {
  int h[256], got = 0;
  for (int i = 0; i < 256; i++) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof h));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  racyReduceKernel<<<1, 256>>>(d_in, d_out);
  CK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  if (got != 255 * 256 / 2) {
    printf("racy reduce: expected %d, got %d\n", 255 * 256 / 2, got);
    return 1;
  }
  return 0;
}
