// A kernel that does nothing but atomics for longer than SCANLAB_EMU_HANG_S (0.5 s here), under
// the memory probes: it was named a hang (only stores counted as progress); an atomic that
// changes memory counts now. A spin lock's polling (a compare-and-swap that fails, an exchange
// of the value already there) still does not: bad_hang.cu's kind of wait is still named.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_HANG_S=0.5
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: timeout 60
#include <chrono>
#include <cstdio>

__global__ void countKernel(unsigned long long *counter, unsigned long long rounds) {
  for (unsigned long long i = 0; i < rounds; i++) atomicAdd(counter, 1ull);
}

int main() {
  unsigned long long *counter, h = 0, rounds = 1000;
  cudaMalloc(&counter, sizeof *counter);
  cudaMemset(counter, 0, sizeof *counter);
  /* rounds enough for 1.2 s of atomics here, whatever the machine */
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    countKernel<<<2, 64>>>(counter, rounds);
    cudaDeviceSynchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 1.2 || rounds > (1ull << 40)) break;
    rounds = (unsigned long long)(rounds * (s > 0.05 ? 1.3 / s : 16));
  }
  cudaMemcpy(&h, counter, sizeof h, cudaMemcpyDeviceToHost);
  const bool ok = cudaGetLastError() == cudaSuccess && h > 0;
  printf("%s (%llu atomics)\n", ok ? "ok" : "FAILED", h);
  return ok ? 0 : 1;
}
