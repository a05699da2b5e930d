// A __device__ array named in host code as a launch argument: on a GPU host code sees only the
// host copy nvcc keeps of it, so the kernel gets a host address (an H200: "named:
// cudaErrorIllegalAddress"). The emu's launch fails so too. (At 128 MiB the array was copied
// into the launch's closure: the emu crashed with SIGSEGV and no message.) The pointer
// cudaGetSymbolAddress gives works, and so does a __managed__ array named in host code.
// emu-test: expect fail
// emu-test: schedules forward
// emu-test: stdout symbol: cudaSuccess 7
// emu-test: stdout managed: cudaSuccess 5
// emu-test: stdout named: cudaErrorIllegalAddress
// emu-test: stderr emu: argument 1 of the launch of copyOut at bad_device_var_from_host.cu:
// emu-test: stderr is the __device__ variable `g_stage`, named in host code.
// emu-test: stderr cudaGetSymbolAddress
// emu-test: stderr failed: cudaErrorIllegalAddress
#include <cstdio>

#define N (32u << 20)
__device__ unsigned g_stage[N];
__managed__ unsigned g_shared[8];

__global__ void fill(unsigned *p) { p[threadIdx.x] = threadIdx.x; }
__global__ void copyOut(const unsigned *p, unsigned *out) { out[threadIdx.x] = p[threadIdx.x]; }

int main() {
  unsigned *out, *stage, h[8];
  cudaMalloc(&out, sizeof h);
  cudaGetSymbolAddress((void **)&stage, g_stage);
  fill<<<1, 8>>>(stage);
  copyOut<<<1, 8>>>(stage, out);
  cudaError_t e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("symbol: %s %u\n", cudaGetErrorName(e), h[7]);
  fill<<<1, 8>>>(g_shared);
  e = cudaDeviceSynchronize();
  printf("managed: %s %u\n", cudaGetErrorName(e), g_shared[5]);
  copyOut<<<1, 8>>>(g_stage, out);
  printf("named: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
