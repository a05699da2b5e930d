// A first-week exercise: a 3D grid of 3D blocks, each thread computing its global linear index
// from blockIdx, blockDim and threadIdx; a few threads report with device printf. The host
// checks that every index was written once with the expected coordinates.
#include <stdio.h>
#include <stdlib.h>

__global__ void whoAmI(int *slots, int total) {
  int block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  int threadsPerBlock = blockDim.x * blockDim.y * blockDim.z;
  int inBlock = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  int id = block * threadsPerBlock + inBlock;
  if (id < total) atomicAdd(&slots[id], 1 + (threadIdx.z * 100 + threadIdx.y * 10 + threadIdx.x) * 16);
  if (id == 0 || id == total - 1)
    printf("thread %d: block (%d,%d,%d), thread (%d,%d,%d)\n", id, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
           threadIdx.y, threadIdx.z);
}

int main(void) {
  dim3 grid(3, 2, 2), block(4, 3, 2);
  int total = 3 * 2 * 2 * 4 * 3 * 2;
  int *d, *h = (int *)malloc(total * sizeof(int));
  cudaMalloc((void **)&d, total * sizeof(int));
  cudaMemset(d, 0, total * sizeof(int));
  whoAmI<<<grid, block>>>(d, total);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, total * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int id = 0; id < total; id++) {
    int t = id % 24, x = t % 4, y = (t / 4) % 3, z = t / 12;
    if (h[id] != 1 + (z * 100 + y * 10 + x) * 16) {
      if (!bad) printf("slot %d: %d\n", id, h[id]);
      bad++;
    }
  }
  cudaFree(d);
  free(h);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad;
}
