/**
 * @file harness_internal.h
 * @brief Between the harness's parts: the grader's channel and the running test's state.
 *        Not for tests or student code.
 */
#ifndef SCANLAB_HARNESS_INTERNAL_H
#define SCANLAB_HARNESS_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The grader's channel: a file descriptor and the secret each line must carry. */
typedef struct {
  int fd;          /**< descriptor to write to, or -1 when run by hand */
  char nonce[72];  /**< the grader's secret for this run */
} hx_channel;

/** Installs the channel (done once, by main, before any test runs). */
void hx_internal_set_channel(hx_channel ch);
/** Adds a `key=value` parameter; a later one overrides an earlier one. */
void hx_internal_add_param(const char *key, const char *value);
/** Resets the per-test state. */
void hx_internal_begin_test(void);
/** True when the running test called hx_skip(); @p reason receives the reason. */
int hx_internal_skipped(const char **reason);
/** Sends one event line to the grader (`value` NaN when absent). */
void hx_internal_send(const char *event, const char *key, const char *text, double value);
/** write(2), kept here so harness.c stays free of POSIX headers' quirks. */
ssize_t hx_internal_write(int fd, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HARNESS_INTERNAL_H */
