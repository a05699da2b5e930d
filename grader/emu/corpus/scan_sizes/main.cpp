// A test loop in the CUDA samples' way: for each array length, a batch of arrays that fills
// the buffer is scanned once and checked against the host, then scanned ITERATIONS times more
// between two events for a throughput figure. Short arrays (4 to 1024 elements) take one
// launch, long ones (2048 to 16384) three: several hundred launches in all. Written for the
// emu's corpus; prints PASSED when every length's sums match.
#include <cuda_runtime.h>
#include <helper_cuda_lite.h>
#include <helper_timer_lite.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_common.h"

// SCAN_FULL (make EXTRA=-DSCAN_FULL): the CUDA samples' size, 13 x 2^19 elements in every
// launch and 100 timed scans a length (-DITERATIONS=N: N), for a measurement of the emu against
// a GPU (corpus/README.md, "Where the emu is slowest"); not part of the corpus run
#ifdef SCAN_FULL
#ifndef ITERATIONS
#define ITERATIONS 100
#endif
#define ELEMS (13u << 19)
#else
#define ITERATIONS 40
#define ELEMS MAX_LARGE
#endif

typedef int (*ScanFn)(unsigned *, const unsigned *, unsigned, unsigned);

static bool testLengths(const char *name, ScanFn scan, unsigned minLength, unsigned maxLength, unsigned elems,
                        unsigned *dDst, const unsigned *dSrc, const unsigned *hSrc, unsigned *hGot,
                        unsigned *hWant, int *launches) {
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  bool ok = true;
  for (unsigned length = minLength; length <= maxLength; length <<= 1) {
    const unsigned batch = elems / length;
    checkCudaErrors(cudaMemset(dDst, 0, elems * sizeof(unsigned)));
    *launches += scan(dDst, dSrc, batch, length);
    checkCudaErrors(cudaMemcpy(hGot, dDst, elems * sizeof(unsigned), cudaMemcpyDeviceToHost));
    scanExclusiveHost(hWant, hSrc, batch, length);
    unsigned bad = 0;
    for (unsigned i = 0; i < elems; i++) bad += hGot[i] != hWant[i];
    checkCudaErrors(cudaEventRecord(start));
    for (int it = 0; it < ITERATIONS; it++) *launches += scan(dDst, dSrc, batch, length);
    checkCudaErrors(cudaEventRecord(stop));
    checkCudaErrors(cudaEventSynchronize(stop));
    float ms = 0;
    checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
    printf("%s: %5u arrays of %5u: %s, %.4f ms a scan, %.2f MElements/s\n", name, batch, length,
           bad ? "WRONG" : "right", ms / ITERATIONS, elems / (ms / ITERATIONS * 1e3));
    if (bad) ok = false;
  }
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  return ok;
}

int main(int argc, char **argv) {
  printf("%s Starting...\n\n", argv[0]);
  findCudaDevice(argc, (const char **)argv);
  const unsigned elems = ELEMS;
  unsigned *hSrc = (unsigned *)malloc(elems * sizeof(unsigned));
  unsigned *hGot = (unsigned *)malloc(elems * sizeof(unsigned));
  unsigned *hWant = (unsigned *)malloc(elems * sizeof(unsigned));
  srand(2009);
  for (unsigned i = 0; i < elems; i++) hSrc[i] = rand() % 1000;
  unsigned *dSrc, *dDst;
  checkCudaErrors(cudaMalloc((void **)&dSrc, elems * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc((void **)&dDst, elems * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(dSrc, hSrc, elems * sizeof(unsigned), cudaMemcpyHostToDevice));
  initScan(elems);
  StopWatch watch;
  watch.start();
  int launches = 0;
  bool ok = testLengths("short", scanExclusiveShort, MIN_SHORT, MAX_SHORT, elems, dDst, dSrc, hSrc, hGot, hWant,
                        &launches);
  ok = testLengths("large", scanExclusiveLarge, MIN_LARGE, MAX_LARGE, elems, dDst, dSrc, hSrc, hGot, hWant,
                   &launches) && ok;
  watch.stop();
  printf("\n%d launches, %.1f ms in all\n", launches, watch.ms());
  closeScan();
  checkCudaErrors(cudaFree(dSrc));
  checkCudaErrors(cudaFree(dDst));
  free(hSrc);
  free(hGot);
  free(hWant);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
