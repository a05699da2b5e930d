/**
 * @file main.c
 * @brief The `main` of every lab's test binary (the trusted side): lists and runs the suite's
 *        CUnit tests.
 *
 * Usage: `labNN_tests [--list] [--param KEY=VALUE]... [--driver PATH --clean-driver PATH
 * --sandbox PATH [--sandbox-opt OPT]...] [--backend B] [--timeout S] [TEST...]`
 *
 * The grader runs one test per process, passes the manifest's parameters with `--param`, and
 * names the driver (the student's code), the driver without student code (the yardstick) and
 * the sandbox they run in. It opens a pipe for the verdicts and names it in the environment
 * (`SCANLAB_RESULT_FD`); the descriptor is moved out of the way and marked close-on-exec, so
 * no driver inherits it. This process never runs student code, and it makes itself
 * non-dumpable, so a driver running as the same user cannot read its memory either.
 */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

static void usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [--list] [--param KEY=VALUE]... [--driver PATH --clean-driver PATH --sandbox PATH]\n"
          "          [--sandbox-opt OPT]... [--backend cuda|emu|cpu] [--timeout S] [TEST...]\n"
          "Runs lab %s's tests (all, or those named). Sizes, seeds and thresholds come from the\n"
          "lab's manifest, and the student's code from a driver the grader builds: run the tests\n"
          "with `make test LAB=%s`, which passes them.\n",
          prog, hx_suite_lab, hx_suite_lab);
}

/** Takes the grader's channel out of the environment, moving the descriptor to a high number
 *  and marking it close-on-exec. */
static int take_channel(void) {
  int ch = -1;
  const char *fd = getenv("SCANLAB_RESULT_FD");
  if (fd) {
    int n = atoi(fd);
    int moved = fcntl(n, F_DUPFD_CLOEXEC, 100);
    if (moved >= 0) {
      close(n);
      ch = moved;
    }
  }
  unsetenv("SCANLAB_RESULT_FD");
  return ch;
}


int main(int argc, char **argv) {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  hx_internal_set_channel(take_channel());

  int list = 0, nsel = 0;
  const char *driver = NULL, *clean = NULL, *sandbox = NULL, *backend = NULL;
  double timeout = 0;
  const char **sel = (const char **)calloc((size_t)argc, sizeof *sel);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (strcmp(a, "--list") == 0) {
      list = 1;
    } else if (strcmp(a, "--param") == 0 && more) {
      char *kv = argv[++i];
      char *eq = strchr(kv, '=');
      if (!eq) {
        usage(argv[0]);
        return 2;
      }
      *eq = '\0';
      hx_internal_add_param(kv, eq + 1);
    } else if (strcmp(a, "--driver") == 0 && more) {
      driver = argv[++i];
    } else if (strcmp(a, "--clean-driver") == 0 && more) {
      clean = argv[++i];
    } else if (strcmp(a, "--sandbox") == 0 && more) {
      sandbox = argv[++i];
    } else if (strcmp(a, "--sandbox-opt") == 0 && more) {
      if (hx_internal_sandbox_option(argv[++i]) != 0) {
        fprintf(stderr, "%s: too many --sandbox-opt (at %s)\n", argv[0], argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--backend") == 0 && more) {
      backend = argv[++i];
    } else if (strcmp(a, "--timeout") == 0 && more) {
      timeout = atof(argv[++i]);
    } else if (strcmp(a, "--wrap") == 0 && more) {
      if (hx_internal_wrap_driver(argv[++i]) != 0) {
        fprintf(stderr, "%s: too many --wrap (at %s)\n", argv[0], argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--host-copy-bytes") == 0 && more) {
      hx_internal_set_host_copy_allowance(strtoull(argv[++i], NULL, 10));
    } else if (strcmp(a, "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if (a[0] == '-') {
      usage(argv[0]);
      return 2;
    } else {
      sel[nsel++] = a;
    }
  }
  hx_internal_configure(driver, clean, sandbox, backend, timeout);

  if (list) {
    for (const hx_test *t = hx_suite_tests; t->name; t++) printf("%s\n", t->name);
    return 0;
  }
  for (int s = 0; s < nsel; s++) {
    const hx_test *t = hx_suite_tests;
    while (t->name && strcmp(t->name, sel[s]) != 0) t++;
    if (!t->name) {
      fprintf(stderr, "lab %s has no test named '%s' (--list shows them)\n", hx_suite_lab, sel[s]);
      return 2;
    }
  }

  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    return 2;
  }
  char suite_name[32];
  snprintf(suite_name, sizeof suite_name, "lab%s", hx_suite_lab);
  CU_pSuite suite = CU_add_suite(suite_name, NULL, NULL);
  for (const hx_test *t = hx_suite_tests; t->name; t++) CU_add_test(suite, t->name, t->fn);

  int passed = 0, failed = 0, skipped = 0;
  for (const hx_test *t = hx_suite_tests; t->name; t++) {
    int chosen = nsel == 0;
    for (int s = 0; s < nsel; s++) chosen |= strcmp(sel[s], t->name) == 0;
    if (!chosen) continue;
    {
      printf("test: %s ...\n", t->name);
      fflush(stdout);
    }
    hx_internal_begin_test();
    hx_internal_send("start", t->name, NULL, NAN);
    CU_run_test(suite, CU_get_test(suite, t->name));
    hx_internal_stop_drivers();
    const char *reason = NULL;
    int cunit_failures = (int)CU_get_number_of_failures();
    const char *status;
    if (hx_failures() > 0 || cunit_failures > 0) {
      status = "fail";
      failed++;
    } else if (hx_internal_skipped(&reason)) {
      status = "skip";
      skipped++;
    } else {
      status = "pass";
      passed++;
    }
    /* CUnit assertions made directly (CU_ASSERT) rather than through the harness. */
    if (hx_failures() == 0 && cunit_failures > 0) {
      for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s:%u: %s", f->strFileName ? f->strFileName : "?",
                 f->uiLineNumber, f->strCondition ? f->strCondition : "");
        hx_internal_send("fail", NULL, msg, NAN);
      }
    }
    hx_internal_send("end", status, strcmp(status, "skip") == 0 ? reason : NULL, NAN);
    {
      printf("test: %s: %s%s%s\n", t->name, status[0] == 'p' ? "OK" : status[0] == 'f' ? "FAIL" : "SKIP",
             status[0] == 's' ? " " : "", status[0] == 's' ? reason : "");
      fflush(stdout);
    }
  }
  CU_cleanup_registry();
  free(sel);
  printf("test: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
