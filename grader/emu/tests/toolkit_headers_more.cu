// More of the toolkit's headers: cuComplex.h's arithmetic (a product, a quotient, a magnitude),
// NVTX ranges that do nothing, library_types.h, texture_types.h, an sm_60 header name,
// cuda_pipeline.h's copy into shared memory, and libcu++'s cuda/std headers over std.
// emu-test: expect pass
// emu-test: stdout headers ok
#include <cuComplex.h>
#include <cuda_pipeline.h>
#include <library_types.h>
#include <nvtx3/nvToolsExt.h>
#include <sm_60_atomic_functions.h>
#include <texture_types.h>

#include <cuda/std/cstdint>
#include <cuda/std/limits>

#include "emu_test.h"

__global__ void k(cuFloatComplex *z, float *o, cuda::std::int32_t *n) {
  __shared__ float s[32];
  __pipeline_memcpy_async(&s[threadIdx.x], &o[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  z[threadIdx.x] = cuCmulf(z[threadIdx.x], make_cuFloatComplex(0, 1));
  o[threadIdx.x] = cuCabsf(z[threadIdx.x]) + s[31 - threadIdx.x];
  if (threadIdx.x == 0) *n = cuda::std::numeric_limits<cuda::std::int32_t>::max();
}

int main() {
  nvtxRangePushA("main");
  cuFloatComplex *z;
  float *o;
  int *n;
  CK(cudaMallocManaged(&z, 32 * sizeof(cuFloatComplex)));
  CK(cudaMallocManaged(&o, 32 * sizeof(float)));
  CK(cudaMallocManaged(&n, sizeof(int)));
  for (int i = 0; i < 32; i++) {
    z[i] = make_cuFloatComplex(3, 4);
    o[i] = (float)i;
  }
  k<<<1, 32>>>(z, o, n);
  CK(cudaDeviceSynchronize());
  nvtxRangePop();
  const cuDoubleComplex q = cuCdiv(make_cuDoubleComplex(1, 1), make_cuDoubleComplex(0, 2));
  if (o[5] != 5.0f + 26.0f || cuCrealf(z[0]) != -4.0f || cuCimagf(z[0]) != 3.0f || *n != 2147483647 ||
      CUDA_R_32F != 0 || q.x != 0.5 || q.y != -0.5 || fabs(cuCabs(make_cuDoubleComplex(3e200, 4e200)) / 5e200 - 1) > 1e-15) {
    printf("o[5] %g, z[0] (%g, %g), n %d, q (%g, %g)\n", o[5], cuCrealf(z[0]), cuCimagf(z[0]), *n, q.x, q.y);
    return 1;
  }
  printf("headers ok\n");
  return 0;
}
