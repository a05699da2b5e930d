"""Self-test checks of what readers see: the student kit holds no solution, the handouts' and
slides' numbers are the manifests', quoted output is real, the docs render in a browser,
figures and code lines are legible. Registered by run.py; each raises common.CheckFailed.

Why one file (past 800 lines): the checks of what readers see (handouts, slides, docs, the
student kit), sharing their parsers of the docs."""
import glob
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

import common  # noqa: E402  (grader/selftest/common.py: CheckFailed, sh, ROOT, BUILD)
from common import CheckFailed, ROOT, BUILD, sh  # noqa: E402
import grade  # noqa: E402

BEGIN = common.BEGIN  # the marker lines themselves, not a comment that names them
END = common.END
CODE_EXT = (".c", ".cu", ".h", ".cuh", ".cpp", ".hpp")

# ---- 1. the student kit holds no line of a solution -----------------------------------------
#
# The rule. A solution line is a line inside a STUDENT-BEGIN/END region of a file under
# solutions/, with its trailing comment removed and its white space collapsed. It counts when it
# has at least MIN_CHARS characters other than white space (shorter lines, such as `}`,
# `return x;` or a swap `tile[a] = tile[b];`, say nothing of the answer), is not a comment
# alone, and is not a declaration of dynamic shared memory (`extern __shared__ int s[];`:
# syntax the handouts teach). It is a leak when it appears, as a substring of a line with the same normalisation, in any file of the student kit
# (handouts, slides, figures, exhibits, scripts, ...), except where the kit ships it on purpose:
# in the kit's own code (skeletons/ outside the student regions, reference/, grader/ but its test
# sources), which students get whole. A later lab's skeleton may give an earlier lab's function as kit code
# (lab 06 repeats lab 04's scanIncWarp so that it does not depend on the student's lab 04); the
# check names those lines in its report so that the choice stays visible.
MIN_CHARS = 20


def _norm(line):
    line = re.sub(r"//.*$", "", line)
    line = re.sub(r"/\*.*?\*/", "", line)
    return " ".join(line.split())


def _is_comment(line):
    s = line.strip()
    return s.startswith(("//", "/*", "*", "#pragma"))


def solution_lines():
    """{normalised line: lab} of every solution region line that counts."""
    out = {}
    for m in grade.all_manifests():
        for f in m["student_files"]:
            inside = False
            for line in open(os.path.join(ROOT, "solutions", m["dir"], f)):
                if BEGIN.search(line):
                    inside = True
                elif END.search(line):
                    inside = False
                elif inside and not _is_comment(line) and "extern __shared__" not in line:
                    n = _norm(line)
                    if len(n.replace(" ", "")) >= MIN_CHARS:
                        out.setdefault(n, m["lab"])
    return out


def _kit_code(rel):
    """Code students get whole. The tests' sources are not counted as such: they ship too, and
    must not answer a region (lab 06's operator test once held the operator line for line)."""
    return rel.startswith(("skeletons/", "reference/", "grader/")) and rel.endswith(CODE_EXT) and \
        not rel.startswith("grader/trusted/tests/")


def _code_outside_regions(text):
    keep, inside = [], False
    for line in text.splitlines():
        if BEGIN.search(line):
            inside = True
        elif END.search(line):
            inside = False
        elif not inside:
            keep.append(_norm(line))
    return keep


def no_solution_in_kit():
    tar = os.path.join(BUILD, "student-kit-leak.tar.gz")
    code, out = sh([sys.executable, "grader/course/kit.py", "student-kit", "--out", tar])
    if code:
        raise CheckFailed("student-kit failed:\n" + out)
    sol = solution_lines()
    given, leaks, scanned = {}, [], 0
    with tarfile.open(tar) as t:
        members = [m for m in t.getmembers() if m.isfile()]
        texts = {}
        for m in members:
            data = t.extractfile(m).read()
            if b"\0" in data[:4096]:
                continue  # a binary file
            texts[m.name.split("/", 1)[1]] = data.decode(errors="replace")
    kit_code = set()
    for rel, text in texts.items():
        if _kit_code(rel):
            for n in _code_outside_regions(text):
                kit_code.add(n)
    for line, lab in sol.items():
        if any(line in k for k in kit_code):
            given[line] = lab
    for rel, text in texts.items():
        if _kit_code(rel):
            continue
        scanned += 1
        lines = [_norm(x) for x in text.splitlines()]
        for line, lab in sol.items():
            if line in given:
                continue
            for no, x in enumerate(lines, 1):
                if line in x:
                    leaks.append(f"{rel}:{no}: lab {lab}'s solution line `{line}`")
    if leaks:
        raise CheckFailed(f"{len(leaks)} solution lines in the student kit:\n    " + "\n    ".join(leaks[:25]))
    labs = sorted(set(given.values()))
    later = sorted({lab for line, lab in given.items()
                    if any(line in k for k in later_skeletons(texts, lab))})
    return (f"{len(sol)} solution lines (>= {MIN_CHARS} characters) in none of {scanned} files; "
            f"{len(given)} are also kit code" +
            (f" (lab {', '.join(later)}: given by a later lab's skeleton)" if later else ""))


def later_skeletons(texts, lab):
    """Lines of the skeletons of labs after `lab`, outside their regions."""
    out = []
    for rel, text in texts.items():
        m = re.match(r"skeletons/(\d\d)-", rel)
        if m and m.group(1) > lab:
            out += _code_outside_regions(text)
    return out


# ---- 3. quoted output is what the programs print --------------------------------------------

def quotes():
    # An emu quote shows the emu's output: it runs on the emu also in `make check-gpu`, where
    # the default backend is cuda (which once compared two emu quotes with a GPU's output).
    sys.path.insert(0, os.path.join(ROOT, "grader", "docs"))
    import quotes as q  # noqa: E402  (grader/docs/quotes.py)
    emu = q.command({"run": "make test LAB=04", "gpu": False}, "/tmp/sub")
    gpu = q.command({"run": "make test LAB=04", "gpu": True})
    if not emu.endswith("SUBMISSION=/tmp/sub BACKEND=emu") or "BACKEND" in gpu:
        raise CheckFailed(f"quotes.py runs an emu quote as `{emu}` and a GPU quote as `{gpu}`")
    code, out = sh([sys.executable, "grader/docs/quotes.py"], env={"SCANLAB_EMU_WORKERS": common.GRADE_WORKERS})
    if code:
        raise CheckFailed(out[-3000:])
    return out.strip().splitlines()[-1]


# ---- 3b. the grader page's emu figures of the solutions are what the emu prints --------------
#
# "Reading the emu's figures for a timing test" sets each timing test's model figures (bytes per
# element, so a fraction of copy; bank conflicts per shared request) beside its H100 run. Every
# such figure must be in what the test prints on the emu for the solutions today.

def emu_figures():
    text = open(os.path.join(ROOT, "grader", "README.md")).read()
    rows = re.findall(r"^\| lab (\d\d) ((?:`\w+`,? ?)+)[^|]*\| ([^|]+) \|", text, re.M)
    if not rows:
        raise CheckFailed("grader/README.md: no table of the solutions' emu figures found")
    bad, checked = [], 0
    for lab, names, figures in rows:
        tests = re.findall(r"`(\w+)`", names)
        code, out, data = common.run_grader("solutions", [lab], tests=tests, tag=f"figures{lab}")
        printed = "\n".join(e["output"] for e in data["tests"])
        have = set(re.findall(r"emu model: ([\d.]+) bytes per \w+.*?so ([\d.]+) of copy", printed))
        have_bc = set(re.findall(r"([\d.]+) bank conflicts per request", printed))
        want = re.findall(r"(\d+\.\d\d), (\d\.\d\d)", figures)
        want_bc = re.findall(r"(\d+\.\d\d) bank conflicts per shared request", figures)
        want_bc += re.findall(r"unpadded, (\d+\.\d\d) padded", figures)
        if not want:
            bad.append(f"lab {lab} {', '.join(tests)}: no figures read from `{figures}`")
        for b, f in want:
            checked += 1
            if (b, f) not in have:
                bad.append(f"lab {lab} {', '.join(tests)}: the page says {b} bytes, {f} of copy; the emu "
                           f"prints {sorted(have) or 'no figures'}")
        for c in want_bc:
            checked += 1
            if c not in have_bc:
                bad.append(f"lab {lab} {', '.join(tests)}: the page says {c} bank conflicts per shared "
                           f"request; the emu prints {sorted(have_bc)}")
    if bad:
        raise CheckFailed("grader/README.md, the solutions' emu figures:\n    " + "\n    ".join(bad))
    return f"{checked} figures of {len(rows)} rows as the emu prints them"


# ---- 3b'. failure messages show values of every type, and the log keeps everything ----------
#
# Lab 07's skeleton writes nothing: its line of sight leaves 1-byte answers, its sparse product
# float rows, as the poison left them. A message must show both as values (1-byte elements were
# printed as empty words, `{}`) and say they were never written (floats lacked the note), and
# the test's log must hold what the test printed (it held the command line alone).

def failure_messages():
    code, out, data = common.run_grader("skeletons", ["07"], tests=["sight", "spmv"], tag="messages07")
    got = common.by_name(data)
    want = {"sight": r"first mismatch at \[\d+\]: expected \d+ \(0x0\d\), got \d+ \(0x[0-9a-f]{2}\) \(the poison "
                     r"value: never written\)",
            "spmv": r"got -6\.2598534e\+18 \(the poison value: never written\)"}
    bad = []
    for name, pat in want.items():
        text = got.get(name, {}).get("output", "")
        if not re.search(pat, text):
            bad.append(f"{name}: the reason should match /{pat}/, got: {text.splitlines()[:2]}")
        log = os.path.join(ROOT, "build", "grade", "emu", "skeletons", "logs", "lab07", f"{name}.log")
        first = text.splitlines()[0] if text else "?"
        if not os.path.exists(log) or f"test: FAIL: {first}" not in open(log, errors="replace").read():
            bad.append(f"{name}: its log ({os.path.relpath(log, ROOT)}) does not hold the failure it printed")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return "1-byte and float outputs shown as values, never written named; each test's log holds its failures"


# ---- 3b''. make test: a first result seconds after an edit ------------------------------------
#
# Lab 06's file is the slowest to build (five element types, every scan). After a one-line edit
# in a student region, `make test LAB=06` must print its first test's result within
# EDIT_FIRST_S seconds, run every test (the counted ones on the graded build, which must agree
# with make grade), and a second run with nothing changed within CACHED_FIRST_S, on the graded
# build the first one left (make test takes make grade's build of the same code where it is there).

EDIT_FIRST_S, CACHED_FIRST_S = 15.0, 5.0


def edit_to_result():
    import time
    sub = os.path.join(BUILD, "selftest", "edit-loop")
    shutil.rmtree(sub, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "solutions", "06-segmented-scan"), os.path.join(sub, "06-segmented-scan"))
    path = os.path.join(sub, "06-segmented-scan", "seg_scan.cu")
    text = open(path).read()
    at = text.index("\n", text.index("/* STUDENT-BEGIN(lab06) */")) + 1  # inside a region: the header names it too

    def timed(whole, release):
        """make test's first result (seconds) and the whole run's; `whole`: wait for every test,
        else stop at the first; `release`: the paired lanes may start once the first is in."""
        t0, first = time.monotonic(), None
        p = subprocess.Popen(["make", "--no-print-directory", "test", "LAB=06", f"SUBMISSION={sub}",
                              "BACKEND=emu"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=dict(os.environ, NO_COLOR="1"), start_new_session=True)
        lines = []
        for line in p.stdout:
            lines.append(line)
            if first is None and re.match(r"^  \w+: (OK|FAIL|SKIP)", line):
                first = time.monotonic() - t0
                if not whole:
                    os.killpg(p.pid, signal.SIGTERM)
                    break
                if release or first <= EDIT_FIRST_S:
                    common.TIMED_PART_OVER.set()  # the rest of the run is no longer timed
        p.stdout.close()
        p.wait()
        return first, time.monotonic() - t0, "".join(lines)

    def secs(x):
        return x if x is None else round(x, 1)

    # Each bound is a wall time, which a busy machine (CI's neighbours) can stretch for one run:
    # a first result later than its bound is measured once more (after another edit) before the
    # check fails, and the line says so.
    late = []
    try:
        for attempt in range(2):  # after an edit, the whole run
            open(path, "w").write(text[:at] + f"  /* an edit at {time.time()} */\n" + text[at:])
            f1, t1, out1 = timed(True, attempt == 1)
            if f1 is not None and f1 <= EDIT_FIRST_S:
                break
            late.append(f"an edit's first result {secs(f1)} s")
        for attempt in range(2):  # unchanged, up to the first result
            f2, t2, out2 = timed(False, True)
            if f2 is not None and f2 <= CACHED_FIRST_S:
                break
            late.append(f"an unchanged run's first result {secs(f2)} s")
    finally:
        common.TIMED_PART_OVER.set()
    bad = []
    if f1 is None or f1 > EDIT_FIRST_S:
        bad.append(f"after an edit the first result came after {secs(f1)} s (at most "
                   f"{EDIT_FIRST_S:g})")
    if f2 is None or f2 > CACHED_FIRST_S:
        bad.append(f"with nothing changed the first result came after {secs(f2)} s "
                   f"(at most {CACHED_FIRST_S:g})")
    if "at -O1, race detector on" not in out1 or "Score: 42/42" not in out1 or "emu_traffic: OK" not in out1:
        bad.append("the quick build, the graded build's counted test and every test passing: not all seen:\n" +
                   out1[-1500:])
    if "at -O1" in out2 or "(built in" not in out2:  # the whole first run left the graded build behind
        bad.append("with nothing changed, make test did not take the graded build the run before made:\n" +
                   out2[-800:])
    if bad:
        raise CheckFailed("\n    ".join(bad + ([f"(measured twice, each run: {', '.join(late)})"] if late else [])))
    return (f"lab 06 after a one-line edit: first result {f1:.1f} s, all {t1:.1f} s; unchanged: first {f2:.1f} s "
            f"(load {os.getloadavg()[0]:.1f})" + (f"; measured again after {', '.join(late)}" if late else ""))


# ---- 3c. the given code moves no more than the lab teaches -----------------------------------
#
# Lab 07 gives its toolkit's device-wide exclusive sum (appScanExc), which the three-pass
# compaction students write runs on: it must move what a scan moves, 4 bytes read and 4 written
# per element plus its status words, as the lab teaches (it once stored item by item, lanes 16
# bytes apart: 20.5 bytes per element, and the three passes 44.48 where the handout taught
# about 30). emu_compact notes the figure the emu counts for the solution.

GIVEN_MAX = {"appScanExc": 8.10, "compactScan": 32.50}


def given_code_traffic():
    code, out, data = common.run_grader("solutions", ["07"], tests=["emu_compact"], tag="given07")
    printed = "\n".join(e["output"] for e in data["tests"])
    bad, seen = [], []
    for name, most in GIVEN_MAX.items():
        m = re.search(rf"{name}\(n=\d+[^)]*\): (\d+\.\d+) bytes moved per element", printed)
        if not m:
            bad.append(f"lab 07 emu_compact prints no figure for {name}")
        elif float(m.group(1)) > most:
            bad.append(f"{name} moved {m.group(1)} bytes per element on the emu; the lab teaches at most {most}")
        else:
            seen.append(f"{name} {m.group(1)}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return ", ".join(seen) + " bytes per element (at most " + ", ".join(f"{v}" for v in GIVEN_MAX.values()) + ")"


# ---- 2. the numbers the handouts and slides quote are the manifests' -------------------------
#
# Slides take them from the manifests (\manifest{lab}{test}{key}, generated by make slides), so
# a typed number there is an error. Handouts are read as plain Markdown too, so they keep the
# numbers, and this check compares: every row of the Grading table names a test of the manifest
# and gives its points; the table names every test; a threshold-like number in a row (0.xx, or
# N.Nx for a speedup) is one of that test's thresholds or floors; a size 2^K or 2^K + N in a row is one of
# its sizes (cuda or emu); "N points" in the Grading section is the lab's total; and anywhere in
# the handout, a number right after the word "threshold" is one of the lab's thresholds.

def _manifest_values(m, t):
    """Thresholds and sizes of a test, on either backend."""
    thresholds, sizes = set(), set()
    for backend, gpu in [("cuda", None), ("emu", None)] + [("cuda", model) for model in t.get("gpu", {})]:
        params = grade.test_settings(m, t, backend, gpu=gpu)[1]
        for key, value in params.items():
            if "threshold" in key or "speedup" in key or "floor" in key:
                thresholds.add(round(float(value), 4))
            for v in str(value).split(","):
                if v.strip().lstrip("-").isdigit():
                    sizes.add(int(v))
    return thresholds, sizes


def _sizes_in(text):
    out = []
    for m in re.finditer(r"2\^\{?(\d+)\}?(?:\s*([+-])\s*(\d+)(?![\d.]))?", text):
        n = 2 ** int(m.group(1))
        if m.group(2):
            n = n + int(m.group(3)) if m.group(2) == "+" else n - int(m.group(3))
        out.append((m.group(0), n))
    return out


def manifest_numbers():
    bad, rows = [], 0
    for m in grade.all_manifests():
        path = os.path.join(ROOT, "labs", m["dir"], "README.md")
        if not os.path.exists(path):
            continue
        rel = os.path.relpath(path, ROOT)
        text = open(path).read()
        tests = {t["name"]: t for t in m["test"]}
        lab_thresholds = set()
        for t in m["test"]:
            lab_thresholds |= _manifest_values(m, t)[0]
        sec = re.search(r"^## Grading\n(.*?)(?=^## )", text, re.S | re.M)
        if not sec:
            bad.append(f"{rel}: no Grading section")
            continue
        body = sec.group(1)
        header = next((ln for ln in body.splitlines() if ln.startswith("| test")), None)
        if not header:
            bad.append(f"{rel}: the Grading section has no table starting with `| test`")
            continue
        cols = [c.strip() for c in header.strip("|").split("|")]
        seen = set()
        for ln in body.splitlines():
            cells = [c.strip() for c in ln.strip().strip("|").split("|")]
            if not ln.startswith("| `") or len(cells) != len(cols):
                continue
            name = cells[0].strip("`")
            t = tests.get(name)
            if t is None:
                bad.append(f"{rel}: the Grading table names `{name}`, which {m['path']} does not have")
                continue
            seen.add(name)
            rows += 1
            thresholds, sizes = _manifest_values(m, t)
            if "points" in cols and cells[cols.index("points")] != str(t["points"]):
                bad.append(f"{rel}: `{name}` is worth {t['points']} points in the manifest, "
                           f"not {cells[cols.index('points')]}")
            row = " ".join(cells[1:])
            for x in re.findall(r"(?<![\d.])(0\.\d\d?|\d\.\d+)(x|\b)", row):
                if round(float(x[0]), 4) not in thresholds and (x[1] == "x" or float(x[0]) < 1):
                    bad.append(f"{rel}: `{name}`'s row gives {x[0]}{x[1]}; its thresholds in the "
                               f"manifest are {sorted(thresholds) or 'none'}")
            for shown, n in _sizes_in(row):
                if n not in sizes:
                    bad.append(f"{rel}: `{name}`'s row gives the size {shown} = {n}, "
                               "which is not one of its sizes in the manifest")
        missing = set(tests) - seen
        if missing:
            bad.append(f"{rel}: the Grading table leaves out {sorted(missing)}")
        total = sum(int(t["points"]) for t in m["test"])
        for n in re.findall(r"\b(\d+) points\b", body):
            if int(n) != total:
                bad.append(f"{rel}: the Grading section says {n} points; the manifest's total is {total}")
        for x in re.findall(r"threshold(?:s)?(?: of| is| at| =)?\s*(\d+\.\d+)", text):
            if round(float(x), 4) not in lab_thresholds:
                bad.append(f"{rel}: a threshold of {x}; the manifest's are {sorted(lab_thresholds)}")
    # The grader page's manifest excerpt: every line of it is a line of lab 02's manifest.
    page = open(os.path.join(ROOT, "grader", "README.md")).read()
    ex = re.search(r"An\s+excerpt\s+of\s+lab (\d\d)'s:\n\n((?:    .*\n|\n)+)", page)
    if not ex:
        bad.append("grader/README.md: the manifest excerpt (`An excerpt of lab NN's:`) is gone")
    else:
        toml = os.path.join(ROOT, "grader", "manifests", f"lab{ex.group(1)}.toml")
        have = {" ".join(ln.split("#")[0].split()) for ln in open(toml)}
        for ln in ex.group(2).splitlines():
            want = " ".join(ln.split("#")[0].split())
            if want and "..." not in want and want not in have:
                bad.append(f"grader/README.md: the manifest excerpt's line `{want}` is not in "
                           f"{os.path.relpath(toml, ROOT)}")
    for deck in sorted(glob.glob(os.path.join(ROOT, "slides", "[0-9][0-9]-*.tex"))):
        for no, ln in enumerate(open(deck), 1):
            if re.search(r"(threshold|\\ge|at least)\s*\$?\s*\d+\.\d+", ln):
                bad.append(f"{os.path.relpath(deck, ROOT)}:{no}: a typed threshold; use "
                           "\\manifest{lab}{test}{key}")
    if bad:
        raise CheckFailed("\n    ".join(bad[:30]))
    return f"{rows} grading rows match the manifests; slides take theirs from them"


def test_names():
    """Every `make ... LAB=NN T=...` in the README and the handouts names tests the lab has, and
    the quoted form of several names works through make."""
    bad, seen = [], 0
    names = {m["lab"]: {t["name"] for t in m["test"]} for m in grade.all_manifests()}
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "labs", "*", "README.md")))
    for page in pages:
        for no, ln in enumerate(open(page), 1):
            m = re.search(r"make (?:test|grade)\b[^#\n]*?LAB=(\d\d)[^#\n]*?\bT=(\"[^\"]*\"|[\w,]+)", ln)
            if not m or m.group(1) not in names:
                continue
            seen += 1
            for t in re.split(r"[,\s]+", m.group(2).strip('"')):
                if t and t not in names[m.group(1)]:
                    bad.append(f"{os.path.relpath(page, ROOT)}:{no}: T= names `{t}`, which lab "
                               f"{m.group(1)} does not have")
    code, out = sh('make --no-print-directory grade LAB=01 T="inc_example exc_example" BACKEND=emu '
                   "SUBMISSION=solutions", env={"NO_COLOR": "1"})
    ran = re.findall(r"^\s+(\w+): OK", out, re.M)
    if code or sorted(ran) != ["exc_example", "inc_example"]:
        bad.append(f'make grade LAB=01 T="inc_example exc_example" should run those two tests '
                   f"(exit {code}):\n{out[-600:]}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return f"{seen} T= examples name real tests; T=\"a b\" runs both through make"


# ---- 1b. the student kit names only what it holds, and cites works by authors and title -------
#
# What a student reads in the kit (the handouts and notes under labs/, the headers, the
# skeletons, the scripts) must hold up with the student kit alone: a path it names is a file or
# folder of the kit (from the repository's root, from the file's own folder, or a lab folder
# under skeletons/), something the kit's commands make (under build/), or outside the kit (a
# URL, a system header <name.h>, a DOI); a file named bare (`tune_segscan.cu`) is one the kit
# holds. And a source is cited by its authors and title, as each handout's "Further reading"
# lists them, never by how the kit's authors filed it (`[000 fig 1.9]`, `seed 002`, "the
# issue's figure") nor with a note meant for instructors. A work cited must be one a student
# can find: no course material without a public address, no post without one. The slides and
# the scripts that draw the handouts' figures are read too (the scripts for citations only).

def student_kit_files():
    import kit  # noqa: E402  (what the student kit ships)
    return [f for f in kit.tracked_files() if kit.in_student_kit(f)]


READ_BY_STUDENTS = re.compile(r"^(labs/.*\.md|grader/trusted/include/.*\.h|skeletons/.*|labs/.*\.sh|grader/manifests/lab\d\d\.toml|"
                              r"grader/trusted/tests/.*|slides/[^/]+\.tex|labs/[^/]+/figures/[^/]+\.py)$")
PATH_TOKEN = re.compile(r"(?<![\w/.<>:@-])((?:[\w.-]+/)+[\w.-]*)")
BARE_FILE = re.compile(r"(?<![\w/.<>@-])([\w-]+\.(?:cu|cuh|c|h|cpp|py|sh|json|toml|md|svg|tex|pdf|csv|log))\b(?![\[(.]|->)")
# Names of what lies outside the kit: the toolkit's headers and libraries, and system files.
OUTSIDE = {"cuda_runtime.h", "cuda.h", "cooperative_groups.h", "cub.cuh", "cusparse.h", "cuda_fp16.h",
           "stdint.h", "stddef.h", "string.h", "stdio.h", "stdlib.h", "math.h", "results.json",
           "handin.tar.gz", "HANDIN.json", "run_autograder", "setup.sh", "submission_metadata.json"}
CITATIONS = [  # (pattern, what is wrong)
    (re.compile(r"[\[(]\s*(?:seeds?\s+)?00[0-4]\b"), "cites a source by the kit's file number"),
    (re.compile(r"\bseeds?\s+00[0-4]\b|\b00[0-4](?:'s|\s+(?:section|§|fig|and\s+00))"),
     "cites a source by the kit's file number"),
    (re.compile(r"\b(?:the|two|these)\s+seeds\b|\bseeds'\s|\bseed's\b", re.I),
     "calls the sources 'seeds' (the kit's word for its source files)"),
    (re.compile(r"\bseeds? \d{3}\b|\b00\d fig", re.I), "cites a source by the kit's file number"),
    (re.compile(r"no public address|CS121|WangYu"), "cites a work a student cannot find (no public address)"),
    (re.compile(r"\bthe issue(?:'s)?\b|\bissue\s+\d+", re.I), "points to the kit's issue tracker"),
    (re.compile(r"\bhand this lab out\b|\binstructor's note\b", re.I), "holds a note meant for instructors"),
]


def _names_in_kit(files):
    have, dirs = set(files), set()
    for f in files:
        while "/" in f:
            f = f.rsplit("/", 1)[0]
            dirs.add(f)
    return have, dirs, {os.path.basename(f) for f in files}


def kit_paths_and_citations(files=None, read=None):
    """Problems in the student kit's texts, one line each (see the rule above). `files`: the
    kit's files (default: the student kit's); `read(rel)`: a file's text (default: the tree's)."""
    files = student_kit_files() if files is None else files
    read = read or (lambda rel: open(os.path.join(ROOT, rel), errors="replace").read())
    have, dirs, bases = _names_in_kit(files)
    problems, scanned = [], 0
    for rel in files:
        if not READ_BY_STUDENTS.match(rel):
            continue
        scanned += 1
        text = read(rel)
        text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)  # quote markers
        here = os.path.dirname(rel)
        for no, line in enumerate(text.splitlines(), 1):
            for pat, what in CITATIONS:
                m = pat.search(line)
                if m:
                    problems.append(f"{rel}:{no}: {what}: '{m.group(0).strip()}' (cite the work by its authors and "
                                    "title, as the handouts' Further reading does)")
                    break
            if rel.endswith(".py"):
                continue  # a figure script: its citations only (its code names attributes like files)
            if rel.endswith(".tex"):  # a slide: LaTeX's \_ is _, and a profiler's metric (l1tex__...ld/st.sum) is no path
                line = re.sub(r"\b\w+__[\w/.]+", " ", line.replace("\\_", "_"))
            bare = re.sub(r"https?://\S+|doi:\[[^\]]*\]|\b10\.\d{4,}/\S+|<[\w./+-]+>", " ", line)
            for m in PATH_TOKEN.finditer(bare):
                t = m.group(1).rstrip(".,;:")
                if not (re.search(r"\.\w{1,4}$", t) or t.endswith("/")) or t.startswith("build/"):
                    continue
                c = t.rstrip("/")
                if not any(x in have or x in dirs for x in (c, os.path.normpath(os.path.join(here, c)), "skeletons/" + c)):
                    problems.append(f"{rel}:{no}: names {t}, which the student kit does not hold")
            for m in BARE_FILE.finditer(bare):
                if m.group(1) not in bases and m.group(1) not in OUTSIDE:
                    problems.append(f"{rel}:{no}: names {m.group(1)}, which the student kit does not hold")
    return problems, scanned


def kit_references():
    problems, scanned = kit_paths_and_citations()
    if problems:
        raise CheckFailed(f"{len(problems)} references a student cannot follow:\n    " + "\n    ".join(problems[:40]))
    # the rule itself, on texts that break it (each must be found)
    bad = {"labs/99-x/README.md": "the operator [000 fig 1.9]\nas in (seed 002)\nsee `bench/run_tune.sh`\n"
                                   "and tune_segscan.cu\nas in the issue's figure\nhand this lab out after lab 06",
           "labs/99-x/ok.md": "`figures/a.svg`, labs/99-x/README.md, 02-kogge-stone/kogge_stone.cu, build/grade/x.log, "
                              "<cuda_runtime.h>, doi:[10.1145/7902.7903], seed=42, the seed is printed, NVR-2016-002",
           "labs/99-x/figures/a.svg": "", "skeletons/02-kogge-stone/kogge_stone.cu": "",
           "slides/99-x.tex": "\\item \\emph{CUDA 4: Prefix Sums}, lecture slides (2019; no public address)."}
    found, _ = kit_paths_and_citations(list(bad), lambda rel: bad[rel])
    want = ["[000", "seed 002", "bench/run_tune.sh", "tune_segscan.cu", "the issue", "hand this lab out",
            "'no public address'"]
    missed = [w for w in want if not any(w in p for p in found)]
    wrong = [p for p in found if "ok.md" in p]
    if missed or wrong:
        raise CheckFailed("the rule itself is off: " + (f"it misses {missed}" if missed else "") +
                          (f"; it flags good text: {wrong}" if wrong else ""))
    return f"{scanned} handouts, slides, headers, skeletons and scripts of the student kit: every path in the kit, every " \
           f"source cited by authors and title (and the rule finds all {len(want)} faults of a planted text)"


CHECKS = [
    ("no solution line in the student kit", no_solution_in_kit),
    ("the student kit names only what it holds and cites works by authors and title", kit_references),
    ("the given code moves no more than the lab teaches (emu)", given_code_traffic),
    ("failure messages: values of every element type, never-written outputs, the full log", failure_messages),
    ("make test: the first result within 15 s of a one-line edit (lab 06, emu)", edit_to_result),
    ("the handouts' T= examples name real tests", test_names),
    ("quoted output matches real runs", quotes),
    ("the grader page's emu figures are the solutions'", emu_figures),
    ("handouts and slides quote the manifests' numbers", manifest_numbers),
]


# ---- 5. legible figures: the smallest text of an SVG, and as each slide places it --------------
#
# The text size of an SVG figure, in its user units (the viewBox's): for every <text> and
# <tspan> with characters, the font-size it renders at, resolved as a browser does: the
# element's style="" attribute, then <style> rules (`.class`, an element name, `*`), then its
# font-size="" attribute, else the parent's size; em and % relative to the parent's; SVG's
# default, 16 px, where nothing sets one; scale() and matrix() transforms on the way applied.
SVG_DEFAULT_PX = 16.0
_SVG_NS = "{http://www.w3.org/2000/svg}"


def _css_size(value, parent):
    m = re.match(r"\s*([\d.]+)\s*(px|pt|em|%)?\s*$", value or "")
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2) or "px"
    return {"px": v, "pt": v * 4 / 3, "em": v * parent, "%": v * parent / 100}[unit]


def _transform_scale(t):
    s = 1.0
    for fn, args in re.findall(r"(\w+)\s*\(([^)]*)\)", t or ""):
        a = [float(x) for x in re.split(r"[\s,]+", args.strip()) if x]
        if fn == "scale" and a:
            s *= (abs(a[0] * (a[1] if len(a) > 1 else a[0]))) ** 0.5
        elif fn == "matrix" and len(a) == 6:
            s *= abs(a[0] * a[3] - a[1] * a[2]) ** 0.5
    return s


def svg_text_sizes(path):
    """(smallest text size in user units, the text that has it, viewBox width, viewBox height);
    the size is None when the figure has no text."""
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    rules = []  # (selector kind, name, size)
    for st in root.iter(_SVG_NS + "style"):
        for sels, body in re.findall(r"([^{}]+)\{([^}]*)\}", st.text or ""):
            m = re.search(r"font-size\s*:\s*([^;]+)", body)
            if m:
                for sel in sels.split(","):
                    rules.append((sel.strip(), m.group(1).strip()))
    vb = (root.get("viewBox") or "").replace(",", " ").split()
    if len(vb) == 4:
        width, height = float(vb[2]), float(vb[3])
    else:
        width = float(re.match(r"[\d.]+", root.get("width")).group(0))
        height = float(re.match(r"[\d.]+", root.get("height")).group(0))
    best = [None, ""]

    def size_of(el, parent):
        tag = el.tag.replace(_SVG_NS, "")
        classes = (el.get("class") or "").split()
        value = None
        m = re.search(r"font-size\s*:\s*([^;]+)", el.get("style") or "")
        if m:
            value = m.group(1)
        else:
            for sel, v in rules:  # the later rule of the same kind wins, as in CSS
                if sel.startswith(".") and sel[1:] in classes:
                    value = v
            if value is None:
                for sel, v in rules:
                    if sel in (tag, "*"):
                        value = v
            if value is None:
                value = el.get("font-size")
        got = _css_size(value, parent) if value is not None else None
        return got if got is not None else parent

    def walk(el, parent, scale):
        scale *= _transform_scale(el.get("transform"))
        size = size_of(el, parent)
        tag = el.tag.replace(_SVG_NS, "")
        if tag in ("defs", "style", "title", "desc", "marker", "symbol"):
            return
        if tag in ("text", "tspan", "textPath") and (el.text or "").strip():
            shown = size * scale
            if best[0] is None or shown < best[0]:
                best[0], best[1] = shown, el.text.strip()[:40]
        for child in el:
            walk(child, size, scale)

    walk(root, SVG_DEFAULT_PX, 1.0)
    return best[0], best[1], width, height


def _figure_svgs():
    """{basename without .svg: path} of every lab's figures."""
    return {os.path.splitext(os.path.basename(p))[0]: p
            for p in glob.glob(os.path.join(ROOT, "labs", "*", "figures", "*.svg"))}


# How a slide places a figure. The decks are beamer, 16:9 (`aspectratio=169`): a page of
# 16 cm x 9 cm with 11 pt body text. Measured in that theme (slides/scanlab.sty): \textwidth is
# 14 cm (398.34 pt) and \textheight 242.25 pt; inside `\begin{column}{F\textwidth}` \textwidth
# (and \linewidth, \columnwidth) is F times the enclosing one. `make slides` turns each SVG
# into a PDF with rsvg-convert, which keeps the aspect ratio, so `width=W` scales the figure
# by W / (viewBox width), `height=H` by H / (viewBox height), both with keepaspectratio by the
# smaller, `scale=s` and no option by s x 0.75 pt per px of the SVG's width attribute (96 dpi).
# A figure's text on the slide is its smallest size (above) times that scale, in pt; at least
# SLIDE_MIN_PT, against the slides' body text of 11 pt.
SLIDE_MIN_PT = 7.0
SLIDE_TEXTWIDTH_PT = 398.3386
SLIDE_TEXTHEIGHT_PT = 242.24977
_TEX_UNITS = {"pt": 1.0, "bp": 72.27 / 72, "cm": 72.27 / 2.54, "mm": 72.27 / 25.4, "in": 72.27}


def _tex_length(value, textwidth):
    m = re.fullmatch(r"\s*([\d.]*)\s*\\(textwidth|linewidth|columnwidth|textheight)\s*", value)
    if m:
        f = float(m.group(1) or 1)
        return f * (SLIDE_TEXTHEIGHT_PT if m.group(2) == "textheight" else textwidth)
    m = re.fullmatch(r"\s*([\d.]+)\s*(pt|bp|cm|mm|in)\s*", value)
    if m:
        return float(m.group(1)) * _TEX_UNITS[m.group(2)]
    return None


def slide_figures(deck):
    """[(line number, frame title, figure name, options, smallest text in pt or None, why)] for
    every \\includegraphics of an SVG-derived figure in a deck."""
    svgs = _figure_svgs()
    out, widths, title = [], [SLIDE_TEXTWIDTH_PT], ""
    for no, ln in enumerate(open(deck), 1):
        code = re.sub(r"(?<!\\)%.*", "", ln)
        m = re.search(r"\\begin\{frame\}(?:\[[^\]]*\])?\{([^}]*)\}", code)
        if m:
            title = m.group(1)
        for tok in re.finditer(r"\\begin\{column\}\{([^}]*)\}|\\end\{column\}|"
                               r"\\includegraphics(?:\[([^\]]*)\])?\{([^}]*)\}", code):
            if tok.group(0).startswith("\\begin"):
                widths.append(_tex_length(tok.group(1), widths[-1]) or widths[-1])
            elif tok.group(0).startswith("\\end"):
                widths.pop() if len(widths) > 1 else None
            else:
                name = os.path.splitext(os.path.basename(tok.group(3)))[0]
                if name not in svgs:
                    continue
                size, text, vw, vh = svg_text_sizes(svgs[name])
                opts = dict((kv.split("=", 1) + [""])[:2] for kv in
                            (o.strip() for o in (tok.group(2) or "").split(",")) if kv)
                opts = {k.strip(): v.strip() for k, v in opts.items()}
                scales, why = [], ""
                if "width" in opts:
                    w = _tex_length(opts["width"], widths[-1])
                    scales.append(w / vw if w else None)
                if "height" in opts:
                    h = _tex_length(opts["height"], widths[-1])
                    scales.append(h / vh if h else None)
                if None in scales:
                    out.append((no, title, name, tok.group(2), None, "a size the check cannot read"))
                    continue
                if not scales:
                    root_w = re.search(r'<svg[^>]*\swidth="([\d.]+)', open(svgs[name]).read())
                    natural = float(root_w.group(1)) if root_w else vw
                    scales = [float(opts.get("scale", 1)) * 0.75 * natural / vw]
                scale = min(scales)  # width and height: the smaller (keepaspectratio, or squeezed text)
                out.append((no, title, name, tok.group(2), None if size is None else size * scale,
                            text))
    return out


# Figures drawn for the handouts' width that no placement on a 16:9 slide brings to 7 pt yet (at
# the size they had when this check came): each must be redrawn with larger text for the slide
# (the smallest text at least 1.8 % of the figure's width, when it fills the slide's width). The
# check fails when one of them gets smaller, and when one that passes is still listed.
SLIDE_PENDING = {}


def slide_figure_text():
    bad, n, pending, seen = [], 0, [], set()
    for deck in sorted(glob.glob(os.path.join(ROOT, "slides", "[0-9][0-9]-*.tex"))):
        rel = os.path.relpath(deck, ROOT)
        for no, title, name, opts, pt, why in slide_figures(deck):
            if pt is None and why:
                bad.append(f"{rel}:{no}: {name} [{opts}]: {why}")
                continue
            if pt is None:
                continue
            n += 1
            key = (os.path.basename(deck)[:-4], name)
            seen.add(key)
            if pt >= SLIDE_MIN_PT:
                if key in SLIDE_PENDING:
                    bad.append(f"{rel}:{no}: {name} now has text of {pt:.1f} pt: take it off "
                               "SLIDE_PENDING (grader/selftest/content.py)")
                continue
            if key in SLIDE_PENDING and pt >= SLIDE_PENDING[key] - 0.05:
                pending.append(f"{key[0]}/{name} {pt:.1f} pt")
                continue
            bad.append(f"{rel}:{no} (\"{title}\"): {name} [{opts}]: its smallest text "
                       f"(\"{why}\") is {pt:.1f} pt on the slide; at least {SLIDE_MIN_PT:g} pt")
    if bad:
        raise CheckFailed(f"{len(bad)} figures too small on their slides:\n    " + "\n    ".join(bad))
    gone = sorted(set(SLIDE_PENDING) - seen)
    if gone:
        raise CheckFailed(f"SLIDE_PENDING lists figures no slide shows: {gone}")
    return (f"{n - len(pending)} of {n} figures on slides have text of at least {SLIDE_MIN_PT:g} pt as placed "
            f"(16:9, 11 pt); {len(pending)} still to redraw, none smaller than before: " + ", ".join(pending))


CHECKS.append(("figures on slides have text of at least 7 pt", slide_figure_text))


# ---- 4./5. the docs in a real browser ---------------------------------------------------------
#
# Every handout page and the main page of the built docs, opened in headless Chromium at a
# laptop's width (1280 px): a probe script, put at the top of a copy of each page, records
# errors (console.error, uncaught exceptions, resources that fail to load), images that did
# not load, and code blocks wider than their box (text hidden behind a scroll bar), and reports
# the width each image and each figure (Doxygen shows an SVG as an <object>) takes on the page.
# Every lab figure a page shows is measured: its smallest text (svg_text_sizes: SVG's default of
# 16 px where no size is set) times the shown width over the viewBox's width, at least MIN_PX.
MIN_PX = 11
PAGES = re.compile(r"^(index|grader|lab\d\d|lab\d\d_perf)\.html$")
PROBE = """<script>
window.__scanlab = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  if (t && t !== window && (t.src || t.href)) __scanlab.push('failed to load ' + (t.src || t.href));
  else __scanlab.push('uncaught error: ' + e.message);
}, true);
(function () { var ce = console.error; console.error = function () {
  __scanlab.push('console error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); }; })();
window.addEventListener('load', function () { setTimeout(function () {
  var imgs = [];
  document.querySelectorAll('img').forEach(function (i) {
    /* one that failed to load is reported by the error listener above; one still loading
       (the search box's icons, added by a script) is not measured */
    if (i.complete && i.naturalWidth === 0) __scanlab.push('broken image ' + i.getAttribute('src'));
    else if (i.complete) imgs.push([i.getAttribute('src'), i.getBoundingClientRect().width, i.naturalWidth]);
  });
  document.querySelectorAll('object[data]').forEach(function (o) {  /* Doxygen's SVG figures */
    var r = o.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) __scanlab.push('figure not shown ' + o.getAttribute('data'));
    else imgs.push([o.getAttribute('data'), r.width, 0]);
  });
  document.querySelectorAll('div.fragment, pre').forEach(function (f) {
    if (f.scrollWidth > f.clientWidth + 1)
      __scanlab.push('code block wider than the page (' + f.scrollWidth + ' px in ' + f.clientWidth + '): '
                     + f.textContent.trim().slice(0, 60));
  });
  var d = document.createElement('pre'); d.id = 'scanlab-probe';
  d.textContent = JSON.stringify({problems: __scanlab, images: imgs});
  document.body.appendChild(d);
}, 300); });
</script>"""


def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise CheckFailed("chromium is not installed (grader/deps.sh check installs it)")
    html_dir = os.path.join(ROOT, "build", "docs", "html")
    if not os.path.exists(os.path.join(html_dir, "index.html")):
        code, out = sh(["make", "--no-print-directory", "docs"])
        if code:
            raise CheckFailed("make docs failed:\n" + out[-2000:])
    work = tempfile.mkdtemp(prefix="scanlab-browser-", dir=BUILD)
    bad, pages, figures = [], 0, set()
    lab_figures = _figure_svgs()
    try:
        copy = os.path.join(work, "html")
        shutil.copytree(html_dir, copy)
        for name in sorted(os.listdir(copy)):
            if not PAGES.match(name):
                continue
            page = os.path.join(copy, name)
            src = open(page, errors="replace").read()
            open(page, "w").write(src.replace("<head>", "<head>\n" + PROBE, 1))
            r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                "--window-size=1280,900", "--virtual-time-budget=5000",
                                "--user-data-dir=" + os.path.join(work, "profile"),
                                "--dump-dom", "file://" + page],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
            dom = r.stdout.decode(errors="replace")
            m = re.search(r'<pre id="scanlab-probe">(.*?)</pre>', dom, re.S)
            if not m:
                bad.append(f"{name}: the page did not finish loading in the browser")
                continue
            pages += 1
            data = json.loads(html.unescape(m.group(1)))
            for p in data["problems"]:
                bad.append(f"{name}: {p}")
            for src_, shown, natural in data["images"]:
                base = os.path.splitext(os.path.basename(src_))[0]
                svg = os.path.join(html_dir, src_)
                if not src_.endswith(".svg") or base not in lab_figures:
                    continue  # Doxygen's own images (the footer's logo)
                if not os.path.exists(svg):
                    bad.append(f"{name}: {src_} is not in the output")
                    continue
                size, text, width, _ = svg_text_sizes(svg)
                figures.add(base)
                if size is None:
                    continue
                px = size * shown / width
                if round(px, 1) < MIN_PX:  # to a tenth of a pixel: 11 units at 898 of 900 pass
                    bad.append(f"{name}: {src_}: its smallest text (\"{text}\") is {px:.1f} px as shown "
                               f"({size:g} units, {shown:.0f} of {width:g} wide); at least {MIN_PX} px")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if bad:
        raise CheckFailed(f"{len(bad)} problems in the browser:\n    " + "\n    ".join(bad[:40]))
    missing = sorted(n for n, p in lab_figures.items()
                     if n not in figures and os.path.basename(p) in handout_refs())
    if missing:
        raise CheckFailed(f"figures the handouts show but no page measured: {missing}")
    return f"{pages} pages in Chromium: no error, no broken image, no code block wider than the page; " \
           f"{len(figures)} figures' text at least {MIN_PX} px"


def handout_refs():
    """The figure files the handouts and the README show."""
    out = set()
    for page in [os.path.join(ROOT, "README.md")] + glob.glob(os.path.join(ROOT, "labs", "*", "*.md")):
        out |= {os.path.basename(m) for m in re.findall(r"!\[[^\]]*\]\(([^)\s]+\.svg)", open(page).read())}
    return out


CHECKS.append(("the docs render in a browser", browser))
