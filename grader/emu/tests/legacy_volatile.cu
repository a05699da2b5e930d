// The pre-Volta warp-synchronous scan: `volatile` shared memory and no __syncwarp. It relied
// on lockstep warps, which CUDA no longer promises; the emulator has no lockstep either, so
// some schedule gets a wrong answer (the handout of lab 04 explains why).
// emu-test: expect racy
// emu-test: schedules forward reverse random:1
#include "emu_test.h"

__global__ void legacyWarpScanKernel(int *data) {
  volatile __shared__ int s[64];
  int lane = threadIdx.x;
  s[lane] = 0;
  s[32 + lane] = data[lane];
  int i = 32 + lane;
  s[i] += s[i - 1];
  s[i] += s[i - 2];
  s[i] += s[i - 4];
  s[i] += s[i - 8];
  s[i] += s[i - 16];
  data[lane] = s[i];
}

int main() {
  int h[32], ref[32], got[32];
  for (int i = 0; i < 32; i++) {
    h[i] = 1;
    ref[i] = i + 1;
  }
  int *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  legacyWarpScanKernel<<<1, 32>>>(d);
  CK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
  return same("legacy warp scan", ref, got, 32) ? 0 : 1;
}
