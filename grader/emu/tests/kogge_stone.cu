// Kogge-Stone inclusive scan in shared memory (two barriers per step), several blocks and a
// ragged end; must match the CPU under every schedule.
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

template <int B>
__global__ void koggeStoneKernel(const int *in, int *out, int n) {
  __shared__ int s[B];
  int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < B; d *= 2) {
    int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
    __syncthreads();
    s[threadIdx.x] += t;
    __syncthreads();
  }
  if (i < n) out[i] = s[threadIdx.x];
}

int main() {
  const int n = 3000;
  std::vector<int> h(n), ref(n), got(n);
  for (int i = 0; i < n; i++) h[i] = (i * 7919) % 13 - 6;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  koggeStoneKernel<512><<<(n + 511) / 512, 512>>>(d_in, d_out, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < n; b += 512) {
    int acc = 0;
    for (int i = b; i < n && i < b + 512; i++) ref[i] = acc += h[i];
  }
  if (!same("koggeStone", ref.data(), got.data(), n)) return 1;
  printf("ok\n");
  return 0;
}
