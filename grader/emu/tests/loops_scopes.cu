// Kernels whose loops version (loops.py) once gave another answer than the fibers through what a
// name means where: a local (a block's, a for's, a __shared__ array's in a block) named as a
// global that the kernel says after the local's scope has ended (the rewrite renamed it there
// too); a typedef, a using and an enum of the kernel's own that hide the file's (they reached
// only the stretch they were written in); a parameter whose member function and operator read
// threadIdx (the value was taken for one all threads share); an inlined function's global named
// as the kernel's __shared__ float array. Each kernel runs three times, the later launches as
// loops where it has a loops version, each against the host's answer.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel memberReadsIndex: its later launches run as loops
// emu-test: stdout all kernels: every launch as the host
#include <cstdio>

#define NT 64

__device__ int base = 1000;
__device__ int step = 500;
__device__ int lut[NT];
typedef double real;
using wide_t = int;
const int K = 8;

__global__ void blockLocalHidesGlobal(int *out) {
  __shared__ int s[NT];
  {
    int base = threadIdx.x;
    s[threadIdx.x] = base;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % NT];
  }
  __syncthreads();
  out[threadIdx.x] += base;
}

__global__ void counterHidesGlobal(int *out, int n) {
  __shared__ int s[NT];
  int acc = 0;
  for (int step = 0; step < n; step++) {
    s[threadIdx.x] = threadIdx.x + step;
    __syncthreads();
    acc += s[(threadIdx.x + 1) % NT];
    __syncthreads();
  }
  out[threadIdx.x] = acc + step;
}

__global__ void sharedHidesGlobal(int *out) {
  int r;
  {
    __shared__ int lut[NT];
    lut[threadIdx.x] = threadIdx.x;
    __syncthreads();
    r = lut[(threadIdx.x + 1) % NT];
  }
  __syncthreads();
  out[threadIdx.x] = r + lut[threadIdx.x];
}

__global__ void ownTypes(int *out) {
  typedef unsigned char real;
  using wide_t = long long;
  enum { K = 3 };
  __shared__ int s[NT];
  real c = 200 + threadIdx.x;
  wide_t big = (wide_t)threadIdx.x * 1000000000LL;
  s[threadIdx.x] = c;
  __syncthreads();
  c += s[(threadIdx.x + 1) % NT];
  out[threadIdx.x] = c + K + (int)(big / 1000000000LL);
}

struct Strided {
  const int *p;
  int stride;
  __device__ int at(int k) const { return p[k * stride + threadIdx.x]; }
  __device__ int operator[](int k) const { return p[k * stride + threadIdx.x]; }
};

__global__ void memberReadsIndex(Strided a, int *out) {
  __shared__ int s[NT];
  int v = a.at(1);
  int w = a[0];
  __syncthreads();
  s[threadIdx.x] = v + w;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % NT];
}

__device__ float table[NT];
__device__ float fromTable(float *buf, int i) {
  buf[i] = table[i];
  __syncthreads();
  return buf[(i + 1) % NT];
}

__global__ void sharedFloatHidesCallee(float *out) {
  __shared__ float table[NT];
  table[threadIdx.x] = -1.0f;
  __syncthreads();
  out[threadIdx.x] = fromTable(table, threadIdx.x);
}

static int *d_out, *d_in;
static int got[2 * NT];
static int bad = 0;

template <class L, class W>
static void three(const char *name, L launch, W expect) {
  for (int k = 0; k < 3; k++) {
    cudaMemset(d_out, 0, sizeof got);
    launch();
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    int i = 0;
    while (i < NT && got[i] == expect(i)) i++;
    if (e != cudaSuccess || i < NT) {
      bad++;
      printf("%s, launch %d: %s", name, k + 1, cudaGetErrorString(e));
      if (i < NT) printf(", element %d is %d, the host says %d", i, got[i], expect(i));
      printf("\n");
    }
  }
}

int main() {
  cudaMalloc(&d_out, sizeof got);
  cudaMalloc(&d_in, 2 * NT * sizeof(int));
  int h[2 * NT];
  for (int i = 0; i < 2 * NT; i++) h[i] = 3 * i;
  cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
  int hl[NT];
  for (int i = 0; i < NT; i++) hl[i] = 100 * i;
  cudaMemcpyToSymbol(lut, hl, sizeof hl);
  float ht[NT];
  for (int i = 0; i < NT; i++) ht[i] = 100.0f + i;
  cudaMemcpyToSymbol(table, ht, sizeof ht);
  three("blockLocalHidesGlobal", [] { blockLocalHidesGlobal<<<1, NT>>>(d_out); },
        [](int t) { return (t + 1) % NT + 1000; });
  three("counterHidesGlobal", [] { counterHidesGlobal<<<1, NT>>>(d_out, 3); },
        [](int t) { return 3 * ((t + 1) % NT) + 0 + 1 + 2 + 500; });
  three("sharedHidesGlobal", [] { sharedHidesGlobal<<<1, NT>>>(d_out); },
        [](int t) { return (t + 1) % NT + 100 * t; });
  three("ownTypes", [] { ownTypes<<<1, NT>>>(d_out); },
        [](int t) { return (unsigned char)(200 + t + (unsigned char)(200 + (t + 1) % NT)) + 3 + t; });
  three("memberReadsIndex", [] { memberReadsIndex<<<1, NT>>>(Strided{d_in, NT}, d_out); },
        [](int t) { return 3 * (NT + (t + 1) % NT) + 3 * ((t + 1) % NT); });
  three("sharedFloatHidesCallee", [] { sharedFloatHidesCallee<<<1, NT>>>((float *)d_out); },
        [](int t) {
          const float f = 100.0f + (t + 1) % NT;
          int bits;
          memcpy(&bits, &f, sizeof bits);
          return bits;
        });
  if (!bad) printf("all kernels: every launch as the host\n");
  return bad != 0;
}
