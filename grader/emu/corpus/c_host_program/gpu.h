/* C interface of gpu.cu. */
#ifndef GPU_H
#define GPU_H
#ifdef __cplusplus
extern "C" {
#endif
/* h[i] = min(|h[i]|, limit) on the device; 0 on success. */
int gpu_abs_clamp(int *h, int n, int limit);
#ifdef __cplusplus
}
#endif
#endif
