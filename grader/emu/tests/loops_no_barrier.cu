// Kernels without a barrier, which emu-nvcc also gives a loops version (loops.py): the block's
// threads one after another in one loop, with no fiber started for each. Each kernel runs twice
// on the same input, its first launch on fibers and its second as loops; the two must agree, and
// agree with the host's answer. The forms: a guard that returns, a grid-stride loop, a local
// array, a struct local changed through its members and through a pointer, atomics, a helper
// function, break and continue, a switch, a template, and a later launch that takes a path the
// first did not.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel guarded: its later launches run as loops
// emu-test: stderr emu: kernel strided: its later launches run as loops
// emu-test: stderr emu: kernel withLocals: its later launches run as loops
// emu-test: stderr emu: kernel scaled<3>: its later launches run as loops
// emu-test: stdout all kernels: the second launch as the first, and as the host
#include <cstdio>
#include <cstring>

#define N 300
#define THREADS 64

struct Pair {
  int lo, hi;
};

__device__ int clampTo(int v, int lim) { return v > lim ? lim : v; }

__global__ void guarded(int *out, const int *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * 2 + 1;
}

__global__ void strided(int *out, const int *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i] - 7;
}

__global__ void withLocals(int *out, const int *in, int n, int *total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int digits[8];
  int v = in[i], k = 0;
  do {
    digits[k++] = v % 10;
    v /= 10;
  } while (v && k < 8);
  Pair p;
  p.lo = digits[0];
  p.hi = digits[k - 1];
  Pair *q = &p;
  q->lo += 100;
  int sum = 0;
  for (int j = 0; j < 8; j++) {
    if (j >= k) break;
    if (digits[j] == 0) continue;
    sum += digits[j];
  }
  switch (k) {
    case 1: sum += 1000; break;
    case 2: sum += 2000; break;
    default: sum += 3000;
  }
  out[i] = clampTo(sum + p.lo * 7 + p.hi, 5000);
  atomicAdd(total, k);
}

template <int M>
__global__ void scaled(int *out, const int *in, int n, int mode) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mode ? in[i] * M : -in[i];
}

static int h_in[N], got[2][N + 1], want[N + 1];
static int *d_in, *d_out;
static int bad = 0;

// Two launches on the same input (the output and its extra word cleared before each), both
// against the host's answer.
template <class L>
static void launch_twice(const char *name, L launch) {
  for (int rep = 0; rep < 2; rep++) {
    cudaMemset(d_out, 0, (N + 1) * sizeof(int));
    launch();
    cudaMemcpy(got[rep], d_out, sizeof got[rep], cudaMemcpyDeviceToHost);
    if (memcmp(got[rep], want, sizeof want)) {
      bad++;
      int i = 0;
      while (got[rep][i] == want[i]) i++;
      printf("%s, launch %d: element %d is %d, the host says %d\n", name, rep + 1, i, got[rep][i], want[i]);
    }
  }
}

int main() {
  for (int i = 0; i < N; i++) h_in[i] = (i * 7919) % 100000;
  cudaMalloc(&d_in, N * sizeof(int));
  cudaMalloc(&d_out, (N + 1) * sizeof(int));
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  const int blocks = (N + THREADS - 1) / THREADS;

  memset(want, 0, sizeof want);
  for (int i = 0; i < N; i++) want[i] = h_in[i] * 2 + 1;
  launch_twice("guarded", [&] { guarded<<<blocks, THREADS>>>(d_out, d_in, N); });

  for (int i = 0; i < N; i++) want[i] = h_in[i] - 7;
  launch_twice("strided", [&] { strided<<<2, THREADS>>>(d_out, d_in, N); });

  int digitsAll = 0;
  for (int i = 0; i < N; i++) {
    int d[8], v = h_in[i], k = 0;
    do {
      d[k++] = v % 10;
      v /= 10;
    } while (v && k < 8);
    int sum = 0;
    for (int j = 0; j < k; j++) sum += d[j];
    sum += k == 1 ? 1000 : k == 2 ? 2000 : 3000;
    const int r = sum + (d[0] + 100) * 7 + d[k - 1];
    want[i] = r > 5000 ? 5000 : r;
    digitsAll += k;
  }
  want[N] = digitsAll;
  launch_twice("withLocals", [&] { withLocals<<<blocks, THREADS>>>(d_out, d_in, N, d_out + N); });
  want[N] = 0;

  // the first launch takes one side of the condition, the later ones the other
  for (int i = 0; i < N; i++) want[i] = -h_in[i];
  cudaMemset(d_out, 0, (N + 1) * sizeof(int));
  scaled<3><<<blocks, THREADS>>>(d_out, d_in, N, 0);
  cudaMemcpy(got[0], d_out, sizeof got[0], cudaMemcpyDeviceToHost);
  if (memcmp(got[0], want, sizeof want)) bad++, printf("scaled<3>, mode 0: wrong\n");
  for (int i = 0; i < N; i++) want[i] = h_in[i] * 3;
  launch_twice("scaled<3>", [&] { scaled<3><<<blocks, THREADS>>>(d_out, d_in, N, 1); });

  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) printf("error: %s\n", cudaGetErrorString(e));
  if (!bad && e == cudaSuccess) printf("all kernels: the second launch as the first, and as the host\n");
  return bad || e != cudaSuccess;
}
