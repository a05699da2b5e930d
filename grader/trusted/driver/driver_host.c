/**
 * @file driver_host.c
 * @brief The driver's "device" side for a lab without kernels (backend `cpu`): the shared
 *        mappings are used in place, so a call reads and writes them directly.
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "hx_proto.h"

const char *drv_backend(void) { return "cpu"; }
int drv_dev_is_host(void) { return 1; }
int drv_dev_init(char *err, size_t cap) {
  (void)err;
  (void)cap;
  return 0;
}
void drv_dev_info(char *name, size_t cap, uint64_t *l2, uint64_t *free_b, uint64_t *total) {
  snprintf(name, cap, "host CPU");
  *l2 = *free_b = *total = 0;
}
int drv_dev_alloc(void **p, size_t bytes, char *err, size_t cap) {
  (void)p;
  (void)bytes;
  snprintf(err, cap, "no device memory on the cpu backend");
  return 1;
}
int drv_dev_alloc_on(int device, void **p, size_t bytes, char *err, size_t cap) {
  (void)device;
  return drv_dev_alloc(p, bytes, err, cap);
}
int drv_dev_count(void) { return 1; }
void drv_dev_free(void *p) { (void)p; }
int drv_dev_adopt(int device, int fd, size_t bytes, void **p) { return (void)device, (void)fd, (void)bytes, (void)p, 1; }
void drv_dev_release(void *p) { (void)p; }
int drv_dev_upload(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  (void)err;
  (void)cap;
  if (dst != src) memcpy(dst, src, bytes);
  return 0;
}
int drv_dev_download(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  return drv_dev_upload(dst, src, bytes, err, cap);
}
int drv_dev_import(int fd, uint64_t bytes, void **p, char *err, size_t cap) {
  (void)fd;
  (void)bytes;
  (void)p;
  snprintf(err, cap, "no device memory on the cpu backend");
  return 1;
}
void drv_dev_unmap(void *p, uint64_t bytes) {
  (void)p;
  (void)bytes;
}
void drv_dev_thread_start(void) {}
int drv_dev_own_threads(int *tids, int cap) { return (void)tids, (void)cap, 0; }
int drv_dev_settle(char *err, size_t cap) {
  (void)err;
  (void)cap;
  return 0;
}
int drv_dev_sync(char *err, size_t cap) {
  (void)err;
  (void)cap;
  return 0;
}
int drv_dev_copy(void *dst, const void *src, size_t bytes, char *err, size_t cap) {
  (void)err;
  (void)cap;
  memcpy(dst, src, bytes);
  return 0;
}
void drv_dev_copy_counters(uint64_t *d2h, uint64_t *h2d) { *d2h = *h2d = 0; }
int drv_dev_probe_counters(uint64_t *c, int n) { return (void)c, (void)n, 0; }
void drv_dev_watch(const void *const *ptrs, const size_t *bytes, int n) { (void)ptrs, (void)bytes, (void)n; }
int drv_dev_watch_changed(void) { return 0; }
void drv_dev_depth(int on) { (void)on; }
