/**
 * @file assert.cpp
 * @brief assert() in kernels: the C library's assertion handler, replaced for programs linked
 *        with the emulator. Inside a kernel a failed assertion fails the launch with
 *        cudaErrorAssert, as nvcc's device assert does; in host code it aborts as before.
 */
/// @cond EMU_INTERNAL
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
/// @endcond
