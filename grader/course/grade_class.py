#!/usr/bin/env python3
"""Grades a whole class: `make grade-class CLASS=dir [LAB=NN] [JOBS=N] [REGRADE=1]`.

Each entry of CLASS is one student: a folder (a flat upload, a folder by lab, or the student's
whole kit) or a handin tarball, named after the student. Students are graded in parallel, one
grade.py each, every one under a cap (each of its builds and tests at its timeout, plus a
margin), so a hung submission costs its own time and nothing else. Writes:

    build/class/gradebook.csv          student, lab, score (raw), max, tests failed, seconds,
                                       handin from, note, arrived, due, late, final
    build/class/<student>/results.json one student's results (Gradescope's format)
    build/class/<student>/grade.log    what the grader printed for them
    build/class/report.html            the class report: scores, tests, timing, late list, leaderboard
    build/class/canvas.csv, grades.csv the LMS imports (with ROSTER=)
    build/class/similarity/            with SIMILARITY=1: the similarity report (similarity.py)

Every entry of CLASS is graded or listed with the reason it is not (a file that is no handin
tarball, a FIFO, a device, ...); two entries with one student name (`alice` and
`alice.tar.gz`) are both graded, the second under its full name, with a warning. A student's
name is the entry's made safe (course.safe_name: "anne marie" is graded as anne_marie, and the
course file and the roster find her by either name); an entry named like one of the run's own
files (gradebook.csv) is graded as NAME-student, with a warning; a symbolic link is graded from
where it points, with a warning, unless that is another entry of the class or the class folder
(then it is listed as not graded). Nothing is written outside the output folder. Text in the
CSV files is made safe for spreadsheets (course.safe_cell). With a course file (COURSE=, or
grader/manifests/course.toml) each lab's score is taken through its deadline, from the time
the submission arrived in CLASS (course.py). The reference solutions (solutions/, where the
kit has them) are graded too, once, to mark their figures on the report's timing plots.

A rerun grades only the students whose submission changed (the bytes of the files the grader
reads, and the tarball's), unless REGRADE=1; STUDENT=name regrades that student alone, and every
other row stays as graded. No row is dropped silently: a student graded into the output folder
earlier whose entry CLASS no longer holds keeps their row (graded for the same labs and tests),
and a line names them. Each row's arrival time is the one noted when its submission was graded.

With RUNNER=slurm the students go to a Slurm job array instead (`sbatch --array`, one task per
JOBS share of the class, SLURM_ARGS passed on, e.g. "--gres=gpu:1 --partition=gpu"); each task
grades its students as above, on its node, into the same folder (which must be shared), and
the gradebook is made from their results when the array has ended.
"""
import argparse
import csv
import datetime
import glob
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading"))
import grade  # noqa: E402
import course  # noqa: E402

ROOT = grade.ROOT
CLASS_ROOT = os.path.join(ROOT, "build", "class")
OUT = CLASS_ROOT
REFERENCE = course.REFERENCE
entry_name, student_name, class_entries = course.entry_name, course.student_name, course.class_entries
DEFAULT_COURSE = os.path.join(grade.MANIFESTS, "course.toml")


def content_key(entry, labs, backend, tests=()):
    """A hash of what was handed in (every file's path and bytes) and of how it is graded."""
    h = hashlib.sha256(f"{backend}\0{','.join(labs)}\0{','.join(tests)}\0".encode())
    for m in grade.all_manifests():
        h.update(grade.kit_fingerprint(m, backend).encode())
    if os.path.isfile(entry):
        with open(entry, "rb") as f:
            h.update(f.read())
        return h.hexdigest()
    # A folder: only the files the grader reads (each graded lab's student files, where
    # grade.py finds them), never a walk of the folder, whose other files cost time and change
    # nothing (20,000 files of 1 MiB beside the code took 38 s a run to read)
    for m in grade.all_manifests():
        if m["lab"] not in labs:
            continue
        for name in m["student_files"]:
            try:
                p = grade.find_student_file(entry, m, name)
            except grade.SubmissionError as e:
                h.update(f"{m['lab']}/{name}: {e}\0".encode())
                continue
            if p is None:
                h.update(f"{m['lab']}/{name}: missing\0".encode())
                continue
            with open(p, "rb") as f:
                h.update(os.path.relpath(p, entry).encode() + b"\0" + f.read() + b"\0")
    # and a handin archive at its top, which grade.py unpacks when the folder has no student
    # files (an upload of make handin's file, a zip): a new one is a new submission
    try:
        archives = sorted(e for e in os.listdir(entry) if e.lower().endswith(grade.HANDIN_ARCHIVES)
                          and os.path.isfile(os.path.join(entry, e)))
    except OSError:
        archives = []
    for a in archives:
        with open(os.path.join(entry, a), "rb") as f:
            h.update(a.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def handin_from(entry):
    """The name a `make handin` tarball records (HANDIN.json), if any."""
    if not os.path.isfile(entry):
        return ""
    try:
        grade.check_tarball(entry)  # tarfile would read a header's body whole, however long
        with tarfile.open(entry) as tar:
            member = tar.getmember("HANDIN.json")
            if member.size > 4096:
                return ""
            return grade.clean(json.load(tar.extractfile(member)).get("student", ""), 80)
    except (tarfile.TarError, KeyError, ValueError, OSError, AttributeError, grade.SubmissionError):
        return ""


def cap_seconds(manifests, backend):
    """The most one student may take: every build and every test at its timeout, plus a margin."""
    total = 60.0
    for m in manifests:
        total += m["limits"]["build_timeout"]
        total += sum(grade.run_settings(m, t, backend)[0] + 2 for t in m["test"])
    return total


def student_env(jobs, cores):
    """What grading `jobs` students at once on `cores` cores changes in each one's grade: the
    cores shared between them (the emu's host threads), and with several at once each runs its
    tests one at a time. Nothing else of grade-class reaches grade.py (the self-test grades its
    known-bad submissions with these settings: bad_submissions.expect)."""
    env = {"SCANLAB_EMU_WORKERS": str(max(1, cores // jobs))}
    if jobs > 1:
        env["TEST_JOBS"] = "1"
    return env


def grade_one(entry, name, labs, backend, cap, jobs, tests=()):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    results = os.path.join(folder, "results.json")
    cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", backend,
           "--submission", entry, "--results", results]
    for lab in labs:
        cmd += ["--lab", lab]
    for t in tests:
        cmd += ["--test", t]
    env = dict(os.environ, NO_COLOR="1")
    for key, value in student_env(jobs, os.cpu_count() or 1).items():
        env.setdefault(key, value)
    t0 = time.monotonic()
    if os.path.exists(results):
        os.remove(results)
    with open(os.path.join(folder, "grade.log"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=ROOT, start_new_session=True)
        try:
            proc.wait(timeout=cap)
            capped = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            capped = True
    seconds = time.monotonic() - t0
    data = None
    if os.path.exists(results):
        try:
            data = json.load(open(results))
        except ValueError:
            data = None
    return {"student": name, "entry": entry, "seconds": seconds, "capped": capped, "results": data,
            "handin_from": handin_from(entry), "labs": list(labs), "tests": list(tests), "backend": backend,
            "arrived": {m["lab"]: stamp(arrival(entry, m)) for m in grade.all_manifests() if m["lab"] in labs}}


def stamp(when):
    return when.isoformat() if when else None


def run_slurm(todo, args, labs, backend, jobs):
    """Submits the students to a Slurm job array and waits for it; returns when it has ended."""
    folder = os.path.join(OUT, "slurm")
    os.makedirs(folder, exist_ok=True)
    tasks = max(1, min(jobs, len(todo)))
    json.dump([list(t) for t in todo], open(os.path.join(folder, "todo.json"), "w"))
    script = os.path.join(folder, "task.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n# One task of a class grading array (written by grade_class.py).\n"
                f"cd {ROOT}\n"
                f"exec {sys.executable} grader/course/grade_class.py --class {shlex.quote(args.klass)} --backend {backend} "
                f"--out {shlex.quote(OUT)} "
                + "".join(f"--lab {lab} " for lab in labs) + "".join(f"--test {shlex.quote(t)} " for t in args.tests)
                + f"--task-of {tasks} --task-index \"$SLURM_ARRAY_TASK_ID\"\n")
    os.chmod(script, 0o755)
    # Each task grades about len(todo) / tasks students, each within the cap: that, with a
    # margin, is the task's time limit (Slurm stops a task past it), and the time this command
    # waits for the array, queueing included, before it cancels it: a cluster that never runs
    # the job (a drained node, a full queue) must not hold the grader forever.
    per_task = cap_seconds([m for m in grade.all_manifests() if not labs or m["lab"] in labs], backend) * \
        ((len(todo) + tasks - 1) // tasks) + 120
    wait_s = 2 * per_task + args.slurm_queue_wait
    cmd = ["sbatch", "--wait", "--parsable", f"--array=0-{tasks - 1}", "--job-name=scanlab-grade",
           f"--time={int(per_task + 59) // 60}", f"--output={folder}/task-%a.log"] + args.slurm_args.split() + [script]
    print("grade-class: " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        job = (out.strip().splitlines() or [""])[0].split(";")[0]
        if job.isdigit():
            subprocess.run(["scancel", job], capture_output=True)
        print(f"grade-class: the Slurm job array {job or '(no id)'} did not end within {wait_s:.0f} s "
              "(queued, or a node down or drained: see sinfo and squeue); cancelled. The students it "
              "did not grade are marked as not graded; run the command again to grade them.", file=sys.stderr)
        return False
    if proc.returncode != 0:
        print(f"grade-class: sbatch failed ({proc.returncode}): {grade.clean(err.strip() or out.strip(), 300)}",
              file=sys.stderr)
        return False
    return True


def run_task(args, labs, backend):
    """One task of a Slurm array: the students of the shared list whose position is index mod count."""
    todo = json.load(open(os.path.join(OUT, "slurm", "todo.json")))
    manifests = [m for m in grade.all_manifests() if not labs or m["lab"] in labs]
    mine = [t for i, t in enumerate(todo) if i % args.task_of == args.task_index]
    cap = cap_seconds(manifests, backend)
    for name, entry, key in mine:
        out = grade_one(entry, name, [m["lab"] for m in manifests], backend, cap, 1, args.tests)
        json.dump(out, open(os.path.join(OUT, name, "outcome.json"), "w"))
        open(os.path.join(OUT, name, "key"), "w").write(key)
        print(f"graded {name} in {out['seconds']:.0f}s", flush=True)
    return 0


CLONE_UNKNOWN = ("a git clone, whose files carry the time it was cloned: give the times GitHub Classroom "
                 "exported (its grades CSV) or the time the repositories were collected, ARRIVALS=")


def is_clone(entry):
    """A git working copy (GitHub Classroom's repositories, cloned): its files' times are the
    clone's, never the student's, and neither is a commit's date, which the student sets. (A
    student's own folder may hold a .git too: the run names every entry whose lateness it did
    not judge, so that course staff give their arrival times.)"""
    git = os.path.join(entry, ".git")
    return os.path.isdir(entry) and os.path.isdir(git) and os.path.isfile(os.path.join(git, "HEAD"))


def untimed(entry):
    """Why an entry's file times are not when it arrived ('' where they are): a git clone's are
    the clone's; the files of Canvas's download are the download's (Canvas's late flag said)."""
    if is_clone(entry):
        return CLONE_UNKNOWN
    # an entry this run made from Canvas's download (never a marker a student's own folder holds)
    made = os.path.realpath(os.path.join(OUT, "canvas-download", "students")) + os.sep
    mark = os.path.join(entry, course.CANVAS_MARK) if os.path.realpath(entry).startswith(made) else ""
    if mark and os.path.isfile(mark):
        try:
            late = bool(json.load(open(mark)).get("late"))
        except (OSError, ValueError):
            late = False
        return ("Canvas's download, whose files carry the time it was downloaded" +
                (" (Canvas marked it late)" if late else "") + ": give Canvas's submission times, ARRIVALS=")
    return ""


def arrival(entry, manifest):
    """When a student's submission of a lab arrived in CLASS: a tarball's own time; in a folder,
    the newest time of the lab's student files there (else of anything in the folder); for a git
    clone, None (is_clone: the course's arrivals say when)."""
    if untimed(entry):
        return None
    if os.path.isfile(entry):
        return course.arrival_of([entry])
    found = []
    for f in manifest["student_files"]:
        try:
            p = grade.find_student_file(entry, manifest, f)
        except grade.SubmissionError:
            p = None
        if p:
            found.append(p)
    return course.arrival_of(found or [entry])


def shown(path):
    """A path as the run prints it: from the kit's folder where it lies inside it, else whole
    (never a climb of ../../../)."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path == ROOT or path.startswith(ROOT + os.sep) else path


def identities(roster):
    """{student key: the other names the roster knows the student by} (email, LMS login, SIS id):
    a course file's extension or arrival written for any of them finds the student, as on
    Gradescope, which knows students by their email."""
    return {course.safe_name(r["student"]): [r[k] for k in ("email", "login_id", "sis_user_id") if r.get(k)]
            for r in roster or []}


def held_tests(manifest, release):
    """The tests of a lab whose points and words students may not see yet: those the manifest
    does not make `visible` (hidden, after_due_date, after_published), until RELEASE=1; a
    `hidden` test stays out of the feedback even then (its points count once released)."""
    return {t["name"] for t in manifest["test"] if t.get("visibility", "visible") != "visible"
            and not (release and t.get("visibility") != "hidden")}


def rows_of(outcome, manifests, backend, tests=(), course_=None, also_known=None, release=False):
    """Gradebook rows, one per lab, from one student's results.json. Each row also carries (not
    in the gradebook's columns) what students may see now: `shown` (the score, maximum and final
    of the tests not held) and `held` (held_tests)."""
    rows = []
    by_lab = {}
    for t in (outcome["results"] or {}).get("tests", []):
        lab = t["name"][3:5]
        by_lab.setdefault(lab, []).append(t)
    for m in manifests:
        maximum = sum(t["points"] for t in m["test"] if grade.graded_here(t, m, backend)
                      and (not tests or t["name"] in tests))
        tests_ = by_lab.get(m["lab"], [])
        failed = [t["name"].split(":")[0].split(" ", 1)[1] for t in tests_ if t["status"] == "failed"]
        note = ""
        if outcome["capped"]:
            note = "stopped at the class cap"
        elif outcome["results"] is None:
            note = "no results"
        elif tests_ and all("does not compile" in t.get("output", "") or "does not build" in t.get("output", "")
                            for t in tests_):
            note = "did not build"
        elif tests_ and all("missing student file" in t.get("output", "") for t in tests_):
            # In a run of one lab, every entry is a submission of it: one without the lab's files
            # (an empty folder, a file of another name) was handed in, and scores 0 for a stated
            # reason; in a run of several labs it may not have reached this lab yet: missing.
            note = f"handed in without {', '.join(m['student_files'])}" if len(manifests) == 1 else "missing"
        score = sum(t["score"] for t in tests_)
        # the key, the name as handed in, and the roster's names for the student
        known_as = [outcome["student"], entry_name(outcome["entry"])] + (also_known or {}).get(outcome["student"], [])
        unknown = ""
        if note in ("missing", "no results") or note.startswith("handed in without"):
            arrived = None
        elif untimed(outcome["entry"]):  # whatever an earlier run noted from its files' times
            arrived, unknown = None, untimed(outcome["entry"])
        elif m["lab"] in outcome.get("arrived", {}):  # when the submission graded arrived, noted then
            stored = outcome["arrived"][m["lab"]]
            arrived = datetime.datetime.fromisoformat(stored) if stored else None
        else:  # an outcome from before arrival times were noted
            arrived = arrival(outcome["entry"], m)
        late = course.lateness(course_, m["lab"], known_as, arrived, score, unknown=unknown)
        held = held_tests(m, release) & {t["name"] for t in m["test"] if not tests or t["name"] in tests}
        if release:  # released: every test's points count; a hidden test's words stay out of the feedback
            shown_score, shown_max, shown_final = score, maximum, late["final"]
        else:
            shown_score = sum(t["score"] for t in tests_ if t["name"].split(":")[0].split(" ", 1)[1] not in held)
            shown_max = sum(t["points"] for t in m["test"] if grade.graded_here(t, m, backend)
                            and (not tests or t["name"] in tests) and t["name"] not in held)
            shown_final = course.lateness(course_, m["lab"], known_as, arrived, shown_score, unknown=unknown)["final"]
        rows.append({"student": outcome["student"], "lab": m["lab"],
                     "score": score, "max": maximum,
                     "tests_failed": " ".join(failed), "seconds": f"{outcome['seconds']:.1f}",
                     "handin_from": outcome["handin_from"], "note": note, "arrived": late["arrived"],
                     "due": late["due"], "late": late["late"], "final": late["final"],
                     "held": " ".join(sorted(held)) if not release else "",
                     "handed_in_as": entry_name(outcome["entry"]),  # the name as written: josé_núñez
                     "shown": {"score": shown_score, "max": shown_max, "final": shown_final}})
    return rows


def write_feedback(outcome, rows, manifests, release):
    """feedback.txt in the student's folder: what the student may be sent now. Each lab's score
    and lateness as the LMS files carry it, and each test not held with its verdict and first
    lines; a held test appears nowhere (not its name, its points or its words)."""
    results = {t["name"].split(":")[0]: t for t in (outcome["results"] or {}).get("tests", [])}
    lines = [f"ScanLab feedback for {outcome['student']}"]
    for m, row in zip(manifests, rows):
        hidden = held_tests(m, release) | ({t["name"] for t in m["test"] if t.get("visibility") == "hidden"})
        late = row["late"] if not row["late"].startswith(course.UNJUDGED) else ""  # staff's business, not the student's
        lines.append(f"\nlab {m['lab']}: {row['shown']['final']}/{row['shown']['max']}"
                     + (f" ({late})" if late else "") + (f" ({row['note']})" if row["note"] else ""))
        for t in m["test"]:
            r = results.get(f"lab{m['lab']} {t['name']}")
            if r is None or t["name"] in hidden:
                continue
            first = (r.get("output") or "").splitlines()[:3]
            lines.append(f"  {t['name']}: {r['status'].upper()} {r['score']}/{r['max_score']}"
                         + "".join(f"\n      {x}" for x in first if r["status"] != "passed"))
    path = os.path.join(OUT, outcome["student"], "feedback.txt")
    if os.path.isdir(os.path.dirname(path)):
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


FIELDS = ["student", "lab", "score", "max", "tests_failed", "seconds", "handin_from", "note", "arrived", "due",
          "late", "final", "held", "roster", "handed_in_as"]


CLASS_ZIP_LIMITS = {"bytes": 2 << 30, "members": 50000, "unpacked": 4 << 30, "member": 256 << 20}


def canvas_class(klass, roster):
    """The class to grade: CLASS itself, or where CLASS is Canvas's Download Submissions (its zip,
    or the folder it unpacks to) one folder per student made from it under OUT/canvas-download
    (course.canvas_download)."""
    staging = os.path.join(OUT, "canvas-download")
    raw = klass
    if os.path.isfile(klass):  # a whole class's download: a class's limits, not one handin's
        raw = grade.unpack_zip(klass, os.path.join(staging, "zip"), limits=CLASS_ZIP_LIMITS)
    made = course.canvas_download(raw, os.path.join(staging, "students"), roster)
    if made is None:
        if raw != klass:
            raise grade.SubmissionError("a zip that is not Canvas's Download Submissions (files named "
                                        "NAME_USERID_ID_FILE): unpack it and give the folder")
        return klass
    count = len(os.listdir(made))
    print(f"grade-class: {shown(klass)} is Canvas's Download Submissions: {count} student(s), each in "
          f"{shown(made)}/NAME with its files under the names they were handed in as")
    return made


def write_course_gradebook(out):
    """course.csv beside the labs' folders (build/class/labNN/, each lab's run): one row per
    student, each lab's final score, and the total; a lab graded in a run of several labs
    (build/class/gradebook.csv) counts where no folder of its own has it. None when `out` is no
    lab's folder nor the folder above them."""
    top = os.path.dirname(out) if re.fullmatch(r"lab\d\d", os.path.basename(out)) else out
    books = sorted(glob.glob(os.path.join(top, "lab[0-9][0-9]", "gradebook.csv")))
    if not books:
        return None
    finals, labs = {}, set()
    for book in [os.path.join(top, "gradebook.csv")] + books:  # a lab's own folder last: it wins
        if not os.path.exists(book):
            continue
        own = re.fullmatch(r"lab(\d\d)", os.path.basename(os.path.dirname(book)))
        with open(book, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if own and r.get("lab") != own.group(1):
                    continue
                finals.setdefault(r.get("roster") or r["student"], {})[r["lab"]] = r.get("final", "")
                labs.add(r["lab"])
    labs = sorted(labs)
    rows = []
    for student in sorted(finals):
        cells = [finals[student].get(lab, "") for lab in labs]
        total = sum(float(c) for c in cells if c not in ("", None))
        rows.append([student] + cells + [f"{total:g}"])
    path = os.path.join(top, "course.csv")
    course.write_csv(path, ["student"] + [f"lab{lab}" for lab in labs] + ["total"], rows)
    return path


def main(argv=None):
    global OUT
    ap = argparse.ArgumentParser(description="Grade a whole class into a gradebook.")
    ap.add_argument("--class", dest="klass", required=True, help="folder with one entry per student")
    ap.add_argument("--lab", action="append", default=[], help="labs (default: every lab)")
    ap.add_argument("--test", dest="tests_arg", action="append", default=[],
                    help="grade only these tests (a name, or several: a,b or 'a b')")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="students at once")
    ap.add_argument("--backend", default=os.environ.get("BACKEND") or None)
    ap.add_argument("--regrade", action="store_true", help="grade every student, changed or not")
    ap.add_argument("--student", action="append", default=[],
                    help="regrade only these students of CLASS (a name, or several: a,b); every other row of "
                         "the gradebook stays as graded before")
    ap.add_argument("--runner", default="local", choices=("local", "slurm"))
    ap.add_argument("--slurm-args", default="", help="more sbatch options, e.g. \"--gres=gpu:1\"")
    ap.add_argument("--slurm-queue-wait", type=float, default=3600,
                    help="seconds the job array may wait in the queue before grade-class gives up (default 3600)")
    ap.add_argument("--out", default=None,
                    help="where the gradebook and the reports go (default build/class/labNN for one lab, else "
                         "build/class)")
    ap.add_argument("--course", default=None,
                    help="the course file: deadlines, grace days, penalties, extensions "
                         "(default grader/manifests/course.toml, where there is one)")
    ap.add_argument("--roster", default=None, help="CSV of the students' LMS identities: writes canvas.csv, grades.csv")
    ap.add_argument("--release", action="store_true",
                    help="release the tests the manifests hold back (visibility): their points in the LMS files, "
                         "their verdicts in feedback.txt (a hidden test's points only)")
    ap.add_argument("--arrivals", default=None,
                    help="CSV of when each submission arrived: GitHub Classroom's grades export, or student,time[,lab] "
                         "rows (student * for every entry: the time repositories were collected)")
    ap.add_argument("--similarity", action="store_true", help="also compare the students' code (similarity.py)")
    ap.add_argument("--no-reference", action="store_true", help="do not grade solutions/ for the report's marks")
    ap.add_argument("--task-of", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--task-index", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    OUT = os.path.abspath(args.out) if args.out else None  # set below once the labs are known
    args.tests = grade.parse_tests(args.tests_arg)
    if not os.path.isdir(args.klass) and not (os.path.isfile(args.klass) and args.klass.endswith(".zip")):
        print(f"grade-class: CLASS={args.klass} is not a folder (nor the zip of Canvas's Download Submissions)",
              file=sys.stderr)
        return 2
    backend = args.backend or grade.detect_backend()
    try:
        manifests = grade.all_manifests()
    except grade.ManifestError as e:
        print(f"grade-class: manifest error: {e}", file=sys.stderr)
        return 2
    labs = []
    for item in args.lab:
        labs += [f"{int(x):02d}" for x in re.split(r"[,\s]+", item) if x.strip()]
    if labs:
        unknown = set(labs) - {m["lab"] for m in manifests}
        if unknown:
            print(f"grade-class: no lab {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        manifests = [m for m in manifests if m["lab"] in labs]
    if args.tests:
        bad = [t for t in args.tests if t not in {x["name"] for m in manifests for x in m["test"]}]
        if bad:
            print(f"grade-class: no test named {', '.join(bad)} in lab {', '.join(m['lab'] for m in manifests)}",
                  file=sys.stderr)
            return 2
        manifests = [m for m in manifests if any(t["name"] in args.tests for t in m["test"])]
    if OUT is None:  # one lab's class in a folder of its own, so that labs never overwrite each other
        OUT = os.path.join(CLASS_ROOT, f"lab{manifests[0]['lab']}") if len(manifests) == 1 else CLASS_ROOT
    if args.task_of:
        return run_task(args, [m["lab"] for m in manifests] if labs or args.tests else [], backend)
    course_path = args.course or (DEFAULT_COURSE if os.path.exists(DEFAULT_COURSE) else None)
    try:
        course_ = course.load_course(course_path, {m["lab"] for m in grade.all_manifests()}) if course_path else None
        roster = course.load_roster(args.roster) if args.roster else None
        if args.arrivals:
            read = course.load_arrivals(args.arrivals, course_, [m["lab"] for m in manifests])
            print(f"grade-class: {read} arrival time(s) from {args.arrivals}")
    except course.CourseError as e:
        print(f"grade-class: {e}", file=sys.stderr)
        return 2
    given = args.klass
    try:
        args.klass = canvas_class(args.klass, roster)
    except (grade.SubmissionError, OSError) as e:
        print(f"grade-class: CLASS={given}: {e}", file=sys.stderr)
        return 2
    names, skipped, warnings = class_entries(args.klass)
    for e, why in skipped:
        print(f"grade-class: not graded: {e}: {why}")
    for _, w in warnings:
        print(f"grade-class: warning: {w}")
    only = [x for item in args.student for x in re.split(r"[,\s]+", item) if x]
    unknown = [x for x in only if x not in names and course.safe_name(x) not in names]
    if unknown:
        import difflib
        hints = [f"{x} (did you mean {', '.join(difflib.get_close_matches(course.safe_name(x), list(names), n=2))}?)"
                 if difflib.get_close_matches(course.safe_name(x), list(names), n=1) else x for x in unknown]
        print(f"grade-class: STUDENT= names no entry of {args.klass}: {'; '.join(hints)}", file=sys.stderr)
        return 2
    only = {x if x in names else course.safe_name(x) for x in only}
    jobs = max(1, min(args.jobs, len(names) or 1))
    cap = cap_seconds(manifests, backend)
    os.makedirs(OUT, exist_ok=True)
    # Build the kit once, before the students race for it.
    for m in manifests:
        grade.build_kit(m, backend, os.environ.get("SM", "90"), os.path.join(OUT, f"kit-lab{m['lab']}.log"))

    lab_list = [m["lab"] for m in manifests]
    todo, kept, unseen = [], [], []
    graded = dict(names)
    reference = os.path.join(ROOT, "solutions")
    if os.path.isdir(reference) and not args.no_reference:
        graded[REFERENCE] = reference
    for name, entry in graded.items():
        key = content_key(entry, lab_list, backend, args.tests)
        keyfile = os.path.join(OUT, name, "key")
        old = os.path.join(OUT, name, "outcome.json")
        if only and name not in only and name != REFERENCE:  # STUDENT=: the others stay as they were
            if os.path.exists(old):
                kept.append(json.load(open(old)))
            else:
                unseen.append(name)
        elif (not args.regrade or name == REFERENCE) and name not in only and os.path.exists(keyfile) and \
                open(keyfile).read() == key and os.path.exists(old):
            kept.append(json.load(open(old)))
        else:
            todo.append((name, entry, key))
    # Students graded into OUT earlier whose entries this CLASS does not hold (a folder of one
    # student pointed at the class's output, an entry moved away): their rows stay, from their
    # earlier outcome, where it was graded as this run grades (labs, tests, backend).
    earlier, elsewhere = [], []
    for name in sorted(os.listdir(OUT)) if os.path.isdir(OUT) else []:
        path = os.path.join(OUT, name, "outcome.json")
        if name in graded or name == REFERENCE or not os.path.isfile(path):
            continue
        try:
            o = json.load(open(path))
        except ValueError:
            continue
        if (o.get("labs"), o.get("tests"), o.get("backend")) == (lab_list, list(args.tests), backend):
            kept.append(o)
            earlier.append(name)
        else:
            elsewhere.append(name)
    if only:
        print(f"grade-class: STUDENT={','.join(sorted(only))}: only {'that student' if len(only) == 1 else 'those'} "
              f"regraded; the other rows as graded before")
    if unseen:
        print(f"grade-class: warning: never graded, so not in the gradebook (grade the class without STUDENT=): "
              f"{', '.join(unseen)}")
    if earlier:
        print(f"grade-class: kept {len(earlier)} student(s) graded into {shown(OUT)} earlier that "
              f"{args.klass} does not hold: {', '.join(earlier)} (delete their folders there to drop them)")
    if elsewhere:
        print(f"grade-class: note: {len(elsewhere)} folder(s) in {shown(OUT)} hold other labs' or "
              f"tests' grades and are left out of this gradebook: {', '.join(elsewhere[:10])}")
    print(f"grade-class: {len(names)} students, {sum(1 for t in todo if t[0] != REFERENCE)} to grade "
          f"({sum(1 for k in kept if k['student'] != REFERENCE)} unchanged), "
          f"{jobs} at a time, {backend} backend, at most {cap:.0f} s each", flush=True)

    done, failing, lock, t0 = [], [0], threading.Lock(), time.monotonic()
    n_students = sum(1 for t in todo if t[0] != REFERENCE)

    def one(item):
        name, entry, key = item
        out = grade_one(entry, name, lab_list, backend, cap, jobs, args.tests)
        json.dump(out, open(os.path.join(OUT, name, "outcome.json"), "w"))
        open(os.path.join(OUT, name, "key"), "w").write(key)
        with lock:
            done.append(out)
            r = out["results"]
            elapsed = time.monotonic() - t0
            left = elapsed / len(done) * (len(todo) - len(done))
            if name == REFERENCE:  # not a student: the header's count leaves it out too
                print(f"  graded the reference solution for the report's marks "
                      f"({out['seconds']:.0f}s); about {left:.0f}s left", flush=True)
                return out
            if not r or r.get("score") != r.get("max_score"):
                failing[0] += 1
            students = sum(1 for o in done if o["student"] != REFERENCE)
            print(f"  graded {students}/{n_students}: {name} "
                  f"{r['score'] if r else '-'}/{r['max_score'] if r else '-'} ({out['seconds']:.0f}s); "
                  f"{failing[0]} below full marks; about {left:.0f}s left", flush=True)
        return out

    if args.runner == "slurm" and todo:
        if not run_slurm(todo, args, lab_list, backend, jobs):
            return 1
        for name, entry, key in todo:
            p = os.path.join(OUT, name, "outcome.json")
            done.append(json.load(open(p)) if os.path.exists(p) else
                        {"student": name, "entry": entry, "seconds": 0.0, "capped": False, "results": None,
                         "handin_from": handin_from(entry)})
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, todo))
    everyone = sorted(done + kept, key=lambda o: o["student"])
    ref = [o for o in everyone if o["student"] == REFERENCE]
    outcomes = [o for o in everyone if o["student"] != REFERENCE]

    known = identities(roster)
    keyed = {}
    if roster is not None:  # GitHub Classroom's folder names, matched to the roster's rows
        keyed, ambiguous = course.roster_keys([o["student"] for o in outcomes], roster,
                                              clones={o["student"] for o in outcomes if is_clone(o["entry"])})
        for entry, who in sorted(keyed.items()):
            known[entry] = [who] + known.get(course.safe_name(who), [])
            print(f"grade-class: {entry} is the roster's {who} (a clone named ASSIGNMENT-USER)")
        for entry, why in ambiguous:
            print(f"grade-class: warning: {entry} {why}: not matched; name its folder as the roster's student to "
                  f"put it in the LMS files")
    on_roster = {course.safe_name(r["student"]): r["student"] for r in roster or []}
    rows = []
    for o in outcomes:
        mine = rows_of(o, manifests, backend, args.tests, course_, known, release=args.release)
        for r in mine:  # the roster's student this entry is (the LMS files' and course.csv's key)
            r["roster"] = keyed.get(o["student"]) or on_roster.get(course.safe_name(o["student"]), "")
        write_feedback(o, mine, manifests, args.release)
        rows += mine
    held = sorted({t for r in rows for t in r["held"].split()})
    if held:
        print(f"grade-class: held until RELEASE=1: {', '.join(held)} (their manifests' visibility): out of the LMS "
              f"files' scores and every feedback.txt; in the gradebook and the report, which are the course staff's")
    path = os.path.join(OUT, "gradebook.csv")
    course.write_csv(path, FIELDS, rows)
    book = write_course_gradebook(OUT)
    if book:
        print(f"course gradebook: {shown(book)}")

    print(f"\n{'lab':<5}{'students':>9}{'mean':>8}{'max':>6}   full / partial / zero")
    for m in manifests:
        rs = [r for r in rows if r["lab"] == m["lab"]]
        mx = rs[0]["max"] if rs else 0
        mean = sum(r["score"] for r in rs) / len(rs) if rs else 0
        full = sum(1 for r in rs if r["score"] == mx)
        zero = sum(1 for r in rs if r["score"] == 0)
        print(f"{m['lab']:<5}{len(rs):>9}{mean:>8.1f}{mx:>6}   {full} / {len(rs) - full - zero} / {zero}")
    if outcomes:
        slow = sorted(outcomes, key=lambda o: -o["seconds"])[:3]
        print("slowest: " + ", ".join(f"{o['student']} ({o['seconds']:.0f}s)" for o in slow))
    broken = sorted({r["student"] for r in rows if r["note"] in ("did not build", "stopped at the class cap",
                                                                 "no results")})
    if broken:
        print("did not build or did not finish: " + ", ".join(broken))
    unjudged = sorted({r["student"] for r in rows if r["late"].startswith(course.UNJUDGED)})
    late = [r for r in rows if r["late"] and not r["late"].startswith(course.UNJUDGED)]
    if late:
        print(f"late: {len(late)} submissions (the gradebook's late and final columns)")
    if unjudged:
        print(f"grade-class: warning: lateness not judged for {len(unjudged)} entr{'y' if len(unjudged) == 1 else 'ies'}, "
              f"whose files' times are not when they arrived (git clones, Canvas's download): "
              f"{', '.join(unjudged[:12])}{' ...' if len(unjudged) > 12 else ''}; give their arrival times, ARRIVALS=")
    if roster is not None:
        paths, unlisted = course.lms_exports(rows, roster, course_, manifests, OUT)
        print("LMS: " + ", ".join(shown(p_) for p_ in paths))
        if unlisted:
            print(f"grade-class: warning: not on the roster, so not in the LMS files: {', '.join(unlisted)}")
    import class_report  # noqa: E402  (grader/course/class_report.py)
    report = class_report.write(OUT, rows, outcomes, ref[0] if ref else None, manifests, backend, course_,
                                skipped, warnings)
    print(f"report: {shown(report)}")
    if args.similarity:
        import similarity  # noqa: E402  (grader/course/similarity.py)
        code = similarity.run(args.klass, lab_list, os.path.join(OUT, "similarity"), students=names)
        if code:
            return code
    for e, why in skipped:
        print(f"not graded: {e}: {why}")
    for _, w in warnings:
        print(f"warning: {w}")
    print(f"total {time.monotonic() - t0:.0f}s; gradebook: {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
