// What cu2cpp.py must rewrite: launches of qualified and template kernels, with spaces and
// comments, over several lines, from a template function; a local .cuh header (inlined);
// text that only looks like a launch or a __shared__ declaration (in comments and strings);
// several declarators in one __shared__ declaration; line numbers kept.
// emu-test: expect pass
#include <cstring>
#include "rewrite_helpers.cuh"
#include "emu_test.h"

namespace outer {
namespace inner {
__global__ void sumKernel(const int *in, int *out) {
  __shared__ int a[64], b[64];  // two declarators: "k<<<1, 1>>>(x)" and __shared__ in a comment
  a[threadIdx.x] = in[threadIdx.x];
  b[threadIdx.x] = helpers::blockSum(a[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = b[threadIdx.x];
}
}  // namespace inner
}  // namespace outer

template <int N>
static void launchTwice(const int *in, int *out) {
  for (int r = 0; r < 2; r++)
    ::outer::inner::sumKernel <<< 1,  // block count
        N, N * sizeof(int) >>> (in,
                                out);
}

__global__ void lineKernel(int *line) { *line = __LINE__; }

int main() {
  const char *text = "not a launch: k<<<1, 2>>>(x); __shared__ int s[4];";
  int *d_in, *d_out, *d_line, h[64], got[64], line = 0;
  for (int i = 0; i < 64; i++) h[i] = i;
  CK(cudaMalloc(&d_in, sizeof h));
  CK(cudaMalloc(&d_out, sizeof h));
  CK(cudaMalloc(&d_line, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  launchTwice<64>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (got[i] != 63 * 64 / 2) {
      printf("sum at %d: expected %d, got %d\n", i, 63 * 64 / 2, got[i]);
      return 1;
    }
  helpers::fill(d_out, 7, 2, 32);
  CK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  if (got[63] != 7) return 1;
  lineKernel<<<1, 1>>>(d_line);
  CK(cudaMemcpy(&line, d_line, sizeof line, cudaMemcpyDeviceToHost));
  const int here = __LINE__;
  if (line != 30 || strlen(text) != 50 || here != 53) {
    printf("line numbers moved: kernel line %d (expected 30), main line %d (expected 53)\n", line, here);
    return 1;
  }
  printf("ok\n");
  return 0;
}
