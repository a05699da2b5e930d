/**
 * @file harness.h
 * @brief The test harness (the trusted side): parameters, verdicts, calls into the student's
 *        code, array checks, seeded inputs, timing.
 *
 * Every graded test links this harness. It is plain C11, usable from C and C++ tests alike,
 * and it never runs student code: a test makes its inputs in buffers it shares with the
 * **driver** (a separate process that holds the student's code, started through the sandbox),
 * asks it to call a function by name with hx_call(), then reads the outputs back from the
 * same buffers and compares them with references it computes itself. Every call checks the
 * guard bands around each buffer and that the inputs came back unchanged.
 *
 * A test never tunes itself: sizes, seeds and thresholds arrive as parameters from the lab's
 * manifest (`grader/manifests/labNN.toml`), read with hx_param_int() and friends. Verdicts go
 * to the grader over a pipe only this process holds.
 */
#ifndef SCANLAB_HARNESS_H
#define SCANLAB_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "hx_proto.h"
#include "hx_verify.h"

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

/** Most words in an hx_words list. */
#define HX_WORDS_MAX 64
/** Size of an hx_words buffer: a list parameter's characters, and its terminating zero. */
#define HX_WORDS_CHARS 1024
/** The words of a list parameter (see hx_param_words()); `w` points into `buf`. */
typedef struct {
  char buf[HX_WORDS_CHARS];     /**< the parameter, cut into words */
  const char *w[HX_WORDS_MAX];  /**< the words */
  int n;                        /**< how many, or -1 after a failure */
} hx_words;
/**
 * @brief A list of words separated by commas or spaces, such as `patterns = "r2,r32,all"`.
 * @param key parameter name
 * @param out receives the words (filled in place: its pointers point into its own buffer)
 * @return out->n: the number of words, or -1 (and a failed test) when missing or longer than
 *         HX_WORDS_MAX words or HX_WORDS_CHARS - 1 characters
 */
int hx_param_words(const char *key, hx_words *out);
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
/** For a test of the emu's memory counters whose run gave a wrong answer (already failed): one
 *  more reason, that @p test counts memory only for a right answer, so the wrong answer is the
 *  fault, not the code's use of memory (a reader of `emu_traffic: FAIL` looks there first). */
void hx_not_counted(const char *test);
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
/** The failure hx_check_i32() would record, from a check's result (hx_verify_scan() and the
 *  like, which find the same first mismatch and count where the output lies). */
size_t hx_report_i32(const char *ctx, const hxv_result *r);
/** Compares floats: |got-expected| <= atol + rtol*|expected|; NaN never matches. A value
 *  never written is named as such. */
size_t hx_check_f32(const char *ctx, const float *expected, const float *got, size_t n,
                    double rtol, double atol);
/** Compares raw elements of @p size bytes. The message prints 1-, 2- and 4-byte elements as
 *  numbers (with their bits), larger ones as hexadecimal words, and names a value never written:
 *  `lineOfSight(n=33, ...): first mismatch at [1]: expected 1 (0x01), got 190 (0xbe) (the
 *  poison value: never written) (32 mismatches)`. */
size_t hx_check_bytes(const char *ctx, const void *expected, const void *got, size_t n,
                      size_t size);
/**
 * @brief " (the poison value: never written)" when element @p index (of @p size bytes) of an
 * output, held at @p p, still holds what the harness filled the output with before the call
 * (0xDEADBEEF words, so each byte of the element at its place in them); on the emu backend
 * (hx_emu_fill_notes), for a 4-byte element within 255 of 0xCDCDCDCD, a note that it is shared
 * memory no thread wrote before it was read (the emulator's fill, perhaps added to); "" otherwise.
 *
 * For a message about any element type: `HX_FAIL("... got %d%s", v, hx_poison_note(&v, 4, i))`.
 */
const char *hx_poison_note(const void *p, size_t size, size_t index);
/** Nonzero on the emu backend (set by the harness): hx_poison_note names the emulator's fill. */
extern int hx_emu_fill_notes;
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

/** @name Host memory and clocks
 *  @{ */

/** malloc() that fails the test (and returns NULL) instead of returning NULL silently. */
void *hx_malloc(size_t bytes);
/** Monotonic wall-clock time in seconds. */
double hx_now(void);
/** Median of @p n values (sorts @p v in place). */
double hx_median(double *v, int n);
/** @} */

/** @name Calling the student's code
 *  A test shares buffers with the driver and calls the lab's functions by name (the names of
 *  the lab's call table, `grader/trusted/tests/labNN_calls.cu`). Arguments are buffers, integers,
 *  numbers and small blobs of bytes, in the order the call table reads them.
 *  @code
 *  hx_buf *in = hx_buf_new(n, 4), *out = hx_buf_new(n, 4);
 *  hx_fill_i32((int32_t *)hx_buf_data(in), n, seed, -1000, 1000);
 *  if (HX_CALL("scanIncLookback", ctx, hx_in(in), hx_out(out), hx_i64(n)) == 0)
 *    hx_check_i32(ctx, expect, (const int32_t *)hx_buf_data(out), n);
 *  hx_buf_free(in);
 *  hx_buf_free(out);
 *  @endcode
 *  @{ */

/** A buffer of @p n elements shared with the driver, between two guard bands. */
typedef struct hx_buf hx_buf;
/** A new buffer (data and guards poisoned with 0xDEADBEEF words); NULL and a failed test when
 *  out of memory. @p elem is a multiple of 4 bytes. */
hx_buf *hx_buf_new(size_t n, size_t elem);
/** hx_buf_new() on device @p device: for a lab of several devices, each rank's buffers on its
 *  own (on `emu` the driver's copy is that virtual device's memory; on a GPU every buffer is on
 *  GPU 0 for now, and another device fails the test with the reason). */
hx_buf *hx_buf_new_on(int device, size_t n, size_t elem);
/** This process's view of element 0. */
void *hx_buf_data(hx_buf *b);
/** Number of elements. */
size_t hx_buf_len(const hx_buf *b);
/** Frees the buffer here and in the driver (NULL is fine). */
void hx_buf_free(hx_buf *b);

/** Kinds of argument. */
enum hx_arg_kind {
  HX_ARG_END = 0, HX_ARG_IN, HX_ARG_OUT, HX_ARG_INOUT, HX_ARG_GEN, HX_ARG_I64, HX_ARG_F64,
  HX_ARG_BYTES
};
/** One argument of a call (made with hx_in(), hx_out(), ...). */
typedef struct {
  int kind;              /**< hx_arg_kind */
  hx_buf *buf;           /**< buffers */
  long long i;           /**< HX_ARG_I64 */
  double d;              /**< HX_ARG_F64 */
  uint64_t seed;         /**< HX_ARG_GEN: the generator's seed */
  int64_t lo;            /**< HX_ARG_GEN: smallest value */
  int64_t hi;            /**< HX_ARG_GEN: largest value */
  unsigned nbytes;       /**< HX_ARG_BYTES: how many */
  unsigned char bytes[32]; /**< HX_ARG_BYTES: the bytes */
} hx_arg;
/** An input: copied to the device before the call, checked unchanged after it. */
hx_arg hx_in(hx_buf *b);
/** An output: poisoned (guards too) before the call; its guards are checked after it. */
hx_arg hx_out(hx_buf *b);
/** An array read and written in place: copied in, copied back, guards checked. */
hx_arg hx_inout(hx_buf *b);
/** An input of 32-bit ints the test makes from a formula (hx_gen_i32()), on the device on a GPU
 *  (nothing copied); checked unchanged after the call. For inputs too large to copy cheaply. */
hx_arg hx_in_generated(hx_buf *b, uint64_t seed, int64_t lo, int64_t hi);
/** An integer (sizes, block sizes, flags). */
hx_arg hx_i64(long long v);
/** A floating-point number. */
hx_arg hx_f64(double v);
/** Up to 32 raw bytes (an operator's identity, say). */
hx_arg hx_bytes(const void *p, size_t len);
/** The end of an argument list (HX_CALL() adds it). */
hx_arg hx_end(void);

/**
 * @brief Calls @p fn of the lab's call table with the arguments that follow, up to hx_end().
 *
 * Before the call, inputs are copied to the device and outputs poisoned; after it, the
 * device is synchronised, every buffer comes back, and the harness checks the guard bands
 * (a write past either end fails with its index), that inputs are unchanged, and that the
 * student's code copied nothing between host and device (the lab's work belongs on the
 * device). A crash, a CUDA error or a hang of the student's code fails the test, naming
 * @p ctx, and ends it.
 * @param ret receives the function's return value (NULL: not wanted)
 * @param fn  the call table's name
 * @param ctx what the call is, for messages: `scanIncLookback(n=1000, seed=42)`
 * @return the number of problems found by the checks above (0: the outputs are ready)
 */
size_t hx_callv(long long *ret, const char *fn, const char *ctx, ...);
/** hx_callv() with its @p nargs arguments in an array (a call whose count of buffers depends on
 *  the test: lab 08's ranks), no hx_end(). */
size_t hx_call_list(long long *ret, const char *fn, const char *ctx, int nargs, const hx_arg *args);
/** hx_callv() without a return value: `HX_CALL("name", ctx, hx_in(a), hx_out(b), hx_i64(n))`. */
#define HX_CALL(fn, ctx, ...) hx_callv(NULL, (fn), (ctx), __VA_ARGS__, hx_end())
/** hx_callv() with its return value: `HX_CALL_RET(&r, "name", ctx, ...)`. */
#define HX_CALL_RET(ret, fn, ctx, ...) hx_callv((ret), (fn), (ctx), __VA_ARGS__, hx_end())

/** Element @p i of a generated input: a hash of (@p seed, @p i) in [@p lo, @p hi]. */
static inline int32_t hx_gen_i32(uint64_t seed, uint64_t i, int64_t lo, int64_t hi) {
  return hxp_gen_value(seed, i, lo, hi);
}
/** @} */

/** @name Checking large outputs where they lie
 *  On a GPU a buffer is device memory the test owns: these checks run there (hx_dev.cu) and
 *  bring back only what a message needs; elsewhere they run on the host (hx_verify.c). Both
 *  find the same thing (hx_verify.h says what each checks), so a test formats its message from
 *  the hxv_result the same way on every backend.
 *  @code
 *  hxv_result r;
 *  if (hx_verify_scan(hx_source_gen(seed, -1000, 1000), out, n, 0, 0, 0, NULL, &r))
 *    HX_FAIL("%s: first mismatch at [%zu]: expected %lld, got %lld (%zu mismatches)", ctx, r.first,
 *            (long long)r.expected, (long long)r.got, r.count);
 *  @endcode
 *  @{ */

/** The input of a check: a buffer's 32-bit ints, or the generator's. */
typedef struct {
  hx_buf *buf;   /**< the buffer, or NULL: generated */
  uint64_t seed; /**< the generator's seed */
  int64_t lo;    /**< smallest generated value */
  int64_t hi;    /**< largest generated value */
} hx_source;
/** A buffer's elements as a check's input. */
hx_source hx_source_buf(hx_buf *b);
/** The generator's elements (hx_gen_i32()) as a check's input. */
hx_source hx_source_gen(uint64_t seed, int64_t lo, int64_t hi);
/** hxv_scan_host(): a segmented add-scan of @p n ints; segments start at 0, where
 *  `(i % tile) % sub == 0` (@p tile not 0; @p sub 0: the tile) and where @p flags (bytes, or
 *  NULL) is not 0. Returns the number of wrong elements. */
size_t hx_verify_scan(hx_source in, hx_buf *out, size_t n, int exclusive, size_t tile, size_t sub, hx_buf *flags,
                      hxv_result *r);
/** hxv_select_host(): compaction above @p pivot (or, with @p partition, stable partition). */
size_t hx_verify_select(hx_source in, hx_buf *out, size_t n, int32_t pivot, int partition, hxv_result *r);
/** hxv_sight_host(): line of sight over altitudes given as float bits; @p vis holds bytes. */
size_t hx_verify_sight(hx_source in, hx_buf *vis, size_t n, hxv_result *r);
/** hxv_sort_host(): sorted, and the input's keys. */
size_t hx_verify_sort(hx_source in, hx_buf *out, size_t n, hxv_result *r);
/** hxv_spmv_host(): the CSR product, values from @p val (float bits). */
size_t hx_verify_spmv(hx_buf *ptr, hx_buf *col, hx_buf *x, hx_source val, hx_buf *y, int32_t rows, double rtol,
                      double atol, hxv_result *r);
/** @} */

/** @name Timing
 *  Timing is done here, by this process's clock, around batches of calls that the driver
 *  makes back to back and then waits for: each call on a fresh input from a seed drawn just
 *  before (so no answer can be prepared), each output checked where it lies as the clock left
 *  it, before the driver is asked anything else.
 *  The yardstick (a device-to-device copy, or memcpy for a lab without kernels) is measured
 *  the same way in a second driver process that holds no student code.
 *  @{ */

/** What the driver reports about the device, from the process without student code. */
typedef struct {
  char backend[16];     /**< "cuda", "emu" or "cpu" */
  char device[96];      /**< the device's name */
  uint64_t l2_bytes;    /**< L2 cache size */
  uint64_t free_bytes;  /**< free device memory */
  uint64_t total_bytes; /**< device memory */
  int devices;          /**< devices the driver sees (at least 1) */
} hx_device_info;
/** The device's description (starts the driver without student code the first time). */
const hx_device_info *hx_device(void);

/** A timed function: `fn(in, out, extra...)` with `in` n generated 32-bit ints. */
typedef struct hx_timed hx_timed;
/** A timed function and how to check its output (see hx_time_calls()). */
struct hx_timed {
  const char *fn;       /**< the call table's name */
  const char *ctx;      /**< for messages */
  size_t n;             /**< elements of the input and of the output */
  size_t out_elem;      /**< bytes per output element (0: 4; 1 or 2: packed in 32-bit words) */
  uint64_t seed;        /**< inputs are generated from seeds derived from this one */
  int64_t lo;           /**< smallest input value */
  int64_t hi;           /**< largest input value */
  const hx_arg *extra;  /**< arguments after (in, out) */
  int nextra;           /**< how many */
  /** Checks one output against the input generated from @p seed, where it lies (with the
   *  hx_verify_* checks); returns the number of mismatches (and records a failure naming @p ctx). */
  size_t (*check)(const hx_timed *t, uint64_t seed, hx_buf *out, const char *ctx);
  void *user;           /**< for check() */
};
/**
 * @brief Median seconds per call of @p t, over @p batches batches of @p per_batch calls (each
 * on its own fresh input and output, run back to back); NAN with a failed test when an
 * output is wrong or a call fails. On the cpu backend the seconds are the CPU time the
 * driver's processes used (read from outside them), so the load of the machine does not
 * count; elsewhere they are wall-clock seconds.
 */
double hx_time_calls(const hx_timed *t, int batches, int per_batch);

/** The emu's memory counters over the last hx_callv() (its probes count every access of the
 *  student's kernels, grouped per warp and instruction as Nsight Compute counts them). They are
 *  counted in the driver's process, beside the student's code: use them to teach and to grade
 *  efficiency, knowing that code written to tamper with the emulator could change them, as it
 *  could not change a time measured by the test. */
typedef struct {
  int available;        /**< 1 where counted (emu), else 0 */
  unsigned long long c[HXP_COUNTERS]; /**< in the order of HX_C_* */
} hx_counters;
/** Indices into hx_counters::c. */
enum {
  HX_C_GLD_REQ, HX_C_GLD_SECT, HX_C_GST_REQ, HX_C_GST_SECT, HX_C_SLD_WAVE, HX_C_SLD_CONF, HX_C_SST_WAVE,
  HX_C_SST_CONF, HX_C_SLD_REQ, HX_C_SST_REQ,
  HX_C_GLD_VOL_SECT,  /**< of HX_C_GLD_SECT, the sectors of volatile loads (a look-back polls with them) */
  HX_C_GLD_VOL_REREAD, /**< of HX_C_GLD_VOL_SECT, those that read a sector the call's volatile loads had
                           read before: the polling, which depends on the schedule; the first read
                           of each sector is data traffic (volatile or not, it is counted) */
  HX_C_SATOM,          /**< atomic operations on shared memory, one per thread and operation (not in
                            the requests, wavefronts or conflicts above) */
  HX_C_GATOM,          /**< atomic operations on global memory, likewise (not in the sectors above) */
  HX_C_W_ACCESSES,     /**< the memory accesses of the blocks' threads, lane by lane (the requests
                            above count them a warp instruction at a time) */
  HX_C_W_TOP,          /**< over the blocks: the accesses of each block's busiest thread, summed */
  HX_C_W_BLOCKS,       /**< the blocks counted */
  HX_C_W_TOP_T0,       /**< of those, the blocks whose busiest thread is thread 0 */
  HX_C_GLD_BYTES,      /**< the bytes global loads asked for, lane by lane (32 * HX_C_GLD_SECT moved them) */
  HX_C_GLD_PLAIN_REPOLL, /**< plain global loads that read the address the same thread's previous load
                             at that instruction read: polling with plain loads */
  HX_C_INCOMPLETE,      /**< the call's launches whose accesses the probes did not all keep (a thread
                             past their log between two barriers): hx_last_counters fails the test */
  HX_C_W_ST,            /**< over the blocks: each block's global store sectors, summed */
  HX_C_W_ST_SQ,         /**< over the blocks: each block's global store sectors squared, summed
                             (hx_check_blocks) */
  HX_C_W_DEPTH          /**< in depth mode (hx_emu_depth), over the launches: the bytes of global memory
                             along each one's longest chain of accesses that wait on one another */
};
/** The counters of the last call, or NULL where there are none (a GPU: the timing tests measure
 *  there). Where the emu's probes did not keep every access of the call (HX_C_INCOMPLETE), the
 *  running test fails, once a call, saying so: the counts miss work and cannot judge it. */
const hx_counters *hx_last_counters(void);
/** The bytes a call moved through global memory, as the emu counts them: 32 per sector loaded
 *  or stored, less the volatile loads that read a sector again (a look-back's polling, as often
 *  as the schedule makes it wait: HX_C_GLD_VOL_REREAD), plus 32 per atomic operation on global
 *  memory (one sector each; atomics are not in the sectors). */
double hx_bytes_moved(const hx_counters *c);
/**
 * @brief On emu, one note with the memory model's figures for the last call: what a timing test,
 * skipped there, can still tell a student without a GPU.
 *
 * The note gives the global bytes the call's kernels moved per @p unit (32-byte sectors loaded
 * and stored, loads of volatile status words that read a sector again left out: how often a
 * look-back polls depends on the schedule), then loads and stores apart (16-byte stores and
 * 4-byte stores at a stride of 16 bytes both touch 16 sectors a request, but the second moves
 * 4 times the bytes), against the @p ideal the timing test counts; the fraction of copy that
 * follows if every counted byte moved at the copy's bandwidth (ideal / moved, at most 1); the
 * sectors per global request (loads only where nothing polled); and the shared-memory requests
 * with their bank conflicts per request. The grader page says what the figures can and cannot
 * predict. Lab 05's single pass:
 * @code
 * scanIncLookback(n=65537), emu model: 8.02 bytes per element (the timing test counts 8): loads
 *   4.00 and stores 4.01, polling left out; so 1.00 of copy if all moved at copy speed; sectors
 *   per request: stores 15.5; shared memory: 162 requests, 0.00 bank conflicts per request
 * @endcode
 * @param what the call, as the note names it
 * @param units the elements (points, non-zeros, ...) the call handled; above 0
 * @param unit the name of one, for the note: "element"
 * @param ideal bytes per unit the timing test counts (read plus written)
 * @return the bytes moved per unit; -1 where there are no counters (a GPU: no note)
 */
double hx_model_note(const char *what, double units, const char *unit, double ideal);
/**
 * @brief On emu, whether the last call's blocks shared their work among their threads: fails the
 * test with a message that names what the counters show, and returns 0, when the busiest thread
 * of a block made more than @p max_share of the block's memory accesses (the work done by one
 * thread: a serial loop inside the block), or when the call's memory instructions had fewer than
 * @p min_lanes lanes each on average (one lane of each warp doing the work). @p call names the
 * call in the message. Returns -1 where there are no counters (a GPU), 1 when both hold.
 */
int hx_check_parallel(const char *call, double max_share, double min_lanes);
/**
 * @brief On emu, whether the last call's work was spread over its blocks: the global sectors its
 * blocks stored, counted block by block, are worth as many blocks of equal output as the square
 * of their sum over the sum of their squares (1 where one block stored it all, whatever the
 * others did; the tile count where every tile's block stored its own). Fails the test with a
 * message naming the figure, and returns 0, below @p min_blocks: one block, or a few, walked
 * the input tile after tile, which a GPU runs at the speed of those few multiprocessors. On
 * the figure (a note) where it holds, 1; -1 where there are no counters (a GPU).
 */
int hx_check_blocks(const char *call, double min_blocks);
/**
 * @brief On emu, runs the calls that follow in depth mode (@p on 1) or as usual (0). In depth
 * mode the emu follows each value a block loads back to the block that stored it, and counts
 * the bytes along each launch's longest chain of global accesses that wait on one another
 * (HX_C_W_DEPTH); its blocks in flight advance together, as on a GPU, instead of in the
 * adversarial schedules' turns (so a test that asks for depth checks no look-back's order).
 * No effect on a GPU.
 */
void hx_emu_depth(int on);
/**
 * @brief On emu, after a call made in depth mode: whether its blocks ran side by side. The call
 * must move @p bytes (what the operation reads and writes at the least); its longest chain of
 * global accesses that waited on one another moved HX_C_W_DEPTH, and @p bytes is how many times
 * that the work was worth. Fails the test with a message naming it, and returns 0,
 * below @p min_ways: its blocks waited for one another to finish, one after another (a chained
 * scan that waits before its tile's work), which a GPU runs at one multiprocessor's speed
 * whatever the grid. On the figure (a note) where it holds, 1; -1 where there are no counters.
 */
int hx_check_depth(const char *call, double bytes, double min_ways);
/**
 * @brief On emu, what the last call's counters show about why it moved more bytes than it should:
 * polling with plain loads (where a protocol needs volatile or atomic ones), uncoalesced loads
 * (sectors mostly unused), or neither (an extra pass). Writes a clause into @p out (empty where
 * there are no counters) for a failure message.
 */
void hx_traffic_diagnosis(char *out, size_t cap);
/** Median seconds per copy of @p bytes (device to device; memcpy on the cpu backend, in CPU
 *  seconds), timed as hx_time_calls() times, in a process that runs no student code, with the student's driver
 *  ended first (the next call starts it again), so no work of the student's shares the device
 *  or the CPU with the yardstick. */
double hx_time_copy(size_t bytes, int batches, int per_batch);
/** @} */

/** @name Backend
 *  @{ */

/** The backend the student's code runs on: "cuda", "emu" or "cpu". */
const char *hx_backend(void);
/** True where timing means something (a GPU, or the CPU for a lab without kernels); false on
 *  `emu`, which runs kernels on the CPU. */
int hx_timing_available(void);
/** Skips the running test when timing is not available (the `emu` backend). On emu a timing
 *  test calls hx_model_note() for each timed call it checked before it skips. */
#define HX_REQUIRE_TIMING() \
  do { if (!hx_timing_available()) HX_SKIP("not graded on the emu backend, which does not time kernels; the memory model's figures for the timed calls follow"); } while (0)
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HARNESS_H */
