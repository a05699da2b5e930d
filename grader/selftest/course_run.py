"""Self-test checks of running a course: class grading takes whatever folder an instructor
has, deadlines come from when a submission arrived, the LMS files, the class report in a
browser, the leaderboard (Gradescope's field and the report's), and similarity with planted
copies. Registered by run.py; each raises run.CheckFailed.

The class is run.py's generated class of lab 01 (class_grading), with the entries planted
here: a hidden folder, two entries with one name, handins whose author field is a formula, a
FIFO, a stray file, and arrival times around a due date. Its one grade-class run (and the
Slurm run of the same class) feed every check below that reads build/class.

Why one file (past 800 lines): every check of running a course, around one planted class and its
outputs."""
import csv
import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from common import CheckFailed, ROOT, BUILD, sh, quick_lab01_manifests  # noqa: E402  (grader/selftest/common.py)
import grade  # noqa: E402

CLASS_OUT = os.path.join(ROOT, "build", "class", "lab01")  # a run of one lab: its own folder
DUE = datetime.datetime(2026, 3, 2, 23, 59, tzinfo=datetime.timezone.utc)
COURSE = f"""# the self-test's course
missing = "blank"

[late]
grace_days = 1
penalty_per_day = 0.25
max_late_days = 2

[[lab]]
lab = "01"
due = "{DUE.isoformat()}"
canvas_id = 4242

[[extension]]
student = "s01_solution"
lab = "01"
days = 3
"""
# Entries of the class and when they arrived, in hours after the due date; their expected
# penalty and the late column's start (or '' when on time).
ARRIVALS = {
    "s00_solution": (-5, 0.0, ""),                 # on time
    "s01_solution": (50, 0.0, ""),                 # 2 days late, but a 3-day extension
    "s02_solution": (20, 0.0, "20 h late, within the grace days"),
    "s03_solution": (30, 0.25, "1 d 6 h late: 1 day past the grace days, 25% off"),
    "s04_solution": (90, 1.0, "3 d 18 h late, past the last day"),
    "s28_solution": (40, 0.25, "1 d 16 h late: 1 day past"),   # a tarball whose insides say on time
}
FORMULAS = ['=HYPERLINK("http://example.invalid/","click")', "+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0"]
ROSTER = [("s00_solution", "Ada, Lovelace", "101", "SIS001", "ada", "A"),
          ("s03_solution", "=cmd|' /C calc'!A0", "103", "SIS003", "bob", "A"),
          ("s04_solution", "Curie, Marie", "104", "SIS004", "marie", "B"),
          ("s10_skeleton", "Dirac, Paul", "106", "SIS006", "paul", "B"),
          ("absent", "Euler, Leonhard", "199", "SIS099", "leo", "B")]


def _stamp(path, hours):
    t = (DUE + datetime.timedelta(hours=hours)).timestamp()
    for dirpath, dirnames, filenames in os.walk(path):
        for f in filenames:
            os.utime(os.path.join(dirpath, f), (t, t))
    os.utime(path, (t, t))


def backdate(tarball, when):
    """Rewrites a handin so that everything inside it says it was made at `when` (its members'
    times and HANDIN.json's date): what a student controls."""
    import io
    import tarfile
    members = []
    with tarfile.open(tarball) as tar:
        for m in tar.getmembers():
            data = tar.extractfile(m).read()
            if m.name == "HANDIN.json":
                info = json.loads(data)
                info["date"] = when.strftime("%Y-%m-%d %H:%M:%S %z")
                data = json.dumps(info).encode()
            members.append((m.name, data))
    with tarfile.open(tarball, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), int(when.timestamp()), 0o644
            tar.addfile(info, io.BytesIO(data))


def plant(folder):
    """Adds the entries this module checks to run.py's generated class; sets every entry's
    arrival time; writes the course file and the roster. Returns the expected scores of the
    students added (None: not graded)."""
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    expected = {}
    # a hidden folder is a student like any other
    os.makedirs(os.path.join(folder, ".hidden_student"))
    shutil.copy(sol, os.path.join(folder, ".hidden_student"))
    expected[".hidden_student"] = 15
    # a folder and a tarball of one name: both graded
    os.makedirs(os.path.join(folder, "twin"))
    shutil.copy(os.path.join(ROOT, "skeletons", "01-serial", "scan_serial.c"), os.path.join(folder, "twin"))
    expected["twin"] = 0
    stage = os.path.join(BUILD, "class-stage", "twin")
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(os.path.join(stage, "01-serial"))
    shutil.copy(sol, os.path.join(stage, "01-serial"))
    for i, name in enumerate(["twin"] + [f"s9{k}_formula" for k in range(len(FORMULAS))]):
        who = name if i == 0 else FORMULAS[i - 1]
        code, log = sh([sys.executable, "grader/course/kit.py", "handin", "--from", stage, "--out",
                        os.path.join(folder, name + ".tar.gz"), "--name", who])
        if code:
            raise CheckFailed("handin failed:\n" + log)
        expected["twin.tar.gz" if i == 0 else name] = 15
    # a folder whose name a spreadsheet would take for a formula
    os.makedirs(os.path.join(folder, "@SUM(1+1)"))
    shutil.copy(sol, os.path.join(folder, "@SUM(1+1)"))
    expected["'@SUM_1_1_"] = 15   # as the gradebook shows it: text, not a formula
    # what is no student: a FIFO named like a tarball, and a stray file
    os.mkfifo(os.path.join(folder, "pipe.tar.gz"))
    open(os.path.join(folder, "notes.txt"), "w").write("not a student\n")
    # arrival times: everyone on time, but for the cases above
    for e in os.listdir(folder):
        p = os.path.join(folder, e)
        if e != "pipe.tar.gz":
            _stamp(p, -48)
    backdate(os.path.join(folder, "s28_solution.tar.gz"), DUE - datetime.timedelta(hours=2))
    for e in os.listdir(folder):
        name = e[:-len(".tar.gz")] if e.endswith(".tar.gz") else e
        if name in ARRIVALS:
            _stamp(os.path.join(folder, e), ARRIVALS[name][0])
    open(os.path.join(BUILD, "course.toml"), "w").write(COURSE)
    with open(os.path.join(BUILD, "roster.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "name", "canvas_id", "sis_user_id", "login_id", "section"])
        w.writerows(ROSTER)
    return expected


def make_args():
    return [f"COURSE={os.path.join(BUILD, 'course.toml')}", f"ROSTER={os.path.join(BUILD, 'roster.csv')}"]


def check_run(out, book, expected):
    """What run.class_grading's one run must show beyond the scores (run.py calls it)."""
    bad = []
    for entry, why in (("pipe.tar.gz", "a FIFO"), ("notes.txt", "not a handin archive")):
        if not re.search(rf"not graded: {re.escape(entry)}: .*{why}", out):
            bad.append(f"{entry} was not listed as not graded, with the reason ({why})")
    if not re.search(r"warning: twin and twin\.tar\.gz are both student 'twin': both graded", out):
        bad.append("no warning that twin and twin.tar.gz are both student 'twin'")
    report = os.path.join(CLASS_OUT, "report.html")
    if not os.path.exists(report) or not re.search(r"<tr><td>twin\.tar\.gz</td><td>twin and twin\.tar\.gz are both",
                                                open(report, encoding="utf-8").read()):
        bad.append("the class report's row for twin.tar.gz does not name the entry")
    if "Traceback" in out:
        bad.append("a traceback: " + out[out.index("Traceback"):][:400])
    cells = [c for r in csv.reader(open(os.path.join(CLASS_OUT, "gradebook.csv"), newline="")) for c in r]
    live = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    if live:
        bad.append(f"cells a spreadsheet reads as formulas: {live[:3]}")
    for k, formula in enumerate(FORMULAS):
        row = book.get(f"s9{k}_formula")
        if row and row["handin_from"] != "'" + formula:
            bad.append(f"s9{k}_formula: handin_from {row['handin_from']!r}, expected the text '{formula}")
    for name, (hours, penalty, late) in ARRIVALS.items():
        row = book.get(name)
        if not row:
            bad.append(f"{name}: no row")
            continue
        want = round(int(row["score"]) * (1 - penalty), 2)
        if float(row["final"]) != want or not row["late"].startswith(late) or (not late and row["late"]):
            bad.append(f"{name} (arrived {hours:+} h): late {row['late']!r}, final {row['final']}; expected "
                       f"{late!r}..., final {want:g}")
    for name, row in book.items():
        if name not in ARRIVALS and row["late"]:
            bad.append(f"{name}: late {row['late']!r}, but it arrived on time")
    return bad


# ---- the LMS files ----------------------------------------------------------------------------

def lms_files():
    """canvas.csv as Canvas's gradebook import takes it (its five identity columns, a column
    named with the assignment's id, a Points Possible row, every roster student; one with no
    submission a missing grade), grades.csv the same for Moodle and Blackboard; no live formula."""
    path = os.path.join(CLASS_OUT, "canvas.csv")
    if not os.path.exists(path):
        raise CheckFailed("no build/class/canvas.csv: run the class grading check first")
    rows = list(csv.reader(open(path, newline="")))
    want_head = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 01: Serial scan (4242)"]
    bad = []
    if rows[0] != want_head:
        bad.append(f"header {rows[0]}, expected {want_head}")
    if rows[1] != ["Points Possible", "", "", "", "", "15"]:
        bad.append(f"second row {rows[1]}, expected the points possible")
    book = read_gradebook()
    body = {r[1]: r for r in rows[2:]}
    for student, name, cid, *_ in ROSTER:
        r = body.get(cid)
        if r is None:
            bad.append(f"roster student {student} ({cid}) has no row")
            continue
        want = "" if student == "absent" else book[student]["final"]
        if r[5] != want:
            bad.append(f"{student}: grade {r[5]!r}, expected {want!r} (the gradebook's final score"
                       + (", or a missing grade for no submission)" if student == "absent" else ")"))
        if r[0][:1] in "=+-@":
            bad.append(f"{student}: the name {r[0]!r} would be a formula")
    if len(rows) != 2 + len(ROSTER):
        bad.append(f"{len(rows) - 2} student rows for a roster of {len(ROSTER)}")
    plain = list(csv.DictReader(open(os.path.join(CLASS_OUT, "grades.csv"), newline="")))
    if [r["student"] for r in plain] != [r[0] for r in ROSTER] or plain[-1]["lab01"] != "" or \
            plain[0]["lab01"] != book["s00_solution"]["final"]:
        bad.append(f"grades.csv: {plain[:2]} ... {plain[-1:]}")
    if bad:
        raise CheckFailed("\n    ".join(["the LMS files:"] + bad))
    head = open(path).read().splitlines()[:4]
    return "canvas.csv: " + " | ".join(head)


# ---- FIFO as SUBMISSION ------------------------------------------------------------------------

def fifo_submission():
    """A FIFO, a character device or a socket given as SUBMISSION is refused in one line naming
    it, exit code 2, no traceback (grade.py used to block on, or trace back over, a FIFO)."""
    work = tempfile.mkdtemp(prefix="fifo-", dir=BUILD)
    try:
        fifo = os.path.join(work, "handin.tar.gz")
        os.mkfifo(fifo)
        import socket
        sock_path = os.path.join(work, "sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(sock_path)
        bad = []
        for path, what in ((fifo, "a FIFO"), ("/dev/zero", "a character device"), (sock_path, "a socket")):
            t0 = time.monotonic()
            code, out = sh([sys.executable, "grader/grading/grade.py", "--lab", "01", "--backend", "emu",
                            "--submission", path], timeout=60)
            lines = [x for x in out.splitlines() if x.strip()]
            if code != 2 or "Traceback" in out or len(lines) != 1 or what not in out or path not in out:
                bad.append(f"{what}: exit {code}, {len(lines)} lines: {out.strip()[:300]}")
            elif time.monotonic() - t0 > 20:
                bad.append(f"{what}: took {time.monotonic() - t0:.0f} s")
        s.close()
        if bad:
            raise CheckFailed("\n    ".join(["SUBMISSION that is no file or folder:"] + bad))
        return "a FIFO, /dev/zero and a socket each refused in one line"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def course_mistakes():
    """A mistake in the course file or the roster is an error naming the file and the key,
    before anything is graded."""
    folder = os.path.join(BUILD, "course-mistakes")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "class", "x"))
    cases = {
        "no UTC offset": (COURSE.replace("+00:00", ""), None, r"course\.toml: lab 01: due: .* has no UTC offset"),
        "unknown key": (COURSE.replace("grace_days", "grace_dayz"), None, r"course\.toml: \[late\]: unknown key 'grace_dayz'"),
        "no such lab": (COURSE.replace('lab = "01"\ndue', 'lab = "09"\ndue'), None, r"course\.toml: lab 09: the kit has no lab 09"),
        "penalty as percent": (COURSE.replace("0.25", "25"), None, r"'penalty_per_day' is a fraction"),
        "roster header": (COURSE, "who,name\nx,y\n", r"roster\.csv: the header must name 'student'"),
        "roster twice": (COURSE, "student,name\nx,y\nx,z\n", r"roster\.csv:3: student 'x' is on line 2 too"),
    }
    bad = []
    for label, (text, roster, want) in cases.items():
        open(os.path.join(folder, "course.toml"), "w").write(text)
        extra = []
        if roster:
            open(os.path.join(folder, "roster.csv"), "w").write(roster)
            extra = ["--roster", os.path.join(folder, "roster.csv")]
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", os.path.join(folder, "class"),
                        "--lab", "01", "--backend", "emu", "--out", os.path.join(folder, "out"),
                        "--course", os.path.join(folder, "course.toml")] + extra)
        if code != 2 or not re.search(want, out) or "Traceback" in out or "graded" in out:
            bad.append(f"{label}: exit {code}, expected /{want}/: {out.strip()[:300]}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return f"{len(cases)} mistakes refused with the file and the key"


def class_entry_names():
    """Entries an instructor's folder may hold, named to hurt: a folder called gradebook.csv, a
    tarball called ...tar.gz (student '..'), "anne marie" with an extension and a roster row, a
    link to another student's folder and one to the class folder's parent. The run ends with a
    gradebook and a report; nothing is written outside the class's output folder; "anne marie"
    keeps her extension and her Canvas cell; the links are refused, each with its reason; the
    folder called gradebook.csv is graded, under a name of its own, with a warning. One fast
    test a student (inc_example of lab 01)."""
    folder = os.path.join(BUILD, "class-names")
    shutil.rmtree(folder, ignore_errors=True)
    klass, out_dir, outer = os.path.join(folder, "class"), os.path.join(folder, "out", "class"), \
        os.path.join(folder, "out")
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    for name in ("gradebook.csv", "anne marie", "bob"):
        os.makedirs(os.path.join(klass, name, "01-serial"))
        shutil.copy(sol, os.path.join(klass, name, "01-serial"))
    stage = os.path.join(folder, "stage")
    os.makedirs(os.path.join(stage, "01-serial"))
    shutil.copy(sol, os.path.join(stage, "01-serial"))
    code, log = sh([sys.executable, "grader/course/kit.py", "handin", "--from", stage, "--out",
                    os.path.join(klass, "...tar.gz"), "--name", "dots"])
    if code:
        raise CheckFailed("kit.py handin failed:\n" + log[-800:])
    os.symlink(os.path.join(klass, "bob"), os.path.join(klass, "carol"))
    os.symlink(folder, os.path.join(klass, "up"))
    late = DUE + datetime.timedelta(hours=50)  # 2 days late: within anne marie's 3-day extension
    for entry in ("anne marie", "bob"):
        os.utime(os.path.join(klass, entry, "01-serial", "scan_serial.c"), (late.timestamp(), late.timestamp()))
    open(os.path.join(folder, "course.toml"), "w").write(COURSE.replace('student = "s01_solution"',
                                                                         'student = "anne marie"'))
    open(os.path.join(folder, "roster.csv"), "w").write("student,name,canvas_id\nanne marie,\"Marie, Anne\",301\n"
                                                         "bob,\"Bob, B\",302\n")
    before = set(os.listdir(outer)) if os.path.isdir(outer) else set()
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--test", "inc_example",
                    "--backend", "emu", "--out", out_dir, "--no-reference",
                    "--course", os.path.join(folder, "course.toml"), "--roster", os.path.join(folder, "roster.csv")],
                   env={"NO_COLOR": "1"})
    bad = []
    book = os.path.join(out_dir, "gradebook.csv")
    if code or "Traceback" in out or not os.path.isfile(book) or not os.path.isfile(os.path.join(out_dir, "report.html")):
        raise CheckFailed(f"grade-class exit {code}, gradebook {os.path.isfile(book)}:\n" + out[-1500:])
    rows = {r["student"]: r for r in csv.DictReader(open(book, encoding="utf-8"))}
    want = {"gradebook.csv-student", "anne_marie", "bob", "_.."}
    if set(rows) != want:
        bad.append(f"gradebook students {sorted(rows)}, expected {sorted(want)}")
    stray = set(os.listdir(outer)) - before - {"class"}
    if stray:
        bad.append(f"written outside the class's output folder: {sorted(stray)}")
    am, bob = rows.get("anne_marie", {}), rows.get("bob", {})
    if am.get("late") or am.get("final") != am.get("score"):
        bad.append(f"anne marie lost her extension: late '{am.get('late')}', final {am.get('final')}")
    if not bob.get("late"):
        bad.append(f"bob, 50 h late without an extension, is not late: {bob}")
    canvas = list(csv.reader(open(os.path.join(out_dir, "canvas.csv"), encoding="utf-8")))
    cells = {r[0]: r[5] for r in canvas[2:]}
    if cells.get("Marie, Anne") != str(am.get("final")):
        bad.append(f"anne marie's Canvas cell is '{cells.get('Marie, Anne')}', her final score {am.get('final')}")
    for entry, why in (("carol", r"a link to bob, another entry of the class: not graded"),
                       ("up", r"a link into the class folder or above it"),
                       ("gradebook.csv", r"named like a file of the class run: graded as 'gradebook\.csv-student'")):
        if not re.search(rf"{re.escape(entry)}.*{why}", out):
            bad.append(f"no line for {entry} matching /{why}/")
    # the rerun's key reads the files the grader reads, not the folder: 2,000 sparse files of
    # 1 MiB beside bob's code change nothing and cost no reading
    sys.path.insert(0, os.path.join(ROOT, "grader", "course"))
    import grade_class  # noqa: E402
    key = grade_class.content_key(os.path.join(klass, "bob"), ["01"], "emu")
    junk = os.path.join(klass, "bob", "data")
    os.makedirs(junk)
    for i in range(2000):
        with open(os.path.join(junk, f"{i}.bin"), "wb") as f:
            f.truncate(1 << 20)
    t0 = time.monotonic()
    if grade_class.content_key(os.path.join(klass, "bob"), ["01"], "emu") != key:
        bad.append("2,000 files beside bob's code changed his rerun key")
    if time.monotonic() - t0 > 2:
        bad.append(f"bob's rerun key took {time.monotonic() - t0:.1f} s with 2,000 files beside his code")
    if bad:
        raise CheckFailed("\n    ".join(bad + ["the run's output ends:", out[-1200:]]))
    return (f"{len(rows)} students graded ({', '.join(sorted(rows))}); links refused with their reason; "
            f"anne marie on time by her extension, in Canvas with {cells.get('Marie, Anne')}")


def regrade_one_student():
    """Regrading one student touches that student's row only. A class of three (alice and carol
    hand in the solution, bob the skeleton: one fast test of lab 01), graded; bob fixes his code
    and carol breaks hers; STUDENT=bob regrades bob alone: his row and Canvas cell change, carol's
    stay as graded (her change waits for a run without STUDENT=). Then a folder holding only
    alice, graded into the same output (the regrade that once wrote a gradebook of one row and
    blank Canvas cells for the rest): bob and carol keep their rows and cells, and a line names
    them. STUDENT= a name the class lacks is an error that suggests the nearest."""
    folder = os.path.join(BUILD, "class-regrade")
    shutil.rmtree(folder, ignore_errors=True)
    klass, out_dir = os.path.join(folder, "class"), os.path.join(folder, "out")
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    skel = os.path.join(ROOT, "skeletons", "01-serial", "scan_serial.c")
    for name, src in (("alice", sol), ("bob", skel), ("carol", sol)):
        os.makedirs(os.path.join(klass, name, "01-serial"))
        shutil.copy(src, os.path.join(klass, name, "01-serial"))
    roster = os.path.join(folder, "roster.csv")
    open(roster, "w").write("student,name,canvas_id\nalice,\"A, Alice\",1\nbob,\"B, Bob\",2\ncarol,\"C, Carol\",3\n")

    def run(klass_, *more):
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass_, "--lab", "01", "--test",
                        "inc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--roster", roster]
                       + list(more), env={"NO_COLOR": "1"})
        if code or "Traceback" in out:
            raise CheckFailed(f"grade-class exit {code}:\n" + out[-1500:])
        rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))}
        cells = {r[0]: r[5] for r in list(csv.reader(open(os.path.join(out_dir, "canvas.csv"), encoding="utf-8")))[2:]}
        return out, rows, cells

    bad = []
    _, first, cells0 = run(klass)
    full = first.get("alice", {}).get("score")
    if not full or full == "0" or first.get("bob", {}).get("score") != "0" or first.get("carol", {}).get("score") != full:
        raise CheckFailed(f"the first run: {first}")
    shutil.copy(sol, os.path.join(klass, "bob", "01-serial"))
    shutil.copy(skel, os.path.join(klass, "carol", "01-serial"))
    out, rows, cells = run(klass, "--student", "bob")
    if rows.get("bob", {}).get("score") != full or cells.get("B, Bob") != full:
        bad.append(f"STUDENT=bob: bob's row {rows.get('bob')}, Canvas cell {cells.get('B, Bob')!r} (expected {full})")
    for name, who in (("alice", "A, Alice"), ("carol", "C, Carol")):
        if rows.get(name) != first.get(name) or cells.get(who) != cells0.get(who):
            bad.append(f"STUDENT=bob changed {name}'s row: {first.get(name)} -> {rows.get(name)}")
    if "1 to grade" not in out or "only that student regraded" not in out:
        bad.append("STUDENT=bob: the run does not say it grades bob alone:\n" + out[:600])
    alone = os.path.join(folder, "alice-only")
    shutil.copytree(os.path.join(klass, "alice"), os.path.join(alone, "alice"))
    out, rows2, cells2 = run(alone, "--regrade")
    for name, who in (("bob", "B, Bob"), ("carol", "C, Carol")):
        if rows2.get(name) != rows.get(name) or cells2.get(who) != cells.get(who):
            bad.append(f"a CLASS of alice alone dropped or changed {name}: {rows.get(name)} -> {rows2.get(name)}, "
                       f"Canvas {cells.get(who)!r} -> {cells2.get(who)!r}")
    if not re.search(r"kept 2 student\(s\) graded into .* earlier that .* does not hold: bob, carol", out):
        bad.append("a CLASS of alice alone: no line names the students kept from earlier:\n" + out[:800])
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--backend", "emu",
                    "--out", out_dir, "--no-reference", "--student", "bobb"], env={"NO_COLOR": "1"})
    if code != 2 or "STUDENT= names no entry" not in out or "did you mean bob" not in out:
        bad.append(f"STUDENT=bobb: exit {code}, expected 2 with a hint: {out[-300:]}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return (f"STUDENT=bob: his row {full}/{rows['bob']['max']}, alice's and carol's as before (carol's change "
            f"unseen); a CLASS of alice alone keeps bob and carol; STUDENT=bobb refused with a hint")


# ---- arrival times from a source the student cannot write ------------------------------------

CLASSROOM_HEADER = ("assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,"
                    "student_repository_name,student_repository_url,submission_timestamp,points_awarded,"
                    "points_available")


def classroom_arrivals():
    """GitHub Classroom's repositories, cloned after the deadline, carry the clone's file times:
    an on-time student was once "13 d late, past the last day": 0. Now a clone's arrival is
    unknown (said, no penalty) until ARRIVALS= gives it: GitHub Classroom's grades export, or a
    student,time file whose "*" row is the time the repositories were collected. A class of four
    (two clones, alice on time and bob a day and an hour late by the export; carol's and dave's
    plain folders on time and two weeks late by their files), lab 01 due two weeks ago."""
    folder = os.path.join(BUILD, "class-arrivals")
    shutil.rmtree(folder, ignore_errors=True)
    klass, out_dir = os.path.join(folder, "class"), os.path.join(folder, "out")
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    due = now - datetime.timedelta(days=14)
    for name in ("lab01-alice", "lab01-bob", "carol", "dave"):
        os.makedirs(os.path.join(klass, name, "01-serial"))
        shutil.copy(sol, os.path.join(klass, name, "01-serial"))
        if name.startswith("lab01-"):  # a clone: a .git folder, its files as git checked them out now
            os.makedirs(os.path.join(klass, name, ".git"))
            open(os.path.join(klass, name, ".git", "HEAD"), "w").write("ref: refs/heads/main\n")
    early = (due - datetime.timedelta(hours=3)).timestamp()
    os.utime(os.path.join(klass, "carol", "01-serial", "scan_serial.c"), (early, early))
    course_file = os.path.join(folder, "course.toml")
    open(course_file, "w").write(f'[late]\npenalty_per_day = 0.25\nmax_late_days = 3\n\n[[lab]]\nlab = "01"\n'
                                 f'due = "{due.isoformat()}"\n')
    stamp = lambda t: t.strftime("%Y-%m-%d %H:%M:%S UTC")  # noqa: E731  (the export's form)
    export = os.path.join(folder, "grades.csv")
    open(export, "w").write(
        CLASSROOM_HEADER + "\n" +
        f"lab01,u,s,alice,alice@uni.edu,lab01-alice,https://github.com/org/lab01-alice,"
        f"{stamp(due - datetime.timedelta(hours=1))},0,15\n" +
        f"lab01,u,s,bob,bob@uni.edu,lab01-bob,https://github.com/org/lab01-bob,"
        f"{stamp(due + datetime.timedelta(days=1, hours=1))},0,15\n")
    collected = os.path.join(folder, "collected.csv")
    open(collected, "w").write(f"student,time\n*,{(due - datetime.timedelta(minutes=5)).isoformat()}\n")

    def run(*more):
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--test",
                        "inc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--course",
                        course_file] + list(more), env={"NO_COLOR": "1"})
        if code or "Traceback" in out:
            raise CheckFailed(f"grade-class {' '.join(more)}: exit {code}:\n" + out[-1500:])
        return {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))}

    bad = []

    def expect(rows, name, final, late, how):
        r = rows.get(name, {})
        if r.get("final") != final or not re.search(late, r.get("late", "")):
            bad.append(f"{how}: {name} final {r.get('final')!r}, late {r.get('late')!r}; expected {final}, /{late}/")
    rows = run()
    full = rows.get("carol", {}).get("score")
    for name in ("lab01-alice", "lab01-bob"):
        expect(rows, name, full, r"^arrival unknown, not judged: a git clone", "no ARRIVALS")
    expect(rows, "carol", full, r"^$", "no ARRIVALS")
    expect(rows, "dave", "0", r"past the last day", "no ARRIVALS")
    rows = run("--arrivals", export)
    expect(rows, "lab01-alice", full, r"^$", "GitHub Classroom's export")
    expect(rows, "lab01-bob", f"{int(full) * 0.5:g}" if full else None, r"1 d 1 h late: 2 days", "GitHub Classroom's export")
    expect(rows, "dave", "0", r"past the last day", "GitHub Classroom's export")
    rows = run("--arrivals", collected)
    for name in ("lab01-alice", "lab01-bob", "dave"):
        expect(rows, name, full, r"^$", "collected at the deadline (*)")
    broken = os.path.join(folder, "broken.csv")
    open(broken, "w").write("student,time\nalice,yesterday\n")
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--backend", "emu",
                    "--out", out_dir, "--no-reference", "--course", course_file, "--arrivals", broken])
    if code != 2 or "broken.csv:2: time: 'yesterday' is not a date and time" not in out:
        bad.append(f"an arrivals file with a bad time: exit {code}, expected 2 naming the file and line: {out[-300:]}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return (f"no ARRIVALS: the clones {full}/{rows['carol']['max']}, arrival unknown (said), dave's folder 0; "
            f"Classroom's export: alice on time, bob 50% off; collected at the deadline: all on time; a bad time "
            f"refused with its line")


def every_entry_counted():
    """Every entry handed in for a lab gets a score, or a stated reason, in the gradebook and the
    LMS files. A class of lab 01 (its roster has the five): a zip (refused as "not a handin
    tarball"), a GitHub Classroom folder lab01-scan-carol (off the roster, so a blank Canvas
    cell), an empty folder and one with the file misnamed (blank cells: "missing"), and
    josé_núñez. Now the zip is graded, the Classroom folder is the roster's carol, the empty and
    misnamed ones score 0 "handed in without scan_serial.c", and every Canvas cell is filled."""
    import zipfile
    folder = os.path.join(BUILD, "class-every-entry")
    shutil.rmtree(folder, ignore_errors=True)
    klass, out_dir = os.path.join(folder, "class"), os.path.join(folder, "out")
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    for name, file in (("josé_núñez", "scan_serial.c"), ("lab01-scan-carol", "scan_serial.c"), ("wrongname", "scan.c")):
        os.makedirs(os.path.join(klass, name, "01-serial"))
        shutil.copy(sol, os.path.join(klass, name, "01-serial", file))
    os.makedirs(os.path.join(klass, "lab01-scan-carol", ".git"))  # GitHub Classroom's clone
    open(os.path.join(klass, "lab01-scan-carol", ".git", "HEAD"), "w").write("ref: refs/heads/main\n")
    os.makedirs(os.path.join(klass, "empty"))
    with zipfile.ZipFile(os.path.join(klass, "zed.zip"), "w") as z:
        z.write(sol, "01-serial/scan_serial.c")
    roster = os.path.join(folder, "roster.csv")
    open(roster, "w", encoding="utf-8").write(
        'student,name,canvas_id\njosé_núñez,"Núñez, José",1\ncarol,"C, Carol",2\nzed,"Z, Zed",3\n'
        'empty,"E, Em",4\nwrongname,"W, Wr",5\n')
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--test",
                    "inc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--roster", roster],
                   env={"NO_COLOR": "1"})
    if code not in (0, 1) or "Traceback" in out:
        raise CheckFailed(f"grade-class exit {code}:\n" + out[-1500:])
    rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))}
    cells = {r[0]: r[5] for r in list(csv.reader(open(os.path.join(out_dir, "canvas.csv"), encoding="utf-8")))[2:]}
    want_cells = {"Núñez, José": "1", "C, Carol": "1", "Z, Zed": "1", "E, Em": "0", "W, Wr": "0"}
    bad = [f"Canvas {who}: {cells.get(who)!r}, expected {v}" for who, v in want_cells.items() if cells.get(who) != v]
    for name in ("empty", "wrongname"):
        if rows.get(name, {}).get("note") != "handed in without scan_serial.c":
            bad.append(f"gradebook {name}: note {rows.get(name, {}).get('note')!r}, expected the reason")
    if "not graded" in out:
        bad.append("an entry was not graded: " + [x for x in out.splitlines() if "not graded" in x][0])
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return "5 entries, 5 Canvas cells: a zip and a Classroom folder graded, 2 handed in without the file at 0, José kept"


def hold_and_release():
    """Tests a course holds back (a manifest's visibility: after_published) stay out of what
    grade-class writes for students until RELEASE=1: the LMS files carried their points
    (Canvas 2 of 2 where students should see 1 of 1), and nothing was written for students at
    all. Now canvas.csv counts the tests not held, each student's feedback.txt names none of
    the held ones, and the gradebook (the course staff's) keeps every point and names what is
    held; RELEASE=1 puts them in. Lab 01's two example tests, exc_example held; a solution and
    a skeleton."""
    folder = os.path.join(BUILD, "class-hold")
    shutil.rmtree(folder, ignore_errors=True)
    klass, out_dir, manifests = (os.path.join(folder, x) for x in ("class", "out", "manifests"))
    os.makedirs(manifests)
    for f in os.listdir(os.path.join(ROOT, "grader", "manifests")):
        if f.endswith(".toml"):
            shutil.copy(os.path.join(ROOT, "grader", "manifests", f), manifests)
    lab01 = open(os.path.join(manifests, "lab01.toml")).read()
    held = 'name = "exc_example"\ntitle = "exclusive scan of the worked example"\npoints = 1\n'
    if held not in lab01:
        raise CheckFailed("self-test fixture: lab01.toml's exc_example is not as expected")
    open(os.path.join(manifests, "lab01.toml"), "w").write(lab01.replace(held, held + 'visibility = "after_published"\n'))
    for name, base in (("sol", "solutions"), ("skel", "skeletons")):
        os.makedirs(os.path.join(klass, name, "01-serial"))
        shutil.copy(os.path.join(ROOT, base, "01-serial", "scan_serial.c"), os.path.join(klass, name, "01-serial"))
    roster = os.path.join(folder, "roster.csv")
    open(roster, "w").write('student,name,canvas_id\nsol,"S, Sol",1\nskel,"K, Skel",2\n')

    def run(*more):
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--test",
                        "inc_example,exc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--roster",
                        roster] + list(more), env={"NO_COLOR": "1", "SCANLAB_MANIFESTS": manifests})
        if code not in (0, 1) or "Traceback" in out:
            raise CheckFailed(f"grade-class exit {code}:\n" + out[-1500:])
        canvas = list(csv.reader(open(os.path.join(out_dir, "canvas.csv"), encoding="utf-8")))
        rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))}
        feedback = {n: open(os.path.join(out_dir, n, "feedback.txt")).read()
                    if os.path.exists(os.path.join(out_dir, n, "feedback.txt")) else None for n in ("sol", "skel")}
        return out, canvas, rows, feedback

    bad = []
    out, canvas, rows, feedback = run()
    if canvas[1][5] != "1" or {r[0]: r[5] for r in canvas[2:]} != {"S, Sol": "1", "K, Skel": "0"}:
        bad.append(f"held: Canvas {canvas[1:]}, expected 1 possible, Sol 1, Skel 0")
    for n, text in feedback.items():
        if text is None or "exc_example" in text or "inc_example" not in text:
            bad.append(f"held: {n}'s feedback.txt {'is missing' if text is None else 'names the held test'}: {text!r}")
    if rows.get("sol", {}).get("score") != "2" or rows.get("sol", {}).get("held") != "exc_example":
        bad.append(f"held: the gradebook should keep every point and name the held test: {rows.get('sol')}")
    if "held until RELEASE=1: exc_example" not in out:
        bad.append("held: the run does not say what it holds")
    out, canvas, rows, feedback = run("--release")
    if canvas[1][5] != "2" or {r[0]: r[5] for r in canvas[2:]} != {"S, Sol": "2", "K, Skel": "0"}:
        bad.append(f"released: Canvas {canvas[1:]}, expected 2 possible, Sol 2, Skel 0")
    if "exc_example: FAIL" not in (feedback.get("skel") or ""):
        bad.append(f"released: skel's feedback.txt lacks the released test: {feedback.get('skel')!r}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return "held: Canvas 1 of 1, feedback without exc_example, the gradebook 2 of 2; RELEASE=1: Canvas 2 of 2, feedback with it"


def course_gradebook():
    """Labs in folders of their own and one gradebook across them: a run of one lab writes
    build/class/labNN/ (LAB=01 used to overwrite LAB=02's build/class/), and course.csv beside
    the labs' folders gathers each student's final score per lab and the total. Two students,
    labs 01 and 02 (one test each), graded in two runs into lab01/ and lab02/ of one folder."""
    folder = os.path.join(BUILD, "class-course")
    shutil.rmtree(folder, ignore_errors=True)
    klass, top = os.path.join(folder, "class"), os.path.join(folder, "out")
    for name, base in (("ann", "solutions"), ("ben", "skeletons")):
        for lab, file in (("01-serial", "scan_serial.c"), ("02-kogge-stone", "kogge_stone.cu")):
            os.makedirs(os.path.join(klass, name, lab), exist_ok=True)
            shutil.copy(os.path.join(ROOT, base, lab, file), os.path.join(klass, name, lab))
    for lab, test in (("01", "inc_example"), ("02", "ks_example")):
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", lab, "--test", test,
                        "--backend", "emu", "--out", os.path.join(top, f"lab{lab}"), "--no-reference"],
                       env={"NO_COLOR": "1"})
        if code not in (0, 1) or "Traceback" in out:
            raise CheckFailed(f"grade-class LAB={lab}: exit {code}:\n" + out[-1500:])
    book = os.path.join(top, "course.csv")
    rows = {r["student"]: r for r in csv.DictReader(open(book, encoding="utf-8"))} if os.path.exists(book) else {}
    want = {"ann": {"lab01": "1", "lab02": "1", "total": "2"}, "ben": {"lab01": "0", "lab02": "0", "total": "0"}}
    got = {n: {k: rows.get(n, {}).get(k) for k in ("lab01", "lab02", "total")} for n in want}
    if got != want:
        raise CheckFailed(f"course.csv {got}, expected {want}")
    for lab in ("01", "02"):
        if not os.path.exists(os.path.join(top, f"lab{lab}", "gradebook.csv")):
            raise CheckFailed(f"lab {lab}'s folder has no gradebook")
    return "lab01/ and lab02/ each with their gradebook; course.csv: ann 1 + 1 = 2, ben 0"


def report_small_points():
    """The smaller points of a term's grading, on a class of three for lab 02 (two solutions, one
    that does not compile) graded into a folder outside the kit, its course due at -05:00:
    the report's "most common failure" of every test read "does not compile" (now counted apart);
    its leaderboard ranked students whose emu figures are all equal (now said in one line); the
    gradebook showed arrival in UTC beside the due date at -05:00 (now both at -05:00); and the
    run printed its paths as ../../../tmp/... (now whole)."""
    folder = tempfile.mkdtemp(prefix="scanlab-report-points-")
    try:
        klass, out_dir = os.path.join(folder, "class"), os.path.join(folder, "out")
        rel = "02-kogge-stone/kogge_stone.cu"
        src = open(os.path.join(ROOT, "solutions", rel)).read()
        broken = src.replace("/* STUDENT-BEGIN(lab02) */", "/* STUDENT-BEGIN(lab02) */\n  this is not C;", 1)
        for name, text in (("amy", src), ("bo", src), ("cy", broken)):
            os.makedirs(os.path.join(klass, name, "02-kogge-stone"))
            open(os.path.join(klass, name, rel), "w").write(text)
        due = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=-5))).replace(microsecond=0) + \
            datetime.timedelta(days=1)
        course_file = os.path.join(folder, "course.toml")
        open(course_file, "w").write(f'[[lab]]\nlab = "02"\ndue = "{due.isoformat()}"\n')
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "02", "--test",
                        "ks_example,timing", "--backend", "emu", "--out", out_dir, "--no-reference", "--course",
                        course_file], env={"NO_COLOR": "1"})
        if code not in (0, 1) or "Traceback" in out:
            raise CheckFailed(f"grade-class exit {code}:\n" + out[-1500:])
        bad = []
        page = open(os.path.join(out_dir, "report.html"), encoding="utf-8").read()
        row = re.search(r"<tr><td title=\"[^\"]*\">ks_example</td>.*?</tr>", page)
        if not row or "does not compile" in row.group(0) or "1 whose code did not build" not in row.group(0):
            bad.append(f"the report's ks_example row: {row.group(0)[-300:] if row else 'none'}")
        if not re.search(r"timing: all 2 students at 8\.01 .*the model does not rank them", page):
            bad.append("the report ranks two equal emu figures instead of saying they are equal")
        rows = list(csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8")))
        offsets = {(r["arrived"][-6:], r["due"][-6:]) for r in rows if r["arrived"]}
        if offsets != {("-05:00", "-05:00")}:
            bad.append(f"arrival and due not in one offset: {offsets}")
        if "../" in out:
            bad.append("a path printed as a climb: " + [x for x in out.splitlines() if "../" in x][0])
        if bad:
            raise CheckFailed("\n    ".join(bad))
        return ("the compile error counted apart, equal emu figures said in one line, arrival and due at -05:00, "
                "paths whole")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def canvas_download():
    """Canvas's Download Submissions (a flat folder, or its zip, of files renamed
    SORTABLENAME[_LATE]_USERID_ATTACHMENTID_FILENAME) graded 0 students and exited 0. Now each
    student is a folder made from it: named by the roster's canvas_id, the latest upload of a
    name taken (Canvas's scan_serial-1.c), Canvas's late flag said, the download's file times
    not taken for arrival times. Jane hands in the solution; Bob the skeleton, then (late) the
    solution; Lee a file misnamed, and is off the roster; two students named Wang Li, off the
    roster, one with make handin's tarball and again (handin-1.tar.gz), kept apart by user id."""
    import zipfile
    folder = os.path.join(BUILD, "class-canvas")
    shutil.rmtree(folder, ignore_errors=True)
    klass = os.path.join(folder, "submissions")
    os.makedirs(klass)
    sol = os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")
    skel = os.path.join(ROOT, "skeletons", "01-serial", "scan_serial.c")
    for name, src in (("doejane_123_456_scan_serial.c", sol), ("smithbob_late_124_457_scan_serial.c", skel),
                      ("smithbob_late_124_460_scan_serial-1.c", sol), ("leeann_125_458_scan.c", sol),
                      ("wangli_128_463_scan_serial.c", skel)):
        shutil.copy(src, os.path.join(klass, name))
    # a second Wang Li, who handed in make handin's tarball, then again (Canvas: handin-1.tar.gz)
    code, out = sh([sys.executable, "grader/course/kit.py", "handin", "--from", "skeletons", "--out",
                    os.path.join(klass, "wangli_127_461_handin.tar.gz"), "--name", "wang li"])
    code2, out2 = sh([sys.executable, "grader/course/kit.py", "handin", "--from", "solutions", "--out",
                      os.path.join(klass, "wangli_127_462_handin-1.tar.gz"), "--name", "wang li"])
    if code or code2:
        raise CheckFailed("make handin failed:\n" + out + out2)
    with zipfile.ZipFile(os.path.join(folder, "submissions.zip"), "w") as z:
        for name in sorted(os.listdir(klass)):
            z.write(os.path.join(klass, name), name)
    roster = os.path.join(folder, "roster.csv")
    open(roster, "w").write('student,name,canvas_id\njane,"Doe, Jane",123\nbob,"Smith, Bob",124\n')
    open(os.path.join(folder, "course.toml"), "w").write(COURSE)
    bad, seen = [], []
    for form in ("submissions", "submissions.zip"):
        out_dir = os.path.join(folder, "out-" + form.replace(".", "-"))
        code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", os.path.join(folder, form), "--lab",
                        "01", "--test", "inc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--roster",
                        roster, "--course", os.path.join(folder, "course.toml")], env={"NO_COLOR": "1"})
        if code not in (0, 1) or "Traceback" in out:
            bad.append(f"{form}: grade-class exit {code}:\n" + out[-800:])
            continue
        rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))}
        cells = {r[0]: r[5] for r in list(csv.reader(open(os.path.join(out_dir, "canvas.csv"), encoding="utf-8")))[2:]}
        want = {"jane": "1", "bob": "1", "leeann": "0", "wangli-127": "1", "wangli-128": "0"}
        got = {n: rows.get(n, {}).get("score") for n in want}
        if got != want or cells != {"Doe, Jane": "1", "Smith, Bob": "1"}:
            bad.append(f"{form}: scores {got} (expected {want}), Canvas {cells}")
        if "Canvas marked it late" not in rows.get("bob", {}).get("late", ""):
            bad.append(f"{form}: bob's late column {rows.get('bob', {}).get('late')!r} does not say Canvas marked it late")
        if rows.get("leeann", {}).get("note") != "handed in without scan_serial.c":
            bad.append(f"{form}: leeann's note {rows.get('leeann', {}).get('note')!r}")
        seen.append(form)
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return ("the folder and its zip: 5 students (jane and bob by canvas_id, two Wang Lis by user id), the later "
            "upload graded (a file, a handin-1.tar.gz), Canvas's late flag said, lee's misnamed file 0 with the reason")


def one_deadline_everywhere():
    """The same deadline wherever a student is graded. On Gradescope the zip applied the course
    file's due date, not the assignment's there, nor a student's extension there (30 h after
    the course file's date: 25% off, where Gradescope's own date made it on time); in grade-class
    an extension written for a student's e-mail (as Gradescope knows students) was not found
    under the folder's name (20% off). Now Gradescope's due date, and a user's own where the
    metadata has one, rule there, and grade-class finds a student by the roster's e-mail, login
    and SIS id too. The Gradescope half runs run_autograder's lateness step on a results.json."""
    folder = os.path.join(BUILD, "one-deadline")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    course_file = os.path.join(folder, "course.toml")
    open(course_file, "w").write(COURSE)
    raw = {"score": 15, "max_score": 15, "output": "", "tests": [
        {"name": "lab01 inc_example: x", "score": 15, "max_score": 15, "status": "passed", "output": ""}]}
    made = DUE + datetime.timedelta(hours=30)
    bad, seen = [], []
    for label, assignment, user in (
            ("the course file's date alone", {}, {}),
            ("Gradescope's due date, two days later", {"due_date": (DUE + datetime.timedelta(days=2)).isoformat()}, {}),
            ("an extension on Gradescope", {"due_date": DUE.isoformat()},
             {"assignment": {"due_date": (DUE + datetime.timedelta(days=3)).isoformat()}})):
        results, meta = os.path.join(folder, "results.json"), os.path.join(folder, "meta.json")
        json.dump(raw, open(results, "w"))
        json.dump({"created_at": made.isoformat(), "assignment": assignment,
                   "users": [dict({"email": "student@example.edu", "id": 1, "name": "A Student"}, **user)]},
                  open(meta, "w"))
        code, out = sh([sys.executable, "grader/course/course.py", "gradescope", "--results", results, "--metadata", meta,
                        "--course", course_file])
        got = json.load(open(results))
        want = 11.25 if not assignment else 15
        if code or got.get("score") != want:
            bad.append(f"{label}: score {got.get('score')}, expected {want}: {got.get('output', '')[-300:]}")
        seen.append(f"{label} {got.get('score')}")
    klass, out_dir = os.path.join(folder, "class"), os.path.join(folder, "out")
    os.makedirs(os.path.join(klass, "dave", "01-serial"))
    shutil.copy(os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c"), os.path.join(klass, "dave", "01-serial"))
    late = (DUE + datetime.timedelta(hours=30)).timestamp()
    os.utime(os.path.join(klass, "dave", "01-serial", "scan_serial.c"), (late, late))
    open(os.path.join(folder, "course-ext.toml"), "w").write(
        COURSE + '\n[[extension]]\nstudent = "dave@uni.edu"\nlab = "01"\ndays = 2\n')
    roster = os.path.join(folder, "roster.csv")
    open(roster, "w").write("student,name,email\ndave,\"D, Dave\",dave@uni.edu\n")
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", klass, "--lab", "01", "--test",
                    "inc_example", "--backend", "emu", "--out", out_dir, "--no-reference", "--course",
                    os.path.join(folder, "course-ext.toml"), "--roster", roster], env={"NO_COLOR": "1"})
    rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv"), encoding="utf-8"))} \
        if not code else {}
    dave = rows.get("dave", {})
    if code or dave.get("late") or dave.get("final") != dave.get("score"):
        bad.append(f"grade-class, an extension by e-mail: exit {code}, dave {dave}: {out[-300:]}")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return "; ".join(seen) + f"; grade-class: dave's extension by e-mail applies ({dave.get('final')}/{dave.get('max')})"


# ---- the class of lab 01, graded with one command, locally and through Slurm ----------------

def make_class(folder):
    """A class of 15 students for lab 01 (numbered from a plan of 30), by kind: the expected score (None: partial) of each."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    sol = open(os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")).read()
    skel = open(os.path.join(ROOT, "skeletons", "01-serial", "scan_serial.c")).read()
    loop = "  for (size_t i = 0; i < n; i++) {\n    op(acc, acc, src"
    kinds = {
        "solution": (sol, 15), "skeleton": (skel, 0),
        "off_by_one": (sol.replace(loop, loop.replace("i < n", "i + 1 < n")), None),
        "compile_error": (sol.replace(loop, "  this is not C;\n" + loop), 0),
        "hang": (sol.replace(loop, "  volatile int spin = n == 100003;\n  while (spin) {}\n" + loop), None),
    }
    plan = ([("solution", "lab")] * 4 + [("solution", "flat")] * 3 + [("solution", "kit")] * 3 +
            [("skeleton", "lab")] * 6 + [("off_by_one", "flat")] * 4 + [("compile_error", "lab")] * 3 +
            [("hang", "flat")] + [("solution", "wrong_layout")] * 2 + [("solution", "handin_in_folder")] * 2 +
            [("solution", "tarball")] * 2)
    # Every kind and layout, two of a kind where scores are compared between students; the
    # numbers keep their places (course_run.py's deadlines and roster name s00-s04, s10, s28).
    keep = {0, 1, 2, 3, 4, 7, 10, 11, 16, 17, 20, 23, 24, 26, 28}
    expected = {}
    for i, (kind, layout) in enumerate(plan):
        if i not in keep:
            continue
        name = f"s{i:02d}_{kind}"
        text, score = kinds[kind]
        rel = {"lab": "01-serial/scan_serial.c", "flat": "scan_serial.c",
               "kit": "scanlab/skeletons/01-serial/scan_serial.c", "wrong_layout": "lab1/serial.c"}.get(layout)
        if rel:
            os.makedirs(os.path.join(folder, name, os.path.dirname(rel)), exist_ok=True)
            open(os.path.join(folder, name, rel), "w").write(text)
        else:
            stage = os.path.join(BUILD, "class-stage", name)
            shutil.rmtree(stage, ignore_errors=True)
            os.makedirs(os.path.join(stage, "01-serial"))
            open(os.path.join(stage, "01-serial", "scan_serial.c"), "w").write(text)
            if layout == "tarball":
                out = os.path.join(folder, name + ".tar.gz")
            else:
                out = os.path.join(folder, name, "handin.tar.gz")
            code, log = sh([sys.executable, "grader/course/kit.py", "handin", "--from", stage, "--out", out, "--name", name])
            if code:
                raise CheckFailed("handin failed:\n" + log)
        expected[name] = 0 if layout == "wrong_layout" else score
    return expected


def read_gradebook():
    import csv
    with open(os.path.join(CLASS_OUT, "gradebook.csv")) as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def failed_tests(student):
    """What a student's results say of each test that lost points (its output, shortened), for a
    check's failure message: '' where there are none or no results."""
    try:
        tests = json.load(open(os.path.join(CLASS_OUT, student, "results.json")))["tests"]
    except (OSError, ValueError, KeyError):
        return ""
    lines = [f"\n        {t.get('name', '?')}: {' '.join(str(t.get('output', '')).split())[:400]}"
             for t in tests if t.get("score", 0) != t.get("max_score", 0)]
    return "".join(lines)


def class_grading():
    """15 generated students (and the course checks' planted ones) graded with one command, in parallel; every score right, none
    taken from another; the run no longer than the one-job time over the jobs, plus the
    slowest student; a rerun grades nothing."""
    folder = os.path.join(BUILD, "class")
    expected = make_class(folder)
    expected.update(plant(folder))
    t0 = time.monotonic()
    code, out = sh(["make", "--no-print-directory", "grade-class", f"CLASS={folder}", "LAB=01", "REGRADE=1",
                    "BACKEND=emu"] + make_args(), env=dict(quick_lab01_manifests(), NO_COLOR="1"))
    wall = time.monotonic() - t0
    if code:
        raise CheckFailed("make grade-class failed:\n" + out[-2000:])
    book = read_gradebook()
    bad = []
    partial = {}
    for name, score in expected.items():
        row = book.get(name)
        if row is None:
            bad.append(f"{name}: not in the gradebook")
        elif score is not None and int(row["score"]) != score:
            bad.append(f"{name}: {row['score']}/{row['max']}, expected {score}{failed_tests(name)}")
        elif score is None:
            partial.setdefault(name.split("_", 1)[1], set()).add(row["score"])
            if not 0 < int(row["score"]) < 15:
                bad.append(f"{name}: {row['score']}/{row['max']}, expected a partial score")
        if row and row["max"] != "15":
            bad.append(f"{name}: out of {row['max']}, not 15")
    bad += [f"students of kind {k} scored differently: {v}" for k, v in partial.items() if len(v) > 1]
    bad += check_run(out, book, expected)
    if len(book) != len(expected):
        bad.append(f"{len(book)} students in the gradebook, {len(expected)} graded: "
                   f"{sorted(set(book) ^ set(expected))}")
    seconds = [float(r["seconds"]) for r in book.values()]
    jobs = os.cpu_count() or 1
    bound = sum(seconds) / jobs + max(seconds) + 15  # + the kit's checks and the summary
    if wall > bound:
        bad.append(f"took {wall:.0f}s, more than {sum(seconds):.0f}s / {jobs} jobs + {max(seconds):.0f}s")
    code, again = sh(["make", "--no-print-directory", "grade-class", f"CLASS={folder}", "LAB=01", "BACKEND=emu"]
                     + make_args(), env=quick_lab01_manifests())
    if "0 to grade" not in again:
        bad.append("a rerun graded again: " + again.splitlines()[0])
    if bad:
        raise CheckFailed("\n    ".join(["class grading:"] + bad))
    return f"{len(book)} students in {wall:.0f}s (one job: {sum(seconds):.0f}s; slowest {max(seconds):.0f}s)"


def class_grading_slurm():
    """The same class through a one-node Slurm cluster started here: the same gradebook, LMS
    files and class report (less grading times and lab 01's CPU timings)."""
    import slurm  # noqa: E402
    why = slurm.available()
    if why:
        return f"skipped: {why}"
    folder = os.path.join(BUILD, "class")
    if not os.path.exists(os.path.join(CLASS_OUT, "gradebook.csv")):
        class_grading()
    local = read_gradebook()
    local_files = comparable(CLASS_OUT)
    with slurm.Cluster() as cluster:
        code, out = sh(["make", "--no-print-directory", "grade-class", f"CLASS={folder}", "LAB=01", "REGRADE=1",
                        "BACKEND=emu", "RUNNER=slurm", "JOBS=3"] + make_args(),
                       env=dict(cluster.env, NO_COLOR="1", **quick_lab01_manifests()))
    if code:
        raise CheckFailed("grade-class through Slurm failed:\n" + out[-2000:])
    remote = read_gradebook()
    keys = ("score", "max", "tests_failed", "handin_from", "note", "arrived", "due", "late", "final")
    diff = [f"{n}: local {[local[n][k] for k in keys]}, slurm {[remote.get(n, {}).get(k) for k in keys]}"
            for n in local if any(local[n][k] != remote.get(n, {}).get(k) for k in keys)]
    if diff or len(remote) != len(local):
        raise CheckFailed("\n    ".join(["the Slurm gradebook differs:"] + diff[:10]))
    remote_files = comparable(CLASS_OUT)
    for part in ("files", "report"):
        if local_files[part] != remote_files[part]:
            what = [k for k in local_files[part] if local_files[part][k] != remote_files[part].get(k)]
            raise CheckFailed(f"the Slurm run's {part} differ from the local run's: {what}")
    return f"{len(remote)} students through sbatch --array: the same gradebook, LMS files and report"


# ---- Gradescope: lateness from created_at, the leaderboard field ----------------------------------

def class_gradescope():
    """The class graded a third way: the lab 01 autograder zip (built with the class's course
    file), given each student's files as uploaded and Gradescope's metadata (the submission's
    time, the student's name), gives the final grade the local run gave: on time, within the
    grace day, 25% off, past the last day, an extension, a skeleton, a partial score."""
    if not os.path.exists(os.path.join(CLASS_OUT, "gradebook.csv")):
        class_grading()
    local = read_gradebook()
    folder = os.path.join(BUILD, "class")
    work = tempfile.mkdtemp(prefix="gradescope-class-", dir=BUILD)
    try:
        import zipfile
        zpath = os.path.join(work, "autograder.zip")
        code, out = sh([sys.executable, "grader/course/kit.py", "autograder", "--lab", "01", "--out", zpath,
                        "--course", os.path.join(BUILD, "course.toml")])
        if code:
            raise CheckFailed("make autograder COURSE=... failed:\n" + out[-1500:])
        with zipfile.ZipFile(zpath) as z:
            z.extractall(os.path.join(work, "source"))
        os.chmod(os.path.join(work, "source", "run_autograder"), 0o755)
        partial = sorted(n for n in local if n.endswith("_off_by_one"))[:1]
        skeleton = sorted(n for n in local if n.endswith("_skeleton"))[:1]
        chosen = [n for n in ("s00_solution", "s01_solution", "s02_solution", "s03_solution", "s04_solution")] + \
            partial + skeleton
        bad, seen = [], []
        for name in chosen:
            entry = os.path.join(folder, name)
            if name not in local or not os.path.isdir(entry):
                bad.append(f"{name}: not in the class")
                continue
            sub = os.path.join(work, "submission")
            shutil.rmtree(sub, ignore_errors=True)
            shutil.copytree(entry, sub)
            hours = ARRIVALS.get(name, (-5,))[0]
            json.dump({"created_at": (DUE + datetime.timedelta(hours=hours)).isoformat(),
                       "users": [{"email": f"{name}@example.edu", "id": 1, "name": name}],
                       "assignment": {"due_date": DUE.isoformat()}}, open(os.path.join(work, "submission_metadata.json"), "w"))
            code, out = sh([os.path.join(work, "source", "run_autograder")],
                           env=dict(quick_lab01_manifests(), AUTOGRADER_ROOT=work))
            got = json.load(open(os.path.join(work, "results", "results.json"))).get("score")
            if got is None or abs(float(got) - float(local[name]["final"])) > 1e-6:
                bad.append(f"{name}: Gradescope {got}, the local run {local[name]['final']}")
            seen.append(f"{name} {got}")
        if bad:
            raise CheckFailed("\n    ".join(["the Gradescope zip and the local run disagree:"] + bad))
        return f"{len(seen)} students, the same final grades: " + ", ".join(seen)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def gradescope_course():
    """The lab 01 autograder built with a course file: a submission Gradescope says was made 30
    hours after the due date loses 25% (one day past the grace day), although its HANDIN.json
    says it was made on time; results.json carries the leaderboard field (lab 01's timing, a
    real CPU timing as a fraction of memcpy)."""
    work = tempfile.mkdtemp(prefix="gradescope-course-", dir=BUILD)
    try:
        import zipfile
        zpath = os.path.join(work, "autograder.zip")
        open(os.path.join(work, "course.toml"), "w").write(COURSE)
        code, out = sh([sys.executable, "grader/course/kit.py", "autograder", "--lab", "01", "--out", zpath,
                        "--course", os.path.join(work, "course.toml")])
        if code:
            raise CheckFailed("make autograder COURSE=... failed:\n" + out)
        src = os.path.join(work, "source")
        with zipfile.ZipFile(zpath) as z:
            z.extractall(src)
        os.chmod(os.path.join(src, "run_autograder"), 0o755)
        sub = os.path.join(work, "submission")
        os.makedirs(sub)
        code, log = sh([sys.executable, "grader/course/kit.py", "handin", "--from", "solutions", "--out",
                        os.path.join(sub, "handin.tar.gz"), "--name", "student@example.edu"])
        backdate(os.path.join(sub, "handin.tar.gz"), DUE - datetime.timedelta(hours=2))
        late = DUE + datetime.timedelta(hours=30)
        json.dump({"created_at": late.isoformat(timespec="microseconds"),
                   "users": [{"email": "student@example.edu", "id": 1, "name": "A Student"}],
                   "assignment": {"due_date": DUE.isoformat()}},
                  open(os.path.join(work, "submission_metadata.json"), "w"))
        code, out = sh([os.path.join(src, "run_autograder")], env=dict(quick_lab01_manifests(), AUTOGRADER_ROOT=work))
        data = json.load(open(os.path.join(work, "results", "results.json")))
        bad = []
        if data.get("score") != 11.25 or data.get("max_score") != 15:
            bad.append(f"score {data.get('score')}/{data.get('max_score')}, expected 11.25/15 (15 less 25%)")
        if "1 day past the grace days, 25% off" not in data.get("output", ""):
            bad.append("the output does not say why: " + data.get("output", "")[-300:])
        board = data.get("leaderboard") or []
        if not board or not re.match(r"lab01 timing: fraction of memcpy", board[0]["name"]) or \
                not 0 < board[0]["value"] < 10 or board[0].get("order", "desc") != "desc":
            bad.append(f"leaderboard field: {board}")
        if bad:
            raise CheckFailed("\n    ".join(["Gradescope with a course file:"] + bad + [out[-800:]]))
        return f"score {data['score']}/15 from created_at +30 h; leaderboard {board}"
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- the leaderboard on the emu: a small class of lab 02's timing test -------------------------

EMU_OUT = os.path.join(BUILD, "class-emu")


def _lab02_class():
    folder = os.path.join(BUILD, "class-lab02")
    shutil.rmtree(folder, ignore_errors=True)
    sol = open(os.path.join(ROOT, "solutions", "02-kogge-stone", "kogge_stone.cu")).read()
    # ben: slower on both backends, whatever the compiler does. Each tile is scanned by one
    # thread (a correct scan, many times slower on a GPU), and every element is stored twice
    # through a volatile pointer (more bytes moved on the emu; nvcc may not merge the stores).
    loop = ("  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {\n"
            "    dst[t] = t >= offset ? src[t - offset] + src[t] : src[t];")
    serial = ("  if (t == 0)\n    for (unsigned k = 1; k < blockDim.x; ++k) src[k] += src[k - 1];\n"
              "  __syncthreads();\n"
              "  for (unsigned offset = blockDim.x; offset < blockDim.x; offset *= 2) {\n"
              "    dst[t] = src[t];")
    store = "  if (i < n) out[i] = src[t];"
    twice = sol.replace(loop, serial).replace(store, "  if (i < n) ((volatile int *)out)[i] = 0;\n" + store)
    if sol.count(loop) != 1 or sol.count(store) != 1:
        raise CheckFailed("self-test fixture: lab 02's double-buffered kernel is not as expected")
    for name, text in (("ana", sol), ("ben", twice), ("cai", sol),
                       ("dee", open(os.path.join(ROOT, "skeletons", "02-kogge-stone", "kogge_stone.cu")).read())):
        os.makedirs(os.path.join(folder, name))
        open(os.path.join(folder, name, "kogge_stone.cu"), "w").write(text)
    return folder


def gpu_leaderboard():
    """`make check-gpu`: the same class of four through lab 02's timing test on the GPU: each
    results.json's leaderboard field holds the fraction of copy (higher is better), the report
    plots the class's fractions with the reference solution's marked, and the leaderboard puts
    fastest first; the one that scans each tile in one thread fails the threshold and has no
    place on it."""
    folder = _lab02_class()
    out_dir = os.path.join(BUILD, "class-gpu")
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", folder, "--lab", "02", "--test", "timing",
                    "--backend", "cuda", "--out", out_dir, "--regrade", "--jobs", "1"], env={"NO_COLOR": "1"})
    if code:
        raise CheckFailed("grade-class of lab 02's timing test on the GPU failed:\n" + out[-1500:])
    boards = {s: json.load(open(os.path.join(out_dir, s, "results.json"))).get("leaderboard") for s in "ana ben cai dee".split()}
    bad = []
    want = "lab02 timing: fraction of copy (higher is better)"
    for s in ("ana", "cai"):
        b = boards[s]
        if not b or b[0]["name"] != want or not 0.2 < b[0]["value"] < 1.5 or "order" in b[0]:
            bad.append(f"{s} (the solution): leaderboard {b}")
    if boards["dee"]:
        bad.append(f"dee (the skeleton): leaderboard {boards['dee']}, expected none")
    data = report_data(os.path.join(out_dir, "report.html"))
    timing = (data.get("labs") or [{}])[0].get("timing") or []
    if not timing:  # no figure at all (a solution below the threshold, as lab 02's on an H200)
        raise CheckFailed("\n    ".join(bad + ["the report has no timing data for lab 02"]))
    tm = timing[0]
    if tm["kind"] != "timed" or not tm["reference"] or len(tm["leaderboard"]) < 2:
        bad.append(f"the report's timing data: {tm}")
    # ben scans each tile in one thread: far below the threshold, so a failed test and no place
    ben = [t for t in json.load(open(os.path.join(out_dir, "ben", "results.json"))).get("tests", [])
           if t["name"].startswith("lab02 timing")]
    why = ben[0].get("output", "") if ben else ""
    if boards["ben"] or not ben or ben[0]["status"] != "failed" or \
            not re.search(r"reached 0\.\d+ of copy bandwidth; the threshold is", why):
        bad.append(f"ben (each tile scanned in one thread): expected a failed timing test below the threshold "
                   f"and no leaderboard entry, got {boards['ben']} and {why[:200]!r}")
    board = [v for _, v in tm["leaderboard"]]
    if board != sorted(board, reverse=True):
        bad.append(f"the report's leaderboard is not fastest first: {tm['leaderboard']}")
    if bad:
        raise CheckFailed("\n    ".join(["the GPU leaderboard:"] + bad))
    return "leaderboard: " + ", ".join(f"{n} {v}" for n, v in tm["leaderboard"]) + f"; reference {tm['reference']}"


def emu_leaderboard():
    """Lab 02's timing test across a class of four on the emu: the solution, the solution
    scanned in one thread and stored twice per element (more bytes moved), a copy of the solution and the skeleton (no
    figure). results.json's leaderboard and the report's show the emu's bytes moved per
    element, labelled as a model, fewest first, the reference marked."""
    folder = _lab02_class()
    code, out = sh([sys.executable, "grader/course/grade_class.py", "--class", folder, "--lab", "02", "--test", "timing",
                    "--backend", "emu", "--out", EMU_OUT, "--regrade"], env={"NO_COLOR": "1"})
    if code:
        raise CheckFailed("grade-class of lab 02's timing test failed:\n" + out[-1500:])
    bad = []
    boards = {}
    for s in ("ana", "ben", "cai", "dee"):
        boards[s] = json.load(open(os.path.join(EMU_OUT, s, "results.json"))).get("leaderboard")
    want = "lab02 timing: emu model, bytes per element (lower is better; a model, not a timing)"
    for s in ("ana", "cai"):
        if boards[s] != [{"name": want, "value": 8.01, "order": "asc"}]:
            bad.append(f"{s} (the solution): leaderboard {boards[s]}")
    if not boards["ben"] or boards["ben"][0]["value"] <= 10:
        bad.append(f"ben (every element stored twice): leaderboard {boards['ben']}, expected more than 10 bytes")
    if boards["dee"]:
        bad.append(f"dee (the skeleton, wrong output): leaderboard {boards['dee']}, expected none")
    data = report_data(os.path.join(EMU_OUT, "report.html"))
    tm = data["labs"][0]["timing"][0]
    board = [v for _, v in tm["leaderboard"]]
    if tm["kind"] != "model" or tm["reference"] != 8.01 or board != sorted(board) or len(board) != 3:
        bad.append(f"the report's timing data: {tm}")
    page = open(os.path.join(EMU_OUT, "report.html")).read()
    if "emu model: bytes per element (a model, not a timing)" not in page or "ana" in tm["leaderboard"][0][0]:
        bad.append("the report's plot is not labelled as a model, or shows names instead of pseudonyms")
    if bad:
        raise CheckFailed("\n    ".join(["the emu leaderboard:"] + bad))
    return "leaderboard (pseudonyms): " + ", ".join(f"{n} {v}" for n, v in tm["leaderboard"]) + \
        f"; reference {tm['reference']} bytes per element"


# ---- the class report in a browser ------------------------------------------------------------------

def report_data(path):
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', open(path).read(), re.S)
    if not m:
        raise CheckFailed(f"{path}: no embedded report data")
    return json.loads(m.group(1).replace("<\\/", "</"))


PROBE = """<script>
window.__scanlab = [];
window.addEventListener('error', function (e) { __scanlab.push('uncaught error: ' + e.message); }, true);
(function () { var ce = console.error; console.error = function () {
  __scanlab.push('console error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); }; })();
window.addEventListener('load', function () { setTimeout(function () {
  var out = {problems: __scanlab, figures: 0, texts: 0, smallest: 99, width: document.documentElement.scrollWidth};
  document.querySelectorAll('svg').forEach(function (svg, k) {
    var r = svg.getBoundingClientRect(); out.figures++;
    if (r.right > window.innerWidth + 1) out.problems.push('figure ' + k + ' wider than the window');
    var boxes = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var b = t.getBoundingClientRect(); out.texts++;
      var px = parseFloat(getComputedStyle(t).fontSize) * r.width / svg.viewBox.baseVal.width;
      out.smallest = Math.min(out.smallest, px);
      if (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1)
        out.problems.push('figure ' + k + ': text outside its figure: ' + t.textContent);
      boxes.forEach(function (o) {
        var w = Math.min(b.right, o[0].right) - Math.max(b.left, o[0].left);
        var h = Math.min(b.bottom, o[0].bottom) - Math.max(b.top, o[0].top);
        if (w > 1 && h > 1) out.problems.push('figure ' + k + ': "' + t.textContent + '" overlaps "' + o[1] + '"');
      });
      boxes.push([b, t.textContent]);
    });
  });
  var d = document.createElement('pre'); d.id = 'scanlab-probe'; d.textContent = JSON.stringify(out);
  document.body.appendChild(d);
}, 200); });
</script>"""
MIN_PX = 11


def chromium(args, timeout=120):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        raise CheckFailed("chromium is not installed (grader/deps.sh check installs it)")
    profile = tempfile.mkdtemp(prefix="chromium-", dir=BUILD)
    try:
        return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", "--no-first-run",
                               "--user-data-dir=" + profile, "--window-size=1280,900"] + args,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def report_in_browser():
    """build/class/report.html (the generated class) and the emu leaderboard class's report,
    each opened in headless Chromium at 1280 px: no console error, no request to anywhere,
    every figure inside the window, its text at least 11 px and no two texts overlapping; the
    page shows what a course's staff look for (scores, pass rates with the common failure, the
    timing plot with the reference, the leaderboard, grading times, the late list, the entries
    not graded). Screenshots: build/selftest/report-*.png."""
    bad, said = [], []
    import class_report  # noqa: E402  (grader/course/class_report.py)
    # The figures of a timed lab depend on the machine's measurements, so one run may not meet
    # an axis whose last tick has a wide label: a page of such figures is measured too (a label
    # "0.125" centred under the last tick once ran past the figure's edge).
    edges = os.path.join(BUILD, "report-edges")
    os.makedirs(edges, exist_ok=True)
    open(os.path.join(edges, "report.html"), "w").write(
        "<!DOCTYPE html><html><head><meta charset=utf-8></head><body>" +
        class_report.histogram([0.01, 0.06, 0.12], 0, 0.125, 5, "a histogram up to 0.125", "fraction") +
        class_report.histogram([0.0125, 0.05], 0.0125, 0.0625, 4, "one from 0.0125", "fraction") +
        class_report.strip([0.047, 0.09, 0.118, 0.12], 0.088, "dots to 0.12", "fraction", True) +
        class_report.strip([1.0125, 1.1], 1.05, "dots from 1.0125", "bytes", False) + "</body></html>")
    for tag, out_dir in (("class", CLASS_OUT), ("emu", EMU_OUT), ("edges", edges)):
        path = os.path.join(out_dir, "report.html")
        if not os.path.exists(path):
            raise CheckFailed(f"{path} is missing: run the class grading and emu leaderboard checks first")
        text = open(path).read()
        if re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text) or "<link" in text:
            bad.append(f"{tag}: the page loads something from elsewhere")
        work = tempfile.mkdtemp(prefix="report-", dir=BUILD)
        try:
            copy = os.path.join(work, "report.html")
            open(copy, "w").write(text.replace("<head>", "<head>" + PROBE, 1))
            dom = chromium(["--virtual-time-budget=3000", "--dump-dom", "file://" + copy]).stdout.decode(errors="replace")
            m = re.search(r'<pre id="scanlab-probe">(.*?)</pre>', dom, re.S)
            if not m:
                bad.append(f"{tag}: the page did not finish loading")
                continue
            data = json.loads(html.unescape(m.group(1)))
            bad += [f"{tag}: {p}" for p in data["problems"]]
            if data["smallest"] < MIN_PX:
                bad.append(f"{tag}: the smallest text in a figure is {data['smallest']:.1f} px (at least {MIN_PX})")
            if data["width"] > 1280:
                bad.append(f"{tag}: the page is {data['width']} px wide at a 1280 px window")
            shot = os.path.join(BUILD, f"report-{tag}.png")
            chromium(["--window-size=1280,2400", "--screenshot=" + shot, "file://" + path])
            if not os.path.exists(shot):
                bad.append(f"{tag}: no screenshot")
            said.append(f"{tag}: {data['figures']} figures, {data['texts']} texts, smallest {data['smallest']:.1f} px")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    page = open(os.path.join(CLASS_OUT, "report.html")).read()
    for what, pattern in (("the score distribution", r"Lab 01: scores"), ("pass rates", r"\d+/\d+ \(\d+%\)"),
                          ("a common failure reason", r"\d+&times;: scanIncSerial"),
                          ("the timing plot with the reference", r"reference \d"),
                          ("the leaderboard", r"<h3>Leaderboard</h3>"),
                          ("grading times", r"Time to grade one student"),
                          ("the late list", r"Late submissions \(4\)"),
                          ("the entries not graded", r"pipe\.tar\.gz</td><td>not graded: a FIFO")):
        if not re.search(pattern, page):
            bad.append(f"class: the page does not show {what} (/{pattern}/)")
    data = report_data(os.path.join(CLASS_OUT, "report.html"))
    lab = data["labs"][0]
    if sorted(lab["scores"]) != sorted(int(r["score"]) for r in read_gradebook().values()):
        bad.append("class: the report's scores are not the gradebook's")
    if bad:
        raise CheckFailed(f"{len(bad)} problems:\n    " + "\n    ".join(bad[:30]))
    return "; ".join(said) + "; screenshots build/selftest/report-class.png, report-emu.png, report-edges.png"


def comparable(out_dir):
    """The files a class run writes, less what changes from one run to the next (grading times,
    and lab 01's real CPU timings): for comparing a local run with a Slurm run."""
    data = report_data(os.path.join(out_dir, "report.html"))
    data.pop("seconds")
    for lab in data["labs"]:
        for t in lab["tests"]:  # a timed call's input comes from a seed drawn at random: its example's numbers vary
            if t.get("timing") and t.get("reason"):
                t["reason"] = re.sub(r"-?\d+", "N", t["reason"])
        for tm in lab["timing"]:
            if tm["kind"] == "timed":
                tm["values"] = sorted(tm["values"])
                tm["leaderboard"] = sorted(n for n, _ in tm["leaderboard"])
                tm["reference"] = tm["reference"] is not None
    files = {f: open(os.path.join(out_dir, f)).read() for f in ("canvas.csv", "grades.csv", "pseudonyms.csv")}
    book = [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(open(os.path.join(out_dir, "gradebook.csv")))]
    return {"report": data, "files": files, "gradebook": book}


# ---- similarity ----------------------------------------------------------------------------------

# Lab 05's scan-then-propagate (regions 2 to 5 of global_scan.cu: scanTilesKernel's body,
# addOffsetsKernel's body, the host helpers, propagate's body), written five ways, as five
# students would; the planted copies take one of them and rename, reorder and recomment it.
HONEST = {
    "h0_ref": None,  # the reference solution's own regions
    "h1_iter": ("""  __shared__ int32_t warpSums[GS_WARP];
  const size_t tileStart = (size_t)blockIdx.x * GS_PROPAGATE_TILE;
  const size_t mine = tileStart + (size_t)threadIdx.x * GS_PROPAGATE_ITEMS;
  int32_t items[GS_PROPAGATE_ITEMS];
  int32_t local = 0;
  for (int j = 0; j < GS_PROPAGATE_ITEMS; ++j) {
    const size_t idx = mine + j;
    items[j] = (idx < n) ? in[idx] : 0;
    local += items[j];
  }
  int32_t blockTotal = 0;
  const int32_t before = scanIncBlock(local, warpSums, &blockTotal) - local;
  int32_t acc = before;
  for (int j = 0; j < GS_PROPAGATE_ITEMS; ++j) {
    const int32_t old = acc;
    acc += items[j];
    if (mine + j < n) out[mine + j] = EXCLUSIVE ? old : acc;
  }
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = blockTotal;
""", """  const size_t start = (size_t)blockIdx.x * GS_PROPAGATE_TILE;
  const size_t stop = start + GS_PROPAGATE_TILE < n ? start + GS_PROPAGATE_TILE : n;
  if (blockIdx.x > 0)
    for (size_t idx = start + threadIdx.x; idx < stop; idx += GS_PROPAGATE_THREADS) out[idx] += offsets[blockIdx.x];
""", """#define MAX_LEVELS 8
static size_t roundUp4(size_t x) { return (x + 3) & ~(size_t)3; }
""", """  if (!n) return;
  size_t count[MAX_LEVELS], at[MAX_LEVELS];
  int depth = 0;
  size_t total = 0, len = n;
  while (true) {
    const size_t t = (len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE;
    count[depth] = len;
    at[depth] = total;
    total += roundUp4(t);
    depth++;
    if (t == 1) break;
    len = t;
  }
  int32_t *buf = (int32_t *)gsReserve(&g_sums, total * sizeof(int32_t));
  for (int d = 0; d < depth; ++d) {
    const int32_t *src = d == 0 ? in : buf + at[d - 1];
    int32_t *dst = d == 0 ? out : buf + at[d - 1];
    const unsigned blocks = (unsigned)((count[d] + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE);
    if (d == 0 && !EXCLUSIVE)
      scanTilesKernel<false><<<blocks, GS_PROPAGATE_THREADS>>>(src, dst, count[d], buf + at[d]);
    else
      scanTilesKernel<true><<<blocks, GS_PROPAGATE_THREADS>>>(src, dst, count[d], buf + at[d]);
    CUDA_CHECK_LAUNCH();
  }
  for (int d = depth - 2; d >= 0; --d) {
    int32_t *target = d == 0 ? out : buf + at[d - 1];
    const unsigned blocks = (unsigned)((count[d] + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE);
    addOffsetsKernel<<<blocks, GS_PROPAGATE_THREADS>>>(target, count[d], buf + at[d]);
    CUDA_CHECK_LAUNCH();
  }
"""),
    "h2_staged": ("""  __shared__ int32_t s_partial[GS_WARP];
  __shared__ int32_t s_stage[GS_PROPAGATE_TILE];
  const size_t base = (size_t)blockIdx.x * GS_PROPAGATE_TILE;
  for (unsigned k = threadIdx.x; k < GS_PROPAGATE_TILE; k += blockDim.x)
    s_stage[k] = base + k < n ? in[base + k] : 0;
  __syncthreads();
  int32_t *mineP = s_stage + threadIdx.x * GS_PROPAGATE_ITEMS;
  for (int k = 1; k < GS_PROPAGATE_ITEMS; k++) mineP[k] += mineP[k - 1];
  int32_t sumAll;
  int32_t offset = scanIncBlock(mineP[GS_PROPAGATE_ITEMS - 1], s_partial, &sumAll)
                   - mineP[GS_PROPAGATE_ITEMS - 1];
  int32_t prev = offset;
  for (int k = 0; k < GS_PROPAGATE_ITEMS; k++) {
    int32_t incl = mineP[k] + offset;
    mineP[k] = EXCLUSIVE ? prev : incl;
    prev = incl;
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < GS_PROPAGATE_TILE; k += blockDim.x)
    if (base + k < n) out[base + k] = s_stage[k];
  if (threadIdx.x == blockDim.x - 1) tile_sums[blockIdx.x] = sumAll;
""", """  __shared__ int32_t add;
  if (threadIdx.x == 0) add = blockIdx.x ? offsets[blockIdx.x] : 0;
  __syncthreads();
  for (unsigned k = 0; k < GS_PROPAGATE_ITEMS; k++) {
    size_t where = (size_t)blockIdx.x * GS_PROPAGATE_TILE + k * blockDim.x + threadIdx.x;
    if (where < n && add) out[where] = out[where] + add;
  }
""", """static unsigned numTiles(size_t n) { return (unsigned)((n + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE); }

static size_t scratchNeeded(size_t n) {
  size_t tiles = numTiles(n);
  return tiles <= 1 ? 4 : (tiles + 3) / 4 * 4 + scratchNeeded(tiles);
}

template <bool EXC>
static void scanLevel(const int32_t *src, int32_t *dst, size_t n, int32_t *sums) {
  const unsigned tiles = numTiles(n);
  scanTilesKernel<EXC><<<tiles, GS_PROPAGATE_THREADS>>>(src, dst, n, sums);
  CUDA_CHECK_LAUNCH();
  if (tiles == 1) return;
  scanLevel<true>(sums, sums, tiles, sums + (tiles + 3) / 4 * 4);
  addOffsetsKernel<<<tiles, GS_PROPAGATE_THREADS>>>(dst, n, sums);
  CUDA_CHECK_LAUNCH();
}
""", """  if (n > 0)
    scanLevel<EXCLUSIVE>(in, out, n, (int32_t *)gsReserve(&g_sums, scratchNeeded(n) * sizeof(int32_t)));
"""),
    "h3_struct": ("""  __shared__ int32_t scratchpad[GS_WARP];
  int32_t vals[GS_PROPAGATE_ITEMS];
  size_t pos = ((size_t)blockIdx.x * GS_PROPAGATE_THREADS + threadIdx.x) * GS_PROPAGATE_ITEMS;
  int32_t own = 0;
  #pragma unroll
  for (int q = 0; q < GS_PROPAGATE_ITEMS; q++) own += (vals[q] = pos + q < n ? in[pos + q] : 0);
  int32_t tileSum = 0;
  int32_t incl = scanIncBlock(own, scratchpad, &tileSum);
  int32_t running = incl - own;
  #pragma unroll
  for (int q = 0; q < GS_PROPAGATE_ITEMS; q++) {
    if (pos + q < n) out[pos + q] = running + (EXCLUSIVE ? 0 : vals[q]);
    running += vals[q];
  }
  if (!threadIdx.x) tile_sums[blockIdx.x] = tileSum;
""", """  if (blockIdx.x == 0) return;
  int32_t shift = offsets[blockIdx.x];
  size_t i = (size_t)blockIdx.x * GS_PROPAGATE_TILE + threadIdx.x;
  for (int q = 0; q < GS_PROPAGATE_ITEMS && i < n; q++, i += GS_PROPAGATE_THREADS) out[i] += shift;
""", """typedef struct {
  const int32_t *src;
  int32_t *dst;
  size_t len;
  int32_t *totals;
} level_t;

static void runLevels(level_t *lv, int levels, bool exclusive) {
  for (int k = 0; k < levels; k++) {
    unsigned g = (unsigned)((lv[k].len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE);
    if (exclusive || k > 0) scanTilesKernel<true><<<g, GS_PROPAGATE_THREADS>>>(lv[k].src, lv[k].dst, lv[k].len, lv[k].totals);
    else scanTilesKernel<false><<<g, GS_PROPAGATE_THREADS>>>(lv[k].src, lv[k].dst, lv[k].len, lv[k].totals);
    CUDA_CHECK_LAUNCH();
  }
  for (int k = levels - 2; k >= 0; k--) {
    unsigned g = (unsigned)((lv[k].len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE);
    addOffsetsKernel<<<g, GS_PROPAGATE_THREADS>>>(lv[k].dst, lv[k].len, lv[k].totals);
    CUDA_CHECK_LAUNCH();
  }
}
""", """  if (n == 0) return;
  level_t lv[12];
  int levels = 0;
  size_t ints = 0;
  for (size_t len = n;; len = (len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE) {
    lv[levels].len = len;
    levels++;
    ints += ((len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE + 3) / 4 * 4;
    if (len <= GS_PROPAGATE_TILE) break;
  }
  int32_t *mem = (int32_t *)gsReserve(&g_sums, ints * sizeof(int32_t));
  for (int k = 0; k < levels; k++) {
    lv[k].totals = k ? lv[k - 1].totals + ((lv[k - 1].len + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE + 3) / 4 * 4 : mem;
    lv[k].src = k ? lv[k - 1].totals : in;
    lv[k].dst = k ? lv[k - 1].totals : out;
  }
  runLevels(lv, levels, EXCLUSIVE);
"""),
    "h4_loops": ("""  __shared__ int32_t tmp[GS_WARP];
  const unsigned tid = threadIdx.x;
  const size_t first = ((size_t)blockIdx.x * GS_PROPAGATE_THREADS + tid) * GS_PROPAGATE_ITEMS;
  int32_t x[GS_PROPAGATE_ITEMS];
  for (int k = 0; k < GS_PROPAGATE_ITEMS; k++) x[k] = first + k < n ? in[first + k] : 0;
  for (int k = 1; k < GS_PROPAGATE_ITEMS; k++) x[k] += x[k - 1];
  int32_t whole;
  const int32_t carry = scanIncBlock(x[GS_PROPAGATE_ITEMS - 1], tmp, &whole) - x[GS_PROPAGATE_ITEMS - 1];
  for (int k = GS_PROPAGATE_ITEMS - 1; k >= 0; k--) {
    const int32_t v = (EXCLUSIVE ? (k ? x[k - 1] : 0) : x[k]) + carry;
    if (first + k < n) out[first + k] = v;
  }
  if (tid == 0) tile_sums[blockIdx.x] = whole;
""", """  const int32_t delta = blockIdx.x ? offsets[blockIdx.x] : 0;
  size_t e = (size_t)blockIdx.x * GS_PROPAGATE_TILE + threadIdx.x;
  const size_t end = e + GS_PROPAGATE_TILE;
  while (e < end && e < n) {
    out[e] += delta;
    e += GS_PROPAGATE_THREADS;
  }
""", """static int32_t *g_level_sums;

static void propagateRec(const int32_t *src, int32_t *dst, size_t count, bool exc, size_t used) {
  size_t blocks = (count + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE;
  int32_t *sums = g_level_sums + used;
  if (exc) scanTilesKernel<true><<<(unsigned)blocks, GS_PROPAGATE_THREADS>>>(src, dst, count, sums);
  else scanTilesKernel<false><<<(unsigned)blocks, GS_PROPAGATE_THREADS>>>(src, dst, count, sums);
  CUDA_CHECK_LAUNCH();
  if (blocks < 2) return;
  propagateRec(sums, sums, blocks, true, used + ((blocks + 3) / 4) * 4);
  addOffsetsKernel<<<(unsigned)blocks, GS_PROPAGATE_THREADS>>>(dst, count, sums);
  CUDA_CHECK_LAUNCH();
}
""", """  if (n == 0) return;
  size_t need = 0;
  for (size_t c = n; c > 1 || need == 0;) {
    c = (c + GS_PROPAGATE_TILE - 1) / GS_PROPAGATE_TILE;
    need += ((c + 3) / 4) * 4;
  }
  g_level_sums = (int32_t *)gsReserve(&g_sums, need * sizeof(int32_t));
  propagateRec(in, out, n, EXCLUSIVE, 0);
"""),
}
# The planted copies: (copy of, renames, comment changes, helper functions reordered).
PLANTED = {
    "p1_copy_of_h1": ("h1_iter", {"warpSums": "sw", "tileStart": "ts", "mine": "me", "items": "buf", "local": "part",
                                  "blockTotal": "tot", "before": "excl", "acc": "run", "roundUp4": "pad4",
                                  "count": "lens", "depth": "nlev", "buf": "scr"}, True, False),
    "p2_copy_of_h2": ("h2_staged", {"s_partial": "sp", "s_stage": "sdata", "mineP": "myItems", "sumAll": "tileTotal",
                                    "numTiles": "tilesFor", "scratchNeeded": "intsFor", "scanLevel": "doLevel",
                                    "prev": "last"}, True, True),
    "p3_copy_of_ref": ("h0_ref", {"levelInts": "roundedInts", "propagateLevel": "levelScan", "tile_total": "tsum",
                                  "run": "acc", "scratch": "tmpBuf", "tiles": "nblk", "first": "f0"}, True, True),
}


def _regions_of(text):
    lines = text.splitlines(True)
    return grade.split_regions(lines, "05", "global_scan.cu")


def _with_regions(new):
    """The skeleton with regions 2..5 replaced by `new` (four strings)."""
    outside, regions = _regions_of(open(os.path.join(ROOT, "skeletons", "05-global-scan", "global_scan.cu")).read())
    for k, text in zip((2, 3, 4, 5), new):
        regions[k] = [text]
    return "".join("".join(o) + ("".join(r) if i < len(regions) else "")
                   for i, (o, r) in enumerate(zip(outside, regions + [[]])))


def _recomment(text):
    """Comments the copier changes: every comment replaced, and new ones added."""
    text = re.sub(r"/\*.*?\*/", "/* my own note */", text, flags=re.S)
    return "\n".join(line + ("  // step" if line.rstrip().endswith(";") and k % 3 == 0 else "")
                     for k, line in enumerate(text.split("\n")))


def _reorder(helpers):
    """The host helpers' functions in the opposite order, with prototypes first (as a copier
    moving them around must write)."""
    chunks = re.split(r"\n(?=(?:template <[^\n]*>\n)?static )", helpers.strip("\n"))
    protos = [re.match(r"((?:template <[^\n]*>\n)?static [^{]*?\))\s*\{", c, re.S) for c in chunks]
    head = "".join(p.group(1).replace("\n", " ") + ";\n" for p in protos if p and "template" not in p.group(1))
    return head + "\n".join(reversed(chunks)) + "\n"


def similarity_class(folder):
    """Writes the similarity class: the five honest students and the three planted copies."""
    shutil.rmtree(folder, ignore_errors=True)
    _, ref = _regions_of(open(os.path.join(ROOT, "solutions", "05-global-scan", "global_scan.cu")).read())
    bodies = {name: (["".join(ref[k]) for k in (2, 3, 4, 5)] if parts is None else list(parts))
              for name, parts in HONEST.items()}
    for name, (src, renames, recomment, reorder) in PLANTED.items():
        parts = list(bodies[src])
        if reorder:
            parts[2] = _reorder(parts[2])
        for old, new in renames.items():
            parts = [re.sub(rf"\b{old}\b", new, p) for p in parts]
        if recomment:
            parts = [_recomment(p) for p in parts]
        if parts == bodies[src]:
            raise CheckFailed(f"self-test fixture: the planted copy {name} changed nothing")
        bodies[name] = parts
    for name, parts in bodies.items():
        os.makedirs(os.path.join(folder, name))
        open(os.path.join(folder, name, "global_scan.cu"), "w").write(_with_regions(parts))
    # and one student who handed in the skeleton: nothing of their own to compare
    os.makedirs(os.path.join(folder, "z_skeleton"))
    shutil.copy(os.path.join(ROOT, "skeletons", "05-global-scan", "global_scan.cu"), os.path.join(folder, "z_skeleton"))


def similarity():
    """make similarity on a class of lab 05 (scan-then-propagate): five honest students who
    wrote it differently, three planted copies of them (identifiers renamed, comments changed,
    helper functions reordered), and an earlier term (EARLIER=) holding a copy of one of them.
    The skeleton's and the reference solution's code is taken out of every pair (in a short lab
    every right answer shares the reference's code: honest pairs scored 0.90 and more, with no
    gap before the copies), and each student is compared with the reference apart. The two
    planted copies of students' own code rank above every honest pair, by a gap; the copy of the
    reference and the student who wrote it head the list against the reference; the earlier
    term's copy is found, its entries never paired with each other; the kit's and the
    skeleton's lines match nothing (the skeleton hand-in is left out: nothing of its own); the
    CSV names the matching lines, no cell past a spreadsheet's limit; the page shows each lab's
    histogram of every pair."""
    folder = os.path.join(BUILD, "class-similarity")
    similarity_class(folder)
    earlier = os.path.join(BUILD, "class-similarity-earlier")
    shutil.rmtree(earlier, ignore_errors=True)
    os.makedirs(os.path.join(earlier, "old_h1"))
    text = open(os.path.join(folder, "h1_iter", "global_scan.cu")).read()
    open(os.path.join(earlier, "old_h1", "global_scan.cu"), "w").write(re.sub(r"\bwarpSums\b", "ws", text))
    shutil.copytree(os.path.join(folder, "h2_staged"), os.path.join(earlier, "old_h2"))
    out_dir = os.path.join(BUILD, "similarity")
    code, out = sh(["make", "--no-print-directory", "similarity", f"CLASS={folder}", "LAB=05",
                    f"CLASS_OUT={BUILD}", f"EARLIER={earlier}"])
    if code:
        raise CheckFailed("make similarity failed:\n" + out[-2000:])
    rows = list(csv.DictReader(open(os.path.join(out_dir, "pairs.csv"), newline="")))
    by_ref = list(csv.DictReader(open(os.path.join(out_dir, "reference.csv"), newline="")))
    of_ref = {"h0_ref", "p3_copy_of_ref"}  # the reference solution, and a copy of it
    planted = {frozenset((src, name)) for name, (src, *_) in PLANTED.items() if src != "h0_ref"}
    ranked = [(frozenset((r["student_a"], r["student_b"])), float(r["similarity"]), r) for r in rows]
    bad = []
    mine = [x for x in ranked if not any(s_.startswith("earlier:") for s_ in x[0])]
    got = [x for x in mine if x[0] in planted]
    others = [x for x in mine if x[0] not in planted and not x[0] <= of_ref]
    if len(got) != len(planted):
        bad.append(f"{len(got)} of the {len(planted)} planted pairs in pairs.csv")
    n = len(HONEST) + len(PLANTED)
    if len(mine) != n * (n - 1) // 2:
        bad.append(f"{len(mine)} pairs of this term, expected {n * (n - 1) // 2} (z_skeleton has no code of its own)")
    if got and others and min(s_ for _, s_, _ in got) <= 2 * max(s_ for _, s_, _ in others):
        bad.append(f"a planted pair at {min(s_ for _, s_, _ in got):.3f} is not twice the most similar honest pair "
                   f"({max(others, key=lambda x: x[1])[2]['student_a']} ~ "
                   f"{max(others, key=lambda x: x[1])[2]['student_b']} {max(s_ for _, s_, _ in others):.3f})")
    for pair, s_, r in got:
        if not re.search(r"global_scan\.cu:\d+-\d+ ~ global_scan\.cu:\d+-\d+", r["matching_lines"]):
            bad.append(f"{r['student_a']} ~ {r['student_b']}: no matching lines: {r['matching_lines'][:100]}")
    top = {r["student"] for r in by_ref[:2]}
    if top != of_ref or any(float(r["share_in_reference"]) < 0.9 for r in by_ref[:2]):
        bad.append(f"reference.csv should start with h0_ref and p3_copy_of_ref at 0.9 or more: {by_ref[:3]}")
    old = {frozenset((r["student_a"], r["student_b"])): float(r["similarity"]) for r in rows
           if "earlier:old_h1" in (r["student_a"], r["student_b"])}
    copies = {frozenset(("earlier:old_h1", x)) for x in ("h1_iter", "p1_copy_of_h1")}  # h1 and its copy
    if sorted(old, key=old.get)[-2:] and set(sorted(old, key=old.get)[-2:]) != copies or \
            min(old.get(c, 0) for c in copies) <= 2 * max(s_ for _, s_, _ in others or [(0, 0, 0)]):
        bad.append(f"the earlier term's copy of h1_iter is not found above the honest pairs: {old}")
    if any(r["student_a"].startswith("earlier:") and r["student_b"].startswith("earlier:") for r in rows):
        bad.append("an earlier term's entries were paired with each other")
    if any(len(v) > 32767 for r in rows for v in r.values()):
        bad.append("a pairs.csv cell is past a spreadsheet's 32,767 characters")
    if "z_skeleton: not compared: no code of their own" not in out:
        bad.append("the skeleton hand-in was not left out as having no code of its own")
    page = open(os.path.join(out_dir, "similarity.html")).read()
    if "<mark>" not in page or "p1_copy_of_h1" not in page or "<svg" not in page or "against the reference" not in page:
        bad.append("similarity.html does not show the pairs with their matching lines marked, the histogram and the "
                   "students against the reference")
    if bad:
        raise CheckFailed("\n    ".join(["similarity:"] + bad + [out[-800:]]))
    top_honest = max(others, key=lambda x: x[1])
    return ("planted: " + ", ".join(f"{r['student_a']} ~ {r['student_b']} {s_:.2f} (#{r['rank']})" for _, s_, r in got)
            + f"; most similar honest pair: {top_honest[2]['student_a']} ~ {top_honest[2]['student_b']} "
              f"{top_honest[1]:.2f}; in the reference: " + ", ".join(f"{r['student']} {float(r['share_in_reference']):.2f}"
                                                                        for r in by_ref[:2])
            + f"; the earlier term's copy {old.get(frozenset(('earlier:old_h1', 'h1_iter')), 0):.2f}")


def build_once():
    """Two graders started together on the same new code (a class's identical hand-ins under
    JOBS=4): the second waits for the first one's build and takes its driver, and says so; both
    grade it alike. The second starts once the first holds the build's lock, so the two always
    overlap."""
    import glob
    subs = [os.path.join(BUILD, "build-once", name) for name in ("first", "second")]
    text = open(os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c")).read()
    at = text.index("\n", text.index("/* STUDENT-BEGIN(lab01) */")) + 1
    text = text[:at] + f"/* new code: {time.time_ns()} */\n" + text[at:]  # a key no grade has built
    for sub in subs:
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(os.path.join(sub, "01-serial"))
        open(os.path.join(sub, "01-serial", "scan_serial.c"), "w").write(text)
    before = set(glob.glob(os.path.join(ROOT, "build", "sub", "*", "*", "lab01.lock")))

    def start(sub):
        return subprocess.Popen([sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--lab", "01",
                                 "--submission", sub, "--test", "inc_example,exc_example",
                                 "--results", os.path.join(sub, "results.json")], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, NO_COLOR="1", **quick_lab01_manifests()))

    def held_by(pid, path):
        """Whether process `pid` holds the flock on `path` (/proc/locks: other checks beside this
        one may be building lab 01 too)."""
        try:
            ino = str(os.stat(path).st_ino)
            for line in open("/proc/locks"):
                f = line.split()
                if "->" not in f and len(f) >= 6 and f[1] == "FLOCK" and f[4] == str(pid) and \
                        f[5].rsplit(":", 1)[-1] == ino:
                    return True
        except OSError:
            pass
        return False

    first = start(subs[0])
    held, t0 = None, time.monotonic()
    while held is None and first.poll() is None and time.monotonic() - t0 < 60:
        for path in set(glob.glob(os.path.join(ROOT, "build", "sub", "*", "*", "lab01.lock"))) - before:
            if held_by(first.pid, path):
                held = path  # the first grader is building
        time.sleep(0.005)
    if held is None:
        out = first.communicate()[0]
        raise CheckFailed("the first grader was never seen holding a build's lock:\n" + out[-1500:])
    second = start(subs[1])
    outs = [p.communicate(timeout=300)[0] for p in (first, second)]
    said = [bool(re.search(r"\(built in [0-9.]+s: another grade of the same code built it", o)) for o in outs]
    bad = []
    if said != [False, True]:
        bad.append(f"the second grader should say it took the first one's build (said so: first {said[0]}, "
                   f"second {said[1]})")
    for name, sub, out in zip(("first", "second"), subs, outs):
        data = json.load(open(os.path.join(sub, "results.json"))) if os.path.exists(
            os.path.join(sub, "results.json")) else {}
        if data.get("score") is None or data.get("score") != data.get("max_score") or not data.get("max_score"):
            bad.append(f"the {name} grader scored {data.get('score')}/{data.get('max_score')}:\n" + out[-800:])
    if bad:
        raise CheckFailed("\n    ".join(bad))
    line = [ln.strip() for ln in outs[1].splitlines() if "another grade of the same code" in ln][0]
    return f"built once, under {os.path.relpath(held, ROOT)}; the second grader: {line}"


CHECKS = [("SUBMISSION that is a FIFO, a device or a socket", fifo_submission),
          ("graders started together on the same code build it once", build_once),
          ("class entries named to hurt: gradebook.csv, ...tar.gz, a space, links", class_entry_names),
          ("course file and roster mistakes are errors", course_mistakes),
          ("regrading one student changes that row only (STUDENT=, a CLASS of one)", regrade_one_student),
          ("GitHub Classroom clones judged by the arrival times exported, never the clone's", classroom_arrivals),
          ("one deadline wherever graded: Gradescope's due dates, an extension by e-mail", one_deadline_everywhere),
          ("tests a course holds stay out of the Canvas files and feedback until RELEASE=1", hold_and_release),
          ("each lab in its own folder, one course gradebook across them", course_gradebook),
          ("Canvas's Download Submissions, as a folder and as its zip", canvas_download),
          ("the class report and gradebook: failures that are build failures apart, equal figures unranked, one "
           "offset, whole paths", report_small_points),
          ("every entry handed in gets a score or a reason: a zip, a Classroom folder, an empty folder, a misnamed "
           "file", every_entry_counted),
          ("similarity ranks planted copies above honest work, the reference solution and an earlier term apart",
           similarity),
          ("Gradescope: late penalty from created_at, leaderboard field", gradescope_course),
          ("leaderboard on the emu (lab 02 timing, a class of four)", emu_leaderboard)]
GPU_CHECKS = [("a class's leaderboard on the GPU (lab 02 timing)", gpu_leaderboard)]
# The class graded (locally, then through Slurm) and what reads build/class after it:
CLASS_CHECKS = [("a class graded with one command", class_grading),
                ("LMS files (Canvas, Moodle and Blackboard)", lms_files),
                ("the class report in a browser", report_in_browser),
                ("the class through a one-node Slurm cluster", class_grading_slurm),
                ("the class through the Gradescope zip: the same final grades", class_gradescope)]
