// Dynamic shared memory: `extern __shared__` in a kernel and at file scope, sized by the
// launch; poisoned with 0xCD bytes at block start; the 48 KiB limit raised with
// cudaFuncSetAttribute to 100 KiB.
// emu-test: expect pass
// emu-test: native no it checks the poison the emu leaves in fresh shared memory
#include <vector>
#include "emu_test.h"

extern __shared__ float fileScopeDyn[];

__global__ void reverseKernel(const int *in, int *out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
  if (j < n) out[j] = buf[t];
}

__global__ void poisonKernel(unsigned *out) {
  extern __shared__ unsigned char raw[];
  __shared__ unsigned stat[4];
  if (threadIdx.x == 0) {
    out[0] = raw[0] | raw[5] << 8;
    out[1] = stat[3];
  }
  __syncthreads();
  raw[threadIdx.x] = 1; /* dirty both, so the next block must see fresh poison */
  if (threadIdx.x < 4) stat[threadIdx.x] = 0;
}

__global__ void bigKernel(float *out, int n) {
  for (int k = threadIdx.x; k < n; k += blockDim.x) fileScopeDyn[k] = (float)k;
  __syncthreads();
  float s = 0;
  for (int k = 0; k < n; k++) s += fileScopeDyn[k];
  if (threadIdx.x == 0) out[0] = s;
}

int main() {
  const int n = 1000, B = 128;
  std::vector<int> h(n), got(n);
  for (int i = 0; i < n; i++) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_out, 0, n * sizeof(int)));
  reverseKernel<<<(n + B - 1) / B, B, B * sizeof(int)>>>(d_in, d_out, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int b = i / B, t = i % B, src = b * B + (B - 1 - t);
    int want = src < n ? h[src] : 0;
    if (got[i] != want) {
      printf("reverse: first mismatch at [%d]: expected %d, got %d\n", i, want, got[i]);
      return 1;
    }
  }
  unsigned *d_p, hp[2];
  CK(cudaMalloc(&d_p, sizeof hp));
  for (int rep = 0; rep < 2; rep++) {
    poisonKernel<<<3, 32, 64>>>(d_p);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hp, d_p, sizeof hp, cudaMemcpyDeviceToHost));
    if (hp[0] != 0xCDCD || hp[1] != 0xCDCDCDCD) {
      printf("poison: expected 0xcdcd and 0xcdcdcdcd, got %#x and %#x\n", hp[0], hp[1]);
      return 1;
    }
  }
  const int big = 100 * 1024, nf = big / (int)sizeof(float);
  float *d_f, hf;
  CK(cudaMalloc(&d_f, sizeof(float)));
  bigKernel<<<1, 256, big>>>(d_f, nf);
  if (cudaGetLastError() != cudaErrorInvalidValue) {
    printf("a launch with 100 KiB of dynamic shared memory should fail before cudaFuncSetAttribute\n");
    return 1;
  }
  CK(cudaFuncSetAttribute(bigKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  bigKernel<<<1, 256, big>>>(d_f, nf);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&hf, d_f, sizeof hf, cudaMemcpyDeviceToHost));
  float want = 0;
  for (int k = 0; k < nf; k++) want += (float)k;
  if (hf != want) {
    printf("big: expected %g, got %g\n", want, hf);
    return 1;
  }
  printf("ok\n");
  return 0;
}
