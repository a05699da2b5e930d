// atomicAdd on float2 and float4 (compute capability 9.x), atomic for each element, and the
// write-back store hint __stwb: nvcc 13.0 builds them for an H200, where each sum below is
// exact; the emu had neither (g++: "no matching function for call to atomicAdd(float2*&,
// float2)"; "__stwb was not declared").
// emu-test: expect pass
// emu-test: stdout float2 256 512, float4 256 512 768 1024, old values seen 256, stwb 5
#include <cstdio>

__global__ void addKernel(float2 *p2, float4 *p4, int *seen, unsigned *hint) {
  const float2 old = atomicAdd(p2, make_float2(1.0f, 2.0f));
  atomicAdd(p4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  if (old.x >= 0.0f && old.x < 256.0f && old.y >= 0.0f && old.y < 512.0f) atomicAdd(seen, 1);
  if (blockIdx.x == 0 && threadIdx.x == 0) __stwb(hint, 5u);
}

int main() {
  float2 *p2, h2;
  float4 *p4, h4;
  int *seen, hs = 0;
  unsigned *hint, hh = 0;
  cudaMalloc(&p2, sizeof *p2);
  cudaMalloc(&p4, sizeof *p4);
  cudaMalloc(&seen, sizeof *seen);
  cudaMalloc(&hint, sizeof *hint);
  cudaMemset(p2, 0, sizeof *p2);
  cudaMemset(p4, 0, sizeof *p4);
  cudaMemset(seen, 0, sizeof *seen);
  addKernel<<<4, 64>>>(p2, p4, seen, hint);
  cudaMemcpy(&h2, p2, sizeof h2, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h4, p4, sizeof h4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&hs, seen, sizeof hs, cudaMemcpyDeviceToHost);
  cudaMemcpy(&hh, hint, sizeof hh, cudaMemcpyDeviceToHost);
  printf("float2 %g %g, float4 %g %g %g %g, old values seen %d, stwb %u\n", h2.x, h2.y, h4.x, h4.y, h4.z, h4.w, hs,
         hh);
  return 0;
}
