// bad_wrong_device.cu's mistake through cudaLaunchKernel with an argument array (the kernel a
// template's instance): the runtime finds the pointer arguments by the kernel's parameter types,
// and the launch fails the same way, naming the instance.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_DEVICES=3
// emu-test: rc 1
// emu-test: stderr emu: kernel copyKernel<int>: argument 1 points into memory of device 2, launched on device 1 (no peer access: cudaDeviceEnablePeerAccess was not called)
// emu-test: stderr failed: cudaErrorIllegalAddress
// emu-test: stdout synchronize: cudaErrorIllegalAddress
#include <cstdio>

template <class T>
__global__ void copyKernel(T *out, const T *in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  int *in1, *out2;
  if (cudaSetDevice(2) != cudaSuccess) return 2;
  cudaMalloc(&out2, 32 * sizeof(int));
  if (cudaSetDevice(1) != cudaSuccess) return 2;
  cudaMalloc(&in1, 32 * sizeof(int));
  /* device 0 has peer access to device 2, device 1 has not */
  cudaSetDevice(0);
  cudaDeviceEnablePeerAccess(2, 0);
  cudaSetDevice(1);
  int n = 32;
  void *args[] = {&out2, &in1, &n};
  cudaLaunchKernel(copyKernel<int>, dim3(1), dim3(32), args);
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
