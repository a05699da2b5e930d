// Kernels whose loops version (loops.py) once gave another result than the fibers, each now run
// as loops or kept on fibers by the rewrite: a parameter's member changed, a local changed through
// a member, a reference, a chained or parenthesised assignment, an increment in a condition, a
// shared scalar read as if the same for all threads, threadIdx through a macro, in a literal or
// as ::threadIdx, a local shadowing a global or a parameter, a callee's global hidden by its
// caller's name, a class that initialises its members, calls with barriers under ?: or in a
// declaration of several names or a for's head, a local's address kept past a barrier, names that
// end alike, a division run for threads that returned, a loop on a shared counter in a block whose
// threads returned. Each kernel runs twice on the same input: its first launch on fibers, its
// second as loops where it has a loops version; the two must agree.
// emu-test: loops
// emu-test: schedules forward
// emu-test: stdout all kernels: the second launch as the first
#include <cstdio>
#include <cstring>
#define TID threadIdx.x
#define N 4

__device__ int base = 1000;

// A: member write to a by-value struct parameter
__global__ void kA(int2 q, int *out) {
  __shared__ int s[64];
  q.x += threadIdx.x;
  s[threadIdx.x] = q.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// B: member write to a local initialised uniformly
__global__ void kB(int2 q, int *out) {
  __shared__ int s[64];
  int2 v = q;
  __syncthreads();
  v.y += threadIdx.x;
  s[threadIdx.x] = v.y;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// C: write through a reference parameter of a plain device function
__device__ void bump(int &v, int d) { v += d; }
__global__ void kC(int *out) {
  __shared__ int s[64];
  int c = 0;
  __syncthreads();
  bump(c, threadIdx.x);
  s[threadIdx.x] = c;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// D: chained assignment
__global__ void kD(int *out) {
  __shared__ int s[64];
  int y = 0;
  int z;
  s[threadIdx.x] = 0;
  __syncthreads();
  z = y = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = y * 100 + z;
}
// E: a call with a barrier in the second declarator
__device__ int twice(int *s, int a) {
  s[threadIdx.x] = a;
  __syncthreads();
  int r = 2 * s[threadIdx.x];
  __syncthreads();
  return r;
}
__global__ void kE(int *out) {
  __shared__ int s[64];
  int a = 7, b = twice(s, a);
  out[threadIdx.x] = b;
}
// F: a call with a barrier under ?: (uniform condition)
__device__ int mark(int *out, int *s) {
  out[threadIdx.x] += 100;
  s[threadIdx.x] = 1;
  __syncthreads();
  return s[0];
}
__global__ void kF(int *out, int flag) {
  __shared__ int s[64];
  int v = flag ? mark(out, s) : 7;
  out[threadIdx.x] += v;
}
// G: threadIdx through a macro
__global__ void kG(int *out) {
  __shared__ int s[64];
  int t = TID;
  s[t] = t * 3;
  __syncthreads();
  out[t] = s[(t + 1) % blockDim.x];
}
// I: a local shadowing a global
__global__ void kI(int *out) {
  __shared__ int s[64];
  int r = base;
  {
    int base = 3;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    r += s[(threadIdx.x + 1) % blockDim.x] * base;
  }
  out[threadIdx.x] = r;
}
// J: brace-initialised local (not taken as a declaration) shadowing a parameter
__global__ void kJ(int *out, int v) {
  __shared__ int s[64];
  int r = 0;
  {
    int v{(int)threadIdx.x * 2};
    s[threadIdx.x] = v;
    __syncthreads();
    r = v * 100 + s[(threadIdx.x + 1) % blockDim.x];
  }
  out[threadIdx.x] = r;
}
// L: increment inside a loop's condition, bound not provably uniform
__global__ void kL(int *out, const int *lim_p) {
  __shared__ int s[64];
  int lim = lim_p[0];
  int k = 0;
  int acc = 0;
  s[threadIdx.x] = 0;
  while (k++ < lim) {
    __syncthreads();
    acc += 1;
  }
  out[threadIdx.x] = acc;
}
// P: pointer to a local that localize() turns into a loop-body local
__global__ void kP(int *out) {
  __shared__ int s[64];
  int val = threadIdx.x * 5;
  int *p = &val;
  s[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = *p + s[0];
}
// Q: parenthesised assignment target
__global__ void kQ(int *out) {
  __shared__ int s[64];
  int c = 0;
  __syncthreads();
  (c) = threadIdx.x;
  s[threadIdx.x] = c;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x] + c * 10;
}


__device__ int scale = 3;
struct Acc { int s = 0; };

// H: "threadIdx" inside a string literal
__global__ void kH(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) printf("kH: threadIdx.x=%d\n", (int)threadIdx.x);
  out[threadIdx.x] = s[threadIdx.x];
}
// K: localize() replaces hi__k[..] inside ... i__k's run (name suffix)
__global__ void kK(int *out) {
  __shared__ int s[64];
  int hi = threadIdx.x + 10;
  s[threadIdx.x] = hi;
  __syncthreads();
  int i = s[(threadIdx.x + 1) % blockDim.x];
  out[threadIdx.x] = i;
  if (threadIdx.x == 1) printf("kK: hi=%d\n", hi);
  __syncthreads();
  out[threadIdx.x] += hi * 100;
}
// S: an inlined function's global resolved to the kernel's parameter
__device__ int f2(int *s, int a) {
  s[threadIdx.x] = a * scale;
  __syncthreads();
  return s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void kS(int *out, int scale) {
  __shared__ int s[64];
  int r = f2(s, threadIdx.x);
  out[threadIdx.x] = r + scale * 1000;
}
// R: a class with default member initialisers declared in a loop with a barrier
__global__ void kR(int *out) {
  __shared__ int sh[64];
  int total = 0;
  for (int it = 0; it < 3; it++) {
    Acc a;
    a.s += threadIdx.x + it;
    sh[threadIdx.x] = a.s;
    __syncthreads();
    total += sh[threadIdx.x] * 100 + a.s;
    __syncthreads();
  }
  out[threadIdx.x] = total;
}
// T: ::threadIdx
__global__ void kT(int *out) {
  __shared__ int s[64];
  s[::threadIdx.x] = ::threadIdx.x * 7;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// M: a function with a barrier called in a for's increment
__device__ int step(int *s, int i) {
  s[threadIdx.x] = i;
  __syncthreads();
  return s[(threadIdx.x + 1) % blockDim.x] + 1;
}
__global__ void kM(int *out) {
  __shared__ int s[64];
  int acc = 0;
  for (int i = 0; i < 3; i = step(s, i)) {
    acc += i;
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}


// V: a __shared__ scalar read taken as uniform and moved before the loop over the threads
__global__ void kV(int *out, int val) {
  __shared__ int sx;
  sx = val;
  int v = sx;
  __syncthreads();
  out[threadIdx.x] = v;
}
// Y: a block whose threads all return before a barrier
__global__ void kY(int *out, int n) {
  __shared__ int s[64];
  if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// Z: a uniform division after a guard that makes every thread return
__global__ void kZ(int *out, int d) {
  __shared__ int s[64];
  if (d == 0) return;
  int q = 100 / d;
  s[threadIdx.x] = q;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
// W: a loop on a __shared__ counter in a block whose threads all returned
__global__ void kW(int *out, int n) {
  __shared__ int left;
  if (threadIdx.x == 0) left = 3;
  __syncthreads();
  if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;
  while (left > 0) {
    __syncthreads();
    if (threadIdx.x == 0) left--;
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

static int *d_out, *d_lim;
static int2 q2;
static int differ = 0;

// A kernel's two launches on the same input, the output cleared before each.
template <class L>
static void launch_twice(const char *name, L launch) {
  int got[2][64];
  for (int rep = 0; rep < 2; rep++) {
    cudaMemset(d_out, 0, 64 * sizeof(int));
    launch();
    cudaDeviceSynchronize();
    cudaMemcpy(got[rep], d_out, sizeof got[rep], cudaMemcpyDeviceToHost);
  }
  if (memcmp(got[0], got[1], sizeof got[0])) {
    differ++;
    printf("%s: the second launch differs from the first:", name);
    for (int i = 0; i < 8; i++) printf(" %d/%d", got[0][i], got[1][i]);
    printf("\n");
  }
}

int main() {
  cudaMalloc(&d_out, 64 * sizeof(int));
  cudaMalloc(&d_lim, sizeof(int));
  const int lim = 8;
  cudaMemcpy(d_lim, &lim, sizeof(int), cudaMemcpyHostToDevice);
  q2 = make_int2(10, 20);
  launch_twice("A", [] { kA<<<1, N>>>(q2, d_out); });
  launch_twice("B", [] { kB<<<1, N>>>(q2, d_out); });
  launch_twice("C", [] { kC<<<1, N>>>(d_out); });
  launch_twice("D", [] { kD<<<1, N>>>(d_out); });
  launch_twice("E", [] { kE<<<1, N>>>(d_out); });
  launch_twice("F", [] { kF<<<1, N>>>(d_out, 0); });
  launch_twice("G", [] { kG<<<1, N>>>(d_out); });
  launch_twice("I", [] { kI<<<1, N>>>(d_out); });
  launch_twice("J", [] { kJ<<<1, N>>>(d_out, 55); });
  launch_twice("L", [] { kL<<<1, N>>>(d_out, d_lim); });
  launch_twice("P", [] { kP<<<1, N>>>(d_out); });
  launch_twice("Q", [] { kQ<<<1, N>>>(d_out); });
  launch_twice("H", [] { kH<<<1, N>>>(d_out); });
  launch_twice("K", [] { kK<<<1, N>>>(d_out); });
  launch_twice("S", [] { kS<<<1, N>>>(d_out, 5); });
  launch_twice("R", [] { kR<<<1, N>>>(d_out); });
  launch_twice("T", [] { kT<<<1, N>>>(d_out); });
  launch_twice("M", [] { kM<<<1, N>>>(d_out); });
  launch_twice("V", [] { kV<<<1, N>>>(d_out, 42); });
  launch_twice("Y", [] { kY<<<2, N>>>(d_out, N); });
  launch_twice("Z", [] { kZ<<<1, N>>>(d_out, 0); });
  launch_twice("W", [] { kW<<<2, N>>>(d_out, N); });
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) printf("error: %s\n", cudaGetErrorString(e));
  if (!differ && e == cudaSuccess) printf("all kernels: the second launch as the first\n");
  return differ || e != cudaSuccess;
}
