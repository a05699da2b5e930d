// The classic off-by-one (`i <= n`): one thread writes the int just past the end of a
// 1000-int allocation. 4000 bytes is not a multiple of the 256-byte alignment, so that int
// lands in the 96 bytes of slack before the guard page: the fill there is damaged, and the end
// of the launch reports it, in bytes past the end.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: kernel fillKernel wrote past the end of a device allocation of 4000 bytes (first damaged byte at byte offset 0 past its end), found when the launch ended
// emu-test: stderr emu: kernel fillKernel<<<(4,1,1), (256,1,1), 0>>> launched at bad_devmem_off_by_one.cu:20 failed: cudaErrorLaunchFailure
// emu-test: stdout launch: cudaErrorLaunchFailure
#include <cstdio>

__global__ void fillKernel(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) p[i] = i;
}

int main() {
  int *d;
  cudaMalloc(&d, 1000 * sizeof(int));
  fillKernel<<<4, 256>>>(d, 1000);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
