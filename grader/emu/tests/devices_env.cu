// SCANLAB_EMU_DEVICES out of its range 1..16: a diagnostic names it, and the emu models one
// device, as without it: cudaGetDeviceCount says 1, cudaSetDevice(1) is refused, peer access to
// device 1 too, allocations are device 0's, and the host synchronisations are counted all the
// same.
// emu-test: expect pass
// emu-test: native no it sets the emu's device count (SCANLAB_EMU_DEVICES=17)
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_DEVICES=17
// emu-test: stderr emu: ignoring SCANLAB_EMU_DEVICES=17 (expected a number from 1 to 16); the emu models 1 device
// emu-test: stdout one device ok
#include <cstdio>
#include <cstring>

#include "emu_test.h"

__global__ void incKernel(int *p) { p[threadIdx.x] += 1; }

int main() {
  int bad = 0, count = 0, can = -1, cur = -1;
  CK(cudaGetDeviceCount(&count));
  if (count != 1) printf("cudaGetDeviceCount: %d\n", count), bad++;
  if (cudaSetDevice(1) != cudaErrorInvalidDevice) printf("cudaSetDevice(1) was accepted\n"), bad++;
  if (cudaGetLastError() != cudaErrorInvalidDevice) printf("no last error after cudaSetDevice(1)\n"), bad++;
  CK(cudaSetDevice(0));
  CK(cudaGetDevice(&cur));
  if (cur != 0) printf("cudaGetDevice: %d\n", cur), bad++;
  CK(cudaDeviceCanAccessPeer(&can, 0, 0));
  if (can != 0) printf("cudaDeviceCanAccessPeer(0, 0): %d\n", can), bad++;
  if (cudaDeviceEnablePeerAccess(1, 0) != cudaErrorInvalidDevice) printf("peer access to device 1\n"), bad++;
  cudaGetLastError();
  char id[32];
  CK(cudaDeviceGetPCIBusId(id, sizeof id, 0));
  if (strcmp(id, "0000:00:00.0")) printf("PCI bus id %s\n", id), bad++;

  unsigned long long before = 0;
#ifdef SCANLAB_EMU
  before = scanlab_emu_host_syncs(nullptr);
#endif
  int *d, h[32] = {0};
  CK(cudaMalloc(&d, sizeof h));
  cudaPointerAttributes at;
  CK(cudaPointerGetAttributes(&at, d));
  if (at.device != 0) printf("cudaPointerGetAttributes: device %d\n", at.device), bad++;
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice)); /* 1 */
  incKernel<<<1, 32>>>(d);
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)); /* 2 */
  if (h[31] != 1) printf("h[31] = %d\n", h[31]), bad++;
  CK(cudaFree(d));                                        /* 3 */
  CK(cudaFree(nullptr));                                  /* no: it does nothing */
#ifdef SCANLAB_EMU
  const char *last = nullptr;
  const unsigned long long n = scanlab_emu_host_syncs(&last) - before;
  if (n != 3 || !last || strcmp(last, "cudaFree"))
    printf("host synchronisations: %llu, the last %s\n", n, last ? last : "(none)"), bad++;
#endif
  printf(bad ? "one device FAILED\n" : "one device ok\n");
  return bad ? 1 : 0;
}
