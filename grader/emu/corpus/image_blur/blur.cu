// A course assignment: blur an RGBA image (uchar4 pixels) with a 5x5 box filter in a 2D grid,
// split it into channels (uchar, float3 intermediate) and recombine; compared with the host.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T err, const char *const func, const char *const file, const int line) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "CUDA error at: %s:%d\n%s %s\n", file, line, cudaGetErrorString(err), func);
    std::exit(1);
  }
}

__global__ void separateChannels(const uchar4 *rgba, int rows, int cols, unsigned char *r, unsigned char *g,
                                 unsigned char *b) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cols || y >= rows) return;
  uchar4 p = rgba[y * cols + x];
  r[y * cols + x] = p.x;
  g[y * cols + x] = p.y;
  b[y * cols + x] = p.z;
}

__global__ void boxBlur(const unsigned char *in, unsigned char *out, int rows, int cols, int radius) {
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y);
  if (pos.x >= cols || pos.y >= rows) return;
  int sum = 0, count = 0;
  for (int dy = -radius; dy <= radius; dy++)
    for (int dx = -radius; dx <= radius; dx++) {
      int yy = min(max(pos.y + dy, 0), rows - 1), xx = min(max(pos.x + dx, 0), cols - 1);
      sum += in[yy * cols + xx];
      count++;
    }
  out[pos.y * cols + pos.x] = (unsigned char)(sum / count);
}

__global__ void recombine(const unsigned char *r, const unsigned char *g, const unsigned char *b, uchar4 *out,
                          float3 *luma, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cols || y >= rows) return;
  int i = y * cols + x;
  out[i] = make_uchar4(r[i], g[i], b[i], 255);
  luma[i] = make_float3(0.299f * r[i], 0.587f * g[i], 0.114f * b[i]);
}

int main() {
  const int rows = 120, cols = 173, n = rows * cols, radius = 2;
  std::vector<uchar4> img(n), out(n);
  std::vector<float3> luma(n);
  for (int i = 0; i < n; i++) img[i] = make_uchar4(i % 256, (i * 7) % 256, (i * 13) % 256, 255);
  uchar4 *d_img, *d_out;
  unsigned char *d_ch[3], *d_bl[3];
  float3 *d_luma;
  checkCudaErrors(cudaMalloc(&d_img, n * sizeof(uchar4)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(uchar4)));
  checkCudaErrors(cudaMalloc(&d_luma, n * sizeof(float3)));
  for (int c = 0; c < 3; c++) {
    checkCudaErrors(cudaMalloc(&d_ch[c], n));
    checkCudaErrors(cudaMalloc(&d_bl[c], n));
  }
  checkCudaErrors(cudaMemcpy(d_img, img.data(), n * sizeof(uchar4), cudaMemcpyHostToDevice));
  const dim3 blockSize(16, 16, 1);
  const dim3 gridSize((cols + 15) / 16, (rows + 15) / 16, 1);
  separateChannels<<<gridSize, blockSize>>>(d_img, rows, cols, d_ch[0], d_ch[1], d_ch[2]);
  for (int c = 0; c < 3; c++) boxBlur<<<gridSize, blockSize>>>(d_ch[c], d_bl[c], rows, cols, radius);
  recombine<<<gridSize, blockSize>>>(d_bl[0], d_bl[1], d_bl[2], d_out, d_luma, rows, cols);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaMemcpy(out.data(), d_out, n * sizeof(uchar4), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(luma.data(), d_luma, n * sizeof(float3), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int y = 0; y < rows && bad < 1; y++)
    for (int x = 0; x < cols; x++) {
      int s[3] = {0, 0, 0}, cnt = 0;
      for (int dy = -radius; dy <= radius; dy++)
        for (int dx = -radius; dx <= radius; dx++) {
          int yy = std::min(std::max(y + dy, 0), rows - 1), xx = std::min(std::max(x + dx, 0), cols - 1);
          uchar4 p = img[yy * cols + xx];
          s[0] += p.x;
          s[1] += p.y;
          s[2] += p.z;
          cnt++;
        }
      uchar4 q = out[y * cols + x];
      float3 l = luma[y * cols + x];
      if (q.x != s[0] / cnt || q.y != s[1] / cnt || q.z != s[2] / cnt || q.w != 255 || l.x != 0.299f * q.x) {
        std::printf("pixel (%d,%d): (%d,%d,%d), expected (%d,%d,%d)\n", x, y, q.x, q.y, q.z, s[0] / cnt, s[1] / cnt,
                    s[2] / cnt);
        bad++;
        break;
      }
    }
  cudaFree(d_img);
  cudaFree(d_out);
  cudaFree(d_luma);
  for (int c = 0; c < 3; c++) {
    cudaFree(d_ch[c]);
    cudaFree(d_bl[c]);
  }
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad;
}
