// Two devices (SCANLAB_EMU_DEVICES=2). After cudaDeviceEnablePeerAccess(1, 0) with device 0
// current, a kernel on device 0 may use device 1's memory; the peer calls return CUDA's errors
// (enabled twice, disabled when not enabled, a device as its own peer, a device that does not
// exist, in the order two H200s give them), cudaDeviceCanAccessPeer says 1 for two distinct
// devices, and peer access goes one way only. The default stream and cudaMemcpyPeerAsync work across devices too.
// emu-test: expect pass
// emu-test: schedules forward random:1
// emu-test: env SCANLAB_EMU_DEVICES=2
// emu-test: stdout peer ok
#include <cstdio>

#include "emu_test.h"

__global__ void addKernel(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

static int expect(const char *what, cudaError_t got, cudaError_t want) {
  if (got == want) return 0;
  printf("%s: %s, expected %s\n", what, cudaGetErrorName(got), cudaGetErrorName(want));
  return 1;
}

int main() {
  const int n = 1000;
  int bad = 0, h[n], r[n];
  for (int i = 0; i < n; i++) h[i] = i;
  int can = -1;
  CK(cudaDeviceCanAccessPeer(&can, 0, 1));
  if (can != 1) printf("canAccessPeer(0, 1) = %d\n", can), bad++;
  CK(cudaDeviceCanAccessPeer(&can, 1, 0));
  if (can != 1) printf("canAccessPeer(1, 0) = %d\n", can), bad++;
  CK(cudaDeviceCanAccessPeer(&can, 1, 1));
  if (can != 0) printf("canAccessPeer(1, 1) = %d\n", can), bad++;
  bad += expect("canAccessPeer(0, 2)", cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
  cudaGetLastError();

  int *a1, *b0, *out0;
  CK(cudaSetDevice(1));
  CK(cudaMalloc(&a1, n * sizeof(int)));
  CK(cudaMemcpy(a1, h, sizeof h, cudaMemcpyHostToDevice));
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&b0, n * sizeof(int)));
  CK(cudaMalloc(&out0, n * sizeof(int)));
  /* a1 to device 0 with the asynchronous peer copy, on the default stream */
  CK(cudaMemcpyPeerAsync(b0, 0, a1, 1, n * sizeof(int), 0));

  bad += expect("disable before enable", cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  bad += expect("enable self", cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
  bad += expect("enable self with flags", cudaDeviceEnablePeerAccess(0, 1), cudaErrorInvalidValue);
  bad += expect("disable self", cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  bad += expect("enable a device that does not exist", cudaDeviceEnablePeerAccess(5, 0), cudaErrorInvalidDevice);
  bad += expect("enable device 2", cudaDeviceEnablePeerAccess(2, 0), cudaErrorInvalidDevice);
  bad += expect("enable with flags", cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
  bad += expect("enable", cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
  bad += expect("enable twice", cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
  cudaGetLastError();

  /* device 0 reads device 1's a1: allowed now */
  addKernel<<<(n + 127) / 128, 128>>>(a1, b0, out0, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(r, out0, sizeof r, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (r[i] != 2 * i) {
      printf("out0[%d] = %d, expected %d\n", i, r[i], 2 * i);
      bad++;
      break;
    }

  /* the other way is still off: device 1 has not enabled access to device 0 */
  CK(cudaSetDevice(1));
  bad += expect("disable from device 1", cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  cudaGetLastError();
  CK(cudaSetDevice(0));
  bad += expect("disable", cudaDeviceDisablePeerAccess(1), cudaSuccess);
  bad += expect("disable twice", cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  cudaGetLastError();
  /* and enabled again */
  CK(cudaDeviceEnablePeerAccess(1, 0));
  addKernel<<<(n + 127) / 128, 128>>>(b0, a1, out0, n);
  CK(cudaDeviceSynchronize());

  cudaPointerAttributes at;
  CK(cudaPointerGetAttributes(&at, a1 + 10));
  if (at.type != cudaMemoryTypeDevice || at.device != 1) printf("a1: type %d device %d\n", (int)at.type, at.device), bad++;
  CK(cudaPointerGetAttributes(&at, b0));
  if (at.type != cudaMemoryTypeDevice || at.device != 0) printf("b0: type %d device %d\n", (int)at.type, at.device), bad++;

  CK(cudaFree(a1));
  CK(cudaFree(b0));
  CK(cudaFree(out0));
  printf(bad ? "peer FAILED\n" : "peer ok\n");
  return bad ? 1 : 0;
}
