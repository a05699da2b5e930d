// Kernels with barriers, rewritten as emu-nvcc rewrites a program (loops.py): each
// kernel's first launch runs thread by thread, its later ones as loops over each block's threads
// (loops.py). Each is launched three times on new data and checked against the host: a scan in
// the CUDA samples' shape (inlined functions that return values, a volatile shared array, a
// cg::thread_block passed down, barriers in a loop), a tree reduction, a barrier under a
// condition the whole block shares, several names in one declaration, dynamic shared memory, a
// template, a parameter the kernel changes, a do-while, a block that returns early in its last
// launch.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel scanShort: its later launches run as loops
// emu-test: stderr emu: kernel reduceTree: its later launches run as loops
// emu-test: stderr emu: kernel halves: its later launches run as loops
// emu-test: stderr emu: kernel reverseDyn: its later launches run as loops
// emu-test: stderr emu: kernel smooth<2>: its later launches run as loops
// emu-test: stderr emu: kernel rounds: its later launches run as loops
// emu-test: stdout all right
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define THREADS 128

// ---- a scan of short arrays in the CUDA samples' shape
__device__ inline unsigned naiveInclusive(unsigned mine, volatile unsigned *buf, unsigned width, cg::thread_block block) {
  unsigned at = 2 * threadIdx.x - (threadIdx.x & (width - 1));
  buf[at] = 0;
  at += width;
  buf[at] = mine;
  for (unsigned step = 1; step < width; step <<= 1) {
    cg::sync(block);
    unsigned sum = buf[at] + buf[at - step];
    cg::sync(block);
    buf[at] = sum;
  }
  return buf[at];
}

__device__ inline unsigned naiveExclusive(unsigned mine, volatile unsigned *buf, unsigned width, cg::thread_block block) {
  return naiveInclusive(mine, buf, width, block) - mine;
}

__device__ inline uint4 scanFour(uint4 v, volatile unsigned *buf, unsigned width, cg::thread_block block) {
  v.y += v.x;
  v.z += v.y;
  v.w += v.z;
  unsigned before = naiveExclusive(v.w, buf, width / 4, block);
  uint4 out;
  out.x = before;
  out.y = before + v.x;
  out.z = before + v.y;
  out.w = before + v.z;
  return out;
}

__global__ void scanShort(uint4 *dst, const uint4 *src, unsigned width) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned buf[2 * THREADS];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 v = src[i];
  uint4 out = scanFour(v, buf, width, block);
  dst[i] = out;
}

// ---- a tree reduction, its loop's bound the block's size
__global__ void reduceTree(const int *in, int *out, int n) {
  __shared__ int part[THREADS];
  const int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  part[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (tid < (int)half) part[tid] += part[tid + half];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = part[0];
}

// ---- a barrier under a condition the block shares; a do-while; several names declared at once
__global__ void halves(int *data) {
  __shared__ int tile[THREADS];
  int t = threadIdx.x, base = blockIdx.x * THREADS;
  tile[t] = data[base + t];
  __syncthreads();
  if (blockIdx.x % 2 == 0) {
    int mirror = tile[THREADS - 1 - t];
    __syncthreads();
    tile[t] = mirror;
  }
  int passes = 0;
  do {
    __syncthreads();
    int left = t > 0 ? tile[t - 1] : 0;
    __syncthreads();
    tile[t] += left;
    passes++;
  } while (passes < 2);
  __syncthreads();
  data[base + t] = tile[t];
}

// ---- dynamic shared memory; a parameter the kernel changes
__global__ void reverseDyn(int *data, int n) {
  extern __shared__ int dyn[];
  data += blockIdx.x * blockDim.x;
  n -= blockIdx.x * blockDim.x;
  const int t = threadIdx.x;
  if (t < n) dyn[t] = data[t];
  __syncthreads();
  if (t < n) data[t] = dyn[n < (int)blockDim.x ? n - 1 - t : blockDim.x - 1 - t];
}

// ---- a template
template <int R>
__global__ void smooth(const float *in, float *out, int n) {
  __shared__ float win[THREADS + 2 * R];
  const int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
  win[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    win[l - R] = g >= R ? in[g - R] : 0.0f;
    win[l + THREADS] = g + THREADS < n ? in[g + THREADS] : 0.0f;
  }
  __syncthreads();
  float s = 0.0f;
  for (int k = -R; k <= R; k++) s += win[l + k];
  if (g < n) out[g] = s;
}

// ---- a block whose threads return early (the last block of the last launch)
__global__ void rounds(int *data, int n) {
  __shared__ int sh[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sh[threadIdx.x] = data[i];
  __syncthreads();
  data[i] = sh[threadIdx.x] + (threadIdx.x > 0 ? sh[threadIdx.x - 1] : 0);
}

static int bad = 0;
static void expect(bool ok, const char *what, int launch) {
  if (!ok && bad++ < 10) printf("wrong: %s, launch %d\n", what, launch);
}

int main() {
  const int blocks = 8, n = blocks * THREADS;
  uint4 *d4, *o4;
  int *di, *oi;
  float *df, *of;
  cudaMalloc(&d4, n * sizeof(uint4));
  cudaMalloc(&o4, n * sizeof(uint4));
  cudaMalloc(&di, n * sizeof(int));
  cudaMalloc(&oi, n * sizeof(int));
  cudaMalloc(&df, n * sizeof(float));
  cudaMalloc(&of, n * sizeof(float));
  static uint4 h4[n], r4[n];
  static int hi[n], ri[n];
  static float hf[n], rf[n];
  srand(7);
  for (int launch = 0; launch < 3; launch++) {
    for (int i = 0; i < n; i++) {
      h4[i] = make_uint4(rand() % 10, rand() % 10, rand() % 10, rand() % 10);
      hi[i] = rand() % 100 - 50;
      hf[i] = (float)(rand() % 17);
    }
    // scanShort: arrays of `width` elements, 4 a thread
    const unsigned width = 16u << launch;
    cudaMemcpy(d4, h4, sizeof h4, cudaMemcpyHostToDevice);
    scanShort<<<blocks, THREADS>>>(o4, d4, width);
    cudaMemcpy(r4, o4, sizeof r4, cudaMemcpyDeviceToHost);
    const unsigned *hs = (const unsigned *)h4, *rs = (const unsigned *)r4;
    for (int a = 0; a < 4 * n; a += (int)width) {
      unsigned acc = 0;
      for (int k = a; k < a + (int)width; k++) {
        expect(rs[k] == acc, "scanShort", launch);
        acc += hs[k];
      }
    }
    // reduceTree
    cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
    reduceTree<<<blocks, THREADS>>>(di, oi, n - launch * 5);
    cudaMemcpy(ri, oi, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
      int want = 0;
      for (int k = b * THREADS; k < (b + 1) * THREADS && k < n - launch * 5; k++) want += hi[k];
      expect(ri[b] == want, "reduceTree", launch);
    }
    // halves
    cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
    halves<<<blocks, THREADS>>>(di);
    cudaMemcpy(ri, di, sizeof ri, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
      int tile[THREADS];
      for (int t = 0; t < THREADS; t++) tile[t] = hi[b * THREADS + (b % 2 == 0 ? THREADS - 1 - t : t)];
      for (int pass = 0; pass < 2; pass++)
        for (int t = THREADS - 1; t > 0; t--) tile[t] += tile[t - 1];
      for (int t = 0; t < THREADS; t++) expect(ri[b * THREADS + t] == tile[t], "halves", launch);
    }
    // reverseDyn: the last block holds fewer elements in later launches
    const int m = n - launch * 40;
    cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
    reverseDyn<<<blocks, THREADS, THREADS * sizeof(int)>>>(di, m);
    cudaMemcpy(ri, di, sizeof ri, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
      const int len = m - b * THREADS < THREADS ? m - b * THREADS : THREADS;
      for (int t = 0; t < len; t++) expect(ri[b * THREADS + t] == hi[b * THREADS + len - 1 - t], "reverseDyn", launch);
    }
    // smooth<2>
    cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
    smooth<2><<<blocks, THREADS>>>(df, of, n);
    cudaMemcpy(rf, of, sizeof rf, cudaMemcpyDeviceToHost);
    for (int g = 0; g < n; g++) {
      float s = 0.0f;
      for (int k = -2; k <= 2; k++) s += g + k >= 0 && g + k < n ? hf[g + k] : 0.0f;
      expect(rf[g] == s, "smooth", launch);
    }
    // rounds: in the last launch, the last block's upper half returns at once
    const int r = launch == 2 ? n - THREADS / 2 : n;
    cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice);
    rounds<<<blocks, THREADS>>>(di, r);
    cudaMemcpy(ri, di, sizeof ri, cudaMemcpyDeviceToHost);
    for (int i = 0; i < r; i++) expect(ri[i] == hi[i] + (i % THREADS > 0 ? hi[i - 1] : 0), "rounds", launch);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) printf("error: %s\n", cudaGetErrorString(e));
  printf(bad || e != cudaSuccess ? "WRONG\n" : "all right\n");
  return bad || e != cudaSuccess;
}
