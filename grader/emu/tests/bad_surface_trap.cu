// A surface write past the surface's edge with the default boundary mode (trap) fails the
// launch, naming the coordinate and the surface's size, as the GPU's launch fails.
// emu-test: expect fail
// emu-test: stderr surf2Dwrite: coordinate (32, 0, 0) is outside the 32 x 2 x 1 surface
// emu-test: stderr cudaErrorLaunchFailure
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void writeRow(cudaSurfaceObject_t s) {
  /* x is in bytes: thread 8 writes at byte 32, one float past the row of 8 */
  surf2Dwrite(1.0f, s, threadIdx.x * (int)sizeof(float), 0);
}

int main() {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  if (cudaMallocArray(&arr, &fd, 8, 2, cudaArraySurfaceLoadStore) != cudaSuccess) return 2;
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaSurfaceObject_t s;
  if (cudaCreateSurfaceObject(&s, &rd) != cudaSuccess) return 2;
  writeRow<<<1, 9>>>(s);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("launch: %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
