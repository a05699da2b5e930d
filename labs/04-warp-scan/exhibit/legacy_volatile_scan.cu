/**
 * @file legacy_volatile_scan.cu
 * @brief Exhibit for lab 04: the warp-synchronous shared-memory scan as it was written before
 *        Volta (no synchronisation, a `volatile` array), beside the same scan with
 *        `__syncwarp()`. Do not copy the first one: it is here to be taken apart.
 *
 * Build and run it on the GPU, under the race checker, and on the emulator:
 *
 *     nvcc -arch=sm_90 -lineinfo -o build/legacy_volatile_scan labs/04-warp-scan/exhibit/legacy_volatile_scan.cu
 *     compute-sanitizer --tool racecheck build/legacy_volatile_scan
 *     make emu-run FILE=labs/04-warp-scan/exhibit/legacy_volatile_scan.cu
 *
 * One warp of 32 threads scans 32 ints (an inclusive sum) both ways; the program checks every
 * lane against a serial scan, prints the lanes that are wrong, and exits with 1 if the legacy
 * scan is wrong, 2 if the synchronised one is, 0 if both are right.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define LANES 32

/* The legacy form. It relied on two beliefs: that the 32 threads of a warp execute each
 * instruction together ("lockstep"), so a lane's read of s[i - d] always happens after the
 * lower lane's write of the previous step; and that `volatile` makes the compiler keep every
 * value in shared memory instead of a register. Since Volta (2017) the threads of a warp are
 * scheduled independently, so the first belief no longer holds, and `volatile` never ordered
 * anything between threads. */
__global__ void legacyVolatileScanKernel(const int *in, int *out) {
  __shared__ volatile int s[LANES];
  const int lane = threadIdx.x;
  s[lane] = in[lane];
  if (lane >= 1) s[lane] = s[lane - 1] + s[lane];
  if (lane >= 2) s[lane] = s[lane - 2] + s[lane];
  if (lane >= 4) s[lane] = s[lane - 4] + s[lane];
  if (lane >= 8) s[lane] = s[lane - 8] + s[lane];
  if (lane >= 16) s[lane] = s[lane - 16] + s[lane];
  out[lane] = s[lane];
}

/* The same steps with the ordering made explicit, written with two buffers (lab 02's double
 * buffer, at warp level): each step reads one buffer and writes the other, so a step's writes
 * can never clobber a value another lane has yet to read, and one __syncwarp() per step makes
 * every write visible before the next step's reads. No volatile needed. (Your
 * scanIncWarpSmem works in one buffer: it needs more orderings per step.) */
__global__ void syncwarpScanKernel(const int *in, int *out) {
  __shared__ int buf[2][LANES];
  const int lane = threadIdx.x;
  int from = 0;
  buf[from][lane] = in[lane];
  __syncwarp();
  for (int d = 1; d < LANES; d *= 2) {
    const int mine = buf[from][lane];
    buf[1 - from][lane] = lane >= d ? buf[from][lane - d] + mine : mine;
    from = 1 - from;
    __syncwarp();
  }
  out[lane] = buf[from][lane];
}

static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    exit(3);
  }
}

/* Runs one kernel on the input; prints the wrong lanes; returns how many there are. */
static int run(const char *name, void (*kernel)(const int *, int *), const int *expect,
               int *d_in, int *d_out) {
  int got[LANES];
  check(cudaMemset(d_out, 0, sizeof got), "cudaMemset");
  kernel<<<1, LANES>>>(d_in, d_out);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), name);
  check(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
  int wrong = 0;
  for (int i = 0; i < LANES; i++) wrong += got[i] != expect[i];
  printf("%-26s %s", name, wrong ? "WRONG on lanes" : "all 32 lanes right\n");
  if (wrong) {
    for (int i = 0; i < LANES; i++)
      if (got[i] != expect[i]) printf(" %d", i);
    for (int i = 0; i < LANES; i++)
      if (got[i] != expect[i]) {
        printf(" (first: lane %d expected %d, got %d)\n", i, expect[i], got[i]);
        break;
      }
  }
  return wrong;
}

int main(void) {
  int in[LANES], expect[LANES], acc = 0;
  for (int i = 0; i < LANES; i++) {
    in[i] = (i * 7 + 3) % 10; /* small, varied, reproducible */
    acc += in[i];
    expect[i] = acc;
  }
  int *d_in, *d_out;
  check(cudaMalloc((void **)&d_in, sizeof in), "cudaMalloc");
  check(cudaMalloc((void **)&d_out, sizeof in), "cudaMalloc");
  check(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice), "cudaMemcpy");
  int legacy = run("legacy volatile scan:", legacyVolatileScanKernel, expect, d_in, d_out);
  int fixed = run("scan with __syncwarp():", syncwarpScanKernel, expect, d_in, d_out);
  check(cudaFree(d_in), "cudaFree");
  check(cudaFree(d_out), "cudaFree");
  return legacy ? 1 : fixed ? 2 : 0;
}
