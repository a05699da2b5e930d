/**
 * @file libc.cpp
 * @brief The C library functions that device code calls and that mean something else on a
 *        GPU, replaced for programs linked with the emulator (a definition in the program's
 *        link comes before the C library's): assert() inside a kernel fails the launch with
 *        cudaErrorAssert, as nvcc's device assert does; clock() inside a kernel reads the CUDA
 *        thread's own counter, as clock64() does. In host code both behave as the C library's.
 */
/// @cond EMU_INTERNAL
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "emu_internal.h"

/* glibc's assert() calls this; a definition in the program's link comes before the C
 * library's (the header is not included here, so the exception specification is ours). */
extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function) {
  if (scanlab_emu::in_kernel()) scanlab_emu::device_assert_failed(assertion, file, line, function);
  fflush(stdout);
  fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name, file, line,
          function ? function : "", function ? ": " : "", assertion);
  fflush(stderr);
  abort();
}
/* Process CPU time, as the C library's clock(); in a kernel, the thread's cycle counter. */
extern "C" clock_t clock(void) {
  if (scanlab_emu::in_kernel()) return (clock_t)scanlab_emu::device_clock();
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (clock_t)-1;
  return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}
/// @endcond
