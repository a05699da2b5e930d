// Dynamic shared memory the ways CUDA code declares it: one file-scope extern __shared__
// array used by two kernels and a device function, the same name declared again inside another
// kernel, an aligned byte array reinterpreted in a template (__align__(sizeof(T))), and a
// kernel that raises its dynamic limit above 48 KiB. Each result is checked on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));        \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

extern __shared__ float sdata[];

__device__ float blockSum(float v) {
  sdata[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  float r = sdata[0];
  __syncthreads();
  return r;
}

__global__ void sumKernel(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = blockSum(i < n ? in[i] : 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

__global__ void reverseKernel(float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *tile = sdata + 0;  // the same array through a pointer
  if (i < n) tile[threadIdx.x] = d[i];
  __syncthreads();
  int last = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x)) - 1;
  if (i < n) d[i] = tile[last - threadIdx.x];
}

__global__ void scaleKernel(int *d, int n, int f) {
  extern __shared__ int sdata_i[];  // another kernel's own declaration
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata_i[threadIdx.x] = i < n ? d[i] : 0;
  __syncthreads();
  if (i < n) d[i] = sdata_i[threadIdx.x] * f;
}

template <typename T>
__global__ void rotateKernel(T *d, int n) {
  extern __shared__ __align__(sizeof(T)) unsigned char my_smem[];
  T *s = reinterpret_cast<T *>(my_smem);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[threadIdx.x] = d[i];
  __syncthreads();
  int width = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  if (i < n) d[i] = s[(threadIdx.x + 1) % width];
}

__global__ void bigTileKernel(int *d, int n) {
  extern __shared__ int big[];
  const int per = 64 * 1024 / sizeof(int) / blockDim.x;  // 64 KiB of shared memory
  for (int k = 0; k < per; k++) big[threadIdx.x * per + k] = threadIdx.x + k;
  __syncthreads();
  int acc = 0;
  for (int k = 0; k < per; k++) acc += big[((threadIdx.x + 1) % blockDim.x) * per + k];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = acc;
}

int main() {
  const int n = 1000, B = 128, blocks = (n + B - 1) / B;
  int bad = 0;
  std::vector<float> h(n), out(blocks);
  for (int i = 0; i < n; i++) h[i] = (float)(i % 17);
  float *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(float)));
  CK(cudaMalloc(&d_out, blocks * sizeof(float)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  sumKernel<<<blocks, B, B * sizeof(float)>>>(d_in, d_out, n);
  CK(cudaMemcpy(out.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    float want = 0;
    for (int i = b * B; i < n && i < (b + 1) * B; i++) want += h[i];
    if (out[b] != want) bad += printf("sum of block %d: %f, expected %f\n", b, out[b], want) > 0;
  }
  reverseKernel<<<blocks, B, B * sizeof(float)>>>(d_in, n);
  std::vector<float> rev(n);
  CK(cudaMemcpy(rev.data(), d_in, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int b = i / B, lo = b * B, hi = std::min(n, lo + B) - 1;
    if (rev[i] != h[lo + hi - i]) {
      bad++;
      printf("reverse [%d]: %f, expected %f\n", i, rev[i], h[lo + hi - i]);
      break;
    }
  }
  std::vector<int> hi(n), got(n);
  for (int i = 0; i < n; i++) hi[i] = i;
  int *d_i;
  CK(cudaMalloc(&d_i, n * sizeof(int)));
  CK(cudaMemcpy(d_i, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scaleKernel<<<blocks, B, B * sizeof(int)>>>(d_i, n, 3);
  rotateKernel<int><<<blocks, B, B * sizeof(int)>>>(d_i, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_i, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int lo = i / B * B, w = std::min(B, n - lo);
    int want = 3 * (lo + (i - lo + 1) % w);
    if (got[i] != want) {
      bad++;
      printf("scale+rotate [%d]: %d, expected %d\n", i, got[i], want);
      break;
    }
  }
  std::vector<double> hd(n), gd(n);
  for (int i = 0; i < n; i++) hd[i] = i * 0.5;
  double *d_d;
  CK(cudaMalloc(&d_d, n * sizeof(double)));
  CK(cudaMemcpy(d_d, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  rotateKernel<double><<<blocks, B, B * sizeof(double)>>>(d_d, n);
  CK(cudaMemcpy(gd.data(), d_d, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int lo = i / B * B, w = std::min(B, n - lo);
    if (gd[i] != hd[lo + (i - lo + 1) % w]) {
      bad++;
      printf("rotate<double> [%d]: %f\n", i, gd[i]);
      break;
    }
  }
  CK(cudaFuncSetAttribute(bigTileKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  bigTileKernel<<<2, 256, 64 * 1024>>>(d_i, 512);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_i, 512 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 512; t++) {
    int u = (t % 256 + 1) % 256, want = 0;
    for (int k = 0; k < 64; k++) want += u + k;
    if (got[t] != want) {
      bad++;
      printf("64 KiB tile [%d]: %d, expected %d\n", t, got[t], want);
      break;
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_i);
  cudaFree(d_d);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
