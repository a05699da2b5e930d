/**
 * @file lab05_calls.cu
 * @brief Lab 05's call table: the block scan through scanIncBlockTiles(in, out, n, block), the
 *        scans of any length `(in, out, n)`, and scanGlobalRelease().
 */
#include <stdint.h>

#include "driver.h"
#include "global_scan.h"

#define IN (const int32_t *)drv_ptr(c, 0)
#define OUT (int32_t *)drv_ptr(c, 1)
#define N drv_size(c, 2)

static int64_t call_tiles(drv_call *c) { return scanIncBlockTiles(IN, OUT, N, (int)drv_i64(c, 3)), 0; }
static int64_t call_any_inc(drv_call *c) { return scanIncBlockAnyLength(IN, OUT, N), 0; }
static int64_t call_any_exc(drv_call *c) { return scanExcBlockAnyLength(IN, OUT, N), 0; }
static int64_t call_prop_inc(drv_call *c) { return scanIncPropagate(IN, OUT, N), 0; }
static int64_t call_prop_exc(drv_call *c) { return scanExcPropagate(IN, OUT, N), 0; }
static int64_t call_rts_inc(drv_call *c) { return scanIncReduceThenScan(IN, OUT, N), 0; }
static int64_t call_rts_exc(drv_call *c) { return scanExcReduceThenScan(IN, OUT, N), 0; }
static int64_t call_lb_inc(drv_call *c) { return scanIncLookback(IN, OUT, N), 0; }
static int64_t call_lb_exc(drv_call *c) { return scanExcLookback(IN, OUT, N), 0; }
static int64_t call_release(drv_call *c) { return (void)c, scanGlobalRelease(), 0; }

DRV_TABLE({"scanIncBlockTiles", call_tiles}, {"scanIncBlockAnyLength", call_any_inc},
          {"scanExcBlockAnyLength", call_any_exc}, {"scanIncPropagate", call_prop_inc},
          {"scanExcPropagate", call_prop_exc}, {"scanIncReduceThenScan", call_rts_inc},
          {"scanExcReduceThenScan", call_rts_exc}, {"scanIncLookback", call_lb_inc},
          {"scanExcLookback", call_lb_exc}, {"scanGlobalRelease", call_release});
