// Kernel arguments as CUDA passes them: converted to the parameters' types once on the host,
// then a bitwise copy for every thread, with no constructor or destructor run for a thread. A
// by-value struct with a destructor (CUDA by Example's lock) was destroyed once per thread,
// freeing its mutex while other blocks spun on it. Also: a thread's changes to its parameter
// stay its own; a default argument, a conversion (int to size_t, a derived class to its base),
// a template's instance, and a reference parameter beside a class one still launch (a noexcept
// kernel, which nvcc refuses, is bad_noexcept_kernel.cu). A kernel declared before its
// definition (its prototype above main) is passed the same way (it was not: a copy and a
// destructor for each of its threads).
// emu-test: expect pass
#include <cstdio>

struct Lock {
  int *mutex;
  Lock() {
    cudaMalloc(&mutex, sizeof(int));
    cudaMemset(mutex, 0, sizeof(int));
  }
  ~Lock() { cudaFree(mutex); }
  __device__ void lock() { while (atomicCAS(mutex, 0, 1) != 0) {} }
  __device__ void unlock() { atomicExch(mutex, 0); }
};

static int g_copies = 0, g_dtors = 0;
struct Counted {
  int v;
  explicit Counted(int x) : v(x) {}
  Counted(const Counted &o) : v(o.v) { g_copies++; }
  ~Counted() { g_dtors++; }
};
struct Base {
  int v;
};
struct Derived : Base {
  int extra;
};

__global__ void addKernel(Lock lock, int *sum) {
  if (threadIdx.x == 0) {
    lock.lock();
    *sum += 1;
    lock.unlock();
  }
}
__global__ void countKernel(Counted c, int *out) {
  c.v += threadIdx.x; /* this thread's copy */
  out[threadIdx.x] = c.v;
}
__global__ void defaultKernel(int *out, int add = 5) { out[threadIdx.x] = add; }
__global__ void sizeKernel(size_t n, int *out) { out[threadIdx.x] = (int)n; }
__global__ void baseKernel(Base b, int *out) { out[threadIdx.x] = b.v; }
template <int K>
__global__ void scaleKernel(int *out) { out[threadIdx.x] = K * (int)threadIdx.x; }
__managed__ int refN = 40;
__global__ void refKernel(const int &n, Lock lock, int *out) { out[threadIdx.x] = n + (lock.mutex != nullptr); }
__global__ void countLaterKernel(Counted c, int *out);  // defined after main

int main() {
  int *sum, *out, h[64];
  cudaMalloc(&sum, sizeof(int));
  cudaMemset(sum, 0, sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  int bad = 0;
  {
    Lock lock;
    addKernel<<<8, 64>>>(lock, sum);
    if (cudaDeviceSynchronize() != cudaSuccess) bad++;
  }
  int s = 0;
  cudaMemcpy(&s, sum, sizeof(int), cudaMemcpyDeviceToHost);
  if (s != 8) printf("the lock's sum is %d, not 8\n", s), bad++;
  // at most one copy and one destructor of a by-value argument a launch (the host's copy)
  auto oneCopy = [&](const char *kernel, auto launch) {
    const int copies = g_copies, dtors = g_dtors;
    launch();
    cudaDeviceSynchronize();
    if (g_copies - copies > 1 || g_dtors - dtors > 1)
      printf("%s: one launch ran %d copies and %d destructors: at most one of each (the host's copy)\n", kernel,
             g_copies - copies, g_dtors - dtors), bad++;
  };
  {
    Counted c(7);
    oneCopy("countKernel", [&] { countKernel<<<1, 64>>>(c, out); });
  }
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; i++)
    if (h[i] != 7 + i) printf("countKernel [%d] = %d, not %d: threads share a copy\n", i, h[i], 7 + i), bad++, i = 64;
  {
    Counted c(2);
    oneCopy("countLaterKernel (declared before its definition)", [&] { countLaterKernel<<<1, 64>>>(c, out); });
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    if (h[63] != 2 * 63) printf("countLaterKernel [63] = %d, not %d\n", h[63], 2 * 63), bad++;
  }
  defaultKernel<<<1, 64>>>(out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  if (h[63] != 5) printf("a default argument: %d\n", h[63]), bad++;
  sizeKernel<<<1, 64>>>(41, out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  if (h[0] != 41) printf("int to size_t: %d\n", h[0]), bad++;
  Derived d;
  d.v = 3;
  d.extra = 9;
  baseKernel<<<1, 64>>>(d, out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  if (h[10] != 3) printf("a derived class to its base: %d\n", h[10]), bad++;
  {
    Lock lock;
    /* a reference parameter beside one passed by invisible reference; the reference is to
     * managed memory, which a kernel may read (to a host variable, a GPU faults) */
    refKernel<<<1, 64>>>(refN, lock, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    if (h[5] != 41) printf("a reference parameter beside a class one: %d\n", h[5]), bad++;
  }
  scaleKernel<3><<<1, 64>>>(out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  if (h[10] != 30) printf("a template's instance: %d\n", h[10]), bad++;
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}

__global__ void countLaterKernel(Counted c, int *out) {
  c.v *= (int)threadIdx.x; /* this thread's copy */
  out[threadIdx.x] = c.v;
}
