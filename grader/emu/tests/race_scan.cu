// A Kogge-Stone scan missing the barrier between reading s[t-d] and writing s[t]: the
// emulator has no lockstep, so some schedule (forward) reads values already updated in the
// same step and gets a wrong answer. The test passes when at least one schedule exposes it.
// emu-test: expect racy
// emu-test: schedules forward reverse random:1
#include <vector>
#include "emu_test.h"

__global__ void racyScanKernel(int *data) {
  __shared__ int s[256];
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  for (int d = 1; d < 256; d *= 2) {
    int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    /* missing: __syncthreads(); */
    s[threadIdx.x] += t;
    __syncthreads();
  }
  data[threadIdx.x] = s[threadIdx.x];
}

int main() {
  std::vector<int> h(256, 1), ref(256), got(256);
  for (int i = 0; i < 256; i++) ref[i] = i + 1;
  int *d;
  CK(cudaMalloc(&d, 256 * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), 256 * sizeof(int), cudaMemcpyHostToDevice));
  racyScanKernel<<<1, 256>>>(d);
  CK(cudaMemcpy(got.data(), d, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  return same("racy scan", ref.data(), got.data(), 256) ? 0 : 1;
}
