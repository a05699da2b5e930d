// What the trial of a kernel's loops (sched.cpp, loops_trial) must leave as it found it, where
// the rewrite (loops.py) cannot see it: a device-heap block allocated through a functor's
// operator() (the trial's block was kept: 5 of the heap's 8 MiB, and the next launch's malloc
// got null); a function's static variable first met in a trial (its count went on from the
// trial's); a note said once (the quiet trial took it, and the program never saw it); variables
// of device code the runtime is not told of (a variable template, one a macro declares, a pointer
// to const: the trial's stores to them stayed); and a program with a thread of its own (the
// memory put back would undo that thread's stores: no trial, the kernel on fibers). Each result
// against the host's.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel make<Grab>: its launches run thread by thread from now on
// emu-test: stderr emu: kernel take<Ticket>: its launches run thread by thread from now on
// emu-test: stderr threads exited without reaching it
// emu-test: stderr emu: kernel bump: its launches run thread by thread (the program runs threads of its own
// emu-test: stdout all kernels: every launch as the host
#include <cstdio>
#include <thread>
#include <atomic>

struct Grab {
  size_t bytes;
  __device__ int *operator()() const { return (int *)malloc(bytes); }
};
template <class F>
__global__ void make(F f, int **slot) {
  if (threadIdx.x == 0) {
    int *p = f();
    *slot = p;
    if (p) p[0] = 7;
  }
}
__global__ void release(int **slot, int *ok) {
  if (threadIdx.x == 0) {
    int *p = *slot;
    *ok = p ? p[0] : -1;
    free(p);
  }
}

struct Ticket {
  __device__ int operator()() const {
    static int next = 0;
    return atomicAdd(&next, 1);
  }
};
template <class F>
__global__ void take(F f, int use, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = use ? f() : -1;
}

__global__ void reverseSome(int *d, int n) {
  __shared__ int s[64];
  if ((int)threadIdx.x >= n) return;
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[n - 1 - threadIdx.x];
}

__global__ void bump(int *d) { d[threadIdx.x] += 1; }

// variables of device code the runtime is not told of (a variable template, one a macro declares,
// a pointer to const): a trial could not put them back, so their kernels have no loops version
template <typename T>
__device__ T total;
#define DEVICE_COUNTER(name) __device__ unsigned name
DEVICE_COUNTER(hits);
__device__ const int *cursor;

__global__ void addUp(const int *d) {
  atomicAdd(&total<int>, d[threadIdx.x]);
  atomicAdd(&hits, 1u);
}
__global__ void startCursor(const int *d) { cursor = d; }
__global__ void stepCursor(int *out, int k) {
  if (threadIdx.x == 0) {
    out[k] = *cursor;
    cursor += 1;
  }
}

int main() {
  int bad = 0, **slot, *ok, *out, *d;
  cudaMalloc(&slot, sizeof(int *));
  cudaMalloc(&ok, sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMalloc(&d, 64 * sizeof(int));
  const Grab g{5u << 20};
  for (int it = 0; it < 4; it++) {
    make<<<1, 32>>>(g, slot);
    release<<<1, 32>>>(slot, ok);
    int h = 0;
    cudaMemcpy(&h, ok, sizeof h, cudaMemcpyDeviceToHost);
    if (h != 7) bad++, printf("make<Grab>, launch %d: the heap gave no block\n", it + 1);
  }
  for (int it = 0; it < 4; it++) {
    take<<<2, 32>>>(Ticket{}, it > 0, out);
    int h[64], mx = -2;
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    for (int k = 0; k < 64; k++) mx = h[k] > mx ? h[k] : mx;
    if (mx != (it > 0 ? 64 * it - 1 : -1)) bad++, printf("take<Ticket>, launch %d: the last ticket %d\n", it + 1, mx);
  }
  int hd[64];
  for (int i = 0; i < 64; i++) hd[i] = i;
  cudaMemcpy(d, hd, sizeof hd, cudaMemcpyHostToDevice);
  for (int it = 0; it < 3; it++) reverseSome<<<1, 64>>>(d, it == 0 ? 64 : 63);
  cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
  if (hd[0] != 63 || hd[62] != 1) bad++, printf("reverseSome: %d %d\n", hd[0], hd[62]);
  for (int i = 0; i < 64; i++) hd[i] = 1;
  cudaMemcpy(d, hd, sizeof hd, cudaMemcpyHostToDevice);
  for (int it = 0; it < 5; it++) addUp<<<1, 64>>>(d);
  int sum = 0;
  unsigned count = 0;
  cudaMemcpyFromSymbol(&sum, total<int>, sizeof sum);
  cudaMemcpyFromSymbol(&count, hits, sizeof count);
  if (sum != 320 || count != 320) bad++, printf("addUp: total %d, hits %u (320 each)\n", sum, count);
  for (int i = 0; i < 64; i++) hd[i] = 10 * i;
  cudaMemcpy(d, hd, sizeof hd, cudaMemcpyHostToDevice);
  startCursor<<<1, 1>>>(d);
  for (int k = 0; k < 5; k++) stepCursor<<<1, 32>>>(out, k);
  cudaMemcpy(hd, out, 5 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int k = 0; k < 5; k++)
    if (hd[k] != 10 * k) bad++, printf("stepCursor, launch %d: %d, the host says %d\n", k + 1, hd[k], 10 * k);
  // a thread of the program's own, alive while the kernel's launches run
  std::atomic<bool> stop{false};
  std::thread other([&] {
    while (!stop.load()) std::this_thread::yield();
  });
  cudaMemset(d, 0, 64 * sizeof(int));
  for (int it = 0; it < 3; it++) bump<<<1, 64>>>(d);
  stop.store(true);
  other.join();
  cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; i++) bad += hd[i] != 3;
  if (!bad) printf("all kernels: every launch as the host\n");
  return bad != 0;
}
