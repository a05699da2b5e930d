// Sparse matrix-vector product in CSR form, the "vector" kernel: one warp per row, lanes
// stride over the row's nonzeros and reduce with __shfl_down_sync. Rows of very different
// lengths (0 to 300 nonzeros); compared with the host's product.
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void spmvCsrVector(int rows, const int *rowPtr, const int *cols, const float *vals, const float *x,
                              float *y) {
  int thread = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = thread / 32, lane = thread & 31;
  if (warp >= rows) return;  // whole warps leave together
  float sum = 0.0f;
  for (int k = rowPtr[warp] + lane; k < rowPtr[warp + 1]; k += 32) sum += vals[k] * x[cols[k]];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[warp] = sum;
}

int main() {
  const int rows = 2000, ncols = 1500;
  std::vector<int> rowPtr(rows + 1, 0), cols;
  std::vector<float> vals, x(ncols), y(rows), ref(rows, 0.0f);
  unsigned s = 17;
  auto next = [&s]() { return s = s * 1103515245u + 12345u, (s >> 16) & 0x7fff; };
  for (int r = 0; r < rows; r++) {
    int len = r % 97 == 0 ? 300 : (int)(next() % 12);
    for (int k = 0; k < len; k++) {
      cols.push_back((int)(next() % ncols));
      vals.push_back((float)(next() % 100) / 10.0f);
    }
    rowPtr[r + 1] = (int)cols.size();
  }
  for (int c = 0; c < ncols; c++) x[c] = (float)(c % 7) - 3.0f;
  for (int r = 0; r < rows; r++)
    for (int k = rowPtr[r]; k < rowPtr[r + 1]; k++) ref[r] += vals[k] * x[cols[k]];
  int *d_rowPtr, *d_cols;
  float *d_vals, *d_x, *d_y;
  cudaMalloc(&d_rowPtr, (rows + 1) * sizeof(int));
  cudaMalloc(&d_cols, cols.size() * sizeof(int));
  cudaMalloc(&d_vals, vals.size() * sizeof(float));
  cudaMalloc(&d_x, ncols * sizeof(float));
  cudaMalloc(&d_y, rows * sizeof(float));
  cudaMemcpy(d_rowPtr, rowPtr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_cols, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_vals, vals.data(), vals.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_x, x.data(), ncols * sizeof(float), cudaMemcpyHostToDevice);
  const int threads = 128;
  spmvCsrVector<<<(rows * 32 + threads - 1) / threads, threads>>>(rows, d_rowPtr, d_cols, d_vals, d_x, d_y);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = e != cudaSuccess;
  for (int r = 0; r < rows; r++)
    if (std::fabs(y[r] - ref[r]) > 1e-3f * (1.0f + std::fabs(ref[r]))) {
      if (!bad) std::printf("row %d: %f, expected %f\n", r, y[r], ref[r]);
      bad++;
    }
  cudaFree(d_rowPtr);
  cudaFree(d_cols);
  cudaFree(d_vals);
  cudaFree(d_x);
  cudaFree(d_y);
  std::printf("%d rows, %zu nonzeros: %s\n", rows, vals.size(), bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
