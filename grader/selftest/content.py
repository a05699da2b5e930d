"""Self-test checks of what readers see: the student kit holds no solution, the handouts' and
slides' numbers are the manifests', quoted output is real, the docs render in a browser,
figures and code lines are legible. Registered by run.py; each raises run.CheckFailed."""
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import run  # noqa: E402  (grader/selftest/run.py: CheckFailed, sh, ROOT, BUILD)
from run import CheckFailed, ROOT, BUILD, sh
import grade  # noqa: E402

BEGIN = run.BEGIN  # the marker lines themselves, not a comment that names them
END = run.END
CODE_EXT = (".c", ".cu", ".h", ".cuh", ".cpp", ".hpp")

# ---- 1. the student kit holds no line of a solution -----------------------------------------
#
# The rule. A solution line is a line inside a STUDENT-BEGIN/END region of a file under
# solutions/, with its trailing comment removed and its white space collapsed. It counts when it
# has at least MIN_CHARS characters other than white space (shorter lines, such as `}` or
# `return x;`, say nothing of the answer), is not a comment alone, and is not a declaration of
# dynamic shared memory (`extern __shared__ int s[];`: syntax the handouts teach). It is a leak when it
# appears, as a substring of a line with the same normalisation, in any file of the student kit
# (handouts, slides, figures, exhibits, scripts, ...), except where the kit ships it on purpose:
# in the kit's own code (skeletons/ outside the student regions, reference/, grader/), which
# students get whole. A later lab's skeleton may give an earlier lab's function as kit code
# (lab 06 repeats lab 04's scanIncWarp so that it does not depend on the student's lab 04); the
# check names those lines in its report so that the choice stays visible.
MIN_CHARS = 16


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
    return rel.startswith(("skeletons/", "reference/", "grader/")) and rel.endswith(CODE_EXT)


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
    code, out = sh([sys.executable, "grader/kit.py", "student-kit", "--out", tar])
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
    code, out = sh([sys.executable, "grader/quotes.py"])
    if code:
        raise CheckFailed(out[-3000:])
    return out.strip().splitlines()[-1]


CHECKS = [
    ("no solution line in the student kit", no_solution_in_kit),
    ("quoted output matches real runs", quotes),
]
