#include "common.h"

void checkCUDAErrorFn(const char *msg, const char *file, int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess == err) return;
  fprintf(stderr, "CUDA error");
  if (file) fprintf(stderr, " (%s:%d)", file, line);
  fprintf(stderr, ": %s: %s\n", msg, cudaGetErrorString(err));
  exit(EXIT_FAILURE);
}

namespace StreamCompaction {
namespace Common {

__global__ void kernMapToBoolean(int n, int *bools, const int *idata) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  bools[index] = idata[index] != 0 ? 1 : 0;
}

__global__ void kernScatter(int n, int *odata, const int *idata, const int *bools, const int *indices) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  if (bools[index]) odata[indices[index]] = idata[index];
}

}  // namespace Common
}  // namespace StreamCompaction
