// A shuffle's delta or lane mask of 32 or more: the hardware reads its low five bits (an H200,
// nvcc 13.0: __shfl_up_sync by 40 moves values up by 8). The emu kept each lane's own value
// for any delta past 31.
// emu-test: expect pass
// emu-test: stdout wide deltas: up ok, down ok, xor ok, up in 8 ok
#include <cstdio>

__global__ void shuffleKernel(int *out, unsigned delta, int laneMask) {
  const int x = threadIdx.x;
  out[x] = __shfl_up_sync(0xffffffffu, x, delta);
  out[32 + x] = __shfl_down_sync(0xffffffffu, x, delta);
  out[64 + x] = __shfl_xor_sync(0xffffffffu, x, laneMask);
  out[96 + x] = __shfl_up_sync(0xffffffffu, x, delta, 8);
}

int main() {
  int *d, h[128];
  cudaMalloc(&d, sizeof h);
  shuffleKernel<<<1, 32>>>(d, 40u, 33);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool up = true, down = true, bfly = true, up8 = true;
  for (int i = 0; i < 32; i++) {
    up = up && h[i] == (i >= 8 ? i - 8 : i);       /* 40 & 31 = 8 */
    down = down && h[32 + i] == (i + 8 < 32 ? i + 8 : i);
    bfly = bfly && h[64 + i] == (i ^ 1);           /* 33 & 31 = 1 */
    up8 = up8 && h[96 + i] == i;                   /* 8 is the whole segment: each keeps its own */
  }
  printf("wide deltas: up %s, down %s, xor %s, up in 8 %s\n", up ? "ok" : "differs", down ? "ok" : "differs",
         bfly ? "ok" : "differs", up8 ? "ok" : "differs");
  return up && down && bfly && up8 ? 0 : 1;
}
