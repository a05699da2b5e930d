// Global sequence alignment (Needleman-Wunsch) as a wavefront of tiles, in the style of the
// benchmark suites' dynamic-programming kernels: the score matrix is cut into 16 x 16 tiles,
// and one launch computes the tiles of one anti-diagonal, since a tile needs the tile above it,
// the one on its left and the one above-left. Inside a launch a block of 16 threads copies its
// tile's top row and left column (the halo) and its similarity scores into shared memory, then
// sweeps the tile's own anti-diagonals, a barrier after each, and writes the tile back.
// Written for the emu's corpus; it checks every cell against a serial fill and prints PASSED.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE 16

static void check(cudaError_t e, const char *what, int line) {
  if (e != cudaSuccess) {
    fprintf(stderr, "needle.cu:%d: %s: %s\n", line, what, cudaGetErrorString(e));
    exit(1);
  }
}
#define CHECK(x) check((x), #x, __LINE__)

__device__ __host__ inline int best3(int diag, int left, int up) {
  int m = diag > left ? diag : left;
  return m > up ? m : up;
}

// The tiles (firstRow + b, diag - firstRow - b) for b = blockIdx.x; `cols` = length + 1.
__global__ void alignDiagonal(int *score, const int *similarity, int cols, int penalty, int diag,
                              int firstRow) {
  __shared__ int s[TILE + 1][TILE + 1];
  __shared__ int sim[TILE][TILE];
  const int tx = threadIdx.x;
  const int tileRow = firstRow + blockIdx.x, tileCol = diag - tileRow;
  const int r0 = tileRow * TILE, c0 = tileCol * TILE;  // the halo's corner: (r0, c0)

  for (int y = 0; y < TILE; y++) sim[y][tx] = similarity[(r0 + y + 1) * cols + c0 + tx + 1];
  if (tx == 0) s[0][0] = score[r0 * cols + c0];
  s[0][tx + 1] = score[r0 * cols + c0 + tx + 1];
  s[tx + 1][0] = score[(r0 + tx + 1) * cols + c0];
  __syncthreads();

  // the tile's anti-diagonals from its top-left corner: thread tx takes column tx + 1
  for (int d = 0; d < TILE; d++) {
    if (tx <= d) {
      const int x = tx + 1, y = d - tx + 1;
      s[y][x] = best3(s[y - 1][x - 1] + sim[y - 1][x - 1], s[y][x - 1] - penalty, s[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  // then the ones below the main anti-diagonal, shorter each time
  for (int d = TILE - 2; d >= 0; d--) {
    if (tx <= d) {
      const int x = tx + TILE - d, y = TILE - tx;
      s[y][x] = best3(s[y - 1][x - 1] + sim[y - 1][x - 1], s[y][x - 1] - penalty, s[y - 1][x] - penalty);
    }
    __syncthreads();
  }

  for (int y = 1; y <= TILE; y++) score[(r0 + y) * cols + c0 + tx + 1] = s[y][tx + 1];
}

// A scoring table of the 4 bases: +5 on a match, -3 for a transition, -4 otherwise.
static int pairScore(int a, int b) {
  if (a == b) return 5;
  return (a ^ b) == 2 ? -3 : -4;
}

int main(int argc, char **argv) {
  const int length = argc > 1 ? atoi(argv[1]) : 1024;  // a multiple of TILE
  const int penalty = 10;
  if (length <= 0 || length % TILE) {
    fprintf(stderr, "usage: needle [LENGTH, a multiple of %d]\n", TILE);
    return 2;
  }
  const int cols = length + 1, tiles = length / TILE;
  std::vector<int> seqA(length), seqB(length);
  unsigned state = 12345u;
  for (int i = 0; i < length; i++) {
    state = state * 1103515245u + 12345u;
    seqA[i] = (state >> 16) & 3;
    state = state * 1103515245u + 12345u;
    seqB[i] = (state >> 16) & 3;
  }
  // every 7th base of B copies A's, so the alignment has long matching runs to find
  for (int i = 0; i < length; i += 7) seqB[i] = seqA[i];

  std::vector<int> similarity((size_t)cols * cols, 0), score((size_t)cols * cols, 0);
  for (int i = 1; i < cols; i++)
    for (int j = 1; j < cols; j++) similarity[(size_t)i * cols + j] = pairScore(seqA[i - 1], seqB[j - 1]);
  for (int i = 0; i < cols; i++) {
    score[(size_t)i * cols] = -i * penalty;
    score[i] = -i * penalty;
  }

  int *dScore, *dSimilarity;
  const size_t bytes = sizeof(int) * (size_t)cols * cols;
  CHECK(cudaMalloc(&dScore, bytes));
  CHECK(cudaMalloc(&dSimilarity, bytes));
  CHECK(cudaMemcpy(dScore, score.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dSimilarity, similarity.data(), bytes, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  int launches = 0;
  for (int diag = 0; diag < 2 * tiles - 1; diag++) {
    const int first = diag < tiles ? 0 : diag - tiles + 1;
    const int last = diag < tiles ? diag : tiles - 1;
    alignDiagonal<<<last - first + 1, TILE>>>(dScore, dSimilarity, cols, penalty, diag, first);
    CHECK(cudaGetLastError());
    launches++;
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<int> got((size_t)cols * cols);
  CHECK(cudaMemcpy(got.data(), dScore, bytes, cudaMemcpyDeviceToHost));
  for (int i = 1; i < cols; i++)
    for (int j = 1; j < cols; j++) {
      const size_t k = (size_t)i * cols + j;
      score[k] = best3(score[k - cols - 1] + similarity[k], score[k - 1] - penalty, score[k - cols] - penalty);
    }
  long wrong = 0;
  int firstI = -1, firstJ = -1;
  for (int i = 0; i < cols; i++)
    for (int j = 0; j < cols; j++)
      if (got[(size_t)i * cols + j] != score[(size_t)i * cols + j] && wrong++ == 0) {
        firstI = i;
        firstJ = j;
      }
  printf("needle: %d x %d cells in %d launches of %d x %d tiles, %.3f ms; final score %d\n", length, length,
         launches, TILE, TILE, ms, got[(size_t)cols * cols - 1]);
  CHECK(cudaFree(dScore));
  CHECK(cudaFree(dSimilarity));
  if (wrong) {
    printf("FAILED: %ld cells differ from the serial fill, the first at (%d, %d): %d, expected %d\n", wrong, firstI,
           firstJ, got[(size_t)firstI * cols + firstJ], score[(size_t)firstI * cols + firstJ]);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
