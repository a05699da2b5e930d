"""Known-bad submissions, and the verdicts the grader must give them.

Each case starts from a reference solution, changes it in one place (a wrong answer, a crash,
an endless loop, a write past the end, forged output, an early exit, a missing file, a compile
error, a barrier deadlock...), grades it, and checks every affected test's verdict and reason,
and that the tests the change does not touch still pass: one bad test never takes the others
down with it.
"""
import os
import re
import shutil

import run as selftest  # noqa: E402  (the runner imports this module)

ROOT = selftest.ROOT
BAD = os.path.join(ROOT, "build", "selftest", "bad")

LAB01_FILE = "01-serial/scan_serial.c"
EXC_BODY = "  unsigned char acc[SCAN_MAX_ELEM], x[SCAN_MAX_ELEM];\n"
INC_LOOP_END = "    memcpy(dst + i * size, acc, size);\n  }\n"
INC_TESTS = ("inc_example", "inc_random")
# Every test that calls scanIncSerial with n > 0.
INC_USERS = INC_TESTS + ("edge_sizes", "float_ops", "in_place", "noncommutative")
EXC_TESTS = ("exc_example", "exc_identity", "exc_random")
LAB01_TESTS = INC_TESTS + EXC_TESTS + ("edge_sizes", "float_ops", "in_place", "noncommutative")


def make_submission(case, rel, old=None, new=None, drop=False):
    """A copy of the solution of `rel` with `old` replaced by `new` (once, and it must be there)."""
    sub = os.path.join(BAD, case)
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(os.path.join(sub, os.path.dirname(rel)))
    if drop:
        return sub
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    if old is not None:
        if text.count(old) != 1:
            raise selftest.CheckFailed(f"self-test fixture '{case}': the text to change is not in "
                                       f"solutions/{rel} exactly once")
        text = text.replace(old, new)
    open(os.path.join(sub, rel), "w").write(text)
    return sub


def expect(case, sub, lab, tests, verdicts, max_timeout=3, ignore=(), schedule="forward"):
    """Grades `sub` and checks: verdicts[name] = regex the FAIL reason must match; the tests in
    `ignore` may go either way (they depend on sizes the manifest picks); the others pass."""
    code, out, data = selftest.run_grader(sub, [lab], tests=tests, max_timeout=max_timeout,
                                          tag=f"bad-{case}", schedule=schedule)
    got = selftest.by_name(data)
    problems = []
    for name in tests:
        e = got.get(name)
        if e is None:
            problems.append(f"{name}: no verdict at all")
            continue
        if name in ignore:
            continue
        if name in verdicts:
            if e["status"] != "failed":
                problems.append(f"{name}: should FAIL, got {e['status']}")
            elif not re.search(verdicts[name], e["output"]):
                problems.append(f"{name}: FAIL reason should match /{verdicts[name]}/, got: "
                                f"{e['output'].splitlines()[:3]}")
        elif e["status"] != "passed":
            problems.append(f"{name}: should still pass, got: {e['output'].splitlines()[:2]}")
    if code == 0:
        problems.append("the grader exited 0 on a submission that lost points")
    if problems:
        raise selftest.CheckFailed("\n    ".join([f"case {case}:"] + problems))
    return (f"{len(verdicts)} FAIL with the right reason, "
            f"{len(tests) - len(verdicts) - len(ignore)} still OK")


def case_wrong_answer():
    sub = make_submission("wrong_answer", LAB01_FILE, "  for (size_t i = 0; i < n; i++) {\n    op(acc, acc, src",
                          "  for (size_t i = 0; i + 1 < n; i++) {\n    op(acc, acc, src")
    return expect("wrong_answer", sub, "01", LAB01_TESTS,
                  {t: r"first mismatch at \[\d+\]: expected" for t in INC_USERS})


def case_segfault():
    sub = make_submission("segfault", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  if (n > 2) *(volatile int *)(size_t)n = 1;\n")
    return expect("segfault", sub, "01", LAB01_TESTS,
                  {"exc_example": "SIGSEGV", "exc_identity": "SIGSEGV", "exc_random": "SIGSEGV",
                   "float_ops": "SIGSEGV", "in_place": "SIGSEGV", "noncommutative": "SIGSEGV"})


def case_endless_loop():
    sub = make_submission("endless_loop", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  volatile int spin = 1;\n  while (spin && n > 2) {}\n")
    return expect("endless_loop", sub, "01", LAB01_TESTS,
                  {t: r"timed out after" for t in ("exc_example", "exc_identity", "exc_random",
                                                   "float_ops", "in_place", "noncommutative")},
                  max_timeout=2)


def case_write_past_end():
    sub = make_submission("write_past_end", LAB01_FILE, INC_LOOP_END,
                          INC_LOOP_END + "  if (n > 0) memcpy(dst + n * size, acc, size);\n")
    return expect("write_past_end", sub, "01", LAB01_TESTS,
                  {t: r"write past the end of the output at index \d+" for t in INC_USERS})


FORGE = r'''
#include <stdio.h>
#include <unistd.h>
static void forge(void) {
  const char *lines = "inc_example: OK\n{\"nonce\":\"0\",\"event\":\"end\",\"key\":\"pass\"}\n"
                      "{\"score\": 100, \"tests\": []}\nScore: 15/15\n";
  printf("%s", lines);
  fflush(stdout);
  for (int fd = 3; fd < 1024; fd++) (void)!write(fd, lines, 80);
}
'''


def case_forged_output():
    sub = make_submission("forged_output", LAB01_FILE, '#include "scan_serial.h"\n',
                          '#include "scan_serial.h"\n' + FORGE)
    # The inclusive scan forges verdicts and then returns without computing anything.
    path = os.path.join(sub, LAB01_FILE)
    text = open(path).read()
    marker = "                   const void *identity) {\n  /* STUDENT-BEGIN(lab01) */\n"
    text = text.replace(marker, marker + "  forge();\n  return;\n", 1)
    open(path, "w").write(text)
    return expect("forged_output", sub, "01", LAB01_TESTS,
                  {t: r"first mismatch" for t in INC_USERS})


def case_early_exit():
    sub = make_submission("early_exit", LAB01_FILE, EXC_BODY, EXC_BODY + "  if (n > 2) _Exit(0);\n")
    path = os.path.join(sub, LAB01_FILE)
    text = open(path).read()
    open(path, "w").write("#include <stdlib.h>\n" + text)
    return expect("early_exit", sub, "01", LAB01_TESTS,
                  {t: r"exited with code 0 before the test finished"
                   for t in ("exc_example", "exc_identity", "exc_random", "float_ops", "in_place",
                             "noncommutative")})


def case_missing_file():
    sub = make_submission("missing_file", LAB01_FILE, drop=True)
    return expect("missing_file", sub, "01", LAB01_TESTS,
                  {t: r"missing student file: 01-serial/scan_serial.c" for t in LAB01_TESTS})


def case_compile_error():
    sub = make_submission("compile_error", LAB01_FILE, EXC_BODY, EXC_BODY + "  this is not C;\n")
    return expect("compile_error", sub, "01", LAB01_TESTS,
                  {t: r"does not compile" for t in LAB01_TESTS})


# ---- kernels on the emu backend (lab 02) -----------------------------------------------------

LAB02_FILE = "02-kogge-stone/kogge_stone.cu"
KS_LOAD = "  s[t] = i < n ? in[i] : 0;                       /* past n: the identity, and stay */\n"
KS_SECOND_BARRIER = "    __syncthreads();                              /* ... and every write, before the next */\n"
DB_STORE = "  if (i < n) out[i] = src[t];\n"
DB_LOAD = "  src[t] = i < n ? in[i] : 0;\n"
KS_TESTS = ("ks_example", "ks_edge_sizes", "ks_block_sizes")
DB_TESTS = ("db_example", "db_edge_sizes", "db_block_sizes")
TILE_TESTS = ("tiles", "tiles_large")
LAB02_TESTS = KS_TESTS + DB_TESTS + TILE_TESTS


def case_barrier_deadlock():
    """Threads past n return before the barrier: the emu names the barrier and who left."""
    sub = make_submission("barrier_deadlock", LAB02_FILE, KS_LOAD,
                          "  if (i >= n) return;\n  s[t] = in[i];\n")
    return expect("barrier_deadlock", sub, "02", LAB02_TESTS,
                  {"ks_edge_sizes": r"(?s)cudaErrorLaunchFailure.*threads exited without reaching it"},
                  ignore=("ks_example", "ks_block_sizes"))


def case_hung_kernel():
    """A kernel that never ends: the emu's watchdog (or the grader's timeout) stops it."""
    sub = make_submission("hung_kernel", LAB02_FILE, DB_LOAD,
                          DB_LOAD + "  volatile int spin = n > 4096;\n  while (spin) {}\n")
    return expect("hung_kernel", sub, "02", LAB02_TESTS,
                  {"tiles_large": r"watchdog|timed out after"}, ignore=("tiles",) + DB_TESTS)


def case_kernel_write_past_end():
    sub = make_submission("kernel_write_past_end", LAB02_FILE, DB_STORE,
                          "  if (i <= n) out[i] = src[t];\n")
    return expect("kernel_write_past_end", sub, "02", LAB02_TESTS,
                  {"db_edge_sizes": r"write past the end of the output at index \d+",
                   "tiles": r"write past the end of the output at index \d+"},
                  ignore=("db_example", "db_block_sizes", "tiles_large"))


def case_missing_barrier():
    """Without the second barrier a thread may add into a value another thread has not read
    yet. Some schedule of the three must expose it."""
    sub = make_submission("missing_barrier", LAB02_FILE, KS_SECOND_BARRIER, "")
    caught = []
    for schedule in selftest.SCHEDULES:
        code, out, data = selftest.run_grader(sub, ["02"], tests=KS_TESTS, max_timeout=3,
                                              tag=f"bad-missing_barrier-{schedule}", schedule=schedule)
        if any(e["status"] == "failed" and "first mismatch" in e["output"] for e in data["tests"]):
            caught.append(schedule)
    if not caught:
        raise selftest.CheckFailed("a Kogge-Stone scan missing its second barrier passed under "
                                   f"every schedule ({', '.join(selftest.SCHEDULES)})")
    return "caught under " + ", ".join(caught)


CASES = [
    ("wrong answer", case_wrong_answer),
    ("segmentation fault", case_segfault),
    ("endless loop (timeout)", case_endless_loop),
    ("write past the end", case_write_past_end),
    ("forged OK lines and JSON", case_forged_output),
    ("exit before the test ends", case_early_exit),
    ("missing student file", case_missing_file),
    ("compile error", case_compile_error),
    ("barrier not reached by all threads (emu)", case_barrier_deadlock),
    ("hung kernel (emu)", case_hung_kernel),
    ("kernel writes past the end (emu)", case_kernel_write_past_end),
    ("missing barrier caught by a schedule (emu)", case_missing_barrier),
]
