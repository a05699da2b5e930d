// Texture and surface objects over CUDA arrays, linear and pitched memory: point sampling and
// linear filtering, normalized coordinates with wrap and mirror, clamp and border, 8-bit texels
// read as normalized floats, half texels, tex1Dfetch (zero past the end), tex3D over an array
// filled by cudaMemcpy3D, surf2Dwrite / surf2Dread, and copies back out of arrays.
// emu-test: expect pass
// emu-test: schedules forward random:1
// emu-test: stdout textures ok
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>

#include "emu_test.h"

#define W 8
#define H 4

__global__ void sample2D(cudaTextureObject_t t, const float2 *at, float *out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}
__global__ void sample1D(cudaTextureObject_t t, const float *at, float *out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, at[i]);
}
__global__ void fetchInts(cudaTextureObject_t t, int *out, int n) {
  const int i = threadIdx.x;
  if (i < n) tex1Dfetch(&out[i], t, i - 2);
}
__global__ void sampleBytes(cudaTextureObject_t t, float4 *out) {
  out[threadIdx.x] = tex2D<float4>(t, threadIdx.x + 0.5f, 0.5f);
}
__global__ void sample3D(cudaTextureObject_t t, float *out) {
  out[threadIdx.x] = tex3D<float>(t, 1.0f, 1.0f, 0.5f + 0.25f * threadIdx.x);
}
__global__ void doubleSurface(cudaSurfaceObject_t s) {
  const int x = threadIdx.x, y = blockIdx.x;
  const float v = surf2Dread<float>(s, x * (int)sizeof(float), y);
  surf2Dwrite(2.0f * v, s, x * (int)sizeof(float), y);
}

static float grid(int x, int y) { return (float)(10 * y + x); }

int main() {
  int bad = 0;
  /* a 2D float array */
  float host[H][W];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) host[y][x] = grid(x, y);
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  if (fd.x != 32 || fd.y != 0 || fd.f != cudaChannelFormatKindFloat) {
    printf("channel desc of float wrong\n");
    return 1;
  }
  cudaArray_t arr;
  CK(cudaMallocArray(&arr, &fd, W, H, cudaArraySurfaceLoadStore));
  CK(cudaMemcpy2DToArray(arr, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, linear;
  CK(cudaCreateTextureObject(&point, &rd, &td, NULL));
  td.filterMode = cudaFilterModeLinear;
  CK(cudaCreateTextureObject(&linear, &rd, &td, NULL));

  const int n = 6;
  const float2 at[n] = {{0.5f, 0.5f}, {3.2f, 2.9f}, {-4.0f, 1.5f}, {100.0f, 100.0f}, {1.0f, 0.5f}, {2.25f, 1.75f}};
  /* point: texel floor(x), clamped; linear: between the texels around x - 0.5 */
  const float want_point[n] = {grid(0, 0), grid(3, 2), grid(0, 1), grid(7, 3), grid(1, 0), grid(2, 1)};
  const float want_linear[n] = {grid(0, 0), 0, grid(0, 1), grid(7, 3), 0.5f * (grid(0, 0) + grid(1, 0)), 0};
  float2 *dat;
  float *dout, out[n];
  CK(cudaMalloc(&dat, sizeof at));
  CK(cudaMalloc(&dout, 64 * sizeof(float)));
  CK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
  sample2D<<<1, 32>>>(point, dat, dout, n);
  CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (out[i] != want_point[i]) printf("point %d: %g, want %g\n", i, out[i], want_point[i]), bad++;
  sample2D<<<1, 32>>>(linear, dat, dout, n);
  CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  /* (2.25, 1.75): x - 0.5 = 1.75, y - 0.5 = 1.25: weights 0.75 / 0.25 */
  const float bil = 0.25f * 0.75f * grid(1, 1) + 0.75f * 0.75f * grid(2, 1) + 0.25f * 0.25f * grid(1, 2) +
                    0.75f * 0.25f * grid(2, 2);
  for (int i = 0; i < n; i++) {
    if (i == 1) continue; /* its fractions are not multiples of 1/256: checked by the 1D case */
    const float w = i == 5 ? bil : want_linear[i];
    if (fabsf(out[i] - w) > 1e-4f) printf("linear %d: %g, want %g\n", i, out[i], w), bad++;
  }

  /* normalized coordinates: wrap and mirror on a 1D array of 4 */
  const float line[4] = {1, 2, 3, 4};
  cudaArray_t arr1;
  CK(cudaMallocArray(&arr1, &fd, 4));
  CK(cudaMemcpyToArray(arr1, 0, 0, line, sizeof line, cudaMemcpyHostToDevice));
  rd.res.array.array = arr1;
  td.normalizedCoords = 1;
  td.filterMode = cudaFilterModePoint;
  td.addressMode[0] = cudaAddressModeWrap;
  cudaTextureObject_t wrap, mirror, border, lin1;
  CK(cudaCreateTextureObject(&wrap, &rd, &td, NULL));
  td.addressMode[0] = cudaAddressModeMirror;
  CK(cudaCreateTextureObject(&mirror, &rd, &td, NULL));
  td.addressMode[0] = cudaAddressModeBorder;
  CK(cudaCreateTextureObject(&border, &rd, &td, NULL));
  td.normalizedCoords = 0;
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  CK(cudaCreateTextureObject(&lin1, &rd, &td, NULL));
  const float u[5] = {0.1f, 1.1f, -0.1f, 1.3f, 0.6f};
  const float want_wrap[5] = {1, 1, 4, 2, 3}, want_mirror[5] = {1, 4, 1, 3, 3}, want_border[5] = {1, 0, 0, 0, 3};
  float *du;
  CK(cudaMalloc(&du, sizeof u));
  CK(cudaMemcpy(du, u, sizeof u, cudaMemcpyHostToDevice));
  cudaTextureObject_t objs[3] = {wrap, mirror, border};
  const float *wants[3] = {want_wrap, want_mirror, want_border};
  for (int k = 0; k < 3; k++) {
    sample1D<<<1, 32>>>(objs[k], du, dout, 5);
    CK(cudaMemcpy(out, dout, 5 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 5; i++)
      if (out[i] != wants[k][i]) printf("address mode %d at %g: %g, want %g\n", k, u[i], out[i], wants[k][i]), bad++;
  }
  /* linear filtering's weight keeps 8 fractional bits: at x = 1.1, 0.6 * 256 = 153.6 -> 154 */
  const float x11 = 1.1f;
  CK(cudaMemcpy(du, &x11, sizeof x11, cudaMemcpyHostToDevice));
  sample1D<<<1, 32>>>(lin1, du, dout, 1);
  CK(cudaMemcpy(out, dout, sizeof(float), cudaMemcpyDeviceToHost));
  if (fabsf(out[0] - (1.0f + 154.0f / 256.0f)) > 1e-6f) printf("8-bit weight: %.7f\n", out[0]), bad++;

  /* linear memory: tex1Dfetch of ints, zero outside */
  int ints[8] = {5, 6, 7, 8, 9, 10, 11, 12}, got[10];
  int *dints, *dgot;
  CK(cudaMalloc(&dints, sizeof ints));
  CK(cudaMalloc(&dgot, sizeof got));
  CK(cudaMemcpy(dints, ints, sizeof ints, cudaMemcpyHostToDevice));
  cudaResourceDesc lr;
  memset(&lr, 0, sizeof lr);
  lr.resType = cudaResourceTypeLinear;
  lr.res.linear.devPtr = dints;
  lr.res.linear.desc = cudaCreateChannelDesc<int>();
  lr.res.linear.sizeInBytes = sizeof ints;
  memset(&td, 0, sizeof td);
  cudaTextureObject_t fetch;
  CK(cudaCreateTextureObject(&fetch, &lr, &td, NULL));
  fetchInts<<<1, 10>>>(fetch, dgot, 10);
  CK(cudaMemcpy(got, dgot, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 10; i++) {
    const int w = (i - 2 >= 0 && i - 2 < 8) ? ints[i - 2] : 0;
    if (got[i] != w) printf("tex1Dfetch %d: %d, want %d\n", i - 2, got[i], w), bad++;
  }

  /* pitched uchar4 read as normalized floats */
  uchar4 px[4] = {{0, 255, 51, 102}, {255, 0, 0, 255}, {1, 2, 3, 4}, {128, 64, 32, 16}};
  uchar4 *dpx;
  size_t pitch;
  CK(cudaMallocPitch(&dpx, &pitch, sizeof px, 1));
  CK(cudaMemcpy2D(dpx, pitch, px, sizeof px, sizeof px, 1, cudaMemcpyHostToDevice));
  cudaResourceDesc pr;
  memset(&pr, 0, sizeof pr);
  pr.resType = cudaResourceTypePitch2D;
  pr.res.pitch2D.devPtr = dpx;
  pr.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
  pr.res.pitch2D.width = 4;
  pr.res.pitch2D.height = 1;
  pr.res.pitch2D.pitchInBytes = pitch;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t bytes;
  CK(cudaCreateTextureObject(&bytes, &pr, &td, NULL));
  float4 f4[4], *df4;
  CK(cudaMalloc(&df4, sizeof f4));
  sampleBytes<<<1, 4>>>(bytes, df4);
  CK(cudaMemcpy(f4, df4, sizeof f4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; i++)
    if (f4[i].x != px[i].x / 255.0f || f4[i].w != px[i].w / 255.0f)
      printf("normalized uchar4 %d: %g %g\n", i, f4[i].x, f4[i].w), bad++;

  /* a 3D array of 2 x 2 x 4 floats through cudaMemcpy3D, filtered along z */
  float vol[4][2][2];
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 2; x++) vol[z][y][x] = (float)(100 * z + 10 * y + x);
  cudaArray_t arr3;
  CK(cudaMalloc3DArray(&arr3, &fd, make_cudaExtent(2, 2, 4)));
  cudaMemcpy3DParms cp;
  memset(&cp, 0, sizeof cp);
  cp.srcPtr = make_cudaPitchedPtr(vol, 2 * sizeof(float), 2, 2);
  cp.dstArray = arr3;
  cp.extent = make_cudaExtent(2, 2, 4);
  cp.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&cp));
  rd.res.array.array = arr3;
  memset(&td, 0, sizeof td);
  td.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t t3;
  CK(cudaCreateTextureObject(&t3, &rd, &td, NULL));
  sample3D<<<1, 8>>>(t3, dout);
  CK(cudaMemcpy(out, dout, 6 * sizeof(float), cudaMemcpyDeviceToHost));
  /* x = y = 1.0: the four texels of a slice weigh 1/4 each (mean 5.5); z = 0.5 + k/4 */
  for (int k = 0; k < 6; k++) {
    const float zf = 0.25f * k, z0 = floorf(zf), a = zf - z0;
    const float want = 5.5f + 100.0f * (z0 + a > 3.0f ? 3.0f : z0 + a);
    if (fabsf(out[k] - want) > 1e-3f) printf("tex3D %d: %g, want %g\n", k, out[k], want), bad++;
  }

  /* a surface: every element doubled in place, then copied back out of the array */
  cudaSurfaceObject_t surf;
  rd.res.array.array = arr;
  CK(cudaCreateSurfaceObject(&surf, &rd));
  doubleSurface<<<H, W>>>(surf);
  CK(cudaGetLastError());
  float back[H][W];
  CK(cudaMemcpy2DFromArray(back, W * sizeof(float), arr, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if (back[y][x] != 2.0f * grid(x, y)) printf("surface (%d, %d): %g\n", x, y, back[y][x]), bad++;

  /* half texels come back as floats */
  __half hv[4] = {__float2half(0.5f), __float2half(-2.0f), __float2half(1024.0f), __float2half(0.125f)};
  cudaArray_t arrh;
  cudaChannelFormatDesc hd = cudaCreateChannelDescHalf();
  CK(cudaMallocArray(&arrh, &hd, 4));
  CK(cudaMemcpy2DToArray(arrh, 0, 0, hv, sizeof hv, sizeof hv, 1, cudaMemcpyHostToDevice));
  rd.res.array.array = arrh;
  memset(&td, 0, sizeof td);
  cudaTextureObject_t th;
  CK(cudaCreateTextureObject(&th, &rd, &td, NULL));
  const float hx[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  CK(cudaMemcpy(du, hx, sizeof hx, cudaMemcpyHostToDevice));
  sample1D<<<1, 4>>>(th, du, dout, 4);
  CK(cudaMemcpy(out, dout, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; i++)
    if (out[i] != __half2float(hv[i])) printf("half texel %d: %g\n", i, out[i]), bad++;

  /* what the runtime refuses */
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t refused;
  if (cudaCreateTextureObject(&refused, &lr, &td, NULL) != cudaErrorInvalidFilterSetting)
    printf("linear filtering of int texels was not refused as a GPU refuses it\n"), bad++;
  (void)cudaGetLastError();

  CK(cudaDestroyTextureObject(point));
  CK(cudaDestroyTextureObject(linear));
  CK(cudaDestroySurfaceObject(surf));
  CK(cudaFreeArray(arr));
  CK(cudaFreeArray(arr1));
  CK(cudaFreeArray(arr3));
  CK(cudaFreeArray(arrh));
  if (bad) return 1;
  printf("textures ok\n");
  return 0;
}
