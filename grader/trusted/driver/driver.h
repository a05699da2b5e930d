/**
 * @file driver.h
 * @brief The driver: the process that runs a student's code for the tests, and nothing else.
 *
 * A test (the trusted side, grader/trusted/harness) asks the driver to call one of the lab's
 * functions by name on buffers the test owns (on a GPU, device memory the test exported and
 * the driver maps; elsewhere shared memory the driver copies to its device and back); the
 * driver calls the function on its confined call thread, waits for the device and says so.
 * It never compares, times or decides anything: the test does, in its own process.
 *
 * Each lab has a call table (`grader/trusted/tests/labNN_calls.cu`) that maps names to small
 * wrappers around the student's functions:
 * @code
 * static int64_t call_lookback(drv_call *c) {
 *   scanIncLookback((const int32_t *)drv_ptr(c, 0), (int32_t *)drv_ptr(c, 1), drv_size(c, 2));
 *   return 0;
 * }
 * DRV_TABLE({"scanIncLookback", call_lookback});
 * @endcode
 */
#ifndef SCANLAB_DRIVER_H
#define SCANLAB_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One call's arguments, as the test sent them. */
typedef struct drv_call drv_call;

/** Argument @p k, a buffer: the pointer to its element 0 (a device pointer, or a host one for
 *  a lab without kernels). Ends the driver with an error if @p k is not a buffer. */
void *drv_ptr(drv_call *c, int k);
/** Argument @p k, a buffer: the bytes of its elements (guards not counted). */
size_t drv_buf_bytes(drv_call *c, int k);
/** Argument @p k, an integer. */
int64_t drv_i64(drv_call *c, int k);
/** Argument @p k, an integer used as a size. */
size_t drv_size(drv_call *c, int k);
/** Argument @p k, a floating-point number. */
double drv_f64(drv_call *c, int k);
/** Argument @p k, raw bytes (an operator's identity, say); @p len receives their count. */
const void *drv_bytes(drv_call *c, int k, size_t *len);

/** A function of the call table: calls the student's code, returns a value for the test. */
typedef int64_t (*drv_fn)(drv_call *c);
/** An entry of the call table. */
typedef struct {
  const char *name; /**< the name tests call it by */
  drv_fn fn;        /**< the wrapper */
} drv_entry;

/** The lab's call table, ending with `{NULL, NULL}` (defined with DRV_TABLE()). */
extern const drv_entry drv_table[];
/** Defines the call table: `DRV_TABLE({"name", fn}, ...)`. */
#define DRV_TABLE(...) const drv_entry drv_table[] = {__VA_ARGS__, {NULL, NULL}}

/** Ends the driver with a message for the test (a wrong argument from the test, say). */
void drv_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* ---- the backend: device memory, copies, waiting (driver_dev.cu or driver_host.c) ---- */

/** Backend name: "cuda", "emu" or "cpu". */
const char *drv_backend(void);
/** Starts the backend (creates the CUDA context); 0 or an error text in @p err. Called from the
 *  driver's first constructor, unconfined, before any other constructor of the program. */
int drv_dev_init(char *err, size_t cap);
/** Device name, L2 size, free and total device memory. */
void drv_dev_info(char *name, size_t cap, uint64_t *l2, uint64_t *free_b, uint64_t *total);
/** Allocates @p bytes of device memory. */
int drv_dev_alloc(void **p, size_t bytes, char *err, size_t cap);
/** Allocates @p bytes of device memory on device @p device (the current device stays). */
int drv_dev_alloc_on(int device, void **p, size_t bytes, char *err, size_t cap);
/** The number of devices the backend sees (1 on `cpu`). */
int drv_dev_count(void);
/** Frees drv_dev_alloc()'s memory. */
void drv_dev_free(void *p);
/** Copies @p bytes from host @p src to device @p dst. */
int drv_dev_upload(void *dst, const void *src, size_t bytes, char *err, size_t cap);
/** Copies @p bytes from device @p src to host @p dst. */
int drv_dev_download(void *dst, const void *src, size_t bytes, char *err, size_t cap);
/** Makes the test's shared memory file @p fd (@p bytes, guards included) device memory of
 *  @p device at @p p, shared with the test, where the backend can (`emu`): 0, else nonzero and
 *  the driver copies the buffer in and out of each call. drv_dev_release() ends it. */
int drv_dev_adopt(int device, int fd, size_t bytes, void **p);
/** Ends drv_dev_adopt()'s memory (the student's cudaFree refuses it). */
void drv_dev_release(void *p);
/** Maps device memory the test exported as the POSIX descriptor @p fd (@p bytes, the test's
 *  mapping size) into this process's context at @p p (`cuda` only). */
int drv_dev_import(int fd, uint64_t bytes, void **p, char *err, size_t cap);
/** Unmaps drv_dev_import()'s memory. */
void drv_dev_unmap(void *p, uint64_t bytes);
/** Called once on the call thread (the main thread), confined, after the student's constructors
 *  and before any call (the emu starts its workers there). */
void drv_dev_thread_start(void);
/** The threads the backend started itself (the emu's workers and watchdog), as thread ids in
 *  @p tids; returns how many (at most @p cap). The driver allows these, and the ones it saw
 *  after drv_dev_init(), to outlive a call. */
int drv_dev_own_threads(int *tids, int cap);
/** Runs a tiny kernel and waits for it: after the test filled buffers in its own context, the
 *  device switches to this one before the clock starts, not in the first timed call. */
int drv_dev_settle(char *err, size_t cap);
/** Waits for all device work; 0, or 1 with the error's text (2: the context is lost). */
int drv_dev_sync(char *err, size_t cap);
/** Device-to-device copy of @p bytes, queued (the kit's yardstick; no student code). */
int drv_dev_copy(void *dst, const void *src, size_t bytes, char *err, size_t cap);
/** Bytes copied device->host and host->device so far by anyone (emu counts; else 0). */
void drv_dev_copy_counters(uint64_t *d2h, uint64_t *h2d);
/** The emu's memory counters of every probed launch so far (HXP_COUNTERS of them, in the order
 *  of hxp_reply::counters); returns how many it wrote: 0 on a GPU or without probes. */
int drv_dev_probe_counters(uint64_t *c, int n);
/** On emu, watches the @p n ranges at @p ptrs, of @p bytes each (a call's buffers), from now:
 *  their bytes may change only by the device's doing (a launch, the runtime's copies and
 *  sets). Nothing on a GPU. */
void drv_dev_watch(const void *const *ptrs, const size_t *bytes, int n);
/** On emu, depth mode on or off for the calls that follow (scanlab_emu_depth); nothing on a GPU. */
void drv_dev_depth(int on);
/** Ends drv_dev_watch()'s watch: how many of its ranges changed by other means than the
 *  device's (host code that wrote device memory it reopened); 0 on a GPU. */
int drv_dev_watch_changed(void);
/** Whether host pointers are device pointers (a lab without kernels). */
int drv_dev_is_host(void);

/** Confines the calling thread and the threads it starts (confine.c): 0, or -1 with why. */
int drv_confine(char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_DRIVER_H */
