// cuda_fp16.h: every binary16 value converts to float and back unchanged; float to half
// rounds to nearest even as the compiler's own _Float16 does (subnormals, overflow, ties);
// the directed roundings bracket the value; sums, products and quotients of halves are the
// correctly rounded ones; in a kernel, __half2 arithmetic, shuffles of halves and atomicAdd on
// __half and __half2 give what the host computes.
// emu-test: expect pass
// emu-test: schedules forward random:1
// emu-test: stdout half ok
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "emu_test.h"

static unsigned short bits_of(__half h) { return __half_as_ushort(h); }
static unsigned short ref_bits(float f) {
  _Float16 r = (_Float16)f;
  unsigned short b;
  memcpy(&b, &r, 2);
  return b;
}
static bool is_nan_bits(unsigned short b) { return (b & 0x7fffu) > 0x7c00u; }
static unsigned long long rng = 88172645463325252ull;
static unsigned next_u32() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 16);
}

__global__ void pairKernel(const __half2 *a, const __half2 *b, __half2 *fma_out, float *dot, __half *sum,
                           __half2 *sum2, __half *shuffled) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half2 p = __hfma2(a[i], b[i], __float2half2_rn(0.5f));
  fma_out[i] = p;
  const __half2 prod = __hmul2(a[i], b[i]);
  atomicAdd(dot, __low2float(prod) + __high2float(prod));
  atomicAdd(sum, __float2half(1.0f));
  atomicAdd(sum2, __floats2half2_rn(1.0f, 2.0f));
  const __half mine = __low2half(a[i]);
  shuffled[i] = __shfl_xor_sync(0xffffffffu, mine, 1);
}

int main() {
  /* every half to float and back */
  for (unsigned b = 0; b < 65536; b++) {
    const __half h = __ushort_as_half((unsigned short)b);
    const unsigned short back = bits_of(__float2half(__half2float(h)));
    if (is_nan_bits((unsigned short)b) ? !is_nan_bits(back) : back != b) {
      printf("round trip of 0x%04x gave 0x%04x\n", b, back);
      return 1;
    }
  }
  /* floats of every exponent a half can reach, and the ties between two halves */
  for (int k = 0; k < 400000; k++) {
    float f;
    if (k % 4 == 3) {
      const unsigned short lo = (unsigned short)(next_u32() & 0x7bfeu);
      f = (float)((__half2float(__ushort_as_half(lo)) + __half2float(__ushort_as_half((unsigned short)(lo + 1)))) / 2);
    } else {
      const int e = (int)(next_u32() % 48) - 30;
      f = ldexpf(1.0f + (next_u32() & 0xffffff) / 16777216.0f, e);
    }
    if (next_u32() & 1) f = -f;
    const unsigned short got = bits_of(__float2half_rn(f)), want = ref_bits(f);
    if (got != want) {
      printf("__float2half_rn(%.9g) = 0x%04x, _Float16 gives 0x%04x\n", f, got, want);
      return 1;
    }
    const float rd = __half2float(__float2half_rd(f)), ru = __half2float(__float2half_ru(f)),
                rz = __half2float(__float2half_rz(f));
    if (!(rd <= f && f <= ru) || fabsf(rz) > fabsf(f) || (rz != rd && rz != ru)) {
      printf("directed roundings of %.9g: rd %.9g ru %.9g rz %.9g\n", f, rd, ru, rz);
      return 1;
    }
  }
  /* arithmetic on halves against _Float16's */
  for (int k = 0; k < 200000; k++) {
    const unsigned short x = (unsigned short)next_u32(), y = (unsigned short)next_u32();
    if (is_nan_bits(x) || is_nan_bits(y)) continue;
    _Float16 fx, fy;
    memcpy(&fx, &x, 2);
    memcpy(&fy, &y, 2);
    const __half hx = __ushort_as_half(x), hy = __ushort_as_half(y);
    const _Float16 want[3] = {(_Float16)(fx + fy), (_Float16)(fx * fy), (_Float16)(fx / fy)};
    const __half got[3] = {hx + hy, __hmul(hx, hy), __hdiv(hx, hy)};
    for (int j = 0; j < 3; j++) {
      unsigned short w;
      memcpy(&w, &want[j], 2);
      if (!(is_nan_bits(w) && __hisnan(got[j])) && w != bits_of(got[j])) {
        printf("op %d on 0x%04x, 0x%04x: 0x%04x, _Float16 gives 0x%04x\n", j, x, y, bits_of(got[j]), w);
        return 1;
      }
    }
    if ((hx < hy) != (fx < fy) || (hx == hy) != (fx == fy)) {
      printf("comparison of 0x%04x and 0x%04x\n", x, y);
      return 1;
    }
  }
  if (__hisinf(__float2half(70000.0f)) != 1 || __half2int_rz(__float2half(-2.75f)) != -2 ||
      bits_of(__float2half_rz(70000.0f)) != 0x7bffu || __hisinf(__hdiv(__float2half(1.0f), __float2half(0.0f))) != 1) {
    printf("overflow or integer conversion wrong\n");
    return 1;
  }

  /* in a kernel */
  const int n = 64;
  __half2 ha[64], hb[64];
  for (int i = 0; i < n; i++) {
    ha[i] = __floats2half2_rn(0.25f * i, -0.5f * i);
    hb[i] = __floats2half2_rn(1.5f, 0.125f * (i % 7));
  }
  __half2 *da, *db, *dfma, *dsum2;
  float *ddot;
  __half *dsum, *dshuf;
  CK(cudaMalloc(&da, sizeof ha));
  CK(cudaMalloc(&db, sizeof hb));
  CK(cudaMalloc(&dfma, sizeof ha));
  CK(cudaMalloc(&ddot, sizeof(float)));
  CK(cudaMalloc(&dsum, sizeof(__half) * 2));
  CK(cudaMalloc(&dsum2, sizeof(__half2)));
  CK(cudaMalloc(&dshuf, sizeof(__half) * n));
  CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
  CK(cudaMemset(ddot, 0, sizeof(float)));
  CK(cudaMemset(dsum, 0, sizeof(__half) * 2));
  CK(cudaMemset(dsum2, 0, sizeof(__half2)));
  pairKernel<<<2, 32>>>(da, db, dfma, ddot, dsum + 1, dsum2, dshuf);
  CK(cudaGetLastError());
  __half2 fma_out[64], sum2;
  __half sum[2], shuf[64];
  float dot;
  CK(cudaMemcpy(fma_out, dfma, sizeof fma_out, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&dot, ddot, sizeof dot, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&sum2, dsum2, sizeof sum2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(shuf, dshuf, sizeof shuf, cudaMemcpyDeviceToHost));
  float want_dot = 0;
  for (int i = 0; i < n; i++) {
    /* __hfma2 is a device function; on the host, float arithmetic is exact for these inputs
     * (a few significant bits each), so one rounding to half gives the fused result */
    const __half2 w = __floats2half2_rn(__low2float(ha[i]) * __low2float(hb[i]) + 0.5f,
                                        __high2float(ha[i]) * __high2float(hb[i]) + 0.5f);
    if (!__hbeq2(w, fma_out[i]) || !__heq(shuf[i], __low2half(ha[i ^ 1]))) {
      printf("kernel: element %d differs\n", i);
      return 1;
    }
    const __half2 p = __hmul2(ha[i], hb[i]);
    want_dot += __low2float(p) + __high2float(p);
  }
  if (fabsf(dot - want_dot) > 1e-3f * fabsf(want_dot) || __half2float(sum[1]) != 64.0f || __half2float(sum[0]) != 0.0f ||
      __low2float(sum2) != 64.0f || __high2float(sum2) != 128.0f) {
    printf("kernel: dot %g (want %g), sums %g %g %g %g\n", dot, want_dot, __half2float(sum[0]), __half2float(sum[1]),
           __low2float(sum2), __high2float(sum2));
    return 1;
  }
  printf("half ok\n");
  return 0;
}
