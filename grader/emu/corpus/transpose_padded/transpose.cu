// Matrix transpose three ways (a naive copy, a shared-memory tile, a padded tile that avoids
// bank conflicts), a classic exercise of coalescing and shared-memory banks; every output is
// compared with the host's transpose.
#include <cstdio>
#include <cstdlib>
#include <cstring>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

#define checkCuda(result)                                                                 \
  if ((result) != cudaSuccess) {                                                          \
    fprintf(stderr, "CUDA Runtime Error: %s\n", cudaGetErrorString(result));             \
    exit(1);                                                                              \
  }

__global__ void transposeNaive(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int nx = 200, ny = 136;  // not multiples of the tile
  const size_t mem = nx * ny * sizeof(float);
  dim3 dimGrid((nx + TILE_DIM - 1) / TILE_DIM, (ny + TILE_DIM - 1) / TILE_DIM, 1), dimBlock(TILE_DIM, BLOCK_ROWS, 1);
  float *h_idata = (float *)malloc(mem), *h_tdata = (float *)malloc(mem), *gold = (float *)malloc(mem);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) h_idata[j * nx + i] = j * nx + i;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) gold[i * ny + j] = h_idata[j * nx + i];
  float *d_idata, *d_tdata;
  checkCuda(cudaMalloc(&d_idata, mem));
  checkCuda(cudaMalloc(&d_tdata, mem));
  checkCuda(cudaMemcpy(d_idata, h_idata, mem, cudaMemcpyHostToDevice));
  int failures = 0;
  const char *names[] = {"naive", "coalesced", "no bank conflicts"};
  for (int k = 0; k < 3; k++) {
    checkCuda(cudaMemset(d_tdata, 0, mem));
    if (k == 0) transposeNaive<<<dimGrid, dimBlock>>>(d_tdata, d_idata, nx, ny);
    if (k == 1) transposeCoalesced<<<dimGrid, dimBlock>>>(d_tdata, d_idata, nx, ny);
    if (k == 2) transposeNoBankConflicts<<<dimGrid, dimBlock>>>(d_tdata, d_idata, nx, ny);
    checkCuda(cudaGetLastError());
    checkCuda(cudaMemcpy(h_tdata, d_tdata, mem, cudaMemcpyDeviceToHost));
    bool ok = memcmp(h_tdata, gold, mem) == 0;
    printf("%-18s %s\n", names[k], ok ? "ok" : "WRONG");
    failures += !ok;
  }
  checkCuda(cudaFree(d_tdata));
  checkCuda(cudaFree(d_idata));
  free(h_idata);
  free(h_tdata);
  free(gold);
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
