// Scan of any length: tiles scanned by blockExclusiveScan (block_scan.cu), the tiles' totals
// scanned recursively, then added back; compaction by flags, scan and scatter.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "block_scan.cuh"
#include "scan.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t err = (call);                                                              \
    if (err != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err)); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

namespace scanlib {
namespace {
float g_ms = 0;

__global__ void scanTiles(const int *in, int *out, int *totals, int n) {
  __shared__ int tile[SCAN_TILE + SCAN_TILE / 32];
  int base = blockIdx.x * SCAN_TILE, t = threadIdx.x;
  int a = t, b = t + SCAN_BLOCK;
  tile[a + CONFLICT_FREE_OFFSET(a)] = base + a < n ? in[base + a] : 0;
  tile[b + CONFLICT_FREE_OFFSET(b)] = base + b < n ? in[base + b] : 0;
  int total = blockExclusiveScan(tile);
  if (base + a < n) out[base + a] = tile[a + CONFLICT_FREE_OFFSET(a)];
  if (base + b < n) out[base + b] = tile[b + CONFLICT_FREE_OFFSET(b)];
  if (t == 0 && totals) totals[blockIdx.x] = total;
}

__global__ void addTotals(int *out, const int *totals, int n) {
  int i = blockIdx.x * SCAN_TILE + threadIdx.x;
  int add = totals[blockIdx.x];
  if (i < n) out[i] += add;
  if (i + SCAN_BLOCK < n) out[i + SCAN_BLOCK] += add;
}

__global__ void flagNonZero(const int *in, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = in[i] != 0;
}

__global__ void scatterNonZero(const int *in, const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] != 0) out[idx[i]] = in[i];
}

void scanDevice(const int *d_in, int *d_out, int n) {
  int tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
  int *d_totals = nullptr;
  if (tiles > 1) CHECK(cudaMalloc(&d_totals, tiles * sizeof(int)));
  scanTiles<<<tiles, SCAN_BLOCK>>>(d_in, d_out, d_totals, n);
  CHECK(cudaGetLastError());
  if (tiles > 1) {
    scanDevice(d_totals, d_totals, tiles);
    addTotals<<<tiles, SCAN_BLOCK>>>(d_out, d_totals, n);
    CHECK(cudaGetLastError());
    CHECK(cudaFree(d_totals));
  }
}
}  // namespace

void exclusiveScan(const int *in, int *out, int n) {
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, in, n * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  scanDevice(d, d, n);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  cudaEventElapsedTime(&g_ms, a, b);
  CHECK(cudaMemcpy(out, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  CHECK(cudaFree(d));
}

int compactNonZero(const int *in, int *out, int n) {
  int *d_in, *d_idx, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_idx, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
  flagNonZero<<<(n + 255) / 256, 256>>>(d_in, d_idx, n);
  scanDevice(d_idx, d_idx, n);
  scatterNonZero<<<(n + 255) / 256, 256>>>(d_in, d_idx, d_out, n);
  CHECK(cudaGetLastError());
  int last = 0;
  CHECK(cudaMemcpy(&last, d_idx + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
  int count = last + (in[n - 1] != 0);
  CHECK(cudaMemcpy(out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_idx));
  CHECK(cudaFree(d_out));
  return count;
}

float lastMilliseconds() { return g_ms; }
}  // namespace scanlib
