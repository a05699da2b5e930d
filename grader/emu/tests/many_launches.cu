// Launch cost (issue: "thousands of launches are too slow"): 3000 small launches, as iterative
// programs make them (a solver's sweep, a level of a search), each one block of 128 threads
// that passes a barrier, on a buffer one launch hands to the next. The emulator must finish
// them in under 400 ms with 2 workers (about 25 us a launch measured; a GPU takes 2 to 5 us),
// with the right sums after every launch.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: max-ms 400
#include <chrono>
#include <vector>
#include "emu_test.h"

#define THREADS 128
#define LAUNCHES 3000

// x[t] becomes x[t] + x[t + 1] (wrapping at the block's end; sums wrap modulo 2^32)
__global__ void step(unsigned *x) {
  __shared__ unsigned s[THREADS];
  const int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  x[t] = s[t] + s[(t + 1) % THREADS];
}

int main() {
  std::vector<unsigned> h(THREADS), got(THREADS);
  for (int t = 0; t < THREADS; t++) h[t] = t % 7;
  unsigned *d;
  CK(cudaMalloc(&d, THREADS * sizeof(unsigned)));
  CK(cudaMemcpy(d, h.data(), THREADS * sizeof(unsigned), cudaMemcpyHostToDevice));
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < LAUNCHES; k++) step<<<1, THREADS>>>(d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (int k = 0; k < LAUNCHES; k++) {
    std::vector<unsigned> next(THREADS);
    for (int t = 0; t < THREADS; t++) next[t] = h[t] + h[(t + 1) % THREADS];
    h = next;
  }
  CK(cudaMemcpy(got.data(), d, THREADS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (!same("many_launches", h.data(), got.data(), THREADS)) return 1;
  printf("many_launches: %d launches of %d threads\ntime_ms: %.1f\n", LAUNCHES, THREADS, ms);
  CK(cudaFree(d));
  return 0;
}
