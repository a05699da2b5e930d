/**
 * @file harness.h
 * @brief Host-side test harness: parameters, verdicts, array checks, seeded inputs, CPU timing.
 *
 * Every graded test links this harness. It is plain C11 and works from `.c` and `.cu` files
 * alike. A test never tunes itself: sizes, seeds and thresholds arrive as parameters from the
 * lab's manifest (`grader/manifests/labNN.toml`), read with hx_param_int() and friends.
 *
 * Verdicts go to the grader over a channel it owns (a pipe it opens and names in the
 * environment, with a secret it checks), never over standard output, so nothing a student's
 * code prints can change a grade.
 */
#ifndef SCANLAB_HARNESS_H
#define SCANLAB_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Test registration
 *  Each test source defines one table of tests and its lab number with HX_SUITE().
 *  @{ */

/** A test: a name unique in its lab (letters, digits, `_`) and a function. */
typedef struct {
  const char *name;     /**< name used by the manifest and on the command line */
  void (*fn)(void);     /**< the test body; records verdicts with the hx_* calls */
} hx_test;

/**
 * @brief Declares the suite of a test source.
 *
 * Example:
 * @code
 * static const hx_test TESTS[] = {{"inc_add_int", test_inc_add_int}, {NULL, NULL}};
 * HX_SUITE("01", TESTS);
 * @endcode
 */
#define HX_SUITE(lab, tests) \
  const char *const hx_suite_lab = (lab); \
  const hx_test *const hx_suite_tests = (tests)

/** The suite's lab number, "01" to "07" (set by HX_SUITE()). */
extern const char *const hx_suite_lab;
/** The suite's tests, ending with a `{NULL, NULL}` entry (set by HX_SUITE()). */
extern const hx_test *const hx_suite_tests;
/** @} */

/** @name Parameters from the manifest
 *  A missing or malformed parameter is a manifest error: the test fails and names the key.
 *  @{ */

/** True when the manifest gave the test a parameter named @p key. */
int hx_param_has(const char *key);
/** Integer parameter @p key; fails the test and returns 0 when it is missing or not a number. */
long long hx_param_int(const char *key);
/** Floating-point parameter @p key; fails the test and returns 0 when missing or malformed. */
double hx_param_double(const char *key);
/** String parameter @p key; fails the test and returns "" when missing. */
const char *hx_param_str(const char *key);
/**
 * @brief Comma-separated list of integers, such as `sizes = "0,1,31,32,33"`.
 * @param key parameter name
 * @param out array of at least @p max elements that receives the values
 * @param max capacity of @p out
 * @return the number of values, or -1 (and a failed test) when missing, malformed or too long
 */
int hx_param_int_list(const char *key, long long *out, int max);
/** The seed of the test's random inputs (parameter `seed`); always printed in messages. */
uint64_t hx_seed(void);
/** @} */

/** @name Verdicts
 *  A test passes when it records no failure and no skip.
 *  @{ */

/** Records a failure with a formatted reason; the test goes on (use `return` to stop). */
#define HX_FAIL(...) hx_fail_at(__FILE__, __LINE__, __VA_ARGS__)
/** Records a failure at @p file : @p line; prefer HX_FAIL(). */
void hx_fail_at(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Checks @p cond; on false records HX_FAIL(...) and evaluates to 0. */
#define HX_CHECK(cond, ...) ((cond) ? 1 : (HX_FAIL(__VA_ARGS__), 0))
/** Marks the test skipped with a reason (a missing capability, not an error) and returns. */
#define HX_SKIP(...) do { hx_skip(__VA_ARGS__); return; } while (0)
/** Marks the test skipped; prefer HX_SKIP(). */
void hx_skip(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** Reports a measured figure (for example `fraction_of_copy`) to the grader. */
void hx_metric(const char *name, double value);
/** An informational line shown by the grader beside the verdict. */
void hx_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** Number of failures the running test has recorded so far. */
int hx_failures(void);
/** @} */

/** @name Array checks
 *  Each check compares element by element, records one failure naming the first mismatch,
 *  the count of mismatches and the context (function, sizes, seed), and returns the count.
 *  @{ */

/**
 * @brief Compares 32-bit integers.
 *
 * Message on failure, with @p ctx = `scanIncBlock(n=1000, block=256, seed=42)`:
 * `scanIncBlock(n=1000, block=256, seed=42): first mismatch at [257]: expected 33153, got 32896 (12 mismatches)`
 */
size_t hx_check_i32(const char *ctx, const int32_t *expected, const int32_t *got, size_t n);
/** Compares floats: |got-expected| <= atol + rtol*|expected|; NaN never matches. */
size_t hx_check_f32(const char *ctx, const float *expected, const float *got, size_t n,
                    double rtol, double atol);
/** Compares raw elements of @p size bytes; the message prints them as hexadecimal words. */
size_t hx_check_bytes(const char *ctx, const void *expected, const void *got, size_t n,
                      size_t size);
/** Formats a context string into a static buffer (for hx_check_* calls). */
const char *hx_ctx(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** @} */

/** @name Seeded inputs
 *  A small, fast generator (splitmix64) so that a seed replays the same data everywhere.
 *  @{ */

/** Generator state. */
typedef struct {
  uint64_t s; /**< the state: advanced by a constant, then mixed, at every draw */
} hx_rng;
/** A generator seeded with @p seed. */
hx_rng hx_rng_make(uint64_t seed);
/** Next 64 random bits. */
uint64_t hx_rng_next(hx_rng *r);
/** Uniform integer in [lo, hi]. */
int32_t hx_rng_range(hx_rng *r, int32_t lo, int32_t hi);
/** Uniform float in [lo, hi). */
float hx_rng_float(hx_rng *r, float lo, float hi);
/** Fills @p a with integers uniform in [lo, hi] from @p seed. */
void hx_fill_i32(int32_t *a, size_t n, uint64_t seed, int32_t lo, int32_t hi);
/** Fills @p a with floats uniform in [lo, hi) from @p seed. */
void hx_fill_f32(float *a, size_t n, uint64_t seed, float lo, float hi);
/** Fills @p a with 0/1 head flags, each 1 with probability 1/@p mean_len; a[0] = 1. */
void hx_fill_flags(int32_t *a, size_t n, uint64_t seed, int mean_len);
/** @} */

/** @name Host memory and CPU timing
 *  @{ */

/** malloc() that fails the test (and returns NULL) instead of returning NULL silently. */
void *hx_malloc(size_t bytes);
/**
 * @brief A host array of @p bytes between two poisoned guard bands (HX_HOST_GUARD bytes each);
 * the array itself is poisoned too (0xEF bytes), so elements never written show up.
 * Fails the test and returns NULL when out of memory.
 */
void *hx_host_guarded(size_t bytes);
/**
 * @brief Checks the guards of an hx_host_guarded() array of @p bytes holding elements of
 * @p elem bytes; on a write past either end records the element index and returns 1.
 */
int hx_host_check_guards(const void *p, size_t bytes, size_t elem, const char *ctx);
/** Frees an hx_host_guarded() array (NULL is fine). */
void hx_host_free_guarded(void *p);
/** Guard band of host arrays, in bytes. */
#define HX_HOST_GUARD 4096
/** Monotonic wall-clock time in seconds. */
double hx_now(void);
/** Median of @p n values (sorts @p v in place). */
double hx_median(double *v, int n);
/**
 * @brief Median wall time of @p fn in seconds.
 * @param fn     the work to time
 * @param arg    passed to @p fn
 * @param warmup untimed runs first
 * @param reps   timed runs; the median is returned
 */
double hx_time_cpu(void (*fn)(void *arg), void *arg, int warmup, int reps);
/** Host memcpy bandwidth in bytes per second (read + write counted) over @p bytes. */
double hx_memcpy_bandwidth(size_t bytes, int reps);
/** @} */

/** @name Backend
 *  @{ */

/** Name of the backend the binary was built for: "cuda", "emu" or "cpu". */
const char *hx_backend(void);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HARNESS_H */
