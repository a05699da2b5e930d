"""Known-bad submissions, and the verdicts the grader must give them.

Each case starts from a reference solution (or a skeleton), changes it the way a careless or a
determined student would, grades it, and checks every affected test's verdict and reason,
and that the tests the change does not touch still pass: one bad test never takes the others
down with it, and nothing a submission does changes another's grade.

The classes (grader/README.md lists what each protection does):
  wrong answers and crashes; forged verdicts from inside the student's code; results forged,
  lost or corrupted; the wrong student graded; code that is not the student's; work not done
  on the device; unbounded builds, output and uploads; lenient checks; timing games.

Why one file (past 800 lines): the known-bad submissions, one function each and a list the
runner reads; a file per subject would scatter the list.
"""
import glob
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import common as selftest  # noqa: E402  (grader/selftest/common.py)

ROOT = selftest.ROOT
BAD = os.path.join(ROOT, "build", "selftest", "bad")
CheckFailed = selftest.CheckFailed

LAB01_FILE = "01-serial/scan_serial.c"
INC_BODY = "  unsigned char acc[SCAN_MAX_ELEM];\n  memcpy(acc, identity, size);\n"
EXC_BODY = "  unsigned char acc[SCAN_MAX_ELEM], x[SCAN_MAX_ELEM];\n"
INC_LOOP_END = "    memcpy(dst + i * size, acc, size);\n  }\n"
INC_TESTS = ("inc_example", "inc_random")
# Every test that calls scanIncSerial with n > 0.
INC_USERS = INC_TESTS + ("edge_sizes", "float_ops", "in_place", "noncommutative")
EXC_USERS = ("exc_example", "exc_identity", "exc_random", "float_ops", "in_place", "noncommutative")
LAB01_TESTS = INC_TESTS + ("exc_example", "exc_identity", "exc_random", "edge_sizes", "float_ops",
                           "in_place", "noncommutative")


# ---- building submissions ------------------------------------------------------------------

def inside_regions(text, start, end):
    """True when text[start:end] lies inside one student region."""
    begin = text.rfind("STUDENT-BEGIN", 0, start)
    close = text.rfind("STUDENT-END", 0, start)
    nxt = text.find("STUDENT-END", start)
    return begin > close and nxt >= end


def make_submission(case, rel, old=None, new=None, drop=False, base="solutions", edits=None,
                    outside_ok=False):
    """A copy of `base`/`rel` with `old` replaced by `new` (once; it must be there, inside a
    student region unless `outside_ok`). `edits` is a list of more (old, new) pairs."""
    sub = os.path.join(BAD, case)
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(os.path.join(sub, os.path.dirname(rel)))
    if drop:
        return sub
    text = open(os.path.join(ROOT, base, rel)).read()
    for o, n in ([(old, new)] if old is not None else []) + list(edits or []):
        at = text.find(o)
        if at < 0 or text.count(o) != 1:
            raise CheckFailed(f"self-test fixture '{case}': the text to change is not in {base}/{rel} "
                              "exactly once")
        if not outside_ok and not inside_regions(text, at, at + len(o)):
            raise CheckFailed(f"self-test fixture '{case}': the change is not inside a student region")
        text = text[:at] + n + text[at + len(o):]
    open(os.path.join(sub, rel), "w").write(text)
    return sub


def grade(case, sub, labs, tests=(), **kw):
    return selftest.run_grader(sub, labs, tests=tests, tag=f"bad-{case}", **kw)


# The host thread counts the known-bad submissions of the emu's verdicts (serial block scans,
# polling with plain loads, uncoalesced loads, a second read of the input, a re-read of shared
# memory, a chain with no fence) are graded with again, beside the machine's own: each gets the
# same results.json every way (case_verdicts_machine_free does so for the look-backs, through
# grade-class itself). The machine's own grade is what grade-class gives with JOBS=1; the
# count "1" is graded with what it gives with JOBS=4 on 2 cores (grade_class.student_env: one
# host thread, one test at a time); "8" with 8 host threads.
MACHINE_FREE_WORKERS = ("1", "8")
GRADE_CLASS_JOBS = {"1": 4}  # a count graded as grade-class grades with these JOBS on 2 cores


def workers_env(workers):
    """The environment a known-bad submission is graded again with for a host thread count."""
    if workers in GRADE_CLASS_JOBS:
        sys.path.insert(0, os.path.join(ROOT, "grader", "course"))
        import grade_class  # noqa: E402  (grader/course/grade_class.py)
        env = grade_class.student_env(GRADE_CLASS_JOBS[workers], 2)
        if env.get("SCANLAB_EMU_WORKERS") != workers:
            raise CheckFailed(f"self-test fixture: grade-class with JOBS={GRADE_CLASS_JOBS[workers]} on 2 cores "
                              f"no longer gives {workers} host thread(s): {env}")
        return env
    return {"SCANLAB_EMU_WORKERS": workers}


def expect(case, sub, lab, tests, verdicts, max_timeout=4, ignore=(), schedule=None, extra=(),
           output=None, backend="emu", env=None, workers=()):
    """Grades `sub` and checks: verdicts[name] = regex the FAIL reason must match; the tests in
    `ignore` may go either way; the others pass; `output` is a regex the grader's output must
    match. On the emu each test runs on its sizes up to 2^21 (selftest.small_manifests: the
    larger sizes of a list meet no case the smaller miss, and were most of these cases' time; a
    test's own `n`, such as a 2^31 one, is kept), in the manifests `env` names (`allowing`'s) or
    the kit's. `workers`:
    host thread counts (SCANLAB_EMU_WORKERS) the failing tests are graded with again, beside the
    machine's own (its cores), each time with the same entries in results.json, times aside."""
    if backend == "emu":
        env = dict(env or {}, **selftest.small_manifests(selftest.REVERSE_MAX_SIZE,
                                                          (env or {}).get("SCANLAB_MANIFESTS")))
    if workers:  # graded first with the machine's own count, then with each of `workers`
        env = dict(env or {}, SCANLAB_EMU_WORKERS=selftest.MACHINE_WORKERS)
    code, out, data = grade(case, sub, [lab], tests=tests, max_timeout=max_timeout, schedule=schedule,
                            extra=extra, backend=backend, env=env)
    got = selftest.by_name(data)
    problems = []
    again = tuple(t for t in tests if t in verdicts)
    for w in workers if again else ():
        _, _, other = grade(f"{case}-workers{w}", sub, [lab], tests=again, max_timeout=max_timeout,
                            schedule=schedule, extra=extra, backend=backend, env=dict(env or {}, **workers_env(w)))
        mine = comparable({"tests": [e for e in data.get("tests", [])
                                     if (m := re.match(rf"lab{lab} (\w+):", e["name"])) and m.group(1) in again]})
        theirs = comparable({"tests": other.get("tests", [])})
        if first_difference(mine, theirs):
            problems.append(f"with {w} host threads, not the machine's {os.cpu_count()}: "
                            f"{first_difference(mine, theirs)}")
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
    if code == 0 and verdicts:
        problems.append("the grader exited 0 on a submission that lost points")
    if selftest.max_problem(data, [lab], backend, tests):
        problems.append(selftest.max_problem(data, [lab], backend, tests))
    if output and not re.search(output, out):
        problems.append(f"the grader's output should match /{output}/; it ends:\n" + out[-800:])
    if problems:
        raise CheckFailed("\n    ".join([f"case {case}:"] + problems))
    return (f"{len(verdicts)} FAIL with the right reason, "
            f"{len(tests) - len(verdicts) - len(ignore)} still OK" +
            (f" (the same with {' and '.join(workers)} host threads, and as grade-class grades with JOBS=1 and 4)"
             if workers and again else ""))


def all_fail(case, sub, lab, tests, reason, **kw):
    return expect(case, sub, lab, tests, {t: reason for t in tests}, **kw)


def allowing(lab, *names):
    """The environment of a grade whose lab `lab` also allows `names` (an instructor's wider
    `allow` list, with those names out of its `forbid` list): the runtime protections a case tries must hold where the build lets a call
    through."""
    import grade as g  # noqa: E402
    # a folder of its own each time: two cases that allow the same names run side by side (one
    # removing the folder the other was copying into stopped both)
    top = os.path.join(ROOT, "build", "selftest")
    os.makedirs(top, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="manifests-allowing-" + "-".join([lab] + list(names)) + "-", dir=top)
    os.rmdir(folder)
    shutil.copytree(g.MANIFESTS, folder)
    path = os.path.join(folder, f"lab{lab}.toml")
    text = open(path).read()
    at = text.index("allow = [") + len("allow = [")
    text = text[:at] + "".join(f'"{n}", ' for n in names) + text[at:]
    for n in names:  # an exact name in the forbid list goes too
        text = text.replace(f'"{n}", ', "", 1) if text.find(f'"{n}", ') < text.index("allow = [") else text
    open(path, "w").write(text)
    return {"SCANLAB_MANIFESTS": folder}


# ---- wrong answers and crashes -----------------------------------------------------------------

def case_wrong_answer():
    sub = make_submission("wrong_answer", LAB01_FILE, "  for (size_t i = 0; i < n; i++) {\n    op(acc, acc, src",
                          "  for (size_t i = 0; i + 1 < n; i++) {\n    op(acc, acc, src")
    return expect("wrong_answer", sub, "01", LAB01_TESTS,
                  {t: r"first mismatch at \[\d+\]: expected" for t in INC_USERS})


def case_segfault():
    sub = make_submission("segfault", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  if (n > 2) *(volatile int *)(size_t)n = 1;\n")
    return expect("segfault", sub, "01", LAB01_TESTS,
                  {t: r"scanExcSerial\(.*crashed with signal 11 \(SIGSEGV\)" for t in EXC_USERS})


def case_endless_loop():
    sub = make_submission("endless_loop", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  volatile int spin = 1;\n  while (spin && n > 2) {}\n")
    return expect("endless_loop", sub, "01", LAB01_TESTS,
                  {t: r"scanExcSerial\(.*did not return within" for t in EXC_USERS}, max_timeout=2)


def case_quadratic_scan():
    """Lab 01: an inclusive scan that sums each prefix again from the start (n^2/2 steps). The
    small tests pass; the large one is stopped at its time limit, and the message calls it too
    slow, in a lab of host code, not a hung kernel or a barrier."""
    old = ("  for (size_t i = 0; i < n; i++) {\n"
           "    op(acc, acc, src + i * size);   /* running total on the left: order matters */\n")
    sub = make_submission("quadratic_scan", LAB01_FILE, old,
                          "  for (size_t i = 0; i < n; i++) {\n"
                          "    memcpy(acc, identity, size);  /* each prefix summed again from the start */\n"
                          "    for (size_t j = 0; j <= i; j++) op(acc, acc, src + j * size);\n")
    return expect("quadratic_scan", sub, "01", ("inc_example", "inc_random"),
                  {"inc_random": r"scanIncSerial\(.*did not return within the test's time limit: too slow, work that "
                                 r"grows faster than the input \(a loop over the elements inside another: n = 2\^20 "
                                 r"takes 2\^40 steps\), or an endless loop$"}, max_timeout=2)


def case_lab01_noncommutative():
    """Lab 01: the two faults that fail noncommutative alone, each named by its note: the inclusive
    scan with the operator's operands swapped, and one whose offsets count 4-byte elements
    (sizeof(int) where every offset is i * size: the affine maps are the tests' only 8-byte one)."""
    old = "    op(acc, acc, src + i * size);   /* running total on the left: order matters */\n"
    swapped = make_submission("lab01_swapped", LAB01_FILE, old,
                              "    op(acc, src + i * size, acc);   /* the operands the other way round */\n")
    expect("lab01_swapped", swapped, "01", ("noncommutative", "inc_random", "float_ops"),
           {"noncommutative": r"these are the answers of the scan with the operator's operands swapped"})
    stride = make_submission("lab01_int_stride", LAB01_FILE, old + "    memcpy(dst + i * size, acc, size);\n",
                             "    op(acc, acc, src + i * sizeof(int));\n"
                             "    memcpy(dst + i * sizeof(int), acc, size);\n")
    return expect("lab01_int_stride", stride, "01", ("noncommutative", "inc_random", "float_ops"),
                  {"noncommutative": r"not the answers of a scan with the operands swapped: with the tests' only "
                                     r"8-byte element, look for an element size taken as 4 bytes"})


def case_write_past_end():
    sub = make_submission("write_past_end", LAB01_FILE, INC_LOOP_END,
                          INC_LOOP_END + "  if (n > 0) memcpy(dst + n * size, acc, size);\n")
    return expect("write_past_end", sub, "01", LAB01_TESTS, {t: PAST_END for t in INC_USERS})


PAST_END = r"write past the end of the (output|array \(in place\)) at index \d+"


def case_far_write():
    """1088 words past the end: beyond the old guard band, inside the new one."""
    sub = make_submission("far_write", LAB01_FILE, INC_LOOP_END,
                          INC_LOOP_END + "  if (n > 0) memcpy(dst + (n + 1088) * size, acc, size);\n")
    return expect("far_write", sub, "01", LAB01_TESTS, {t: PAST_END for t in INC_USERS})


def case_kernel_past_guard():
    """A kernel that writes 5 words past the test's guard band after its output. On the emu the
    test's buffer is the device memory itself (scanlab_emu_adopt): the write lands in the rest of
    the buffer's last page, which the emu fills and checks when the launch ends, or, where the
    buffer ends on a page (n = 1024, with pages of 4 KiB), in its fence, where it faults."""
    rel = "02-kogge-stone/kogge_stone.cu"
    line = "  if (i < n) out[i] = s[t];\n"
    sub = make_submission("kernel_past_guard", rel, line,
                          line + "  if (i == 0) out[n + 16384 + 5] = 0;             /* past the guard band */\n")
    past = (r"wrote past the end of a device allocation of \d+ bytes \(first damaged byte at byte offset 20 past"
            r"|write past the end of a device allocation of \d+ bytes \(at byte offset 20 past")  # slack, fence
    return expect("kernel_past_guard", sub, "02", ("ks_example", "ks_edge_sizes", "db_example", "emu_parallel"),
                  {"ks_example": past, "ks_edge_sizes": past, "emu_parallel": past})


def case_input_modified():
    sub = make_submission("input_modified", LAB01_FILE, INC_LOOP_END,
                          INC_LOOP_END + "  if (n > 1 && in != out) ((unsigned char *)in)[size] ^= 1;\n")
    return expect("input_modified", sub, "01", LAB01_TESTS,
                  {t: r"the input was modified \(it is const\)" for t in
                   ("inc_example", "inc_random", "float_ops", "noncommutative")},
                  ignore=("edge_sizes",))


def case_early_exit():
    sub = make_submission("early_exit", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  void _Exit(int);\n  if (n > 2) _Exit(0);\n")
    return expect("early_exit", sub, "01", LAB01_TESTS,
                  {t: r"scanExcSerial\(.*exited with code 0" for t in EXC_USERS})


def case_real_time_signal():
    """A signal without a name (40): the verdict names its number."""
    sub = make_submission("signal_40", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  int raise(int);\n  if (n > 2) raise(40);\n")
    return expect("signal_40", sub, "01", LAB01_TESTS,
                  {t: r"crashed with signal 40" for t in EXC_USERS})


def case_stop_self():
    """SIGSTOP on itself: the test, not the grader, stops waiting."""
    sub = make_submission("stop_self", LAB01_FILE, EXC_BODY,
                          EXC_BODY + "  int raise(int);\n  if (n > 2) raise(19);\n")
    return expect("stop_self", sub, "01", ("exc_example", "inc_example"),
                  {"exc_example": r"did not return within"}, max_timeout=2)


def case_missing_file():
    """No student file, and then the file as an LMS download renames it (`scan_serial (1).c`):
    missing both times, the second naming the file it found and the name it needs."""
    sub = make_submission("missing_file", LAB01_FILE, drop=True)
    what = all_fail("missing_file", sub, "01", LAB01_TESTS, r"missing student file 01-serial/scan_serial.c")
    renamed = make_submission("renamed_file", LAB01_FILE, drop=True)
    shutil.copy(os.path.join(ROOT, "solutions", LAB01_FILE),
                os.path.join(renamed, os.path.dirname(LAB01_FILE), "scan_serial (1).c"))
    return what + "; renamed by an LMS: " + all_fail(
        "renamed_file", renamed, "01", LAB01_TESTS,
        r"missing student file 01-serial/scan_serial.c in the submission \(found 01-serial/scan_serial "
        r"\(1\)\.c: rename it to scan_serial\.c\)")


def case_compile_error():
    sub = make_submission("compile_error", LAB01_FILE, EXC_BODY, EXC_BODY + "  this is not C;\n")
    return all_fail("compile_error", sub, "01", LAB01_TESTS, r"does not compile")


def _bounded_grade(case, sub, tests):
    """grade.py on lab 01 under a wrapper that prints its peak memory (the grader's and what it
    waited for, the sandboxed preprocessor included); returns (exit code, output, seconds, MiB)."""
    wrap = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            "print(f'peak {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024} MiB'); sys.exit(r.returncode)")
    t0 = time.monotonic()
    code, out = selftest.sh([sys.executable, "-c", wrap, sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"),
                             "--backend", "emu", "--lab", "01", "--submission", sub, "--rebuild",
                             "--results", os.path.join(ROOT, "build", "selftest", f"bad-{case}.json")]
                            + [x for t in tests for x in ("--test", t)], env={"NO_COLOR": "1"}, timeout=600)
    peak = re.search(r"^peak (\d+) MiB", out, re.M)
    return code, out, time.monotonic() - t0, int(peak.group(1)) if peak else None


def case_preprocessor_bombs():
    """Student regions that make the preprocessor's output or its reading huge: macros that
    expand to 2^24 tokens (grade.py read 48 MiB of them: 2.9 GiB and 225-262 s), and an
    #include of /dev/zero (the preprocessor read up to 16 GiB, three runs at once). Each is
    refused, naming the cause, within a minute; the peak of any one process (grade.py, or the
    sandboxed preprocessor, which gets CHECK_MEM_MB of address space) stays within that."""
    import grade as g  # noqa: E402
    macros = "".join(f"#define B{i + 1} B{i} B{i}\n" for i in range(24))
    limits = r"preprocessor ran past its limits|preprocessor's output .* reached \d+ MiB"
    cases = {"macro_bomb": ("#define B0 x,\n" + macros + "  static const int bomb[] = {B24 0};\n  (void)bomb;\n",
                            limits),
             "dev_zero": ('#include "/dev/zero"\n', limits)}
    problems, said = [], []
    for case, (text, want) in cases.items():
        sub = make_submission(case, LAB01_FILE, EXC_BODY, EXC_BODY + text)
        code, out, took, peak = _bounded_grade(case, sub, ("inc_example", "exc_example"))
        line = [ln.strip() for ln in out.splitlines() if re.search(want, ln)]
        if code == 0 or not line:
            problems.append(f"{case}: not refused with /{want}/ (exit {code}):\n{out[-700:]}")
        elif took > 60 or peak is None or peak > g.CHECK_MEM_MB:
            problems.append(f"{case}: {took:.0f} s, peak {peak} MiB")
        else:
            said.append(f"{case} refused in {took:.0f} s, peak {peak} MiB")
    if problems:
        raise CheckFailed("\n    ".join(problems))
    return "; ".join(said)


def case_damaged_markers():
    sub = make_submission("damaged_markers", LAB01_FILE, "  /* STUDENT-END(lab01) */\n}\n\nvoid scanExc",
                          "}\n\nvoid scanExc", outside_ok=True)
    return all_fail("damaged_markers", sub, "01", LAB01_TESTS, r"STUDENT-BEGIN")


# ---- forged verdicts from inside the student's code ---------------------------------------------

FORGE_LINES = ('inc_example: OK\\n{\\"event\\":\\"end\\",\\"key\\":\\"pass\\"}\\n'
               '{\\"score\\": 100, \\"tests\\": []}\\nScore: 15/15\\n')


def case_forged_output():
    """Prints passing lines and verdict events to every descriptor (the driver's control socket
    included), then returns without computing anything: write is not in lab 01's allow list;
    in a lab that allows it, the forgery changes nothing."""
    forge = ("  long write(int, const void *, unsigned long);\n"
             f"  for (int fd = 1; fd < 1024; fd++) (void)write(fd, \"{FORGE_LINES}\", 80);\n  return;\n")
    sub = make_submission("forged_output", LAB01_FILE, INC_BODY, forge + INC_BODY)
    refused = all_fail("forged_output_refused", sub, "01", ("inc_example",), r"(?s)does not build.*calls write")
    ran = expect("forged_output", sub, "01", LAB01_TESTS, {t: r"first mismatch|poison" for t in INC_USERS},
                 env=allowing("01", "write"))
    return f"refused by lab 01's allow list ({refused}); where write is allowed, {ran}"


SCRATCH = "/* Ints of scratch for the tile totals of one level"


def case_constructor_forgery():
    """Code that runs before main() and forges, in a lab 05 that allows write (it does not:
    case_forged_output). The constructor attribute is refused by the source check
    (confinement.py); a C++ dynamic initializer of a file-scope variable runs at the same time,
    and the run-time defences must hold against it."""
    rel = "05-global-scan/global_scan.cu"
    old = SCRATCH
    text = ("extern \"C\" long write(int, const void *, unsigned long);\n"
            "static int forge(void) {\n"
            f"  for (int fd = 1; fd < 1024; fd++) (void)!write(fd, \"{FORGE_LINES}\", 80);\n  return 0;\n}}\n"
            "static int forged_at_load = forge();\n" + SCRATCH)
    sub = make_submission("constructor", rel, old, text)
    # The forgery is a no-op; break the answer too, so honest grading must fail it.
    path = os.path.join(sub, rel)
    t = open(path).read().replace("  if (warp > 0) v += s_tmp[warp - 1];", "  if (warp > 1) v += s_tmp[warp - 1];")
    open(path, "w").write(t)
    # What it writes to the control socket, before the driver's first reply, is refused as
    # tampering (since replies carry their request's number); elsewhere it changes nothing.
    return expect("constructor", sub, "05", ("block_example", "anylength_inc"),
                  {"anylength_inc": r"first mismatch|tampering with the control channel"}, ignore=("block_example",),
                  env=allowing("05", "write"))


# A relay at file scope of a lab 05 file: a dynamic initializer, which runs as the driver loads.
# It puts a socket pair between the driver and the test on the control descriptor and, in every
# reply to a run, scales the emu's counters by 2/3 (the third hostile trial's relay: it also
# answered timed runs itself). Only the first argument of each call is a real prototype's.
RELAY = r"""
extern "C" int socketpair(int, int, int, int *);
extern "C" int dup(int);
extern "C" int dup2(int, int);
extern "C" int close(int);
extern "C" long recvmsg(int, void *, int);
extern "C" long sendmsg(int, const void *, int);
extern "C" int poll(void *, unsigned long, int);
extern "C" int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);
struct relay_iov { void *base; unsigned long len; };
struct relay_msg { void *name; unsigned namelen; relay_iov *iov; unsigned long iovlen; void *control;
                   unsigned long controllen; int flags; };
struct relay_pfd { int fd; short events, revents; };
static int relay_test = -1, relay_drv = -1;
static long relay_move(int from, int to, bool reply) {
  static unsigned char buf[8192], ctl[64];
  relay_iov v = {buf, sizeof buf};
  relay_msg m = {0, 0, &v, 1, ctl, sizeof ctl, 0};
  const long got = recvmsg(from, &m, 0);
  if (got <= 0) return got;
  unsigned int type, counted;
  memcpy(&type, buf + 4, 4);
  memcpy(&counted, buf + 40, 4);
  if (reply && type == 5 && counted <= 20)
    for (unsigned k = 0; k < counted; k++) {
      unsigned long long c;
      memcpy(&c, buf + 48 + 8 * k, 8);
      c = c * 2 / 3;
      memcpy(buf + 48 + 8 * k, &c, 8);
    }
  v.len = (unsigned long)got;
  relay_msg out = {0, 0, &v, 1, m.controllen ? ctl : 0, m.controllen, 0};
  return sendmsg(to, &out, 0);
}
static void *relay_main(void *) {
  for (;;) {
    relay_pfd p[2] = {{relay_test, 1, 0}, {relay_drv, 1, 0}};
    if (poll(p, 2, -1) < 0) continue;
    if (p[0].revents && relay_move(relay_test, relay_drv, false) <= 0) break;
    if (p[1].revents && relay_move(relay_drv, relay_test, true) <= 0) break;
  }
  return 0;
}
static int relay_start() {
  int s[2];
  if (socketpair(1, 5, 0, s) != 0) return 0; /* AF_UNIX, SOCK_SEQPACKET */
  relay_test = dup(3);
  if (relay_test < 0 || dup2(s[0], 3) < 0) return 0;
  close(s[0]);
  relay_drv = s[1];
  unsigned long t;
  return pthread_create(&t, 0, relay_main, 0) == 0;
}
static int relay_started = relay_start();
"""


def case_relay_at_load(backend="emu"):
    """Code before the fence (the third trial's first case): a lab 05 single pass that reads its
    input twice (12 bytes an element) with a relay started by a dynamic initializer at file
    scope, in a lab that allows the calls the relay makes (the trial reached them through
    libc's symbol table). The relay's thread sat between the driver and the test and cut the
    emu's counters to 8 bytes an element: emu_traffic passed. The driver now confines its main
    thread before any of the student's code runs, so the initializer's socket pair is refused
    and the extra pass is graded."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("relay_at_load", rel, READ_AGAIN_AT, read_again("      (void)*(const volatile int32_t *)p;\n"),
                          edits=[(SCRATCH, RELAY + SCRATCH)])
    env = allowing("05", "socketpair", "dup", "dup2", "close", "recvmsg", "sendmsg", "poll", "pthread_create")
    # a thread started at load, that does nothing: the driver refuses to start
    idle = make_submission("thread_at_load", rel, SCRATCH,
                           "extern \"C\" int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);\n"
                           "extern \"C\" unsigned sleep(unsigned);\n"
                           "static void *idle(void *) {\n  for (;;) sleep(1);\n}\n"
                           "static int idle_start() {\n  unsigned long t;\n  return pthread_create(&t, 0, idle, 0);\n}\n"
                           "static int idle_started = idle_start();\n" + SCRATCH)
    at_load = all_fail("thread_at_load", idle, "05", ("block_example",),
                       r"a thread the kit did not start \(thread \d+\) was running as the driver loaded",
                       env=allowing("05", "pthread_create", "sleep"), backend=backend)
    # an initializer whose CUDA call fails: its message is the first reply (it hung the test)
    dies = make_submission("initializer_dies", rel, SCRATCH,
                           "static int init_fails() {\n  CUDA_CHECK(cudaFree((void *)16));\n  return 0;\n}\n"
                           "static int init_failed = init_fails();\n" + SCRATCH)
    at_load += "; an initializer that fails: " + all_fail("initializer_dies", dies, "05", ("block_example",),
                                                           r"CUDA error cudaErrorInvalidValue .* in 'cudaFree\(\(void \*\)16\)'", backend=backend)
    if backend == "cuda":  # no counters there: the relay must not keep the driver from answering
        return "a thread at load: " + at_load + "; the relay: " + expect(
            "relay_at_load-cuda", sub, "05", ("lookback_inc", "lookback_exc"), {}, max_timeout=120, env=env,
            backend="cuda")
    return "a thread at load: " + at_load + "; the relay: " + expect(
        "relay_at_load", sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"),
        {"emu_traffic": r"scanIncLookback\(n=\d+\) moved 12\.\d\d bytes per element"}, max_timeout=60, env=env)


def case_thread_after_return():
    """Ending the clock early (the third trial's second case): lab 01's scan hands its work to a
    thread of its own, which holds stdout's lock (taken for it before it starts) while it scans (slowly: 40 extra calls of the
    operator an element) on copies of the input and the identity, and returns at once. The driver's next reply waited on that lock, so
    the outputs were right by the time the test looked, and the timed call measured only the
    thread's start: a scan at about 0.01 of memcpy graded several times memcpy. Now every call
    ends with the driver's look at its threads: one the kit did not start fails the test. (Calls
    of a million elements or fewer scan in place, so only the timed call is handed off.)"""
    late = ("  extern struct _IO_FILE *stdout;\n  void flockfile(struct _IO_FILE *);\n"
            "  void funlockfile(struct _IO_FILE *);\n  void *malloc(unsigned long);\n"
            "  int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);\n"
            "  struct job { const unsigned char *src; unsigned char *dst; size_t n, size; scan_op_fn op;\n"
            "               unsigned char identity[SCAN_MAX_ELEM]; };\n"
            "  void *late(void *arg) {\n    const struct job *j = (const struct job *)arg;\n"
            "    unsigned char a[SCAN_MAX_ELEM], waste[SCAN_MAX_ELEM];\n"
            "    memcpy(a, j->identity, j->size);\n    memcpy(waste, j->identity, j->size);\n"
            "    for (size_t i = 0; i < j->n; i++) {\n"
            "      for (int k = 0; k < 40; k++) j->op(waste, waste, j->src + i * j->size);\n"
            "      j->op(a, a, j->src + i * j->size);\n      memcpy(j->dst + i * j->size, a, j->size);\n    }\n"
            "    funlockfile(stdout);\n    return 0;\n  }\n"
            "  struct job *j = n > 1000000 ? (struct job *)malloc(sizeof *j) : 0;\n"
            "  unsigned char *copy = j ? (unsigned char *)malloc(n * size) : 0;\n"
            "  if (j && copy) {\n    memcpy(copy, in, n * size); /* the input is the test's only during the call */\n"
            "    j->src = copy;\n    j->dst = (unsigned char *)out;\n    j->n = n;\n"
            "    j->size = size;\n    j->op = op;\n    memcpy(j->identity, identity, size);\n    unsigned long thread;\n"
            "    flockfile(stdout); /* the thread lets go of it */\n"
            "    if (pthread_create(&thread, 0, late, j) == 0) return;\n    funlockfile(stdout);\n  }\n")
    sub = make_submission("thread_after_return", LAB01_FILE, INC_BODY, late + INC_BODY)
    env = allowing("01", "pthread_create", "flockfile", "funlockfile", "stdout", "malloc")
    return expect("thread_after_return", sub, "01", ("inc_example", "inc_random", "timing"),
                  {"timing": r"a thread the kit did not start"}, max_timeout=60, env=env)


def case_early_code_refused():
    """Code placed to run before the driver's fence (its constructor of priority 1): the
    attributes that ask for it are refused by the source check however they are spelt (`using
    gnu:` passed before), and the object check refuses what such code leaves in an object,
    whatever wrote it: a constructor of priority 0 or 1, or of a section name the linker sorts
    as text (`.init_array.a.0`), `.preinit_array` (before every library's constructors), `.init`
    and `.ctors`, an indirect function (its resolver runs as the program is relocated). A plain constructor, and one of priority 101, run after the fence
    and pass that check."""
    rel = "05-global-scan/global_scan.cu"
    spelt = make_submission("using_gnu_constructor", rel, SCRATCH,
                            "[[using gnu: constructor]] static void early() {}\n" + SCRATCH)
    refused = all_fail("using_gnu_constructor", spelt, "05", ("block_example",),
                       r"(?s)does not build.*constructor.*code that runs as the program loads")
    placed = make_submission("using_gnu_section", rel, SCRATCH,
                             "[[using gnu: section(\".text\")]] static const unsigned char code[4] = {0xc3};\n"
                             + SCRATCH)
    refused += "; " + all_fail("using_gnu_section", placed, "05", ("block_example",),
                               r"(?s)does not build.*section.*a section of its own")
    import codecheck  # noqa: E402  (grader/grading/codecheck.py)
    src = os.path.join(BAD, "early_code.c")
    os.makedirs(BAD, exist_ok=True)
    early = {"prio0": "__attribute__((constructor(0))) static void e(void) {}",
             "prio1": "__attribute__((constructor(1))) static void e(void) {}",
             "preinit": "static void e(void) {}\n__attribute__((section(\".preinit_array\"), used)) "
                        "static void (*p)(void) = e;",
             "init": "__attribute__((section(\".init\"), used)) static const char c[1] = {0};",
             "ctors": "static void e(void) {}\n__attribute__((section(\".ctors\"), used)) static void (*p)(void) = e;",
             "ifunc": "static void g(void) {}\nstatic void *r(void) { return (void *)g; }\n"
                      "void f(void) __attribute__((ifunc(\"r\")));",
             "unnumbered": "static void e(void) {}\n__attribute__((section(\".init_array.a.0\"), used)) "
                           "static void (*p)(void) = e;",
             "dashed": "static void e(void) {}\n__attribute__((section(\".init_array.00000-\"), used)) "
                       "static void (*p)(void) = e;"}
    late = {"plain": "__attribute__((constructor)) static void e(void) {}",
            "prio101": "__attribute__((constructor(101))) static void e(void) {}"}
    problems = []
    for name, code in list(early.items()) + list(late.items()):
        open(src, "w").write(code + "\n")
        obj = os.path.join(BAD, f"early_{name}.o")
        r = subprocess.run(["cc", "-w", "-c", src, "-o", obj], capture_output=True, text=True)
        if r.returncode != 0:
            raise CheckFailed(f"case early_code: {name} does not compile: {r.stderr[-300:]}")
        found = [x for x in codecheck.check_sections(obj, name) if "outside its fence" in x]
        if (name in early) != bool(found):
            problems.append(f"{name}: {'not refused' if name in early else 'refused: ' + found[0]}")
    if problems:
        raise CheckFailed("case early_code: the object check " + "; ".join(problems))
    return f"{refused}; the object check refuses {len(early)} kinds of early code and passes {len(late)}"


def case_builtin_types(backend="emu"):
    """Telling the emu from nvcc in C++ (the third trial's fifth case): a lab 05 look-back that
    does its work only where a built-in variable's type is not what nvcc declares (`const dim3
    gridDim`, `const uint3 threadIdx`, `const int warpSize`, never a reference), through
    `decltype` and a trait, with no preprocessor test. The emu declared gridDim a non-const
    uint3 and threadIdx a reference, so the solution ran there and nothing under nvcc; now the
    emu's declarations are nvcc's and the kernel returns on both: every look-back test fails
    with the outputs never written, as on a GPU."""
    rel = "05-global-scan/global_scan.cu"
    trait = ("template <class T> struct sl_is_const { static constexpr bool value = false; };\n"
             "template <class T> struct sl_is_const<const T> { static constexpr bool value = true; };\n")
    head = ("    scanLookbackKernel(const int32_t *in, int32_t *out, size_t n, gs_status *status,\n"
            "                       unsigned *counter, unsigned epoch, bool stream) {\n  /* STUDENT-BEGIN(lab05) */\n")
    out = []
    for name, test in (("griddim", "sl_is_const<decltype(gridDim)>::value"),
                       ("threadidx", "sl_is_const<decltype(threadIdx)>::value"),
                       ("warpsize", "sl_is_const<decltype(warpSize)>::value")):
        sub = make_submission(f"builtin_type_{name}", rel, SCRATCH, trait + SCRATCH,
                              edits=[(head, head + f"  if constexpr ({test}) return;\n")], outside_ok=True)
        out.append(name + ": " + expect(f"builtin_type_{name}", sub, "05", ("lookback_inc", "lookback_exc"),
                                        {t: r"first mismatch at \[0\].*never written" for t in
                                         ("lookback_inc", "lookback_exc")}, max_timeout=60, backend=backend))
    return "; ".join(out)


def case_host_scan_reopened(backend="emu"):
    """Host work the device does not see (the third trial's fourth case): lab 05's
    scan-then-propagate done by a host loop on device memory, in a lab that allows mprotect
    (the trial reached it through libc's symbol table). On the emu, mprotect opens the
    allocations to the host and no copy is counted: the propagate tests passed. Now every
    correct call of lab 05 on the emu must have had its output stored by a kernel (the
    probes' store sectors), and since the fourth trial the emu watches each call's buffers:
    the host's scan changes them after the device last did, and fails saying so at its first
    call (one element); the look-back, untouched, still passes. On a GPU (where device memory is not the host's to
    open) the same kind of scan goes through a copy; see case_host_scan."""
    rel = "05-global-scan/global_scan.cu"
    host = ("  const uintptr_t page = 4096, lo_in = (uintptr_t)in & ~(page - 1), lo_out = (uintptr_t)out & ~(page - 1);\n"
            "  if (mprotect((void *)lo_in, (uintptr_t)(in + n) - lo_in, 3) == 0 &&\n"
            "      mprotect((void *)lo_out, (uintptr_t)(out + n) - lo_out, 3) == 0) {\n"
            "    int32_t acc = 0;\n"
            "    for (size_t i = 0; i < n; i++) {\n      const int32_t x = in[i];\n"
            "      out[i] = EXCLUSIVE ? acc : acc + x;\n      acc += x;\n    }\n    return;\n  }\n")
    sub = make_submission("host_scan_reopened", rel, PROP_BODY, PROP_BODY + host,
                          edits=[(SCRATCH, "extern \"C\" int mprotect(void *, size_t, int);\n" + SCRATCH)])
    return expect("host_scan_reopened", sub, "05", ("propagate_inc", "propagate_exc", "lookback_inc"),
                  {t: r"changed after the device last wrote them" for t in ("propagate_inc", "propagate_exc")},
                  max_timeout=60, env=allowing("05", "mprotect"), backend=backend)


def driver_used(sub, lab, test):
    """The driver the last grade of `sub` ran `test` with, read from that test's log (its first
    line is the command, with --driver): not the newest driver on disk, which a case graded
    beside this one may have built."""
    logs = glob.glob(os.path.join(ROOT, "build", "grade", "emu", os.path.basename(sub) + "-*", "logs", f"lab{lab}",
                                  f"{test}.log"))
    if not logs:
        return None
    with open(max(logs, key=os.path.getmtime), errors="replace") as f:
        m = re.search(r"--driver (\S+)", f.readline())
    return m.group(1) if m else None


def probe_byte_distance(sub, lab, test, is_anchor):
    """Grades `sub` (`test` alone) and returns the distance from its anchor static (the symbol
    `is_anchor` accepts) to the byte that turns the emu's probes on, in the driver that grade
    built: what a submission that writes that byte must add to its anchor's address."""
    grade(f"{os.path.basename(sub)}-layout", sub, [lab], tests=(test,))
    driver = driver_used(sub, lab, test)
    syms = subprocess.run(["nm", driver], capture_output=True, text=True).stdout if driver else ""
    at = {m.group(2): int(m.group(1), 16) for m in re.finditer(r"^([0-9a-f]+) \w (\S+)$", syms, re.M)}
    anchor = next((v for k, v in at.items() if is_anchor(k)), None)
    flag = at.get("_ZN11scanlab_emu10g_probe_onE")
    if anchor is None or flag is None:
        raise CheckFailed(f"cannot find the anchor and g_probe_on in the first build's driver {driver}")
    return flag - anchor


def case_counters_cleared():
    """The emu's counters switched off from student code (the fourth trial): a static initializer,
    and each call, clears the byte that turns the probes on, found at a fixed distance from a
    static of the submission's own (no name the source check knows). The counters tests got no
    counters and reported a skip, which took their points out of the maximum: lab 05 scored
    32/32, "3 points skipped on this machine", and make exited 0. On the emu a counters test
    has nothing to skip: without counters it fails, saying they did not come back, and the
    maximum stays the backend's. The distance is read from a first build of the same code."""
    rel = "05-global-scan/global_scan.cu"
    tests = ("propagate_inc", "emu_traffic", "emu_parallel")

    def with_offset(offset):
        clear = ("static unsigned char g_anchor;\n"
                 "static int probesOff(void) {\n"
                 f"  volatile unsigned char *on = (volatile unsigned char *)&g_anchor + ({offset}L);\n"
                 "  if (*on == 1) *on = 0;\n  return 0;\n}\n"
                 "static const int g_probes_off = probesOff();\n")
        return make_submission("counters_cleared", rel, PROP_BODY, "  (void)probesOff();\n" + PROP_BODY,
                               edits=[(SCRATCH, clear + SCRATCH)])
    sub = with_offset(probe_byte_distance(with_offset(0), "05", "propagate_inc",
                                          lambda k: k == "g_anchor" or k.startswith("_ZL8g_anchor")))
    return expect("counters_cleared", sub, "05", tests,
                  {"emu_traffic": r"counters did not come back", "emu_parallel": r"counters did not come back"},
                  max_timeout=60)


def case_host_scan_laundered():
    """The host scan on reopened device memory again, the output first stored by a kernel (the
    fourth trial: lab 05 35/35, lab 02 15/15): a copy kernel fills the output from the input,
    so "stored by a kernel" holds, then host code reopens the pages and scans them in place.
    Now the driver has the emu watch each call's outputs: their bytes may change only by a
    launch or the runtime's copies and sets, and a hash of them as the device last left them
    tells the host's writes, whatever the pages' protection afterwards, and an empty launch
    after the scan does not pass them off as the device's (each launch, copy and set compares
    before it writes: the first watch hashed again after any launch, and took them)."""
    rel = "05-global-scan/global_scan.cu"
    copy = ("static __global__ void copyThroughKernel(const int32_t *in, int32_t *out, size_t n) {\n"
            "  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) out[i] = in[i];\n}\n"
            "static __global__ void emptyKernel() {}\n")
    host = ("  if (n) {\n"
            "    copyThroughKernel<<<(unsigned)((n + 255) / 256), 256>>>(in, out, n);\n"
            "    cudaDeviceSynchronize();\n"
            "    const uintptr_t page = 4096, lo = (uintptr_t)out & ~(page - 1);\n"
            "    if (mprotect((void *)lo, (uintptr_t)(out + n) - lo, 3) == 0) {\n"
            "      int32_t acc = 0;\n"
            "      for (size_t i = 0; i < n; i++) {\n        const int32_t x = out[i];\n"
            "        out[i] = EXCLUSIVE ? acc : acc + x;\n        acc += x;\n      }\n"
            "      mprotect((void *)lo, (uintptr_t)(out + n) - lo, 0);\n"
            "      emptyKernel<<<1, 1>>>();\n      cudaDeviceSynchronize();\n"
            "      return;\n    }\n  }\n")
    sub = make_submission("host_scan_laundered", rel, PROP_BODY, PROP_BODY.replace("  if (n == 0) return;\n", "") + "",
                          edits=[(SCRATCH, "extern \"C\" int mprotect(void *, size_t, int);\n" + copy + SCRATCH)])
    text = open(os.path.join(sub, rel)).read()
    at = text.index("static void propagate(const int32_t *in")
    begin = text.index("/* STUDENT-BEGIN(lab05) */\n", at) + len("/* STUDENT-BEGIN(lab05) */\n")
    with open(os.path.join(sub, rel), "w") as f:
        f.write(text[:begin] + host + "  if (n == 0) return;\n" + text[begin:])
    return expect("host_scan_laundered", sub, "05", ("propagate_inc", "propagate_exc", "lookback_inc"),
                  {t: r"outputs or __device__ variables changed after the device last wrote them, by other means than a kernel"
                   for t in ("propagate_inc", "propagate_exc")},
                  max_timeout=60, env=allowing("05", "mprotect"))


def case_probes_toggled_03():
    """The probes switched off around the real launch and on again for a decoy (the fourth
    trial's second round: 15/15): the padded scan launches its kernel with the byte that turns
    the probes on cleared (found at a fixed distance from a static of its own, read from a first
    build), then sets it again and launches the same kernel with no output, which loads, fills
    and sweeps the tile and stores nothing. The counters are the decoy's alone: conflict-free,
    the shared loads in bounds. emu_conflicts now asks the counted stores to cover the output."""
    rel = "03-blelloch/blelloch.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    stores = ("  if (base + t < n) out[base + t] = tile[conflictFreeIndex(t)];\n",
              "  if (base + t + half < n) out[base + t + half] = tile[conflictFreeIndex(t + half)];\n")
    launch = "  scanExcBlellochPaddedKernel<<<(unsigned)tiles, block, words * sizeof(int32_t)>>>(d_in, d_out, n);\n"
    if any(x not in text for x in stores + (launch,)):
        raise CheckFailed("lab 03's solution changed: update case_probes_toggled_03")

    def with_offset(offset):
        t = text.replace(stores[0], "  if (out && base + t < n) out[base + t] = tile[conflictFreeIndex(t)];\n", 1)
        t = t.replace(stores[1], "  if (out && base + t + half < n) out[base + t + half] = tile[conflictFreeIndex(t + half)];\n", 1)
        toggled = ("  static unsigned char anchor;\n"
                   f"  volatile unsigned char *on = (volatile unsigned char *)&anchor + ({offset}L);\n"
                   "  const bool probed = *on == 1;\n"
                   "  if (probed) *on = 0;\n" + launch +
                   "  const cudaError_t e = cudaGetLastError();\n"
                   "  if (probed) *on = 1;\n" +
                   launch.replace("(d_in, d_out, n)", "(d_in, nullptr, n)") +
                   "  if (e != cudaSuccess) return e;\n")
        t = t.replace(launch, toggled, 1)
        return write_submission("probes_toggled_03", rel, t)
    sub = with_offset(probe_byte_distance(with_offset(0), "03", "padded_example",
                                          lambda k: "anchor" in k and "Padded" in k))
    return expect("probes_toggled_03", sub, "03", ("padded_example", "emu_conflicts"),
                  {"emu_conflicts": r"counted stores, 0 bytes, do not cover the \d+ bytes of the output"},
                  max_timeout=60)


def case_internal_call():
    """Calls the harness's internals by name."""
    sub = make_submission("internal_call", LAB01_FILE, INC_BODY,
                          "  void hx_internal_send(const char *, const char *, const char *, double);\n"
                          "  hx_internal_send(\"end\", \"pass\", 0, 0);\n" + INC_BODY)
    return all_fail("internal_call", sub, "01", LAB01_TESTS,
                    r"(?s)does not build.*01-serial/scan_serial.c:\d+: hx_internal_send: not allowed")


def case_proc_read():
    """Reads the process's environment and the grader's memory through /proc."""
    sub = make_submission("proc_read", LAB01_FILE, INC_BODY,
                          "  void *fopen(const char *, const char *);\n"
                          "  (void)fopen(\"/proc/self/environ\", \"r\");\n" + INC_BODY)
    return all_fail("proc_read", sub, "01", LAB01_TESTS, r"(?s)does not build.*:\d+: fopen: not allowed")


def case_pasted_name():
    """A forbidden call spelt by token pasting: student macros may not paste (and the object's
    symbols would name the call however it was spelt)."""
    sub = make_submission("pasted_name", LAB01_FILE, INC_BODY,
                          "#define PASTE(a, b) a##b\n  int PASTE(sys, tem)(const char *);\n"
                          "  if (n == 12345) PASTE(sys, tem)(\"true\");\n" + INC_BODY)
    return all_fail("pasted_name", sub, "01", LAB01_TESTS,
                    r"(?s)does not build.*#define PASTE: # and ## \(stringizing and pasting\) are not allowed")


def case_local_named_as_forbidden():
    """A variable that shares its name with a forbidden call is no call: a lab 04 local named
    ref_y (the kit's reference functions are ref_*) and a local `bool open` (first met in lab 06;
    here in lab 02, whose file builds in a second, where lab 06's takes ten) compile and pass
    (the forbid list refused both, by name: 0 for correct code). Calling the forbidden function
    beside such a local, in the same region, is still refused: the source check reads the call
    (`(open)(`) and its declaration, and the build stops there, naming the line."""
    ok04 = make_submission("local_ref_y", "04-warp-scan/warp_scan.cu", edits=[
        ("  T before = shflUpAny(mask, inc, 1);  /* lane i gets lane i-1's inclusive value */\n"
         "  return threadIdx.x % WARP_SIZE == 0 ? identity : before;\n",
         "  T ref_y = shflUpAny(mask, inc, 1);  /* lane i gets lane i-1's inclusive value */\n"
         "  return threadIdx.x % WARP_SIZE == 0 ? identity : ref_y;\n")])
    what = "lab 04 ref_y: " + expect("local_ref_y", ok04, "04", ("inc_ops", "exc_ops", "exc_partial_warps"), {})
    load = "  s[t] = i < n ? in[i] : 0;                       /* past n: the identity, and stay */\n"
    ok02 = make_submission("local_open", "02-kogge-stone/kogge_stone.cu", edits=[
        (load, "  const bool open = i < n;                        /* an element of the input */\n"
               "  s[t] = open ? in[i] : 0;\n")])
    what += "; lab 02 bool open: " + expect("local_open", ok02, "02", ("ks_example", "ks_edge_sizes", "db_example"), {})
    launch = "  scanIncKoggeStoneDBKernel<<<1, blockSize, 2 * blockSize * sizeof(int)>>>(d_in, d_out, n);\n"
    called = make_submission("local_open_called", "02-kogge-stone/kogge_stone.cu", edits=[
        (launch, "  { int open = 0; (void)open; }\n" + launch +
                 "  if (n == 77u) { extern int open(const char *, int, ...); (void)(open)(\"x\", 0); }\n")])
    what += "; a call beside such a local: " + all_fail("local_open_called", called, "02", ("db_example",),
                                                         r"(?s)does not build.*\bopen\b.*not allowed")
    return what


def case_replace_library():
    """Defines a function the kit's driver calls (memcpy's neighbour): refused."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("replace_library", rel, SCRATCH,
                          "extern \"C\" int drv_dev_sync(char *, unsigned long) { return 0; }\n" + SCRATCH)
    return all_fail("replace_library", sub, "05", ("block_example",), r"does not build|not allowed|defines drv_dev_sync")


def case_replace_libc_ifunc():
    """Defines memset and __memcpy_chk, which glibc exports as indirect functions (nm's type i,
    left out of the reserved names before): the kit's own calls would have gone to them, and a
    weak definition the same way; and libgcc's __popcountdi2 (a static archive's helper)."""
    rel = "05-global-scan/global_scan.cu"
    strong = make_submission("replace_memset", rel, SCRATCH,
                             "extern \"C\" void *memset(void *d, int c, size_t n) {\n"
                             "  unsigned char *a = (unsigned char *)d;\n"
                             "  for (size_t i = 0; i < n; i++) a[i] = (unsigned char)c;\n  return d;\n}\n" + SCRATCH)
    weak = make_submission("replace_memcpy_chk", rel, SCRATCH,
                           "extern \"C\" __attribute__((weak)) void *__memcpy_chk(void *d, const void *s, size_t n,"
                           " size_t) {\n  return __builtin_memmove(d, s, n);\n}\n" + SCRATCH)
    libgcc = make_submission("replace_popcount", rel, SCRATCH,
                             "extern \"C\" int __popcountdi2(long long) { return 0; }\n" + SCRATCH)
    return "; ".join([
        all_fail("replace_memset", strong, "05", ("block_example",),
                 r"(?s)does not build.*defines memset, which the kit or a library already defines"),
        all_fail("replace_popcount", libgcc, "05", ("block_example",),
                 r"(?s)does not build.*defines __popcountdi2, which the kit or a library already defines"),
        all_fail("replace_memcpy_chk", weak, "05", ("block_example",),
                 r"(?s)does not build.*defines __memcpy_chk, which the kit or a library already defines")])


# ---- results forged, lost or corrupted --------------------------------------------------------

def case_autograder_killed():
    """The grader dies before it finishes: run_autograder removes stale results and writes an
    error result, never a forged or stale one."""
    os.makedirs(BAD, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gradescope-kill-", dir=BAD)
    try:
        src = selftest.autograder_layout(work, ["01"])
        os.makedirs(os.path.join(work, "submission"))
        shutil.copy(os.path.join(ROOT, "solutions", LAB01_FILE), os.path.join(work, "submission"))
        res = os.path.join(work, "results")
        os.makedirs(res)
        json.dump({"score": 100, "tests": []}, open(os.path.join(res, "results.json"), "w"))
        code, out = selftest.sh([os.path.join(src, "run_autograder")],
                                env={"AUTOGRADER_ROOT": work, "SCANLAB_AUTOGRADER_TIMEOUT": "1"})
        data = json.load(open(os.path.join(res, "results.json")))
        if data.get("score") != 0 or "did not finish" not in data.get("output", ""):
            raise CheckFailed(f"a grader killed at its time limit left results: {data}\n" + out[-800:])
        return "an error result, score 0"
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- the wrong student graded ------------------------------------------------------------------

def handin_of(tree, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    code, out = selftest.sh([sys.executable, "grader/course/kit.py", "handin", "--from", tree, "--out", dest,
                             "--name", os.path.basename(os.path.dirname(dest))])
    if code != 0:
        raise CheckFailed("handin failed:\n" + out)
    return dest


def case_hidden_tests():
    """Tests a course hides on Gradescope (lab 01's noncommutative hidden, in_place after the due
    date) and a submission that fails the hidden one: results.json's output (which students see)
    names neither test nor their reasons, and gives the visible tests' score; stdout, which names
    every test, is marked hidden; the test entries carry their visibility and the score is whole.
    (Both tests' names and the failure were in the output students saw, and on stdout.)"""
    import grade as g  # noqa: E402
    folder = os.path.join(ROOT, "build", "selftest", "manifests-hidden")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(g.MANIFESTS, folder)
    path = os.path.join(folder, "lab01.toml")
    text = open(path).read()
    for name, vis in (("noncommutative", "hidden"), ("in_place", "after_due_date")):
        head = f'name = "{name}"\n'
        if text.count(head) != 1:
            raise CheckFailed(f"self-test fixture: no test '{name}' in grader/manifests/lab01.toml")
        text = text.replace(head, head + f'visibility = "{vis}"\n')
    open(path, "w").write(text)
    sub = make_submission("hidden_tests", LAB01_FILE, "    op(acc, acc, src + i * size);",
                          "    op(acc, src + i * size, acc);")
    code, out, data = grade("hidden_tests", sub, ["01"], tests=LAB01_TESTS, env={"SCANLAB_MANIFESTS": folder})
    got = selftest.by_name(data)
    problems = []
    if got.get("noncommutative", {}).get("status") != "failed" or got.get("noncommutative", {}).get("visibility") != "hidden":
        problems.append(f"noncommutative should fail and be hidden: {got.get('noncommutative')}")
    if got.get("in_place", {}).get("visibility") != "after_due_date":
        problems.append(f"in_place should be after_due_date: {got.get('in_place')}")
    for word in ("noncommutative", "in_place", "non-commutative", "mismatch"):
        if word in data.get("output", ""):
            problems.append(f"results.json's output (students see it) names '{word}'")
    if data.get("stdout_visibility") != "hidden":
        problems.append(f"stdout_visibility is {data.get('stdout_visibility')}, not hidden")
    shown = sum(t["score"] for t in data["tests"] if t["visibility"] == "visible")
    shown_max = sum(t["max_score"] for t in data["tests"] if t["visibility"] == "visible")
    if f"score on its visible tests: {shown:g}/{shown_max:g}" not in data.get("output", ""):
        problems.append(f"the output does not give the visible tests' score {shown}/{shown_max}:\n"
                        + data.get("output", "")[-600:])
    if data.get("score") != sum(t["score"] for t in data["tests"]) or data.get("score") == data.get("max_score"):
        problems.append(f"score {data.get('score')}/{data.get('max_score')}: not the tests' sum, or full marks")
    if problems:
        raise CheckFailed("\n    ".join(problems))
    return (f"hidden test failed, out of the output students see; stdout hidden; visible score {shown:g}/{shown_max:g}, "
            f"whole score {data['score']}/{data['max_score']}")


def case_same_basename():
    """Two students hand in `handin.tar.gz`; the second (a skeleton) must not get the first's
    binary, and a resubmission in the same place is rebuilt."""
    root = os.path.join(BAD, "same_basename")
    shutil.rmtree(root, ignore_errors=True)
    alice = handin_of(os.path.join(ROOT, "solutions"), os.path.join(root, "alice", "handin.tar.gz"))
    bob = handin_of(os.path.join(ROOT, "skeletons"), os.path.join(root, "bob", "handin.tar.gz"))
    quick = selftest.quick_lab01_manifests()  # lab 01's CPU timing, at a size a busy machine passes
    _, _, a = grade("alice", alice, ["01"], env=quick)
    _, _, b = grade("bob", bob, ["01"], env=quick)
    if a["score"] != a["max_score"] or b["score"] != 0:
        raise CheckFailed(f"alice scored {a['score']}/{a['max_score']}, bob {b['score']}/{b['max_score']}")
    handin_of(os.path.join(ROOT, "solutions"), bob)  # bob resubmits, in the same place
    _, _, b2 = grade("bob2", bob, ["01"], env=quick)
    if b2["score"] != b2["max_score"]:
        raise CheckFailed(f"bob's resubmission scored {b2['score']}/{b2['max_score']}")
    return f"alice {a['score']}, bob {b['score']}, bob again {b2['score']}"


# ---- code that is not the student's -------------------------------------------------------------

def case_include_solution():
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("include_solution", rel, SCRATCH,
                          "#include \"../../solutions/05-global-scan/global_scan.cu\"\n"
                          f"#include <{ROOT}/solutions/05-global-scan/global_scan.cu>\n" + SCRATCH)
    return all_fail("include_solution", sub, "05", ("block_example",),
                    r"(?s)does not build.*#include: student code may not include files")


def case_symlink_to_solutions():
    sub = os.path.join(BAD, "symlink")
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(sub)
    os.symlink(os.path.join(ROOT, "solutions", "01-serial"), os.path.join(sub, "01-serial"))
    return all_fail("symlink", sub, "01", LAB01_TESTS, r"symbolic link")


def case_outside_regions():
    """The skeleton of lab 04 with its kit code (warpScanBatch) replaced: only the regions count."""
    rel = "04-warp-scan/warp_scan.cu"
    text = open(os.path.join(ROOT, "skeletons", rel)).read()
    at = text.index("/* ---- kit code: the batched launch")
    sub = make_submission("outside_regions", rel, text[at:at + 60], "/* replaced */ " + text[at:at + 60],
                          base="skeletons", outside_ok=True)
    return expect("outside_regions", sub, "04", ("inc_one_warp", "noncommutative"),
                  {"inc_one_warp": r"first mismatch|wrong lane|poison", "noncommutative": r"wrong lane|poison"},
                  output=r"code outside the STUDENT regions differs")


SMEM_FIRST = "  const unsigned lane = threadIdx.x % WARP_SIZE;\n  s[lane] = x;\n"


def case_redefine_kit_name():
    sub = make_submission("redefine_kit_name", "04-warp-scan/warp_scan.cu", SMEM_FIRST,
                          "#define warpScanBatch hijacked\n" + SMEM_FIRST)
    return all_fail("redefine_kit_name", sub, "04", ("inc_one_warp",), r"#define warpScanBatch: changes a name")


def case_kit_template_specialized():
    """A region that specializes a template of the kit's code outside the regions (the fourth
    trial): lab 05's file-scope region declared `template <> scanBlockAnyLengthKernel<false>`,
    and the kit's own launch of that kernel ran the student's serial loop instead, with no
    notice. The source check refuses it, naming the template."""
    spec = ("template <>\n__global__ void scanBlockAnyLengthKernel<false>(const int32_t *in, int32_t *out, "
            "size_t n) {\n  if (blockIdx.x != 0 || threadIdx.x != 0) return;\n  int32_t acc = 0;\n"
            "  for (size_t i = 0; i < n; i++) { acc += in[i]; out[i] = acc; }\n}\n")
    sub = make_submission("kit_template_specialized", "05-global-scan/global_scan.cu", SCRATCH, spec + SCRATCH)
    return all_fail("kit_template_specialized", sub, "05", ("anylength_inc", "block_example"),
                    r"explicit specialization of scanBlockAnyLengthKernel, a template of the kit's code")


def case_library_scan():
    sub = make_submission("library_scan", "04-warp-scan/warp_scan.cu", SMEM_FIRST,
                          "#include <cub/cub.cuh>\n" + SMEM_FIRST)
    return all_fail("library_scan", sub, "04", ("inc_one_warp",),
                    r"warp_scan.cu:\d+: #include: student code may not include files")


# ---- work not done on the device ----------------------------------------------------------------

PROP_BODY = "  if (n == 0) return;\n  size_t ints = 0, m = n;\n"
# Scan-then-propagate done on the host between two copies.
HOST_SCAN = ("  if (n == 0) return;\n  int32_t *h = (int32_t *)malloc(n * 4);\n"
             "  cudaMemcpy(h, in, n * 4, cudaMemcpyDeviceToHost);\n  int32_t acc = 0;\n"
             "  for (size_t i = 0; i < n; i++) { int32_t x = h[i]; if (!EXCLUSIVE) acc += x; h[i] = acc; "
             "if (EXCLUSIVE) acc += x; }\n  cudaMemcpy(out, h, n * 4, cudaMemcpyHostToDevice);\n  free(h);\n"
             "  return;\n")


def case_host_scan():
    """Copies to the host, scans there, copies back."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("host_scan", rel, PROP_BODY, HOST_SCAN + PROP_BODY)
    return all_fail("host_scan", sub, "05", ("propagate_inc", "block_example"),
                    r"(?s)does not build.*cudaMemcpy: not allowed")


def case_host_touches_device():
    """Host code reads the device input directly: possible on the emulator, not on a GPU."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("host_touches_device", rel, PROP_BODY,
                          "  volatile int32_t peek = n ? in[0] : 0;\n  (void)peek;\n" + PROP_BODY)
    return expect("host_touches_device", sub, "05", ("propagate_inc", "block_example"),
                  {"propagate_inc": r"host code read or wrote device memory|SIGSEGV"})


def case_kernel_calls_host():
    """A kernel that calls a host function: nvcc refuses it, so the emu build does too."""
    if not shutil.which("nvcc"):
        return "skipped: no nvcc here (the emu build cannot check kernels without the CUDA toolkit)"
    rel = "02-kogge-stone/kogge_stone.cu"
    old = "  extern __shared__ int s[];                      /* 2 * blockDim.x ints: two buffers */\n"
    sub = make_submission("kernel_calls_host", rel, old,
                          old + "  if (n == 123456789) { int rand(void); out[0] = rand(); }\n")
    return all_fail("kernel_calls_host", sub, "02", ("db_example", "tiles"), r"does not compile")


# ---- unbounded ------------------------------------------------------------------------------------

def case_build_timeout():
    """A file made to compile for hours: macros that double at every level."""
    macros = "".join(f"#define X{i + 1}(a) X{i}(a) X{i}(a)\n" for i in range(40))
    sub = make_submission("build_timeout", LAB01_FILE, INC_BODY,
                          "#define X0(a) a\n" + macros + "  int v = 0; X40(v += 1;)\n" + INC_BODY)
    return all_fail("build_timeout", sub, "01", ("inc_example",), r"did not compile within 8 s",
                    extra=("--build-timeout", "8"))


def case_object_past_file_limit():
    """A region with an initialized static array past the build's limit on a file (the fourth
    trial: 1 GiB against 512 MiB): the compiler stopped there, and the student read "errors in
    the kit's headers or the link". Now the message names the limit and the object's size as the
    student's doing. (32 MiB against a limit of 16 here: the same path, in a second.)"""
    sub = make_submission("object_past_file_limit", "02-kogge-stone/kogge_stone.cu", KS_DB_LOOP,
                          "  static volatile int big[1 << 23] = {1};\n  (void)big[n & 1];\n" + KS_DB_LOOP)
    return all_fail("object_past_file_limit", sub, "02", ("ks_example", "db_example"),
                    r"the build stopped at its limit of 16 MiB a file: the student's code makes an object that large",
                    max_timeout=120, extra=("--build-fsize", "16"))


def case_forged_diagnostics():
    """Lines like the emulator's printed by the student's host code ahead of a real fault (the
    fourth trial): four "emu: internal error ... grade it again on a GPU" lines, then a kernel
    that stores a million elements past its output. The failure showed the first four lines
    like a diagnostic, all forged; the emulator's own report of the store was only in the log.
    Now the last diagnostics are shown too, and the real one is among them. (Lines printed
    both before and after a launch that fails and returns can still crowd it out: the
    emulator's diagnostics need a channel of their own.)"""
    rel = "02-kogge-stone/kogge_stone.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    if "if (i < n) out[i] = src[t];" not in text:
        raise CheckFailed("lab 02's solution no longer stores `if (i < n) out[i] = src[t];`: update the case")
    fake = ("  for (int k = 0; k < 4; k++)\n"
            "    fprintf(stderr, \"emu: internal error %d: the emulator's scheduler lost a fiber: a fault of the kit, \"\n"
            "                    \"not of the submission; grade it again on a GPU\\n\", k + 1);\n")
    tag = "/* STUDENT-BEGIN(lab02) */\n"
    first = text.index(tag)
    second = text.index(tag, first + 1)
    third = text.index(tag, second + 1)
    body = text[second:third].replace("if (i < n) out[i] = src[t];", "out[i + 1000000] = src[t];", 1)
    text = text[:second] + body + text[third:third + len(tag)] + fake + text[third + len(tag):]
    sub = write_submission("forged_diagnostics", rel, text)
    return expect("forged_diagnostics", sub, "02", ("db_example",),
                  {"db_example": r"(?s)internal error 1.*emu: kernel scanIncKoggeStoneDBKernel: block .* stores to "
                                 r"the host's own memory"}, max_timeout=60)


def case_output_flood():
    """200 MB in one line, with terminal escape codes: capped, cleaned, and the grader's own
    memory stays small."""
    flood = ("  static char line[1 << 20];\n  int printf(const char *, ...);\n"
             "  for (int i = 0; i < (int)sizeof line - 1; i++) line[i] = i % 64 == 7 ? 27 : 'A';\n"
             "  for (int k = 0; k < 200; k++) printf(\"%s\", line);\n")
    sub = make_submission("output_flood", LAB01_FILE, INC_BODY, flood + INC_BODY)
    code, out, data = grade("output_flood", sub, ["01"], tests=("inc_example",), extra=("--stats",))
    problems = []
    if data["tests"] and data["tests"][0]["status"] != "passed":
        problems.append("the flood is not an error by itself: inc_example should still pass")
    m = re.search(r"grader peak memory: (\d+) MiB", out)
    if not m or int(m.group(1)) >= 100:
        problems.append(f"grader peak memory: {m.group(1) if m else '?'} MiB (limit 100)")
    log = os.path.join(ROOT, "build", "grade", "emu", selftest.grade.submission_key(sub), "logs", "lab01",
                       "inc_example.log")
    size = os.path.getsize(log) if os.path.exists(log) else -1
    if not 0 < size < 64 * 1024:
        problems.append(f"the test's log is {size} bytes (capped at 16 KiB of output)")
    if "\x1b" in out or "\x1b" in json.dumps(data) or (size > 0 and b"\x1b" in open(log, "rb").read()):
        problems.append("an escape character reached the output, the log or results.json")
    if problems:
        raise CheckFailed("\n    ".join(["case output_flood:"] + problems))
    return f"grader peak {m.group(1)} MiB, log {size} bytes"


def case_tarball_bomb():
    bomb = os.path.join(BAD, "bomb", "handin.tar.gz")
    os.makedirs(os.path.dirname(bomb), exist_ok=True)
    with tarfile.open(bomb, "w:gz") as tar:
        info = tarfile.TarInfo("01-serial/scan_serial.c")
        info.size = 100 << 20
        with open("/dev/zero", "rb") as zero:
            tar.addfile(info, zero)
    code, out, data = grade("bomb", bomb, ["01"])
    if code == 0 or not re.search(r"larger than|more than", out):
        raise CheckFailed("a 100 MiB member was not refused:\n" + out[-600:])
    return "refused: " + [ln for ln in out.splitlines() if "larger than" in ln or "more than" in ln][0][:80]


def case_shell_in_names():
    """A handin's name is only a name (the fourth trial): `make grade SUBMISSION=...` put the path
    into its recipe unquoted, so a folder named `a;id>PWNED.txt;#` ran `id` as the instructor and
    make exited 0, and a path with a space was two arguments; then make itself ran a
    `$(shell ...)` in a name. Now every value from make's command line reaches the grader as
    one word, the paths as typed: a folder whose name holds a space, a `;`, a `#`, backquotes
    and a `$(shell ...)` is graded; a missing one with a command in its name is refused with the
    name and a non-zero exit; grade-class's CLASS and make test's SUBMISSION the same; no
    command in any name runs."""
    top = os.path.join(BAD, "shell names")
    shutil.rmtree(top, ignore_errors=True)
    marks = [os.path.join(top, f"MARK{i}") for i in range(4)]
    sub = os.path.join(top, f"a b;touch {marks[0]};#`touch {marks[1]}`$(shell touch MAKEMARK)")
    made_by_make = os.path.join(ROOT, "MAKEMARK")  # make's own $(shell) runs in the kit's folder
    if os.path.exists(made_by_make):
        os.remove(made_by_make)
    os.makedirs(os.path.join(sub, "01-serial"))
    shutil.copy(os.path.join(ROOT, "solutions", LAB01_FILE), os.path.join(sub, LAB01_FILE))
    make = ["make", "--no-print-directory"]
    code, out = selftest.sh(make + ["grade", "LAB=01", "T=inc_example", f"SUBMISSION={sub}"], timeout=300)
    if code != 0 or "Score: 1/1" not in out:
        raise CheckFailed(f"the folder {sub!r} was not graded 1/1 (exit code {code}):\n" + out[-800:])
    missing = os.path.join(top, f"none;touch {marks[2]};#")
    code2, out2 = selftest.sh(make + ["grade", "LAB=01", f"SUBMISSION={missing}"], timeout=300)
    if code2 == 0 or "does not exist" not in out2 or missing not in out2:
        raise CheckFailed(f"a missing folder {missing!r} was not refused by name with a non-zero exit (exit code "
                          f"{code2}):\n" + out2[-800:])
    code3, out3 = selftest.sh(make + ["grade-class", f"CLASS={top}/x;touch {marks[3]}", "LAB=01"], timeout=300)
    code4, out4 = selftest.sh(make + ["test", "LAB=01", f"SUBMISSION={top}/`touch {marks[3]}`"], timeout=300)
    ran = [m for m in marks + [made_by_make] if os.path.exists(m)] + \
        [f for f in ("PWNED.txt",) if os.path.exists(os.path.join(ROOT, f))]
    if ran:
        raise CheckFailed("a command in a name ran: it made " + ", ".join(ran))
    if code3 == 0 or code4 == 0:
        raise CheckFailed(f"grade-class of a missing CLASS (exit code {code3}) or make test of a missing SUBMISSION "
                          f"(exit code {code4}) did not fail:\n" + out3[-400:] + "\n" + out4[-400:])
    return "a folder named with a space, ; #, backquotes and $(shell ...) graded 1/1; a missing one refused by name (exit " \
        f"code {code2}); grade-class and make test refuse theirs; no command in a name ran"


def case_zip_handins():
    """A zip handin, as LMSs deliver and students upload: one holding the lab 01 solution is
    graded (it was refused as "not a handin tarball"); one whose member leaves its folder, one
    holding a link, one whose member says 1 KiB and unpacks to 64 MiB, and one whose compressed
    data is damaged (zlib's own error, which once escaped as a traceback) are refused with the
    reason, the grader's memory bounded."""
    import zipfile
    src = open(os.path.join(ROOT, "solutions", LAB01_FILE), "rb").read()
    folder = os.path.join(BAD, "zips")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    good = os.path.join(folder, "good.zip")
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(LAB01_FILE, src)
    code, out, data = grade("zip-good", good, ["01"], tests=("inc_example",))
    if code or data.get("score") != data.get("max_score") or not data.get("max_score"):
        raise CheckFailed("a zip of the lab 01 solution was not graded full marks:\n" + out[-600:])
    refused = []
    for name, want in (("escape", r"outside the zip"), ("link", r"not a regular file"),
                       ("bomb", r"longer than it says|not a readable zip \(Bad CRC"),
                       ("corrupt", r"not a readable zip \(")):
        path = os.path.join(folder, f"{name}.zip")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            if name == "escape":
                z.writestr("../" + LAB01_FILE, src)
            elif name == "link":
                info = zipfile.ZipInfo(LAB01_FILE)
                info.external_attr = (0o120777 << 16)
                z.writestr(info, "/etc/passwd")
            elif name == "corrupt":
                z.writestr(LAB01_FILE, src * 40)
            else:
                z.writestr(LAB01_FILE, bytes(64 << 20))
        if name == "corrupt":  # its deflate stream damaged in the middle (zlib's error, not zipfile's)
            data_ = bytearray(open(path, "rb").read())
            at = data_.find(b"PK\x01\x02") // 2
            data_[at:at + 64] = bytes(64)
            open(path, "wb").write(bytes(data_))
        if name == "bomb":  # the member's header says 1 KiB: rewrite both its sizes
            data_ = bytearray(open(path, "rb").read())
            for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
                at = data_.find(sig)
                data_[at + off:at + off + 4] = (1024).to_bytes(4, "little")
            open(path, "wb").write(bytes(data_))
        code, out, _ = grade(f"zip-{name}", path, ["01"], tests=("inc_example",))
        if code != 2 or not re.search(want, out):
            raise CheckFailed(f"the zip '{name}': exit {code}, expected 2 and /{want}/:\n{out[-600:]}")
        refused.append(name)
    return "a zip of the solution graded in full; refused: " + ", ".join(refused)


def case_pax_header_bomb():
    """A 256 KiB handin whose pax header says it is 256 MiB long (zeros, which gzip packs a
    thousandfold), before a real lab 01 file: Python's tarfile reads a pax header whole, so
    grade.py and grade-class (reading the handin's HANDIN.json) held it all (a 510 KiB one took
    them to 1.5 GiB). Both must refuse it, or pass over it, within 200 MiB and seconds."""
    bomb = os.path.join(BAD, "pax_bomb", "handin.tar.gz")
    os.makedirs(os.path.dirname(bomb), exist_ok=True)
    size = 256 << 20
    head = tarfile.TarInfo("././@PaxHeader")
    head.type, head.size = tarfile.XHDTYPE, size
    src = open(os.path.join(ROOT, "solutions", LAB01_FILE), "rb").read()
    real = tarfile.TarInfo(LAB01_FILE)
    real.size = len(src)
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        out.write(head.tobuf(tarfile.USTAR_FORMAT))
        zeros = bytes(1 << 20)
        for _ in range(size >> 20):
            out.write(zeros)
        out.write(real.tobuf(tarfile.USTAR_FORMAT) + src + bytes(-len(src) % 512) + bytes(1024))
    problems = []
    t0 = time.monotonic()
    # grade.py under a wrapper that prints the peak memory of its children (grade.py's own)
    wrap = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            "print(f'peak {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024} MiB'); sys.exit(r.returncode)")
    code, out = selftest.sh([sys.executable, "-c", wrap, sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"),
                             "--backend", "emu", "--lab", "01", "--test", "inc_example", "--submission", bomb,
                             "--results", os.path.join(ROOT, "build", "selftest", "bad-pax_bomb.json")],
                            env={"NO_COLOR": "1"}, timeout=300)
    took = time.monotonic() - t0
    peak = re.search(r"^peak (\d+) MiB", out, re.M)
    if code == 0 or not re.search(r"pax extended header", out):
        problems.append("grade.py did not refuse it, naming the header:\n" + out[-500:])
    if not peak or int(peak.group(1)) > 200 or took > 30:
        problems.append(f"grade.py: peak {peak and peak.group(1)} MiB, {took:.0f} s")
    probe = ("import resource, sys; sys.path[:0] = ['grader/course', 'grader/grading']; import grade_class; "
             f"print(repr(grade_class.handin_from({bomb!r}))); "
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)")
    code2, out2 = selftest.sh([sys.executable, "-c", probe], timeout=120)
    lines = out2.strip().splitlines()
    if code2 or len(lines) < 2 or not lines[-1].isdigit() or int(lines[-1]) > 200:
        problems.append(f"grade-class's look at the handin: exit {code2}, {out2[-300:]}")
    # the same header behind a clean gzip member: Python's gzip reads every member, so must the walk
    import grade as g  # noqa: E402
    two = os.path.join(os.path.dirname(bomb), "two-members.tar.gz")
    with open(two, "wb") as f2:
        f2.write(gzip.compress(real.tobuf(tarfile.USTAR_FORMAT) + src + bytes(-len(src) % 512)))
        f2.write(open(bomb, "rb").read())
    try:
        g.check_tarball(two)
        problems.append("the header behind a second gzip member was not refused")
    except g.SubmissionError:
        pass
    if problems:
        raise CheckFailed("\n    ".join(problems))
    line = [ln for ln in out.splitlines() if "pax extended header" in ln][0].split(": ", 1)[-1]
    return f"refused in {took:.1f} s, grader peak {peak.group(1)} MiB: {line.strip()[:110]}; grade-class {lines[-1]} MiB"


# ---- lenient checks and timing games ----------------------------------------------------------

def case_refused_handins_leave_nothing():
    """A handin grade.py refuses part-way leaves nothing behind: the folder it unpacked into
    under build/ goes, with whatever it held (a class of 120 with a few bad uploads once left as
    many folders, with the members read before the bad one). Four refusals: a tarball whose
    second member leaves its folder, after a good first one; a tarball with a 100 MiB member; a
    zip whose second member leaves; a folder holding only a tarball refused so. Each grade.py is
    run here, so its process id names its folder (grade.unpack_prefix)."""
    import zipfile
    sys.path.insert(0, os.path.join(ROOT, "grader", "grading"))
    import grade as grade_py
    src = open(os.path.join(ROOT, "solutions", LAB01_FILE), "rb").read()
    folder = os.path.join(BAD, "refused_handins")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "only_tarball"))

    def tar_of(path, members):
        with tarfile.open(path, "w:gz") as tar:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    tar_of(os.path.join(folder, "escape.tar.gz"), [(LAB01_FILE, src), ("../outside.c", src)])
    tar_of(os.path.join(folder, "large.tar.gz"), [("01-serial/notes.txt", b"notes\n"), (LAB01_FILE, bytes(100 << 20))])
    with zipfile.ZipFile(os.path.join(folder, "escape.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(LAB01_FILE, src)
        z.writestr("../outside.c", src)
    shutil.copy(os.path.join(folder, "escape.tar.gz"), os.path.join(folder, "only_tarball", "handin.tar.gz"))
    left, seen = [], []
    for name in ("escape.tar.gz", "large.tar.gz", "escape.zip", "only_tarball"):
        cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", "emu", "--lab", "01",
               "--test", "inc_example", "--submission", os.path.join(folder, name),
               "--results", os.path.join(folder, name + ".json")]
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=dict(os.environ, NO_COLOR="1"))
        try:
            out = p.communicate(timeout=120)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            p.kill()
            raise CheckFailed(f"grade.py on {name} did not end within 120 s")
        if p.returncode != 2 or "cannot read submission" not in out:
            raise CheckFailed(f"{name}: exit {p.returncode}, expected 2 and 'cannot read submission':\n{out[-600:]}")
        build = os.path.join(ROOT, "build")
        mine = [e for e in os.listdir(build) if e.startswith(grade_py.unpack_prefix(p.pid))]
        for e in mine:
            held = sorted(os.path.relpath(os.path.join(d, f), os.path.join(build, e))
                          for d, _, fs in os.walk(os.path.join(build, e)) for f in fs)
            left.append(f"{name}: build/{e}" + (f" holding {', '.join(held)}" if held else " (empty)"))
            shutil.rmtree(os.path.join(build, e), ignore_errors=True)
        seen.append(name)
    if left:
        raise CheckFailed("refused handins left their unpacked folders behind:\n    " + "\n    ".join(left))
    return f"{len(seen)} refused ({', '.join(seen)}), no folder left under build/"


def case_missing_barrier_graded():
    """Without the second barrier a thread may add into a value another thread has not read
    yet: the grade itself (its default schedule) must catch it."""
    rel = "02-kogge-stone/kogge_stone.cu"
    sub = make_submission("missing_barrier", rel,
                          "    __syncthreads();                              /* ... and every write, before the next */\n", "")
    ks = ("ks_example", "ks_edge_sizes", "ks_block_sizes")
    return expect("missing_barrier", sub, "02", ks, {"ks_block_sizes": r"first mismatch|emu: race on"},
                  ignore=("ks_example", "ks_edge_sizes"))


def case_missing_syncwarp_graded():
    rel = "04-warp-scan/warp_scan.cu"
    sub = make_submission("missing_syncwarp", rel,
                          "    __syncwarp(mask);             /* all reads of this step before any write */\n", "")
    return expect("missing_syncwarp", sub, "04", ("smem_ops", "inc_ops"),
                  {"smem_ops": r"wrong lane|first mismatch|emu: race on"})


def case_missing_barrier_race():
    """The race detector is in every graded run on emu: a missing barrier fails whatever the
    schedule, forward included (where the answer can come out right), and the reason names
    both threads and both lines."""
    verdicts = []
    for case, rel, line, lab, tests, failing in (
            ("missing_barrier", "02-kogge-stone/kogge_stone.cu",
             "    __syncthreads();                              /* ... and every write, before the next */\n",
             "02", ("ks_example", "ks_edge_sizes", "ks_block_sizes"), ("ks_example", "ks_edge_sizes", "ks_block_sizes")),
            ("missing_syncwarp", "04-warp-scan/warp_scan.cu",
             "    __syncwarp(mask);             /* all reads of this step before any write */\n",
             "04", ("smem_ops", "inc_ops"), ("smem_ops",))):
        sub = make_submission(case + "_race", rel, line, "")
        for schedule in ("forward", "reverse"):
            expect(case + "_race", sub, lab, tests,
                   {t: r"emu: race on .* thread \(\d+,0,0\) (writes|reads) it at \S+:\d+ and thread "
                       r"\(\d+,0,0\) (writes|reads) it at \S+:\d+" for t in failing},
                   schedule=schedule)
        verdicts.append(f"lab {lab} {case}: {len(failing)} FAIL for the race")
    return "; ".join(verdicts) + ", under forward and reverse"


def case_many_passes():
    """Lab 01's timing test can fail a right scan: one that scans a large input ten times over
    (as a scan that copies its input back and forth might) passes every test of its answers and
    fails timing, measured in CPU seconds, at the kit's size and threshold."""
    again = ("  if (n > 1000000) /* nine more scans of a large input: the same answer, ten times the work */\n"
             "    for (int rep = 0; rep < 9; rep++) {\n"
             "      memcpy(acc, identity, size);\n"
             "      for (size_t i = 0; i < n; i++) {\n"
             "        op(acc, acc, src + i * size);\n"
             "        memcpy(dst + i * size, acc, size);\n"
             "      }\n"
             "    }\n")
    sub = make_submission("many_passes", LAB01_FILE, edits=[(INC_LOOP_END, INC_LOOP_END + again)])
    return expect("many_passes", sub, "01", ("inc_example", "inc_random", "timing"),
                  {"timing": r"scanIncSerial\(n=33554432\) reached 0\.0[0-2]\d of memcpy bandwidth; the threshold is 0\.030"},
                  max_timeout=60)


def case_replay_timing():
    """Lab 01's timing test: a scan that saves its first large answer and replays it."""
    replay = ("  static unsigned char *saved;\n  static size_t saved_n;\n"
              "  void *malloc(unsigned long);\n"
              "  if (n > 1000000 && saved && saved_n == n) { memcpy(out, saved, n * size); return; }\n")
    save = ("  if (n > 1000000 && !saved) { saved = (unsigned char *)malloc(n * size); saved_n = n;"
            " if (saved) memcpy(saved, out, n * size); }\n")
    sub = make_submission("replay", LAB01_FILE, INC_BODY, replay + INC_BODY,
                          edits=[(INC_LOOP_END, INC_LOOP_END + save)])
    return expect("replay", sub, "01", ("inc_example", "timing"),
                  {"timing": r"a timed call's output is wrong"}, max_timeout=60)


# ---- on the GPU (make check-gpu) ----------------------------------------------------------

def case_nonblocking_stream():
    """Scan-then-propagate launched on a non-blocking stream: a timer that records events on the
    default stream saw almost nothing; the test's clock waits for the whole device."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("nonblocking_stream", rel,
                          "static size_t levelInts(size_t tiles)",
                          "static cudaStream_t g_side;\nstatic size_t levelInts(size_t tiles)",
                          edits=[("scanTilesKernel<true><<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>",
                                  "scanTilesKernel<true><<<(unsigned)tiles, GS_PROPAGATE_THREADS, 0, g_side>>>"),
                                 ("scanTilesKernel<false><<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>",
                                  "scanTilesKernel<false><<<(unsigned)tiles, GS_PROPAGATE_THREADS, 0, g_side>>>"),
                                 ("addOffsetsKernel<<<(unsigned)tiles, GS_PROPAGATE_THREADS>>>",
                                  "addOffsetsKernel<<<(unsigned)tiles, GS_PROPAGATE_THREADS, 0, g_side>>>"),
                                 (PROP_BODY, "  if (!g_side) CUDA_CHECK(cudaStreamCreateWithFlags(&g_side, "
                                  "cudaStreamNonBlocking));\n" + PROP_BODY)])
    code, out, data = grade("nonblocking_stream", sub, ["05"], tests=("propagate_inc", "timing_propagate"),
                            backend="cuda")
    got = selftest.by_name(data)
    t = got.get("timing_propagate", {})
    m = re.search(r"([0-9.]+) of copy", t.get("output", ""))
    if not m or float(m.group(1)) > 0.6:
        raise CheckFailed(f"timing_propagate on a non-blocking stream: {t.get('output', out[-600:])}")
    return f"measured {m.group(1)} of copy (honest: the solution's own figure)"


def unpadded_case(case, reason, edits=(), max_timeout=30):
    """Lab 03 on the emu: a "padded" scan whose conflictFreeIndex pads nothing, with `edits`
    besides, is correct, and emu_conflicts fails it with `reason`."""
    sub = make_submission(case, "03-blelloch/blelloch.cu", "  return i + (i >> LOG_SMEM_BANKS);", "  return i;",
                          edits=list(edits))
    return expect(case, sub, "03", ("padded_batched", "emu_conflicts"), {"emu_conflicts": reason},
                  max_timeout=max_timeout)


def case_padding_left_out():
    """The padding left out: the emu's counters fail it for its bank conflicts (as `timing` does
    on a GPU)."""
    return unpadded_case("padding_left_out", r"1\.06 bank conflicts per element .* at most 0\.02")


def case_padding_diluted():
    """The padding left out, and shared memory read 1400 more times per thread, conflict-free, to
    drown the bank conflicts in requests: the bar is on conflicts per element scanned, which extra
    requests cannot lower (per shared request, as first graded, it passed: 0.048 in 1.45 million
    requests)."""
    return unpadded_case("padding_diluted", r"1\.06 bank conflicts per element .* at most 0\.02", edits=[(
        "  __syncthreads();\n  if (base + t < n) out[base + t] = tile[conflictFreeIndex(t)];",
        "  __syncthreads();\n  int junk = 0;\n"
        "  for (int k = 0; k < 1400; k++) junk += tile[(t + 32 * k) & (2 * blockDim.x - 1)];\n"
        "  if (junk == 0x7fffffff) out[0] = junk;\n"
        "  if (base + t < n) out[base + t] = tile[conflictFreeIndex(t)];")], max_timeout=60)


def case_padding_atomics():
    """The padding left out, and the sweeps' conflicting accesses made through atomics (which the
    emu's probes do not put into requests): atomics on shared memory are counted apart, and the
    scan needs none (it passed, with 0 conflicts, when atomics went uncounted)."""
    return unpadded_case("padding_atomics", r"\d+ atomic operations on shared memory, whose bank conflicts", edits=[
        ("conflictFreeIndex(stride * (2 * t + 2) - 1);\n      tile[b] = (int32_t)((uint32_t)tile[b] + (uint32_t)tile[a]);",
         "conflictFreeIndex(stride * (2 * t + 2) - 1);\n      atomicAdd(&tile[b], atomicAdd(&tile[a], 0));"),
        ("conflictFreeIndex(stride * (2 * t + 2) - 1);\n      /* Both values into registers first: nvcc cannot "
         "prove a != b, and from tile[b] read\n       * twice (before and after the store to tile[a]) it emits two "
         "shared loads. */\n      const int32_t left = tile[a], right = tile[b];\n      tile[a] = right;\n"
         "      tile[b] = (int32_t)((uint32_t)right + (uint32_t)left);",
         "conflictFreeIndex(stride * (2 * t + 2) - 1);\n"
         "      const int32_t left = atomicAdd(&tile[a], 0), right = atomicAdd(&tile[b], 0);\n"
         "      atomicExch(&tile[a], right);\n      atomicExch(&tile[b], (int32_t)((uint32_t)right + (uint32_t)left));")],
        max_timeout=60)


def case_probes_switched_off():
    """Lab 03 on the emu: a helper marked to escape the sanitizer instrumentation (which the
    emu's race detector and memory counters ride on) is refused before it builds."""
    rel = "03-blelloch/blelloch.cu"
    sub = make_submission("probes_switched_off", rel, "  return i + (i >> LOG_SMEM_BANKS);",
                          "  struct __attribute__((no_sanitize(\"thread\"))) Quiet {};\n"
                          "  return i + (i >> LOG_SMEM_BANKS);")
    return expect("probes_switched_off", sub, "03", ("padded_example", "emu_conflicts"),
                  {"padded_example": r"no_sanitize: turns off the emulator's probes",
                   "emu_conflicts": r"no_sanitize: turns off the emulator's probes"}, max_timeout=30)


def efficiency_case(case, sub, lab, tests, test, reason, every_schedule=False, workers=()):
    """A correct but wasteful submission: `test` (an emu efficiency test) fails with `reason` and
    every other test of `tests` passes, under the graded schedule; with `every_schedule`, `test`
    fails the same way under each of the self-test's other schedules too (the counters leave out
    what the order changes: a few cases show it, the rest save the time). The other tests show
    the answers right on their sizes up to 2^21 (selftest.small_manifests: the larger ones meet
    no other case, and they were most of these cases' time); `test` runs at its own size."""
    schedules = selftest.SCHEDULES if every_schedule else (None,)
    same = expect(f"{case}-graded", sub, lab, tests, {test: reason}, max_timeout=60,
                  env=selftest.small_manifests(selftest.REVERSE_MAX_SIZE), workers=workers)
    for schedule in [x for x in schedules if x and x != selftest.grade.GRADE_SCHEDULE]:
        expect(f"{case}-{schedule.split(':')[0]}", sub, lab, (test,), {test: reason}, max_timeout=60,
               schedule=schedule)
    return f"{test} FAILS with the right reason, {len(tests) - 1} still OK, under {len(schedules)} schedule" + \
        ("s" if len(schedules) > 1 else " (the graded one)") + (same[same.index(" (the same"):] if workers else "")


def case_warp_walked():
    """Lab 04 on the emu: a shared-memory warp scan in which each lane walks the values before it
    is correct, and the emu's counters fail it for its 33 shared requests per warp (11 in
    log2 32 steps), as `timing` does on a GPU."""
    rel = "04-warp-scan/warp_scan.cu"
    steps = ("#pragma unroll\n  for (unsigned d = 1; d < WARP_SIZE; d *= 2) {\n    T y = lane >= d ? s[lane - d] : x;\n"
             "    __syncwarp(mask);             /* all reads of this step before any write */\n"
             "    if (lane >= d) {\n      x = op(y, x);\n      s[lane] = x;\n    }\n"
             "    __syncwarp(mask);             /* all writes of this step before the next step's reads */\n"
             "  }\n  return x;\n")
    sub = make_submission("warp_walked", rel, steps,
                          "  T acc = s[0]; /* the values before this lane's, one after the other */\n"
                          "  for (unsigned j = 1; j <= lane; j++) acc = op(acc, s[j]);\n"
                          "  return acc;\n")
    return efficiency_case("warp_walked", sub, "04", ("smem_ops", "smem_partial_warps", "noncommutative", "emu_shared"),
                           "emu_shared", r"scanIncWarpSmem<int, Add>.*: 33\.00 shared-memory requests per warp.* at most 24")


def case_warp_shared_atomic():
    """Lab 04 on the emu: a shared-memory warp scan that also counts its calls with an atomic on
    shared memory is correct, and emu_shared fails it: atomics on shared memory escape the
    requests it grades, and a warp scan needs none."""
    rel = "04-warp-scan/warp_scan.cu"
    old = "  const unsigned lane = threadIdx.x % WARP_SIZE;\n  s[lane] = x;\n"
    sub = make_submission("warp_shared_atomic", rel, old, old + "  __shared__ int s_calls;\n"
                          "  if (lane == 0) atomicAdd(&s_calls, 1);\n")
    return efficiency_case("warp_shared_atomic", sub, "04", ("inc_ops", "emu_shared"), "emu_shared",
                           r"scanIncWarpSmem<int, Add>\(n=\d+, block=\d+\): \d+ atomic operations on shared memory")


def case_segscan_uncoalesced():
    """Lab 06 on the emu: a single pass whose lanes load and store their 4 consecutive elements one
    at a time (the partial tile's path for every tile) is correct, and the emu's counters fail it
    for the sectors it requests, as the timing tests do on a GPU."""
    rel = "06-segmented-scan/seg_scan.cu"
    sub = make_submission("segscan_uncoalesced", rel, "  const bool full = vec && tile_base + SS_GLOBAL_TILE <= n;",
                          "  const bool full = false && vec && tile_base + SS_GLOBAL_TILE <= n;")
    return efficiency_case("segscan_uncoalesced", sub, "06", ("global_inc", "global_exc", "emu_traffic"), "emu_traffic",
                           r"segScanIncGlobal<int, Add>\(n=\d+\) moved \d+\.\d\d bytes per element .* at most 9\.50")


# Where a lab 05 single pass reads its input again, and the loop that does it: each lane and row
# runs `stmt` (C++ statements) on the address `p` of its first word.
READ_AGAIN_AT = "  /* 3. Scan the warp's rows: each lane scans its 4,"


def read_again(stmt):
    return ("#pragma unroll\n  for (int r = 0; r < ROWS; r++)\n"
            "    if (base + r * 128 < n) {\n      const int32_t *p = in + base + r * 128;\n" + stmt + "    }\n" +
            READ_AGAIN_AT)


def lookback_read_twice(case, read, bytes_re, every_schedule=False):
    """Lab 05 on the emu: a single pass that reads its input a second time, one word per lane and
    row, through `read` (an expression of the word's address `p`); emu_traffic must fail it with
    `bytes_re` bytes per element, naming an extra pass, and its correctness tests still pass."""
    sub = make_submission(case, "05-global-scan/global_scan.cu", READ_AGAIN_AT, read_again(f"      (void){read};\n"))
    return efficiency_case(case, sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"), "emu_traffic",
                           rf"scanIncLookback\(n=\d+\) moved {bytes_re} bytes per element .* at most 9\.00: the loads "
                           r"are coalesced and none polls with plain loads, so an array is read or written more often "
                           r"than once \(an extra pass\)", every_schedule=every_schedule)


def case_lookback_one_tile():
    """Lab 05 on the emu: a single pass written for one tile per block (the block stores its tile
    and returns) scans only the first grid's worth of tiles, since the given wrapper launches
    only the blocks that fit at once (the emulated device's 4 multiprocessors times the blocks
    an SM holds). Both tests
    fail with a mismatch at their sizes longer than that grid."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("lookback_one_tile", rel, "  for (unsigned tile = s_tile_id; tile < tiles;) {",
                          "  for (unsigned tile = s_tile_id; tile < tiles; tile = (unsigned)tiles) {",
                          edits=[("    if (threadIdx.x == 0) next = atomicAdd(counter, 1u);\n", "")])
    return expect("lookback_one_tile", sub, "05", ("lookback_inc", "lookback_exc"),
                  {t: r"first mismatch at \[\d+\]" for t in ("lookback_inc", "lookback_exc")}, max_timeout=60)


def case_volatile_reread():
    """The second read through a volatile pointer moves 12 bytes per element: volatile loads are
    left out only where they read a sector again (a look-back's polling), not the first time
    (with every volatile sector left out, as first graded, it passed at 8.01)."""
    return lookback_read_twice("volatile_reread", "*(const volatile int32_t *)p", r"12\.\d\d", every_schedule=True)


def case_volatile_both_reads():
    """Both reads of the input volatile: the tile's own load (four volatile words a lane in place
    of one 16-byte __ldg) and a second full read. Volatile loads that read a sector again were
    all left out as polling, so the second pass, and the three of every four loads that read the
    first's sectors again, went uncounted: emu_traffic passed. Now only sectors a store or an
    atomic of the launch wrote (status words) are polled, and every read again of the input
    counts (24 bytes per element; the message names the uncoalesced loads)."""
    sub = make_submission("volatile_both_reads", "05-global-scan/global_scan.cu", READ_AGAIN_AT,
                          read_again("      (void)*(const volatile int32_t *)p;\n"),
                          edits=[("        v[r] = stream ? __ldcs(p) : __ldg(p);\n",
                                  "        const volatile int *q = (const volatile int *)p;\n"
                                  "        v[r] = make_int4(q[0], q[1], q[2], q[3]);\n")])
    return efficiency_case("volatile_both_reads", sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"),
                           "emu_traffic", r"scanIncLookback\(n=\d+\) moved (1\d|2\d)\.\d\d bytes per element")


def case_memcpy_reread():
    """The second read of the input through memcpy in device code (the third trial's sixth
    case): a copy of a size known only at run time compiles to a call of the C library's
    memcpy, which the probes did not see, and the single pass passed emu_traffic at 8 bytes an
    element. The probes now take every memcpy, memmove and memset a student's file calls as the
    loads and stores they are (24 bytes an element: each lane's copy is read as four words, so the
    message names the uncoalesced loads)."""
    sub = make_submission("memcpy_reread", "05-global-scan/global_scan.cu", READ_AGAIN_AT,
                          read_again("      int32_t w[4];\n      memcpy(w, p, (n > 0 ? 4 : 0) * sizeof(int32_t));\n"
                                     "      volatile int32_t sink = w[0];\n      (void)sink;\n"))
    return efficiency_case("memcpy_reread", sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"),
                           "emu_traffic", r"scanIncLookback\(n=\d+\) moved (1\d|2\d)\.\d\d bytes per element",
                           workers=MACHINE_FREE_WORKERS)


def case_atomic_reread():
    """The second read through atomics (atomicOr with 0, which leaves the input unchanged): every
    atomic on global memory counts as a 32-byte sector, 16 bytes per element (it passed at 8.01
    when atomics went uncounted)."""
    return lookback_read_twice("atomic_reread", "atomicOr((int *)p, 0)", r"16\.\d\d")


def case_compaction_unstaged():
    """Lab 07 on the emu: a single-pass compaction that writes its kept elements straight from
    registers, not staged in shared memory, is correct, and the emu's counters fail it for its
    scattered stores, as `timing_compact` does on a GPU."""
    rel = "07-applications/apps.cu"
    sub = make_submission("compaction_unstaged", rel, "s_kept[rank[k]] = v[k];", "out[before + rank[k]] = v[k];",
                          edits=[("  for (unsigned j = threadIdx.x; j < kept; j += APP_THREADS) __stcs(out + before + j, "
                                  "s_kept[j]);\n", "")])
    return efficiency_case("compaction_unstaged", sub, "07", ("compact_single", "emu_compact"), "emu_compact",
                           r"compactSinglePass\(n=\d+, \d+ kept\) moved \d+\.\d\d bytes per element .* at most 7\.00")


def case_sight_byte_stores():
    """Lab 07 on the emu: a line of sight that stores its answers a byte at a time (lanes 4 bytes
    apart) is correct, and the emu's counters fail it for the sectors its stores touch, as
    `timing_sight` does on a GPU."""
    rel = "07-applications/apps.cu"
    sub = make_submission("sight_byte_stores", rel, "    if (j + 4 <= valid && ((uintptr_t)(vis + base + j) & 3u) == 0) {",
                          "    if (false && j + 4 <= valid) {")
    return efficiency_case("sight_byte_stores", sub, "07", ("sight", "emu_sight"), "emu_sight",
                           r"lineOfSight\(n=\d+\) moved \d+\.\d\d bytes per point .* at most 6\.00")


# ---- inter-block protocols: one verdict whatever the machine ----------------------------------

LOOKBACK_NEAREST = ("05-global-scan/global_scan.cu",
                    "    if (invalid_lanes & upto) continue; /* a tile in between has not published yet */",
                    "    if (invalid_lanes & 1u) continue; /* waits for the nearest tile only */")
LOOKBACK_NO_WAIT = ("06-segmented-scan/seg_scan.cu",
                    "    if (invalid_lanes & upto) continue; /* a tile in between has not published yet */",
                    "    (void)invalid_lanes; /* never waits */")
LAB05_LOOKBACK_USERS = ("lookback_inc", "lookback_exc", "in_place", "wraparound", "repeat", "huge", "emu_traffic")


def case_lookback_nearest(backend="emu"):
    """Lab 05: a look-back that stops waiting once the tile just before it has published, while an
    older tile in its window has not. It scored 34/34 on 2 cores and failed with 8 (blocks ran one
    after another); now a tile publishes late under every schedule, on any machine, and every test
    of the single pass fails with a mismatch, as on a GPU."""
    rel, old, new = LOOKBACK_NEAREST
    sub = make_submission("lookback_nearest" + ("_gpu" if backend != "emu" else ""), rel, old, new)
    tests = tuple(t for t in LAB05_LOOKBACK_USERS if backend == "emu" or t != "emu_traffic")
    # on a GPU the order is the hardware's: wraparound's 25 tiles failed on an H200 and passed on
    # an H100; the sizes of many tiles fail on both
    ignore = () if backend == "emu" else ("wraparound",)
    return expect("lookback_nearest", sub, "05", tests,
                  {t: r"first mismatch at \[\d+\]" for t in tests if t not in ignore}, ignore=ignore,
                  max_timeout=60, backend=backend)


# Lab 05's single pass chained through its output: a tile waits for the tile before to flag its
# output stored, then reads that tile's last output element (the inclusive sum of everything
# before its own), and flags its own after its stores, with no __threadfence() between.
CHAINED_LOOK = ("""    if (warp == 0) {
      const int32_t exclusive = lookbackWarp(status, tile, aggregate, epoch);
      if (lane == 0) s_exclusive = exclusive;
    }
    __syncthreads();
""", """    if (threadIdx.x == 0) { /* chained: the tile before's last output is the sum before this one */
      int32_t exclusive = 0;
      if (tile > 0) {
        while (statusFlag(statusLoad(&status[tile - 1]), epoch) != GS_FLAG_PREFIX) {
        }
        exclusive = out[(size_t)tile * GS_LOOKBACK_TILE - 1];
      }
      s_exclusive = exclusive;
    }
    (void)aggregate;
    __syncthreads();
""")
CHAINED_FLAG = ("""    /* 7. The next tile. s_tile_id is free again: every thread read it before the barriers
     *    above. */
    if (threadIdx.x == 0) s_tile_id = next;""", """    __syncthreads(); /* every thread's stores, then the flag: no __threadfence() between */
    if (threadIdx.x == 0) statusStore(&status[tile], epoch, GS_FLAG_PREFIX, 0);
    if (threadIdx.x == 0) s_tile_id = next;""")


def case_weak_chained(backend="emu"):
    """Lab 05: a single pass chained through its output (each tile reads the last output element
    of the tile before, once that tile's flag says it stored them), with no __threadfence()
    between a tile's stores and its flag. Right answers on the emu, whose stores every block saw
    at once: 1/1 on lookback_inc. CUDA's memory model lets another block see the flag before the
    stores; the emu's weak-ordering check now fails it under every schedule, naming the store,
    the flag and the load. A GPU shows this rarely: there the case asks only that the grade end
    in a verdict of the answers (a pass, or a mismatch), never a crash, a hang or a maximum that
    depends on the answer, and says which it was."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("weak_chained" + ("_gpu" if backend != "emu" else ""), rel, *CHAINED_LOOK,
                          edits=[CHAINED_FLAG])
    if backend != "emu":
        code, out, data = grade("weak_chained_gpu", sub, ["05"], tests=("lookback_inc",), max_timeout=60,
                                backend=backend)
        e = selftest.by_name(data).get("lookback_inc")
        if e is None or e["status"] not in ("passed", "failed"):
            raise CheckFailed(f"case weak_chained on {backend}: no verdict for lookback_inc:\n{out[-800:]}")
        if e["status"] == "failed" and not re.search(r"first mismatch at \[\d+\]", e["output"]):
            raise CheckFailed(f"case weak_chained on {backend}: lookback_inc failed other than by its answers: "
                              f"{e['output'].splitlines()[:3]}")
        if selftest.max_problem(data, ["05"], backend, ("lookback_inc",)):
            raise CheckFailed(selftest.max_problem(data, ["05"], backend, ("lookback_inc",)))
        return (f"lookback_inc on the GPU: {e['status']}" +
                (" (a wrong answer: the flag seen before the data)" if e["status"] == "failed" else
                 " (this GPU showed the data in time; the emu reports the hazard)"))
    reason = (r"weak ordering in kernel scanLookbackKernel.*stored with a plain store at \S+:\d+ and then "
              r"published .* with no __threadfence\(\) between them; the load is at global_scan\.cu:\d+")
    got = []
    for schedule in selftest.SCHEDULES:
        expect(f"weak_chained-{schedule.split(':')[0]}", sub, "05", ("lookback_inc",), {"lookback_inc": reason},
               max_timeout=60, schedule=schedule, env=selftest.small_manifests(selftest.REVERSE_MAX_SIZE),
               workers=MACHINE_FREE_WORKERS if schedule == selftest.grade.GRADE_SCHEDULE else ())
        got.append(schedule.split(":")[0])
    return "lookback_inc FAILS naming the unfenced store, flag and load under " + ", ".join(got)


def case_lookback_no_wait(backend="emu"):
    """Lab 06: a flagged look-back that never waits for a tile that has not published. 40/40
    through grade-class (one worker a student) and 20/40 through make grade on the same machine;
    now it fails every global test under every schedule and worker count."""
    rel, old, new = LOOKBACK_NO_WAIT
    sub = make_submission("lookback_no_wait" + ("_gpu" if backend != "emu" else ""), rel, old, new)
    tests = ("global_inc", "global_exc", "global_flags", "global_long")
    return expect("lookback_no_wait", sub, "06", tests, {t: r"first mismatch at \[\d+\]" for t in tests},
                  max_timeout=60, backend=backend)


def comparable(data):
    """results.json without what may differ between two runs of one submission: times (seconds,
    and the figures of a timed CPU lab, which a busy machine moves)."""
    out = []
    for t in data.get("tests", []):
        text = re.sub(r"\(\d+(\.\d+)?s\)|\b\d+(\.\d+)? ?s\b", "", t.get("output", ""))
        if "of memcpy" in text:  # lab 01's timing: a measured CPU figure
            text = re.sub(r"[\d.]+", "#", text)
        out.append((t["name"], t.get("score"), t.get("max_score"), t.get("status"), text))
    return {"score": data.get("score"), "max_score": data.get("max_score"), "tests": out}


def first_difference(a, b):
    if (a["score"], a["max_score"]) != (b["score"], b["max_score"]):
        return f"score {a['score']}/{a['max_score']} against {b['score']}/{b['max_score']}"
    for x, y in zip(a["tests"], b["tests"]):
        if x != y:
            return f"{x[0]}: {x[3]} against {y[3]}:\n      {x[4][:300]!r}\n      {y[4][:300]!r}"
    return "a different list of tests" if len(a["tests"]) != len(b["tests"]) else None


def case_verdicts_machine_free():
    """The same results.json (times aside) for one submission graded with 1, 2 and 8 host threads
    (SCANLAB_EMU_WORKERS), and through grade-class with JOBS=1 and JOBS=4: the two look-backs
    above, lab 05's single pass and lab 06's global scan, and the solution (with 8, and through
    grade-class). Each verdict is a function of
    the submission, the kit and the schedule alone. On sizes up to 2^21 (selftest.small_manifests:
    both look-backs fail in their first tiles)."""
    # a copy of the solutions (the builds are shared, by content): the other lane grades solutions/
    subs = {"solution": make_submission("machine_free_solution", LOOKBACK_NEAREST[0])}
    os.makedirs(os.path.join(subs["solution"], os.path.dirname(LOOKBACK_NO_WAIT[0])))
    shutil.copy(os.path.join(ROOT, "solutions", LOOKBACK_NO_WAIT[0]), os.path.join(subs["solution"], LOOKBACK_NO_WAIT[0]))
    for case, (rel, old, new) in (("nearest", LOOKBACK_NEAREST), ("no_wait", LOOKBACK_NO_WAIT)):
        subs[case] = make_submission("machine_free_" + case, rel, old, new)
        # the other lab's file too, so that every entry is graded on both labs alike
        other = LOOKBACK_NO_WAIT[0] if case == "nearest" else LOOKBACK_NEAREST[0]
        os.makedirs(os.path.join(subs[case], os.path.dirname(other)))
        shutil.copy(os.path.join(ROOT, "solutions", other), os.path.join(subs[case], other))
    labs, tests = ["05", "06"], ("wraparound", "global_inc")
    small = selftest.small_manifests(selftest.REVERSE_MAX_SIZE)
    seen = {}
    problems = []
    for name, sub in subs.items():
        # the solution once (its grade through grade-class below is compared with it); the
        # look-backs, which once passed on few cores, with each count
        for workers in ("1", "2", "8") if name != "solution" else ("8",):
            code, out, data = grade(f"machine_free-{name}-{workers}", sub, labs, tests=tests, max_timeout=60,
                                    env=dict(small, SCANLAB_EMU_WORKERS=workers))
            got = comparable(data)
            if not got["tests"]:
                problems.append(f"{name} with {workers} threads: no results:\n{out[-600:]}")
            elif name not in seen:
                seen[name] = (workers, got)
            elif first_difference(seen[name][1], got):
                problems.append(f"{name}: {seen[name][0]} threads and {workers} differ: "
                                f"{first_difference(seen[name][1], got)}")
    if seen.get("solution") and seen["solution"][1]["score"] != seen["solution"][1]["max_score"]:
        problems.append(f"the solution scored {seen['solution'][1]['score']}/{seen['solution'][1]['max_score']}")
    import grade as g  # noqa: E402
    lost = {name: sum(int(t["points"]) for m in g.all_manifests() if m["lab"] == lab for t in m["test"]
                      if t["name"] in tests) for name, lab in (("nearest", "05"), ("no_wait", "06"))}
    for name in ("nearest", "no_wait"):  # each loses its own lab's points, and only those
        if name in seen and seen[name][1]["score"] != seen[name][1]["max_score"] - lost[name]:
            problems.append(f"the {name} look-back scored {seen[name][1]['score']}/{seen[name][1]['max_score']}")
    klass = os.path.join(BAD, "machine_free_class")
    shutil.rmtree(klass, ignore_errors=True)
    os.makedirs(klass)
    for name, sub in subs.items():
        shutil.copytree(os.path.join(ROOT, sub) if not os.path.isabs(sub) else sub, os.path.join(klass, name),
                        ignore=shutil.ignore_patterns("0[1-47]-*"))
    for jobs in ("1", "4"):
        out_dir = os.path.join(BAD, f"machine_free_class_out_{jobs}")
        shutil.rmtree(out_dir, ignore_errors=True)
        cmd = [sys.executable, os.path.join(ROOT, "grader", "course", "grade_class.py"), "--class", klass, "--jobs", jobs,
               "--backend", "emu", "--out", out_dir, "--no-reference", "--regrade"]
        for lab in labs:
            cmd += ["--lab", lab]
        for t in tests:
            cmd += ["--test", t]
        code, out = selftest.sh(cmd, env=small)
        for name in subs:
            path = os.path.join(out_dir, name, "results.json")
            if not os.path.exists(path):
                problems.append(f"grade-class JOBS={jobs}: no results for {name}:\n{out[-600:]}")
                continue
            got = comparable(json.load(open(path)))
            if name in seen and first_difference(seen[name][1], got):
                problems.append(f"{name}: grade-class with JOBS={jobs} differs from make grade: "
                                f"{first_difference(seen[name][1], got)}")
    if problems:
        raise CheckFailed("\n    ".join(["case verdicts_machine_free:"] + problems))
    return ", ".join(f"{n} {seen[n][1]['score']}/{seen[n][1]['max_score']}" for n in seen) + \
        ", the look-backs the same with 1, 2 and 8 threads, all three through grade-class with JOBS=1 and 4"


REREAD_OLD = ("      /* Both values into registers first: nvcc cannot prove a != b, and from tile[b] read\n"
              "       * twice (before and after the store to tile[a]) it emits two shared loads. */\n"
              "      const int32_t left = tile[a], right = tile[b];\n"
              "      tile[a] = right;\n"
              "      tile[b] = (int32_t)((uint32_t)right + (uint32_t)left);\n")
REREAD_NEW = ("      const int32_t left = tile[a];\n"
              "      tile[a] = tile[b];\n"
              "      tile[b] = (int32_t)((uint32_t)tile[b] + (uint32_t)left); /* tile[b] read again */\n")


def case_downsweep_reread(backend="emu"):
    """Lab 03: the padded down-sweep written `tile[a] = tile[b]; tile[b] += left;`, which reads
    tile[b] again after the store to tile[a] (the handout's rule says read both first). nvcc
    cannot prove a != b and loads it twice: 20% more shared loads (ncu: 13568 load instructions
    in 64 tiles against 11264), none conflicting once padded. It had full marks on the emu: GCC
    proved the second load returns what the first did and dropped it. The probed build now keeps
    it as nvcc does (EMU_PROBE_FLAGS), and emu_conflicts fails it on its shared load requests per
    element. On a GPU the padded scan loses about 3% (an H200: 0.334 of copy against the
    solution's 0.343 in the same run), far inside its threshold: there the case gets the
    solution's verdicts, emu_conflicts being skipped."""
    rel = "03-blelloch/blelloch.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    at = text.index("conflictFreeIndex(stride * (2 * t + 2) - 1);")  # the padded kernel's down-sweep
    sub = os.path.join(BAD, "downsweep_reread" + ("_gpu" if backend != "emu" else ""))
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(os.path.join(sub, os.path.dirname(rel)))
    if text.find(REREAD_OLD, at) < 0:
        raise CheckFailed("self-test fixture 'downsweep_reread': the padded down-sweep is not in solutions/" + rel)
    k = text.index(REREAD_OLD, at)
    open(os.path.join(sub, rel), "w").write(text[:k] + REREAD_NEW + text[k + len(REREAD_OLD):])
    if backend == "emu":
        return expect("downsweep_reread", sub, "03", ("padded_example", "padded_batched", "emu_conflicts"),
                      {"emu_conflicts": r"scanExcBlellochPadded\(n=\d+, block=\d+\): 0\.2\d\d shared-memory load "
                                        r"requests per element .*x\[b\] twice"},
                      max_timeout=60, workers=MACHINE_FREE_WORKERS)
    # On a GPU: the same verdicts as the solution's, timed in the same run (a GPU whose solution
    # misses lab 03's threshold, as an H200 does, fails both alike)
    tests = ("padded_example", "padded_batched", "timing")
    got = {}
    for who, path in (("solution", os.path.join(ROOT, "solutions")), ("reread", sub)):
        code, out, data = grade(f"downsweep_reread-{who}-gpu", path, ["03"], tests=tests, max_timeout=200,
                                backend=backend)
        got[who] = selftest.by_name(data)
    problems = []
    for t in tests:
        a, b = got["solution"].get(t, {}), got["reread"].get(t, {})
        if a.get("status") != b.get("status"):
            problems.append(f"{t}: the solution {a.get('status')}, the re-read {b.get('status')}: "
                            f"{b.get('output', '').splitlines()[:3]}")
    figures = {who: re.findall(r"Padded\(n=\d+, block=\d+\)(?::| reached) [^\n]*?([0-9]\.[0-9]+) of copy",
                               got[who].get("timing", {}).get("output", "")) for who in got}
    if problems:
        raise CheckFailed("\n    ".join(["case downsweep_reread on the GPU:"] + problems))
    return (f"timing {got['reread'].get('timing', {}).get('status')} as the solution's; padded fractions of copy: "
            f"solution {figures['solution']}, re-read {figures['reread']}")


def case_lookback_plain_loads():
    """Lab 05 on the emu: a look-back that polls the status words with plain loads (the given
    statusLoad reads them through a volatile pointer). Right on the emu, whose stores every block
    sees at once; emu_traffic fails it, and its message now names the plain loads that read a
    status word again (it used to say only "13.79 bytes per element", which reads as an extra pass).
    On an H100 the same submission hangs in lookback_inc and timing_lookback: the plain load never
    sees the other block's store."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("lookback_plain_loads", rel, "      const unsigned long long word = statusLoad(&status[j]);",
                          "      const unsigned long long word = status[j].word; /* a plain load */")
    return efficiency_case("lookback_plain_loads", sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"),
                           "emu_traffic", r"scanIncLookback\(n=\d+\) moved [\d.]+ bytes per element .*: \d+ plain loads "
                           r"read again the address the same thread had just read .* polling its status words with "
                           r"plain loads", workers=MACHINE_FREE_WORKERS)


def case_lookback_uncoalesced():
    """Lab 05 on the emu: a single pass whose lanes load their four elements one at a time (each
    load instruction's lanes 16 bytes apart, so each touches four times the sectors it needs):
    emu_traffic fails it and names the loads as uncoalesced, with the share of the sectors' bytes
    they used. (An H100 passes it, timing_lookback included, at 0.90 of copy: its L1 cache serves
    the three loads that follow each one from the sectors the first brought, so the emu, which
    counts the L1's sectors as Nsight Compute does, is stricter here than the GPU's clock.)"""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("lookback_uncoalesced", rel, "        v[r] = stream ? __ldcs(p) : __ldg(p);",
                          "        (void)p;\n        v[r] = make_int4(in[base + r * 128], in[base + r * 128 + 1], "
                          "in[base + r * 128 + 2], in[base + r * 128 + 3]);")
    return efficiency_case("lookback_uncoalesced", sub, "05", ("lookback_inc", "lookback_exc", "emu_traffic"),
                           "emu_traffic", r"scanIncLookback\(n=\d+\) moved [\d.]+ bytes per element .*: the loads used "
                           r"\d+% of the bytes of the 32-byte sectors they touched.*uncoalesced",
                           workers=MACHINE_FREE_WORKERS)


# ---- work done serially inside a block: slow on a GPU, and now on the emu ----------------------

KS_DB_LOOP = """  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    dst[t] = t >= offset ? src[t - offset] + src[t] : src[t];
    __syncthreads();                              /* all of dst written, all of src read */
    int *tmp = src;
    src = dst;
    dst = tmp;
  }
"""
SERIAL_BLOCK = {
    # lab 02: the double-buffered scan (the one `timing` times, batched) done by thread 0
    "serial_block_02": ("02", "02-kogge-stone/kogge_stone.cu", KS_DB_LOOP,
                        "  if (t == 0)\n    for (unsigned k = 1; k < blockDim.x; k++) src[k] += src[k - 1];\n"
                        "  __syncthreads();\n"),
    # lab 02: lane 0 of each warp scans its warp's 32, then the warps' carries one by one
    "warp_lane_02": ("02", "02-kogge-stone/kogge_stone.cu", KS_DB_LOOP,
                     "  if (t % 32 == 0)\n    for (unsigned k = t + 1; k < t + 32 && k < blockDim.x; k++) src[k] += src[k - 1];\n"
                     "  for (unsigned w = 32; w < blockDim.x; w += 32) {\n    __syncthreads();\n"
                     "    const int carry = src[w - 1];\n    __syncthreads();\n"
                     "    if (t >= w && t < w + 32) src[t] += carry;\n  }\n  __syncthreads();\n"),
}
SERIAL_05_NEW = """  __shared__ int32_t all[1024];             /* thread 0 scans the block alone */
  all[threadIdx.x] = x;
  __syncthreads();
  if (threadIdx.x == 0)
    for (unsigned k = 1; k < blockDim.x; k++) all[k] += all[k - 1];
  __syncthreads();
  const int32_t v = all[threadIdx.x];
  (void)s_tmp;
  if (total) *total = all[blockDim.x - 1];
  __syncthreads();
  return v;
"""


def scan_inc_block_body():
    """The solution's scanIncBlock, between its markers."""
    text = open(os.path.join(ROOT, "solutions", "05-global-scan", "global_scan.cu")).read()
    at = text.index("__device__ int32_t scanIncBlock(")
    begin = text.index("/* STUDENT-BEGIN(lab05) */\n", at) + len("/* STUDENT-BEGIN(lab05) */\n")
    return text[begin:text.index("  /* STUDENT-END(lab05) */", begin)]


LAB02_ALL = ("ks_example", "ks_edge_sizes", "db_example", "db_edge_sizes", "tiles", "emu_parallel")


def serial_block_case(case, backend="emu"):
    lab, rel, old, new = SERIAL_BLOCK[case]
    sub = make_submission(case + ("_gpu" if backend != "emu" else ""), rel, old, new)
    if backend != "emu":  # on a GPU the emu's test does not count: `timing` is what fails
        return expect(case, sub, lab, ("db_example", "tiles", "timing"),
                      {"timing": r"scanIncKoggeStoneTiles\(.*reached [0-9.]+ of copy bandwidth"}, max_timeout=200,
                      backend=backend)
    reason = (r"thread 0 makes \d+% of its block's memory accesses: the block's work is done by one thread"
              if case == "serial_block_02" else r"of a warp's 32 lanes take part in each memory instruction")
    return expect(case, sub, lab, LAB02_ALL, {"emu_parallel": reason}, max_timeout=60,
                  env=selftest.small_manifests(selftest.REVERSE_MAX_SIZE), workers=MACHINE_FREE_WORKERS)


def case_serial_block_02():
    """Lab 02: the double-buffered Kogge-Stone scan done by thread 0, one element after another,
    between the block's parallel load and store. Right, quick on the emu, and graded 14/14 there;
    `emu_parallel` now fails it naming thread 0's share, as `timing` fails it on a GPU."""
    return serial_block_case("serial_block_02")


def case_warp_lane_02():
    """Lab 02: lane 0 of each warp scans its warp's 32 elements, then the warps' carries are added
    one warp at a time. Each thread's share is small (no thread does the block's work), but most
    lanes idle: `emu_parallel` fails it on the lanes per memory instruction."""
    return serial_block_case("warp_lane_02")


def case_serial_block_05(backend="emu"):
    """Lab 05: scanIncBlock done by thread 0 through a shared array of the block's values: every
    form's answers are right (34/34 on the emu); `emu_parallel` fails it naming thread 0. On a GPU
    no graded test sees it: the timed forms call scanIncBlock once per tile of several thousand
    elements, which hides it (on an H100 all three timing tests passed; an H200 failed
    reduce-then-scan's), so this case runs on the emu only."""
    sub = make_submission("serial_block_05" + ("_gpu" if backend != "emu" else ""), "05-global-scan/global_scan.cu",
                          scan_inc_block_body(), SERIAL_05_NEW)
    return expect("serial_block_05", sub, "05", ("block_example", "block_sizes", "propagate_inc", "rts_inc",
                                                 "lookback_inc", "emu_parallel"),
                  {"emu_parallel": r"scanIncBlock via scanIncBlockTiles\(n=\d+, block=1024\): thread 0 makes \d+% "
                                   r"of its block's memory accesses"}, max_timeout=60,
                  env=selftest.small_manifests(selftest.REVERSE_MAX_SIZE),  # answers checked up to 2^21
                  workers=MACHINE_FREE_WORKERS)


# ---- device memory the probes once did not see: statics of device code, accesses past the log's cap

STATIC_02 = """  static int g_tiles[1 << 22];                   /* a slice of global memory per block */
  int *mine = g_tiles + (size_t)(blockIdx.x % 4096) * blockDim.x;
  mine[t] = src[t];
  __syncthreads();
  if (t == 0)
    for (unsigned k = 1; k < blockDim.x; k++) mine[k] += mine[k - 1];
  __syncthreads();
  src[t] = mine[t];
  __syncthreads();
"""
# SERIAL_05_NEW through a slice of a static array of global memory instead of shared memory
STATIC_05 = ("  static int32_t g_all[1 << 22];            /* thread 0 scans the block alone, in global memory */\n"
             "  int32_t *all = g_all + (size_t)(blockIdx.x % 4096) * 1024;\n" + SERIAL_05_NEW.split("\n", 1)[1])
STATIC_04_NEW = """  static T g_walk[1 << 22];       /* the warp's values walked in global memory, not in s */
  const size_t me = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) & ((1u << 22) - 1), first = me - lane;
  x = s[lane];
  g_walk[me] = x;
  __syncwarp(mask);
  T acc = g_walk[first];
  for (unsigned j = 1; j <= lane; j++) acc = op(acc, g_walk[first + j]);
  __syncwarp(mask);
  return acc;
"""


def case_static_serial_02():
    """Lab 02: the double-buffered scan done by thread 0 through an array that is a static of the
    kernel (`static int g_tiles[...]`: global memory on a GPU, a slice per block). The emu's
    probes saw only shared memory and cudaMalloc'd buffers, so thread 0's serial pass was not
    counted and `emu_parallel` passed it (15/15); it now fails it as it fails the same scan in
    shared memory."""
    sub = make_submission("static_serial_02", "02-kogge-stone/kogge_stone.cu", KS_DB_LOOP, STATIC_02)
    return expect("static_serial_02", sub, "02", LAB02_ALL,
                  {"emu_parallel": r"thread 0 makes \d+% of its block's memory accesses"}, max_timeout=60,
                  workers=MACHINE_FREE_WORKERS)


def case_static_serial_05():
    """Lab 05: scanIncBlock done by thread 0 through a function-static array (global memory on a
    GPU), as case_serial_block_05 does through shared memory: `emu_parallel` passed it (the
    probes did not see the array) and now fails it naming thread 0."""
    sub = make_submission("static_serial_05", "05-global-scan/global_scan.cu", scan_inc_block_body(), STATIC_05)
    return expect("static_serial_05", sub, "05", ("block_example", "block_sizes", "propagate_inc", "lookback_inc",
                                                  "emu_parallel"),
                  {"emu_parallel": r"thread 0 makes \d+% of its block's memory accesses"}, max_timeout=60,
                  workers=MACHINE_FREE_WORKERS)


def case_block_race_02():
    """Lab 02: the double-buffered scan done right, but through one static array of the kernel
    (global memory on a GPU) that every block of the launch shares: blocks overwrite each other's
    tiles. On one host thread the emu ran the blocks one after another and the answers came out
    right (tiles passed); on two they ran at once and tiles failed (4/5 against 0/5: a verdict
    that hung on the machine's cores). The probes now fail any quiet launch (no atomic, fence or
    volatile access) in which two blocks touch one word, one writing, on every machine."""
    sub = make_submission("block_race_02", "02-kogge-stone/kogge_stone.cu",
                          "  int *src = s, *dst = s + blockDim.x;\n",
                          "  static int g_buf[2 * 1024];                   /* both buffers, for every block */\n"
                          "  int *src = g_buf, *dst = g_buf + blockDim.x;\n  (void)s;\n")
    race = r"race between blocks on global memory at byte offset \d+ of g_buf \(a static variable of device code\)"
    return expect("block_race_02", sub, "02", LAB02_ALL, {"tiles": race, "emu_parallel": race}, max_timeout=60,
                  workers=MACHINE_FREE_WORKERS)


def case_block_race_fenced_02():
    """Lab 02: case_block_race_02's scan with a __threadfence() at the start and at the end of
    every block. The fences make the kernel one whose blocks may order themselves, so it runs
    taking turns, not quiet, and the check of races between blocks leaves it alone; blocks gave
    up their turns only at the fences, so each ran its steps alone and tiles passed (5/5 on one
    host thread and on two) where an H200 gets every launch of several blocks wrong. Blocks now
    also give up their turns at barriers, in a launch's first tiles: the blocks' stores into the
    one array meet, and tiles fails on its answers, on every machine."""
    sub = make_submission("block_race_fenced_02", "02-kogge-stone/kogge_stone.cu",
                          "  int *src = s, *dst = s + blockDim.x;\n",
                          "  static int g_buf[2 * 1024];                   /* both buffers, for every block */\n"
                          "  __threadfence();\n"
                          "  int *src = g_buf, *dst = g_buf + blockDim.x;\n  (void)s;\n",
                          edits=[("    dst = tmp;\n  }\n  if (i < n) out[i] = src[t];\n",
                                  "    dst = tmp;\n  }\n  if (i < n) out[i] = src[t];\n  __threadfence();\n")])
    wrong = r"scanIncKoggeStoneTiles\(n=\d+, blockSize=\d+, seed=\d+\): first mismatch at"
    return expect("block_race_fenced_02", sub, "02", LAB02_ALL, {"tiles": wrong, "emu_parallel": wrong},
                  max_timeout=60, workers=MACHINE_FREE_WORKERS)


def case_static_walk_04():
    """Lab 04: scanIncWarpSmem stores its value in s once, then walks the warp's earlier values
    one by one through a static array of global memory: 2 shared requests per warp, under the
    bound, and `emu_shared` passed it (14/14). Its global traffic is now counted and bounded by
    the copy's 8 bytes an element that a scan through s moves."""
    text = open(os.path.join(ROOT, "solutions", "04-warp-scan", "warp_scan.cu")).read()
    at = text.index("#pragma unroll", text.index("scanIncWarpSmem(T x"))
    steps = text[at:text.index("  return x;\n", at) + len("  return x;\n")]  # the solution's steps through s
    sub = make_submission("static_walk_04", "04-warp-scan/warp_scan.cu", steps, STATIC_04_NEW)
    return expect("static_walk_04", sub, "04", ("smem_ops", "smem_partial_warps", "emu_shared"),
                  {"emu_shared": r"scanIncWarpSmem<int, Add>\(n=\d+, block=\d+\): [0-9.]+ global bytes per element"},
                  max_timeout=60)


LOG_CAP_05 = """  __shared__ int32_t s_junk[1024];
  __shared__ unsigned s_last;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  __syncthreads();
  if (s_last && threadIdx.x == 0) {   /* the last block: past the probes' log, then the scan */
    int32_t junk = 0;
    for (unsigned k = 0; k < (1u << 21) + 64; k++) { junk += s_junk[k & 1023]; s_junk[k & 1023] = junk; }
    int32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
      const int32_t x = out[i];
      acc += x;
      out[i] = EXCLUSIVE ? acc - x : acc;
    }
    s_junk[0] = junk;
  }
  (void)status, (void)epoch, (void)stream;
"""


def lookback_body_05():
    """The solution's scanLookbackKernel, between its markers."""
    text = open(os.path.join(ROOT, "solutions", "05-global-scan", "global_scan.cu")).read()
    at = text.index("scanLookbackKernel(const int32_t *in")
    begin = text.index("/* STUDENT-BEGIN(lab05) */\n", at) + len("/* STUDENT-BEGIN(lab05) */\n")
    return text[begin:text.index("  /* STUDENT-END(lab05) */", begin)]


def case_log_cap_05():
    """Lab 05: a single pass that copies the input, then lets the last block's thread 0 make 2^22
    shared-memory accesses (the probes keep that many per thread between barriers) and scan the
    whole array alone, unseen: 8.00 bytes per element, `emu_traffic` passed. Counters that miss
    accesses cannot judge a call: the test now fails, saying so."""
    sub = make_submission("log_cap_05", "05-global-scan/global_scan.cu", lookback_body_05(), LOG_CAP_05)
    return expect("log_cap_05", sub, "05", ("emu_traffic",),
                  {"emu_traffic": r"the emu's memory probes did not keep every access"}, max_timeout=120)


HOST_COPY_05 = """static __global__ void copyThrough(const int32_t *src, int32_t *dst, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
"""
HOST_SCAN_05 = """  if (n == 0) return;
  int32_t *h = (int32_t *)malloc(n * sizeof(int32_t));   /* the host's memory, not the device's */
  const unsigned blocks = (unsigned)((n + 255) / 256);
  copyThrough<<<blocks, 256>>>(in, h, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  int32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = h[i];
    h[i] = EXCLUSIVE ? acc : acc + x;
    acc += x;
  }
  copyThrough<<<blocks, 256>>>(h, out, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  free(h);
"""


def region_after(text, marker):
    """The body of the first student region after `marker` in text."""
    begin = text.index("/* STUDENT-BEGIN(lab05) */\n", text.index(marker)) + len("/* STUDENT-BEGIN(lab05) */\n")
    return text[begin:text.index("/* STUDENT-END(lab05) */", begin)]


def replace_region(text, lab, marker, body, after=0):
    """text with the body of the first student region after `marker` (or after index `after`)
    replaced; the END marker's line keeps its indentation."""
    tag = f"/* STUDENT-BEGIN(lab{lab}) */\n"
    begin = text.index(tag, text.index(marker, after) if marker else after) + len(tag)
    end = text.rindex("\n", begin, text.index(f"/* STUDENT-END(lab{lab}) */", begin)) + 1
    return text[:begin] + body + text[end:]


def write_submission(case, rel, text):
    sub = os.path.join(BAD, case)
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(os.path.join(sub, os.path.dirname(rel)))
    with open(os.path.join(sub, rel), "w") as f:
        f.write(text)
    return sub


def replace_nth_region(text, lab, k, body):
    """text with the body of its k-th student region (from 0) replaced."""
    tag = f"/* STUDENT-BEGIN(lab{lab}) */\n"
    begin = -1
    for _ in range(k + 1):
        begin = text.index(tag, begin + 1)
    return replace_region(text, lab, None, body, after=begin)


def case_prefix_sums_02():
    """Lab 02's two block scans done by every thread adding up the elements before its own (the
    fourth trial: 15/15): right, its work shared evenly among the threads, and blockSize / 2
    shared reads an element where Kogge-Stone makes log2(blockSize) steps. emu_parallel fails it
    on its memory accesses per element (515.5, at most 80)."""
    rel = "02-kogge-stone/kogge_stone.cu"
    naive = """  extern __shared__ int s[];
  const unsigned t = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  int sum = 0;
  for (unsigned k = 0; k <= t; k++) sum += s[k];
  if (i < n) out[i] = sum;
"""
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    text = replace_nth_region(replace_nth_region(text, "02", 0, naive), "02", 1, naive)
    sub = write_submission("prefix_sums_02", rel, text)
    return expect("prefix_sums_02", sub, "02", ("ks_example", "db_example", "tiles", "emu_parallel"),
                  {"emu_parallel": r"scanIncKoggeStone\(n=1024, blockSize=1024\): 515\.5 memory accesses per element"},
                  max_timeout=60)


def case_shuffles_for_blelloch_03():
    """Lab 03's two scans with no sweep at all (the fourth trial: 15/15): each thread adds its
    pair, the warps scan with shuffles, thread 0 scans the warps' totals. Right and free of
    bank conflicts, which was all emu_conflicts asked. Lab 03 now forbids warp shuffles, and
    where an instructor allows them, the emu's floor on the sweeps' shared loads fails it
    (0.031 an element, at least 0.08)."""
    rel = "03-blelloch/blelloch.cu"
    body = """  extern __shared__ int32_t tile[];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned nw = (blockDim.x + 31) / 32;
  const unsigned live = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32;
  const unsigned mask = live == 32 ? 0xffffffffu : ((1u << live) - 1u);
  const size_t base = (size_t)blockIdx.x * 2 * blockDim.x;
  const size_t i0 = base + 2 * t, i1 = i0 + 1;
  const int32_t a = i0 < n ? in[i0] : 0, b = i1 < n ? in[i1] : 0;
  const int32_t p = (int32_t)((uint32_t)a + (uint32_t)b);
  int32_t v = p;
  for (unsigned d = 1; d < 32; d *= 2) {
    const int32_t y = __shfl_up_sync(mask, v, d);
    if (lane >= d) v = (int32_t)((uint32_t)v + (uint32_t)y);
  }
  if (lane == live - 1) tile[warp] = v;
  __syncthreads();
  if (t == 0) {
    int32_t run = 0;
    for (unsigned w = 0; w < nw; w++) { const int32_t s = tile[w]; tile[w] = run; run += s; }
  }
  __syncthreads();
  const int32_t e = (int32_t)((uint32_t)v - (uint32_t)p + (uint32_t)tile[warp]);
  if (i0 < n) out[i0] = e;
  if (i1 < n) out[i1] = (int32_t)((uint32_t)e + (uint32_t)a);
"""
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    text = replace_nth_region(replace_nth_region(text, "03", 1, body), "03", 2, body)
    sub = write_submission("shuffles_for_blelloch_03", rel, text)
    refused = all_fail("shuffles_for_blelloch_03", sub, "03", ("example", "padded_example"),
                       r"__shfl_up_sync: not allowed in this lab")
    # where an instructor allows shuffles, the emu's floor on the sweeps' shared loads holds
    env = allowing("03")
    path = os.path.join(env["SCANLAB_MANIFESTS"], "lab03.toml")
    text = open(path).read()
    if ', "__shfl*"' not in text:
        raise CheckFailed("lab 03's manifest no longer forbids __shfl*: update case_shuffles_for_blelloch_03")
    with open(path, "w") as f:
        f.write(text.replace(', "__shfl*"', "", 1))
    counted = expect("shuffles_for_blelloch_03-allowed", sub, "03", ("example", "padded_example", "emu_conflicts"),
                     {"emu_conflicts": r"0\.031 shared-memory load requests per element \(2048\); at least 0\.080"},
                     max_timeout=60, env=env)
    return f"refused at build ({refused}); where shuffles are allowed, {counted}"


def case_managed_static_05():
    """A host scan staged through a `__managed__` static (the fourth trial: lab 05's propagate
    13/13): a kernel copies the input into it, the host scans it in place, a kernel copies it
    to the output; the watch sees only kernels writing the output. The source check refuses
    `__managed__` in every lab with kernels."""
    rel = "05-global-scan/global_scan.cu"
    stage = ("static __managed__ int32_t g_stage[1 << 16];\n"
             "static __global__ void stageKernel(const int32_t *in, int32_t *out, size_t n) {\n"
             "  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (i < n) out[i] = in[i];\n}\n")
    sub = make_submission("managed_static_05", rel, SCRATCH, stage + SCRATCH)
    return all_fail("managed_static_05", sub, "05", ("propagate_inc",), r"__managed__: not allowed in this lab")


def case_token_store_04():
    """Lab 04's shared-memory warp scan as the shuffle scan plus one store to s (the fourth
    trial: 14/14): emu_shared asked for some shared requests and at most 24 a warp. Now at
    least 8 (the 5 steps' loads and stores): 1.00 fails."""
    rel = "04-warp-scan/warp_scan.cu"
    body = "  s[threadIdx.x % WARP_SIZE] = x;\n  return scanIncWarp(x, op, mask);\n"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    sub = write_submission("token_store_04", rel, replace_nth_region(text, "04", 2, body))
    return expect("token_store_04", sub, "04", ("smem_ops", "emu_shared"),
                  {"emu_shared": r"scanIncWarpSmem<int, Add>\(n=65536, block=256\): 1\.00 shared-memory requests per "
                                 r"warp.*at least 8"}, max_timeout=60)


GRID_OF_ONE_05 = "  if (n == 0) return;\n  scanBlockAnyLengthKernel<EXCLUSIVE><<<1, GS_RANGE_THREADS>>>(in, out, n);\n" \
                 "  CUDA_CHECK_LAUNCH();\n"
BLOCK0_WALKS_05 = """  __shared__ int32_t s_tmp[GS_WARP];
  (void)status; (void)counter; (void)epoch; (void)stream;
  if (blockIdx.x != 0) return;
  int32_t carry = 0;
  for (size_t base = 0; base < n; base += GS_LOOKBACK_THREADS) {
    const size_t i = base + threadIdx.x;
    const int32_t x = i < n ? in[i] : 0;
    int32_t total;
    const int32_t inc = scanIncBlock(x, s_tmp, &total);
    if (i < n) out[i] = carry + (EXCLUSIVE ? inc - x : inc);
    carry += total;
  }
"""


def case_grid_of_one_05():
    """Lab 05 with none of the three global scans written (the fourth trial: 35/35): (a) and (b)
    launch the lab's one-block any-length scan over the whole input, and (c)'s block 0 walks
    every tile with scanIncBlock while the other blocks return. Right answers, 8 bytes per
    element, every block's threads busy: the emu's tests saw nothing, and a GPU runs it at one
    multiprocessor's speed. `emu_blocks` counts the sectors each block stores and fails each
    form, naming the spread (1.0 blocks of equal output); the same with 1 and 8 host threads."""
    rel = "05-global-scan/global_scan.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    text = replace_region(text, "05", "static void propagate(const int32_t *in", GRID_OF_ONE_05)
    text = replace_region(text, "05", "static void reduceThenScan(const int32_t *in", GRID_OF_ONE_05)
    text = replace_region(text, "05", "scanLookbackKernel(const int32_t *in, int32_t *out, size_t n, gs_status",
                          BLOCK0_WALKS_05)
    sub = write_submission("grid_of_one_05", rel, text)
    reason = r"(?s)scanIncPropagate.*worth 1\.0 blocks.*fewer than 3.*scanIncReduceThenScan.*worth 1\.0.*" \
             r"scanIncLookback.*worth 1\.0"
    return expect("grid_of_one_05", sub, "05", ("propagate_inc", "rts_exc", "lookback_inc", "emu_traffic",
                                                "emu_blocks"),
                  {"emu_blocks": reason}, max_timeout=60, workers=MACHINE_FREE_WORKERS)


# Lab 06: a block scanning elements [START, LIMIT) in order, blockDim.x at a time, carrying the
# segmented sum across them (`have`, `carry` set before): the walk of the two one-block attacks.
SEG_WALK_06 = """  for (size_t b = @START@; b < @LIMIT@; b += blockDim.x) {
    const size_t i = b + t;
    T x;
    memset(&x, 0, sizeof x);
    if (i < @LIMIT@) x = in[i];
    const bool head = i < @LIMIT@ ? flags[i] != 0 : true;
    if (t == 0 && have && !head) x = op(carry, x);
    const T y = segScanIncBlock(x, head, op, &temp);
    s_inc[t] = y;
    __syncthreads();
    if (i < @LIMIT@) {
      if (EXCLUSIVE) {
        T e = identity;
        if (!head) { if (t > 0) e = s_inc[t - 1]; else if (have) e = carry; }
        out[i] = e;
      } else {
        out[i] = y;
      }
    }
    carry = s_inc[blockDim.x - 1];
    have = true;
    __syncthreads();
  }
"""


def seg_walk_06(start, limit):
    return SEG_WALK_06.replace("@START@", start).replace("@LIMIT@", limit)


def case_first_block_walks_06():
    """Lab 06's single pass done by one block (the fourth trial: 40/40): the block that draws
    tile 0 scans every tile in order, carrying across them, while the others take a tile number
    and return (or, drawn late, find their predecessor done). Right, 9 bytes per element. The
    emu's `emu_blocks` fails it: the sectors its blocks store are worth 1.0 blocks."""
    rel = "06-segmented-scan/seg_scan.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    body = """  __shared__ unsigned s_tile;
  __shared__ int s_work;
  __shared__ SegBlockTemp<T> temp;
  __shared__ T s_inc[SS_GLOBAL_THREADS];
  __shared__ T s_carry;
  (void)stream;
  if (threadIdx.x == 0) {
    s_tile = atomicAdd(counter, 1u);
    s_work = 0;
    if (s_tile == 0) {
      s_work = 1;
    } else {
      const unsigned long long w = statusLoad(&status[s_tile - 1]);
      if (statusFlag(w, epoch) == SS_FLAG_PREFIX) { s_work = 2; s_carry = statusValue<T>(w); }
    }
  }
  __syncthreads();
  if (!s_work) return;
  const unsigned t = threadIdx.x;
  bool have = s_work == 2;
  T carry = s_carry;
""" + seg_walk_06("(size_t)s_tile * SS_GLOBAL_TILE", "n")
    text = replace_region(text, "06", "segScanGlobalKernel(const T *in, const uint8_t *flags, T *out", body)
    sub = write_submission("first_block_walks_06", rel, text)
    return expect("first_block_walks_06", sub, "06", ("global_inc", "global_exc", "emu_traffic", "emu_blocks"),
                  {"emu_blocks": r"segScanIncGlobal.*worth 1\.0 blocks of equal output, fewer than 3"},
                  max_timeout=60)


TURNS_05 = """static size_t levelInts(size_t tiles) { return (tiles + 3) / 4 * 4; }

/* Tile after tile, each block waits for the tile before its own to be finished. */
template <bool EXCLUSIVE>
static __device__ void turnsBody(const int32_t *in, int32_t *out, size_t n, gs_status *status,
                                 unsigned *counter, unsigned epoch) {
  __shared__ unsigned s_tile;
  __shared__ int32_t s_tmp[GS_WARP];
  __shared__ int32_t s_carry;
  const size_t tiles = (n + GS_LOOKBACK_TILE - 1) / GS_LOOKBACK_TILE;
  for (;;) {
    if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;
    if (tile >= tiles) return;
    if (threadIdx.x == 0) {
      int32_t c = 0;
      if (tile > 0) {
        unsigned long long w;
        do { w = statusLoad(&status[tile - 1]); } while (statusFlag(w, epoch) != GS_FLAG_PREFIX);
        c = statusValue(w);
      }
      s_carry = c;
    }
    __syncthreads();
    int32_t carry = s_carry;
    const size_t begin = (size_t)tile * GS_LOOKBACK_TILE;
    const size_t end = n - begin < GS_LOOKBACK_TILE ? n : begin + GS_LOOKBACK_TILE;
    for (size_t base = begin; base < end; base += blockDim.x) {
      const size_t i = base + threadIdx.x;
      const int32_t x = i < end ? in[i] : 0;
      int32_t total;
      const int32_t inc = scanIncBlock(x, s_tmp, &total);
      if (i < end) out[i] = carry + (EXCLUSIVE ? inc - x : inc);
      carry += total;
    }
    if (threadIdx.x == 0) {
      __threadfence();
      statusStore(&status[tile], epoch, GS_FLAG_PREFIX, carry);
    }
    __syncthreads();
  }
}

template <bool EXCLUSIVE>
static __global__ void turnsKernel(const int32_t *in, int32_t *out, size_t n, gs_status *status,
                                   unsigned *counter) {
  turnsBody<EXCLUSIVE>(in, out, n, status, counter, 1);
}

template <bool EXCLUSIVE>
static void turns(const int32_t *in, int32_t *out, size_t n) {
  if (n == 0) return;
  const size_t tiles = (n + GS_LOOKBACK_TILE - 1) / GS_LOOKBACK_TILE;
  gs_status *s = (gs_status *)gsReserve(&g_sums, (tiles + 1) * sizeof(gs_status));
  CUDA_CHECK(cudaMemsetAsync(s, 0, (tiles + 1) * sizeof(gs_status), 0));
  turnsKernel<EXCLUSIVE><<<(unsigned)(tiles < 64 ? tiles : 64), GS_LOOKBACK_THREADS>>>(in, out, n, s + 1,
                                                                                    (unsigned *)s);
  CUDA_CHECK_LAUNCH();
}
"""


def case_turns_05():
    """Lab 05 with no global scan written, every block's work spread out (the fourth trial's
    second round: 38/38): the three forms are one kernel whose blocks draw tiles in order and
    each waits for the tile before its own to be finished before it loads its own, carrying the
    sum in the status word. Right, 8 bytes per element, the stores spread over every block: a
    GPU runs it at one multiprocessor's speed. In the emu's depth mode (emu_blocks), each
    block's clock takes on that of the store it waited for: its longest chain is the whole
    input, the bytes a scan moves are 1.0 times it; the solution's are 315, 282 and 7.3 times."""
    rel = "05-global-scan/global_scan.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    level = "static size_t levelInts(size_t tiles) { return (tiles + 3) / 4 * 4; }\n"
    start = text.index(level)
    text = text[:start] + TURNS_05 + text[start + len(level):]
    text = replace_region(text, "05", "static void propagate(const int32_t *in", "  turns<EXCLUSIVE>(in, out, n);\n")
    text = replace_region(text, "05", "static void reduceThenScan(const int32_t *in", "  turns<EXCLUSIVE>(in, out, n);\n")
    text = replace_region(text, "05", "scanLookbackKernel(const int32_t *in, int32_t *out, size_t n, gs_status",
                          "  (void)stream;\n  turnsBody<EXCLUSIVE>(in, out, n, status, counter, epoch);\n")
    sub = write_submission("turns_05", rel, text)
    reason = r"(?s)scanIncPropagate.*chain.*only 1\.0 times fewer than the 8388632.*scanIncReduceThenScan.*only 1\.0.*" \
             r"scanIncLookback.*only 1\.0.*took turns"
    return expect("turns_05", sub, "05", ("propagate_inc", "rts_exc", "lookback_inc", "emu_traffic", "emu_blocks"),
                  {"emu_blocks": reason}, max_timeout=60, workers=MACHINE_FREE_WORKERS)


def case_turns_06():
    """Lab 06's single pass with every block waiting for the tile before its own to be finished
    (its inclusive result published as a prefix) before it loads its own (the second round: 42/42).
    Right, 9 bytes per element, a block a tile. emu_blocks' depth mode fails it: the bytes
    are 1.0 times its longest chain; the solution's 121 times."""
    rel = "06-segmented-scan/seg_scan.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    body = """  __shared__ unsigned s_tile;
  __shared__ SegBlockTemp<T> temp;
  __shared__ T s_inc[SS_GLOBAL_THREADS];
  __shared__ T s_carry;
  (void)stream;
  const size_t tiles = (n + SS_GLOBAL_TILE - 1) / SS_GLOBAL_TILE;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  if (tile >= tiles) return;
  if (threadIdx.x == 0 && tile > 0) {
    unsigned long long w;
    do { w = statusLoad(&status[tile - 1]); } while (statusFlag(w, epoch) != SS_FLAG_PREFIX);
    s_carry = statusValue<T>(w);
  }
  __syncthreads();
  const unsigned t = threadIdx.x;
  bool have = tile > 0;
  T carry = s_carry;
  const size_t begin = (size_t)tile * SS_GLOBAL_TILE;
  const size_t end = n - begin < SS_GLOBAL_TILE ? n : begin + SS_GLOBAL_TILE;
""" + seg_walk_06("begin", "end") + """  if (t == 0) {
    __threadfence();
    statusStore(&status[tile], epoch, SS_FLAG_PREFIX, carry);
  }
"""
    text = replace_region(text, "06", "segScanGlobalKernel(const T *in, const uint8_t *flags, T *out", body)
    sub = write_submission("turns_06", rel, text)
    return expect("turns_06", sub, "06", ("global_inc", "global_exc", "global_flags", "emu_traffic", "emu_blocks"),
                  {"emu_blocks": r"segScanIncGlobal.*chain.*only 1\.0 times fewer than the 9437211.*took turns"}, max_timeout=60)


def case_turns_07():
    """Lab 07's line of sight with every block waiting for the tile before its own to publish its
    prefix before it loads its altitudes: right, 5 bytes per point, a block a tile, 45/45 on the
    emu (no emu test looked at blocks in lab 07) and as slow on a GPU as one multiprocessor. The
    new `emu_blocks` fails it in depth mode: the bytes only 1.2 times its longest chain,
    where the solution's are 114 times."""
    rel = "07-applications/apps.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    anchor = "  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : APP_TILE);\n  const float a0 = alt[0];\n"
    wait = ("  if (threadIdx.x == 0 && tile > 0)\n"
            "    while (statusState(statusLoad(&status[tile - 1]), epoch) != APP_PREFIX) {\n    }\n  __syncthreads();\n")
    assert text.count(anchor) == 1
    text = text.replace(anchor, anchor.replace("  const float a0", wait + "  const float a0"))
    sub = write_submission("turns_07", rel, text)
    verdict = {"emu_blocks": r"lineOfSight\(n=1048579\): its longest chain.*only 1\.2 times fewer than the 5242895.*took turns"}
    got = expect("turns_07", sub, "07", ("sight", "emu_sight", "emu_compact", "emu_blocks"), verdict, max_timeout=60)
    # the same with the altitudes read through volatile loads, which depth mode once took for
    # polls and did not count (a chain of 8 bytes a block): a poll's first read of a word counts
    load = "  loadTile(alt, base, valid, 0.0f, slope);\n"
    assert text.count(load) == 1
    text = text.replace(load, "  for (int k = 0; k < APP_ITEMS; k++) {\n    const unsigned j = tilePos(k);\n"
                              "    slope[k] = j < valid ? ((const volatile float *)alt)[base + j] : 0.0f;\n  }\n")
    sub = write_submission("turns_volatile_07", rel, text)
    return got + "; through volatile loads: " + expect("turns_volatile_07", sub, "07", ("sight", "emu_blocks"), verdict,
                                                        max_timeout=60)


def case_device_static_from_host_05():
    """Lab 05's propagate stages the input in a __device__ array with a kernel, scans it in host
    code that reads and writes the array directly, and copies it out with a second kernel (the
    fourth trial's second round: 13/13 on the propagate tests). On a GPU the host code reaches a
    host copy of the array, never the device's (nvcc warns, 20091 and 20092); on the emu the
    array was the device's. The driver's watch now covers every __device__ variable of a graded
    call: changed by the host, the call fails. (Taking nvcc's warnings as errors was tried and
    left: nvcc gives the same error for a __host__ __device__ helper that reads the variable,
    which runs right on a GPU where only device code calls it.)"""
    body = """  if (n == 0) return;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  stageIn<<<blocks, 256>>>(in, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  int32_t run = 0;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = g_stage[i];
    g_stage[i] = EXCLUSIVE ? run : run + x;
    run += x;
  }
  int32_t *from = g_stage;
  copyOut<<<blocks, 256>>>(from, out, n);
  CUDA_CHECK_LAUNCH();
"""
    sub = staged_05("device_static_from_host_05", body)
    return all_fail("device_static_from_host_05", sub, "05", ("propagate_inc", "propagate_exc"),
                    r"outputs or __device__ variables changed after the device last wrote them")


STAGE_05 = """static size_t levelInts(size_t tiles) { return (tiles + 3) / 4 * 4; }
__device__ int32_t g_stage[1 << 25];
static __global__ void stageIn(const int32_t *in, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g_stage[i] = in[i];
}
static __global__ void copyOut(const int32_t *from, int32_t *out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = from[i];
}
"""


def staged_05(case, body):
    """Lab 05's solution with its propagate() replaced by `body`, STAGE_05 beside it."""
    rel = "05-global-scan/global_scan.cu"
    text = open(os.path.join(ROOT, "solutions", rel)).read()
    level = "static size_t levelInts(size_t tiles) { return (tiles + 3) / 4 * 4; }\n"
    text = text.replace(level, STAGE_05, 1)
    text = replace_region(text, "05", "static void propagate(const int32_t *in", body)
    return write_submission(case, rel, text)


def case_static_by_pointer_05():
    """Lab 05's propagate stages the input in a __device__ array, scans it in place in host code
    through a pointer it takes to the array (nvcc says nothing of that), and copies it out with a
    kernel. The emu watches every __device__ variable
    during a graded call as it does the outputs: changed by host code, the call fails."""
    body = """  if (n == 0) return;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  stageIn<<<blocks, 256>>>(in, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  int32_t *p = g_stage, run = 0;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = p[i];
    p[i] = EXCLUSIVE ? run : run + x;
    run += x;
  }
  copyOut<<<blocks, 256>>>(p, out, n);
  CUDA_CHECK_LAUNCH();
"""
    sub = staged_05("static_by_pointer_05", body)
    return all_fail("static_by_pointer_05", sub, "05", ("propagate_inc", "propagate_exc"),
                    r"outputs or __device__ variables changed after the device last wrote them")


def case_kernel_loads_host_05():
    """Lab 05's propagate stages the input in a __device__ array, reads it in host code through a
    pointer, scans into malloc'd host memory, and has a kernel load the scan from there (the
    second round: 13/13 on the propagate tests). A GPU fails that load; the emu now does too,
    once the kernel has read its arguments (which the emu keeps in the host's memory)."""
    body = """  if (n == 0) return;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  stageIn<<<blocks, 256>>>(in, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  const int32_t *p = g_stage;
  int32_t *h = (int32_t *)malloc(n * sizeof(int32_t)), run = 0;
  for (size_t i = 0; i < n; i++) {
    h[i] = EXCLUSIVE ? run : run + p[i];
    run += p[i];
  }
  copyOut<<<blocks, 256>>>(h, out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  free(h);
"""
    sub = staged_05("kernel_loads_host_05", body)
    return all_fail("kernel_loads_host_05", sub, "05", ("propagate_inc", "propagate_exc"),
                    r"loads from the host's own memory")


def case_kernel_on_host_memory_05():
    """Lab 05: propagate() scans on the host in a malloc'd buffer that one kernel fills from the
    input and another copies to the output: no cudaMemcpy, so no copy counted, and a kernel
    stores every output. An H200 (pageableMemoryAccess 0) fails the first launch with
    cudaErrorIllegalAddress (0/5 there); the emu let kernels use the host's memory and graded it
    5/5. A kernel's store to the host's own memory now ends the run, as on the GPU."""
    text = open(os.path.join(ROOT, "solutions", "05-global-scan", "global_scan.cu")).read()
    kernel = text.index("addOffsetsKernel(int32_t *out, size_t n, const int32_t *offsets) {")
    helpers = region_after(text[text.index("/* STUDENT-END(lab05) */", kernel):], "STUDENT-END")  # the host helpers'
    sub = make_submission("host_memory_05", "05-global-scan/global_scan.cu",
                          region_after(text, "static void propagate(const int32_t *in"), HOST_SCAN_05,
                          edits=[(helpers, helpers + HOST_COPY_05)])
    reason = r"stores to the host's own memory"
    return expect("host_memory_05", sub, "05", ("propagate_inc", "propagate_exc", "block_example"),
                  {"propagate_inc": reason, "propagate_exc": reason}, max_timeout=60)


# ---- what the earlier tests passed at full marks on the emu ---------------------------------

LAB06_MISSED = (
    # the block scan's last barrier: the header promises temp is free when it returns
    ("  __syncthreads(); /* everyone has read temp: free to reuse */\n", ""),
    # the look-back's windows combined the wrong way round (the nearer on the left)
    ("carry = have ? op(window, carry) : window;", "carry = have ? op(carry, window) : window;"),
    # a 32-bit element offset: right up to 2^32 elements
    ("const size_t tile_base = (size_t)tile * SS_GLOBAL_TILE;", "const size_t tile_base = tile * SS_GLOBAL_TILE;"),
    # (for its message) the segmented operator that drops the left pair's flag
    ("  c.flag = a.flag | b.flag; ", "  c.flag = b.flag; "))
LAB06_EARLIER = ("block_inc", "block_exc", "global_inc", "global_exc", "global_flags", "global_long", "in_place",
                 "repeat", "huge")


def case_lab06_missed():
    """Lab 06 on the emu: three faults in one submission, each of which the tests before
    block_twice, lookback_windows and offsets_64 passed at full marks (they still do): a block
    scan without its last barrier, whose temp a second call at once reuses; a look-back that puts
    the nearer window on the left, which only a look-back over several windows shows; element
    offsets in 32 bits, which only an index past 2^32 shows. Each new test fails with its reason.
    And, for its message, an operator that keeps only the right pair's flag: `operator` names the
    pairs, what was expected and that the flag is lost (it once printed equal values and no
    flag)."""
    rel = "06-segmented-scan/seg_scan.cu"
    sub = make_submission("lab06_missed", rel, edits=LAB06_MISSED)
    return expect("lab06_missed", sub, "06", LAB06_EARLIER + ("block_twice", "lookback_windows", "offsets_64", "operator"),
                  {"operator": r"a = \(flag 0x[0-9a-f]+, -?\d+\), b = \(flag 0x00, -?\d+\): expected \(flag 0x[0-9a-f]+, "
                               r"-?\d+\) \(flag set or not\), got \(flag 0x00, -?\d+\): the flag is lost",
                   "block_twice": r"emu: race on .* in different warps with no __syncthreads between them: "
                                  r"__syncthreads\(\) between the two accesses orders them",
                   "lookback_windows": r"returned the carry .*, expected .*: the windows' values combined in order",
                   "offsets_64": r"elements \[4294950912, \d+\), past 2\^32.*(SIGSEGV|first mismatch)"},
                  max_timeout=30)


LAB07_MISSED = (
    # the radix ranking's middle __syncwarp: a lane reads its digit's mask as the lowest clears it
    ("    __syncwarp(); /* every lane has read its mask before it is cleared */\n", ""),
    # 32-bit element offsets in the one-pass compaction and the partition: right up to 2^32
    ("  const size_t base = tile * APP_TILE;\n  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : "
     "APP_TILE);\n  int32_t v[APP_ITEMS];", "  const size_t base = (unsigned)tile * APP_TILE;\n  const unsigned valid = "
     "(unsigned)(n - base < APP_TILE ? n - base : APP_TILE);\n  int32_t v[APP_ITEMS];"),
    ("  const size_t base = tile * APP_TILE;\n  const unsigned valid = (unsigned)(n - base < APP_TILE ? n - base : "
     "APP_TILE);\n  T v[APP_ITEMS];", "  const size_t base = (unsigned)tile * APP_TILE;\n  const unsigned valid = "
     "(unsigned)(n - base < APP_TILE ? n - base : APP_TILE);\n  T v[APP_ITEMS];"))


LOOKBACK_UNPUBLISHED = (
    ("    if (lane == 0) statusStore(&status[tile], epoch, SS_FLAG_PREFIX, aggregate); /* at once */\n",
     "    /* never published */\n"),
    ("    statusStore(&status[tile], epoch, SS_FLAG_AGGREGATE, aggregate);\n", "    /* never published */\n"),
    ("  if (!has_head && lane == 0) statusStore(&status[tile], epoch, SS_FLAG_PREFIX, op(carry, aggregate));\n",
     "  /* never published */\n"))


def lookback_hang_submission():
    return make_submission("lookback_hang", "06-segmented-scan/seg_scan.cu", edits=LOOKBACK_UNPUBLISHED)


def case_lookback_hang_tile():
    """Lab 06 on the emu: the look-back that never publishes (case_lookback_hang) still passes
    the tests of one tile, which have no look-back. This half builds the driver, among the other
    known-bad submissions; the timed half, run last, finds it built (the build is keyed by the
    code)."""
    code, out, data = grade("lookback_hang_tile", lookback_hang_submission(), ["06"], tests=("examples",),
                            max_timeout=60)
    e = selftest.by_name(data).get("examples", {})
    if e.get("status") != "passed":
        raise CheckFailed("case lookback_hang: examples (one tile, no look-back) should pass, got: "
                          f"{e.get('status')} {e.get('output', '').splitlines()[:4]}")
    return "examples (one tile, no look-back) still OK"


def case_lookback_hang():
    """Lab 06 on the emu: a look-back that never publishes waits for ever on the tile before it.
    Each test of more than one tile fails within 10 s (the emu names the hang after 5 s without
    progress), as a hang: which blocks run, the warp that spins and what it read last (a status
    word), the warps that wait at the barrier; never as a crash or as memory running out (the
    spinning warp's log used to fill the driver's memory: signal 6, "out of memory for the
    memory probes' log", after the 117 s watchdog). case_lookback_hang_tile checks that the tests
    of one tile still pass, and builds the driver first."""
    import time
    t0 = time.monotonic()
    code, out, data = grade("lookback_hang", lookback_hang_submission(), ["06"], tests=("global_inc", "huge"),
                            max_timeout=60)
    took = time.monotonic() - t0
    got = selftest.by_name(data)
    problems = []
    for name in ("global_inc", "huge"):
        e = got.get(name, {})
        text = e.get("output", "")
        if e.get("status") != "failed" or "hangs: the emulator stopped it" not in text or \
                not re.search(r"emu: hang: block \(\d+,0,0\): warp 0 spins .* a volatile load of global memory", text):
            problems.append(f"{name}: should FAIL as a hang naming the spinning warp, got: {text.splitlines()[:4]}")
        if re.search(r"signal|out of memory|SIGABRT", text):
            problems.append(f"{name}: reported as a crash or out of memory: {text.splitlines()[:4]}")
        m = re.search(rf"^\s+{name}: FAIL \((\d+\.\d)s\)", out, re.M)
        if not m or float(m.group(1)) >= 10:
            problems.append(f"{name}: took {m.group(1) if m else '?'} s (at most 10)")
    if problems:
        raise CheckFailed("\n    ".join(["case lookback_hang:"] + problems))
    times = re.findall(r"(global_inc|huge): FAIL \((\d+\.\d)s\)", out)
    return "2 FAIL as hangs, in " + " and ".join(f"{t} s" for _, t in times) + f" ({took:.0f} s in all)"


def case_lab07_missed():
    """Lab 07 on the emu: the radix sort's ranking without the __syncwarp between the lanes'
    reads of their digit's mask and the lowest lane's clearing of it (its TODO asks for it), and the compaction's and the
    partition's element offsets in 32 bits. The earlier tests passed both; the sorts now fail as
    races, naming __syncwarp, and offsets_64 fails past 2^32."""
    rel = "07-applications/apps.cu"
    sub = make_submission("lab07_missed", rel, edits=LAB07_MISSED)
    race = (r"emu: race on a __shared__ array's shared memory .* in kernel radixOnesweepKernel.*in one warp with no "
            r"__syncwarp between them: __syncwarp\(\) between the two accesses orders them")
    return expect("lab07_missed", sub, "07", ("compact_single", "partition", "huge", "split", "sort_keys",
                                              "sort_pairs", "offsets_64"),
                  {"sort_keys": race, "sort_pairs": race,
                   "offsets_64": r"elements \[4294959104, \d+\), past 2\^32.*(SIGSEGV|wrong|output element)"},
                  max_timeout=30)


def case_partition_single_forgets():
    """Lab 07 on the emu: the one-pass partition placing a tile's others from the array's end as
    if no earlier tile had any (n - 1 - (j - kept)): right on one tile (the slides' example),
    wrong from the second on, where partition_single names the first wrong element."""
    rel = "07-applications/apps.cu"
    sub = make_submission("partition_single_forgets", rel,
                          "    const size_t last = n - 1 - (base - before); /* where this tile's first other goes */\n",
                          "    const size_t last = n - 1; /* forgets the earlier tiles' others */\n")
    return expect("partition_single_forgets", sub, "07", ("compact_example", "partition", "partition_single"),
                  {"partition_single": r"partitionSinglePass\(n=\d+.*first mismatch at \[\d+\]"}, max_timeout=30)


def case_slowed_unpadded():
    """Lab 03: the padded speedup made by slowing the unpadded scan down fails its own bar."""
    rel = "03-blelloch/blelloch.cu"
    head = ("__global__ void scanExcBlellochKernel(const int32_t *in, int32_t *out, size_t n) {\n"
            "  /* STUDENT-BEGIN(lab03) */\n")
    delay = ("  if (threadIdx.x == 0) { long long t0 = clock64(); while (clock64() - t0 < 40000) {} }\n"
             "  __syncthreads();\n")
    sub = make_submission("slowed_unpadded", rel, head, head + delay, outside_ok=True)
    return expect("slowed_unpadded", sub, "03", ("example", "timing"),
                  {"timing": r"scanExcBlelloch\(n=\d+, block=\d+\) reached [0-9.]+ of copy bandwidth; the threshold"},
                  max_timeout=200, backend="cuda")


PREPARED = r"""
/* Known-bad: answers prepared ahead. The timed calls' seeds used to follow from the manifest's
 * seed (seed * 1000003 + batch * 131 + call + 1) and their inputs from a public formula: at the
 * first call of the timed size, compute all 40 answers; in a timed call, find the one whose
 * input this is and copy it out. Otherwise scan slowly (one block). */
static __device__ int32_t prepGen(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (int32_t)(-1000 + (int64_t)(((z >> 32) * 2001ull) >> 32));
}
static __global__ void prepGenKernel(int32_t *p, size_t n, uint64_t seed, int32_t *first) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    p[i] = prepGen(seed, i);
    if (i < 4) first[i] = p[i];
  }
}
static __global__ void prepPickKernel(const int32_t *in, const int32_t *first, int count, int *pick) {
  const int s = threadIdx.x;
  if (s == 0) *pick = -1;
  __syncthreads();
  if (s < count && in[0] == first[4 * s] && in[1] == first[4 * s + 1] && in[2] == first[4 * s + 2] &&
      in[3] == first[4 * s + 3])
    *pick = s;
}
static __global__ void prepCopyKernel(int32_t *const *stash, const int *pick, int32_t *out, size_t n) {
  if (*pick < 0) return;
  const int32_t *src = stash[*pick];
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = src[i];
}
static __global__ void prepSlowKernel(const int32_t *in, int32_t *out, size_t n, const int *pick) {
  __shared__ int32_t s[1024];
  if (*pick >= 0) return;
  const size_t per = (n + 1023) / 1024, lo = threadIdx.x * per, hi = lo + per < n ? lo + per : n;
  int32_t acc = 0;
  for (size_t i = lo; i < hi; i++) acc += in[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int t = 1; t < 1024; t++) s[t] += s[t - 1];
  __syncthreads();
  acc = threadIdx.x ? s[threadIdx.x - 1] : 0;
  for (size_t i = lo; i < hi; i++) out[i] = acc += in[i];
}
static int32_t *g_prepStash[40], **g_prepStashDev, *g_prepFirst;
static int *g_prepPick, g_prepCount = -1;
"""

PREPARED_CALL = r"""
  static bool busy = false; /* the prepared path's own scans take the normal one */
  if (!EXCLUSIVE && !busy && n == ((size_t)1 << 26)) {
    busy = true;
    if (g_prepCount < 0) { /* the first call of this size: the untimed check; prepare 40 answers */
      g_prepCount = 0;
      CUDA_CHECK(cudaMalloc((void **)&g_prepFirst, 40 * 4 * sizeof(int32_t)));
      CUDA_CHECK(cudaMalloc((void **)&g_prepPick, sizeof(int)));
      CUDA_CHECK(cudaMalloc((void **)&g_prepStashDev, 40 * sizeof(int32_t *)));
      int32_t *tmp = NULL;
      CUDA_CHECK(cudaMalloc((void **)&tmp, n * sizeof(int32_t)));
      for (int b = 0; b < 5; b++)
        for (int k = 0; k < 8; k++) {
          const uint64_t seed = 42ull * 1000003ull + (uint64_t)b * 131ull + (uint64_t)k + 1ull;
          if (cudaMalloc((void **)&g_prepStash[g_prepCount], n * sizeof(int32_t)) != cudaSuccess) break;
          prepGenKernel<<<4096, 256>>>(tmp, n, seed, g_prepFirst + 4 * g_prepCount);
          propagate<false>(tmp, g_prepStash[g_prepCount], n);
          prepStorePtr<<<1, 1>>>(g_prepStashDev, g_prepCount, g_prepStash[g_prepCount]);
          g_prepCount++;
        }
      CUDA_CHECK(cudaFree(tmp));
      propagate<false>(in, out, n);
    } else {
      prepPickKernel<<<1, 64>>>(in, g_prepFirst, g_prepCount, g_prepPick);
      prepCopyKernel<<<4096, 256>>>(g_prepStashDev, g_prepPick, out, n);
      prepSlowKernel<<<1, 1024>>>(in, out, n, g_prepPick);
    }
    busy = false;
    return;
  }
"""


def case_prepared_answers():
    """Lab 05 on a GPU: answers computed ahead for the timed calls' inputs, predicted from the
    manifest's seed, then copied out in the timed calls (a slow scan otherwise). The timed
    calls' seeds are now drawn at random by the test just before each batch, and their inputs
    made in the test's memory: nothing matches, the slow scan runs, and the timing fails."""
    rel = "05-global-scan/global_scan.cu"
    helpers = PREPARED + "static __global__ void prepStorePtr(int32_t **dst, int s, int32_t *p) { dst[s] = p; }\n"
    sub = make_submission("prepared_answers", rel, SCRATCH, helpers + SCRATCH,
                          edits=[(PROP_BODY, "  if (n == 0) return;\n" + PREPARED_CALL + "  size_t ints = 0, m = n;\n")])
    return expect("prepared_answers", sub, "05", ("propagate_inc", "timing_propagate"),
                  {"timing_propagate": r"reached 0\.0\d+ of copy bandwidth"}, max_timeout=240, backend="cuda")


def case_flags_modified_when_timed():
    """Lab 06: a single pass that writes its flags (element 0's, to 0x80: still a head, so no
    result changes) only from its third call on, that is only in the timed batches: the harness checks the extra
    inputs of timed calls unchanged too."""
    rel = "06-segmented-scan/seg_scan.cu"
    head = "                        ss_status *status, unsigned *counter, unsigned epoch, bool stream) {\n  /* STUDENT-BEGIN(lab06) */\n"
    poke = ("  if (epoch > 2 && blockIdx.x == 0 && threadIdx.x == 0 && n > ((size_t)1 << 20))\n"
            "    ((uint8_t *)flags)[0] = 0x80;\n")
    sub = make_submission("flags_modified_when_timed", rel, head, head + poke, outside_ok=True)
    return expect("flags_modified_when_timed", sub, "06", ("timing_global",),
                  {"timing_global": r"the input was modified \(it is const\)"}, max_timeout=240, backend="cuda")


def case_host_scan_gpu():
    """Host work on a GPU (the third trial's fourth case): lab 05's scan-then-propagate done on
    the host between two cudaMemcpy calls, in a lab that allows them (the trial reached them by a
    computed address). A GPU's device memory is not the host's, so the kit does not see the
    copies; the scan is right and the correctness tests pass, and the timing test fails it: the
    host's scan runs far below the threshold (the grader page's trust section says why this is
    the fence on a GPU)."""
    rel = "05-global-scan/global_scan.cu"
    sub = make_submission("host_scan_gpu", rel, PROP_BODY, HOST_SCAN + PROP_BODY)
    return expect("host_scan_gpu", sub, "05", ("propagate_inc", "propagate_exc", "timing_propagate"),
                  {"timing_propagate": r"reached 0\.0\d+ of copy bandwidth"}, max_timeout=240, backend="cuda",
                  env=allowing("05", "cudaMemcpy*", "malloc", "free"))


def case_busy_thread_gpu():
    """The yardstick slowed (the third trial's third case): lab 05's scan-then-propagate slowed
    down (every call runs a delay kernel too), with a thread of its own, started at the first
    call of the timing test's size, that keeps launching delay kernels so the copy the test times shares the GPU.
    The trial's copy measured about a third of its speed alone and the slow scan passed. Now the
    call that leaves the thread running fails, and the yardstick runs with the student's driver
    ended."""
    rel = "05-global-scan/global_scan.cu"
    helpers = ("static __global__ void busyDelay(unsigned long long cycles) {\n"
               "  const long long t0 = clock64();\n  while (clock64() - t0 < (long long)cycles) {\n  }\n}\n"
               "extern \"C\" int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);\n"
               "static void *busyLoop(void *) {\n  cudaStream_t s;\n  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
               "  for (int k = 0; k < 200000; k++) busyDelay<<<264, 128, 0, s>>>(20000);\n  return 0;\n}\n")
    start = ("  if (n == 0) return;\n  static bool busy = false;\n"
             "  if (n > (1u << 25) && !busy) {\n    unsigned long t;\n    busy = pthread_create(&t, 0, busyLoop, 0) == 0;\n  }\n"
             "  busyDelay<<<1, 1>>>(2000000);\n  size_t ints = 0, m = n;\n")
    sub = make_submission("busy_thread_gpu", rel, SCRATCH, helpers + SCRATCH, edits=[(PROP_BODY, start)])
    return expect("busy_thread_gpu", sub, "05", ("propagate_inc", "timing_propagate"),
                  {"timing_propagate": r"a thread the kit did not start"}, max_timeout=240, backend="cuda",
                  env=allowing("05", "pthread_create", "cudaStreamCreateWithFlags"))


# ---- the control channel: replies nobody asked for ------------------------------------------------

# A reply to a run, as the driver's would look (grader/trusted/harness/hx_proto.h's hxp_reply: magic, type 5,
# status 0, then zeros; at offset 40 the number of counters and from 48 the counters themselves).
REPLY_BYTES = 1320


def forged_reply_c(var, counters=None):
    """C statements that fill `unsigned char var[REPLY_BYTES]` with a forged reply to a run."""
    text = (f"    unsigned char {var}[{REPLY_BYTES}];\n    memset({var}, 0, sizeof {var});\n"
            f"    const unsigned f_magic = 0x5343414Eu, f_type = 5;\n"
            f"    memcpy({var}, &f_magic, 4);\n    memcpy({var} + 4, &f_type, 4);\n")
    if counters:
        text += f"    const unsigned f_counted = 14;\n    memcpy({var} + 40, &f_counted, 4);\n"
        for k, expr in counters.items():
            text += f"    {{ const unsigned long long c = {expr}; memcpy({var} + 48 + 8 * {k}, &c, 8); }}\n"
    return text


def tampering_pair(case, run_one):
    """Runs `run_one(env)` twice: confined (the default: the forged reply never leaves the call
    thread, so the honest verdict stands) and with SCANLAB_UNCONFINED=1 (the reply reaches the
    test, which fails the test as tampering). Returns both details."""
    confined = run_one({})
    unconfined = run_one({"SCANLAB_UNCONFINED": "1"})
    return f"confined: {confined}; unconfined: {unconfined}"


def grade_env(case, sub, lab, tests, env, max_timeout=None, backend="emu"):
    results = os.path.join(selftest.BUILD, f"bad-{case}.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", backend, "--submission", sub,
           "--results", results, "--lab", lab]
    for t in tests:
        cmd += ["--test", t]
    if max_timeout:
        cmd += ["--max-timeout", str(max_timeout)]
    code, out = selftest.sh(cmd, env=dict(env, NO_COLOR="1"))
    data = json.load(open(results)) if os.path.exists(results) else {"tests": []}
    return code, out, selftest.by_name(data)


def case_forged_reply():
    """Lab 01: a scan five times slower than it need be that first answers the test's run itself,
    on the control descriptor. Before the control channel's rules, the forged reply stopped the
    clock and was taken (the timing test passed at several times memcpy's speed)."""
    forge = ("  if (n > 1000000) { /* the timed size: answer the run before doing it */\n" + forged_reply_c("r") +
             "    long write(int, const void *, unsigned long);\n    (void)write(3, r, sizeof r);\n  }\n")
    slow = ("  { /* four more passes over the input: honest timing shows them */\n"
            "    volatile unsigned char sink = 0;\n"
            "    for (int rep = 0; rep < 4; rep++)\n"
            "      for (size_t i = 0; i < n * size; i++) sink = (unsigned char)(sink + ((const unsigned char *)src)[i]);\n"
            "  }\n")
    sub = make_submission("forged_reply", LAB01_FILE, INC_BODY, forge + INC_BODY,
                          edits=[(INC_LOOP_END, INC_LOOP_END + slow)])

    def run_one(env):
        code, out, got = grade_env("forged_reply", sub, "01", ("inc_example", "timing"), env, max_timeout=120)
        t = got.get("timing", {})
        text = t.get("output", "")
        if re.search(r"does not build.*write", text, re.S):
            return "refused at build (write is not among lab 01's calls)"
        if got.get("inc_example", {}).get("status") != "passed":
            raise CheckFailed(f"forged_reply: inc_example should still pass: {got.get('inc_example')}")
        if env:
            if t.get("status") != "failed" or "tampering with the control channel" not in text:
                raise CheckFailed(f"forged_reply, unconfined: timing should FAIL as tampering, got {t.get('status')}: "
                                  f"{text[:400] or out[-600:]}")
            return "timing FAIL as tampering"
        m = re.search(r"([0-9.]+) of memcpy", text)
        if "tampering" in text or not m or float(m.group(1)) >= 0.9:
            raise CheckFailed(f"forged_reply, confined: timing should be measured honestly (well under memcpy's "
                              f"speed), got {t.get('status')}: {text[:400] or out[-600:]}")
        return f"timing measured honestly at {m.group(1)} of memcpy ({t.get('status')})"
    return tampering_pair("forged_reply", run_one)


def case_forged_counts():
    """Lab 05 on the emu: a single pass that reads its input twice, and whose kernel (thread 0 of
    block 0, in code nvcc's device pass never sees) answers the run with ideal counters. Before,
    the forged reply was taken and emu_traffic passed at 8 bytes per element."""
    rel = "05-global-scan/global_scan.cu"
    old = "  /* 3. Scan the warp's rows: each lane scans its 4,"
    twice = ("#pragma unroll\n  for (int r = 0; r < ROWS; r++)\n    if (base + r * 128 < n) {\n"
             "      const int32_t *p = in + base + r * 128;\n      (void)*(const volatile int32_t *)p;\n    }\n"
             "#ifndef __CUDA_ARCH__\n  if (blockIdx.x == 0 && threadIdx.x == 0) forgeCounts(n);\n#endif\n")
    counters = {1: "n / 8", 3: "n / 8", 0: "n / 32", 2: "n / 32"}
    forge = ("#include <unistd.h>\n#ifndef __CUDA_ARCH__\nstatic void forgeCounts(size_t n) {\n" +
             forged_reply_c("r", counters) + "    (void)!write(3, r, sizeof r);\n}\n#endif\n")
    sub = make_submission("forged_counts", rel, old, twice + old, edits=[(SCRATCH, forge + SCRATCH)])
    tests = ("lookback_inc", "emu_traffic")

    def run_one(env):
        code, out, got = grade_env("forged_counts", sub, "05", tests, env, max_timeout=60)
        t = got.get("emu_traffic", {})
        text = t.get("output", "")
        if re.search(r"does not build.*(__CUDA_ARCH__|backend)", text, re.S):
            return "refused at build (it tells the backends apart)"
        if env:
            if t.get("status") != "failed" or "tampering with the control channel" not in text:
                raise CheckFailed(f"forged_counts, unconfined: emu_traffic should FAIL as tampering, got "
                                  f"{t.get('status')}: {text[:400] or out[-600:]}")
            return "emu_traffic FAIL as tampering"
        if t.get("status") != "failed" or not re.search(r"moved 1[12]\.\d+ bytes per element", text):
            raise CheckFailed(f"forged_counts, confined: emu_traffic should FAIL on the true count, got "
                              f"{t.get('status')}: {text[:400] or out[-600:]}")
        return "emu_traffic FAIL on the true count (" + re.search(r"moved (\S+) bytes", text).group(1) + ")"
    return tampering_pair("forged_counts", run_one)


# ---- lab 08: scans across ranks ------------------------------------------------------------------

LAB08 = "08-multi-gpu/multi_gpu.cu"
LAB08_TESTS = ("carry", "example", "propagate_shards", "rts_shards", "compact_shards", "no_host_sync")


def case_lab08_no_carry():
    """Lab 08 on the emu: the single pass starts tile 0 from 0, not from *carry. Scan-then-
    propagate (a zero carry) still passes; carry names the carry it was given, and
    reduce-then-scan, which needs it, fails too."""
    sub = make_submission("lab08_no_carry", LAB08,
                          "lookbackWarp(status, tile, aggregate, tile == 0 ? *carry : 0)",
                          "lookbackWarp(status, tile, aggregate, 0)")
    return expect("lab08_no_carry", sub, "08", LAB08_TESTS,
                  {"carry": r"scanIncCarry\(n=\d+, \*carry=-?\d+, seed=\d+\): first mismatch at \[0\]",
                   "rts_shards": r"scanShardsReduceThenScan\(\d ranks?, shards .*rank \d: first mismatch",
                   "example": r"scanShardsReduceThenScan\(3 ranks.*rank 2: first mismatch at \[0\]: expected 11, got 0",
                   "no_host_sync": r"scanShardsReduceThenScan\(3 ranks.*first mismatch"},
                  max_timeout=60)


def case_lab08_host_sync():
    """Lab 08 on the emu: reduce-then-scan waits for its stream after the all-gather. The answers
    are right; no_host_sync alone fails, naming the rank and cudaStreamSynchronize."""
    sub = make_submission("lab08_host_sync", LAB08,
                          "  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */\n",
                          "  CUDA_CHECK(cudaStreamSynchronize(rank->stream)); /* waits for the device */\n"
                          "  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */\n")
    return expect("lab08_host_sync", sub, "08", LAB08_TESTS,
                  {"no_host_sync": r"scanShardsReduceThenScan\(3 ranks.*rank \d waited for the device inside the "
                                   r"call \(cudaStreamSynchronize\)"},
                  max_timeout=60)


def case_lab04_lane0_twice():
    """Lab 04 on the emu: lane 0 adds its own value again in the first step (lane + 1 >= d). Every
    scan is wrong at element 0, emu_shared included, whose run it counts on; its message says
    that the mismatch is the fault, not the scan's use of shared memory."""
    sub = make_submission("lab04_lane0_twice", "04-warp-scan/warp_scan.cu",
                          "    if (lane >= d) x = op(y, x);  /* the earlier lanes' value on the left */\n",
                          "    if (lane + 1 >= d) x = op(y, x);  /* lane 0 takes its own value twice */\n")
    return expect("lab04_lane0_twice", sub, "04", ("inc_one_warp", "emu_shared"),
                  {"inc_one_warp": r"first: lane 0 expected 3, got 6",
                   "emu_shared": r"emu_shared counts a scan's shared-memory accesses only when its answer is right: "
                                 r"the wrong answer above is the fault"})


def case_lab02_db_race_graded():
    """Lab 02 on the emu, as make grade builds it (-O2, where the kernel used to be inlined into
    its launch and the race named the emulator's header): the double buffer without its barrier
    between steps; the race names the student's line in kogge_stone.cu, and the lab's note
    (race_note in its manifest) names __syncthreads, the barrier the block's array needs, where
    the two lanes caught are of one warp."""
    sub = make_submission("lab02_db_race", "02-kogge-stone/kogge_stone.cu",
                          "    __syncthreads();                              /* all of dst written, all of src read */\n",
                          "")
    return expect("lab02_db_race", sub, "02", ("tiles", "ks_example"),
                  {"tiles": r"race on dynamic shared memory .* writes it at kogge_stone\.cu:\d+ and thread "
                            r"\(1,0,0\) reads it at kogge_stone\.cu:\d+[^\n]*\n\s*note: each of this lab's kernels "
                            r"shares one array across its whole block: the barriers .* are __syncthreads\(\)"})


def case_lab03_half_unloaded():
    """Lab 03 on the emu: the upper half of each tile is never loaded into shared memory. The
    scans read the emulator's fill of shared memory no thread wrote (0xCDCDCDCD, added to), and
    the message says so; the padded scan, untouched, passes."""
    sub = make_submission("lab03_half_unloaded", "03-blelloch/blelloch.cu",
                          "  tile[t + half] = base + t + half < n ? in[base + t + half] : 0;\n", "")
    return expect("lab03_half_unloaded", sub, "03", ("example", "padded_example"),
                  {"example": r"expected 15, got -842150440 \(near 0xCDCDCDCD, -842150451: on the emu, shared memory "
                              r"that no thread wrote before it was read, then added to\)"})


def case_lab08_host_carry():
    """Lab 08 on the emu: reduce-then-scan sums the carry on the host (the totals copied down, the
    carry copied up with cudaMemcpyAsync). The answers are right; every test of reduce-then-scan
    fails on the emu's count of the bytes copied through the host (on a GPU, where bytes are not
    counted, no_host_sync names the copy: the driver counts cudaMemcpyAsync with host memory)."""
    sub = make_submission("lab08_host_carry", LAB08,
                          "  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */\n",
                          "  int32_t host[MG_RANKS_MAX], c = 0; /* the carry summed on the host */\n"
                          "  CUDA_CHECK(cudaMemcpyAsync(host, gathered, rank->size * sizeof(int32_t), cudaMemcpyDeviceToHost, rank->stream));\n"
                          "  for (int q = 0; q < rank->rank; q++) c += host[q];\n"
                          "  CUDA_CHECK(cudaMemcpyAsync(carry, &c, sizeof c, cudaMemcpyHostToDevice, rank->stream));\n")
    return expect("lab08_host_carry", sub, "08", LAB08_TESTS,
                  {t: r"scanShardsReduceThenScan copied \d+ bytes between the device and the host"
                   for t in ("example", "rts_shards", "no_host_sync")},
                  max_timeout=60)


def case_lab08_ptsz_sync():
    """Lab 08: a wait called by its per-thread-stream name (cudaStreamSynchronize_ptsz), which the
    driver's count of waits would not see, is refused at the build, named with its line."""
    sub = make_submission("lab08_ptsz_sync", LAB08,
                          "  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */\n",
                          "  cudaStreamSynchronize_ptsz(rank->stream); /* the same wait, another name */\n"
                          "  carryKernel<<<1, 1, 0, rank->stream>>>(gathered, rank->rank, carry); /* 2: the carry */\n")
    return all_fail("lab08_ptsz_sync", sub, "08", LAB08_TESTS,
                    r"(?s)does not build.*:\d+: cudaStreamSynchronize_ptsz: not allowed")


def lab08_skips_allgather():
    """The solution of lab 08 with a rank of an empty shard skipping reduce-then-scan's all-gather
    (also run as processes by ranks.py): its folder."""
    return make_submission("lab08_skips_allgather", LAB08,
                          "  if (ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)\n"
                          "    fprintf(stderr, \"scanShardsReduceThenScan: ncclAllGather failed",
                          "  if (n && ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)\n"
                          "    fprintf(stderr, \"scanShardsReduceThenScan: ncclAllGather failed")


def case_lab08_skips_allgather():
    """Lab 08 on the emu: a rank with an empty shard skips the all-gather of reduce-then-scan.
    Its peers wait in it; the kit's NCCL stand-in names the rank that returned and the
    collective the others wait in, at once (no hang)."""
    sub = lab08_skips_allgather()
    skipped = (r"rank \d returned after 0 collectives while (rank \d waits in its|ranks \d(, \d)+ wait in their) 1st "
               r"collective, ncclAllGather of 1 x ncclInt32: every rank must call the same collectives in the same order")
    return expect("lab08_skips_allgather", sub, "08", LAB08_TESTS,
                  {"rts_shards": skipped, "example": skipped}, max_timeout=60, workers=MACHINE_FREE_WORKERS)


def case_lab08_wrong_device():
    """Lab 08 on the emu: scan-then-propagate adds the carry from rank 0's gathered totals, kept
    in a static that rank 0 sets before its all-gather: every other rank, on another (virtual)
    device, launches with a pointer of device 0, which the emu refuses, naming both devices."""
    sub = make_submission("lab08_wrong_device", LAB08, edits=[
        ("  if (ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)\n"
         "    fprintf(stderr, \"scanShardsPropagate:",
         "  static int32_t *first_gathered; /* rank 0's, for every rank: another device's memory */\n"
         "  if (rank->rank == 0) first_gathered = gathered;\n"
         "  if (ncclAllGather(total, gathered, 1, ncclInt32, rank->comm, rank->stream) != ncclSuccess)\n"
         "    fprintf(stderr, \"scanShardsPropagate:"),
        ("(out, n, gathered, rank->rank);", "(out, n, first_gathered, rank->rank);")])
    device = r"device [1-9]\d*.*device 0|device 0.*device [1-9]"
    return expect("lab08_wrong_device", sub, "08", LAB08_TESTS,
                  {"propagate_shards": device, "example": device, "no_host_sync": device}, max_timeout=60)


CASES = [
    ("wrong answer", case_wrong_answer),
    ("segmentation fault", case_segfault),
    ("endless loop (the test stops it)", case_endless_loop),
    ("lab 01: a quadratic scan is called too slow", case_quadratic_scan),
    ("lab 01: noncommutative failing alone names which of its two faults", case_lab01_noncommutative),
    ("write past the end", case_write_past_end),
    ("write 1088 words past the end", case_far_write),
    ("input modified", case_input_modified),
    ("a kernel writes past the test's guard band (emu)", case_kernel_past_guard),
    ("lab 03: a down-sweep that reads tile[b] again after the store (emu counters)",
     case_downsweep_reread),
    ("a padded scan that pads nothing (emu counters)", case_padding_left_out),
    ("a padded scan that pads nothing, its conflicts drowned in requests (emu counters)", case_padding_diluted),
    ("a padded scan that pads nothing, its sweeps through atomics (emu counters)", case_padding_atomics),
    ("the emu's probes switched off", case_probes_switched_off),
    ("a warp scan that walks the warp (emu counters)", case_warp_walked),
    ("a warp scan with an atomic on shared memory (emu counters)", case_warp_shared_atomic),
    ("a segmented scan with uncoalesced loads and stores (emu counters)", case_segscan_uncoalesced),
    ("a single pass that scans one tile a block and returns", case_lookback_one_tile),
    ("a single pass that reads its input again through a volatile pointer (emu counters)", case_volatile_reread),
    ("a single pass that reads its input again through atomics (emu counters)", case_atomic_reread),
    ("a single pass whose two reads of the input are both volatile (emu counters)", case_volatile_both_reads),
    ("a compaction that scatters from registers (emu counters)", case_compaction_unstaged),
    ("a line of sight that stores bytes one by one (emu counters)", case_sight_byte_stores),
    ("lab 06: a block scan's temp reused, a look-back's windows out of order, 32-bit offsets", case_lab06_missed),
    ("lab 07: a radix ranking without __syncwarp, 32-bit offsets", case_lab07_missed),
    ("lab 07: a one-pass partition that forgets the earlier tiles' others", case_partition_single_forgets),
    ("lab 04: lane 0 takes its own value twice: emu_shared says the mismatch is the fault", case_lab04_lane0_twice),
    ("lab 02: a double buffer's race under make grade names the student's line", case_lab02_db_race_graded),
    ("lab 03: half of each tile never loaded: the message names the emu's fill of shared memory",
     case_lab03_half_unloaded),
    ("lab 08: a single pass that drops the carry", case_lab08_no_carry),
    ("lab 08: a reduce-then-scan that waits for its stream", case_lab08_host_sync),
    ("lab 08: a wait called by its per-thread-stream name", case_lab08_ptsz_sync),
    ("lab 08: a reduce-then-scan that sums the carry on the host", case_lab08_host_carry),
    ("lab 08: a rank with an empty shard skips the all-gather", case_lab08_skips_allgather),
    ("lab 08: every rank adds the carry from rank 0's gathered totals (another device's)", case_lab08_wrong_device),
    ("a look-back that never publishes: one tile still passes (emu)", case_lookback_hang_tile),
    ("a look-back that never publishes: a hang named within 10 s (emu)", case_lookback_hang),
    ("lab 05: a look-back that waits for the nearest tile only", case_lookback_nearest),
    ("lab 06: a look-back that never waits", case_lookback_no_wait),
    ("lab 05: a single pass chained through its output, no fence before its flag (emu)", case_weak_chained),
    ("one verdict with 1, 2 and 8 host threads and JOBS=1 and 4", case_verdicts_machine_free),
    ("lab 02: a block's scan done by thread 0 (emu counters)", case_serial_block_02),
    ("lab 02: a block's scan done by lane 0 of each warp (emu counters)", case_warp_lane_02),
    ("lab 05: scanIncBlock done by thread 0 (emu counters)", case_serial_block_05),
    ("lab 02: a serial scan through a static array of the kernel (emu counters)", case_static_serial_02),
    ("lab 02: blocks share one static array, a race between them (emu, 1 and 8 host threads)", case_block_race_02),
    ("lab 02: blocks share one static array behind fences at both ends (emu, 1 and 8 host threads)",
     case_block_race_fenced_02),
    ("lab 05: scanIncBlock done by thread 0 through a static array (emu counters)", case_static_serial_05),
    ("lab 04: a warp scan that walks the warp through a static array (emu counters)", case_static_walk_04),
    ("lab 05: a scan hidden past the probes' log of a thread (emu counters)", case_log_cap_05),
    ("lab 05: kernels that use the host's memory for a host scan (emu)", case_kernel_on_host_memory_05),
    ("lab 05: a look-back that polls with plain loads (emu counters)", case_lookback_plain_loads),
    ("lab 05: a single pass with uncoalesced loads (emu counters)", case_lookback_uncoalesced),
    ("exit in the middle of a call", case_early_exit),
    ("real-time signal 40", case_real_time_signal),
    ("SIGSTOP on itself", case_stop_self),
    ("missing student file", case_missing_file),
    ("compile error", case_compile_error),
    ("damaged STUDENT markers", case_damaged_markers),
    ("macros that expand to 2^24 tokens, an #include of /dev/zero", case_preprocessor_bombs),
    ("forged verdicts on every descriptor", case_forged_output),
    ("forged verdicts from a constructor", case_constructor_forgery),
    ("a relay started at load between the driver and the test (emu)", case_relay_at_load),
    ("code placed before the driver's fence: refused in the source and in the object", case_early_code_refused),
    ("the emu told from nvcc by the built-ins' types (if constexpr on decltype)", case_builtin_types),
    ("lab 05: a host scan on device memory the host reopened (emu)", case_host_scan_reopened),
    ("a single pass that reads its input again through memcpy (emu counters)", case_memcpy_reread),
    ("lab 01: the timed call hands its work to a thread and returns", case_thread_after_return),
    ("calls the harness's internals", case_internal_call),
    ("reads /proc", case_proc_read),
    ("forbidden call spelt by token pasting", case_pasted_name),
    ("a local variable named as a forbidden call", case_local_named_as_forbidden),
    ("replaces a function of the kit", case_replace_library),
    ("replaces the C library's memset, weakly its __memcpy_chk, and libgcc's __popcountdi2",
     case_replace_libc_ifunc),
    ("grader killed: run_autograder writes an error result", case_autograder_killed),
    ("two handin.tar.gz, then a resubmission", case_same_basename),
    ("tests a course hides on Gradescope stay out of what students see", case_hidden_tests),
    ("includes the solution", case_include_solution),
    ("folder symlinked into solutions/", case_symlink_to_solutions),
    ("edits outside the student regions", case_outside_regions),
    ("#define of a kit name", case_redefine_kit_name),
    ("library scan (cub)", case_library_scan),
    ("scan on the host with copies", case_host_scan),
    ("host code touches device memory (emu)", case_host_touches_device),
    ("kernel calls a host function (emu, nvcc)", case_kernel_calls_host),
    ("build that never ends", case_build_timeout),
    ("200 MB of output with escape codes", case_output_flood),
    ("tarball bomb", case_tarball_bomb),
    ("lab 03: the probes switched off around the real launch, on for a decoy (emu counters)", case_probes_toggled_03),
    ("lab 05: a host scan staged through a __managed__ static", case_managed_static_05),
    ("lab 05: a host scan on reopened device memory after a copy kernel stored the output (emu)", case_host_scan_laundered),
    ("lines like the emulator's printed ahead of a real fault: the real one is shown", case_forged_diagnostics),
    ("an object past the build's file limit is named as the student's", case_object_past_file_limit),
    ("a region specializes a template of the kit's code", case_kit_template_specialized),
    ("lab 02: each thread adds up the elements before its own (emu counters)", case_prefix_sums_02),
    ("lab 03: warp shuffles in place of the sweeps (emu counters)", case_shuffles_for_blelloch_03),
    ("lab 04: the shared-memory scan as shuffles and one store to s (emu counters)", case_token_store_04),
    ("lab 05: none of the global scans written, one block doing each (emu counters)", case_grid_of_one_05),
    ("lab 06: the single pass done by the block that draws tile 0 (emu counters)", case_first_block_walks_06),
    ("lab 05: every block waits for the tile before its own to be finished (emu depth)", case_turns_05),
    ("lab 06: every block waits for the tile before its own to be finished (emu depth)", case_turns_06),
    ("lab 07: the line of sight's blocks wait for the tile before its own (emu depth)", case_turns_07),
    ("lab 05: host code scans a __device__ array in place (emu watch)", case_device_static_from_host_05),
    ("lab 05: host code scans a __device__ array through a pointer (emu watch)", case_static_by_pointer_05),
    ("lab 05: a kernel loads a host scan from malloc'd memory (emu)", case_kernel_loads_host_05),
    ("the emu's counters switched off by the submission: the counters tests fail, the maximum stays", case_counters_cleared),
    ("a command in a handin's name never runs (make grade, grade-class, make test)", case_shell_in_names),
    ("zip handins: graded, or refused with the reason (a path out, a link, a bomb)", case_zip_handins),
    ("a handin whose pax header unpacks to 256 MiB", case_pax_header_bomb),
    ("refused handins leave no unpacked folder behind", case_refused_handins_leave_nothing),
    ("missing barrier fails the grade (emu)", case_missing_barrier_graded),
    ("missing __syncwarp fails the grade (emu)", case_missing_syncwarp_graded),
    ("missing barriers fail as races under every schedule (emu)", case_missing_barrier_race),
    ("lab 01: a right scan done ten times over fails its timing (CPU seconds)", case_many_passes),
    ("timing replays a saved answer", case_replay_timing),
    ("a reply to the run forged by the student's host code", case_forged_reply),
    ("a reply with ideal counters forged by a kernel (emu)", case_forged_counts),
]

GPU_CASES = [
    ("lab 05: a look-back that waits for the nearest tile only fails as on the emu",
     lambda: case_lookback_nearest("cuda")),
    ("lab 06: a look-back that never waits fails as on the emu", lambda: case_lookback_no_wait("cuda")),
    ("lab 05: a single pass chained through its output, no fence before its flag (what the GPU gives)",
     lambda: case_weak_chained("cuda")),
    ("lab 03: a down-sweep that reads tile[b] again after the store passes its timing (the emu fails it on its counted loads)",
     lambda: case_downsweep_reread("cuda")),
    ("lab 02: a block's scan done by thread 0 misses its timing, as the emu predicts",
     lambda: serial_block_case("serial_block_02", "cuda")),
    ("work on a non-blocking stream is timed", case_nonblocking_stream),
    ("a speedup made by slowing the baseline", case_slowed_unpadded),
    ("flags written only in timed calls", case_flags_modified_when_timed),
    ("answers prepared ahead for predicted timed inputs", case_prepared_answers),
    ("a host scan between two copies fails its timing (lab 05)", case_host_scan_gpu),
    ("a thread that keeps the GPU busy past the call (lab 05)", case_busy_thread_gpu),
    ("the built-ins' types: the look-back returns under nvcc as on the emu (lab 05)",
     lambda: case_builtin_types("cuda")),
    ("a relay started at load between the driver and the test", lambda: case_relay_at_load("cuda")),
]
