// The probes' work counters (probe_block_end): each block's memory accesses thread by thread, the
// busiest thread's share, and the lanes of each warp-level load and store. Three scans of one
// block of 1024 ints: the double-buffered Kogge-Stone scan (every lane of every warp works), the
// same done by thread 0 alone, and by lane 0 of each warp. Built with nvcc the same file runs the
// three kernels for Nsight Compute (grader/emu/README.md, "Work": smsp__inst_executed.sum and
// smsp__thread_inst_executed.sum beside the emu's counts).
// emu-test: expect pass
// emu-test: native no its output is the emu's counters
// emu-test: probe
// emu-test: stdout parallel: accesses 33793, memory instructions 1057, lanes 32.0, busiest thread 0.1%
// emu-test: stdout serial: accesses 7165, memory instructions 3197, lanes 2.2, busiest thread 42.9%
// emu-test: stdout lane: accesses 40800, memory instructions 4158, lanes 9.8, busiest thread 0.3%
#include <cstdio>
#include <vector>
#include "emu_test.h"

#define N 1024

__global__ void parallelScan(const int *in, int *out) {
  __shared__ int buf[2 * N];
  int *src = buf, *dst = buf + N;
  const unsigned t = threadIdx.x;
  src[t] = in[t];
  __syncthreads();
  for (unsigned d = 1; d < N; d *= 2) {
    dst[t] = t >= d ? src[t - d] + src[t] : src[t];
    __syncthreads();
    int *tmp = src;
    src = dst;
    dst = tmp;
  }
  out[t] = src[t];
}

__global__ void serialScan(const int *in, int *out) {
  __shared__ int s[N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t == 0)
    for (unsigned k = 1; k < N; k++) s[k] += s[k - 1];
  __syncthreads();
  out[t] = s[t];
}

__global__ void laneScan(const int *in, int *out) {
  __shared__ int s[N];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t % 32 == 0)
    for (unsigned k = t + 1; k < t + 32; k++) s[k] += s[k - 1];
  for (unsigned w = 32; w < N; w += 32) {
    __syncthreads();
    const int carry = s[w - 1];
    __syncthreads();
    if (t >= w && t < w + 32) s[t] += carry;
  }
  __syncthreads();
  out[t] = s[t];
}

#ifdef SCANLAB_EMU
/* the counters' order: probe.cpp's METRIC_NAMES, then S_LD_REQ, S_ST_REQ, G_LD_VOL_SECT,
 * G_LD_VOL_REREAD, S_ATOM, G_ATOM, W_ACCESSES, W_TOP, W_BLOCKS, W_TOP_T0 */
static void counts(unsigned long long *c) {
  if (scanlab_emu_probe_counters(c, 18) != 18) {
    printf("the probes' counters are missing\n");
    exit(1);
  }
}
#endif

int main() {
  std::vector<int> h(N), want(N), got(N);
  for (int i = 0; i < N; i++) {
    h[i] = (i * 37) % 11 - 5;
    want[i] = h[i] + (i ? want[i - 1] : 0);
  }
  int *in, *out;
  CK(cudaMalloc(&in, N * sizeof(int)));
  CK(cudaMalloc(&out, N * sizeof(int)));
  CK(cudaMemcpy(in, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  const char *names[3] = {"parallel", "serial", "lane"};
  for (int k = 0; k < 3; k++) {
#ifdef SCANLAB_EMU
    unsigned long long c0[18], c1[18];
    counts(c0);
#endif
    if (k == 0) parallelScan<<<1, N>>>(in, out);
    if (k == 1) serialScan<<<1, N>>>(in, out);
    if (k == 2) laneScan<<<1, N>>>(in, out);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), out, N * sizeof(int), cudaMemcpyDeviceToHost));
    if (!same(names[k], want.data(), got.data(), N)) return 1;
#ifdef SCANLAB_EMU
    counts(c1);
    unsigned long long d[18];
    for (int i = 0; i < 18; i++) d[i] = c1[i] - c0[i];
    const unsigned long long instr = d[0] + d[2] + d[8] + d[9]; /* global ld, st; shared ld, st requests */
    printf("%s: accesses %llu, memory instructions %llu, lanes %.1f, busiest thread %.1f%%, blocks %llu\n", names[k],
           d[14], instr, (double)d[14] / (double)instr, 100.0 * (double)d[15] / (double)d[14], d[16]);
#else
    printf("%s: ok\n", names[k]);
#endif
  }
  return 0;
}
