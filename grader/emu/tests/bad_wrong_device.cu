// Two devices (SCANLAB_EMU_DEVICES=2). A kernel launched while device 0 is current gets, as its
// second argument, a pointer into memory allocated while device 1 was current, and no peer
// access was enabled: on a GPU the kernel's first access is an illegal address. The emu fails
// the launch before it runs, naming the kernel, the argument (counted from 1) and both devices;
// the error is cudaErrorIllegalAddress, sticky, and the process exits with status 1.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_DEVICES=2
// emu-test: rc 1
// emu-test: stderr emu: kernel scanKernel: argument 2 points into memory of device 1, launched on device 0 (no peer access: cudaDeviceEnablePeerAccess was not called)
// emu-test: stderr emu: kernel scanKernel<<<(1,1,1), (32,1,1), 0>>> launched at bad_wrong_device.cu:35 failed: cudaErrorIllegalAddress
// emu-test: stdout devices: 2
// emu-test: stdout synchronize: cudaErrorIllegalAddress
#include <cstdio>

__global__ void scanKernel(const int *in, int *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

int main() {
  int count = 0;
  cudaGetDeviceCount(&count);
  printf("devices: %d\n", count);
  int h[32];
  for (int i = 0; i < 32; i++) h[i] = i;
  int *in0, *out1;
  if (cudaSetDevice(1) != cudaSuccess) return 2;
  cudaMalloc(&out1, sizeof h);
  cudaMemset(out1, 0, sizeof h);
  if (cudaSetDevice(0) != cudaSuccess) return 2;
  cudaMalloc(&in0, sizeof h);
  cudaMemcpy(in0, h, sizeof h, cudaMemcpyHostToDevice);
  /* out1 is device 1's: the launch on device 0 must fail */
  scanKernel<<<1, 32>>>(in0, out1, 32);
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
