// The scan's interface, in the CUDA samples' way: the device side in scan.cu, the serial
// reference in scan_host.cpp, the test loop in main.cpp.
#ifndef SCAN_COMMON_H
#define SCAN_COMMON_H

#include <stddef.h>

// 256 threads a block, 4 elements a thread: a block scans 1024 elements.
#define THREADS 256
#define BLOCK_ELEMS (4 * THREADS)
#define MIN_SHORT 4
#define MAX_SHORT BLOCK_ELEMS
#define MIN_LARGE (2 * BLOCK_ELEMS)
// SCAN_FULL: up to 256 blocks an array, as the CUDA samples' scan (17 lengths, 3,333 launches)
#ifdef SCAN_FULL
#define MAX_LARGE (256 * BLOCK_ELEMS)
#else
#define MAX_LARGE (16 * BLOCK_ELEMS)
#endif

void initScan(unsigned elems);  // for batches of up to `elems` elements
void closeScan();
// Exclusive sums of `batch` arrays of `length` elements each, one after another in memory;
// both return the number of launches they made.
int scanExclusiveShort(unsigned *dDst, const unsigned *dSrc, unsigned batch, unsigned length);
int scanExclusiveLarge(unsigned *dDst, const unsigned *dSrc, unsigned batch, unsigned length);
void scanExclusiveHost(unsigned *dst, const unsigned *src, unsigned batch, unsigned length);

#endif
