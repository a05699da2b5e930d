// Edge detection in the style of the CUDA samples' image filters: an 8-bit image in a CUDA
// array read through a texture object (normalized-float reads, clamped borders), the Sobel
// gradient's magnitude written to a surface, a bilinear 2x upscale through a second texture
// object with linear filtering, and both checked against the host.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "helper_cuda_lite.h"

#define W 97
#define H 61

__global__ void sobel(cudaTextureObject_t img, cudaSurfaceObject_t out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float fx = x + 0.5f, fy = y + 0.5f;
  float p[3][3];
  for (int j = -1; j <= 1; j++)
    for (int i = -1; i <= 1; i++) p[j + 1][i + 1] = tex2D<float>(img, fx + i, fy + j);
  const float gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
  const float gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
  surf2Dwrite(sqrtf(gx * gx + gy * gy), out, x * (int)sizeof(float), y);
}

__global__ void upscale(cudaTextureObject_t img, float *out, int w2, int h2) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w2 || y >= h2) return;
  // normalized coordinates: the centre of output pixel (x, y) in [0, 1)
  out[y * w2 + x] = tex2D<float>(img, (x + 0.5f) / w2, (y + 0.5f) / h2);
}

static float px(const unsigned char *img, int x, int y) {
  x = x < 0 ? 0 : (x >= W ? W - 1 : x);
  y = y < 0 ? 0 : (y >= H ? H - 1 : y);
  return img[y * W + x] / 255.0f;
}

int main(int argc, char **argv) {
  findCudaDevice(argc, (const char **)argv);
  unsigned char *img = (unsigned char *)malloc(W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) img[y * W + x] = (unsigned char)((x * 7 + y * 13 + (x * y) % 31) & 0xff);

  cudaChannelFormatDesc cd8 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t inArr;
  checkCudaErrors(cudaMallocArray(&inArr, &cd8, W, H));
  checkCudaErrors(cudaMemcpy2DToArray(inArr, 0, 0, img, W, W, H, cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = inArr;
  cudaTextureDesc td;
  memset(&td, 0, sizeof(td));
  td.addressMode[0] = cudaAddressModeClamp;
  td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;
  td.normalizedCoords = 0;
  cudaTextureObject_t pointTex = 0, linearTex = 0;
  checkCudaErrors(cudaCreateTextureObject(&pointTex, &res, &td, NULL));
  td.filterMode = cudaFilterModeLinear;
  td.normalizedCoords = 1;
  checkCudaErrors(cudaCreateTextureObject(&linearTex, &res, &td, NULL));

  cudaChannelFormatDesc cdf = cudaCreateChannelDesc<float>();
  cudaArray_t outArr;
  checkCudaErrors(cudaMallocArray(&outArr, &cdf, W, H, cudaArraySurfaceLoadStore));
  res.res.array.array = outArr;
  cudaSurfaceObject_t outSurf = 0;
  checkCudaErrors(cudaCreateSurfaceObject(&outSurf, &res));

  dim3 block(16, 8), grid((W + 15) / 16, (H + 7) / 8);
  sobel<<<grid, block>>>(pointTex, outSurf, W, H);
  getLastCudaError("sobel kernel failed");
  float *edges = (float *)malloc(W * H * sizeof(float));
  checkCudaErrors(cudaMemcpy2DFromArray(edges, W * sizeof(float), outArr, 0, 0, W * sizeof(float), H,
                                        cudaMemcpyDeviceToHost));

  const int W2 = 2 * W, H2 = 2 * H;
  float *d_up, *up = (float *)malloc(W2 * H2 * sizeof(float));
  checkCudaErrors(cudaMalloc(&d_up, W2 * H2 * sizeof(float)));
  dim3 grid2((W2 + 15) / 16, (H2 + 7) / 8);
  upscale<<<grid2, block>>>(linearTex, d_up, W2, H2);
  getLastCudaError("upscale kernel failed");
  checkCudaErrors(cudaMemcpy(up, d_up, W2 * H2 * sizeof(float), cudaMemcpyDeviceToHost));

  int bad = 0;
  double maxErr = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float p[3][3];
      for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) p[j + 1][i + 1] = px(img, x + i, y + j);
      const float gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
      const float gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
      const double err = fabs(edges[y * W + x] - sqrt(gx * gx + gy * gy));
      if (err > maxErr) maxErr = err;
      if (err > 1e-4) bad++;
    }
  // the upscale: the filtering hardware weighs with 8 fractional bits, so allow 1/256 of the step
  for (int y = 0; y < H2; y++)
    for (int x = 0; x < W2; x++) {
      const float sx = (x + 0.5f) / W2 * W - 0.5f, sy = (y + 0.5f) / H2 * H - 0.5f;
      const int x0 = (int)floorf(sx), y0 = (int)floorf(sy);
      const float a = sx - x0, b = sy - y0;
      const float want = (1 - a) * (1 - b) * px(img, x0, y0) + a * (1 - b) * px(img, x0 + 1, y0) +
                         (1 - a) * b * px(img, x0, y0 + 1) + a * b * px(img, x0 + 1, y0 + 1);
      if (fabsf(up[y * W2 + x] - want) > 2.0f / 256.0f) bad++;
    }
  printf("sobel: max error %.2e; %d pixels differ\n", maxErr, bad);

  checkCudaErrors(cudaDestroyTextureObject(pointTex));
  checkCudaErrors(cudaDestroyTextureObject(linearTex));
  checkCudaErrors(cudaDestroySurfaceObject(outSurf));
  checkCudaErrors(cudaFreeArray(inArr));
  checkCudaErrors(cudaFreeArray(outArr));
  checkCudaErrors(cudaFree(d_up));
  free(img);
  free(edges);
  free(up);
  if (bad) {
    printf("FAILED\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
