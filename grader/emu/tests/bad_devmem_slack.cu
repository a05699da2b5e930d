// A write to element 1001 of a 1001-int allocation: 4004 bytes is not a multiple of 256, so
// the element lies in the slack between the allocation and its guard page. The end of the
// launch finds the damaged fill; cudaDeviceSynchronize returns the launch's failure.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: kernel slackKernel wrote past the end of a device allocation of 4004 bytes (first damaged byte at byte offset 0 past its end), found when the launch ended
// emu-test: stderr emu: kernel slackKernel<<<(1,1,1), (32,1,1), 0>>> launched at bad_devmem_slack.cu:22 failed: cudaErrorLaunchFailure
// emu-test: stdout cudaDeviceSynchronize: cudaErrorLaunchFailure
#include <cstdio>

__global__ void slackKernel(int *p, int n) {
  if (threadIdx.x == 0) p[n] = 42;
}

int main() {
  int *d;
  cudaMalloc(&d, 1001 * sizeof(int));
  if ((unsigned long long)d % 256) {
    printf("misaligned\n");
    return 0;
  }
  slackKernel<<<1, 32>>>(d, 1001);
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
