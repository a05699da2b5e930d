// A grid-stride loop with barriers inside (the loops test its condition for each thread): the
// first launches cover whole rounds, so the threads agree and the kernel runs as loops; a later
// launch leaves the last round partial, and its threads that leave the loop exit (a GPU, and the
// fibers, count them as arrived at the barriers the others still meet). As loops the threads
// disagree at the condition and cannot go on: the launch failed (cudaErrorLaunchFailure,
// sticky). Each launch as loops of such a kernel now runs on a copy of memory kept aside: where
// the loops cannot go on, memory is put back and the launch runs on fibers, as do the kernel's
// later ones. Each launch against the host's answer.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel pairs: its later launches run as loops
// emu-test: stderr emu: kernel pairs: its launches run thread by thread from now on: as loops, this launch could not go on
// emu-test: stdout all launches as the host
#include <cstdio>

#define THREADS 64

__global__ void pairs(const int *in, int *out, int n) {
  __shared__ int s[THREADS];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s[threadIdx.x] = in[i];
    __syncthreads();
    const int other = (i ^ 1) < n ? s[threadIdx.x ^ 1] : 0;
    out[i] = in[i] + other;
    __syncthreads();
  }
}

int main() {
  const int most = 4096;
  static int h[most], got[most];
  for (int i = 0; i < most; i++) h[i] = i * 3 % 101;
  int *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  const int sizes[] = {1024, 2048, 4096, 1000, 777, 3000};
  int bad = 0;
  for (int it = 0; it < 6; it++) {
    const int n = sizes[it];
    pairs<<<4, THREADS>>>(in, out, n);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += got[i] != h[i] + ((i ^ 1) < n ? h[i ^ 1] : 0);
    if (wrong || e != cudaSuccess) bad++, printf("launch %d (n %d): %s, %d elements wrong\n", it + 1, n, cudaGetErrorString(e), wrong);
  }
  if (!bad) printf("all launches as the host\n");
  return bad != 0;
}
