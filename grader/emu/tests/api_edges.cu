// Runtime calls at the edges of what they accept, as an H200 answers them (nvcc 13.0): a copy
// past the end of a __device__ symbol is refused (the emu wrote past the symbol, into whatever
// followed it); the legacy stream 0 cannot be destroyed; no block of more than 1024 threads fits
// on a multiprocessor; a device attribute that does not exist is refused (the emu answered 0).
// Each refusal is also what cudaGetLastError returns next.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stdout to symbol: cudaErrorInvalidValue cudaErrorInvalidValue cudaErrorInvalidValue, neighbour 7
// emu-test: stdout from symbol: cudaErrorInvalidValue cudaSuccess
// emu-test: stdout destroy stream 0: cudaErrorInvalidResourceHandle cudaSuccess cudaErrorInvalidResourceHandle
// emu-test: stdout blocks of 1024 and 2048 threads: 2 0
// emu-test: stdout attribute 99999: cudaErrorInvalidValue cudaErrorInvalidValue, warp size 32
#include <cstdio>

__device__ int pair[2];
__device__ int neighbour = 7;

__global__ void emptyKernel() {}

int main() {
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0}, n = -1;
  const cudaError_t a = cudaMemcpyToSymbol(pair, v, sizeof v);
  const cudaError_t b = cudaMemcpyToSymbol(pair, v, sizeof(int), 2 * sizeof(int));
  const cudaError_t c = cudaGetLastError();
  cudaMemcpyFromSymbol(&n, neighbour, sizeof n);
  printf("to symbol: %s %s %s, neighbour %d\n", cudaGetErrorName(a), cudaGetErrorName(b), cudaGetErrorName(c), n);
  const cudaError_t d = cudaMemcpyFromSymbol(back, pair, sizeof back);
  const cudaError_t e = cudaMemcpyFromSymbol(back, pair, sizeof(int), sizeof(int));
  cudaGetLastError();
  printf("from symbol: %s %s\n", cudaGetErrorName(d), cudaGetErrorName(e));
  const cudaError_t f = cudaStreamDestroy(0);
  const cudaError_t g = cudaStreamSynchronize(0);
  const cudaError_t h = cudaGetLastError();
  printf("destroy stream 0: %s %s %s\n", cudaGetErrorName(f), cudaGetErrorName(g), cudaGetErrorName(h));
  int fit1024 = -1, fit2048 = -1;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit1024, emptyKernel, 1024, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit2048, emptyKernel, 2048, 0);
  printf("blocks of 1024 and 2048 threads: %d %d\n", fit1024, fit2048);
  int attr = -1, warp = -1;
  const cudaError_t i = cudaDeviceGetAttribute(&attr, (cudaDeviceAttr)99999, 0);
  const cudaError_t j = cudaGetLastError();
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  printf("attribute 99999: %s %s, warp size %d\n", cudaGetErrorName(i), cudaGetErrorName(j), warp);
  return 0;
}
