// Host test: coefficients in, the polynomial on the device, checked against the host.
#include <cmath>
#include <cstdio>
#include <vector>

void setCoefficients(const float *coeffs);
int evaluate(const float *h_x, float *h_y, int n, unsigned int *calls);

int main() {
  const float coeffs[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  const int n = 10000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = -2.0f + 4.0f * i / n;
  setCoefficients(coeffs);
  unsigned int calls = 0;
  int bad = evaluate(x.data(), y.data(), n, &calls);
  for (int i = 0; i < n; i++) {
    float want = ((coeffs[3] * x[i] + coeffs[2]) * x[i] + coeffs[1]) * x[i] + coeffs[0];
    if (std::fabs(y[i] - want) > 1e-5f * (1.0f + std::fabs(want))) {
      if (!bad) std::printf("x=%f: %f, expected %f\n", x[i], y[i], want);
      bad++;
    }
  }
  if (calls != (unsigned)n) {
    std::printf("the device counter says %u evaluations, expected %d\n", calls, n);
    bad++;
  }
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
