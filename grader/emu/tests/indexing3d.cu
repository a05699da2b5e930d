// 2D and 3D grids and blocks: every thread computes its global coordinates; each cell is
// written exactly once with values derived from threadIdx/blockIdx/blockDim/gridDim.
// emu-test: expect pass
#include <vector>
#include "emu_test.h"

__global__ void index3dKernel(int *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    int lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    atomicAdd(&out[(z * ny + y) * nx + x], 1000 * (int)(gridDim.x * gridDim.y * gridDim.z) + (lin % warpSize));
  }
}

__global__ void index2dKernel(int *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = y * 10000 + x;
}

int main() {
  const int nx = 37, ny = 21, nz = 9, n = nx * ny * nz;
  int *d;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMemset(d, 0, n * sizeof(int)));
  dim3 block(8, 4, 2), grid((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
  index3dKernel<<<grid, block>>>(d, nx, ny, nz);
  CK(cudaGetLastError());
  std::vector<int> got(n);
  CK(cudaMemcpy(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  const int g = (int)(grid.x * grid.y * grid.z);
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int lin = (x % 8) + 8 * ((y % 4) + 4 * (z % 2));
        int want = 1000 * g + lin % 32, v = got[(z * ny + y) * nx + x];
        if (v != want) {
          printf("3d: cell (%d,%d,%d): expected %d, got %d\n", x, y, z, want, v);
          return 1;
        }
      }
  const int w = 100, h = 50;
  int *d2;
  CK(cudaMalloc(&d2, w * h * sizeof(int)));
  index2dKernel<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(d2, w, h);
  std::vector<int> g2(w * h);
  CK(cudaMemcpy(g2.data(), d2, w * h * sizeof(int), cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (g2[y * w + x] != y * 10000 + x) {
        printf("2d: cell (%d,%d) wrong\n", x, y);
        return 1;
      }
  printf("ok\n");
  return 0;
}
