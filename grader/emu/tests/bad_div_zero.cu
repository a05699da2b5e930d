// An integer division by zero in a kernel: a GPU gives a value and runs on (an H200: 7 / 0 is
// -1 and 7 % 0 is 7; INT_MIN / -1 is INT_MIN), the CPU stops the process with SIGFPE. The emu
// died with no word (exit status 136); now it names the kernel, block and thread, and the
// GPU's behaviour, before the process ends.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stderr emu: integer division by zero or overflow (SIGFPE) in block (1,0,0), thread (3,0,0)
// emu-test: stderr a GPU gives a value there and runs on
// emu-test: stderr emu: kernel divKernel<<<(2,1,1), (4,1,1), 0>>> launched at bad_div_zero.cu:22 failed
#include <cstdio>

__global__ void divKernel(const int *den, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 7 / den[i];
}

int main() {
  int h[8] = {1, 1, 1, 1, 1, 1, 1, 0}, *den, *out;
  cudaMalloc(&den, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(den, h, sizeof h, cudaMemcpyHostToDevice);
  divKernel<<<2, 4>>>(den, out);
  cudaDeviceSynchronize();
  printf("not reached on the emu\n");
  return 0;
}
