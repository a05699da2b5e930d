/* The GPU side of the compaction assignment, callable from plain C++ (no CUDA headers). */
#ifndef COMPACT_H
#define COMPACT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of every kernel (defined in compact.cu). */
extern const int COMPACT_BLOCK;

/* Keeps the elements of in[0..n) that are > threshold, in order; returns how many. */
int gpu_compact_greater(const int *in, int *out, int n, int threshold);
/* Exclusive prefix sum of in[0..n) into out. */
void gpu_exclusive_scan(const int *in, int *out, int n);
/* Elapsed milliseconds of the last call, from CUDA events. */
float gpu_last_ms(void);

#ifdef __cplusplus
}
#endif
#endif
