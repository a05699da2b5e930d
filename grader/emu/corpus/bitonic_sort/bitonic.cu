// Bitonic sort of 1024-element chunks in shared memory, one block per chunk, then a check
// that every chunk is sorted and holds the same keys (a week's exercise on __syncthreads).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHUNK 1024

__global__ void bitonicSortShared(unsigned *keys) {
  __shared__ unsigned s[CHUNK];
  unsigned *base = keys + blockIdx.x * CHUNK;
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) s[i] = base[i];
  __syncthreads();
  for (int size = 2; size <= CHUNK; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      for (int i = threadIdx.x; i < CHUNK / 2; i += blockDim.x) {
        int pos = 2 * i - (i & (stride - 1));
        bool ascending = ((pos & size) == 0);
        unsigned a = s[pos], b = s[pos + stride];
        if ((a > b) == ascending) {
          s[pos] = b;
          s[pos + stride] = a;
        }
      }
      __syncthreads();
    }
  }
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) base[i] = s[i];
}

int main() {
  const int chunks = 32, n = chunks * CHUNK;
  std::vector<unsigned> h(n), out(n);
  unsigned x = 2463534242u;
  for (int i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    h[i] = x % 100000;
  }
  unsigned *d;
  cudaMalloc(&d, n * sizeof(unsigned));
  cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  bitonicSortShared<<<chunks, 256>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(out.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaFree(d);
  int bad = e != cudaSuccess;
  for (int c = 0; c < chunks; c++) {
    std::vector<unsigned> want(h.begin() + c * CHUNK, h.begin() + (c + 1) * CHUNK);
    std::sort(want.begin(), want.end());
    if (!std::equal(want.begin(), want.end(), out.begin() + c * CHUNK)) {
      if (!bad) printf("chunk %d is not the sorted input\n", c);
      bad++;
    }
  }
  printf("%d chunks of %d keys: %s\n", chunks, CHUNK, bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
