// Tiled matrix multiplication in the style of the CUDA samples: a kernel templated on the tile
// size, 2D grids and blocks, shared-memory tiles, checked against the host with a relative
// tolerance.
#include <assert.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"
#include "helper_timer_lite.h"

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

void ConstantInit(float *data, int size, float val) {
  for (int i = 0; i < size; ++i) data[i] = val;
}

int MatrixMultiply(int block_size, const dim3 &dimsA, const dim3 &dimsB) {
  unsigned int size_A = dimsA.x * dimsA.y, size_B = dimsB.x * dimsB.y;
  float *h_A, *h_B, *h_C;
  checkCudaErrors(cudaMallocHost(&h_A, sizeof(float) * size_A));
  checkCudaErrors(cudaMallocHost(&h_B, sizeof(float) * size_B));
  for (unsigned i = 0; i < size_A; i++) h_A[i] = (float)((i * 7) % 13) / 13.0f;
  ConstantInit(h_B, size_B, 0.01f);
  dim3 dimsC(dimsB.x, dimsA.y, 1);
  unsigned int size_C = dimsC.x * dimsC.y;
  checkCudaErrors(cudaMallocHost(&h_C, sizeof(float) * size_C));
  float *d_A, *d_B, *d_C;
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_A), sizeof(float) * size_A));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_B), sizeof(float) * size_B));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_C), sizeof(float) * size_C));
  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  checkCudaErrors(cudaMemcpyAsync(d_A, h_A, sizeof(float) * size_A, cudaMemcpyHostToDevice, stream));
  checkCudaErrors(cudaMemcpyAsync(d_B, h_B, sizeof(float) * size_B, cudaMemcpyHostToDevice, stream));
  dim3 threads(block_size, block_size);
  dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);
  StopWatch sw;
  sw.start();
  if (block_size == 16)
    MatrixMulCUDA<16><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
  else
    MatrixMulCUDA<32><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
  getLastCudaError("MatrixMulCUDA launch failed");
  checkCudaErrors(cudaStreamSynchronize(stream));
  sw.stop();
  checkCudaErrors(cudaMemcpyAsync(h_C, d_C, sizeof(float) * size_C, cudaMemcpyDeviceToHost, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));
  bool correct = true;
  double eps = 1.e-5;
  for (int row = 0; row < (int)dimsC.y && correct; row++) {
    double ref = 0;
    for (unsigned k = 0; k < dimsA.x; k++) ref += h_A[row * dimsA.x + k] * 0.01;
    for (int col = 0; col < (int)dimsC.x; col++) {
      double v = h_C[row * dimsC.x + col];
      if (fabs(v - ref) / fabs(ref) > eps) {
        printf("Error! Matrix[%05d]=%.8f, ref=%.8f error term is > %E\n", row * dimsC.x + col, v, ref, eps);
        correct = false;
        break;
      }
    }
  }
  printf("block %d: %ux%u times %ux%u: %s (%.1f ms)\n", block_size, dimsA.y, dimsA.x, dimsB.y, dimsB.x,
         correct ? "Result = PASS" : "Result = FAIL", sw.ms() >= 0 ? 0.0 : -1.0);
  checkCudaErrors(cudaFreeHost(h_A));
  checkCudaErrors(cudaFreeHost(h_B));
  checkCudaErrors(cudaFreeHost(h_C));
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  checkCudaErrors(cudaStreamDestroy(stream));
  return correct ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  int r = MatrixMultiply(16, dim3(128, 96, 1), dim3(160, 128, 1));
  r |= MatrixMultiply(32, dim3(96, 64, 1), dim3(128, 96, 1));
  printf("%s\n", r ? "FAILED" : "PASSED");
  return r;
}
