// CUDA graphs: a graph captured from two streams (fork and join through events), with <<<>>>
// launches, a typed cudaLaunchKernel, copies, a memset and a host function, launched three
// times; a graph built node by node (kernel, memset and copy nodes, a child graph), whose
// executable copy keeps its arguments when the caller's change, and changes with
// cudaGraphExecKernelNodeSetParams; a synchronization inside a capture invalidates it; the
// default stream cannot capture.
// emu-test: expect pass
// emu-test: schedules forward random:1
// emu-test: stdout graphs ok
#include <cuda_runtime.h>

#include "emu_test.h"

#define N 256

__global__ void addKernel(int *v, int k) { v[blockIdx.x * blockDim.x + threadIdx.x] += k; }
__global__ void scaleKernel(int *v, int k) { v[blockIdx.x * blockDim.x + threadIdx.x] *= k; }
__global__ void sumKernel(const int *a, const int *b, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] + b[i];
}

static int host_calls = 0;
static void CUDART_CB hostFn(void *p) { (*(int *)p)++; }

int main() {
  int *a, *b, *c, h[N], ones[N];
  CK(cudaMalloc(&a, N * sizeof(int)));
  CK(cudaMalloc(&b, N * sizeof(int)));
  CK(cudaMalloc(&c, N * sizeof(int)));
  for (int i = 0; i < N; i++) ones[i] = 1;
  int bad = 0;

  /* ---- captured: s1 forks s2, both work, s1 joins ---- */
  cudaStream_t s1, s2;
  CK(cudaStreamCreate(&s1));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CK(cudaEventCreate(&fork));
  CK(cudaEventCreate(&join));
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  CK(cudaStreamIsCapturing(s1, &st));
  if (st != cudaStreamCaptureStatusActive) printf("not capturing\n"), bad++;
  CK(cudaMemcpyAsync(a, ones, sizeof ones, cudaMemcpyHostToDevice, s1));
  CK(cudaEventRecord(fork, s1));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaMemsetAsync(b, 0, N * sizeof(int), s2));
  addKernel<<<N / 64, 64, 0, s2>>>(b, 5); /* b = 5 */
  CK(cudaEventRecord(join, s2));
  int k = 3;
  void *args[] = {&a, &k};
  CK(cudaLaunchKernel(scaleKernel, dim3(N / 64), dim3(64), args, 0, s1)); /* a = 3 */
  k = 100; /* the captured launch keeps 3 */
  CK(cudaStreamWaitEvent(s1, join, 0));
  sumKernel<<<N / 64, 64, 0, s1>>>(a, b, c); /* c = 8 */
  CK(cudaLaunchHostFunc(s1, hostFn, &host_calls));
  cudaGraph_t g;
  CK(cudaStreamEndCapture(s1, &g));
  CK(cudaMemset(c, 0, N * sizeof(int)));
  CK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 0 || host_calls != 0) printf("captured work ran during the capture\n"), bad++;
  size_t nodes = 0;
  CK(cudaGraphGetNodes(g, NULL, &nodes));
  if (nodes != 6) printf("captured graph has %zu nodes, want 6\n", nodes), bad++;
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  for (int r = 0; r < 3; r++) CK(cudaGraphLaunch(x, s1));
  CK(cudaStreamSynchronize(s1));
  CK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++)
    if (h[i] != 8) {
      printf("captured graph: c[%d] = %d, want 8\n", i, h[i]);
      bad++;
      break;
    }
  if (host_calls != 3) printf("host function ran %d times, want 3\n", host_calls), bad++;
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));

  /* ---- built node by node ---- */
  cudaGraph_t g2, child;
  CK(cudaGraphCreate(&g2, 0));
  CK(cudaGraphCreate(&child, 0));
  cudaMemsetParams ms;
  memset(&ms, 0, sizeof ms);
  ms.dst = a;
  ms.value = 2;
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  cudaGraphNode_t setA, addA, copyC, sub;
  CK(cudaGraphAddMemsetNode(&setA, g2, NULL, 0, &ms)); /* a = 2 */
  int add = 10;
  void *addArgs[] = {&a, &add};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)addKernel;
  kp.gridDim = dim3(N / 64);
  kp.blockDim = dim3(64);
  kp.kernelParams = addArgs;
  CK(cudaGraphAddKernelNode(&addA, g2, &setA, 1, &kp)); /* a = 12 */
  add = -1000;                                         /* the node keeps 10 */
  int three = 3;
  void *scaleArgs[] = {&a, &three};
  cudaKernelNodeParams sp = kp;
  sp.func = (void *)scaleKernel;
  sp.kernelParams = scaleArgs;
  cudaGraphNode_t inChild;
  CK(cudaGraphAddKernelNode(&inChild, child, NULL, 0, &sp));
  CK(cudaGraphAddChildGraphNode(&sub, g2, &addA, 1, child)); /* a = 36 */
  CK(cudaGraphAddMemcpyNode1D(&copyC, g2, &sub, 1, c, a, N * sizeof(int), cudaMemcpyDeviceToDevice));
  cudaKernelNodeParams back;
  CK(cudaGraphKernelNodeGetParams(addA, &back));
  if (*(int *)back.kernelParams[1] != 10 || back.gridDim.x != N / 64) printf("kernel node params wrong\n"), bad++;
  cudaGraphExec_t x2;
  CK(cudaGraphInstantiate(&x2, g2, NULL, NULL, 0)); /* CUDA 11's form */
  CK(cudaGraphLaunch(x2, 0));
  CK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 36 || h[N - 1] != 36) printf("built graph: %d, want 36\n", h[0]), bad++;
  add = 20;
  kp.kernelParams = addArgs;
  CK(cudaGraphExecKernelNodeSetParams(x2, addA, &kp)); /* a = (2 + 20) * 3 */
  CK(cudaGraphLaunch(x2, 0));
  CK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 66) printf("after cudaGraphExecKernelNodeSetParams: %d, want 66\n", h[0]), bad++;
  CK(cudaGraphExecDestroy(x2));
  CK(cudaGraphDestroy(child));
  CK(cudaGraphDestroy(g2));

  /* ---- what a capture does not allow ---- */
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  addKernel<<<1, 64, 0, s1>>>(a, 1);
  if (cudaStreamSynchronize(s1) != cudaErrorStreamCaptureUnsupported) printf("sync in capture allowed\n"), bad++;
  cudaGraph_t spoilt;
  if (cudaStreamEndCapture(s1, &spoilt) != cudaErrorStreamCaptureInvalidated || spoilt)
    printf("a spoilt capture gave a graph\n"), bad++;
  if (cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) != cudaErrorStreamCaptureUnsupported)
    printf("the default stream captured\n"), bad++;
  (void)cudaGetLastError();
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s2));
  if (bad) return 1;
  printf("graphs ok\n");
  return 0;
}
