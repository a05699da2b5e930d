// Uses libvecops.a: axpy, a transform with the library's functors, a sum; checked on the host.
#include <cmath>
#include <cstdio>
#include <vector>

#include "vecops.h"

int main() {
  const int n = 5000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 10);
    y[i] = 1.0f;
  }
  float *d_x, *d_y, *d_o;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_o, n * sizeof(float));
  cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  vecops::axpy(n, 2.0f, d_x, d_y, d_o);
  vecops::transform(n, d_o, d_o, vecops::Square());
  vecops::transform(n, d_o, d_y, vecops::Negate());
  float total = vecops::sum(n, d_y);
  cudaMemcpy(out.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  double ref = 0;
  for (int i = 0; i < n; i++) {
    float v = 2.0f * x[i] + 1.0f, want = -(v * v);
    ref += want;
    if (out[i] != want) {
      if (!bad) std::printf("out[%d] = %f, expected %f\n", i, out[i], want);
      bad++;
    }
  }
  if (std::fabs(total - ref) > 1e-4 * std::fabs(ref)) {
    std::printf("sum %f, expected %f\n", total, ref);
    bad++;
  }
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_o);
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
