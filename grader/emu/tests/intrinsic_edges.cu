// Intrinsics at the edges of their ranges, as an H200 computes them (nvcc 13.0): __saturatef of
// a NaN is 0 (the emu gave NaN); __funnelshift_lc and __funnelshift_rc clamp the shift to 32
// where __funnelshift_l and __funnelshift_r take it modulo 32 (the emu had no clamping forms,
// and a kernel that called one did not compile).
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stdout saturate: 0 1 0.25 0; funnel: ff ffffffff 0 ff000000 ffffffff
#include <cstdio>

__global__ void edgeKernel(float *f, unsigned *u, float nan, int s) {
  f[0] = __saturatef(nan);
  f[1] = __saturatef(2.5f);
  f[2] = __saturatef(0.25f);
  f[3] = __saturatef(-1.0f);
  u[0] = __funnelshift_l(0xffffffffu, 0u, s);   /* 40 mod 32 = 8 */
  u[1] = __funnelshift_lc(0xffffffffu, 0u, s);  /* clamped to 32: hi takes lo whole */
  u[2] = __funnelshift_rc(0xffffffffu, 0u, s);  /* clamped to 32: lo takes hi whole */
  u[3] = __funnelshift_r(0u, 0xffffffffu, s);   /* 40 mod 32 = 8 */
  u[4] = __funnelshift_rc(0u, 0xffffffffu, s);
}

int main() {
  float *df, f[4];
  unsigned *du, u[5];
  cudaMalloc(&df, sizeof f);
  cudaMalloc(&du, sizeof u);
  unsigned bits = 0x7fc00000u;
  float nan;
  memcpy(&nan, &bits, sizeof nan);
  edgeKernel<<<1, 1>>>(df, du, nan, 40);
  cudaMemcpy(f, df, sizeof f, cudaMemcpyDeviceToHost);
  cudaMemcpy(u, du, sizeof u, cudaMemcpyDeviceToHost);
  printf("saturate: %g %g %g %g; funnel: %x %x %x %x %x\n", f[0], f[1], f[2], f[3], u[0], u[1], u[2], u[3], u[4]);
  return 0;
}
