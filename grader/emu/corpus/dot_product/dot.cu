// Dot product with float atomics: per-block shared reduction, one atomicAdd per block, then
// __syncthreads_count, __syncthreads_and and __syncthreads_or as block-wide votes; all checked.
#include <cmath>
#include <cstdio>
#include <cstdlib>

const int threadsPerBlock = 256;

__global__ void dotKernel(const float *a, const float *b, float *result, int n) {
  __shared__ float cache[threadsPerBlock];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[threadIdx.x] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
    __syncthreads();
    i /= 2;
  }
  if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}

__global__ void voteKernel(const float *a, int n, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] : 0.0f;
  int positive = __syncthreads_count(v > 0.5f);
  int all = __syncthreads_and(v >= 0.0f);
  int any = __syncthreads_or(v > 2.0f);
  if (threadIdx.x == 0) {
    atomicAdd(&counts[0], positive);
    atomicAdd(&counts[1], all);
    atomicAdd(&counts[2], any);
  }
}

int main() {
  const int n = 33 * 1024, blocks = 32;
  float *a = new float[n], *b = new float[n];
  double ref = 0;
  int refPositive = 0, refAny = 0;
  for (int i = 0; i < n; i++) {
    a[i] = (i % 100) / 100.0f + (i % 1500 == 7 ? 5.0f : 0.0f);
    b[i] = 2.0f;
    ref += (double)a[i] * b[i];
    refPositive += a[i] > 0.5f;
  }
  for (int blk = 0; blk < (n + threadsPerBlock - 1) / threadsPerBlock; blk++) {
    int any = 0;
    for (int k = blk * threadsPerBlock; k < (blk + 1) * threadsPerBlock && k < n; k++) any |= a[k] > 2.0f;
    refAny += any;
  }
  float *d_a, *d_b, *d_r;
  int *d_counts;
  cudaMalloc(&d_a, n * sizeof(float));
  cudaMalloc(&d_b, n * sizeof(float));
  cudaMalloc(&d_r, sizeof(float));
  cudaMalloc(&d_counts, 3 * sizeof(int));
  cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_r, 0, sizeof(float));
  cudaMemset(d_counts, 0, 3 * sizeof(int));
  dotKernel<<<blocks, threadsPerBlock>>>(d_a, d_b, d_r, n);
  voteKernel<<<(n + threadsPerBlock - 1) / threadsPerBlock, threadsPerBlock>>>(d_a, n, d_counts);
  float r = 0;
  int counts[3];
  cudaMemcpy(&r, d_r, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost);
  int blocksTotal = (n + threadsPerBlock - 1) / threadsPerBlock;
  bool ok = std::fabs(r - ref) <= 1e-4 * ref && counts[0] == refPositive && counts[1] == blocksTotal &&
            counts[2] == refAny;
  printf("dot %.2f (host %.2f); votes %d %d %d (host %d %d %d): %s\n", r, ref, counts[0], counts[1], counts[2],
         refPositive, blocksTotal, refAny, ok ? "PASSED" : "FAILED");
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_r);
  cudaFree(d_counts);
  delete[] a;
  delete[] b;
  return ok ? 0 : 1;
}
