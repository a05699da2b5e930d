// Runs the heat kernel and the same steps on the host; compares every cell.
#include <cmath>
#include <cstdio>
#include <vector>

#include "heat.h"

int main() {
  HeatParams p = {100, 70, 0.2f};
  const int steps = 200;
  std::vector<float> g(p.nx * p.ny, 0.0f), h;
  for (int x = 0; x < p.nx; x++) g[x] = 100.0f;  // a hot top edge
  for (int y = 0; y < p.ny; y++) g[y * p.nx] = 50.0f;
  h = g;
  int launches = heatRun(p, g.data(), steps);
  std::vector<float> next(h.size());
  for (int s = 0; s < steps; s++) {
    for (int y = 0; y < p.ny; y++)
      for (int x = 0; x < p.nx; x++) {
        int i = y * p.nx + x;
        if (x == 0 || y == 0 || x == p.nx - 1 || y == p.ny - 1) {
          next[i] = h[i];
          continue;
        }
        next[i] = h[i] + p.alpha * (h[i - 1] + h[i + 1] + h[i - p.nx] + h[i + p.nx] - 4.0f * h[i]);
      }
    h.swap(next);
  }
  int bad = 0;
  for (size_t i = 0; i < h.size(); i++)
    if (std::fabs(g[i] - h[i]) > 1e-3f) {
      if (!bad) std::printf("cell %zu: %f, expected %f\n", i, g[i], h[i]);
      bad++;
    }
  std::printf("%d launches, %dx%d cells: %s\n", launches, p.nx, p.ny, bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
