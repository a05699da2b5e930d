#!/usr/bin/env python3
"""Running a course: a class folder's entries and students' names, deadlines, the LMS,
spreadsheet-safe cells and the leaderboard's pseudonyms (the figures are grading/figures.py's).

The course file (TOML, like the manifests; `grader/manifests/course.toml`, or COURSE=path) holds
each lab's due date, its grace days and late penalty, per-student extensions, and how the LMS
exports treat a missing submission:

    missing = "blank"              # a student with no submission: "blank" (a missing grade) or "zero"
    leaderboard_names = "pseudonyms"   # or "names": how the class report's leaderboard shows students

    [late]                         # every lab's rule, unless the lab sets its own
    grace_days = 1                 # days after the due date with no penalty
    penalty_per_day = 0.10         # fraction of the score lost per day (or part of one) past the grace
    max_late_days = 5              # days past the grace after which the score is 0

    [[lab]]
    lab = "01"
    due = "2026-03-02T23:59:00+01:00"    # ISO 8601 with the UTC offset
    canvas_id = 1234               # optional: the Canvas assignment its column imports into
    penalty_per_day = 0.2          # optional: this lab's own rule

    [[extension]]
    student = "alice"              # the student's name in CLASS (or Gradescope's email or SID)
    lab = "01"
    days = 3                       # or due = "2026-03-05T23:59:00+01:00"

    [[arrival]]                    # optional: when a submission arrived, where the LMS says so
    student = "bob"
    lab = "01"
    time = "2026-03-02T20:00:00+01:00"

Lateness is measured from when a submission arrived: the time its files have in CLASS (or an
[[arrival]] entry), or on Gradescope the submission's `created_at`; never from anything the
student wrote (HANDIN.json's date, the times inside a tarball).

The roster (CSV, ROSTER=path) maps the students of CLASS to their LMS identities:

    student,name,canvas_id,sis_user_id,login_id,section,email
    alice,"Liddell, Alice",101,S0001,aliddell,A1,alice@example.edu

    course.py gradescope --results R --metadata M --course C --lab NN...   (run_autograder)
"""
import argparse
import collections
import csv
import datetime
import hashlib
import hmac
import json
import math
import os
import re
import shutil
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading"))
import figures  # noqa: E402  (what a submission path is)
try:
    import tomllib
except ImportError:  # Python < 3.11: the kit's own reader of the TOML subset
    import minitoml as tomllib


class CourseError(Exception):
    """A mistake in the course file or the roster: the message names the file and the key."""


# ---- a student's name ----------------------------------------------------------------------------

def safe_name(name):
    """A student's name as a class run keys it: the folder under build/class, the gradebook's
    row, and the key the course file's and the roster's names are matched by (each of those
    names goes through here too, so "anne marie" in the roster finds the entry "anne marie",
    graded as anne_marie). Letters, digits and _.@- are kept, anything else becomes _; a name
    of dots alone gets a leading _ (never . or .., which are folders already)."""
    out = re.sub(r"[^A-Za-z0-9_.@-]", "_", name.strip()) or "student"
    return "_" + out if not out.strip(".") else out


# ---- a class folder's entries ------------------------------------------------------------------
# (grade_class.py grades them; similarity.py compares them: both read a class folder so)

REFERENCE = "(reference)"   # the reference solutions' folder beside the students': no student is named so


def entry_name(entry):
    """The name an entry of CLASS gives its student: the folder's or the archive's, less .tar.gz
    (.tgz, .zip)."""
    base = os.path.basename(entry.rstrip("/"))
    for ext in figures.HANDIN_ARCHIVES:
        if base.lower().endswith(ext):
            base = base[:-len(ext)]
    return base


# Canvas's "Download Submissions": one flat folder (or its zip) of the students' files, each
# renamed SORTABLENAME[_LATE]_USERID_ATTACHMENTID_FILENAME, a resubmitted FILENAME as name-1.c.
CANVAS_FILE = re.compile(r"([^\W_](?:[\w-]*?[^\W_])?)_(late_)?(\d+)_(\d+)_(.+)", re.I)
CANVAS_MARK = ".canvas.json"  # in each entry made from such a download: its user id, Canvas's late flag


def canvas_download(klass, staging, roster=None):
    """When CLASS is Canvas's download of an assignment's submissions (every entry a file named
    as Canvas names them), makes one folder per student under `staging`, each file back under
    the name it was handed in as (the latest attachment of a name), and returns `staging`;
    else None. A student is named by the roster row whose canvas_id is Canvas's user id, else
    by Canvas's sortable name. Each folder holds CANVAS_MARK: Canvas's user id and late flag
    (the files' own times are the download's)."""
    try:
        entries = [e for e in sorted(os.listdir(klass)) if not e.startswith(".")]
    except OSError:
        return None
    files = [e for e in entries if os.path.isfile(os.path.join(klass, e)) and not os.path.islink(os.path.join(klass, e))]
    if not files or len(files) != len(entries) or not all(CANVAS_FILE.fullmatch(e) for e in files):
        return None
    by_id = {r["canvas_id"]: r["student"] for r in roster or [] if r.get("canvas_id")}
    groups = {}  # by Canvas's user id: two students of one sortable name stay two
    for e in files:
        m = CANVAS_FILE.fullmatch(e)
        given = m.group(5)
        ext = next((x for x in figures.HANDIN_ARCHIVES if given.lower().endswith(x)), os.path.splitext(given)[1])
        stem = given[:len(given) - len(ext)]
        name = re.sub(r"-\d+$", "", stem) + ext  # Canvas's name-1.c (handin-1.tar.gz) for a second upload
        g = groups.setdefault(m.group(3), {"who": by_id.get(m.group(3)) or m.group(1), "late": False, "files": {}})
        g["late"] = g["late"] or bool(m.group(2))
        if name not in g["files"] or int(m.group(4)) > g["files"][name][0]:
            g["files"][name] = (int(m.group(4)), e)
    names = collections.Counter(safe_name(g["who"]) for g in groups.values())
    shutil.rmtree(staging, ignore_errors=True)
    for user_id, g in groups.items():
        who = safe_name(g["who"]) if names[safe_name(g["who"])] == 1 else f"{safe_name(g['who'])}-{user_id}"
        g["user_id"] = user_id
        folder = os.path.join(staging, who)
        os.makedirs(folder)
        for name, (_, e) in g["files"].items():
            shutil.copy2(os.path.join(klass, e), os.path.join(folder, safe_name(name)))
        with open(os.path.join(folder, CANVAS_MARK), "w") as f:
            json.dump({"user_id": g["user_id"], "late": g["late"], "files": {n: e for n, (_, e) in g["files"].items()}}, f)
    return staging


def student_name(entry):
    """The student's key: entry_name made safe (course.safe_name)."""
    return safe_name(entry_name(entry))


# What a class run writes beside the students' folders in OUT: no student is named so (an
# entry that would be is graded as NAME-student, with a warning).
OWN_NAMES = ("gradebook.csv", "report.html", "canvas.csv", "grades.csv", "pseudonym.key", "pseudonyms.csv",
             "similarity", "slurm", "course.csv", "canvas-download")


def own_name(name):
    """A name the class run's own files or folders have: its files, and labNN, each lab's folder."""
    return (name in OWN_NAMES or name == REFERENCE or re.fullmatch(r"kit-lab\d+\.log", name) is not None
            or re.fullmatch(r"lab\d\d", name) is not None)


def class_entries(klass):
    """(students {name: entry}, not graded [(entry, reason)], warnings [(entry, text)]): every entry of CLASS is
    a student (a folder, or a handin tarball) or is listed with the reason it is not."""
    students, skipped, warnings = {}, [], []
    entries = sorted(os.listdir(klass))
    home = os.path.realpath(klass)
    real = {e: os.path.realpath(os.path.join(klass, e)) for e in entries if not os.path.islink(os.path.join(klass, e))}
    for e in entries:
        p = os.path.join(klass, e)
        what = figures.not_a_submission(p)
        if what:
            skipped.append((e, f"{what}, not a folder or a handin tarball"))
            continue
        if os.path.islink(p):  # graded from where it points, unless that is in the class already
            target = os.path.realpath(p)
            twin = [o for o, r in real.items() if r == target or target.startswith(r + os.sep)]
            if twin:
                skipped.append((e, f"a link to {twin[0]}{target[len(real[twin[0]]):]}, another entry of the class: "
                                   "not graded (one submission, one student)"))
                continue
            if target == home or home.startswith(target + os.sep) or target.startswith(home + os.sep):
                skipped.append((e, "a link into the class folder or above it, not to one student's submission"))
                continue
            real[e] = target
            warnings.append((e, f"{e} is a link: graded from {target}"))
        if os.path.isdir(p) and e in (".git", ".svn", ".hg"):
            skipped.append((e, "a version-control folder, not a student"))
            continue
        if os.path.isfile(p) and not e.lower().endswith(figures.HANDIN_ARCHIVES):
            skipped.append((e, "a file that is not a handin archive (.tar.gz, .tgz or .zip)"))
            continue
        if os.path.isdir(p) and not os.access(p, os.R_OK | os.X_OK):
            skipped.append((e, "a folder the grader cannot read"))
            continue
        name = student_name(p)
        if own_name(name):
            warnings.append((e, f"{e} is named like a file of the class run: graded as '{name}-student'"))
            name = f"{name}-student"
        if name in students or name == REFERENCE:
            first = os.path.basename(students[name]) if name in students else REFERENCE
            alt = safe_name(e)
            n = 2
            while alt in students or own_name(alt):
                alt, n = f"{safe_name(e)}-{n}", n + 1
            warnings.append((e, f"{first} and {e} are both student '{name}': both graded, {e} as '{alt}'"))
            name = alt
        students[name] = p
    return students, skipped, warnings


def safe_cell(value):
    """A spreadsheet cell that is only text: a string that a spreadsheet would read as a formula
    (a leading =, +, -, @, tab or carriage return) gets a leading apostrophe, the usual rule
    against CSV injection. Numbers are left as they are."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_csv(path, fieldnames, rows, first_rows=()):
    """Writes a CSV atomically, every text cell made safe for spreadsheets."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([safe_cell(h) for h in fieldnames])
        for row in list(first_rows) + list(rows):
            cells = [row.get(k, "") for k in fieldnames] if isinstance(row, dict) else row
            w.writerow([safe_cell(v) for v in cells])
    os.replace(tmp, path)


ADJECTIVES = ("amber", "brisk", "calm", "deft", "eager", "fleet", "gentle", "hardy", "ivory", "jolly",
              "keen", "lucid", "mellow", "nimble", "olive", "placid", "quick", "rapid", "steady", "tidy",
              "umber", "vivid", "wry", "young", "zesty", "bold", "crisp", "dusky", "early", "frank",
              "grand", "humble")
ANIMALS = ("otter", "heron", "lynx", "marten", "ibis", "gecko", "bison", "crane", "dingo", "egret",
           "ferret", "gopher", "hare", "jackal", "kestrel", "lemur", "mole", "newt", "ocelot", "panda",
           "quail", "raven", "stoat", "tapir", "urchin", "vole", "walrus", "yak", "zebra", "badger",
           "cougar", "dormouse")


def pseudonyms(students, key):
    """{student: pseudonym}: 'brisk heron' and the like, from a keyed hash of the name (the same
    student gets the same one in every run with the same key; without the key the name cannot
    be found from it). Collisions get a number."""
    out, used = {}, set()
    for s in sorted(students):
        h = hmac.new(key, s.encode(), hashlib.sha256).digest()
        name = f"{ADJECTIVES[h[0] % len(ADJECTIVES)]} {ANIMALS[h[1] % len(ANIMALS)]}"
        base, n = name, 2
        while name in used:
            name, n = f"{base} {n}", n + 1
        used.add(name)
        out[s] = name
    return out


# ---- the course file ----------------------------------------------------------------------------

TOP = {"missing": str, "leaderboard_names": str, "late": dict, "lab": list, "extension": list,
       "arrival": list, "pseudonym_key": str}
RULE = {"grace_days": (int, float), "penalty_per_day": (int, float), "max_late_days": (int, float)}
LAB = dict(RULE, lab=str, due=str, canvas_id=int, title=str)
EXTENSION = {"student": str, "lab": str, "days": (int, float), "due": str}
ARRIVAL = {"student": str, "lab": str, "time": str}


def parse_time(text, where):
    """An ISO 8601 date and time with its UTC offset ('Z' for UTC) as an aware datetime."""
    t = text.strip()
    if t.endswith("Z"):
        t = t[:-1] + "+00:00"
    # Python before 3.11 reads at most 6 digits of fractions: Gradescope's created_at has 6.
    t = re.sub(r"(\.\d{6})\d+", r"\1", t)
    try:
        value = datetime.datetime.fromisoformat(t)
    except ValueError:
        raise CourseError(f"{where}: '{text}' is not a date and time (write 2026-03-02T23:59:00+01:00)") from None
    if value.tzinfo is None:
        raise CourseError(f"{where}: '{text}' has no UTC offset (write it as 2026-03-02T23:59:00+01:00, "
                          "or Z for UTC)")
    return value


def _check(table, schema, where):
    if not isinstance(table, dict):
        raise CourseError(f"{where}: expected a table")
    for key, value in table.items():
        if key not in schema:
            raise CourseError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(schema))})")
        if not isinstance(value, schema[key]) or isinstance(value, bool):
            raise CourseError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")


def _check_rule(rule, where):
    for key in RULE:
        if key in rule and rule[key] < 0:
            raise CourseError(f"{where}: '{key}' must not be negative")
    if rule.get("penalty_per_day", 0) > 1:
        raise CourseError(f"{where}: 'penalty_per_day' is a fraction of the score (0.1 is 10% a day), "
                          f"not {rule['penalty_per_day']}")


def load_course(path, labs):
    """Reads and checks the course file; `labs` are the lab numbers the kit has."""
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise CourseError(f"{path}: cannot read it ({e.strerror})") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise CourseError(f"{path}: {e}") from None
    _check(data, TOP, name)
    if data.get("missing", "blank") not in ("blank", "zero"):
        raise CourseError(f"{name}: 'missing' is \"blank\" or \"zero\", not \"{data['missing']}\"")
    if data.get("leaderboard_names", "pseudonyms") not in ("pseudonyms", "names"):
        raise CourseError(f"{name}: 'leaderboard_names' is \"pseudonyms\" or \"names\"")
    _check(data.get("late", {}), RULE, f"{name}: [late]")
    _check_rule(data.get("late", {}), f"{name}: [late]")
    course = {"path": path, "missing": data.get("missing", "blank"),
              "names": data.get("leaderboard_names", "pseudonyms"), "labs": {}, "extensions": {},
              "arrivals": {}, "key": data.get("pseudonym_key", "")}
    for i, lab in enumerate(data.get("lab", []), 1):
        where = f"{name}: [[lab]] #{i}"
        _check(lab, LAB, where)
        if "lab" not in lab or "due" not in lab:
            raise CourseError(f"{where}: needs 'lab' and 'due'")
        number = f"{int(lab['lab']):02d}" if lab["lab"].isdigit() else lab["lab"]
        where = f"{name}: lab {number}"
        if number not in labs:
            raise CourseError(f"{where}: the kit has no lab {number} (labs: {', '.join(sorted(labs))})")
        if number in course["labs"]:
            raise CourseError(f"{where}: given twice")
        _check_rule(lab, where)
        rule = dict(data.get("late", {}))
        rule.update({k: lab[k] for k in RULE if k in lab})
        course["labs"][number] = {"due": parse_time(lab["due"], f"{where}: due"), "rule": rule,
                                  "canvas_id": lab.get("canvas_id"), "title": lab.get("title")}
    for table, key, schema in (("extension", "extensions", EXTENSION), ("arrival", "arrivals", ARRIVAL)):
        for i, item in enumerate(data.get(table, []), 1):
            where = f"{name}: [[{table}]] #{i}"
            _check(item, schema, where)
            if "student" not in item or "lab" not in item:
                raise CourseError(f"{where}: needs 'student' and 'lab'")
            number = f"{int(item['lab']):02d}" if item["lab"].isdigit() else item["lab"]
            if number not in course["labs"]:
                raise CourseError(f"{where}: lab {number} has no due date in the course file")
            where = f"{name}: [[{table}]] for {item['student']}, lab {number}"
            if table == "extension":
                if ("days" in item) == ("due" in item):
                    raise CourseError(f"{where}: give either 'days' or 'due'")
                due = course["labs"][number]["due"]
                value = (due + datetime.timedelta(days=item["days"]) if "days" in item
                         else parse_time(item["due"], f"{where}: due"))
            else:
                if "time" not in item:
                    raise CourseError(f"{where}: needs 'time'")
                value = parse_time(item["time"], f"{where}: time")
            course[key][(safe_name(item["student"]), number)] = value  # matched as a class run keys names
    return course


CLASSROOM_KEYS = ("student_repository_name", "github_username", "roster_identifier")


def parse_stamp(text, where):
    """A time as arrival exports write it: ISO 8601 with its offset, or "2026-03-02 23:59:00 UTC"
    (also with +0000 or -05:00 after the time)."""
    t = text.strip()
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(UTC|GMT|Z|[+-]\d\d:?\d\d)", t)
    if m:
        zone = m.group(3)
        zone = "+00:00" if zone in ("UTC", "GMT", "Z") else (zone if ":" in zone else zone[:3] + ":" + zone[3:])
        t = f"{m.group(1)}T{m.group(2)}{zone}"
    return parse_time(t, where)


def load_arrivals(path, course, labs):
    """Adds the arrival times of a CSV file to the course's (ARRIVALS=): GitHub Classroom's grades
    export (submission_timestamp, keyed by the repository's name, the GitHub user and the roster
    identifier, for every lab graded now), or a file of student,time[,lab] rows from an LMS or
    of the time repositories were collected (student "*": every entry without a row of its own).
    An empty time is no submission. Returns how many rows it read; errors name the file and line."""
    name = os.path.basename(path)
    if course is None:
        raise CourseError(f"{name}: arrival times need a course file with the labs' due dates (COURSE=)")
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise CourseError(f"{path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise CourseError(f"{name}: not UTF-8 text") from None
    if not rows:
        raise CourseError(f"{name}: empty")
    header = [h.strip().lower() for h in rows[0]]
    classroom = "submission_timestamp" in header
    if classroom:
        keys, col = [header.index(k) for k in CLASSROOM_KEYS if k in header], header.index("submission_timestamp")
        if not keys:
            raise CourseError(f"{name}: a GitHub Classroom export needs one of {', '.join(CLASSROOM_KEYS)}")
    elif "student" in header and "time" in header:
        keys, col = [header.index("student")], header.index("time")
    else:
        raise CourseError(f"{name}: the header needs student and time (and lab, where the file covers several "
                          f"labs), or is GitHub Classroom's grades export (submission_timestamp); it is {rows[0]}")
    lab_col = header.index("lab") if "lab" in header and not classroom else None
    read = 0
    for i, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        where = f"{name}:{i}"
        if len(row) < len(header):
            raise CourseError(f"{where}: {len(row)} fields where the header has {len(header)}")
        if not row[col].strip():
            continue  # nothing submitted
        when = parse_stamp(row[col], f"{where}: {header[col]}")
        for_labs = labs
        if lab_col is not None and row[lab_col].strip():
            lab = row[lab_col].strip()
            lab = f"{int(lab):02d}" if re.fullmatch(r"[0-9]+", lab) else lab
            if lab not in course["labs"]:
                raise CourseError(f"{where}: lab {lab} has no due date in the course file")
            for_labs = [lab]
        names = {row[k].strip() for k in keys if row[k].strip()}
        if not names:
            raise CourseError(f"{where}: no student named")
        for lab in for_labs:
            for n in names:
                course["arrivals"][("*" if n == "*" else safe_name(n), lab)] = when
        read += 1
    return read


def fmt_time(t):
    return t.isoformat(timespec="seconds") if t else ""


def fmt_span(seconds):
    """1 d 3 h 20 min, to the minute."""
    m = int(math.ceil(seconds / 60))
    d, m = divmod(m, 1440)
    h, m = divmod(m, 60)
    return " ".join(p for p in (f"{d} d" if d else "", f"{h} h" if h else "", f"{m} min" if m or not (d or h) else "") if p)


UNJUDGED = "arrival unknown, not judged"  # the start of `late` where the files' times are no arrival


def lateness(course, lab, students, arrived, score, unknown="", due_given=None):
    """What a lab's deadline does to a score. `students` are the names the student may be known
    by (the CLASS entry's name; on Gradescope the emails and SIDs too); `arrived` when the
    submission arrived (aware datetime) or None; `unknown`: why it is None although something
    was handed in (a clone's files carry the clone's times), said in `late` with no penalty
    unless the course's arrivals give the time. Returns {arrived, due, late, penalty, final}:
    `late` in words ('' on time), `penalty` a fraction, `final` the score after it."""
    out = {"arrived": fmt_time(arrived), "due": "", "late": "", "penalty": 0.0, "final": score}
    info = (course or {}).get("labs", {}).get(lab)
    if info is None or (arrived is None and not unknown):
        return out
    given = [course["arrivals"][(safe_name(s), lab)] for s in students if (safe_name(s), lab) in course["arrivals"]]
    if given or ("*", lab) in course["arrivals"]:  # the student's own time, else the one for every entry
        arrived = given[0] if given else course["arrivals"][("*", lab)]
        out["arrived"] = fmt_time(arrived)
    elif arrived is None:
        out["due"] = fmt_time(info["due"])
        out["late"] = f"{UNJUDGED}: {unknown}"
        return out
    due = due_given or info["due"]  # a due date the platform gives (Gradescope's), else the course file's
    for s in students:
        if (safe_name(s), lab) in course["extensions"]:
            due = max(due, course["extensions"][(safe_name(s), lab)])
            break
    out["due"] = fmt_time(due)
    out["arrived"] = fmt_time(arrived.astimezone(due.tzinfo))  # in the due date's offset, side by side
    late_s = (arrived - due).total_seconds()
    if late_s <= 0:
        return out
    rule = info["rule"]
    grace = rule.get("grace_days", 0) * 86400
    days = int(math.ceil((late_s - grace) / 86400)) if late_s > grace else 0
    if days == 0:
        out["late"] = f"{fmt_span(late_s)} late, within the grace days"
        return out
    limit = rule.get("max_late_days")
    if limit is not None and days > limit:
        out["penalty"] = 1.0
        out["late"] = f"{fmt_span(late_s)} late, past the last day ({limit:g} after the grace days): 0"
    else:
        out["penalty"] = min(1.0, round(rule.get("penalty_per_day", 0) * days, 6))
        out["late"] = f"{fmt_span(late_s)} late: {days} day{'s' if days > 1 else ''} past the grace days, " \
                      f"{out['penalty']:.0%} off"
    out["final"] = round(score * (1 - out["penalty"]), 2)
    if out["final"] == int(out["final"]):
        out["final"] = int(out["final"])
    return out


def arrival_of(paths):
    """When a submission arrived in CLASS: the newest modification time among `paths` and, for a
    folder, everything under it (links not followed). None if nothing could be read."""
    newest = None
    for p in paths:
        todo = [p]
        while todo:
            q = todo.pop()
            try:
                st = os.lstat(q)
            except OSError:
                continue
            newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
            if stat.S_ISDIR(st.st_mode):
                try:
                    todo += [os.path.join(q, e) for e in os.listdir(q) if e not in (".git",)]
                except OSError:
                    pass
    if newest is None:
        return None
    return datetime.datetime.fromtimestamp(newest, tz=datetime.timezone.utc).astimezone()


# ---- the roster and the LMS ---------------------------------------------------------------------

ROSTER = ("student", "name", "canvas_id", "sis_user_id", "login_id", "section", "email", "github")


def roster_keys(students, roster, clones=()):
    """{gradebook student: roster student} for the entries a roster row names other than by its
    own name: GitHub Classroom's clones are folders named ASSIGNMENT-USER (lab04-scan-alice), so
    a clone (one of `clones`) ending in "-" and a row's `github` user, else its `student`, is
    that row's, where exactly one row fits and no entry of the class has the row's own name.
    Returns (the map, [(entry, why)] left unmatched though a row fits)."""
    own = {safe_name(p["student"]) for p in roster}
    taken = {safe_name(s) for s in students}
    out, ambiguous = {}, []
    for s in students:
        if safe_name(s) in own or s not in clones:
            continue
        for field in ("github", "student"):
            fits = [p["student"] for p in roster if p.get(field) and
                    safe_name(s).lower().endswith("-" + safe_name(p[field]).lower())]
            if not fits:
                continue
            if len(fits) > 1:
                ambiguous.append((s, f"could be the roster's {' or '.join(fits)}"))
            elif safe_name(fits[0]) in taken:
                ambiguous.append((s, f"ends as the roster's {fits[0]}, who has an entry of that name too"))
            else:
                out[s] = fits[0]
            break
    claimed = collections.Counter(out.values())
    for s in [s for s in out if claimed[out[s]] > 1]:  # two clones of one row: neither is taken for it
        ambiguous.append((s, f"one of {claimed[out[s]]} entries that end as the roster's {out.pop(s)}"))
    return out, ambiguous


def load_roster(path):
    """[{student, name, canvas_id, ...}] in the file's order; checks the header and duplicates."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            unknown = [h for h in header if h not in ROSTER]
            if "student" not in header or unknown:
                raise CourseError(f"{path}: the header must name 'student' and any of "
                                  f"{', '.join(ROSTER[1:])}" + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
            out, seen = [], {}
            for no, row in enumerate(reader, 2):
                s = (row.get("student") or "").strip()
                if not s:
                    raise CourseError(f"{path}:{no}: no student name")
                if safe_name(s) in seen:
                    raise CourseError(f"{path}:{no}: student '{s}' is on line {seen[safe_name(s)]} too"
                                      + (f" (as {safe_name(s)}: a class run keys students so)"
                                         if safe_name(s) != s else ""))
                seen[safe_name(s)] = no
                out.append({k: (row.get(k) or "").strip() for k in ROSTER})
            return out
    except OSError as e:
        raise CourseError(f"{path}: cannot read it ({e.strerror})") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise CourseError(f"{path}: not a readable CSV ({e})") from None


def lms_exports(rows, roster, course, manifests, out_dir):
    """Writes canvas.csv (Canvas's gradebook import) and grades.csv (one row per student, one
    column per lab: Moodle's and Blackboard's imports) from the gradebook rows. Every roster
    student gets a row; one without a submission for a lab gets a missing grade (an empty cell)
    unless the course file says missing = "zero". Returns (paths, students not on the roster)."""
    keyed = {r["student"]: r["roster"] for r in rows if r.get("roster") and r["roster"] != r["student"]}
    finals = {(safe_name(keyed.get(r["student"], r["student"])), r["lab"]): r for r in rows}
    zero = (course or {}).get("missing") == "zero"
    labs = [m for m in manifests]

    def grade_of(student, lab):
        r = finals.get((safe_name(student), lab))
        if r is None or r["note"] in ("missing", "no results"):
            return 0 if zero else ""
        return r["shown"]["final"] if r.get("shown") else r["final"]  # what students may see now

    def column(m):
        info = (course or {}).get("labs", {}).get(m["lab"], {})
        title = info.get("title") or f"Lab {m['lab']}: {m['title']}"
        return f"{title} ({info['canvas_id']})" if info.get("canvas_id") else title

    maxima = {}
    for r in rows:
        maxima[r["lab"]] = r["shown"]["max"] if r.get("shown") else r["max"]
    canvas = os.path.join(out_dir, "canvas.csv")
    head = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + [column(m) for m in labs]
    body = [[p["name"] or p["student"], p["canvas_id"], p["sis_user_id"], p["login_id"], p["section"]] +
            [grade_of(p["student"], m["lab"]) for m in labs] for p in roster]
    points = ["Points Possible", "", "", "", ""] + [maxima.get(m["lab"], "") for m in labs]
    write_csv(canvas, head, body, first_rows=[points])
    plain = os.path.join(out_dir, "grades.csv")
    head = ["name", "email", "login_id", "sis_user_id", "student"] + [f"lab{m['lab']}" for m in labs]
    body = [[p["name"], p["email"], p["login_id"], p["sis_user_id"], p["student"]] +
            [grade_of(p["student"], m["lab"]) for m in labs] for p in roster]
    write_csv(plain, head, body)
    listed = {safe_name(p["student"]) for p in roster}
    return [canvas, plain], sorted({r["student"] for r in rows
                                    if safe_name(keyed.get(r["student"], r["student"])) not in listed})


# ---- Gradescope: a late submission's score -----------------------------------------------------

def gradescope(args):
    """Applies the course file's deadline to a results.json that run_autograder has, from the
    submission's created_at in Gradescope's submission_metadata.json."""
    try:
        meta = json.load(open(args.metadata))
        results = json.load(open(args.results))
    except (OSError, ValueError) as e:
        print(f"course: cannot read {e}", file=sys.stderr)
        return 1
    try:
        manifests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "manifests")
        kit_labs = {f[3:5] for f in os.listdir(manifests) if re.fullmatch(r"lab\d\d\.toml", f)}
        course = load_course(args.course, kit_labs)
        arrived = parse_time(str(meta.get("created_at", "")), f"{args.metadata}: created_at")
    except CourseError as e:
        results["output"] = results.get("output", "") + f"\nLateness not applied: {e}"
        json.dump(results, open(args.results, "w"), indent=2)
        return 0
    names = []
    for u in meta.get("users") or []:
        names += [str(u.get(k)) for k in ("email", "sid", "name") if u.get(k)]
    # Gradescope's own due date, the assignment's or, where this student has an extension there,
    # theirs (a user's "assignment" entry): the course keeps its deadlines where it grants them.
    due_given, due_from = None, ""
    try:
        assignment = meta.get("assignment") or {}
        base = parse_time(str(assignment["due_date"]), f"{args.metadata}: assignment.due_date") \
            if assignment.get("due_date") else None
        own = [parse_time(str(u["assignment"]["due_date"]), f"{args.metadata}: users[{i}].assignment.due_date")
               for i, u in enumerate(meta.get("users") or [])
               if isinstance(u.get("assignment"), dict) and u["assignment"].get("due_date")]
        # a group's submission: the latest of its members' dates (an extension of any one holds)
        due_given = max(own + ([base] if base else [])) if own or base else None
        if due_given:
            due_from = "Gradescope's due date" + (" for this student (an extension)" if base and due_given > base else "")
    except CourseError as e:
        results["output"] = results.get("output", "") + f"\nLateness not applied: {e}"
        json.dump(results, open(args.results, "w"), indent=2)
        return 0
    lines, total = [], 0.0
    by_lab = {}
    for t in results.get("tests", []):
        by_lab.setdefault(t["name"][3:5], []).append(t)
    for lab, tests in sorted(by_lab.items()):
        raw = sum(t.get("score", 0) for t in tests)
        late = lateness(course, lab, names, arrived, raw, due_given=due_given)
        total += late["final"]
        if late["due"]:
            lines.append(f"lab {lab}: submitted {late['arrived']}, due {late['due']}"
                         + (f" ({due_from})" if due_given and late["due"] == fmt_time(due_given) else "") + ": "
                         + (late["late"] or "on time") + f"; score {raw} -> {late['final']}")
    if lines:
        results["score"] = round(total, 2)
        results["output"] = results.get("output", "") + "\n\nLateness (from the submission's time):\n" + "\n".join(lines)
        results.setdefault("extra_data", {})["lateness"] = lines
    tmp = args.results + ".tmp"
    json.dump(results, open(tmp, "w"), indent=2)
    os.replace(tmp, args.results)
    for line in lines:
        print(line)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="Course tasks (run_autograder's lateness step).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gradescope")
    g.add_argument("--results", required=True)
    g.add_argument("--metadata", required=True)
    g.add_argument("--course", required=True)
    g.add_argument("--lab", action="append", default=[])
    args = ap.parse_args(argv)
    return gradescope(args)


if __name__ == "__main__":
    sys.exit(main())
