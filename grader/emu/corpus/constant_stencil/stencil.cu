// A 1D stencil of radius 3: the weights in __constant__ memory (cudaMemcpyToSymbol), each block
// loads its tile and halo into shared memory; the result is compared with the host's.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define RADIUS 3
#define BLOCK_SIZE 128

__constant__ float c_weights[2 * RADIUS + 1];

__global__ void stencil1d(const float *in, float *out, int n) {
  __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0.0f;
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = gindex - RADIUS >= 0 ? in[gindex - RADIUS] : 0.0f;
    temp[lindex + BLOCK_SIZE] = gindex + BLOCK_SIZE < n ? in[gindex + BLOCK_SIZE] : 0.0f;
  }
  __syncthreads();
  float result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += c_weights[offset + RADIUS] * temp[lindex + offset];
  if (gindex < n) out[gindex] = result;
}

int main() {
  const int n = 100000;
  float w[2 * RADIUS + 1];
  for (int k = 0; k <= 2 * RADIUS; k++) w[k] = 1.0f / (1 + abs(k - RADIUS));
  float *h_in = (float *)malloc(n * sizeof(float)), *h_out = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h_in[i] = sinf(i * 0.01f);
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(c_weights, w, sizeof w);
  float back[2 * RADIUS + 1];
  cudaMemcpyFromSymbol(back, c_weights, sizeof back);
  stencil1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(d_in, d_out, n);
  cudaError_t e = cudaGetLastError();
  cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = e != cudaSuccess;
  for (int k = 0; k <= 2 * RADIUS; k++) bad += back[k] != w[k];
  for (int i = 0; i < n; i++) {
    float want = 0;
    for (int o = -RADIUS; o <= RADIUS; o++) want += w[o + RADIUS] * (i + o >= 0 && i + o < n ? h_in[i + o] : 0.0f);
    if (fabsf(h_out[i] - want) > 1e-5f) {
      if (!bad) printf("out[%d] = %f, expected %f\n", i, h_out[i], want);
      bad++;
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  free(h_in);
  free(h_out);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
