/**
 * @file harness_internal.h
 * @brief Between the harness's parts: the grader's channel, the running test's state, the
 *        driver's configuration. Not for tests.
 */
#ifndef SCANLAB_HARNESS_INTERNAL_H
#define SCANLAB_HARNESS_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Installs the grader's channel (a descriptor only this process holds; -1 when run by hand). */
void hx_internal_set_channel(int fd);
/** Adds a `key=value` parameter; a later one overrides an earlier one. */
void hx_internal_add_param(const char *key, const char *value);
/** Resets the per-test state. */
void hx_internal_begin_test(void);
/** True when the running test called hx_skip(); @p reason receives the reason. */
int hx_internal_skipped(const char **reason);
/** Sends one event line to the grader (`value` NaN when absent). */
void hx_internal_send(const char *event, const char *key, const char *text, double value);
/** True when the grader's channel is open (set). */
int hx_internal_channel_open(void);

/** Where the drivers are, how to fence them, and when the test's time is up. */
void hx_internal_configure(const char *driver, const char *clean_driver, const char *sandbox,
                           const char *backend, double timeout_s);
/** One more option for the sandbox (limits, from the manifest). */
int hx_internal_sandbox_option(const char *opt); /* -1: the list is full */
/** One more word of the command the student's driver runs under (`compute-sanitizer --tool
 *  racecheck`, for the kit's own GPU checks). */
int hx_internal_wrap_driver(const char *arg); /* -1: the list is full */
/** Bytes the student's code may copy between host and device during one call. */
void hx_internal_set_host_copy_allowance(unsigned long long bytes);
/** Ends the drivers (after each test). */
void hx_internal_stop_drivers(void);
/** Ends the running test now as failed (its failures are already recorded). */
void hx_internal_abort_test(void)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HARNESS_INTERNAL_H */
