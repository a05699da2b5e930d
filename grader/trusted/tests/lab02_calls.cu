/**
 * @file lab02_calls.cu
 * @brief Lab 02's call table: the Kogge-Stone scans the tests may call in the student's
 *        code, all `(in, out, n, blockSize)`.
 *
 * `scanIncKoggeStoneKernel_tiles` launches the in-place kernel over every tile, as the batched
 * scan launches the double-buffered one (the timing test compares the two).
 */
#include <stdint.h>

#include "driver.h"
#include "kogge_stone.h"

#define ARGS (const int *)drv_ptr(c, 0), (int *)drv_ptr(c, 1), drv_size(c, 2), (int)drv_i64(c, 3)

static int64_t call_ks(drv_call *c) { return scanIncKoggeStone(ARGS), 0; }
static int64_t call_db(drv_call *c) { return scanIncKoggeStoneDB(ARGS), 0; }
static int64_t call_tiles(drv_call *c) { return scanIncKoggeStoneTiles(ARGS), 0; }

static int64_t call_kernel_tiles(drv_call *c) {
  const size_t n = drv_size(c, 2);
  const int block = (int)drv_i64(c, 3);
  if (n == 0 || block < 1 || block > KS_MAX_BLOCK) return 0;
  const unsigned tiles = (unsigned)((n + (size_t)block - 1) / (size_t)block);
  scanIncKoggeStoneKernel<<<tiles, block, block * sizeof(int)>>>((const int *)drv_ptr(c, 0), (int *)drv_ptr(c, 1), n);
  return (int64_t)cudaGetLastError();
}

DRV_TABLE({"scanIncKoggeStone", call_ks}, {"scanIncKoggeStoneDB", call_db},
          {"scanIncKoggeStoneTiles", call_tiles}, {"scanIncKoggeStoneKernel_tiles", call_kernel_tiles});
