// More of the runtime, as CUDA 12 and 13 programs call it: cudaLaunchKernelEx with a launch
// configuration (and its cooperative attribute), cudaMemPrefetchAsync and cudaMemAdvise with a
// memory location, the typed cudaOccupancyAvailableDynamicSMemPerBlock, stream priorities and
// attributes kept, an event without timing refused by cudaEventElapsedTime, cudaMemset2D wider
// than its pitch refused (one row of it written, as an H200 does), the default memory pool's
// attributes, a PCI bus id, a graph's edges, its DOT file and an executable graph's host node
// changed.
// emu-test: expect pass
// emu-test: schedules forward
// emu-test: stdout runtime ok
#include <cooperative_groups.h>
#include <stdio.h>

#include "emu_test.h"

namespace cg = cooperative_groups;

__global__ void fill(int *v, int k, float scale) { v[blockIdx.x * blockDim.x + threadIdx.x] = (int)(k * scale); }
__global__ void gridSum(int *v, int *out) {
  atomicAdd(out, v[blockIdx.x * blockDim.x + threadIdx.x]);
  cg::this_grid().sync(); /* needs the cooperative attribute */
  if (blockIdx.x == 0 && threadIdx.x == 0) *out *= 2;
}
static void CUDART_CB bump(void *p) { *(int *)p += 1; }
static void CUDART_CB bumpTen(void *p) { *(int *)p += 10; }

int main() {
  int bad = 0;
  int *v, *out;
  CK(cudaMallocManaged(&v, 256 * sizeof(int)));
  CK(cudaMallocManaged(&out, sizeof(int)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(64);
  CK(cudaLaunchKernelEx(&cfg, fill, v, 3, 2.5)); /* a double converted to the float parameter */
  CK(cudaDeviceSynchronize());
  if (v[0] != 7 || v[255] != 7) printf("cudaLaunchKernelEx: %d\n", v[0]), bad++;
  cudaLaunchAttribute coop;
  coop.id = cudaLaunchAttributeCooperative;
  coop.val.cooperative = 1;
  cfg.attrs = &coop;
  cfg.numAttrs = 1;
  *out = 0;
  CK(cudaLaunchKernelEx(&cfg, gridSum, v, out));
  CK(cudaDeviceSynchronize());
  if (*out != 2 * 7 * 256) printf("cooperative cudaLaunchKernelEx: %d\n", *out), bad++;

  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  CK(cudaMemPrefetchAsync(v, 256 * sizeof(int), loc, 0, 0));
  CK(cudaMemAdvise(v, 256 * sizeof(int), cudaMemAdviseSetReadMostly, loc));
  size_t smem = 0;
  CK(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, fill, 1, 128));
  if (smem == 0) printf("no dynamic shared memory available\n"), bad++;

  cudaStream_t s;
  CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -9));
  int prio = 0;
  CK(cudaStreamGetPriority(s, &prio));
  if (prio != -5) printf("priority %d, want -5 (clamped)\n", prio), bad++;
  cudaStreamAttrValue win = {};
  win.accessPolicyWindow.base_ptr = v;
  win.accessPolicyWindow.num_bytes = 1024;
  win.accessPolicyWindow.hitRatio = 0.6f;
  win.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  win.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &win));
  cudaStreamAttrValue back;
  CK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  if (back.accessPolicyWindow.num_bytes != 1024 || back.accessPolicyWindow.base_ptr != v)
    printf("the access policy window was not kept\n"), bad++;

  cudaEvent_t a, b;
  CK(cudaEventCreateWithFlags(&a, cudaEventDisableTiming));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, s));
  CK(cudaEventRecord(b, s));
  float ms;
  if (cudaEventElapsedTime(&ms, a, b) != cudaErrorInvalidResourceHandle)
    printf("an event without timing gave a time\n"), bad++;
  void *pitched;
  size_t pitch;
  CK(cudaMallocPitch(&pitched, &pitch, 100, 4));
  cudaError_t wide = cudaMemset2D(pitched, pitch, 0, pitch + 8, 4);
  if (wide != cudaErrorInvalidValue)
    printf("cudaMemset2D wider than its pitch gave %s, not cudaErrorInvalidValue\n", cudaGetErrorName(wide)), bad++;
  (void)cudaGetLastError();
  wide = cudaMemset2DAsync(pitched, pitch, 0, pitch + 8, 4, s);
  if (wide != cudaErrorInvalidValue)
    printf("cudaMemset2DAsync wider than its pitch gave %s, not cudaErrorInvalidValue\n", cudaGetErrorName(wide)), bad++;
  (void)cudaGetLastError();
  // One row of any width is written (the pitch is not used); an H200 answers the same.
  if (cudaMemset2D(pitched, pitch, 7, pitch + 8, 1) != cudaSuccess)
    printf("cudaMemset2D of one row wider than its pitch was refused\n"), bad++;
  unsigned char row[8];
  CK(cudaMemcpy(row, (char *)pitched + pitch, 8, cudaMemcpyDeviceToHost));
  if (row[0] != 7 || row[7] != 7) printf("cudaMemset2D of one row did not write past the pitch\n"), bad++;

  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long threshold = 1ull << 30, got = 0;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
  if (got != threshold) printf("pool attribute %llu\n", got), bad++;
  char bus[32];
  CK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  if (strlen(bus) != 12) printf("PCI bus id '%s'\n", bus), bad++;

  /* a graph: two host nodes, one after the other */
  int counter = 0;
  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  cudaHostNodeParams hp = {bump, &counter};
  cudaGraphNode_t first, second;
  CK(cudaGraphAddHostNode(&first, g, NULL, 0, &hp));
  CK(cudaGraphAddHostNode(&second, g, &first, 1, &hp));
  size_t edges = 0;
  cudaGraphNode_t from[1], to[1];
#if CUDART_VERSION >= 13000 /* CUDA 13 added the edges' data (the emu is CUDA 12's runtime) */
  CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
  CK(cudaGraphGetEdges(g, from, to, NULL, &edges));
#else
  CK(cudaGraphGetEdges(g, NULL, NULL, &edges));
  CK(cudaGraphGetEdges(g, from, to, &edges));
#endif
  if (edges != 1 || from[0] != first || to[0] != second) printf("graph edges wrong\n"), bad++;
  char dot[64];
  snprintf(dot, sizeof dot, "/tmp/runtime_more.%d.dot", (int)getpid());
  CK(cudaGraphDebugDotPrint(g, dot, 0));
  FILE *f = fopen(dot, "r");
  char text[512] = {0};
  if (f) {
    if (fread(text, 1, sizeof text - 1, f) == 0) printf("DOT file %s is empty\n", dot), bad++;
    fclose(f);
    remove(dot);
  }
  if (!strstr(text, "digraph")) printf("DOT file: %s\n", text), bad++;
#ifdef SCANLAB_EMU /* the emu names its nodes n0, n1, ...; the toolkit's names are its own */
  if (!strstr(text, "n0 -> n1")) printf("DOT file without its edge: %s\n", text), bad++;
#endif
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  cudaHostNodeParams ten = {bumpTen, &counter};
  CK(cudaGraphExecHostNodeSetParams(x, second, &ten));
  CK(cudaGraphLaunch(x, s));
  CK(cudaStreamSynchronize(s));
  if (counter != 11) printf("host nodes ran to %d, want 11\n", counter), bad++;
  CK(cudaGraphExecDestroy(x));
  CK(cudaGraphDestroy(g));
  if (bad) return 1;
  printf("runtime ok\n");
  return 0;
}
