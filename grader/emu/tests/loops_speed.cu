// What running a kernel as loops gains (loops.py), measured in one run: a segmented scan of
// 2^20 elements in blocks of 256 threads with 15 barriers a thread, its first launch on fibers,
// its next three as loops. Each launch is checked; the best of the three as loops must be at
// least 3 times faster than the one on fibers (about 10 times on an idle 2-core machine; the
// same on fibers, before loops.py, it was 1).
// emu-test: loops
// emu-test: schedules forward
// emu-test: stdout right
// emu-test: native no it measures the emu's loops against its fibers
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define THREADS 256

__device__ unsigned segmentSum(unsigned *s, unsigned mine, unsigned width) {
  const unsigned t = threadIdx.x, lane = t & (width - 1);
  s[t] = mine;
  for (unsigned step = 1; step < width; step <<= 1) {
    __syncthreads();
    const unsigned add = lane >= step ? s[t - step] : 0;
    __syncthreads();
    s[t] += add;
  }
  return s[t];
}

__global__ void segments(unsigned *dst, const unsigned *src, unsigned width) {
  __shared__ unsigned s[THREADS];
  const unsigned i = blockIdx.x * THREADS + threadIdx.x;
  dst[i] = segmentSum(s, src[i], width);
}

int main() {
  const unsigned n = 1u << 20, width = 128;
  unsigned *h = (unsigned *)malloc(n * sizeof(unsigned)), *r = (unsigned *)malloc(n * sizeof(unsigned));
  unsigned *dSrc, *dDst;
  cudaMalloc(&dSrc, n * sizeof(unsigned));
  cudaMalloc(&dDst, n * sizeof(unsigned));
  for (unsigned i = 0; i < n; i++) h[i] = (i * 2654435761u) >> 28;
  cudaMemcpy(dSrc, h, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  double fibers = 0, loops = 1e30;
  int bad = 0;
  for (int launch = 0; launch < 4; launch++) {
    const auto t0 = std::chrono::steady_clock::now();
    segments<<<n / THREADS, THREADS>>>(dDst, dSrc, width);
    cudaDeviceSynchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (launch == 0) fibers = s;
    else if (s < loops) loops = s;
    cudaMemcpy(r, dDst, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++) {
      acc = i % width ? acc + h[i] : h[i];
      bad += r[i] != acc;
    }
  }
  printf("%s: fibers %.3f s, loops %.3f s, %.1f times\n", bad ? "WRONG" : "right", fibers, loops, fibers / loops);
  return bad || fibers < 3 * loops;
}
