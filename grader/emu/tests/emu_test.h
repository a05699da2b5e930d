/**
 * @file emu_test.h
 * @brief Small helpers for the emulation backend's own tests (checked calls, array checks).
 */
#ifndef EMU_TEST_H
#define EMU_TEST_H
/// @cond EMU_INTERNAL
#include <cstdio>
#include <cstdlib>

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
/// @endcond
#endif
