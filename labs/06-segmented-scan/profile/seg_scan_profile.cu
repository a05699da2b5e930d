/**
 * @file seg_scan_profile.cu
 * @brief The program `make profile LAB=06` runs under Nsight Compute and on the emu: one call
 *        of one of lab 06's segmented scans (int32_t, Add) on random values and head flags
 *        (one element in 8 a head); it checks the answer.
 *
 * Usage: `seg_scan_profile CASE N [BLOCK]`, CASE one of
 *
 * - `warp_op_inc`, `warp_op_exc`, `warp_inc`, `warp_exc`, `block_inc`, `block_exc`:
 *   segScanBatch() with SEG_WARP_OP_INC ... SEG_BLOCK_EXC: segScanBatchKernel;
 * - `head_lane`: segHeadLaneBatch(): segHeadLaneKernel;
 * - `operator`: segOpApply(): segOpApplyKernel;
 * - `global_inc`, `global_exc`: segScanIncGlobal(), segScanExcGlobal(): segScanGlobalKernel.
 *
 * BLOCK (default 256) is the batch's threads per block. Built by grader/measure/profile_banks.py
 * together with a submission's `seg_scan.cu`; prints `PROFILE case=... n=... wrong=...` and
 * exits non-zero when the result is wrong (1) or the arguments are (2). Example:
 * `seg_scan_profile global_inc 24676` scans 4 tiles of SS_GLOBAL_TILE = 8192.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seg_scan.h"

/* CUDA_CHECK in the submission's file (grader/trusted/include/cuda_check.h) ends up here. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "seg_scan_profile: %s at %s:%d: %s\n", expr, file, line, cudaGetErrorString(err));
  exit(3);
}
/** Checks a CUDA call: the message names the file, the line, the call and the error. */
#define CK(...) scanlab_cuda_check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

enum { SCAN, HEAD_LANE, OPERATOR, GLOBAL };

/** A case: its name, what it runs, the batch variant, whether it is exclusive, and the size of
 *  the groups that scan on their own (1 warp, 2 block, 0 the whole array). */
typedef struct {
  const char *name;
  int kind;
  SegScanVariant variant;
  int exclusive;
  int group;
} profile_case;

static const profile_case CASES[] = {
    {"warp_op_inc", SCAN, SEG_WARP_OP_INC, 0, 1}, {"warp_op_exc", SCAN, SEG_WARP_OP_EXC, 1, 1},
    {"warp_inc", SCAN, SEG_WARP_INC, 0, 1},       {"warp_exc", SCAN, SEG_WARP_EXC, 1, 1},
    {"block_inc", SCAN, SEG_BLOCK_INC, 0, 2},     {"block_exc", SCAN, SEG_BLOCK_EXC, 1, 2},
    {"head_lane", HEAD_LANE, SEG_WARP_INC, 0, 1}, {"operator", OPERATOR, SEG_WARP_INC, 0, 0},
    {"global_inc", GLOBAL, SEG_WARP_INC, 0, 0},   {"global_exc", GLOBAL, SEG_WARP_INC, 1, 0},
};

int main(int argc, char **argv) {
  const profile_case *c = NULL;
  for (size_t k = 0; argc > 1 && k < sizeof CASES / sizeof CASES[0]; k++)
    if (strcmp(argv[1], CASES[k].name) == 0) c = &CASES[k];
  const size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 0;
  const int block = argc > 3 ? atoi(argv[3]) : 256;
  if (!c || n == 0 || block < SS_WARP || block > SS_BLOCK_MAX || block % SS_WARP != 0) {
    fprintf(stderr, "usage: %s CASE N [BLOCK]: CASE one of", argv[0]);
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) fprintf(stderr, " %s", CASES[k].name);
    fprintf(stderr, "; N > 0; BLOCK a multiple of 32 from 32 to %d\n", SS_BLOCK_MAX);
    return 2;
  }
  int32_t *h_in = (int32_t *)malloc(n * 4), *h_out = (int32_t *)malloc(n * 4);
  uint8_t *h_flags = (uint8_t *)malloc(n);
  FlagValue<int32_t> *h_a = (FlagValue<int32_t> *)malloc(n * sizeof *h_a);
  FlagValue<int32_t> *h_b = (FlagValue<int32_t> *)malloc(n * sizeof *h_b);
  FlagValue<int32_t> *h_pairs = (FlagValue<int32_t> *)malloc(n * sizeof *h_pairs);
  if (!h_in || !h_out || !h_flags || !h_a || !h_b || !h_pairs) {
    fprintf(stderr, "seg_scan_profile: out of host memory\n");
    return 3;
  }
  uint32_t r = 12345u;
  for (size_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    h_in[i] = (int32_t)(r >> 22) - 512;
    h_flags[i] = (r >> 8) % 8 == 0 ? (uint8_t)(1 + (r >> 12) % 255) : 0; /* any non-zero byte is a head */
    h_a[i].flag = (r >> 3) & 1u;
    h_a[i].value = h_in[i];
    h_b[i].flag = (r >> 5) & 1u;
    h_b[i].value = (int32_t)(r >> 16) - 30000;
  }
  int32_t *d_in, *d_out;
  uint8_t *d_flags;
  FlagValue<int32_t> *d_a = NULL, *d_b = NULL, *d_pairs = NULL;
  CK(cudaMalloc((void **)&d_in, n * 4));
  CK(cudaMalloc((void **)&d_out, n * 4));
  CK(cudaMalloc((void **)&d_flags, n));
  CK(cudaMemcpy(d_in, h_in, n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_flags, h_flags, n, cudaMemcpyHostToDevice));
  if (c->kind == OPERATOR) {
    CK(cudaMalloc((void **)&d_a, n * sizeof *d_a));
    CK(cudaMalloc((void **)&d_b, n * sizeof *d_b));
    CK(cudaMalloc((void **)&d_pairs, n * sizeof *d_pairs));
    CK(cudaMemcpy(d_a, h_a, n * sizeof *d_a, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, h_b, n * sizeof *d_b, cudaMemcpyHostToDevice));
    CK(segOpApply<int32_t, Add>(d_a, d_b, d_pairs, n, Add()));
  } else if (c->kind == HEAD_LANE) {
    CK(segHeadLaneBatch(d_flags, d_out, n, block));
  } else if (c->kind == SCAN) {
    CK(segScanBatch<int32_t, Add>(c->variant, d_in, d_flags, d_out, n, block, Add(), 0));
  } else if (c->exclusive) {
    segScanExcGlobal<int32_t, Add>(d_in, d_flags, d_out, n, Add(), 0);
  } else {
    segScanIncGlobal<int32_t, Add>(d_in, d_flags, d_out, n, Add());
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  if (c->kind == OPERATOR) CK(cudaMemcpy(h_pairs, d_pairs, n * sizeof *h_pairs, cudaMemcpyDeviceToHost));
  else CK(cudaMemcpy(h_out, d_out, n * 4, cudaMemcpyDeviceToHost));

  /* The reference. A group (a warp of the batch's layout, a block, or the whole array) starts
   * a segment at its first element; block is a multiple of 32, so warps are 32 elements. */
  const size_t group = c->group == 1 ? SS_WARP : c->group == 2 ? (size_t)block : n;
  size_t wrong = 0, first = 0;
  uint32_t acc = 0;
  int32_t head_lane = 0;
  for (size_t i = 0; i < n; i++) {
    const int starts = i % group == 0 || h_flags[i] != 0;
    int ok;
    if (c->kind == OPERATOR) {
      const int32_t want = h_b[i].flag ? h_b[i].value : (int32_t)((uint32_t)h_a[i].value + (uint32_t)h_b[i].value);
      ok = (h_pairs[i].flag != 0) == ((h_a[i].flag | h_b[i].flag) != 0) && h_pairs[i].value == want;
    } else if (c->kind == HEAD_LANE) {
      if (i % SS_WARP == 0) head_lane = 0;
      if (h_flags[i]) head_lane = (int32_t)(i % SS_WARP);
      ok = h_out[i] == head_lane;
    } else {
      if (starts) acc = 0;
      const uint32_t before = acc;
      acc += (uint32_t)h_in[i];
      ok = h_out[i] == (int32_t)(c->exclusive ? before : acc);
    }
    if (!ok && wrong++ == 0) first = i;
  }
  printf("PROFILE case=%s n=%zu block=%d wrong=%zu\n", c->name, n, c->kind == GLOBAL ? 0 : block, wrong);
  if (wrong)
    fprintf(stderr, "seg_scan_profile: %s(n=%zu): first mismatch at [%zu] (%zu mismatches)\n", c->name, n, first,
            wrong);
  if (c->kind == OPERATOR) {
    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_pairs));
  }
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_flags));
  segScanGlobalRelease();
  free(h_in);
  free(h_out);
  free(h_flags);
  free(h_a);
  free(h_b);
  free(h_pairs);
  return wrong ? 1 : 0;
}
