/**
 * @file hx_verify.h
 * @brief The trusted side's checks of large outputs, each with one meaning in two places: on
 *        the host (hx_verify.c: the emu and cpu backends) and, on a GPU, on the device, where
 *        the output lies (hx_dev.cu), so a test never brings gigabytes back to compare them.
 *
 * Every check compares a whole output with the reference it recomputes from the input and
 * fills an hxv_result: how many elements are wrong, the first of them, and what it should be
 * and is, all a message needs. A test formats the message itself, the same on every backend.
 * The kit's self-test (grader/selftest/verify_test.cu) runs both versions on the same outputs,
 * right and with planted faults, and requires the same results.
 */
#ifndef SCANLAB_HX_VERIFY_H
#define SCANLAB_HX_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** No element: hxv_result::first when nothing is wrong. */
#define HXV_NONE ((size_t)-1)

/** What a check found. */
typedef struct {
  size_t count;     /**< wrong elements (rows, points); 0: the output is right */
  size_t first;     /**< index of the first wrong one (HXV_NONE when none) */
  int64_t expected; /**< what it should hold */
  int64_t got;      /**< what it holds */
  int64_t where;    /**< check-specific: the output index of the first wrong element (select) */
  int64_t extra;    /**< check-specific: kept elements (select); 1 when the keys differ (sort) */
  double fexpected; /**< the product's row sum (spmv) */
  double fgot;      /**< the output's (spmv) */
} hxv_result;

/** An input of 32-bit ints: an array, or (p == NULL) the generator hxp_gen_value(seed, i, lo, hi). */
typedef struct {
  const int32_t *p; /**< the elements, or NULL: generated */
  uint64_t seed;    /**< the generator's seed */
  int64_t lo;       /**< smallest generated value */
  int64_t hi;       /**< largest generated value */
} hxv_input;

/** Element @p i of an input. */
int32_t hxv_at(const hxv_input *in, size_t i);

/** Where segments of a scan start (hxv_scan_host()): at 0, at every index with
 *  `(i % tile) % sub == 0` when @p tile is not 0 (`sub` 0 meaning `tile`), and at every index
 *  whose head flag (a byte) is not 0 when @p flags is given. */
typedef struct {
  size_t tile;          /**< tiles of this many elements, scanned each on its own (0: none) */
  size_t sub;           /**< runs of this many inside a tile (lab 04's warps; 0: the tile) */
  const uint8_t *flags; /**< head flags, or NULL */
} hxv_segments;

/**
 * @brief A segmented scan by wrapping 32-bit addition: out[i] is the sum of the segment's
 * elements up to i (inclusive) or before it (exclusive).
 * @p r->first is the first wrong index, with its expected and got values.
 */
size_t hxv_scan_host(const hxv_input *in, const int32_t *out, size_t n, int exclusive, const hxv_segments *seg,
                     hxv_result *r);

/**
 * @brief Compaction (@p partition 0: the elements above @p pivot, in order, at out[0..kept)) or
 * stable partition (1: then the others, in order, at out[kept..n)).
 * @p r->first is the input index of the first element out of place, @p r->where its place in
 * the output, @p r->expected the element and @p r->got what its place holds; @p r->extra the
 * number kept.
 */
size_t hxv_select_host(const hxv_input *in, const int32_t *out, size_t n, int32_t pivot, int partition,
                       hxv_result *r);

/**
 * @brief Line of sight: in holds altitudes as float bits; vis[i] is 1 where the slope
 * (alt[i] - alt[0]) / i is above every slope before it (point 0: 0).
 */
size_t hxv_sight_host(const hxv_input *in, const uint8_t *vis, size_t n, hxv_result *r);

/**
 * @brief A sort of 32-bit unsigned keys: in order (@p r->first is the first i with
 * out[i - 1] > out[i], @p r->expected and @p r->got those two keys), and the input's keys
 * (@p r->extra 1 where two 64-bit sums of a mix of every key differ).
 */
size_t hxv_sort_host(const hxv_input *in, const uint32_t *out, size_t n, hxv_result *r);

/** The key mix the sort check sums (two salts), the same on host and device. */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline uint64_t hxv_sort_mix(uint32_t k, uint64_t salt) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull ^ salt;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

/**
 * @brief The CSR product y = A x, A's values from @p val (float bits): row i is right when
 * |y[i] - sum| <= atol + rtol * sum|a*x|, both sums in double in row order.
 * @p r->first is the first wrong row, @p r->fexpected its sum, @p r->fgot y's.
 */
size_t hxv_spmv_host(const int32_t *ptr, const int32_t *col, const float *x, const hxv_input *val, const float *y,
                     int32_t rows, double rtol, double atol, hxv_result *r);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HX_VERIFY_H */
