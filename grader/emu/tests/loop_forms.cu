// What cu2cpp.py's loop contexts must leave as they were: every form of loop, wrapped in its
// block on its own lines, computes what it did. Unbraced bodies, an if's arm, a dangling else,
// nested loops, do-while, `#pragma unroll` (1, and before a known count), break, continue
// and return inside loops, a labelled body, range-for, a loop in a lambda, in a switch, in a constexpr
// function (left alone) and in a macro (left alone). Built with the memory probes, where the
// contexts are real objects.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward
#include "emu_test.h"

#define SUM_TO(n, acc) \
  for (int q_ = 0; q_ < (n); q_++) (acc) += q_

constexpr int triangle(int n) {
  int s = 0;
  for (int i = 1; i <= n; i++) s += i;
  return s;
}
static_assert(triangle(4) == 10, "a constexpr loop");

__device__ int firstOver(const int *v, int n, int limit) {
  for (int i = 0; i < n; i++)
    if (v[i] > limit) return i;
  return -1;
}

__global__ void formsKernel(const int *in, int *out) {
  const int t = threadIdx.x;
  int r[13] = {0};
  for (int i = 0; i < t; i++) r[0] += 1;                       /* t */
  if (t % 2) for (int i = 0; i < 3; i++) r[1] += i; else r[1] = -1; /* 3 or -1 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) r[2] += i * j;                  /* 3 */
  int k = 0;
  do r[3] += 2; while (++k < 3);                                /* 6 */
#pragma unroll 1
  for (int i = 0; i < t % 5; i++) { r[4] += 10; }               /* 10 * (t % 5) */
#pragma unroll
  for (int i = 0; i < 4; i++) r[5] += in[i];                   /* 1 + 2 + 3 + 4 */
  for (int i = 0;; i++) {
    if (i == 7) break;
    if (i % 2) continue;
    r[6] += i;                                                  /* 0 + 2 + 4 + 6 */
  }
  r[7] = firstOver(in, 4, t % 4);                               /* first in[i] > t % 4 */
  const int arr[3] = {5, 6, 7};
  for (int x : arr) r[8] += x;                                  /* 18 */
  auto twice = [](int n) { int s = 0; while (n--) s += 2; return s; };
  r[9] = twice(t % 3);                                          /* 2 * (t % 3) */
  switch (t % 2) {
    case 0:
      for (int i = 0; i < 2; i++) r[10] += 1;                   /* 2 where t is even */
      break;
    default:
      r[10] = 5;
  }
  SUM_TO(4, r[11]);                                             /* 6 */
  for (int i = 0; i < 3; i++) again: { if (++r[12] > 1000) goto again; } r[12] += 100; /* 103 */
  for (int i = 0; i < 13; i++) out[t * 13 + i] = r[i];
}

int main() {
  const int T = 40;
  int h_in[4] = {1, 2, 3, 4}, *in, *out;
  CK(cudaMalloc(&in, sizeof h_in));
  CK(cudaMalloc(&out, T * 13 * sizeof(int)));
  CK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  formsKernel<<<1, T>>>(in, out);
  int got[T * 13], want[T * 13];
  CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int t = 0; t < T; t++) {
    const int w[13] = {t, t % 2 ? 3 : -1, 3, 6, 10 * (t % 5), 10, 12, t % 4, 18, 2 * (t % 3),
                       t % 2 ? 5 : 2, 6, 103};
    for (int i = 0; i < 13; i++) want[t * 13 + i] = w[i];
  }
  if (!same("loop forms", want, got, (size_t)T * 13)) return 1;
  printf("ok\n");
  return 0;
}
