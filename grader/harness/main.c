/**
 * @file main.c
 * @brief The `main` of every lab's test binary: lists and runs the suite's CUnit tests.
 *
 * Usage: `labNN_tests [--list] [--param KEY=VALUE]... [TEST...]`
 *
 * Without TEST names every test runs. The grader runs one test per process and passes the
 * manifest's parameters with `--param`; it also opens a pipe and names it in the environment
 * (`SCANLAB_RESULT_FD`, `SCANLAB_NONCE`). Both variables are read and removed before any test
 * runs, and verdicts go only to that pipe, tagged with the nonce.
 */
#define _POSIX_C_SOURCE 200809L
#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"

#ifndef HX_BACKEND_NAME
#define HX_BACKEND_NAME "cpu"
#endif

const char *hx_backend(void) { return HX_BACKEND_NAME; }

ssize_t hx_internal_write(int fd, const void *buf, size_t len) { return write(fd, buf, len); }

static void usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [--list] [--param KEY=VALUE]... [TEST...]\n"
          "Runs lab %s's tests (all, or those named). Sizes, seeds and thresholds come from\n"
          "the lab's manifest: run the tests with `make test LAB=%s`, which passes them.\n",
          prog, hx_suite_lab, hx_suite_lab);
}

/** Takes the grader's channel out of the environment, moving the descriptor out of reach
 *  of low numbers a student's code might write to by accident. */
static hx_channel take_channel(void) {
  hx_channel ch = {-1, ""};
  const char *fd = getenv("SCANLAB_RESULT_FD");
  const char *nonce = getenv("SCANLAB_NONCE");
  if (fd && nonce) {
    int n = atoi(fd);
    int moved = fcntl(n, F_DUPFD_CLOEXEC, 100);
    if (moved >= 0) {
      close(n);
      ch.fd = moved;
      snprintf(ch.nonce, sizeof ch.nonce, "%s", nonce);
    }
  }
  unsetenv("SCANLAB_RESULT_FD");
  unsetenv("SCANLAB_NONCE");
  return ch;
}

int main(int argc, char **argv) {
  hx_channel ch = take_channel();
  hx_internal_set_channel(ch);

  int list = 0, nsel = 0;
  const char **sel = (const char **)calloc((size_t)argc, sizeof *sel);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--list") == 0) {
      list = 1;
    } else if (strcmp(argv[i], "--param") == 0 && i + 1 < argc) {
      char *kv = argv[++i];
      char *eq = strchr(kv, '=');
      if (!eq) { usage(argv[0]); return 2; }
      *eq = '\0';
      hx_internal_add_param(kv, eq + 1);
    } else if (strcmp(argv[i], "--help") == 0 || argv[i][0] == '-') {
      usage(argv[0]);
      return argv[i][1] == '-' && strcmp(argv[i], "--help") == 0 ? 0 : 2;
    } else {
      sel[nsel++] = argv[i];
    }
  }

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
    if (ch.fd < 0) { printf("%s ...\n", t->name); fflush(stdout); }
    hx_internal_begin_test();
    hx_internal_send("start", t->name, NULL, NAN);
    CU_run_test(suite, CU_get_test(suite, t->name));
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
    if (ch.fd < 0) {
      printf("%s: %s%s%s\n", t->name,
             status[0] == 'p' ? "OK" : status[0] == 'f' ? "FAIL" : "SKIP",
             status[0] == 's' ? " " : "", status[0] == 's' ? reason : "");
      fflush(stdout);
    }
  }
  CU_cleanup_registry();
  free(sel);
  if (ch.fd < 0) printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
