// Launch configurations the real runtime refuses: each returns the same CUDA error without
// running, prints a diagnostic, and leaves the context usable (these errors are not sticky).
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stderr launch of k at bad_config.cu:36: block dimension x is 2048; the limit is 1024 (cudaErrorInvalidConfiguration)
// emu-test: stderr block (32,32,2) has 2048 threads; the limit is 1024 (cudaErrorInvalidConfiguration)
// emu-test: stderr block dimension z is 128; the limit is 64 (cudaErrorInvalidConfiguration)
// emu-test: stderr grid dimension y is 70000; the limit is 65535 (cudaErrorInvalidConfiguration)
// emu-test: stderr empty grid (0,1,1) (cudaErrorInvalidConfiguration)
// emu-test: stderr empty block (0,1,1) (cudaErrorInvalidConfiguration)
// emu-test: stderr 65536 bytes of dynamic shared memory; the kernel's limit is 49152
// emu-test: stderr 240000 bytes of dynamic shared memory; the kernel's limit is 232448 (cudaErrorInvalidValue)
// emu-test: stdout all refused as expected
#include <cstdio>

__global__ void k(int *p) {
  extern __shared__ int s[];
  s[threadIdx.x] = 1;
  if (p) p[threadIdx.x] = s[threadIdx.x];
}

/* The emu is CUDA 12.0's runtime (CUDART_VERSION 12000), which refuses a bad shape with
 * cudaErrorInvalidConfiguration; built with nvcc 13.0 and run on an H200, each of these
 * launches returned cudaErrorInvalidValue instead. */
static const cudaError_t BAD_SHAPE = CUDART_VERSION >= 13000 ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration;

static int expect(cudaError_t want, const char *what) {
  cudaError_t got = cudaGetLastError();
  if (got == want) return 1;
  printf("%s: expected %s, got %s\n", what, cudaGetErrorName(want), cudaGetErrorName(got));
  return 0;
}

int main() {
  int ok = 1;
  k<<<1, 2048>>>(nullptr);
  ok &= expect(BAD_SHAPE, "2048 threads");
  k<<<1, dim3(32, 32, 2)>>>(nullptr);
  ok &= expect(BAD_SHAPE, "32x32x2 threads");
  k<<<1, dim3(1, 1, 128)>>>(nullptr);
  ok &= expect(BAD_SHAPE, "block z 128");
  k<<<dim3(1, 70000), 32>>>(nullptr);
  ok &= expect(BAD_SHAPE, "grid y 70000");
  k<<<0, 32>>>(nullptr);
  ok &= expect(BAD_SHAPE, "empty grid");
  k<<<1, 0>>>(nullptr);
  ok &= expect(BAD_SHAPE, "empty block");
  k<<<1, 32, 65536>>>(nullptr);
  ok &= expect(cudaErrorInvalidValue, "64 KiB dynamic shared memory");
  if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 300000) != cudaErrorInvalidValue) {
    printf("raising the limit over 227 KiB should fail\n");
    ok = 0;
  }
  cudaGetLastError();
  if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448) != cudaSuccess) ok = 0;
  k<<<1, 32, 65536>>>(nullptr);
  ok &= expect(cudaSuccess, "64 KiB after cudaFuncSetAttribute");
  k<<<1, 32, 240000>>>(nullptr);
  ok &= expect(cudaErrorInvalidValue, "240000 bytes");
  int *d;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) ok = 0;
  k<<<1, 32, 32 * sizeof(int)>>>(d);
  ok &= expect(cudaSuccess, "a good launch afterwards");
  if (cudaDeviceSynchronize() != cudaSuccess) ok = 0;
  if (!ok) return 1;
  printf("all refused as expected\n");
  return 0;
}
