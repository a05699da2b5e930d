#!/usr/bin/env python3
"""The emu's race detector against compute-sanitizer's racecheck, kernel by kernel.

For every kernel below, two verdicts on the same source, built twice:

  - emu: built for the emu backend with the memory probes and run under the `forward` schedule,
    as the grader runs it (SCANLAB_EMU_STRICT=1: a program's own run warns of warp-synchronous
    code instead, its lanes in step);
    the verdict is the detector's first `emu: race on ...` line (both threads, both lines) or
    none;
  - racecheck: built with nvcc (`-lineinfo`) and run under
    `compute-sanitizer --tool racecheck --racecheck-report all` on the GPU; the verdict is the
    hazard count of its `RACECHECK SUMMARY` line (errors + warnings) and its first report.

The kernels: the self-test's known-bad race submissions (lab 02 without its second
__syncthreads, lab 04 without its read-write __syncwarp, lab 07's radix ranking without its
__syncwarp, the edits of bad_submissions.py) and three solutions, graded through grade.py with
one small test each; the two kernels of lab 04's
exhibit; the emu's race tests that are plain CUDA. A program with several kernels runs one of
them per build (the other launches are edited out, on one line each, so every line number stays
the file's): racecheck counts per process, and the emu stops at the first race.

`make check-gpu` fails unless the two verdicts (race or none) agree on every kernel and agree
with what the kernel is known to be (a comparison in which a known-bad kernel shows no race on
either side proves nothing), or when an output cannot be read: a run with no RACECHECK SUMMARY,
a count with no report, a report format not recognised, a build that fails. It prints the table,
and the same in Markdown (the rows of grader/emu/README.md's "Against compute-sanitizer"), also
written to build/selftest/race-compare.md.

    race_compare.py [--emu-only] [--only TEXT]... [--jobs N] [--list]

--emu-only runs the emu half alone (no GPU needed) and checks it against the known verdicts.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), d) for d in ("grading", "course", "measure", "docs")]
sys.path.insert(0, HERE)
import grade  # noqa: E402
import common as selftest  # noqa: E402  (grader/selftest/common.py: ROOT, BUILD, CheckFailed, sh)

ROOT = selftest.ROOT
WORK = os.path.join(selftest.BUILD, "race")
MARKDOWN = os.path.join(selftest.BUILD, "race-compare.md")
CheckFailed = selftest.CheckFailed
RACECHECK = ["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", "all", "--print-limit", "10"]


class Unreadable(Exception):
    """An output this check cannot turn into a verdict: never a pass."""


# ---- the kernels ---------------------------------------------------------------------------

EXHIBIT = "labs/04-warp-scan/exhibit/legacy_volatile_scan.cu"
EXHIBIT_LEGACY = '  int legacy = run("legacy volatile scan:", legacyVolatileScanKernel, expect, d_in, d_out);\n'
EXHIBIT_FIXED = '  int fixed = run("scan with __syncwarp():", syncwarpScanKernel, expect, d_in, d_out);\n'
BARRIER = "grader/emu/tests/probe_race_barrier.cu"
BARRIER_SCAN = "  scanKernel<true><<<1, 256>>>(d);\n"
BARRIER_WARP = "  warpKernel<<<1, 32>>>(d);\n"
BARRIER_RACY = "  racyScanKernel<<<1, 256>>>(d);\n"
LEFT_OUT = "  (void)0; /* launch left out: one kernel per run */\n"
STRUCT = "grader/emu/tests/probe_race_struct.cu"
STRUCT_CLEAN = "  pairKernel<<<1, 64>>>(d_in, d_out);\n"
STRUCT_RACY = "  racyPairKernel<<<1, 64>>>(d_in, d_out);\n"

# The self-test's known-bad submissions (bad_submissions.py, case_missing_barrier_race): the
# line each one deletes from the solution.
KS_FILE = "02-kogge-stone/kogge_stone.cu"
KS_SECOND_BARRIER = "    __syncthreads();                              /* ... and every write, before the next */\n"
WS_FILE = "04-warp-scan/warp_scan.cu"
WS_RW_SYNCWARP = "    __syncwarp(mask);             /* all reads of this step before any write */\n"
# Lab 07's radix ranking: without its middle __syncwarp, the lowest lane of a digit clears the
# digit's mask while the other lanes read it; its TODO asks for the __syncwarp. The emu reports
# the race; racecheck settles it on a GPU.
RADIX_FILE = "07-applications/apps.cu"
RADIX_SYNCWARP = "    __syncwarp(); /* every lane has read its mask before it is cleared */\n"
# One small test per lab, the same parameters on both sides (racecheck is slow): lab 02's worked
# example (n = 8 in blocks of 8, 13, 32 and 1024 threads, one block each), lab 04's shared-memory
# scan with four operators on 32 and 1000 elements in blocks of 32 and 256.
LAB_TESTS = {"02": ("ks_example", {"blocks": "8,13,32,1024"}),
             "04": ("smem_ops", {"sizes": "32,1000", "blocks": "32,256"}),
             "07": ("sort_keys", {"sizes": "4097", "patterns": "rand"})}


def program(slug, label, md, src, kernel, race, edits=()):
    """A standalone CUDA program; `edits` are (old, new) pairs of whole lines, each in `src`
    exactly once, that leave the other kernels' launches out."""
    return {"kind": "program", "slug": slug, "label": label, "md": md, "src": src, "kernel": kernel,
            "race": race, "edits": list(edits)}


def submission(slug, label, md, lab, rel, race, drop=None):
    """A lab's student file from solutions/, with the line `drop` deleted (None: as it is)."""
    test, params = LAB_TESTS[lab]
    return {"kind": "grader", "slug": slug, "label": label, "md": md, "lab": lab, "rel": rel, "race": race,
            "drop": drop, "test": test, "params": params}


CASES = [
    submission("missing_barrier", "lab 02 without its second __syncthreads (known-bad)",
               "lab 02 without its second `__syncthreads` (the self-test's known-bad submission), "
               "`scanIncKoggeStoneKernel`", "02", KS_FILE, True, KS_SECOND_BARRIER),
    submission("missing_syncwarp", "lab 04 without its read-write __syncwarp (known-bad)",
               "lab 04 without its read-write `__syncwarp` (the self-test's known-bad submission), "
               "`scanIncWarpSmem` in `warpScanBatchKernel`", "04", WS_FILE, True, WS_RW_SYNCWARP),
    submission("good_lab02", "lab 02 solution, scanIncKoggeStoneKernel",
               "solution of lab 02, `scanIncKoggeStoneKernel`", "02", KS_FILE, False),
    submission("good_lab04", "lab 04 solution, scanIncWarpSmem",
               "solution of lab 04, `scanIncWarpSmem` in `warpScanBatchKernel`", "04", WS_FILE, False),
    submission("radix_no_syncwarp", "lab 07 radix ranking without its __syncwarp (known-bad)",
               "lab 07 radix ranking without its `__syncwarp` (the self-test's known-bad submission), "
               "`radixOnesweepKernel`", "07", RADIX_FILE, True, RADIX_SYNCWARP),
    submission("good_lab07", "lab 07 solution, radixOnesweepKernel", "solution of lab 07, `radixOnesweepKernel`",
               "07", RADIX_FILE, False),
    program("exhibit_legacy", "lab 04 exhibit, legacyVolatileScanKernel",
            "lab 04 exhibit, `legacyVolatileScanKernel` (`volatile`, no `__syncwarp`)", EXHIBIT,
            "legacyVolatileScanKernel", True,
            [(EXHIBIT_FIXED, "  int fixed = 0; /* left out: one kernel per run */\n")]),
    program("exhibit_syncwarp", "lab 04 exhibit, syncwarpScanKernel", "lab 04 exhibit, `syncwarpScanKernel`",
            EXHIBIT, "syncwarpScanKernel", False,
            [(EXHIBIT_LEGACY, "  int legacy = 0; /* left out: one kernel per run */\n")]),
    program("barrier_scan", "emu test probe_race_barrier.cu, scanKernel<true>",
            "emu test `probe_race_barrier.cu`, `scanKernel<true>` (with the barrier)", BARRIER,
            "scanKernel", False, [(BARRIER_WARP, LEFT_OUT), (BARRIER_RACY, LEFT_OUT)]),
    program("barrier_warp", "emu test probe_race_barrier.cu, warpKernel",
            "emu test `probe_race_barrier.cu`, `warpKernel` (`__syncwarp`)", BARRIER, "warpKernel", False,
            [(BARRIER_SCAN, LEFT_OUT), (BARRIER_RACY, LEFT_OUT)]),
    program("barrier_racy", "emu test probe_race_barrier.cu, racyScanKernel",
            "emu test `probe_race_barrier.cu`, `racyScanKernel` (no barrier between read and write)",
            BARRIER, "racyScanKernel", True, [(BARRIER_SCAN, LEFT_OUT), (BARRIER_WARP, LEFT_OUT)]),
    program("probe_volatile", "emu test probe_race_volatile.cu, legacyWarpScanKernel",
            "emu test `probe_race_volatile.cu`, `legacyWarpScanKernel`", "grader/emu/tests/probe_race_volatile.cu",
            "legacyWarpScanKernel", True),
    program("legacy_volatile", "emu test legacy_volatile.cu, legacyKernel",
            "emu test `legacy_volatile.cu`, `legacyKernel` (a warp's scan and a row sum, `volatile`, no `__syncwarp`)",
            "grader/emu/tests/legacy_volatile.cu", "legacyKernel", True),
    program("race_reduce", "emu test race_reduce.cu, racyReduceKernel",
            "emu test `race_reduce.cu`, `racyReduceKernel` (no barrier in the loop)",
            "grader/emu/tests/race_reduce.cu", "racyReduceKernel", True),
    program("race_scan", "emu test race_scan.cu, racyScanKernel",
            "emu test `race_scan.cu`, `racyScanKernel` (no barrier between read and write)",
            "grader/emu/tests/race_scan.cu", "racyScanKernel", True),
    program("struct_clean", "emu test probe_race_struct.cu, pairKernel",
            "emu test `probe_race_struct.cu`, `pairKernel` (struct copies, with the barrier)", STRUCT,
            "pairKernel", False, [(STRUCT_RACY, LEFT_OUT)]),
    program("struct_racy", "emu test probe_race_struct.cu, racyPairKernel",
            "emu test `probe_race_struct.cu`, `racyPairKernel` (struct copies, no barrier)", STRUCT,
            "racyPairKernel", True, [(STRUCT_RACY, LEFT_OUT), (STRUCT_CLEAN, STRUCT_RACY)]),
]


# ---- verdicts ------------------------------------------------------------------------------

def verdict(race, side, first=None, hazards=None, errors=None, warnings=None, kernel=None):
    """race: bool; first: ((access, thread, file, line), (access, thread, file, line)) of the
    first report, thread None where the tool does not say; kernel: as the first report names it."""
    return {"race": race, "side": side, "first": first, "hazards": hazards, "errors": errors,
            "warnings": warnings, "kernel": kernel}


EMU_RACE = re.compile(r"emu: race on .+? at byte offset \d+ in kernel (?P<kernel>.+?), block \([^)]*\): "
                      r"thread \((?P<t1>[^)]*)\) (?P<a1>writes|reads) it at (?P<f1>\S+):(?P<l1>\d+) and "
                      r"thread \((?P<t2>[^)]*)\) (?P<a2>writes|reads) it at (?P<f2>\S+):(?P<l2>\d+)")


def emu_race(text):
    """The detector's first report in `text`, as a verdict; None when there is none."""
    for line in text.splitlines():
        if "emu: race on" not in line:
            continue
        m = EMU_RACE.search(line)
        if not m:
            raise Unreadable(f"an emu race report in a form this check does not read: {line.strip()[:300]}")
        acc = {"writes": "write", "reads": "read"}
        first = tuple((acc[m.group(f"a{i}")], m.group(f"t{i}").replace(" ", ""), os.path.basename(m.group(f"f{i}")),
                       int(m.group(f"l{i}"))) for i in (1, 2))
        return verdict(True, "emu", first=first, kernel=m.group("kernel"))
    return None


SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
HAZARD = re.compile(r"Potential (RAW|WAR|WAW) hazard detected")
ACCESS = re.compile(r"^(Write|Read) Thread \(([^)]*)\) at (.*) in (\S+?):(\d+)\b")
ANALYSIS = re.compile(r"Race reported between (Write|Read) access at (.*) in (\S+?):(\d+)\b")
ANALYSIS_2 = re.compile(r"^and (Write|Read) access at (.*) in (\S+?):(\d+)\b")


def racecheck_verdict(text):
    """Racecheck's verdict from its output (one or more processes: the counts are summed).
    Raises Unreadable unless the output has a summary, and a first report when it counts any."""
    lines = [re.sub(r"^=+ ?", "", ln).strip() for ln in text.splitlines()]
    sums = [SUMMARY.search(ln) for ln in lines if "RACECHECK SUMMARY" in ln]
    if not sums:
        raise Unreadable("no RACECHECK SUMMARY line: compute-sanitizer did not run the program to its end, or "
                         "its output changed")
    if not all(sums):
        bad = [ln for ln in lines if "RACECHECK SUMMARY" in ln and not SUMMARY.search(ln)][0]
        raise Unreadable(f"a RACECHECK SUMMARY line in a form this check does not read: {bad[:200]}")
    errors = sum(int(m.group(2)) for m in sums)
    warnings = sum(int(m.group(3)) for m in sums)
    hazards = errors + warnings
    first = kernel = None
    for i, ln in enumerate(lines):  # a hazard report names both threads: the first of those
        if HAZARD.search(ln):
            acc = [ACCESS.match(x) for x in lines[i + 1:i + 3]]
            if len(acc) < 2 or not all(acc):
                raise Unreadable(f"a hazard report without its two accesses in a form this check reads: {ln[:200]}")
            first = tuple((a.group(1).lower(), a.group(2).replace(" ", ""), os.path.basename(a.group(4)),
                           int(a.group(5))) for a in acc)
            kernel = acc[0].group(3)
            break
    for i, ln in enumerate(lines if first is None else []):  # else the first race report
        m = ANALYSIS.search(ln)
        if m:
            m2 = ANALYSIS_2.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not m2:
                raise Unreadable(f"a race report without its second access in a form this check reads: {ln[:200]}")
            first = tuple((x.group(1).lower(), None, os.path.basename(x.group(3)), int(x.group(4))) for x in (m, m2))
            kernel = m.group(2)
            break
    if hazards and not first:
        raise Unreadable(f"racecheck counts {hazards} hazards but no report of one could be read")
    if first and not hazards:
        raise Unreadable("racecheck reports a hazard but its summary counts none")
    if kernel:
        kernel = re.sub(r"\+0x[0-9a-fA-F]+$", "", kernel.strip())
    return verdict(hazards > 0, "racecheck", first=first, hazards=hazards, errors=errors, warnings=warnings,
                   kernel=kernel)


# ---- running the two sides -----------------------------------------------------------------

def run(cmd, env=None, timeout=300, cwd=ROOT):
    """(exit code, combined output) of a command; a hang is an error, never a verdict."""
    try:
        return selftest.sh(cmd, env=env, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise Unreadable(f"did not finish within {timeout} s: {' '.join(cmd)}")


def source_of(case):
    """The file both sides build: the original, or a copy with the case's edits."""
    if not case["edits"]:
        return case["src"]
    text = open(os.path.join(ROOT, case["src"])).read()
    for old, new in case["edits"]:
        if text.count(old) != 1 or old.count("\n") != new.count("\n"):
            raise CheckFailed(f"race comparison fixture '{case['slug']}': the line to leave out is not in "
                              f"{case['src']} exactly once:\n    {old.strip()}")
        text = text.replace(old, new)
    rel = os.path.relpath(os.path.join(WORK, "src", case["slug"], os.path.basename(case["src"])), ROOT)
    os.makedirs(os.path.dirname(os.path.join(ROOT, rel)), exist_ok=True)
    with open(os.path.join(ROOT, rel), "w") as f:
        f.write(text)
    return rel


def log_to(case, side, text):
    path = os.path.join(WORK, "logs", f"{case['slug']}-{side}.log")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return os.path.relpath(path, ROOT)


def emu_program(case):
    src = case["build_src"]
    binary = os.path.join(ROOT, "build", "emu-run", os.path.splitext(src)[0].replace("/", "_"))
    if os.path.exists(binary):
        os.remove(binary)
    cmd = ["make", "-s", "--no-print-directory", "-f", "grader/emu/emu.mk", "emu-run", f"FILE={src}",
           "EMU_PROBE=1", f"EMU_RUN_FLAGS=-I{os.path.dirname(case['src'])}"]
    env = {"SCANLAB_EMU_SCHEDULE": "forward", "SCANLAB_EMU_WATCHDOG_S": "30", "SCANLAB_EMU_STRICT": "1"}
    with grade.KitLock():  # the emu's runtime library is the grader's too: one make at a time rebuilds it
        code, out = run(cmd, env=env)
        if not os.path.exists(binary):
            # once, under make check-gpu's other lanes, this build left no program and its log was
            # lost with the machine: the first attempt's output is kept, and a second made
            first = out
            code, out = run(cmd, env=env)
            out = f"(a first build left no program; its output:)\n{first}\n(the second build:)\n{out}"
    log = log_to(case, "emu", out)
    if out.startswith("(a first build left no program"):
        print(f"note: {case['label']}: the first emu build left no program; the second is used (see {log})",
              flush=True)
    if not os.path.exists(binary):
        tail = " | ".join(line for line in out.strip().splitlines()[-4:])
        raise Unreadable(f"the emu build of {src} failed twice (see {log}): {tail[-600:]}")
    v = emu_race(out)
    if v is None:
        if code != 0:
            raise Unreadable(f"the program failed on the emu without a race report (see {log})")
        v = verdict(False, "emu")
    else:  # a line in the rewritten .cpp is the same line of the .cu file (cu2cpp keeps them)
        cpp = os.path.basename(binary) + ".cpp"
        v["first"] = tuple((a, t, os.path.basename(src) if f == cpp else f, ln) for a, t, f, ln in v["first"])
    v["log"] = log
    return v


GPU_RUNS = threading.Semaphore(4)  # programs under racecheck at a time (their builds run `jobs` at a time)


def read_racecheck(text, log, status=""):
    try:
        return racecheck_verdict(text)
    except Unreadable as e:
        raise Unreadable(f"{e} ({status + '; ' if status else ''}see {log})")


def racecheck_program(case):
    src = case["build_src"]
    out_dir = os.path.join(WORK, "cuda", case["slug"])
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.join(out_dir, os.path.splitext(os.path.basename(src))[0])
    code, out = run(["nvcc", f"-arch=sm_{os.environ.get('SM', '90')}", "-lineinfo",
                     f"-I{os.path.dirname(case['src'])}", "-o", binary, src])
    if code != 0:
        raise Unreadable(f"nvcc could not build {src} (see {log_to(case, 'nvcc', out)})")
    with GPU_RUNS:
        code, out = run(RACECHECK + [binary], timeout=120)
    log = log_to(case, "racecheck", out)
    if re.search(r"CUDA error|Program hit cudaError|CUDA-capable|cudaErrorNoDevice", out):
        raise Unreadable(f"the program hit a CUDA error under racecheck (see {log})")
    v = read_racecheck(out, log)
    if not v["race"] and code != 0:
        raise Unreadable(f"the program exited with {code} under racecheck, with no hazard (see {log})")
    v["log"] = log
    return v


def manifests():
    """A manifest folder for labs 02, 04 and 07 whose chosen tests use LAB_TESTS' parameters on emu,
    and on the GPU too (grade.py --sizes-of emu)."""
    folder = os.path.join(WORK, "manifests")
    os.makedirs(folder, exist_ok=True)
    for lab, (test, params) in LAB_TESTS.items():
        text = open(os.path.join(ROOT, "grader", "manifests", f"lab{lab}.toml")).read()
        start = text.find(f'\nname = "{test}"\n')
        if start < 0 or text.count(f'\nname = "{test}"\n') != 1:
            raise CheckFailed(f"race comparison: grader/manifests/lab{lab}.toml has no test {test}")
        end = text.find("\n[[test]]", start)
        end = len(text) if end < 0 else end
        block = re.sub(r"\n\[test\.emu\]\n(?:(?!\[).*\n?)*", "\n", text[start:end])
        block = block.rstrip("\n") + "\n[test.emu]\ntimeout = 120\nparams = { " + \
            ", ".join(f'{k} = "{v}"' for k, v in params.items()) + " }\n"
        with open(os.path.join(folder, f"lab{lab}.toml"), "w") as f:
            f.write(text[:start] + block + text[end:])
    return folder


def submission_dir(case):
    import bad_submissions  # noqa: E402  (make_submission: the self-test's own way to edit a solution)
    if case["drop"] is None:
        return bad_submissions.make_submission("race_cmp_" + case["slug"], case["rel"])
    return bad_submissions.make_submission("race_cmp_" + case["slug"], case["rel"], case["drop"], "")


def graded(case, backend, folder, wrap=None):
    """Grades the case's one test; returns (its status in results.json, its log's text, the log's
    path, the grader's output)."""
    sub = case["sub"]
    results = os.path.join(WORK, f"{case['slug']}-{backend}.json")
    cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", backend, "--submission", sub,
           "--lab", case["lab"], "--test", case["test"], "--results", results, "--sizes-of", "emu"]
    if wrap:
        cmd += ["--wrap", " ".join(wrap)]
    if os.path.exists(results):
        os.remove(results)
    code, out = run(cmd, env={"NO_COLOR": "1", "SCANLAB_MANIFESTS": folder, "SCANLAB_EMU_SCHEDULE": "forward"},
                    timeout=600)
    log = os.path.join(ROOT, "build", "grade", backend, grade.submission_key(sub), "logs", f"lab{case['lab']}",
                       f"{case['test']}.log")
    if not os.path.exists(log):
        raise Unreadable(f"grading {case['label']} on {backend} ran no test (see "
                         f"{log_to(case, backend + '-grade', out)})")
    text = open(log, errors="replace").read()
    entry = selftest.by_name(json.load(open(results))).get(case["test"]) if os.path.exists(results) else None
    return (entry["status"] if entry else "no result"), text, os.path.relpath(log, ROOT), out


def emu_graded(case, folder):
    status, text, log, out = graded(case, "emu", folder)
    # the grader's reasons name the lines (its log keeps what the confined driver printed, the
    # instructions' offsets, and their lines after it)
    v = emu_race(out) or emu_race(text)
    if v is None:
        if status != "passed":
            raise Unreadable(f"the test failed on the emu without a race report (see {log})")
        v = verdict(False, "emu")
    v["log"] = log
    return v


# One graded racecheck run at a time. Two at once took each other's targets on an H100 (a lab 04
# log held the lab 02 driver's hazards; the other run ended "terminated before first
# instrumented API call"), most likely because each graded driver runs in a PID namespace of
# its own, where all have the same small PID. The plain programs run outside the sandbox, with
# PIDs of their own, and stay parallel.
GRADED_RACECHECK = threading.Lock()


def racecheck_graded(case, folder):
    with GRADED_RACECHECK:
        status, text, log, out = graded(case, "cuda", folder, wrap=RACECHECK)
    v = read_racecheck(text, log, f"the test {status}")
    if not v["race"] and status != "passed":
        raise Unreadable(f"the test did not pass under racecheck, with no hazard (see {log})")
    v["log"] = log
    return v


SIDES = {("program", "emu"): emu_program, ("program", "racecheck"): racecheck_program,
         ("grader", "emu"): emu_graded, ("grader", "racecheck"): racecheck_graded}


def compare(cases, sides, jobs):
    """{(slug, side): verdict or Unreadable} for every case and side, `jobs` at a time."""
    with grade.KitLock():
        subprocess.run(["make", "-s", "--no-print-directory", "-f", "grader/emu/emu.mk", "emu-lib"], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    folder = manifests() if any(c["kind"] == "grader" for c in cases) else None
    for c in cases:  # the files, before the parallel runs (both sides build the same one)
        if c["kind"] == "grader":
            c["sub"] = submission_dir(c)
        else:
            c["build_src"] = source_of(c)
    work = [(c, s) for c in sorted(cases, key=lambda c: c["kind"] != "grader") for s in sides]

    def one(item):
        case, side = item
        fn = SIDES[(case["kind"], side)]
        try:
            return fn(case, folder) if case["kind"] == "grader" else fn(case)
        except Unreadable as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        got = list(pool.map(one, work))
    return {(c["slug"], s): v for (c, s), v in zip(work, got)}


# ---- the table -----------------------------------------------------------------------------

def where(first, md):
    """'write by thread (0,0,0) at f.cu:32, read by thread (1,0,0) at line 33'."""
    (a1, t1, f1, l1), (a2, t2, f2, l2) = first
    q = (lambda s: f"`{s}`") if md else (lambda s: s)
    one = f"{a1}" + (f" by thread ({t1})" if t1 is not None else "") + f" at {q(f'{f1}:{l1}')}"
    two = f"{a2}" + (f" by thread ({t2})" if t2 is not None else "") + \
        (f" at line {l2}" if f2 == f1 else f" at {q(f'{f2}:{l2}')}")
    return f"{one}, {two}"


def cell(v, md=False):
    if v is None:
        return "(not run)"
    if isinstance(v, Exception):
        return f"UNREADABLE: {v}"
    if v["side"] == "racecheck":
        if not v["race"]:
            return "none" if md else "none (0 hazards)"
        count = f"{v['hazards']} hazard{'s' if v['hazards'] != 1 else ''}"
        if not md:
            count += f" ({v['errors']} errors, {v['warnings']} warnings)"
        text = f"{count}; the first: {where(v['first'], md)}"
    else:
        text = f"race: {where(v['first'], md)}" if v["race"] else "none"
    return text + (f" (kernel {v['kernel']})" if v["race"] and v["kernel"] and not md else "")


def same_lines(a, b):
    if not (isinstance(a, dict) and isinstance(b, dict) and a["race"] and b["race"]):
        return ""
    key = (lambda v: sorted((f, ln) for _, _, f, ln in v["first"]))
    return "same lines" if key(a) == key(b) else "other lines"


def judge(cases, got, sides):
    """(rows, problems): one row per case; a problem per disagreement or unreadable output."""
    rows, problems = [], []
    for c in cases:
        vs = {s: got.get((c["slug"], s)) for s in ("racecheck", "emu")}
        for s in sides:
            if isinstance(vs[s], Exception):
                problems.append(f"{c['label']}: {s}: {vs[s]}")
            elif vs[s]["race"] != c["race"]:
                problems.append(f"{c['label']}: {s} says {'race' if vs[s]['race'] else 'none'}, where the "
                                f"kernel is known {'racy' if c['race'] else 'clean'}")
        both = all(isinstance(vs[s], dict) for s in ("racecheck", "emu"))
        agree = ("yes" if vs["racecheck"]["race"] == vs["emu"]["race"] else "NO") if both else "-"
        if both and agree == "NO":
            problems.append(f"{c['label']}: racecheck and the emu disagree")
        rows.append((c, vs, agree, same_lines(vs["racecheck"], vs["emu"])))
    return rows, problems


def plain_table(rows, sides):
    lines = []
    for c, vs, agree, same in rows:
        lines.append(f"{c['label']} (known {'racy' if c['race'] else 'clean'})")
        for s in ("racecheck", "emu"):
            if s in sides:
                lines.append(f"    {s + ':':10} {cell(vs[s])}")
        if len(sides) == 2:
            lines.append(f"    {'agree:':10} {agree}" + (f", {same}" if same else ""))
    return lines


def device_name():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
        name = r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else ""
    except (OSError, subprocess.TimeoutExpired):
        name = ""
    try:
        r = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30)
        cuda = re.search(r"release (\d+\.\d+)", r.stdout)
    except (OSError, subprocess.TimeoutExpired):
        cuda = None
    return (name or "the GPU") + (f", CUDA {cuda.group(1)}" if cuda else "")


def markdown_table(rows):
    lines = [f"| kernel | racecheck ({device_name()}) | emu detector |", "|---|---|---|"]
    for c, vs, _, _ in rows:
        lines.append(f"| {c['md']} | {cell(vs['racecheck'], True)} | {cell(vs['emu'], True)} |")
    return lines


# ---- entry points --------------------------------------------------------------------------

def default_jobs():
    return max(1, min(8, os.cpu_count() or 1))


def check(emu_only=False, only=(), jobs=None):
    """The self-test check: the detail line and the table, or CheckFailed with the table."""
    cases = [c for c in CASES if not only or any(o in c["label"] for o in only)]
    if not cases:
        raise CheckFailed("race comparison: no kernel matches " + ", ".join(only))
    sides = ("emu",) if emu_only else ("racecheck", "emu")
    if not emu_only and not shutil.which("compute-sanitizer"):
        raise CheckFailed("compute-sanitizer is not on PATH: racecheck's half cannot run here "
                          "(--emu-only runs the emu's half alone)")
    shutil.rmtree(os.path.join(WORK, "logs"), ignore_errors=True)
    got = compare(cases, sides, jobs or default_jobs())
    rows, problems = judge(cases, got, sides)
    table = plain_table(rows, sides)
    if not emu_only:
        md = markdown_table(rows)
        with open(MARKDOWN, "w") as f:
            f.write("\n".join(md) + "\n")
        table += ["", f"In Markdown (also in {os.path.relpath(MARKDOWN, ROOT)}):", ""] + md
    racy = sum(1 for c in cases if c["race"])
    if problems:
        raise CheckFailed("\n    ".join(["race comparison:"] + problems) + "\n\n" + "\n".join(table) +
                          f"\n\n(logs in {os.path.relpath(os.path.join(WORK, 'logs'), ROOT)} and build/grade/)")
    what = "the emu detector as expected" if emu_only else "racecheck and the emu detector agree"
    return f"{len(cases)} kernels ({racy} racy, {len(cases) - racy} clean): {what}\n\n" + "\n".join(table)


def main():
    ap = argparse.ArgumentParser(description="The emu's race detector against compute-sanitizer's racecheck.")
    ap.add_argument("--emu-only", action="store_true", help="the emu's half alone (no GPU)")
    ap.add_argument("--only", action="append", default=[], help="kernels whose label has this text")
    ap.add_argument("--jobs", type=int, default=default_jobs(), help="builds and runs at a time")
    ap.add_argument("--list", action="store_true", help="list the kernels")
    args = ap.parse_args()
    if args.list:
        for c in CASES:
            print(f"{c['label']} (known {'racy' if c['race'] else 'clean'})")
        return 0
    os.makedirs(WORK, exist_ok=True)
    t0 = time.monotonic()
    try:
        print(check(args.emu_only, args.only, args.jobs))
        print(f"\nOK ({time.monotonic() - t0:.0f}s)")
        return 0
    except CheckFailed as e:
        print(f"FAIL ({time.monotonic() - t0:.0f}s)\n    {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
