// A correct program on guarded device memory: cudaMemcpy both ways (whole buffers and parts of
// them at odd offsets), device to device, cudaMemcpyDefault, cudaMemset, symbols copied from and
// to device memory, managed memory used by host and kernels, sizes that are not multiples of
// 256 (the pointers stay 256-byte aligned), free and allocate again, and many launches, each of
// which opens and closes the buffers it touches.
// emu-test: expect pass
// emu-test: stdout all good
#include <vector>
#include "emu_test.h"

__device__ int dev_table[64];

__global__ void addKernel(int *p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] += v;
}

__global__ void copyKernel(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  const int sizes[] = {1, 63, 64, 1000, 1001, 1024, 4097, 100000};
  for (int n : sizes) {
    int *a, *b;
    CK(cudaMalloc(&a, n * sizeof(int)));
    CK(cudaMalloc(&b, n * sizeof(int)));
    if ((unsigned long long)a % 256 || (unsigned long long)b % 256) {
      printf("n=%d: a device pointer is not 256-byte aligned\n", n);
      return 1;
    }
    std::vector<int> h(n), want(n), got(n);
    for (int i = 0; i < n; i++) h[i] = want[i] = 3 * i;
    CK(cudaMemcpy(a, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const int launches = n <= 1024 ? 300 : 20;
    for (int r = 0; r < launches; r++) addKernel<<<(n + 255) / 256, 256>>>(a, n, 1);
    CK(cudaGetLastError());
    for (int i = 0; i < n; i++) want[i] += launches;
    copyKernel<<<(n + 255) / 256, 256>>>(a, b, n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
    if (!same("kernels, then device to host", want.data(), got.data(), n)) return 1;
    /* parts of a buffer, at odd byte offsets */
    if (n > 10) {
      const char stamp[5] = {1, 2, 3, 4, 5};
      CK(cudaMemcpy((char *)a + 4 * n - 7, stamp, 5, cudaMemcpyHostToDevice));
      char back[7];
      CK(cudaMemcpy(back, (char *)a + 4 * n - 7, 7, cudaMemcpyDeviceToHost));
      for (int k = 0; k < 5; k++)
        if (back[k] != stamp[k]) {
          printf("n=%d: odd-offset copy: byte %d is %d\n", n, k, back[k]);
          return 1;
        }
    }
    CK(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
    CK(cudaMemset(a, 0, n * sizeof(int)));
    CK(cudaMemset((char *)b + 1, 0xFF, 2));
    CK(cudaMemcpy(got.data(), a, n * sizeof(int), cudaMemcpyDefault));
    for (int i = 0; i < n; i++)
      if (got[i]) {
        printf("n=%d: cudaMemset left a[%d] = %d\n", n, i, got[i]);
        return 1;
      }
    CK(cudaMemcpy(got.data(), b, sizeof(int), cudaMemcpyDefault));
    if ((got[0] & 0x00FFFF00) != 0x00FFFF00) {
      printf("n=%d: cudaMemset of two bytes: b[0] = %08x\n", n, got[0]);
      return 1;
    }
    /* a copy that starts in an allocation and runs past its end is refused, whatever its kind */
    std::vector<int> big(n + 64);
    if (cudaMemcpy(big.data(), a, (n + 64) * sizeof(int), cudaMemcpyDefault) != cudaErrorInvalidValue) {
      printf("n=%d: an overrunning cudaMemcpyDefault was not refused\n", n);
      return 1;
    }
    CK(cudaGetLastError() == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }

  /* symbols, from and to device memory */
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  std::vector<int> h(64), got(64);
  for (int i = 0; i < 64; i++) h[i] = 7 * i + 1;
  CK(cudaMemcpy(d, h.data(), sizeof(int) * 64, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(dev_table, d, sizeof(int) * 64, 0, cudaMemcpyDeviceToDevice));
  CK(cudaMemset(d, 0, sizeof(int) * 64));
  CK(cudaMemcpyFromSymbol(d, dev_table, sizeof(int) * 64, 0, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(got.data(), d, sizeof(int) * 64, cudaMemcpyDeviceToHost));
  if (!same("symbol round trip", h.data(), got.data(), 64)) return 1;
  CK(cudaFree(d));

  /* managed memory: the host reads and writes it between launches */
  int *m;
  CK(cudaMallocManaged(&m, 1001 * sizeof(int)));
  for (int i = 0; i < 1001; i++) m[i] = i;
  for (int r = 0; r < 100; r++) addKernel<<<4, 256>>>(m, 1001, 2);
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < 1001; i++)
    if (m[i] != i + 200) {
      printf("managed: m[%d] = %d\n", i, m[i]);
      return 1;
    }
  CK(cudaFree(m));
  printf("all good\n");
  return 0;
}
