#!/usr/bin/env python3
"""Packaging and publishing tasks of the kit: handin, student-kit, slides.

    kit.py handin [--from skeletons] [--out build/handin.tar.gz]
    kit.py student-kit [--out build/scanlab-student.tar.gz]
    kit.py slides
    kit.py autograder [--lab NN]... [--out build/autograder.zip] [--course FILE]
"""
import argparse
import glob
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading"))
import grade  # noqa: E402  (manifests and paths)
import course  # noqa: E402  (the course file's check)

ROOT = grade.ROOT

# What the student kit leaves out: the solutions, and everything that holds working
# solution code (the kit's self-test fixtures, the emulator's test kernels and its corpus of
# CUDA programs (scans and compactions among them), the benchmark, lab 05's tuning program with
# its look-back kernels).
STUDENT_KIT_EXCLUDE = ("solutions/", "grader/selftest/", "grader/emu/tests/", "grader/emu/corpus/", "grader/measure/bench",
                       "labs/05-global-scan/bench/", "labs/06-segmented-scan/bench/",
                       "labs/07-applications/bench/", "labs/AUTHORING.md", ".ci/")
# ... but the measurements kept there, which the handouts quote, are data: they ship.
STUDENT_KIT_DATA = re.compile(r"^labs/\d\d-[\w-]+/bench/[\w.-]+\.(json|log)$")


def in_student_kit(rel):
    """Whether the student kit ships the tracked file `rel`."""
    return not rel.startswith(STUDENT_KIT_EXCLUDE) or bool(STUDENT_KIT_DATA.match(rel))


# Slide frames between these two comment lines hold solution code: they are in the instructor's
# deck (build/slides/instructor/) and left out of the student's deck and of the student kit.
INSTRUCTOR_BEGIN = "% INSTRUCTOR-BEGIN"
INSTRUCTOR_END = "% INSTRUCTOR-END"


def student_deck(text, name="deck"):
    """A slide deck's source without its instructor-only blocks; unbalanced markers are an error."""
    out, inside = [], None
    for no, line in enumerate(text.splitlines(keepends=True), 1):
        if line.startswith(INSTRUCTOR_BEGIN):
            if inside is not None:
                raise ValueError(f"{name}:{no}: INSTRUCTOR-BEGIN inside an instructor block")
            inside = no
        elif line.startswith(INSTRUCTOR_END):
            if inside is None:
                raise ValueError(f"{name}:{no}: INSTRUCTOR-END without INSTRUCTOR-BEGIN")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise ValueError(f"{name}:{inside}: INSTRUCTOR-BEGIN without INSTRUCTOR-END")
    return "".join(out)


def kit_bytes(rel):
    """A file as the student kit ships it: slide decks without their instructor blocks, and
    Markdown as student_markdown() makes it."""
    data = open(os.path.join(ROOT, rel), "rb").read()
    if rel.startswith("slides/") and rel.endswith(".tex"):
        data = student_deck(data.decode(), rel).encode()
    elif rel.endswith(".md"):
        data = student_markdown(data.decode(), rel).encode()
    return data


# Markdown passages about what only the full kit holds (its solutions, its self-test, the
# instructors' side) lie between these two lines, and a passage that only the student kit
# shows lies inside `<!-- student-kit` ... `-->` (hidden in the full kit's page).
FULL_KIT_BEGIN = "<!-- full-kit -->"
FULL_KIT_END = "<!-- /full-kit -->"
STUDENT_KIT_ONLY = re.compile(r"<!-- student-kit\n(.*?)-->\n", re.S)


def page_anchors():
    """Doxygen's names of the kit's Markdown pages and sections ({#name} on a heading): the
    file that holds each."""
    global _ANCHORS
    if _ANCHORS is not None:
        return _ANCHORS
    out = {}
    for rel in [f for f in tracked_files() if f.endswith(".md")]:  # git's list, or the tree outside git
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = re.match(r"#+ .*\{#(\w+)\}\s*$", line)
                if m:
                    out[m.group(1)] = rel
    _ANCHORS = out
    return out


_ANCHORS = None


def student_markdown(text, rel):
    """Markdown as the student kit ships it, to be read as plain text as well as by Doxygen:
    without the `<!-- quote ... -->` notes that tell the kit's own check how to rerun a quoted
    output (they name solutions/; the quoted output itself stays), without the full kit's
    passages, with the student kit's own, and with Doxygen's `@ref name "text"` as a Markdown
    link to the file (a heading's `{#name}` stays: the headers' @ref to a page needs it)."""
    text = re.sub(r"[ \t]*<!-- quote\n.*?-->\n\n?", "", text, flags=re.S)  # its indent too: the next line keeps its own
    text = re.sub(re.escape(FULL_KIT_BEGIN) + r"\n.*?" + re.escape(FULL_KIT_END) + r"\n", "", text, flags=re.S)
    if FULL_KIT_BEGIN in text or FULL_KIT_END in text:
        raise ValueError(f"{rel}: an unbalanced {FULL_KIT_BEGIN} or {FULL_KIT_END}")
    text = STUDENT_KIT_ONLY.sub(lambda m: m.group(1), text)
    anchors = page_anchors()

    def link(m):
        name, label = m.group(1), m.group(2) or m.group(1)
        if name not in anchors:
            raise ValueError(f"{rel}: @ref {name}: no page or section of that name")
        if anchors[name] == rel:  # a section of this page
            return f"[{label}](#{name})"
        return f"[{label}]({os.path.relpath(anchors[name], os.path.dirname(rel) or '.')})"
    return re.sub(r'@ref (\w+)(?: "([^"]*)")?', link, text)


def student_name(given):
    """Who a handin is from: --name, else the kit's record of it (.scanlab-student, asked once),
    else git's user.name and user.email."""
    if given:
        return given.strip()
    record = os.path.join(ROOT, ".scanlab-student")
    if os.path.exists(record):
        return open(record).read().strip()
    parts = []
    for key in ("user.name", "user.email"):
        r = subprocess.run(["git", "config", key], cwd=ROOT, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            parts.append(r.stdout.strip())
    if parts:
        return " ".join(parts[:1]) + (f" <{parts[1]}>" if len(parts) > 1 else "")
    if sys.stdin.isatty():
        name = input("handin: your name (and login), recorded in the handin: ").strip()
        if name:
            open(record, "w").write(name + "\n")
            return name
    return "unknown"


def handin(src, out, name=None):
    manifests = grade.all_manifests()
    files, missing = [], []
    for m in manifests:
        for f in m["student_files"]:
            rel = f"{m['dir']}/{f}"
            (files if os.path.isfile(os.path.join(src, rel)) else missing).append(rel)
    if missing:
        print("handin: not found (left out): " + ", ".join(missing))
    if not files:
        print(f"handin: no student files under {src}/", file=sys.stderr)
        return 1
    who = student_name(name)
    now = int(time.time())
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        def add(arcname, data):
            info = tarfile.TarInfo(arcname)
            info.size, info.mtime, info.mode = len(data), now, 0o644
            tar.addfile(info, io.BytesIO(data))
        for rel in files:
            add(rel, open(os.path.join(src, rel), "rb").read())
        add("HANDIN.json", (json.dumps({"student": who, "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                                        "files": files}, indent=2) + "\n").encode())
    print(f"handin: {len(files)} files from {who} in {os.path.relpath(out, ROOT)}")
    print("        grade it with: make grade SUBMISSION=" + os.path.relpath(out, ROOT))
    return 0


def tracked_files():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (a student kit itself): take the tree as it is, less build output.
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d not in ("build", ".git", ".deps", "__pycache__")]
            for f in filenames:
                files.append(os.path.relpath(os.path.join(dirpath, f), ROOT))
        return sorted(files)


def student_kit(out):
    files = [f for f in tracked_files() if in_student_kit(f)]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        for rel in files:
            info = tar.gettarinfo(os.path.join(ROOT, rel), arcname=f"scanlab/{rel}")
            if info.isfile():
                data = kit_bytes(rel)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
        note = ("This is the student kit: the reference solutions are not included.\n"
                "Edit the files under skeletons/, then run `make test LAB=NN` and `make grade`.\n")
        data = note.encode()
        info = tarfile.TarInfo("scanlab/STUDENT-KIT.txt")
        info.size = len(data)
        info.mtime = int(time.time())
        tar.addfile(info, io.BytesIO(data))
    print(f"student-kit: {len(files)} files in {os.path.relpath(out, ROOT)} (no solutions/)")
    return 0


def autograder(labs, out, course_file=None):
    """A Gradescope autograder: setup.sh and run_autograder at the top, the student kit
    (no solutions) under scanlab/, the labs to grade in LABS, and the course file (deadlines)
    in COURSE.toml when one is given or grader/manifests/course.toml exists."""
    files = [f for f in tracked_files() if in_student_kit(f)]
    known = {m["lab"] for m in grade.all_manifests()}
    labs = [f"{int(x):02d}" for x in labs]
    unknown = [x for x in labs if x not in known]
    if unknown:
        print(f"autograder: no lab {', '.join(unknown)}", file=sys.stderr)
        return 2
    default = os.path.join(grade.MANIFESTS, "course.toml")
    course_file = course_file or (default if os.path.exists(default) else None)
    if course_file:
        try:
            course.load_course(course_file, known)
        except course.CourseError as e:
            print(f"autograder: {e}", file=sys.stderr)
            return 2
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, strict_timestamps=False) as z:
        if course_file:
            z.writestr("COURSE.toml", open(course_file, "rb").read())
        for name in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, open(os.path.join(ROOT, "grader", "course", "gradescope", name), "rb").read())
        z.writestr("LABS", " ".join(labs) + "\n")
        # The whole run's time limit: every build and every test at its timeout, and a margin.
        ms = [m for m in grade.all_manifests() if not labs or m["lab"] in labs]
        limit = sum(m["limits"]["build_timeout"] + sum(grade.run_settings(m, t, "emu")[0] for t in m["test"])
                    for m in ms)
        z.writestr("LIMIT", f"{int(limit) + 120}\n")
        for rel in files:
            if os.path.isfile(os.path.join(ROOT, rel)) and not os.path.islink(os.path.join(ROOT, rel)):
                info = zipfile.ZipInfo.from_file(os.path.join(ROOT, rel), arcname=f"scanlab/{rel}",
                                                 strict_timestamps=False)
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, kit_bytes(rel))
            else:
                z.write(os.path.join(ROOT, rel), arcname=f"scanlab/{rel}")
    what = ("lab " if len(labs) == 1 else "labs ") + ", ".join(labs) if labs else "every lab"
    print(f"autograder: {os.path.relpath(out, ROOT)} grades {what} on the emu backend "
          "(upload it as a Gradescope autograder; students upload their lab files)"
          + (f"; deadlines from {os.path.relpath(course_file, ROOT)}" if course_file else ""))
    return 0


def manifest_macros():
    """The manifests' numbers as TeX definitions, read by `\\manifest{lab}{test}{key}` in the
    decks (slides/scanlab.sty): the slides quote points, sizes, timeouts and thresholds from the
    one place they are tuned. `key` is `points`, `timeout` or a parameter of the test (the cuda
    backend's value); `\\manifest{05}{total}{points}` is the lab's total."""
    lines = ["% Generated by grader/course/kit.py from grader/manifests/*.toml: do not edit."]

    def put(lab, test, key, value):
        if isinstance(value, float):  # 0.70 as the manifest writes it, 1.3 and 60 as well
            value = f"{value:.2f}" if value < 1 and round(value, 2) == value else f"{value:g}"
        value = str(value).replace("_", "\\_").replace("%", "\\%").replace("#", "\\#")
        lines.append(f"\\expandafter\\def\\csname scanlab@{lab}@{test}@{key}\\endcsname{{{value}}}")
    for m in grade.all_manifests():
        put(m["lab"], "total", "points", sum(int(t["points"]) for t in m["test"]))
        for t in m["test"]:
            timeout, params = grade.test_settings(m, t, "cuda")[:2]
            put(m["lab"], t["name"], "points", int(t["points"]))
            put(m["lab"], t["name"], "timeout", timeout)
            for key, value in params.items():
                put(m["lab"], t["name"], key, value)
    return "\n".join(lines) + "\n"


def slides():
    out = os.path.join(ROOT, "build", "slides")
    fig = os.path.join(out, "fig")
    os.makedirs(fig, exist_ok=True)
    open(os.path.join(fig, "scanlab-manifest.tex"), "w").write(manifest_macros())
    for svg in glob.glob(os.path.join(ROOT, "labs", "*", "figures", "*.svg")):
        pdf = os.path.join(fig, os.path.splitext(os.path.basename(svg))[0] + ".pdf")
        if not os.path.exists(pdf) or os.path.getmtime(pdf) < os.path.getmtime(svg):
            subprocess.run(["rsvg-convert", "-f", "pdf", "-o", pdf, svg], check=True)
    decks = sorted(glob.glob(os.path.join(ROOT, "slides", "[0-9][0-9]-*.tex")))
    if not decks:
        print("slides: no decks in slides/", file=sys.stderr)
        return 1
    env = dict(os.environ)
    env["TEXINPUTS"] = os.pathsep.join([os.path.join(ROOT, "slides"), fig, ""])
    failed = []
    # The student's deck (no instructor blocks) in build/slides/, and where the source has
    # instructor blocks, the instructor's deck (the whole source) in build/slides/instructor/.
    src_dir = os.path.join(out, "student-src")
    os.makedirs(src_dir, exist_ok=True)
    jobs = []
    for tex in decks:
        name = os.path.splitext(os.path.basename(tex))[0]
        text = open(tex).read()
        try:
            student = student_deck(text, os.path.relpath(tex, ROOT))
        except ValueError as e:
            print(f"slides: {e}", file=sys.stderr)
            failed.append(name)
            continue
        student_tex = os.path.join(src_dir, name + ".tex")
        open(student_tex, "w").write(student)
        jobs.append((name, student_tex, out))
        if student != text:
            jobs.append((name, tex, os.path.join(out, "instructor")))
    for name, tex, dest in jobs:
        os.makedirs(dest, exist_ok=True)
        log = os.path.join(dest, name + ".build.log")
        ok = True
        with open(log, "w") as f:
            # twice, for the page numbers and the outline; the first pass only writes those
            # (-draftmode: no PDF, no figure read), which took a third of a deck's time
            for first in (True, False):
                r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error"] +
                                   (["-draftmode"] if first else []) + ["-output-directory", dest, tex],
                                   stdout=f, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
                if r.returncode != 0:
                    ok = False
                    break
        if ok:
            print(f"slides: {os.path.relpath(os.path.join(dest, name + '.pdf'), ROOT)}")
        else:
            failed.append(name)
            print(f"slides: {name} failed; see {os.path.relpath(log, ROOT)}", file=sys.stderr)
            for line in open(log, errors="replace").read().splitlines():
                if line.startswith("!"):
                    print("    " + line, file=sys.stderr)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("handin")
    h.add_argument("--from", dest="src", default="skeletons")
    h.add_argument("--out", default=os.path.join(ROOT, "build", "handin.tar.gz"))
    h.add_argument("--name", default=None, help="who the handin is from (default: asked once, or git's)")
    k = sub.add_parser("student-kit")
    k.add_argument("--out", default=os.path.join(ROOT, "build", "scanlab-student.tar.gz"))
    sub.add_parser("slides")
    a = sub.add_parser("autograder")
    a.add_argument("--lab", action="append", default=[])
    a.add_argument("--out", default=os.path.join(ROOT, "build", "autograder.zip"))
    a.add_argument("--course", default=None, help="the course file whose deadlines apply (late penalties)")
    args = ap.parse_args()
    if args.cmd == "handin":
        return handin(args.src, args.out, args.name)
    if args.cmd == "student-kit":
        return student_kit(args.out)
    if args.cmd == "slides":
        return slides()
    if args.cmd == "autograder":
        return autograder(args.lab, args.out, args.course)
    return 2


if __name__ == "__main__":
    sys.exit(main())
