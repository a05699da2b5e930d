/**
 * @file hx_dev.h
 * @brief The trusted side's device: on a GPU the test owns every buffer a call uses and does on
 *        the device what it would otherwise bring back to do on the host.
 *
 * `build/kit/cuda/libscanlab-trusted.so` (hx_dev.cu, built with nvcc; the harness loads it on
 * the `cuda` backend) gives the test its own CUDA context, in its own process, next to the
 * driver's. It allocates the buffers with CUDA's virtual memory API and exports each as a POSIX
 * file descriptor, which the driver maps into its context (so both see the same memory and only
 * the test decides what it holds); it fills inputs (copied, or generated right before the call
 * that reads them), poisons outputs and guard bands, and checks them where they lie: guards,
 * inputs unchanged, and the outputs against references it recomputes (hx_verify.h), bringing
 * back only counts, the first mismatch and its values.
 *
 * Every function returns 0, or -1 with hxd_error() saying why (a CUDA error's name and the
 * step). Pointers are the test's device pointers.
 */
#ifndef SCANLAB_HX_DEV_H
#define SCANLAB_HX_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "hx_verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Why the last call failed. */
const char *hxd_error(void);
/** Starts the test's CUDA context; @p device receives the device's name. */
int hxd_init(char *device, size_t cap);

/** Device memory the driver can map: @p bytes rounded up to the allocation granularity
 *  (@p mapped), mapped here at @p dptr, exported as the descriptor @p fd (the caller closes it). */
int hxd_alloc_shared(size_t bytes, void **dptr, size_t *mapped, int *fd);
/** Frees hxd_alloc_shared()'s memory here (the driver unmaps its own view). */
void hxd_free_shared(void *dptr, size_t mapped);
/** Device memory only the test sees (snapshots of inputs, scratch). */
int hxd_alloc(void **dptr, size_t bytes);
/** Frees hxd_alloc()'s memory. */
void hxd_free(void *dptr);

/** Host to device. */
int hxd_upload(void *dst, const void *src, size_t bytes);
/** Device to host. */
int hxd_download(void *dst, const void *src, size_t bytes);
/** Device to device (a snapshot of an input). */
int hxd_copy(void *dst, const void *src, size_t bytes);
/** Fills @p words 32-bit words with @p w (poison). */
int hxd_fill(void *p, size_t words, uint32_t w);
/** Fills @p n ints with hxp_gen_value(seed, i, lo, hi). */
int hxd_generate(int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi);
/** Waits for the test's own device work. */
int hxd_sync(void);

/** Words of @p p that are not @p w: how many, the first and the last (HXV_NONE when none). */
int hxd_words_not(const void *p, size_t words, uint32_t w, size_t *count, size_t *first, size_t *last);
/** Elements of @p elem bytes (a multiple of 4) that differ between @p a and @p b: how many and
 *  the first (HXV_NONE when none). */
int hxd_compare(const void *a, const void *b, size_t n, size_t elem, size_t *count, size_t *first);
/** Elements of @p p that differ from the generator's: how many and the first. */
int hxd_check_generated(const int32_t *p, size_t n, uint64_t seed, int64_t lo, int64_t hi, size_t *count,
                        size_t *first);

/** hxv_scan_host() on the device (@p in->p, @p out and @p seg->flags device pointers). */
int hxd_scan(const hxv_input *in, const int32_t *out, size_t n, int exclusive, const hxv_segments *seg,
             hxv_result *r);
/** hxv_select_host() on the device. */
int hxd_select(const hxv_input *in, const int32_t *out, size_t n, int32_t pivot, int partition, hxv_result *r);
/** hxv_sight_host() on the device. */
int hxd_sight(const hxv_input *in, const uint8_t *vis, size_t n, hxv_result *r);
/** hxv_sort_host() on the device. */
int hxd_sort(const hxv_input *in, const uint32_t *out, size_t n, hxv_result *r);
/** hxv_spmv_host() on the device. */
int hxd_spmv(const int32_t *ptr, const int32_t *col, const float *x, const hxv_input *val, const float *y,
             int32_t rows, double rtol, double atol, hxv_result *r);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_HX_DEV_H */
