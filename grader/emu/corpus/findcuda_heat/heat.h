// 2D heat diffusion on the GPU (heat.cu), for the host program.
#pragma once

struct HeatParams {
  int nx, ny;
  float alpha;  // diffusion number, below 0.25 for stability
};

// Runs `steps` explicit steps on grid (nx * ny floats, row-major, fixed boundary); the result
// replaces grid. Returns the number of kernel launches made.
int heatRun(const HeatParams &p, float *grid, int steps);
