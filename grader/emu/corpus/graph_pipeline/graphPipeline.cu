// CUDA graphs in the style of the CUDA samples: a two-stage sum of squares built twice, once
// node by node (memcpy, memset and kernel nodes with explicit dependencies) and once captured
// from two streams that fork and join through events; each graph is launched many times over
// new inputs copied in by its first node, and every result is checked against the host.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

#define THREADS 256

// Stage one: each block's sum of squares of its part of the input.
__global__ void partialSquares(const float *in, double *partial, size_t n) {
  __shared__ double s[THREADS];
  double v = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    v += (double)in[i] * in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Stage two: one block adds the partial sums.
__global__ void finalSum(const double *partial, int count, double *result) {
  __shared__ double s[THREADS];
  double v = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) v += partial[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) *result += s[0];
}

// A second input's squares, computed in the forked stream.
__global__ void scaleInPlace(float *v, size_t n, float k) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) v[i] *= k;
}

static double hostSquares(const float *v, size_t n, float k) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += (double)(v[i] * k) * (v[i] * k);
  return s;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  const size_t n = 1 << 16;
  const int blocks = 64, rounds = 5;
  float *h_in;
  checkCudaErrors(cudaMallocHost(&h_in, n * sizeof(float)));
  float *d_in, *d_in2;
  double *d_partial, *d_partial2, *d_result, h_result;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_in2, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_partial, blocks * sizeof(double)));
  checkCudaErrors(cudaMalloc(&d_partial2, blocks * sizeof(double)));
  checkCudaErrors(cudaMalloc(&d_result, sizeof(double)));
  int bad = 0;

  // ---- node by node: copy in -> zero the result -> stage one -> stage two
  cudaGraph_t graph;
  checkCudaErrors(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copyNode, zeroNode, stage1, stage2;
  checkCudaErrors(cudaGraphAddMemcpyNode1D(&copyNode, graph, NULL, 0, d_in, h_in, n * sizeof(float),
                                           cudaMemcpyHostToDevice));
  cudaMemsetParams ms = {};
  ms.dst = d_result;
  ms.value = 0;
  ms.elementSize = 1;
  ms.width = sizeof(double);
  ms.height = 1;
  checkCudaErrors(cudaGraphAddMemsetNode(&zeroNode, graph, NULL, 0, &ms));
  size_t count = n;
  void *args1[] = {&d_in, &d_partial, &count};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)partialSquares;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(THREADS);
  kp.sharedMemBytes = 0;
  kp.kernelParams = args1;
  kp.extra = NULL;
  checkCudaErrors(cudaGraphAddKernelNode(&stage1, graph, &copyNode, 1, &kp));
  int nb = blocks;
  void *args2[] = {&d_partial, &nb, &d_result};
  kp.func = (void *)finalSum;
  kp.gridDim = dim3(1);
  kp.kernelParams = args2;
  cudaGraphNode_t deps[2] = {stage1, zeroNode};
  checkCudaErrors(cudaGraphAddKernelNode(&stage2, graph, deps, 2, &kp));
  size_t numNodes = 0;
  checkCudaErrors(cudaGraphGetNodes(graph, NULL, &numNodes));
  cudaGraphExec_t exec;
  checkCudaErrors(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s1, s2;
  checkCudaErrors(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  checkCudaErrors(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < n; i++) h_in[i] = (float)((i * 37 + r * 11) % 101) / 100.0f;
    checkCudaErrors(cudaGraphLaunch(exec, s1));
    checkCudaErrors(cudaStreamSynchronize(s1));
    checkCudaErrors(cudaMemcpy(&h_result, d_result, sizeof(double), cudaMemcpyDeviceToHost));
    const double want = hostSquares(h_in, n, 1.0f);
    if (fabs(h_result - want) > 1e-9 * want) {
      printf("built graph, round %d: %.10f, want %.10f\n", r, h_result, want);
      bad++;
    }
  }
  printf("built graph: %zu nodes, %d launches\n", numNodes, rounds);

  // ---- captured: s1 copies and zeroes; s2 forks to square a scaled copy; both sums added
  cudaEvent_t forkEv, joinEv;
  checkCudaErrors(cudaEventCreate(&forkEv));
  checkCudaErrors(cudaEventCreate(&joinEv));
  cudaGraph_t captured;
  checkCudaErrors(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  checkCudaErrors(cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s1));
  checkCudaErrors(cudaMemsetAsync(d_result, 0, sizeof(double), s1));
  checkCudaErrors(cudaEventRecord(forkEv, s1));
  checkCudaErrors(cudaStreamWaitEvent(s2, forkEv, 0));
  checkCudaErrors(cudaMemcpyAsync(d_in2, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, s2));
  scaleInPlace<<<blocks, THREADS, 0, s2>>>(d_in2, n, 2.0f);
  partialSquares<<<blocks, THREADS, 0, s2>>>(d_in2, d_partial2, n);
  checkCudaErrors(cudaEventRecord(joinEv, s2));
  partialSquares<<<blocks, THREADS, 0, s1>>>(d_in, d_partial, n);
  checkCudaErrors(cudaStreamWaitEvent(s1, joinEv, 0));
  finalSum<<<1, THREADS, 0, s1>>>(d_partial, blocks, d_result);
  finalSum<<<1, THREADS, 0, s1>>>(d_partial2, blocks, d_result);
  checkCudaErrors(cudaStreamEndCapture(s1, &captured));
  cudaGraphExec_t capturedExec;
  checkCudaErrors(cudaGraphInstantiate(&capturedExec, captured, 0));
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < n; i++) h_in[i] = (float)((i * 53 + r * 7) % 97) / 96.0f;
    checkCudaErrors(cudaGraphLaunch(capturedExec, s1));
    checkCudaErrors(cudaStreamSynchronize(s1));
    checkCudaErrors(cudaMemcpy(&h_result, d_result, sizeof(double), cudaMemcpyDeviceToHost));
    const double want = hostSquares(h_in, n, 1.0f) + hostSquares(h_in, n, 2.0f);
    if (fabs(h_result - want) > 1e-9 * want) {
      printf("captured graph, round %d: %.10f, want %.10f\n", r, h_result, want);
      bad++;
    }
  }
  size_t capturedNodes = 0;
  checkCudaErrors(cudaGraphGetNodes(captured, NULL, &capturedNodes));
  printf("captured graph: %zu nodes, %d launches\n", capturedNodes, rounds);

  checkCudaErrors(cudaGraphExecDestroy(exec));
  checkCudaErrors(cudaGraphExecDestroy(capturedExec));
  checkCudaErrors(cudaGraphDestroy(graph));
  checkCudaErrors(cudaGraphDestroy(captured));
  checkCudaErrors(cudaStreamDestroy(s1));
  checkCudaErrors(cudaStreamDestroy(s2));
  checkCudaErrors(cudaEventDestroy(forkEv));
  checkCudaErrors(cudaEventDestroy(joinEv));
  checkCudaErrors(cudaFreeHost(h_in));
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_in2));
  checkCudaErrors(cudaFree(d_partial));
  checkCudaErrors(cudaFree(d_partial2));
  checkCudaErrors(cudaFree(d_result));
  if (bad || numNodes != 4 || capturedNodes != 8) {
    printf("FAILED\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
