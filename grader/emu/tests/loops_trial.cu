// A kernel's launches as loops are tried against its fibers (sched.cpp, loops_trial): its second
// launch runs as loops on a copy of the program's memory, what it prints caught, then on fibers;
// where the two leave another memory or print another, the kernel runs on fibers from then on.
// A kernel the rewrite (loops.py) still reads wrong, caught so: a load behind a cast taken for a
// value all the block's threads share (a race in blocks of more than one thread, so here blocks
// of one), once stored (the memory differs) and once printed (what it prints differs). A kernel
// that frees what its last launch allocated has no loops version (its trial would free it twice).
// A last kernel, read right, runs as loops after its trial. Each runs three times and is checked
// against the host; what the kernel prints, each launch once.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel castLoad: its launches run thread by thread from now on: as loops, a trial of this launch left another result in memory, or printed another, than thread by thread
// emu-test: stderr emu: kernel castLoadPrints: its launches run thread by thread from now on
// emu-test: stderr emu: kernel rotates: its later launches run as loops
// emu-test: stdout launch 1: v=2
// emu-test: stdout launch 2: v=12
// emu-test: stdout launch 3: v=22
// emu-test: stdout all kernels: every launch as the host
#include <cstdio>

#define NT 64

__global__ void castLoad(int *out, int val) {
  __shared__ int s[4];
  s[0] = val;
  int v = (int)*s;
  __syncthreads();
  out[blockIdx.x] = v;
}

__global__ void castLoadPrints(int val, int launch) {
  __shared__ int s[4];
  s[0] = val;
  int v = (int)*s;
  __syncthreads();
  if (blockIdx.x == 0) printf("launch %d: v=%d\n", launch, v + 0);
}

__global__ void rotates(int *out, int k) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x + k;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % NT];
}

// what a launch run twice would do twice (a free of the last launch's block: twice, a double
// free): such a kernel has no loops version, and so no trial
__global__ void keepsHeap(int **slot, int *out, int k) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x + k;
  __syncthreads();
  if (threadIdx.x == 0) {
    if (*slot) free(*slot);
    *slot = (int *)malloc(4 * sizeof(int));
    (*slot)[0] = s[NT - 1];
    out[0] = (*slot)[0];
  }
}

int main() {
  int *d, h[NT], bad = 0, **slot;
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&slot, sizeof(int *));
  cudaMemset(slot, 0, sizeof(int *));
  for (int k = 0; k < 3; k++) {
    castLoad<<<4, 1>>>(d, 10 * k + 1);
    cudaMemcpy(h, d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < 4; b++) bad += h[b] != 10 * k + 1;
    castLoadPrints<<<4, 1>>>(10 * k + 2, k + 1);
    cudaDeviceSynchronize();
    keepsHeap<<<1, NT>>>(slot, d, k);
    cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost);
    bad += h[0] != NT - 1 + k;
    rotates<<<1, NT>>>(d, k);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int t = 0; t < NT; t++) bad += h[t] != (t + 1) % NT + k;
  }
  if (bad) printf("%d elements differ from the host's\n", bad);
  else printf("all kernels: every launch as the host\n");
  return bad != 0;
}
