/**
 * @file emu_test.h
 * @brief Small helpers for the emulation backend's own tests (checked calls, array checks).
 */
#ifndef EMU_TEST_H
#define EMU_TEST_H
/// @cond EMU_INTERNAL
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#define CK(expr)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      printf("%s:%d: CUDA error %s in '%s'\n", __FILE__, __LINE__, cudaGetErrorName(e_), #expr);   \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* Compares n values; prints the first mismatch and the count. Returns 1 when equal. */
template <class T>
static int same(const char *what, const T *expected, const T *got, size_t n) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (!(expected[i] == got[i])) {
      if (!bad) first = i;
      bad++;
    }
  if (bad) {
    printf("%s: first mismatch at [%zu]: expected %lld, got %lld (%zu mismatches)\n", what, first,
           (long long)expected[first], (long long)got[first], bad);
    return 0;
  }
  return 1;
}
/* What a counting test expects the emu's profile to hold for one launch: the kernel's name and
 * the 8 counters of PROFILE_METRIC, in that order. */
struct ProfileExpect {
  const char *kernel;
  unsigned long long m[8];
};
/* Global ld requests, sectors; st requests, sectors; shared ld wavefronts, conflicts; st
 * wavefronts, conflicts: the names the profile gives them (Nsight Compute's). */
static const char *const PROFILE_METRIC[8] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};
/* Reads build/emu-test/NAME.<pid>.jsonl (the test's SCANLAB_EMU_PROFILE, see run_tests.py), one
 * line per launch, and compares it with expect[0 .. count-1] launch by launch, printing each
 * difference; removes the file. Returns 1 when every launch and counter agrees (always 1 where
 * the emu did not build the test: there is no profile to read). */
inline int check_profile(const char *name, const ProfileExpect *expect, int count) {
#ifdef SCANLAB_EMU
  char path[512];
  snprintf(path, sizeof path, "build/emu-test/%s.%ld.jsonl", name, (long)getpid());
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("no profile at %s\n", path);
    return 0;
  }
  char line[4096];
  int k = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    if (k >= count) {
      printf("more launches in the profile than the %d expected\n", count);
      fclose(f);
      return 0;
    }
    if (!strstr(line, expect[k].kernel)) {
      printf("launch %d: expected kernel %s in %s", k, expect[k].kernel, line);
      fclose(f);
      return 0;
    }
    for (int i = 0; i < 8; i++) {
      const char *p = strstr(line, PROFILE_METRIC[i]);
      unsigned long long v = p ? strtoull(p + strlen(PROFILE_METRIC[i]) + 3, NULL, 10) : ~0ull;
      if (v != expect[k].m[i]) {
        printf("%s (launch %d): %s = %llu, expected %llu\n", expect[k].kernel, k, PROFILE_METRIC[i], v,
               expect[k].m[i]);
        bad++;
      }
    }
    k++;
  }
  fclose(f);
  remove(path);
  if (k != count) {
    printf("%d launches in the profile, expected %d\n", k, count);
    return 0;
  }
  return bad == 0;
#else
  (void)name, (void)expect, (void)count;
  return 1;
#endif
}
/// @endcond
#endif
