// __device__ and __constant__ globals with cudaMemcpyToSymbol / cudaMemcpyFromSymbol and
// cudaGetSymbolAddress; a __device__ counter shared by all blocks.
// emu-test: expect pass
#include "emu_test.h"

__constant__ int coeffs[8];
__device__ int counter;
__device__ unsigned long long total;
__device__ float table[16];

__global__ void useGlobalsKernel(int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = coeffs[t % 8] * 2 + (int)table[t % 16];
  atomicAdd(&counter, 1);
  atomicAdd(&total, (unsigned long long)t);
}

int main() {
  int h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  float ht[16];
  for (int i = 0; i < 16; i++) ht[i] = (float)(100 * i);
  CK(cudaMemcpyToSymbol(coeffs, h, sizeof h));
  CK(cudaMemcpyToSymbol(table, ht, 8 * sizeof(float)));
  CK(cudaMemcpyToSymbol(table, ht + 8, 8 * sizeof(float), 8 * sizeof(float), cudaMemcpyHostToDevice));
  int zero = 0;
  CK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
  void *p;
  CK(cudaGetSymbolAddress(&p, total));
  CK(cudaMemset(p, 0, sizeof(unsigned long long)));
  int *d_out, out[256];
  CK(cudaMalloc(&d_out, sizeof out));
  useGlobalsKernel<<<4, 64>>>(d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  int c;
  unsigned long long tot;
  CK(cudaMemcpyFromSymbol(&c, counter, sizeof c));
  CK(cudaMemcpyFromSymbol(&tot, total, sizeof tot));
  for (int t = 0; t < 256; t++)
    if (out[t] != h[t % 8] * 2 + 100 * (t % 16)) {
      printf("out[%d]: expected %d, got %d\n", t, h[t % 8] * 2 + 100 * (t % 16), out[t]);
      return 1;
    }
  if (c != 256 || tot != 255ull * 256 / 2) {
    printf("counter %d (expected 256), total %llu (expected %llu)\n", c, tot, 255ull * 256 / 2);
    return 1;
  }
  printf("ok\n");
  return 0;
}
