// Unified memory: cudaMallocManaged arrays written by the host and by kernels, prefetching
// and advice (hints; CUDA 13 takes a cudaMemLocation), a __managed__ variable, and a
// grid-stride loop; checked on the host.
#include <cstdio>
#include <cstdlib>

__managed__ int g_launches = 0;

__global__ void saxpyKernel(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&g_launches, 1);
}

int main() {
  const int n = 1 << 18;
  float *x, *y;
  if (cudaMallocManaged(&x, n * sizeof(float)) != cudaSuccess || cudaMallocManaged(&y, n * sizeof(float)) != cudaSuccess) {
    printf("cudaMallocManaged failed\n");
    return 1;
  }
  for (int i = 0; i < n; i++) {
    x[i] = 1.0f + (i % 10);
    y[i] = 2.0f;
  }
  int device = -1, concurrent = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device);
  if (concurrent) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc = {cudaMemLocationTypeDevice, device};
    cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, loc);
    cudaMemPrefetchAsync(x, n * sizeof(float), loc, 0, 0);
    cudaMemPrefetchAsync(y, n * sizeof(float), loc, 0, 0);
#else
    cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, device);
    cudaMemPrefetchAsync(x, n * sizeof(float), device, 0);
    cudaMemPrefetchAsync(y, n * sizeof(float), device, 0);
#endif
  }
  saxpyKernel<<<64, 256>>>(n, 3.0f, x, y);
  saxpyKernel<<<64, 256>>>(n, -1.0f, x, y);
  cudaError_t e = cudaDeviceSynchronize();
  if (concurrent) {
#if CUDART_VERSION >= 13000
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    cudaMemPrefetchAsync(y, n * sizeof(float), host, 0, 0);
#else
    cudaMemPrefetchAsync(y, n * sizeof(float), cudaCpuDeviceId, 0);
#endif
  }
  cudaDeviceSynchronize();
  int bad = e != cudaSuccess;
  for (int i = 0; i < n; i++) {
    float want = 2.0f + 2.0f * (1.0f + (i % 10));
    if (y[i] != want) {
      if (!bad) printf("y[%d] = %f, expected %f\n", i, y[i], want);
      bad++;
    }
  }
  if (g_launches != 2) {
    printf("__managed__ counter: %d, expected 2\n", g_launches);
    bad++;
  }
  cudaFree(x);
  cudaFree(y);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
