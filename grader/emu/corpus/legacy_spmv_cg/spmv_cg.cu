// Conjugate gradients on a sparse matrix in CSR, written as course code of the pre-Volta years
// wrote it: a warp per row for the product, its 32 partial sums reduced through `volatile`
// shared memory halving with `if (lane < 16)` and no __syncwarp, and dot products whose last
// warp unrolls its reduction the same way. Many right-hand sides one after another, so several
// thousand small launches. Written for the emu's corpus; it checks every solution's residual
// on the host and prints PASSED.
#include <cmath>
#include <cstdio>
#include <vector>

#define BLOCK 256
#define DOT_BLOCKS 64

__global__ void spmvVector(int rows, const int *rowPtr, const int *cols, const float *vals, const float *x,
                           float *y) {
  __shared__ volatile float sums[BLOCK];
  const int t = threadIdx.x, lane = t & 31;
  const int row = (blockIdx.x * BLOCK + t) / 32;
  float sum = 0.0f;
  if (row < rows)
    for (int k = rowPtr[row] + lane; k < rowPtr[row + 1]; k += 32) sum += vals[k] * x[cols[k]];
  sums[t] = sum;
  if (lane < 16) sums[t] = sum = sum + sums[t + 16];
  if (lane < 8) sums[t] = sum = sum + sums[t + 8];
  if (lane < 4) sums[t] = sum = sum + sums[t + 4];
  if (lane < 2) sums[t] = sum = sum + sums[t + 2];
  if (lane < 1) sums[t] = sum = sum + sums[t + 1];
  if (lane == 0 && row < rows) y[row] = sums[t];
}

__device__ void warpReduce(volatile float *s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

// partial[b] = the block's share of a . b
__global__ void dotPartial(int n, const float *a, const float *b, float *partial) {
  __shared__ float s[BLOCK];
  const int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) sum += a[i] * b[i];
  s[t] = sum;
  __syncthreads();
  for (int k = BLOCK / 2; k > 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) warpReduce(s, t);
  if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void dotFinish(const float *partial, float *out) {
  __shared__ float s[DOT_BLOCKS];
  const int t = threadIdx.x;
  s[t] = partial[t];
  __syncthreads();
  if (t < 32) warpReduce(s, t);
  if (t == 0) *out = s[0];
}

// x += alpha p, r -= alpha q, with alpha = rr / pq
__global__ void updateXR(int n, const float *rr, const float *pq, const float *p, const float *q, float *x, float *r) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const float alpha = *rr / *pq;
  if (i < n) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

// p = r + (rrNew / rr) p
__global__ void updateP(int n, const float *rrNew, const float *rr, const float *r, float *p) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const float beta = *rrNew / *rr;
  if (i < n) p[i] = r[i] + beta * p[i];
}

int main() {
  const int g = 16, n = g * g, systems = 20;
  std::vector<int> rowPtr(1, 0), cols;
  std::vector<float> vals;
  for (int i = 0; i < g; i++)
    for (int j = 0; j < g; j++) {  // a shifted 2-D Laplacian: diagonally dominant, well conditioned
      const int di[5] = {-1, 0, 0, 0, 1}, dj[5] = {0, -1, 0, 1, 0};
      for (int k = 0; k < 5; k++) {
        const int a = i + di[k], b = j + dj[k];
        if (a < 0 || a >= g || b < 0 || b >= g) continue;
        cols.push_back(a * g + b);
        vals.push_back(k == 2 ? 6.0f : -1.0f);
      }
      rowPtr.push_back((int)cols.size());
    }
  int *dRow, *dCol;
  float *dVal, *x, *r, *p, *q, *partial, *scal;
  cudaMalloc(&dRow, rowPtr.size() * sizeof(int));
  cudaMalloc(&dCol, cols.size() * sizeof(int));
  cudaMalloc(&dVal, vals.size() * sizeof(float));
  for (float **v : {&x, &r, &p, &q}) cudaMalloc(v, n * sizeof(float));
  cudaMalloc(&partial, DOT_BLOCKS * sizeof(float));
  cudaMalloc(&scal, 3 * sizeof(float));  // rr, pq, rrNew
  cudaMemcpy(dRow, rowPtr.data(), rowPtr.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dCol, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dVal, vals.data(), vals.size() * sizeof(float), cudaMemcpyHostToDevice);
  const int spmvBlocks = (n * 32 + BLOCK - 1) / BLOCK, vecBlocks = (n + BLOCK - 1) / BLOCK;
  long launches = 0, iterations = 0;
  std::vector<float> b(n), xs(n);
  for (int sys = 0; sys < systems; sys++) {
    for (int i = 0; i < n; i++) b[i] = (float)((i * (sys + 3)) % 17) - 8.0f;
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemcpy(r, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(p, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    dotPartial<<<DOT_BLOCKS, BLOCK>>>(n, r, r, partial);
    dotFinish<<<1, DOT_BLOCKS>>>(partial, scal);
    launches += 2;
    float rr0 = 0.0f, rr = 0.0f;
    cudaMemcpy(&rr0, scal, sizeof(float), cudaMemcpyDeviceToHost);
    for (int it = 0; it < 100; it++) {
      spmvVector<<<spmvBlocks, BLOCK>>>(n, dRow, dCol, dVal, p, q);
      dotPartial<<<DOT_BLOCKS, BLOCK>>>(n, p, q, partial);
      dotFinish<<<1, DOT_BLOCKS>>>(partial, scal + 1);
      updateXR<<<vecBlocks, BLOCK>>>(n, scal, scal + 1, p, q, x, r);
      dotPartial<<<DOT_BLOCKS, BLOCK>>>(n, r, r, partial);
      dotFinish<<<1, DOT_BLOCKS>>>(partial, scal + 2);
      updateP<<<vecBlocks, BLOCK>>>(n, scal + 2, scal, r, p);
      cudaMemcpy(scal, scal + 2, sizeof(float), cudaMemcpyDeviceToDevice);
      launches += 7;
      iterations++;
      cudaMemcpy(&rr, scal, sizeof(float), cudaMemcpyDeviceToHost);
      if (rr < 1e-10f * rr0) break;
    }
    cudaError_t e = cudaMemcpy(xs.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      printf("CUDA error: %s\n", cudaGetErrorString(e));
      return 1;
    }
    double res = 0.0, nb = 0.0;  // || b - A x || / || b || on the host, in double
    for (int i = 0; i < n; i++) {
      double ax = 0.0;
      for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) ax += (double)vals[k] * xs[cols[k]];
      res += (b[i] - ax) * (b[i] - ax);
      nb += (double)b[i] * b[i];
    }
    if (!(std::sqrt(res / nb) < 1e-4)) {
      printf("system %d: relative residual %g after the iterations (at most 1e-4)\n", sys, std::sqrt(res / nb));
      return 1;
    }
  }
  printf("conjugate gradients: %d systems of %d unknowns, %ld iterations, %ld launches: PASSED\n", systems, n,
         iterations, launches);
  return 0;
}
