/* A program that brings its own fixed-width types (as older course code and some libraries
   do) instead of <stdint.h>: a 64-bit FNV-1a hash of many keys on the device, compared with the
   host's. nvcc does not include <stdint.h> in a .cu file, so these typedefs must not clash. */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;

#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

__host__ __device__ uint64_t fnv1a(uint32_t key) {
  uint64_t h = FNV_OFFSET;
  for (int i = 0; i < 4; i++) {
    h ^= (uint8_t)(key >> (8 * i));
    h *= FNV_PRIME;
  }
  return h;
}

__global__ void hashKernel(const uint32_t *keys, uint64_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fnv1a(keys[i]);
}

int main(void) {
  const int n = 50000;
  uint32_t *keys = (uint32_t *)malloc(n * sizeof(uint32_t));
  uint64_t *out = (uint64_t *)malloc(n * sizeof(uint64_t));
  for (int i = 0; i < n; i++) keys[i] = (uint32_t)i * 2654435761u;
  uint32_t *d_keys;
  uint64_t *d_out;
  cudaMalloc((void **)&d_keys, n * sizeof(uint32_t));
  cudaMalloc((void **)&d_out, n * sizeof(uint64_t));
  cudaMemcpy(d_keys, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice);
  hashKernel<<<(n + 255) / 256, 256>>>(d_keys, d_out, n);
  cudaMemcpy(out, d_out, n * sizeof(uint64_t), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (out[i] != fnv1a(keys[i])) {
      if (!bad) printf("key %d: %llx, expected %llx\n", i, out[i], fnv1a(keys[i]));
      bad++;
    }
  cudaFree(d_keys);
  cudaFree(d_out);
  free(keys);
  free(out);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad != 0;
}
