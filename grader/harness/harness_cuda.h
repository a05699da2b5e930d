/**
 * @file harness_cuda.h
 * @brief Device-side harness: checked CUDA calls, guarded device buffers, event timing and
 *        the copy bandwidth that timing thresholds are fractions of.
 *
 * Plain C API, usable from `.c` and `.cu` files and on both backends (`cuda`, `emu`).
 */
#ifndef SCANLAB_HARNESS_CUDA_H
#define SCANLAB_HARNESS_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Checks a CUDA runtime call.
 *
 * On an error it prints `file:line: CUDA error cudaErrorName (description) in 'expr'`, reports
 * the failure to the grader, and ends the process: after most CUDA errors the context is
 * unusable, so the test cannot go on. Works from C (it is a macro, not a template).
 * @code
 * CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
 * @endcode
 */
#define CUDA_CHECK(expr) hx_cuda_check((expr), #expr, __FILE__, __LINE__)

/** Checks the launch just made (`cudaGetLastError`): a bad configuration fails here. */
#define CUDA_CHECK_LAUNCH() hx_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/** Implementation of CUDA_CHECK(). */
void hx_cuda_check(cudaError_t err, const char *expr, const char *file, int line);

/** @name Guarded device buffers
 *  A device array with guard bands of HX_GUARD_WORDS 32-bit words on each side. Before a run
 *  hx_dbuf_poison() fills the guards and the array with a poison pattern; after it,
 *  hx_dbuf_check_guards() fails the test with the index of the first write past either end.
 *  @{ */

/** Guard band length on each side, in 32-bit words. */
#define HX_GUARD_WORDS 1024
/** Poison word written to guards and to outputs before a run. */
#define HX_POISON 0xDEADBEEFu

/** A guarded device buffer of @p n elements of @p elem bytes; use `ptr`. */
typedef struct {
  void *ptr;      /**< device pointer to element 0 */
  void *base;     /**< start of the allocation (the front guard) */
  size_t n;       /**< number of elements */
  size_t elem;    /**< element size in bytes (a multiple of 4) */
} hx_dbuf;

/** Allocates a guarded buffer; the guards are poisoned. Fails the test on error. */
hx_dbuf hx_dbuf_alloc(size_t n, size_t elem);
/** Poisons the guards and the whole array (so unwritten outputs show up as mismatches). */
void hx_dbuf_poison(hx_dbuf *b);
/** Copies @p n*elem bytes from host @p src into the array (guards untouched). */
void hx_dbuf_upload(hx_dbuf *b, const void *src);
/** Copies the array into host @p dst. */
void hx_dbuf_download(const hx_dbuf *b, void *dst);
/**
 * @brief Checks both guard bands; on a write past an end records
 * `ctx: write past the end of the output at index 1003 (n=1000; 2 guard words changed)`.
 * @return 0 when both guards are intact
 */
int hx_dbuf_check_guards(const hx_dbuf *b, const char *ctx);
/** Frees the buffer (the struct is zeroed). */
void hx_dbuf_free(hx_dbuf *b);
/** @} */

/** @name Device timing
 *  @{ */

/** True where timing means something (a real GPU); false on `emu`. */
int hx_timing_available(void);
/** Skips the running test when timing is not available (the `emu` backend). */
#define HX_REQUIRE_TIMING() \
  do { if (!hx_timing_available()) HX_SKIP("no GPU: the emu backend does not time kernels"); } while (0)

/**
 * @brief Median device time of @p fn in milliseconds, measured with CUDA events.
 *
 * Runs @p warmup untimed calls, then @p reps timed calls (each between its own pair of
 * events), and returns the median. @p fn must only enqueue work on the default stream.
 */
double hx_time_device_ms(void (*fn)(void *arg), void *arg, int warmup, int reps);
/**
 * @brief Device-to-device copy bandwidth in bytes/s over a copy of @p bytes, counting bytes
 * read plus bytes written, measured in this process (median of @p reps).
 *
 * It is the yardstick of every timing threshold: a scan reading and writing the same bytes
 * cannot be faster than a copy.
 */
double hx_copy_bandwidth(size_t bytes, int reps);
/** L2 cache size of the current device in bytes (timing inputs must be larger). */
size_t hx_l2_bytes(void);
/** Free device memory in bytes (for size-dependent skips). */
size_t hx_free_device_bytes(void);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HARNESS_CUDA_H */
