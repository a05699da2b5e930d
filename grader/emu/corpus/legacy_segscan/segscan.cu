// A segmented inclusive sum in the style of 2008-era GPU scan papers and the libraries built on
// them: each warp scans its 32 values and head flags through `volatile` shared memory with no
// __syncwarp (the warps of that time ran in lockstep), the block joins its warps' results, and a
// second launch carries each block's open segment into the next blocks. Written for the emu's
// corpus; it checks itself against a serial segmented scan and prints PASSED.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK 256
#define WARPS (BLOCK / 32)

// Inclusive segmented scan of one warp: v[] values, f[] flags (nonzero: a segment starts here),
// both volatile, indexed by the thread's own slot. After it, f[idx] holds whether a head lies at
// or before idx within the warp.
__device__ int warpSegScan(volatile int *v, volatile int *f, int idx) {
  const int lane = idx & 31;
  if (lane >= 1) { if (!f[idx]) v[idx] = v[idx - 1] + v[idx]; f[idx] = f[idx - 1] | f[idx]; }
  if (lane >= 2) { if (!f[idx]) v[idx] = v[idx - 2] + v[idx]; f[idx] = f[idx - 2] | f[idx]; }
  if (lane >= 4) { if (!f[idx]) v[idx] = v[idx - 4] + v[idx]; f[idx] = f[idx - 4] | f[idx]; }
  if (lane >= 8) { if (!f[idx]) v[idx] = v[idx - 8] + v[idx]; f[idx] = f[idx - 8] | f[idx]; }
  if (lane >= 16) { if (!f[idx]) v[idx] = v[idx - 16] + v[idx]; f[idx] = f[idx - 16] | f[idx]; }
  return v[idx];
}

// One block scans BLOCK elements; blockOpen[b] gets the sum of the block's trailing segment and
// blockHead[b] whether the block holds a head at all.
__global__ void segScanBlocks(const int *in, const int *flags, int *out, int *blockOpen, int *blockHead, int n) {
  __shared__ int v[BLOCK], f[BLOCK];
  __shared__ int warpOpen[WARPS], warpHead[WARPS];
  const int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  v[t] = i < n ? in[i] : 0;
  f[t] = i < n ? flags[i] : 0;
  const int headHere = f[t];
  int x = warpSegScan(v, f, t);
  const int seenHead = f[t];
  if ((t & 31) == 31) { warpOpen[t >> 5] = x; warpHead[t >> 5] = seenHead; }
  __syncthreads();
  if (t == 0) {  // carry across the block's warps, in order
    for (int w = 1; w < WARPS; w++) {
      if (!warpHead[w]) warpOpen[w] += warpOpen[w - 1];
      warpHead[w] |= warpHead[w - 1];
    }
  }
  __syncthreads();
  if (t >= 32 && !seenHead) x += warpOpen[(t >> 5) - 1];
  (void)headHere;
  if (i < n) out[i] = x;
  if (t == BLOCK - 1) { blockOpen[blockIdx.x] = warpOpen[WARPS - 1]; blockHead[blockIdx.x] = warpHead[WARPS - 1]; }
}

// Adds to each element the open sum of the earlier blocks, up to its segment's first head.
__global__ void carryBlocks(int *out, const int *flags, const int *carry, int n) {
  __shared__ int firstHead;
  const int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  if (t == 0) firstHead = BLOCK;
  __syncthreads();
  if (i < n && flags[i]) atomicMin(&firstHead, t);
  __syncthreads();
  if (blockIdx.x > 0 && i < n && t < firstHead) out[i] += carry[blockIdx.x - 1];
}

int main() {
  const int n = 1 << 18, blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<int> in(n), flags(n), ref(n), got(n);
  unsigned s = 12345;
  for (int i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    in[i] = (int)((s >> 16) % 7) - 3;
    flags[i] = i == 0 || (s >> 8) % 1000 < 3;  // segments of a few hundred, many across blocks
  }
  for (int i = 0; i < n; i++) ref[i] = flags[i] ? in[i] : ref[i - 1] + in[i];
  int *dIn, *dFlags, *dOut, *dOpen, *dHead, *dCarry;
  cudaMalloc(&dIn, n * sizeof(int));
  cudaMalloc(&dFlags, n * sizeof(int));
  cudaMalloc(&dOut, n * sizeof(int));
  cudaMalloc(&dOpen, blocks * sizeof(int));
  cudaMalloc(&dHead, blocks * sizeof(int));
  cudaMalloc(&dCarry, blocks * sizeof(int));
  cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dFlags, flags.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  segScanBlocks<<<blocks, BLOCK>>>(dIn, dFlags, dOut, dOpen, dHead, n);
  // the blocks' carries on the host, as such code often did between its two launches
  std::vector<int> open(blocks), head(blocks), carry(blocks);
  cudaMemcpy(open.data(), dOpen, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(head.data(), dHead, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; b++) carry[b] = head[b] || b == 0 ? open[b] : open[b] + carry[b - 1];
  cudaMemcpy(dCarry, carry.data(), blocks * sizeof(int), cudaMemcpyHostToDevice);
  carryBlocks<<<blocks, BLOCK>>>(dOut, dFlags, dCarry, n);
  cudaError_t e = cudaMemcpy(got.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int i = 0; i < n; i++)
    if (got[i] != ref[i]) {
      printf("segmented scan: first mismatch at [%d]: expected %d, got %d\n", i, ref[i], got[i]);
      return 1;
    }
  printf("segmented scan of %d elements, %d blocks: PASSED\n", n, blocks);
  return 0;
}
