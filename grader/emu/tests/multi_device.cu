// Four devices (SCANLAB_EMU_DEVICES=4) used by two host threads, as a program whose ranks each
// drive their own GPUs: each thread sets its devices in turn, allocates on each, launches a
// kernel on each (whose blocks, on the emulator's workers too, run as that device's) and checks
// the result; cudaGetDevice is per host thread; the allocations are tagged with their device
// (cudaPointerGetAttributes); device properties and PCI bus ids exist for each device. Then
// copies between devices: cudaMemcpyPeer, cudaMemcpy with cudaMemcpyDefault and with
// cudaMemcpyDeviceToDevice; cudaMemcpyPeer that names the wrong device for a pointer is refused.
// Last, the count of host synchronisations (scanlab_emu_host_syncs), per host thread.
// emu-test: expect pass
// emu-test: env SCANLAB_EMU_DEVICES=4
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: stderr emu: cudaMemcpyPeer of 4096 bytes: the destination
// emu-test: stderr is memory of device 1, not of device 2 (cudaErrorInvalidValue)
// emu-test: stdout multi-device ok
#include <pthread.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include "emu_test.h"

static const int N = 1024;
static int *g_buf[4];        /* device d's buffer, made by the thread that owns d */
static int g_bad = 0;
static pthread_barrier_t g_bar;

/* out[i] = base + i; each block also notes the device it runs as (only the emu lets kernel code
 * call the host API: there a kernel is host code) */
__global__ void fillKernel(int *out, int base, int *seen) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = base + i;
#ifdef SCANLAB_EMU
  if (threadIdx.x == 0) {
    int d = -1;
    cudaGetDevice(&d);
    seen[blockIdx.x] = d;
  }
#else
  if (threadIdx.x == 0) seen[blockIdx.x] = base / 1000;
#endif
}

static void fail(const char *what, int got, int want) {
  printf("%s: %d, expected %d\n", what, got, want);
  __atomic_add_fetch(&g_bad, 1, __ATOMIC_SEQ_CST);
}

static void rank(int t) {
  const int mine[2] = {t, t + 2};
  int cur = -1;
  CK(cudaGetDevice(&cur));
  if (cur != 0) fail("a new thread's device", cur, 0);
  /* each thread makes its first device current, then both check that the other's choice did
   * not change theirs */
  CK(cudaSetDevice(mine[0]));
  pthread_barrier_wait(&g_bar);
  CK(cudaGetDevice(&cur));
  if (cur != mine[0]) fail("the device after the other thread set its own", cur, mine[0]);
  pthread_barrier_wait(&g_bar);
  for (int k = 0; k < 2; k++) {
    const int d = mine[k];
    CK(cudaSetDevice(d));
    CK(cudaGetDevice(&cur));
    if (cur != d) fail("cudaGetDevice", cur, d);
    int *seen;
    CK(cudaMalloc(&g_buf[d], N * sizeof(int)));
    CK(cudaMalloc(&seen, 8 * sizeof(int)));
    cudaPointerAttributes at;
    CK(cudaPointerGetAttributes(&at, g_buf[d] + 5));
    if (at.device != d) fail("cudaPointerGetAttributes device", at.device, d);
    if (at.type != cudaMemoryTypeDevice) fail("cudaPointerGetAttributes type", (int)at.type, (int)cudaMemoryTypeDevice);
    fillKernel<<<8, N / 8>>>(g_buf[d], 1000 * d, seen);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h[N], s[8];
    CK(cudaMemcpy(h, g_buf[d], sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(s, seen, sizeof s, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
      if (h[i] != 1000 * d + i) {
        fail("the kernel's output", h[i], 1000 * d + i);
        break;
      }
    for (int b = 0; b < 8; b++)
      if (s[b] != d) {
        fail("the device a block ran as", s[b], d);
        break;
      }
    CK(cudaFree(seen));
  }
}

/* The host synchronisations this thread made: exactly the ones it makes here. */
static void syncs(int t, unsigned long long *count, const char **last_out) {
  CK(cudaSetDevice(t));
  int *d, *pinned, h[N], h2[N];
  cudaStream_t s;
  cudaEvent_t e;
  CK(cudaStreamCreate(&s));
  CK(cudaEventCreate(&e));
  CK(cudaMalloc(&d, sizeof h));         /* no */
  CK(cudaMallocHost(&pinned, sizeof h)); /* no */
  memset(h, 0, sizeof h);
  CK(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, s)); /* no */
  CK(cudaMemsetAsync(d, 0, sizeof h, s));                         /* no */
  CK(cudaMemcpy(h2, h, sizeof h, cudaMemcpyHostToHost));          /* no: host to host */
  CK(cudaMemcpy(h2, h, sizeof h, cudaMemcpyDefault));             /* no: host to host */
  fillKernel<<<8, N / 8>>>(d, 0, d);                              /* no */
  CK(cudaEventRecord(e, s));                                      /* no */
  CK(cudaStreamQuery(s));                                         /* no */
  CK(cudaEventQuery(e));                                          /* no */
  CK(cudaMemcpy(h2, d, sizeof h, cudaMemcpyDeviceToHost));        /* 1 */
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyDefault));              /* 2 */
  CK(cudaMemset(d, 0, sizeof h));                                 /* 3 */
  CK(cudaStreamSynchronize(s));                                   /* 4 */
  CK(cudaEventSynchronize(e));                                    /* 5 */
  CK(cudaDeviceSynchronize());                                    /* 6 */
  CK(cudaFreeHost(pinned));                                       /* 7 */
  CK(cudaFree(d));                                                /* 8 */
  CK(cudaStreamDestroy(s));
  CK(cudaEventDestroy(e));
#ifdef SCANLAB_EMU
  *count = scanlab_emu_host_syncs(last_out);
#else
  *count = 8;
  *last_out = "cudaFree";
#endif
}

int main() {
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (count != 4) fail("cudaGetDeviceCount", count, 4);
  char ids[4][32];
  for (int d = 0; d < 4; d++) {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, d));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    if (sms != p.multiProcessorCount) fail("multiprocessors", sms, p.multiProcessorCount);
    CK(cudaDeviceGetPCIBusId(ids[d], sizeof ids[d], d));
    for (int e = 0; e < d; e++)
      if (!strcmp(ids[d], ids[e])) printf("devices %d and %d share the PCI bus id %s\n", e, d, ids[d]), g_bad++;
    int back = -1;
    CK(cudaDeviceGetByPCIBusId(&back, ids[d]));
    if (back != d) fail("cudaDeviceGetByPCIBusId", back, d);
  }
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 4) != cudaErrorInvalidDevice) fail("properties of device 4", 0, 1);
  if (cudaSetDevice(4) != cudaErrorInvalidDevice) fail("cudaSetDevice(4)", 0, 1);
  cudaGetLastError();

  pthread_barrier_init(&g_bar, nullptr, 2);
  std::thread r0(rank, 0), r1(rank, 1);
  r0.join();
  r1.join();
  int cur = -1;
  CK(cudaGetDevice(&cur));
  if (cur != 0) fail("the main thread's device after the ranks'", cur, 0);

  /* copies between devices */
  int h[N];
  CK(cudaMemcpyPeer(g_buf[0], 0, g_buf[1], 1, N * sizeof(int)));
  CK(cudaMemcpy(h, g_buf[0], sizeof h, cudaMemcpyDeviceToHost));
  if (h[7] != 1007) fail("cudaMemcpyPeer 1 -> 0", h[7], 1007);
  CK(cudaMemcpy(g_buf[2], g_buf[3], N * sizeof(int), cudaMemcpyDefault));
  CK(cudaMemcpy(h, g_buf[2], sizeof h, cudaMemcpyDeviceToHost));
  if (h[9] != 3009) fail("cudaMemcpyDefault 3 -> 2", h[9], 3009);
  CK(cudaSetDevice(3));
  CK(cudaMemcpy(g_buf[3], g_buf[0], N * sizeof(int), cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(h, g_buf[3], sizeof h, cudaMemcpyDeviceToHost));
  if (h[11] != 1011) fail("cudaMemcpyDeviceToDevice 0 -> 3", h[11], 1011);
  /* g_buf[1] is device 1's, not device 2's */
  cudaError_t err = cudaMemcpyPeer(g_buf[1], 2, g_buf[0], 0, N * sizeof(int));
  if (err != cudaErrorInvalidValue) fail("cudaMemcpyPeer naming the wrong device", (int)err, (int)cudaErrorInvalidValue);
  if (cudaGetLastError() != cudaErrorInvalidValue) fail("its last error", 0, 1);
  if (cudaMemcpyPeer(g_buf[1], 1, g_buf[0], 7, 16) != cudaErrorInvalidDevice) fail("cudaMemcpyPeer from device 7", 0, 1);
  cudaGetLastError();

  /* host synchronisations: each thread counts its own */
  unsigned long long c[2] = {0, 0};
  const char *last[2] = {nullptr, nullptr};
  std::thread s0(syncs, 0, &c[0], &last[0]), s1(syncs, 1, &c[1], &last[1]);
  s0.join();
  s1.join();
  for (int t = 0; t < 2; t++) {
    if (c[t] != 8) fail("host synchronisations of a thread", (int)c[t], 8);
    if (!last[t] || strcmp(last[t], "cudaFree")) printf("the last synchronisation: %s\n", last[t] ? last[t] : "(none)"), g_bad++;
  }
#ifdef SCANLAB_EMU
  /* the main thread's count moves with its own calls only */
  const char *mine = nullptr;
  const unsigned long long before = scanlab_emu_host_syncs(&mine);
  CK(cudaMemcpy(h, g_buf[2], sizeof h, cudaMemcpyDeviceToHost));
  if (scanlab_emu_host_syncs(nullptr) != before + 1) fail("a synchronous copy", (int)(scanlab_emu_host_syncs(nullptr) - before), 1);
  CK(cudaMemcpyPeerAsync(g_buf[0], 0, g_buf[1], 1, 64, 0));
  if (scanlab_emu_host_syncs(&mine) != before + 1) fail("cudaMemcpyPeerAsync", (int)(scanlab_emu_host_syncs(nullptr) - before), 1);
  if (!mine || strcmp(mine, "cudaMemcpy")) printf("the main thread's last synchronisation: %s\n", mine ? mine : "(none)"), g_bad++;
#endif
  for (int d = 0; d < 4; d++) CK(cudaFree(g_buf[d]));
  printf(g_bad ? "multi-device FAILED\n" : "multi-device ok\n");
  return g_bad ? 1 : 0;
}
