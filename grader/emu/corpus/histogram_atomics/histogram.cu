// A 256-bin histogram two ways: global atomics only, and per-block bins in shared memory
// merged with one global atomic per bin. Both checked against the host's count.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256
#define CHECK(call)                                                                       \
  if ((call) != cudaSuccess) {                                                            \
    fprintf(stderr, "CUDA failure at %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(cudaGetLastError())); \
    exit(1);                                                                              \
  }

__global__ void histoGlobal(const unsigned char *data, unsigned int *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[data[i]], 1u);
}

__global__ void histoShared(const unsigned char *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 1 << 18;
  unsigned char *h = (unsigned char *)malloc(n);
  unsigned int ref[BINS] = {0}, got[BINS];
  unsigned s = 1;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    h[i] = (unsigned char)((s >> 24) ^ (s >> 13));
    ref[h[i]]++;
  }
  unsigned char *d_data;
  unsigned int *d_bins;
  CHECK(cudaMalloc(&d_data, n));
  CHECK(cudaMalloc(&d_bins, BINS * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_data, h, n, cudaMemcpyHostToDevice));
  int ok = 1;
  for (int variant = 0; variant < 2; variant++) {
    CHECK(cudaMemset(d_bins, 0, BINS * sizeof(unsigned int)));
    if (variant == 0)
      histoGlobal<<<64, 256>>>(d_data, d_bins, n);
    else
      histoShared<<<64, 256>>>(d_data, d_bins, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_bins, sizeof got, cudaMemcpyDeviceToHost));
    int same = memcmp(got, ref, sizeof ref) == 0;
    for (int b = 0; b < BINS && !same; b++)
      if (got[b] != ref[b]) {
        printf("bin %d: %u, expected %u\n", b, got[b], ref[b]);
        break;
      }
    printf("%s atomics: %s\n", variant ? "shared" : "global", same ? "ok" : "WRONG");
    ok &= same;
  }
  cudaFree(d_data);
  cudaFree(d_bins);
  free(h);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
