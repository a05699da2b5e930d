// A grid-wide barrier: a cooperative kernel normalizes a vector in one launch. Each block
// sums its part, grid.sync(), block 0 adds the partial sums, grid.sync(), every thread divides
// by the total. Launched with cudaLaunchCooperativeKernel on as many blocks as fit at once.
#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

namespace cg = cooperative_groups;

__global__ void normalizeKernel(float *data, float *partial, float *total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  extern __shared__ float sdata[];
  float mySum = 0;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) mySum += data[i];
  sdata[block.thread_rank()] = mySum;
  block.sync();
  for (unsigned s = block.size() / 2; s > 0; s >>= 1) {
    if (block.thread_rank() < s) sdata[block.thread_rank()] += sdata[block.thread_rank() + s];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = sdata[0];
  grid.sync();
  if (blockIdx.x == 0 && block.thread_rank() == 0) {
    float t = 0;
    for (unsigned b = 0; b < gridDim.x; b++) t += partial[b];
    *total = t;
  }
  grid.sync();
  float t = *total;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) data[i] /= t;
}

int main(int argc, char **argv) {
  int dev = findCudaDevice(argc, (const char **)argv);
  int supportsCoop = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&supportsCoop, cudaDevAttrCooperativeLaunch, dev));
  if (!supportsCoop) {
    printf("cooperative launches are not supported: waived\n");
    return 0;
  }
  const int n = 100000, threads = 256;
  int numBlocksPerSm = 0, sms = 0;
  checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&numBlocksPerSm, normalizeKernel, threads,
                                                                threads * sizeof(float)));
  checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  int blocks = numBlocksPerSm * sms;
  if (blocks > 64) blocks = 64;
  float *h = (float *)malloc(n * sizeof(float));
  double ref = 0;
  for (int i = 0; i < n; i++) {
    h[i] = (float)(i % 97) + 1.0f;
    ref += h[i];
  }
  float *d_data, *d_partial, *d_total;
  checkCudaErrors(cudaMalloc(&d_data, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_partial, blocks * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_total, sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_data, h, n * sizeof(float), cudaMemcpyHostToDevice));
  int nArg = n;
  void *args[] = {&d_data, &d_partial, &d_total, &nArg};
  checkCudaErrors(cudaLaunchCooperativeKernel((void *)normalizeKernel, dim3(blocks), dim3(threads), args,
                                              threads * sizeof(float), 0));
  checkCudaErrors(cudaDeviceSynchronize());
  float total = 0;
  checkCudaErrors(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
  float *out = (float *)malloc(n * sizeof(float));
  checkCudaErrors(cudaMemcpy(out, d_data, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = fabs(total - ref) > 1e-4 * ref;
  for (int i = 0; i < n; i++)
    if (fabs(out[i] - (float)(h[i] / ref)) > 1e-6f * fabsf((float)(h[i] / ref)) + 1e-12f) {
      if (!bad) printf("element %d: %g, expected %g\n", i, out[i], h[i] / ref);
      bad++;
    }
  printf("%d blocks x %d threads, total %.1f (host %.1f): %s\n", blocks, threads, total, ref, bad ? "FAILED" : "PASSED");
  free(h);
  free(out);
  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_partial));
  checkCudaErrors(cudaFree(d_total));
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
