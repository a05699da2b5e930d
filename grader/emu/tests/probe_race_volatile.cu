// The race detector (a build with the memory probes) flags the pre-Volta warp scan of lab 04 in
// the grader's runs (SCANLAB_EMU_STRICT=1: no lockstep, legacy_volatile_probe.cu has the
// program's own run): lanes of one warp read what their neighbours write with no __syncwarp
// between, under every schedule, naming both threads and both lines.
// emu-test: expect fail
// emu-test: probe
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: schedules forward reverse random:1
// emu-test: stderr emu: race on a __shared__ array's shared memory at byte offset 128 in kernel legacyWarpScanKernel, block (0,0,0): thread (0,0,0) writes it at
// emu-test: stderr :18 and thread (1,0,0) reads it at
// emu-test: stderr :20, in one warp with no __syncwarp between them: __syncwarp() between the two accesses orders them (so does __syncthreads())
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
  int h[32];
  for (int i = 0; i < 32; i++) h[i] = 1;
  int *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  legacyWarpScanKernel<<<1, 32>>>(d);
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  return 0;
}
