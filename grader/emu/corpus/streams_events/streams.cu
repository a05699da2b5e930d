// Overlapping copies and kernels on several streams: pinned host memory, cudaMemcpyAsync in
// chunks, events for timing and for ordering (cudaStreamWaitEvent), a host function queued on
// a stream, stream priorities and queries. The result is checked element by element.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CALL(x)                                                                    \
  do {                                                                                  \
    cudaError_t err_ = (x);                                                             \
    if (err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); \
      std::exit(EXIT_FAILURE);                                                          \
    }                                                                                   \
  } while (0)

__global__ void squarePlusKernel(float *d, int n, float c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = d[i] * d[i] + c;
}

__global__ void addArraysKernel(float *out, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += a[i];
}

static int g_callbacks = 0;
static void CUDART_CB onStreamDone(void *user) { ++*static_cast<int *>(user); }

int main() {
  const int nStreams = 4, chunk = 1 << 14, n = nStreams * chunk;
  float *h_in, *h_out;
  CUDA_CALL(cudaMallocHost(&h_in, n * sizeof(float)));
  CUDA_CALL(cudaHostAlloc(&h_out, n * sizeof(float), cudaHostAllocDefault));
  for (int i = 0; i < n; i++) h_in[i] = (float)(i % 100) * 0.5f;
  float *d_a, *d_b;
  CUDA_CALL(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_b, n * sizeof(float)));

  int lo = 0, hi = 0;
  CUDA_CALL(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t streams[nStreams];
  for (int s = 0; s < nStreams; s++)
    CUDA_CALL(cudaStreamCreateWithPriority(&streams[s], cudaStreamNonBlocking, s == 0 ? hi : lo));
  cudaEvent_t start, stop, copied[nStreams];
  CUDA_CALL(cudaEventCreate(&start));
  CUDA_CALL(cudaEventCreate(&stop));
  for (int s = 0; s < nStreams; s++) CUDA_CALL(cudaEventCreateWithFlags(&copied[s], cudaEventDisableTiming));

  CUDA_CALL(cudaEventRecord(start, 0));
  for (int s = 0; s < nStreams; s++) {
    int off = s * chunk;
    CUDA_CALL(cudaMemcpyAsync(d_a + off, h_in + off, chunk * sizeof(float), cudaMemcpyHostToDevice, streams[s]));
    CUDA_CALL(cudaMemcpyAsync(d_b + off, d_a + off, chunk * sizeof(float), cudaMemcpyDeviceToDevice, streams[s]));
    CUDA_CALL(cudaEventRecord(copied[s], streams[s]));
    squarePlusKernel<<<chunk / 256, 256, 0, streams[s]>>>(d_a + off, chunk, 1.0f);
    CUDA_CALL(cudaGetLastError());
  }
  // the last stream adds the copies of every chunk once they are made
  for (int s = 0; s < nStreams; s++) CUDA_CALL(cudaStreamWaitEvent(streams[nStreams - 1], copied[s], 0));
  addArraysKernel<<<n / 256, 256, 0, streams[nStreams - 1]>>>(d_a, d_b, n);
  CUDA_CALL(cudaMemcpyAsync(h_out, d_a, n * sizeof(float), cudaMemcpyDeviceToHost, streams[nStreams - 1]));
  CUDA_CALL(cudaLaunchHostFunc(streams[nStreams - 1], onStreamDone, &g_callbacks));
  CUDA_CALL(cudaEventRecord(stop, streams[nStreams - 1]));
  CUDA_CALL(cudaEventSynchronize(stop));
  for (int s = 0; s < nStreams; s++) CUDA_CALL(cudaStreamSynchronize(streams[s]));
  float ms = -1;
  CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
  int pending = 0;
  for (int s = 0; s < nStreams; s++) pending += cudaStreamQuery(streams[s]) != cudaSuccess;

  int bad = 0;
  for (int i = 0; i < n; i++) {
    float x = h_in[i], want = x * x + 1.0f + x;
    if (h_out[i] != want) {
      if (!bad) std::printf("element %d: %f, expected %f\n", i, h_out[i], want);
      bad++;
    }
  }
  if (g_callbacks != 1 || pending) {
    std::printf("host function ran %d times, %d streams still busy\n", g_callbacks, pending);
    bad++;
  }
  for (int s = 0; s < nStreams; s++) {
    CUDA_CALL(cudaStreamDestroy(streams[s]));
    CUDA_CALL(cudaEventDestroy(copied[s]));
  }
  CUDA_CALL(cudaEventDestroy(start));
  CUDA_CALL(cudaEventDestroy(stop));
  CUDA_CALL(cudaFree(d_a));
  CUDA_CALL(cudaFree(d_b));
  CUDA_CALL(cudaFreeHost(h_in));
  CUDA_CALL(cudaFreeHost(h_out));
  std::printf("%d streams, %d elements, %s ms: %s\n", nStreams, n, ms >= 0 ? "timed" : "untimed", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
