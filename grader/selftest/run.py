#!/usr/bin/env python3
"""The kit's own tests (`make check`).

Proves that every graded test passes on solutions/ and fails on skeletons/ (on the emu backend,
under the graded thread schedule and reverse), that skeletons and solutions differ only inside the student
regions, that the grader gives the right verdict to known-bad submissions, that the emulator
passes its own tests, and that the docs, the slides, the student kit and a handin all build
and work. Ends with a line `N passed, N failed`.

    run.py [--only NAME]... [--list]

Why one file (past 800 lines): the runner and the checks of the kit's own layout, manifests,
solutions and skeletons.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402,F401  (puts grader's folders on the path)
import grade  # noqa: E402
from common import (HERE, ROOT, BUILD, SCHEDULES, SOLUTION_SCHEDULES, REVERSE_MAX_SIZE, small_manifests,  # noqa: E402
                    CheckFailed, CPU, sh,
                    run_grader, by_name, is_skip, max_problem, BEGIN, END, autograder_layout,
                    quick_lab01_manifests)


def manifests():
    ms = grade.all_manifests()
    if not ms:
        raise CheckFailed("no manifests in grader/manifests")
    seen = {}
    for m in ms:
        if not os.path.isfile(os.path.join(ROOT, m["test_source"])):
            raise CheckFailed(f"{m['path']}: test_source {m['test_source']} does not exist")
        for f in m["student_files"]:
            if f in seen:
                raise CheckFailed(f"student file name {f} is used by labs {seen[f]} and {m['lab']}: "
                                  "names must be unique so flat uploads can be matched")
            seen[f] = m["lab"]
            for tree in ("skeletons", "solutions"):
                if not os.path.isfile(os.path.join(ROOT, tree, m["dir"], f)):
                    raise CheckFailed(f"{tree}/{m['dir']}/{f} is missing")
        for t in m["test"]:
            if t.get("timing") and "threshold" not in {**m.get("params", {}), **t.get("params", {})}:
                raise CheckFailed(f"{m['path']}: timing test {t['name']} has no threshold")
            if int(t["points"]) <= 0:
                raise CheckFailed(f"{m['path']}: test {t['name']} is worth no points")
    return f"{len(ms)} manifests, {sum(len(m['test']) for m in ms)} tests"




def outside_regions(path, lab):
    """Lines outside the student regions, and the regions' contents; checks the markers."""
    outside, regions, inside = [], [], None
    for no, line in enumerate(open(path), 1):
        b, e = BEGIN.search(line), END.search(line)
        if b:
            if inside is not None:
                raise CheckFailed(f"{path}:{no}: STUDENT-BEGIN inside a student region")
            if b.group(1) != lab:
                raise CheckFailed(f"{path}:{no}: region tagged lab{b.group(1)} in lab {lab}")
            inside = []
            outside.append(line)
        elif e:
            if inside is None:
                raise CheckFailed(f"{path}:{no}: STUDENT-END without STUDENT-BEGIN")
            regions.append("".join(inside))
            inside = None
            outside.append(line)
        elif inside is not None:
            inside.append(line)
        else:
            outside.append(line)
    if inside is not None:
        raise CheckFailed(f"{path}: STUDENT-BEGIN without STUDENT-END")
    return outside, regions


def regions():
    count = 0
    for m in grade.all_manifests():
        for f in m["student_files"]:
            sk = os.path.join(ROOT, "skeletons", m["dir"], f)
            so = os.path.join(ROOT, "solutions", m["dir"], f)
            o1, r1 = outside_regions(sk, m["lab"])
            o2, r2 = outside_regions(so, m["lab"])
            if not r1:
                raise CheckFailed(f"skeletons/{m['dir']}/{f} has no student region")
            if len(r1) != len(r2):
                raise CheckFailed(f"{m['dir']}/{f}: {len(r1)} student regions in the skeleton, "
                                  f"{len(r2)} in the solution")
            if o1 != o2:
                for i, (a, b) in enumerate(zip(o1, o2)):
                    if a != b:
                        raise CheckFailed(f"{m['dir']}/{f}: skeleton and solution differ outside the "
                                          f"student regions:\n    skeleton: {a.rstrip()}\n    solution: {b.rstrip()}")
                raise CheckFailed(f"{m['dir']}/{f}: skeleton and solution differ in length outside "
                                  "the student regions")
            for r in r1:
                if f"TODO(lab{m['lab']})" not in r:
                    raise CheckFailed(f"skeletons/{m['dir']}/{f}: a student region has no "
                                      f"TODO(lab{m['lab']}) telling the student what to do")
            count += len(r1)
    return f"{count} student regions match"


def binaries_match_manifests():
    """Every test in a manifest exists in its binary, and every test in a binary is graded."""
    for m in grade.all_manifests():
        binary = os.path.join(grade.KIT, "tests", f"lab{m['lab']}_tests")
        if not os.path.exists(binary):
            raise CheckFailed(f"{binary} not built (run the solutions check first)")
        code, out = sh([binary, "--list"])
        listed = set(out.split())
        graded = {t["name"] for t in m["test"]}
        if graded - listed:
            raise CheckFailed(f"lab {m['lab']}: manifest tests not in the binary: {sorted(graded - listed)}")
        if listed - graded:
            raise CheckFailed(f"lab {m['lab']}: tests in the binary the manifest does not grade: "
                              f"{sorted(listed - graded)}")
    return "every binary's tests are exactly its manifest's"


def solutions_pass(lab, schedule, backend="emu"):
    small = backend == "emu" and schedule == "reverse"  # common.REVERSE_MAX_SIZE says why
    code, out, data = run_grader("solutions", [lab], backend=backend, schedule=schedule,
                                 tag=f"sol{lab}-{backend}-{schedule}",
                                 env=small_manifests(REVERSE_MAX_SIZE) if small else None)
    tests = by_name(data)
    manifest = [m for m in grade.all_manifests() if m["lab"] == lab][0]
    bad = []
    for t in manifest["test"]:
        e = tests.get(t["name"])
        if not grade.graded_here(t, manifest, backend):
            # it runs, reported as a skip: on emu a timing test shows the memory model's figures
            if e is None or not is_skip(e):
                bad.append(f"{t['name']}: should be a skip on {backend}, where it does not count: "
                           f"{e and e['output'].splitlines()[:2]}")
            elif backend == "emu" and not re.search(r"emu model: [\d.]+ bytes per .* of copy", e["output"]):
                bad.append(f"{t['name']}: its skip on emu shows no model figures: {e['output'].splitlines()[:3]}")
            continue
        if e is None:
            bad.append(f"{t['name']}: no result")
        elif is_skip(e):
            if backend == "cuda" and not re.search(r"memory|2\^3\d|past 2\^31", e["output"]):
                bad.append(f"{t['name']}: skipped on the GPU: {e['output']}")
            elif backend == "emu" and not t.get("timing"):
                bad.append(f"{t['name']}: skipped, but only timing tests may skip on emu")
        elif e["status"] != "passed":
            bad.append(f"{t['name']}: {e['output'].splitlines()[:3]}")
    log = os.path.join(ROOT, "build", "grade", backend, "solutions", "logs", f"lab{lab}", "build.log")
    if os.path.exists(log) and re.search(r"\bwarning\b", open(log, errors="replace").read()):
        bad.append(f"the solution builds with warnings (see {os.path.relpath(log, ROOT)})")
    if max_problem(data, [lab], backend):
        bad.append(max_problem(data, [lab], backend))
    if backend == "emu" and not small and manifest.get("emu_seconds"):
        # the manifest's figure for its slowest test on the emu (its header cites it): a run here,
        # beside make check's other lanes (a core, where the emu alone takes two), may take up to
        # three times as long, never more (a figure off by a factor of 8 to 20 was once printed).
        # A wall time, which a busy machine can stretch (lab 06's slowest test takes 3.0 to 3.6 s
        # alone, against its 9 s): over it, that test is timed once more, alone; over it alone
        # too, the figure is wrong.
        took = [(float(x), n) for n, x in re.findall(r"^  (\w+): OK \(([\d.]+)s\)", out, re.M)]
        limit = 3 * manifest["emu_seconds"]
        if took and max(took)[0] > limit:
            slow, name = max(took)
            _, again, _ = run_grader("solutions", [lab], backend=backend, schedule=schedule, tests=[name],
                                     tag=f"sol{lab}-{backend}-{schedule}-alone")
            alone = re.search(rf"^  {name}: OK \(([\d.]+)s\)", again, re.M)
            if not alone or float(alone.group(1)) > limit:
                bad.append(f"{name} took {slow:.1f} s on the emu beside the others and "
                           f"{alone.group(1) + ' s' if alone else 'did not pass'} alone, more than 3 x emu_seconds = "
                           f"{manifest['emu_seconds']:g} in grader/manifests/lab{lab}.toml: measure it again "
                           f"(make grade LAB={lab} SUBMISSION=solutions BACKEND=emu, one test at a time) and update it")
    if backend == "cuda":
        # a GPU's times are steady: a solution's test that needs more than half its time limit
        # leaves a correct but slower student's code, or a busier GPU, a timeout
        for t in manifest["test"]:
            took = re.search(rf"^  {t['name']}: \w+ \(([\d.]+)s\)", out, re.M)
            limit = grade.run_settings(manifest, t, backend)[0]
            if took and float(took.group(1)) > limit / 2:
                bad.append(f"{t['name']}: took {took.group(1)} s of its {limit:.0f} s limit (more than half)")
    if bad:
        raise CheckFailed("\n    ".join([f"solutions of lab {lab} ({backend}, {schedule}):"] + bad))
    skipped = sum(1 for e in tests.values() if is_skip(e))
    metrics = [line.strip() for e in tests.values() for line in e["output"].splitlines()
               if "of copy" in line or "of memcpy" in line]
    return (f"{len(tests) - skipped} passed" + (f", {skipped} skipped" if skipped else "")
            + "".join(f"\n    {m}" for m in metrics))


def skeletons_fail(lab, backend="emu"):
    code, out, data = run_grader("skeletons", [lab], backend=backend, tag=f"skel{lab}-{backend}")
    if code == 0:
        raise CheckFailed(f"grading the lab {lab} skeleton exited 0")
    bad = []
    for name, e in by_name(data).items():
        if is_skip(e):
            continue
        if e["status"] == "passed":
            bad.append(f"{name}: passes on the skeleton (a test that cannot fail)")
        elif re.search(r"crashed|timed out|does not compile|exited with code|^harness:|the kit does not build",
                       e["output"], re.M):
            # a harness failure (no GPU, a device side that cannot load) is not the skeleton failing
            bad.append(f"{name}: the skeleton must fail cleanly, not: {e['output'].splitlines()[0]}")
    log = os.path.join(ROOT, "build", "grade", backend, "skeletons", "logs", f"lab{lab}", "build.log")
    if os.path.exists(log) and re.search(r"\bwarning\b", open(log, errors="replace").read()):
        bad.append(f"the skeleton builds with warnings (see {os.path.relpath(log, ROOT)})")
    if max_problem(data, [lab], backend):
        bad.append(max_problem(data, [lab], backend))
    if bad:
        raise CheckFailed("\n    ".join([f"skeleton of lab {lab}:"] + bad))
    return f"{len(data['tests'])} tests fail cleanly, score {data['score']}"


def no_circles():
    """The kit's files and folders depend on one another one way only (circles.py: Python imports,
    includes, the trusted side's C calls), and the check sees a circle of each kind planted in a
    copy of a few kit files."""
    import circles  # noqa: E402  (grader/selftest/circles.py)
    bad, stale, graphs = circles.circles()
    breaks = circles.layer_breaks(graphs)
    if bad or stale or breaks:
        raise CheckFailed("\n    ".join([f"circle ({k}): {' <-> '.join(c)}" for k, c in bad] +
                                        [f"circles.ALLOWED lists one no longer there: {sorted(k)}" for k in stale] +
                                        [f"against grader/README.md's map ({k}): {a} -> {b}" for k, a, b in breaks]))
    planted = os.path.join(BUILD, "circles-planted")
    shutil.rmtree(planted, ignore_errors=True)
    files = {"grader/course/course.py": "import grade_class\n",            # course <- grade_class already
             "grader/course/grade_class.py": "",
             "grader/trusted/harness/harness.c": "int hx_planted(void) { return hx_planted_back(); }\n",
             "grader/trusted/harness/main.c": "int hx_planted_back(void) { return hx_planted(); }\n",
             "grader/trusted/include/kit_a.h": '#include "kit_b.h"\n', "grader/trusted/include/kit_b.h": '#include "kit_a.h"\n',
             "grader/grading/codecheck.py": "import similarity\n",              # grading -> course: up the map
             "grader/course/similarity.py": "",
             "grader/grading/minitoml.py": "from grading import (\n    grade as g)\n",  # package-style; grade -> minitoml
             "grader/grading/grade.py": ""}
    for rel, extra in files.items():
        os.makedirs(os.path.dirname(os.path.join(planted, rel)), exist_ok=True)
        src = os.path.join(ROOT, rel)
        text = open(src).read() if os.path.exists(src) else ""
        open(os.path.join(planted, rel), "w").write(text + extra)
    found, _, _ = circles.circles(planted)
    kinds = {k.split(",")[0] for k, c in found if k.endswith("files")}
    if kinds != {"python imports", "includes", "C calls"}:
        raise CheckFailed(f"circles planted in {os.path.relpath(planted, ROOT)}: found {sorted(kinds)} of python "
                          "imports, includes and C calls")
    if not any(k.startswith("python") and {"grader/grading/grade.py", "grader/grading/minitoml.py"} <= set(c)
               for k, c in found):
        raise CheckFailed(f"a circle planted in {os.path.relpath(planted, ROOT)} through a package-style import "
                          "(minitoml.py: from grading import (grade as g)) was not found")
    up = [(a, b) for _, a, b in circles.layer_breaks(circles.circles(planted)[2])]
    if up != [("grader/grading/codecheck.py", "grader/course/similarity.py")]:
        raise CheckFailed(f"a use up the map planted in {os.path.relpath(planted, ROOT)} (codecheck.py imports "
                          f"similarity): found {up}")
    n = sum(len(v) for g in graphs.values() for v in g.values())
    return (f"{sum(len(g) for g in graphs.values())} files, {n} edges, no circle, none up grader/'s map; planted "
            "ones found: " + "; ".join(f"{' <-> '.join(os.path.basename(x) for x in c)}" for k, c in found
                                       if k.endswith("files")) + "; codecheck.py -> similarity.py up the map")


LONG_FILE = 800  # lines; a file past it says at its top why it is whole


def long_files_say_why():
    """No file of the kit's code past LONG_FILE lines without a reason at its top ("Why one
    file", in its first 60 lines). Prose (.md), data and others' programs (the emu's corpus) are
    left out: a page is read by its headings."""
    code, out = sh(["git", "ls-files"], cwd=ROOT)
    if code:
        return "not checked: not a git checkout"
    kinds = (".py", ".c", ".h", ".cu", ".cpp", ".cuh", ".mjs", ".sh", ".mk", "Makefile")
    longest, silent = [], []
    for rel in out.split():
        if not rel.endswith(kinds) or "/corpus/" in rel or not os.path.isfile(os.path.join(ROOT, rel)):
            continue
        lines = open(os.path.join(ROOT, rel), errors="replace").read().splitlines()
        if len(lines) > LONG_FILE:
            longest.append((len(lines), rel))
            if not any("Why one file" in ln for ln in lines[:60]):
                silent.append(f"{rel}: {len(lines)} lines")
    if silent:
        raise CheckFailed(f"past {LONG_FILE} lines with no 'Why one file' at the top:\n    " + "\n    ".join(silent))
    return f"{len(longest)} files past {LONG_FILE} lines, each saying why: " + \
        ", ".join(f"{os.path.basename(r)} {n}" for n, r in sorted(longest, reverse=True)[:6]) + ", ..."


def emu_tests(probe_cost="no"):
    """make emu-test; what times itself (the probes' cost, a ratio of wall times, and a test's
    limit in ms) is judged in a check of its own that runs last, alone (probe_cost="only"), not
    beside the other lane's work (a 1000 ms limit read 1023 ms there while the deps installed)."""
    code, out = sh(["make", "--no-print-directory", "emu-test", f"EMU_TEST_ARGS=--probe-cost {probe_cost}"])
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if code != 0 or not re.fullmatch(r"\d+ passed, 0 failed", last):
        lines = out.splitlines()
        failed = [x for i, x in enumerate(lines)
                  if re.match(r"\S.*: FAIL", x) or (x.startswith("    ") and i and re.match(r"\S.*: FAIL", lines[i - 1]))]
        raise CheckFailed("make emu-test failed:\n" + "\n".join(failed[:20] + ["..."] + lines[-5:]))
    cost = [x for x in out.splitlines() if "[probe cost]: OK" in x or "[time]: OK" in x]
    return "; ".join(cost) if probe_cost == "only" and cost else last


def trusted_checks(backend="emu", large=None):
    """The trusted side's output checks (grader/trusted/harness/hx_verify.h) agree host against device:
    grader/selftest/verify_test.cu built for the emu (here) or with nvcc (on a GPU), right
    outputs and planted faults."""
    out_dir = os.path.join(BUILD, "verify", backend)
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, "verify_test")
    src = [os.path.join(ROOT, "grader", "selftest", "verify_test.cu"), os.path.join(ROOT, "grader", "trusted", "harness", "hx_dev.cu")]
    inc = ["-I" + os.path.join(ROOT, "grader", "trusted", "harness")]
    hostc = os.path.join(ROOT, "grader", "trusted", "harness", "hx_verify.c")
    if backend == "emu":
        code, out = sh(["make", "--no-print-directory", "-f", "grader/emu/emu.mk", "build/emu-rt/libscanlab_emu.a"])
        if code:
            raise CheckFailed("the emu's runtime does not build:\n" + out[-1500:])
        objs = []
        for f in src:
            cpp = os.path.join(out_dir, os.path.basename(f) + ".cpp")
            obj = cpp + ".o"
            code, out = sh([sys.executable, "grader/emu/cu2cpp.py", f, cpp])
            if not code:
                code, out = sh(["g++", "-std=c++17", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-Igrader/emu/include",
                                "-include", "scanlab_emu.h"] + inc + ["-c", cpp, "-o", obj])
            if code:
                raise CheckFailed(f"{os.path.relpath(f, ROOT)} does not build for the emu:\n" + out[-1500:])
            objs.append(obj)
        code, out = sh(["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror"] + inc +
                       ["-c", hostc, "-o", os.path.join(out_dir, "hx_verify.o")])
        if not code:
            code, out = sh(["g++", "-pthread", "-o", exe] + objs + [os.path.join(out_dir, "hx_verify.o"),
                           "build/emu-rt/libscanlab_emu.a", "-lm"])
    else:
        hosto = os.path.join(out_dir, "hx_verify.o")
        code, out = sh(["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror"] + inc + ["-c", hostc, "-o", hosto])
        if not code:
            code, out = sh(["nvcc", "-O2", "-std=c++17", "-arch=sm_" + os.environ.get("SM", "90"), "-o", exe] + inc +
                           src + [hosto, "-lcuda"])
    if code:
        raise CheckFailed("verify_test does not build:\n" + out[-1500:])
    code, out = sh([exe] + ([str(large)] if large else []), timeout=900)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if code or not re.match(r"verify: \d+ cases, 0 disagreements", last):
        raise CheckFailed("host and device checks disagree:\n    " + "\n    ".join(out.strip().splitlines()[-15:]))
    return last


def long_sandbox_view():
    """A driver's root view on a GPU machine names a hundred files and more (the driver's
    libraries, /dev/nvidia*): every one of those sandbox options reaches the sandbox whole (a
    list cut at a fixed length once left `--view-ro` without its value, and no driver started
    on cuda), and a list too long for the harness is refused with a message."""
    code, out, data = run_grader("solutions", ["02"], tests=["ks_example"], tag="long-view")
    log = os.path.join(ROOT, "build", "grade", "emu", "solutions", "logs", "lab02", "ks_example.log")
    if code or not os.path.exists(log):
        raise CheckFailed(f"lab 02 ks_example did not pass on emu: {out[-1500:]}")
    cmd = shlex.split(open(log, errors="replace").readline()[2:])
    pad = ["--sandbox-opt", "--cpu", "--sandbox-opt", "60"]  # repeated; the grader's own comes last
    env = dict(os.environ, SCANLAB_EMU_SCHEDULE="forward")
    env.pop("SCANLAB_RESULT_FD", None)
    found = []
    for pairs, want in ((150, 0), (600, 2)):
        c = cmd[:1] + pad * pairs + cmd[1:]
        p = subprocess.run(c, capture_output=True, text=True, env=env, timeout=120)
        text = p.stdout + p.stderr
        if p.returncode != want or (want == 0 and "ks_example: OK" not in text) or \
                (want and "too many --sandbox-opt" not in text):
            raise CheckFailed(f"{2 * pairs} more sandbox options: exit {p.returncode} (wanted {want}):\n"
                              f"    {text[-1200:]}")
        found.append(f"{2 * pairs} more options: " + ("passed" if not want else "refused"))
    return "; ".join(found)


def call_thread_confined():
    """The driver's call thread confines itself (grader/trusted/driver/confine.c): every system call a
    student's code could answer the test with, or escape by, fails there and on the threads it
    starts; what the labs and the runtimes need still works."""
    exe = os.path.join(BUILD, "confine_test")
    code, out = sh(["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-Igrader/trusted/driver", "-Igrader/trusted/harness",
                    "grader/selftest/confine_test.c", "grader/trusted/driver/confine.c", "-o", exe, "-pthread"])
    if code:
        raise CheckFailed("confine_test does not build:\n" + out[-1500:])
    code, out = sh([exe])
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if code or not re.match(r"confine: \d+ checks, 0 surprises", last):
        raise CheckFailed("\n    ".join(out.strip().splitlines()[-15:]))
    return last


def profile_emu():
    """`make profile LAB=03` without ncu: the emu's counters of both kernels, as an H100 counts
    them where the compilers agree (grader/emu/README.md's table: global 2048 requests of 8192
    sectors each way, shared stores 38784/29760 unpadded, 9024/0 padded)."""
    code, out = sh([sys.executable, os.path.join(ROOT, "grader", "measure", "profile_banks.py"), "--lab", "03"])
    rows = {}
    for line in out.split("ncu against the emu")[0].splitlines():  # the table, not the comparison
        m = re.match(r"\s+([a-z][a-z /:-]+?)\s{2,}(.*)$", line)
        if m:
            cols = m.group(2).split()
            rows[m.group(1).strip()] = cols[1::2] if len(cols) == 4 else cols  # with ncu: the emu's
    want = {"global loads: requests": ["2,048", "2,048"], "global loads: sectors": ["8,192", "8,192"],
            "global stores: sectors": ["8,192", "8,192"], "shared stores: wavefronts": ["38,784", "9,024"],
            "shared stores: bank conflicts": ["29,760", "0"], "shared loads: bank conflicts": ["39,680", "0"]}
    bad = [f"{k}: {rows.get(k)}, expected {v}" for k, v in want.items() if rows.get(k) != v]
    if code != 0 or bad:
        raise CheckFailed("make profile LAB=03 on the emu:\n    " + "\n    ".join(bad + out.splitlines()[-18:]))
    return "lab 03 unpadded and padded counters as on an H100 (" + " / ".join(rows["bank conflicts per tile"]) + \
        " conflicts per tile)"


# Launches per case of the other labs' profiles, and counters fixed by the access pattern alone:
# (case, kernel index, column) -> value; columns: gld req, gld sect, gst req, gst sect, sld wf,
# sld conf, sst wf, sst conf, vol sect (the emu's volatile load sectors, one worker).
PROFILE_LAUNCHES = {
    "02": {"ks": ["scanIncKoggeStoneKernel"], "tiles": ["scanIncKoggeStoneDBKernel"]},
    "05": {"propagate_inc": ["scanTilesKernel", "scanTilesKernel", "addOffsetsKernel"],
           "rts_inc": ["reduceRangesKernel", "scanBlockAnyLengthKernel", "scanRangesKernel"],
           "lookback_inc": ["scanLookbackKernel"]},
    "06": {"block_inc": ["segScanBatchKernel"], "global_inc": ["segScanGlobalKernel"]},
    "07": {"compact_scan": ["compactFlagsKernel", "appScanExcKernel", "compactScatterKernel"],
           "radix_keys": ["radixHistogramKernel", "radixDigitStartKernel"] + ["radixOnesweepKernel"] * 4,
           "spmv": ["spmvTileRowsKernel", "spmvKernel"], "str_compare": ["strTileKernel", "strFinishKernel"]},
}
PROFILE_COUNTS = {
    # 1000 ints in one block of 1024: 32 warps load and store, 4000 bytes = 125 sectors
    ("02", "ks", 0): [32, 125, 32, 125], ("02", "tiles", 0): [132, 525, 132, 525],
    # one whole tile of 8192 ints in 16-byte loads: 64 requests of 16 sectors; the stores add
    # the status word; 4 tiles look back over 1 + 2 + 3 status words (one worker)
    ("05", "lookback_inc_1tile", 0): [64, 1024, 65, 1025, None, 0, None, 0, 0],
    ("05", "lookback_inc", 0): [None] * 8 + [6],
    # values (16 bytes) and flags (4 bytes) of one tile: 64 + 64 requests, 1024 + 256 sectors
    ("06", "global_inc_1tile", 0): [128, 1280, 65, 1025, None, None, None, None, 0],
    # the toolkit's sum of one whole tile of 4096: 16-byte loads and stores, 32 requests of 16
    # sectors each way, and the status word (item-by-item stores made 129 requests, 2049 sectors)
    ("07", "app_scan_exc_1tile", 0): [32, 512, 33, 513, None, 0, None, 0, 0],
}


def profile_emu_labs():
    """`make profile LAB=02,05,06,07` without ncu: every case runs and lists its launches, with
    the counters an access pattern fixes."""
    code, out = sh([sys.executable, os.path.join(ROOT, "grader", "measure", "profile_banks.py"), "--lab", "02,05,06,07",
                    "--emu-only"])
    runs, lab, cid = {}, None, None
    for line in out.splitlines():
        m = re.match(r"lab (\d\d): memory counters", line)
        if m:
            lab = m.group(1)
        m = re.match(r"  (\w+): \S", line)
        if m and lab:
            cid = m.group(1)
            runs[(lab, cid)] = []
        m = re.match(r"    (\S.*?)\s{2,}((?:[\d,]+\s+){8}[\d,]+)$", line)
        if m and cid:
            runs[(lab, cid)].append((m.group(1), [int(x.replace(",", "")) for x in m.group(2).split()]))
    bad = []
    for lab, cases in PROFILE_LAUNCHES.items():
        for c, kernels in cases.items():
            got = [re.sub(r"<.*", "", k) for k, _ in runs.get((lab, c), [])]
            if got != kernels:
                bad.append(f"lab {lab} {c}: launches {got}, expected {kernels}")
    for (lab, c, i), want in PROFILE_COUNTS.items():
        got = runs.get((lab, c), [])
        cols = got[i][1] if len(got) > i else []
        if len(cols) < len(want) or any(w is not None and w != g for w, g in zip(want, cols)):
            bad.append(f"lab {lab} {c} launch {i + 1}: counters {cols}, expected {want} (None: any)")
    if code != 0 or bad or not runs:
        raise CheckFailed("make profile LAB=02,05,06,07 on the emu:\n    " +
                          "\n    ".join(bad + out.splitlines()[-25:]))
    launches = sum(len(v) for v in runs.values())
    return f"{len(runs)} cases, {launches} launches listed; counters as the patterns fix them"


# Kernels whose counters differ from the H100's recorded ones (grader/emu/h100_profile.json),
# and why; grader/emu/README.md ("Against an H100, kernel by kernel") explains each. Any other
# difference fails the check, and so does an entry here that no longer differs.
KNOWN_PROFILE_DIFFERENCES = {
    ("07", "spmvKernel"): "shared store wavefronts by instruction, 1 per tile fewer: NVVM splits the "
                          "lone s_prefix into its fields and, as only the value is read back, ptxas "
                          "places them apart and stores them with two STS; the emu counts GCC's one "
                          "8-byte store",
    ("07", "strBatchKernel"): "shared store wavefronts 1 per tile fewer: the look-back's lone s_prefix, "
                              "stored with two STS by nvcc and one 8-byte store by GCC, as in spmvKernel",
}


def profile_recorded():
    """`make profile LAB=all` without a GPU, against the H100's counts recorded in
    grader/emu/h100_profile.json: every counter of every launch agrees (exactly, or within 10%
    or ncu's contention), but for the kernels in KNOWN_PROFILE_DIFFERENCES."""
    out_json = os.path.join(ROOT, "build", "selftest", "profile-differences.json")
    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    code, out = sh([sys.executable, os.path.join(ROOT, "grader", "measure", "profile_banks.py"), "--lab", "all",
                    "--recorded", os.path.join(ROOT, "grader", "emu", "h100_profile.json"),
                    "--differences", out_json])
    m = re.search(r"agreement over (\d+) launches: exact counters (\d+) of (\d+) agree; shared counters "
                  r"within 10% or contention: (\d+) of (\d+)", out)
    if code != 0 or not m:
        raise CheckFailed("make profile LAB=all against the recorded H100 counts:\n" + out[-3000:])
    rows = json.load(open(out_json))
    seen = {(r["lab"], r["kernel"]) for r in rows}
    new = sorted({f"lab {r['lab']} {r['kernel']}: {r['counter']} ncu {r['ncu']}, emu {r['emu']} ({r['call']})"
                  for r in rows if (r["lab"], r["kernel"]) not in KNOWN_PROFILE_DIFFERENCES})
    stale = sorted(f"lab {lab} {k}: listed as differing, now agrees" for lab, k in KNOWN_PROFILE_DIFFERENCES
                   if (lab, k) not in seen)
    if new or stale:
        raise CheckFailed("the emu against the H100's recorded counts:\n    " + "\n    ".join(new + stale))
    return (f"{m.group(1)} launches: exact {m.group(2)}/{m.group(3)}, shared {m.group(4)}/{m.group(5)}; "
            f"{len(KNOWN_PROFILE_DIFFERENCES)} kernels differ as known")


def profile_ncu_parsing():
    """The GPU half of `make profile` without a GPU: an ncu CSV made from the emu's own
    counters (lab 05's look-back on 4 tiles and on one) is read, lined up and agrees; one
    counter changed is a DIFFER; a CSV without a metric, or another kernel, fails loudly."""
    sys.path.insert(0, os.path.join(ROOT, "grader", "measure"))
    import profile_compare as pc  # noqa: E402
    work = os.path.join(ROOT, "build", "profile", "lab05", "solutions")
    files = [os.path.join(work, f"emu-{c}.jsonl") for c in ("lookback_inc", "lookback_inc_1tile")]
    if not all(os.path.exists(f) for f in files):
        code, out = sh([sys.executable, os.path.join(ROOT, "grader", "measure", "profile_banks.py"), "--lab", "05",
                        "--emu-only"])
        if code:
            raise CheckFailed("make profile LAB=05 on the emu failed:\n" + out[-2000:])
    emu = [[dict(json.loads(x), name=json.loads(x)["kernel"]) for x in open(f)] for f in files]

    def fake_csv(launches, change=None, drop=None, name=None, add=None):
        head = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",' \
               '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
        rows = ["==PROF== Connected to process 1", head]
        for i, k in enumerate(launches):
            kname = name or f"void {re.sub('<.*', '', k['kernel'])}<(bool)0>(const int *, int *, unsigned long)"
            for m in pc.NCU_METRIC_NAMES:
                v = pc.emu_value(k["metrics"], m) + (1 if m == change else 0) + (add or {}).get(m, 0)
                if m != drop:
                    rows.append(f'"{i}","1","p","h","{kname}","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0",'
                                f'"Command line profiler metrics","{m}","","{v:,}"')
        return "\n".join(rows) + "\n"

    bad = []
    for launches in emu:
        got = pc.compare(pc.align(pc.parse_ncu_kernels(fake_csv(launches)), launches, "fake"))
        texts = [t for k in got for _, _, _, _, t in k["rows"]]
        if any("DIFFER" in t for t in texts):
            bad.append(f"the emu's own counters as ncu's do not agree: {texts}")
    polling = [t for k in pc.compare(pc.align(pc.parse_ncu_kernels(fake_csv(emu[0])), emu[0], "fake"))
               for _, _, _, _, t in k["rows"] if t.startswith("polling")]
    if len(polling) != 2:
        bad.append(f"the look-back on 4 tiles: {len(polling)} load rows marked polling, expected 2")
    changed = pc.compare(pc.align(pc.parse_ncu_kernels(
        fake_csv(emu[1], change=pc.METRIC_NAMES[3])), emu[1], "fake"))
    if [t for k in changed for _, _, _, _, t in k["rows"] if "DIFFER" in t] != ["exact: DIFFER by -1"]:
        bad.append("one store sector more in ncu's CSV is not the one exact DIFFER")
    # Contention: the L1 counts 5 more store wavefronts than the instructions need and calls them
    # conflicts, which agrees; 5 conflicts with no extra wavefronts, or an extra wavefront by
    # instruction, does not.
    st_wf, st_conf, st_instr = pc.METRIC_NAMES[6], pc.METRIC_NAMES[7], pc.INSTR_METRICS[1][0]
    for add, want in (({st_wf: 5, st_conf: 5}, []),
                      ({st_conf: 5}, ["within 10%: DIFFER (-100.0%)"]),
                      ({st_instr: 1}, ["exact: DIFFER by -1"])):
        got = pc.compare(pc.align(pc.parse_ncu_kernels(fake_csv(emu[1], add=add)), emu[1], "fake"))
        differ = [t for k in got for _, _, _, _, t in k["rows"] if "DIFFER" in t]
        if differ != want:
            bad.append(f"ncu's CSV with {add}: {differ or 'all agree'}, expected {want or 'all agree'}")
    for what, text in (("a metric missing", fake_csv(emu[1], drop=pc.METRIC_NAMES[7])),
                       ("a by-instruction metric missing", fake_csv(emu[1], drop=pc.INSTR_METRICS[0][0])),
                       ("no table", "==PROF== No kernels were profiled.\n"),
                       ("another kernel", fake_csv(emu[1], name="void otherKernel(int *)"))):
        try:
            pc.align(pc.parse_ncu_kernels(text), emu[1], "fake")
            bad.append(f"{what}: read without an error")
        except pc.ProfileError:
            pass
    if bad:
        raise CheckFailed("make profile's comparison with ncu:\n    " + "\n    ".join(bad))
    return ("a fake ncu CSV of lab 05's look-back agrees, loads of 4 tiles as polling; contention agrees; "
            "3 changes and 4 bad CSVs caught")


def docs():
    code, out = sh(["make", "--no-print-directory", "docs"])
    if code != 0:
        raise CheckFailed("make docs failed:\n" + "\n".join(out.splitlines()[-25:]))
    return "no warnings"


def slides():
    code, out = sh(["make", "--no-print-directory", "slides"])
    if code != 0:
        raise CheckFailed("make slides failed:\n" + "\n".join(out.splitlines()[-25:]))
    return f"{out.count('.pdf')} decks"


def handin_roundtrip():
    tar = os.path.join(BUILD, "handin-solutions.tar.gz")
    code, out = sh([sys.executable, "grader/course/kit.py", "handin", "--from", "solutions", "--out", tar])
    if code != 0:
        raise CheckFailed("handin failed:\n" + out)
    names = tarfile.open(tar).getnames()
    if any(n.startswith(("/", "..")) or "solutions" in n for n in names):
        raise CheckFailed(f"handin tarball has unexpected paths: {names}")
    code, out, data = run_grader(tar, ["01"], tag="handin", env=quick_lab01_manifests())
    if code != 0 or data["score"] != data["max_score"]:
        raise CheckFailed("grading the handin of the solutions did not give full marks:\n" + out[-2000:])
    return f"{len(names)} files; lab 01 {data['score']}/{data['max_score']}"


def handin_in_tmp():
    """A handin tarball lying in the temporary folder itself (make grade SUBMISSION=/tmp/x.tar.gz):
    the grader hides the submission's folder from student code, which was the folder its builds
    are staged in, so every lab failed with "does not compile". Lab 02 on the emu, the
    solutions: full marks, its build (nvcc's device check among it) writing to the sandbox's own
    /tmp."""
    tmp = tempfile.gettempdir()
    if os.path.realpath(ROOT).startswith(os.path.realpath(tmp).rstrip("/") + "/"):
        return f"not run: the kit itself lies in {tmp}, which the grader then never hides"
    tar = os.path.join(tmp, f"scanlab-selftest-handin-{os.getpid()}.tar.gz")
    try:
        code, out = sh([sys.executable, "grader/course/kit.py", "handin", "--from", "solutions", "--out", tar])
        if code != 0:
            raise CheckFailed("handin failed:\n" + out)
        code, out, data = run_grader(tar, ["02"], tag="handin-tmp")
    finally:
        if os.path.exists(tar):
            os.remove(tar)
    if code != 0 or not data["max_score"] or data["score"] != data["max_score"]:
        raise CheckFailed(f"grading the solutions' handin at {tar} did not give full marks:\n" + out[-2000:])
    return f"lab 02 {data['score']}/{data['max_score']} from {tmp}"


def student_kit():
    tar = os.path.join(BUILD, "student-kit.tar.gz")
    code, out = sh([sys.executable, "grader/course/kit.py", "student-kit", "--out", tar])
    if code != 0:
        raise CheckFailed("student-kit failed:\n" + out)
    names = tarfile.open(tar).getnames()
    leaked = [n for n in names if n.startswith("scanlab/solutions")]
    if leaked:
        raise CheckFailed(f"the student kit contains solutions: {leaked[:3]}")
    work = tempfile.mkdtemp(prefix="scanlab-kit-")
    try:
        with tarfile.open(tar) as t:
            t.extractall(work)
        kit = os.path.join(work, "scanlab")
        code, out = sh(["make", "--no-print-directory", "grade", "LAB=01"], cwd=kit,
                       env={"NO_COLOR": "1"})
        if code == 0 or "Score: 0/" not in out:
            raise CheckFailed("`make grade LAB=01` in the student kit should run and score 0:\n" + out[-1500:])
        results = os.path.join(kit, "build", "grade")
        if not any(f == "results.json" for _, _, fs in os.walk(results) for f in fs):
            raise CheckFailed("the student kit's grade wrote no results.json")
        code, out = sh(["make", "--no-print-directory", "help"], cwd=kit)
        listed = re.findall(r"^  ([a-z-]+) ", out, re.M)
        if code or {"check", "bench", "check-gpu", "emu-corpus"} & set(listed) or "grade" not in listed:
            raise CheckFailed("the student kit's `make help` should list only what works there:\n" + out)
        # lab 08's make ranks, as its handout names it: builds the kit's skeleton and runs 2 ranks
        # (the skeleton's answers are wrong: the run says so and fails, but it runs)
        seeded = seed_emu_runtime(kit)
        code, out = sh(["make", "--no-print-directory", "ranks", "RANKS=2", "BACKEND=emu"], cwd=kit,
                       env={"NO_COLOR": "1"})
        if not re.search(r"lab08_ranks: 2 ranks as processes: 0 passed, 1 failed", out):
            raise CheckFailed("`make ranks RANKS=2 BACKEND=emu` in the student kit should build and run the "
                              "skeleton's 2 ranks:\n" + out[-1500:])
        cached = runtime_was_seeded(kit, seeded)
        code, out = sh(["make", "--no-print-directory", "autograder", "LAB=01"], cwd=kit)
        if code or not os.path.exists(os.path.join(kit, "build", "autograder.zip")):
            raise CheckFailed("`make autograder LAB=01` in the student kit failed:\n" + out[-1500:])
        # the full kit's targets say so and stop there, before installing anything (make check
        # once installed Doxygen, LaTeX, Slurm and Chromium as root, then called a missing self-test)
        for target in KIT_FULL_ONLY:
            code, out = sh(["make", "--no-print-directory", target], cwd=kit, env={"NO_COLOR": "1"})
            if code != 2 or "needs the full kit" not in out or "deps" in out.lower() and "install" in out.lower():
                raise CheckFailed(f"`make {target}` in the student kit should stop at once, saying it needs the full "
                                  f"kit (exit {code}):\n" + out[-800:])
        # every make target the kit's pages, headers and scripts name, run there as a student would
        # (the ones above and below), or left out for a reason said here
        for args, want in KIT_RUNS:
            code, out = sh(["make", "--no-print-directory"] + args, cwd=kit, env={"NO_COLOR": "1"})
            if not re.search(want, out) or args == ["clean"] and os.path.exists(os.path.join(kit, "build")):
                raise CheckFailed(f"`make {' '.join(args)}` in the student kit: expected /{want}/ (exit {code})"
                                  + (", and build/ gone" if args == ["clean"] else "") + ":\n" + out[-1200:])
        named = kit_named_targets(kit)
        ran = {next(x for x in args if re.fullmatch(r"[a-z][a-z0-9-]*", x)) for args, _ in KIT_RUNS}
        unhandled = sorted(named - ran - set(KIT_FULL_ONLY) - set(KIT_NOT_RUN)
                           - {"grade", "help", "ranks", "autograder"})
        if unhandled:
            raise CheckFailed(f"the student kit names make targets this check neither runs nor explains: {unhandled}")
        # the rule first finds a planted page's command that no reason covers, then the kit's
        plant = os.path.join(work, "plant")
        os.makedirs(plant)
        with open(os.path.join(plant, "README.md"), "w") as fh:
            fh.write("A page.\n\n    $ SCANLAB_EMU_SCHEDULE=reverse gcc -o scan scan.c\n    nvcc -o scan scan.cu\n"
                     "    build/kit/tests/lab02_tests --list\n    $ cut -c1-60 other.jsonl\n"
                     "    python3 grader/measure/profile_banks.py --lab 03\n")
        if kit_named_commands(plant) != {"gcc -o scan scan.c": None, "nvcc -o scan scan.cu": ("nvcc ", "needs a GPU"),
                                         "build/kit/tests/lab02_tests --list": (
                                             r"build/kit/tests/lab\d\d_tests ", KIT_COMMANDS_NOT_RUN[
                                                 r"build/kit/tests/lab\d\d_tests "]),
                                         "cut -c1-60 other.jsonl": None,
                                         "python3 grader/measure/profile_banks.py --lab 03": None}:
            raise CheckFailed(f"the commands a planted page shows, as the rule reads them: {kit_named_commands(plant)}")
        commands = kit_named_commands(kit)
        unexplained = sorted(c for c, why in commands.items() if why is None)
        if unexplained:
            raise CheckFailed("the student kit's pages show commands this check neither runs nor explains: "
                              + "; ".join(unexplained[:6]))
        skipped = {}
        for c, (key, why) in commands.items():
            skipped.setdefault(why, []).append(c.split(" ")[0] if c.split(" ")[0] != "python3" else
                                               " ".join(c.split(" ")[:3]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return (f"{len(names)} files, no solutions; {cached}; {len(named)} make targets its pages name: grade, test, docs, "
            "handin, emu-run, emu-flags, emu-lib, profile, ranks, autograder, help and clean run there (grade and test "
            "score 0 on the skeletons); "
            f"{', '.join(KIT_FULL_ONLY)} stop, saying they need the full kit; not run: "
            + "; ".join(f"{t} ({why})" for t, why in KIT_NOT_RUN.items() if t in named)
            + "; other commands its pages show, not run: "
            + "; ".join(f"{', '.join(sorted(set(cs)))} ({why})" for why, cs in skipped.items()))


EMU_RT_TEXT = ("grader/emu/emu.mk", "grader/emu/runtime", "grader/emu/include")


def seed_emu_runtime(kit):
    """The student kit's emu runtime objects, taken from this kit's build where the text they are
    made of is this kit's, byte for byte (the emu's make file, the runtime's sources and the
    headers): copied into the student kit's build/emu-rt, as new as its sources, so that its
    `make ranks` compiles no runtime file again (18 s of CPU). The library is left out: emu-nvcc
    there must still find it missing, have the emu's make file archive it and link against it,
    as on a student's machine (runtime_was_seeded checks that after the run). Returns the
    objects copied (none where the text differs: the student kit then compiles its own)."""
    def files(base):
        out = {}
        for rel in EMU_RT_TEXT:
            top = os.path.join(base, rel)
            if os.path.isfile(top):
                out[rel] = top
            for dirpath, _, names in os.walk(top):
                for n in names:
                    full = os.path.join(dirpath, n)
                    out[os.path.relpath(full, base)] = full
        return out
    mine, theirs = files(ROOT), files(kit)
    code, out = sh(["make", "--no-print-directory", "-f", "grader/emu/emu.mk", "emu-lib"])
    if code:
        return {}
    differ = [r for r in set(mine) | set(theirs)
              if r not in mine or r not in theirs or open(mine[r], "rb").read() != open(theirs[r], "rb").read()]
    if differ:
        return {}
    src, dst = os.path.join(ROOT, "build", "emu-rt"), os.path.join(kit, "build", "emu-rt")
    os.makedirs(dst, exist_ok=True)
    now = time.time()
    seeded = {}
    for f in sorted(f for f in os.listdir(src) if f.endswith(".o")):
        shutil.copyfile(os.path.join(src, f), os.path.join(dst, f))
        os.utime(os.path.join(dst, f), (now, now))
        seeded[f] = os.stat(os.path.join(dst, f)).st_mtime_ns
    return seeded


def runtime_was_seeded(kit, seeded):
    """After the student kit's `make ranks`: its runtime library exists (emu-nvcc had it archived),
    and the objects seed_emu_runtime copied in are the ones it holds (none compiled again, unless
    a source was dated later than the copy). The check's words for its line."""
    rt = os.path.join(kit, "build", "emu-rt")
    if not os.path.exists(os.path.join(rt, "libscanlab_emu.a")):
        raise CheckFailed("the student kit's make ranks left no emu runtime library in build/emu-rt")
    if not seeded:
        return "its emu runtime compiled there (its text differs from this kit's, or this kit's does not build)"
    again = [f for f, t in seeded.items() if os.stat(os.path.join(rt, f)).st_mtime_ns != t]
    if again:
        return f"its emu runtime archived there, {len(again)} of its objects compiled again ({again[0]} first)"
    return (f"its emu runtime archived there from this kit's {len(seeded)} objects (the same text byte for byte), "
            "none compiled again")


# The student kit's check: the full kit's targets, which stop there; the targets it runs there
# (arguments, what the output must show), cleaning last; and the named targets it leaves alone.
KIT_FULL_ONLY = ("check", "check-gpu", "bench", "student-kit", "emu-corpus", "emu-test", "emu-probe-cost")
KIT_RUNS = [
    (["test", "LAB=01", "T=inc_example"],  # the skeleton builds, runs and leaves its output unwritten
     r"inc_example: FAIL.*\n.*first mismatch at \[0\].*the poison value: never written[\s\S]*Score: 0/"),
    (["docs"], r"docs: build/docs/html/index.html"),
    (["handin"], r"handin: \d+ files from .* in build/handin.tar.gz"),
    (["emu-run", "FILE=labs/04-warp-scan/exhibit/legacy_volatile_scan.cu"],
     r"legacy volatile scan: +all 32 lanes right[\s\S]*scan with __syncwarp\(\): +all 32 lanes right"),
    (["profile", "LAB=03"], r"the unpadded scan is wrong on \d+ elements"),  # the skeleton's scan
    (["-f", "grader/emu/emu.mk", "emu-flags"], r"EMU_CXX=.*\n(.*\n)*EMU_PROBE_FLAGS=.*-fsanitize=thread"),
    (["-f", "grader/emu/emu.mk", "emu-lib"], r"Nothing to be done for .emu-lib.|compiling"),  # emu-run built it
    (["clean"], r"rm -rf build"),
]
KIT_NOT_RUN = {
    "slides": "LaTeX; the full kit's slides check builds these decks",
    "deps": "it installs packages",
    "grade-class": "an instructor's; the full kit's class checks run it",
    "similarity": "an instructor's; the full kit's similarity check runs it",
    "ranks-build": "make ranks runs it",
}


# The commands other than make that the student kit's pages show in their code blocks, each
# matched by a pattern (from its start), and why the kit's check does not run it there. A line
# is a command where it follows a `$ ` prompt, or starts (after VAR=value words) with one of
# KIT_PROGRAMS or with a path to a program (`./`, `build/`, `grader/`).
TRIAL = "the autograder's trial run (the full kit's Gradescope checks run its steps)"
KIT_COMMANDS_NOT_RUN = {
    r"nvcc ": "needs a GPU", r"compute-sanitizer ": "needs a GPU", r"ncu ": "needs a GPU",
    r"\./build/legacy_volatile_scan": "needs a GPU (the nvcc build above it)",
    r"python3 grader/measure/profile_banks\.py .*--no-emu": "needs a GPU (--no-emu: ncu's counts; make profile, "
                                                         "run here, is the emu's side)",
    r"cmake -D\S*=/path/to/kit/": "an example for the reader's own CMake project (/path/to/kit)",
    r"mkdir -p /tmp/ag/": TRIAL, r"unzip -q build/autograder\.zip -d /tmp/ag/": TRIAL,
    r"cp \S+ /tmp/ag/submission/": TRIAL, r"bash /tmp/ag/source/run_autograder": TRIAL,
    r"python3 -m json\.tool /tmp/ag/": TRIAL,
    r"build/kit/tests/lab\d\d_tests ": "a test binary that make grade builds and runs (make grade runs here)",
    r"\./app\b|cut -c1-60 p\.jsonl": "the emu page's worked example, a program of the reader's (the full kit's "
                                     "emu-nvcc check builds and runs it)",
}
KIT_PROGRAMS = ("nvcc", "compute-sanitizer", "ncu", "cmake", "python3", "python", "mkdir", "unzip", "cp", "bash",
                "sudo", "git", "tar", "sh", "srun", "sbatch", "gcc", "g++", "clang", "cd", "pip", "apt-get",
                "cut", "cat", "ls", "export")


def kit_named_commands(kit):
    """The commands other than make in the code blocks (lines indented four spaces or more) of
    the kit's Markdown pages: {command: (its pattern in KIT_COMMANDS_NOT_RUN, the reason it is
    not run)}; a command no pattern covers maps to None."""
    found = {}
    for dirpath, _, files in os.walk(kit):
        if os.sep + "build" in dirpath[len(kit):]:
            continue
        for f in files:
            if not f.endswith(".md"):
                continue
            for line in open(os.path.join(dirpath, f), errors="replace"):
                if not line.startswith("    "):
                    continue
                prompt = line.strip().startswith("$ ")
                cmd = re.sub(r"^(\$ )?(\s*[A-Z_]+=\S+\s+)*", "", line.strip())  # a prompt, VAR=value
                first = cmd.split(" ")[0] if cmd else ""
                if first == "make" or not (prompt or first in KIT_PROGRAMS or
                                           first.startswith(("./", "build/", "grader/")) and not first.endswith("/")):
                    continue
                key = next((k for k in KIT_COMMANDS_NOT_RUN if re.match(k, cmd)), None)
                found[cmd.rstrip(" \\")] = (key, KIT_COMMANDS_NOT_RUN[key]) if key else None
    return found


def kit_named_targets(kit):
    """The make targets that the kit's pages, headers and scripts name (`make TARGET` where
    TARGET is one of its Makefiles' targets)."""
    defined = set()
    for mk in ("Makefile", "grader/emu/emu.mk"):
        with open(os.path.join(kit, mk)) as fh:
            defined |= set(re.findall(r"^([a-z][a-z0-9-]*):", fh.read(), re.M))
    named = set()
    for dirpath, _, files in os.walk(kit):
        if os.sep + "build" in dirpath[len(kit):]:
            continue
        for f in files:
            if f.endswith((".md", ".cu", ".h", ".c", ".sh", ".sbatch", ".tex", ".py")):
                with open(os.path.join(dirpath, f), errors="replace") as fh:
                    named |= set(re.findall(r"\bmake (?:-f \S+ |-C \S+ )?([a-z][a-z0-9-]*)", fh.read())) & defined
    return named


def gradescope_autograder():
    """Runs the lab 01 autograder as Gradescope would, on each form of upload: the file alone,
    a `make handin` tarball, a whole repository; checks results.json's fields."""
    os.makedirs(BUILD, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gradescope-", dir=BUILD)
    try:
        src = autograder_layout(work, ["01"])
        sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
        forms = {
            "flat": lambda d: shutil.copy(sol, d),
            "handin": lambda d: sh([sys.executable, "grader/course/kit.py", "handin", "--from", "solutions",
                                    "--out", os.path.join(d, "handin.tar.gz"), "--name", "student"]),
            "repository": lambda d: (os.makedirs(os.path.join(d, "scanlab", "skeletons", "01-serial")),
                                     shutil.copy(sol, os.path.join(d, "scanlab", "skeletons", "01-serial")),
                                     open(os.path.join(d, "scanlab", "README.md"), "w").write("mine\n")),
        }
        scores = []
        for form, put in forms.items():
            sub = os.path.join(work, "submission")
            shutil.rmtree(sub, ignore_errors=True)
            os.makedirs(sub)
            put(sub)
            code, out = sh([os.path.join(src, "run_autograder")], env=dict(quick_lab01_manifests(), AUTOGRADER_ROOT=work))
            results = os.path.join(work, "results", "results.json")
            if not os.path.exists(results):
                raise CheckFailed(f"{form} upload: run_autograder wrote no results.json:\n" + out[-1500:])
            data = json.load(open(results))
            if data["score"] != data["max_score"] or not data["tests"]:
                raise CheckFailed(f"{form} upload: the solution scored {data['score']}/{data['max_score']}:\n"
                                  + out[-1500:])
            for t in data["tests"]:
                if not {"name", "score", "max_score", "status", "output"} <= set(t):
                    raise CheckFailed(f"a test entry lacks Gradescope's fields: {t}")
                if t["status"] not in ("passed", "failed") or t.get("visibility", "visible") not in grade.VISIBILITY:
                    raise CheckFailed(f"a test entry has a status or visibility Gradescope does not know: {t}")
            scores.append(f"{form} {data['score']}/{data['max_score']}")
        return ", ".join(scores)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def manifest_mistakes():
    """Each mistake an instructor may make in a manifest is an error naming the file, the test
    and the key, and nothing is graded; T= takes several names and refuses unknown ones."""
    src = open(os.path.join(ROOT, "grader", "manifests", "lab01.toml")).read()
    first = 'name = "inc_example"\ntitle = "inclusive scan of the worked example {3,1,7,0,4,1,6,3}"\npoints = 1\n'
    if first not in src:
        raise CheckFailed("self-test fixture: lab01.toml's first test is not as expected")
    cases = {
        "points = 2.5": (first.replace("points = 1", "points = 2.5"), r"test 'inc_example': 'points' must be a whole number"),
        "points = -3": (first.replace("points = 1", "points = -3"), r"test 'inc_example': 'points' must be a whole number above 0"),
        'points = "5"': (first.replace("points = 1", 'points = "5"'), r"test 'inc_example': 'points' must be a whole number"),
        'timeout = "30s"': (first + 'timeout = "30s"\n', r"test 'inc_example': 'timeout' must be a number"),
        "timout": (first + "timout = 30\n", r"test 'inc_example': unknown key 'timout' \(did you mean 'timeout'\?\)"),
        "no points": (first.replace("points = 1\n", ""), r"test 'inc_example': missing 'points'"),
        "threshhold": (None, r"parameter 'threshhold'|a timing test needs a 'threshold'"),
        "a GPU model's table that sets more than thresholds": (
            "params = { n = 33554432, reps = 5, threshold = 0.03 }\n[test.gpu.H200]\nparams = { reps = 3 }\n",
            r"test 'timing' \[test.gpu.H200\]: 'reps' is not one of the test's thresholds"),
    }
    folder = os.path.join(BUILD, "manifests")
    done = []
    for label, (block, want) in cases.items():
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        if block and block.startswith("params = { n = 33554432"):  # the timing test's params line
            text = src.replace("params = { n = 33554432, reps = 5, threshold = 0.03 }\n", block)
        else:
            text = src.replace(first, block) if block else src.replace("threshold = 0.03", "threshhold = 0.03")
        open(os.path.join(folder, "lab01.toml"), "w").write(text)
        code, out = sh([sys.executable, "grader/grading/grade.py", "--lab", "01", "--submission", "solutions",
                        "--backend", "emu"], env={"SCANLAB_MANIFESTS": folder})
        if code != 2 or not re.search(want, out) or "lab01.toml" not in out or "Score" in out:
            raise CheckFailed(f"manifest with {label}: exit {code}, expected /{want}/:\n{out[-600:]}")
        done.append(label)
    code, out = sh([sys.executable, "grader/grading/grade.py", "--lab", "01", "--submission", "solutions", "--backend",
                    "emu", "--test", "nosuch"])
    if code != 2 or "no test named nosuch" not in out or "inc_example" not in out:
        raise CheckFailed("T=nosuch should be an error listing the lab's tests:\n" + out[-600:])
    code, out, data = run_grader("solutions", ["01"], tests=("inc_example,exc_example",), tag="t-two")
    if code != 0 or len(data["tests"]) != 2:
        raise CheckFailed("T=inc_example,exc_example should run exactly those two tests:\n" + out[-600:])
    return f"{len(done)} mistakes refused with the file, test and key; T= checked"


def github_classroom():
    """Runs the student kit's workflow steps here, as GitHub would (its install step is what
    `make check` installed already): the summary must carry the score and a row per test."""
    wf = open(os.path.join(ROOT, ".github", "workflows", "scanlab.yml")).read()
    steps = re.findall(r"^\s+run: (.*)$", wf, re.M)
    grade_steps = [s_ for s_ in steps if "classroom.py" in s_]
    if len(steps) != 2 or len(grade_steps) != 1:
        raise CheckFailed(f"the workflow should have an install step and a grading step: {steps}")
    summary = os.path.join(BUILD, "classroom-summary.md")
    if os.path.exists(summary):
        os.remove(summary)
    code, out = sh(["bash", "-c", grade_steps[0]], env={"GITHUB_STEP_SUMMARY": summary})
    text = open(summary).read() if os.path.exists(summary) else ""
    m = re.search(r"Score: (\d+)/(\d+)", text)
    if code or not m or text.count("| lab0") < 40:
        raise CheckFailed("the workflow's grading step gave no usable summary:\n" + (text or out)[-1500:])
    return f"summary: Score {m.group(1)}/{m.group(2)}, {text.count('| lab0')} test rows"


def sanitizer(lab, tool):
    """Runs every non-timing test of a lab's solution with its driver under compute-sanitizer
    (GPU only), with the small sizes of the manifest's emu overrides: racecheck and synccheck
    are slow. Each test must pass and its log show a clean summary; the line shows the slowest
    test against its time limit (a sanitizer's, WRAP_SLOWDOWN times the test's own)."""
    m = [m for m in grade.all_manifests() if m["lab"] == lab][0]
    tests = [t["name"] for t in m["test"] if not t.get("timing")]
    wrap = f"compute-sanitizer --tool {tool} --error-exitcode 99 --print-limit 20"
    code, out, data = run_grader("solutions", [lab], backend="cuda", tests=tests, tag=f"san{lab}-{tool}",
                                 extra=("--wrap", wrap, "--sizes-of", "emu"))
    logs = os.path.join(ROOT, "build", "grade", "cuda", "solutions", "logs", f"lab{lab}")
    bad = []
    for name, e in by_name(data).items():
        text = open(os.path.join(logs, f"{name}.log"), errors="replace").read()
        summary = re.findall(r"(?:ERROR|RACECHECK) SUMMARY: .*", text)
        if e["status"] != "passed":
            bad.append(f"{name}: {e['output'].splitlines()[:3]}")
        elif not summary or not all(re.search(r"SUMMARY: 0 ", s_) for s_ in summary):
            bad.append(f"{name}: {summary or 'no sanitizer summary in ' + os.path.relpath(logs, ROOT)}")
    if bad or not data["tests"]:
        raise CheckFailed(f"lab {lab} under {tool}:\n    " + "\n    ".join(bad or [out[-1500:]]))
    took = [(float(s_), n) for n, s_ in re.findall(r"^  (\w+): \w+ \(([\d.]+)s\)", out, re.M)]
    slowest = max(took) if took else None
    limit = slowest and grade.run_settings(m, [t for t in m["test"] if t["name"] == slowest[1]][0], "cuda",
                                           sizes_of="emu")[0] * grade.WRAP_SLOWDOWN
    return f"{len(data['tests'])} tests clean" + (f"; slowest {slowest[1]} {slowest[0]:.1f} s of its {limit:.0f} s"
                                                 if slowest else "")


def gpu_quotes():
    """The handouts' output quoted from GPU runs (racecheck, ...) is what the GPU prints today."""
    code, out = sh([sys.executable, "grader/docs/quotes.py", "--gpu"])
    if code:
        raise CheckFailed(out[-3000:])
    return out.strip().splitlines()[-1]


def tuning_program():
    """Lab 05's tuning program (labs/05-global-scan/bench/tune_lookback.cu, not graded) builds, and
    every configuration of its two sweeps gives CUB's sums on small sizes (its timings are not
    read: it runs beside other checks), but the ablation without a look-back (`..._ld9`, wrong by
    design: a ceiling for the timing), which must be found wrong."""
    exe = os.path.join(BUILD, "tune_lookback")
    code, out = sh(["nvcc", "-O3", "-std=c++17", "-arch=sm_" + os.environ.get("SM", "90"), "-o", exe,
                    os.path.join(ROOT, "labs", "05-global-scan", "bench", "tune_lookback.cu")])
    if code:
        raise CheckFailed("tune_lookback.cu does not build:\n" + out[-2000:])
    rows, ablation = 0, 0
    for args in (["shapes", "18"], ["placement", "16", "18"]):
        code, out = sh([exe] + args)
        lines = [x for x in out.splitlines() if x.startswith("R ")]
        rows += len(lines)
        wrong = [x for x in lines if "WRONG" in x and not re.match(r"R \d+ \S+_ld9 ", x)]
        ablation += sum(1 for x in lines if re.match(r"R \d+ \S+_ld9 .*WRONG", x))
        if code or wrong or not lines:
            raise CheckFailed(f"tune_lookback {' '.join(args)} (exit code {code}):\n" +
                              "\n".join(wrong or out.splitlines()[-20:])[-2000:])
    if not ablation:
        raise CheckFailed("tune_lookback placement: the ablation without a look-back (b128_i64_ld9) was not found WRONG")
    return f"both sweeps agree with CUB: {rows} timed rows, none WRONG but the {ablation} of the ablation"


def gpu_checks():
    """`make check-gpu`: the checks that need a GPU, as (name, function) pairs, in two phases.
    First, one at a time, everything that times the GPU or reads a timed figure (a timing test
    beside other work would measure the other work). Then, as lanes that run side by side,
    what only needs the GPU to answer: each lab's skeletons (a lane a lab), each lab's three
    sanitizers (a lane a lab, one after another: a test's log is named after the test, so two
    runs of one lab's solution at once would write the same files), the handouts' quoted GPU
    output, and the emu's corpus, the race comparison and the sandbox's cases. The longest
    lane, lab 06's sanitizers, sets the second phase's length. Returned as (sequential list,
    list of lanes)."""
    alone = [("the driver's call thread is confined", call_thread_confined)]
    lanes = [[("the trusted side's checks agree, host and device (cuda)",
               lambda: trusted_checks("cuda", large=(1 << 24) + 13))]]
    for m in grade.all_manifests():
        lab = m["lab"]
        if m.get("backend") == "cpu":
            # a lab without kernels, graded as `make grade` grades it there: this machine's
            # compiler (whose defaults, _FORTIFY_SOURCE say, may differ from CI's) and its CPU's timing
            alone.append((f"lab {lab} solutions pass (the GPU machine's compiler and CPU)",
                          lambda lab=lab: solutions_pass(lab, "-", "cuda")))
            continue
        alone.append((f"lab {lab} solutions pass (cuda)", lambda lab=lab: solutions_pass(lab, "-", "cuda")))
        lanes.append([(f"lab {lab} skeletons fail (cuda)", lambda lab=lab: skeletons_fail(lab, "cuda"))])
        lanes.append([(f"lab {lab} solutions clean under {tool}", lambda lab=lab, tool=tool: sanitizer(lab, tool))
                      for tool in ("racecheck", "synccheck", "memcheck")])
    # the quotes time nothing (a racecheck report, ncu's counters, a program's output)
    lanes.append([("quoted GPU output matches real runs", gpu_quotes),
                  ("lab 05's tuning program builds and agrees with CUB", tuning_program)])
    import course_run  # noqa: E402
    alone += course_run.GPU_CHECKS
    import bad_submissions  # noqa: E402
    alone += [(f"grader survives on the GPU: {name}", fn) for name, fn in bad_submissions.GPU_CASES]
    import emu_nvcc  # noqa: E402  (grader/selftest/emu_nvcc.py)
    # alone, on a quiet GPU: 45 small programs one after the other, some of which spin on flags
    # or clocks (28.6 s alone; in a lane beside the sanitizers, it and they had not ended after
    # 14 minutes)
    alone.append(("the emu's tests that expect pass build with nvcc and pass on the GPU", emu_nvcc.tests_native))
    sys.modules.setdefault("run", sys.modules[__name__])
    import race_compare  # noqa: E402  (grader/selftest/race_compare.py)
    import confinement  # noqa: E402
    import isolation  # noqa: E402
    lanes.append([("emu corpus: every program built with nvcc passes on the GPU", emu_nvcc.corpus_native),
                  ("race detector agrees with racecheck", race_compare.check)] +
                 [(f"grader confines on the GPU: {name}", fn) for name, fn in confinement.GPU_CASES] +
                 [(f"sandbox holds on the GPU: {name}", fn) for name, fn in isolation.GPU_CASES])
    return alone, lanes


# ---- the list ----------------------------------------------------------------------------

def checks():
    out = [("manifests", manifests), ("manifest mistakes are errors", manifest_mistakes), ("regions", regions),
           ("no circles between the kit's files or folders", no_circles),
           ("files past 800 lines say why at their top", long_files_say_why)]
    import bad_submissions  # noqa: E402  (grader/selftest/bad_submissions.py)
    import isolation  # noqa: E402  (grader/selftest/isolation.py)
    for name, fn in isolation.CASES:
        out.append((f"sandbox holds: {name}", fn))
    out.append(("the driver's call thread is confined", call_thread_confined))
    out.append(("a long sandbox view reaches the sandbox whole", long_sandbox_view))
    out.append(("the trusted side's checks agree, host and device (emu)", trusted_checks))
    for name, fn in bad_submissions.CASES:
        out.append((f"grader survives: {name}", fn))
    import confinement  # noqa: E402  (grader/selftest/confinement.py)
    for name, fn in confinement.CASES:
        out.append((f"grader confines: {name}", fn))
    labs = [m["lab"] for m in grade.all_manifests()]
    emu_labs = [m["lab"] for m in grade.all_manifests() if m.get("backend") != "cpu"]
    if os.path.exists(os.path.join(ROOT, "grader", "emu", "emu.mk")):
        out.append(("emu's own tests", emu_tests))
        out.append(("the emu's probes cost and its speed under their limits (bench_scan3, alone)", lambda: emu_tests("only")))
        import emu_nvcc  # noqa: E402  (grader/selftest/emu_nvcc.py)
        out.append(("emu-nvcc: nvcc's options, its refusals, the probes through it", emu_nvcc.driver))
        out.append(("emu-nvcc: the emulator's headers precompiled, the same objects", emu_nvcc.precompiled))
        out.append(("emu corpus: every program builds with emu-nvcc and passes", emu_nvcc.corpus_emu))
        out.append(("emu corpus: every program passes with the memory probes",
                    lambda: emu_nvcc.corpus_emu(probe=True)))
        out.append(("emu corpus: the README's table lists its programs", emu_nvcc.corpus_table))
        out.append(("make profile LAB=03 on the emu", profile_emu))
        out.append(("make profile LAB=02,05,06,07 on the emu", profile_emu_labs))
        out.append(("make profile reads and compares ncu's CSV (a fake one)", profile_ncu_parsing))
        out.append(("the emu against an H100's recorded counts", profile_recorded))
    for lab in labs:
        scheds = SOLUTION_SCHEDULES if lab in emu_labs else ("forward",)
        for s in scheds:
            size = f", sizes up to 2^{REVERSE_MAX_SIZE.bit_length() - 1}" if s == "reverse" else ""
            out.append((f"lab {lab} solutions pass" + (f" ({s}{size})" if lab in emu_labs else ""),
                        lambda lab=lab, s=s: solutions_pass(lab, s)))
        out.append((f"lab {lab} skeletons fail", lambda lab=lab: skeletons_fail(lab)))
    out.append(("binaries list exactly the manifests' tests", binaries_match_manifests))
    out += [("handin round trip", handin_roundtrip), ("a handin in the temporary folder", handin_in_tmp),
            ("student kit", student_kit),
            ("Gradescope autograder", gradescope_autograder), ("GitHub Classroom workflow", github_classroom)]
    import course_run  # noqa: E402  (grader/selftest/course_run.py: running a course)
    out += course_run.CLASS_CHECKS + course_run.CHECKS
    out += [("docs build clean", docs), ("slides build", slides)]
    import content  # noqa: E402  (grader/selftest/content.py: what readers see)
    out += content.CHECKS
    import ranks  # noqa: E402  (grader/selftest/ranks.py: lab 08's ranks as processes)
    out += ranks.CHECKS
    return out


# `make check` on a machine of two cores or more: two lanes run side by side. The side lane
# starts with the checks that build in a folder of their own (build/emu-test, the corpus's, the
# profiles', the docs', the slides') and grade no submission; the docs' render follows the docs'
# build in that lane. The main lane starts with the rest, in order (the solutions' grades share
# build/grade/emu/solutions). Then both take the known-bad submissions (POOLED) from one queue,
# the costliest first: each grades a folder of its own under build/selftest/bad, so any two run
# side by side, and the lanes end close together. (A third lane on two cores made the checks
# that time themselves run late, when they ran in the lanes: an emu test's 1 s limit took
# 1.7 s, lab 01's timing, then on the wall clock, fell to 0.028 of memcpy. With those run alone after the
# lanes, a third lane still cost time: a fresh clone's make check took 11 min 22 s against
# 10 min 34 s with two, its CPU seconds up by a tenth.) Those that time themselves (lab 01's
# solutions: its timing test counts CPU seconds now, which waiting for a core does not
# stretch, but a busy neighbour on a shared core still slows the scan: 0.064 of memcpy in the
# lanes of a fresh clone against 0.09 alone, the threshold 0.03) or bound a wait (a build's
# time limit, a hang named within seconds, make test's first result, a class graded in
# parallel and its files) run last, alone, as on a quiet machine (but LAST_PAIRED); the other
# checks that grade lab 01 use quick_lab01_manifests. With --deps, the tools beyond grading's
# install beside the first checks.
SIDE_LANE = ("emu's own tests", "emu-nvcc:", "emu corpus:", "make profile", "the emu against an H100's recorded",
             "docs build clean", "slides build", "the docs render in a browser")
RUN_ALONE = ("lab 01 solutions pass", "the emu's probes cost", "grader survives: build that never ends", "a hang named within", "make test: the first result within",
             "a class graded with one command", "LMS files", "the class report in a browser",
             "the class through a one-node Slurm cluster", "the class through the Gradescope zip")
# Of those, these go last, in two lanes side by side: the class (graded, its LMS files, its report,
# then through the Gradescope zip, a sample of its students), and the hang and the endless
# build, which wait for the time limits they test (one core for the hang's 5 s, the compiler's
# for the build's 8), then the class through Slurm, which waits mostly for its daemons and its
# array. The class's bound on its wall time leaves 15 s for such a
# neighbour. make test's edit-to-result runs before them, alone up to its first result (at most
# 15 s: 6-8 s alone, 12.0 s beside the class through Slurm), and they start beside its rest.
LAST_PAIRED = (("a class graded with one command", "LMS files", "the class report in a browser",
                "the class through the Gradescope zip"),
               ("grader survives: a look-back that never publishes", "grader survives: build that never ends",
                "the class through a one-node Slurm cluster"))
# A check that reads another's output waits for it, where both run: the class through Slurm
# compares its gradebook with the class graded here (in the other lane, which it follows, so the
# two lanes end together: the Slurm run was the last 18 s of the class's lane).
AFTER = {"the class through a one-node Slurm cluster": "a class graded with one command"}
# make test's edit-to-result is timed up to its first result: the paired lanes start then, beside
# the rest of its run (its other tests and its graded build, and the unchanged run's first result,
# at most 5 s).
TIMED_ALONE_FIRST = ("make test: the first result within",)
POOLED = "grader survives: "
# The pooled checks' order: these first (CPU seconds in a fresh clone's make check on two cores,
# rounded), the others after, in their listed order.
POOL_COST = {"one verdict with": 63, "lab 06: a block scan's temp reused": 42, "scanIncBlock done by thread 0": 34,
             "reads its input again through a volatile pointer": 25, "two handin.tar.gz": 26,
             "segmented scan with uncoalesced": 26, "replaces the C library's memset": 23,
             "polls with plain loads": 23, "macros that expand to 2^24 tokens": 22,
             "reads its input again through atomics": 22, "single pass with uncoalesced loads": 19,
             "stores bytes one by one": 16, "radix ranking without __syncwarp": 16, "scatters from registers": 15,
             "conflicts drowned in requests": 14, "forgets the earlier tiles' others": 13}
LANES = 2
# With --deps TASK (make check) the tools `grader/deps.sh TASK` installs beyond grading's (Doxygen,
# LaTeX, Chromium, Slurm, the similarity engine: a minute or two of downloads and unpacking on a
# fresh machine) install beside the first checks; only these wait for them.
NEEDS_DEPS = ("docs build clean", "student kit", "slides build", "the docs render in a browser", "similarity ranks",
              "the class report in a browser", "the class through a one-node Slurm cluster",
              "lab 08: ranks as processes through srun")


class Deps:
    """`grader/deps.sh TASK` run in the background; wait() gives '' once it succeeded, else why not."""

    def __init__(self, task):
        self.task, self.done, self.why = task, threading.Event(), ""
        self.thread = threading.Thread(target=self.install, daemon=True)
        self.thread.start()

    def install(self):
        log = os.path.join(BUILD, "deps.log")
        try:
            with open(log, "w") as f:
                code = subprocess.run([os.path.join(ROOT, "grader", "deps.sh"), self.task], cwd=ROOT, stdout=f,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
            out = open(log, errors="replace").read().strip()
            if out:
                print("\n".join("  " + x for x in out.splitlines()[-20:]), flush=True)
            if code:
                self.why = (f"it needs what grader/deps.sh {self.task} installs, which failed (exit code {code}; "
                            f"its log: {os.path.relpath(log, ROOT)})")
        except OSError as e:
            self.why = f"it needs what grader/deps.sh {self.task} installs, which did not run: {e}"
        finally:
            self.done.set()

    def wait(self):
        self.done.wait()
        return self.why


def cpu_phases(todo):
    """make check's checks as (lanes, the pool the lanes drain after their own, the ones alone,
    in order); one lane, the pool in it, where the machine has one core."""
    alone = [c for c in todo if any(c[0].startswith(a) or a in c[0] for a in RUN_ALONE)]
    rest = [c for c in todo if c not in alone]
    pool = [c for c in rest if c[0].startswith(POOLED)]
    rest = [c for c in rest if c not in pool]

    def cost(c):
        return -max([v for k, v in POOL_COST.items() if k in c[0]] or [0])
    pool.sort(key=cost)  # stable: the uncosted keep their order
    if (os.cpu_count() or 1) < 2:
        return [rest], pool, alone
    side = [c for c in rest if any(c[0].startswith(a) for a in SIDE_LANE)]
    return [[c for c in rest if c not in side], side] + [[]] * (LANES - 2), pool, alone


def main():
    ap = argparse.ArgumentParser(description="The kit's own tests.")
    ap.add_argument("--only", action="append", default=[], help="run checks whose name has this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="the checks that need a GPU (make check-gpu)")
    ap.add_argument("--deps", metavar="TASK", help="run grader/deps.sh TASK beside the first checks; the "
                    "checks that need its tools wait for it")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    os.makedirs(BUILD, exist_ok=True)
    last, pool = [], []
    if args.gpu:
        todo, lanes = gpu_checks()
    else:  # lanes first (the pool drained by both), then the checks that must run alone
        todo = []
        lanes, pool, last = cpu_phases(checks())

    def chosen(items):
        return [(n, f) for n, f in items if not args.only or any(o in n for o in args.only)]
    todo, last, pool = chosen(todo), chosen(last), chosen(pool)
    lanes = [lane for lane in (chosen(x) for x in lanes) if lane]
    while pool and len(lanes) < (LANES if (os.cpu_count() or 1) >= 2 else 1):  # lanes enough to drain the pool
        lanes.append([])
    if args.list:
        for n, _ in todo + [c for lane in lanes for c in lane] + pool + last:
            print(n)
        return 0
    if args.gpu and grade.detect_backend() != "cuda":
        print("make check-gpu needs a GPU, and nvidia-smi finds none here: make check runs the kit's tests "
              "on the emu", file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    counts = {"passed": 0, "failed": 0}
    failures = []  # each failure's first lines, said again above the closing line (CI shows a run's tail)
    lock = threading.Lock()
    deps = Deps(args.deps) if args.deps else None

    chosen_names = [n for n, _ in todo + [c for lane in lanes for c in lane] + pool + last]
    finished = {n: threading.Event() for n in chosen_names}

    def run_check(name, fn):
        try:
            run_one(name, fn)
        finally:
            finished[name].set()

    def run_one(name, fn):
        for later, first in AFTER.items():
            if name.startswith(later):
                for n, ev in finished.items():
                    if n.startswith(first):
                        ev.wait()
        if deps and name.startswith(NEEDS_DEPS):
            why = deps.wait()
            if why:
                with lock:
                    counts["failed"] += 1
                    failures.append(f"{name}: FAIL\n    {why}")
                    print(failures[-1], flush=True)
                return
        t0 = time.monotonic()
        CPU.seconds = CPU.system = 0.0

        def took():
            return f"{time.monotonic() - t0:.1f}s, cpu {CPU.seconds:.0f}s, sys {CPU.system:.0f}s"
        try:
            detail = fn()
            line, key = f"{name}: OK ({took()}) {detail or ''}", "passed"
        except CheckFailed as e:
            line, key = f"{name}: FAIL ({took()})\n    {e}", "failed"
        except Exception as e:  # a bug in the self-test itself is a failure too, never a crash
            line, key = f"{name}: FAIL (self-test error: {type(e).__name__}: {e})", "failed"
        with lock:
            counts[key] += 1
            if key == "failed":
                failures.append(line)
            print(line, flush=True)

    t_all = time.monotonic()
    for name, fn in todo:
        run_check(name, fn)
    if len(lanes) > 1 and not args.gpu:
        # what both lanes would otherwise build at once: the emu's runtime library
        code, out = sh(["make", "--no-print-directory", f"-j{os.cpu_count()}", "emu-lib"])
        if code:
            counts["failed"] += 1
            failures.append("the emu's runtime library does not build:\n" + out[-600:])
            print("the emu's runtime library does not build:\n" + out[-1500:], flush=True)
    queue = list(pool)

    def run_lane(lane):
        for n, fn in lane:
            run_check(n, fn)
        while True:
            with lock:
                if not queue:
                    return
                n, fn = queue.pop(0)
            run_check(n, fn)
    if lanes:  # the lanes side by side, each in its order, then the pool
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(lanes)) as ex:
            for f in [ex.submit(run_lane, lane) for lane in lanes]:
                f.result()
    paired = [[c for p in lane for c in last if c[0].startswith(p)] for lane in LAST_PAIRED]  # in LAST_PAIRED's order
    alone = [c for c in last if not any(c in lane for lane in paired)]
    paired = [lane for lane in paired if lane]
    side_by_side = len(paired) > 1 and (os.cpu_count() or 1) >= 2
    # a check timed only in its first part (TIMED_ALONE_FIRST) goes last of those alone, and the
    # paired lanes start once that part is over (common.TIMED_PART_OVER), beside the rest of it
    overlap = [c for c in alone if c[0].startswith(TIMED_ALONE_FIRST)] if side_by_side else []
    for name, fn in [c for c in alone if c not in overlap]:
        run_check(name, fn)
    rest = None
    if overlap:
        common.TIMED_PART_OVER.clear()
        rest = threading.Thread(target=lambda: [run_check(n, fn) for n, fn in overlap])
        rest.start()
        common.TIMED_PART_OVER.wait()
    if side_by_side:
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(paired)) as ex:
            for f in [ex.submit(lambda lane=lane: [run_check(n, fn) for n, fn in lane]) for lane in paired]:
                f.result()
    else:
        for name, fn in [c for lane in paired for c in lane]:
            run_check(name, fn)
    if rest:
        rest.join()
    if deps and not deps.done.is_set():  # nothing chosen needed it: let it finish all the same
        deps.wait()
    passed, failed = counts["passed"], counts["failed"]
    if failures:  # each again, shortened, where a log's tail shows it
        print(f"\n{len(failures)} failed:")
        for text in failures:
            lines = text.splitlines()
            print("\n".join(x[:300] for x in lines[:6]) + (f"\n    ... ({len(lines) - 6} more lines above)"
                                                           if len(lines) > 6 else ""))
    print(f"\nself-test took {time.monotonic() - t_all:.0f}s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
