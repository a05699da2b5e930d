"""What the self-test's modules share: where the kit is, how a command and a grade are run, how
a results.json is read, and the check's failure. run.py (the runner) and every module of checks
import this one, and it imports none of them, so the self-test has no circle (circles.py)."""
import json
import os
import re
import subprocess
import sys
import threading
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), d) for d in ("grading", "course", "measure", "docs")]
import grade  # noqa: E402

ROOT = grade.ROOT
SCHEDULES = ("forward", "reverse", "random:20261122")
# The solutions pass under the graded schedule (the last) and under reverse (threads and blocks
# the other way round, its late block the last of the first wave); forward (late block: the
# second) is left to the known-bad cases run under every schedule: as a third pass over every
# solution it cost a fifth of make check's CPU time. Under reverse every test runs, but on the
# sizes up to REVERSE_MAX_SIZE of its list (small_manifests): each size past it (3000017 and
# 2^24 + 7) meets no tile, block or window case the smaller ones miss, and they were two thirds
# of that pass's time on labs 05 to 07.
SOLUTION_SCHEDULES = ("reverse", "random:20261122")
REVERSE_MAX_SIZE = 1 << 21
BUILD = os.path.join(ROOT, "build", "selftest")


class CheckFailed(Exception):
    pass


# The CPU time of the commands each check ran (user + system, the command and the children it
# waited for), by the check that ran them: the line of each check shows it beside the wall time,
# so a slow check on a busy machine can be told from a costly one.
CPU = threading.local()
# Set by a check whose timed part is over (make test's first result), so that the checks after
# it may start beside the rest of its run (run.py): it must also be set when such a check ends.
TIMED_PART_OVER = threading.Event()


def sh(cmd, env=None, timeout=1800, cwd=ROOT):
    """Runs a command; returns (exit code, combined output). Raises subprocess.TimeoutExpired
    (the command killed) past `timeout` seconds."""
    full_env = dict(os.environ)
    full_env.pop("SCANLAB_EMU_SCHEDULE", None)
    full_env.update(env or {})
    p = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         shell=isinstance(cmd, str))
    fired = []
    timer = threading.Timer(timeout, lambda: (fired.append(True), p.kill()))
    timer.start()
    try:
        out = p.stdout.read()
    finally:
        timer.cancel()
        p.stdout.close()
    _, status, usage = os.wait4(p.pid, 0)  # reaped here, for its rusage
    p.returncode = os.waitstatus_to_exitcode(status)
    CPU.seconds = getattr(CPU, "seconds", 0.0) + usage.ru_utime + usage.ru_stime
    CPU.system = getattr(CPU, "system", 0.0) + usage.ru_stime
    if fired:
        raise subprocess.TimeoutExpired(cmd, timeout, output=out)
    return p.returncode, out.decode(errors="replace")


# make check grades beside another lane on two cores, so each of its grades gives the emulator
# one host thread (SCANLAB_EMU_WORKERS=1), as grade-class gives each student where JOBS fills the
# cores: a verdict does not depend on the count, and a second host thread only waited for a core
# the other lane held (two lab 05 grades side by side, the look-back, reduce-then-scan,
# propagate, huge, in-place and repeat tests: 29 CPU seconds each with one host thread, 33 to 34
# with two). The cases that compare host thread counts grade with the machine's own count
# (MACHINE_WORKERS) and the others they name, in `env`.
GRADE_WORKERS = "1"
MACHINE_WORKERS = str(os.cpu_count() or 1)


def run_grader(submission, labs, backend="emu", schedule=None, tests=(), max_timeout=None,
               tag="run", extra=(), env=None):
    """Grades and returns (exit code, output, results.json as a dict). `schedule` None: the
    grader's own default; `env`: more environment (SCANLAB_MANIFESTS, say; SCANLAB_EMU_WORKERS
    replaces GRADE_WORKERS)."""
    results = os.path.join(BUILD, f"{tag}.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", backend,
           "--submission", submission, "--results", results] + list(extra)
    for lab in labs:
        cmd += ["--lab", lab]
    for t in tests:
        cmd += ["--test", t]
    if max_timeout:
        cmd += ["--max-timeout", str(max_timeout)]
    env = {"SCANLAB_EMU_WORKERS": GRADE_WORKERS, **(env or {}), "NO_COLOR": "1"}
    if schedule:
        env["SCANLAB_EMU_SCHEDULE"] = schedule
    code, out = sh(cmd, env=env)
    os.makedirs(BUILD, exist_ok=True)
    with open(os.path.join(BUILD, f"{tag}.out"), "w") as f:  # the grader's own lines, each test's time in them
        f.write(out)
    data = json.load(open(results)) if os.path.exists(results) else {"tests": [], "score": None,
                                                                     "max_score": None}
    return code, out, data


def by_name(data):
    """{test name: entry} from results.json (names are 'labNN name: title')."""
    out = {}
    for t in data["tests"]:
        out[t["name"].split(":")[0].split(" ", 1)[1]] = t
    return out


def is_skip(entry):
    return entry["max_score"] == 0 and entry["output"].startswith("SKIPPED")


def max_problem(data, labs, backend, tests=()):
    """None when results.json's maximum is what the backend alone makes it (the points of the
    chosen tests that count there, graded_here), else what is wrong: a maximum that depends on
    the answer grades one student out of more points than another."""
    want = sum(int(t["points"]) for m in grade.all_manifests() if m["lab"] in labs for t in m["test"]
               if (not tests or t["name"] in tests) and grade.graded_here(t, m, backend))
    if data.get("max_score") is not None and data["max_score"] != want:
        return (f"the maximum is {data['max_score']} where the {backend} backend makes it {want}: it depends on the "
                f"answer")
    return None


# ---- checks ------------------------------------------------------------------------------

BEGIN = re.compile(r"/\* STUDENT-BEGIN\(lab(\d\d)\) \*/")
END = re.compile(r"/\* STUDENT-END\(lab(\d\d)\) \*/")


def autograder_layout(work, labs):
    """Builds the autograder zip for `labs` and unpacks it as Gradescope does (work/source);
    returns the source folder."""
    zpath = os.path.join(work, "autograder.zip")
    cmd = [sys.executable, "grader/course/kit.py", "autograder", "--out", zpath]
    for lab in labs:
        cmd += ["--lab", lab]
    code, out = sh(cmd)
    if code != 0:
        raise CheckFailed("make autograder failed:\n" + out)
    src = os.path.join(work, "source")
    with zipfile.ZipFile(zpath) as z:
        z.extractall(src)
    for name in ("setup.sh", "run_autograder"):
        os.chmod(os.path.join(src, name), 0o755)
    return src


def write_manifests(folder, texts):
    """The manifests {name: text} into `folder`, each written only where it differs, by rename (a
    grade reading the folder never sees one half written); returns the grader's environment."""
    os.makedirs(folder, exist_ok=True)
    for name, text in texts.items():
        dst = os.path.join(folder, name)
        if not os.path.exists(dst) or open(dst).read() != text:
            tmp = f"{dst}.{os.getpid()}.{threading.get_ident()}.tmp"
            open(tmp, "w").write(text)
            os.replace(tmp, dst)
    return {"SCANLAB_MANIFESTS": folder}


def small_manifests(limit, source=None):
    """The kit's manifests (or those in the folder `source`) with every `sizes` list cut to its
    sizes up to `limit` (the smallest kept where all are larger): the same tests, the same other
    parameters. Manifests this made already are returned as they are."""
    mine = f"manifests-small-{limit}"
    if source and (os.path.basename(source) == mine or os.path.basename(source).startswith(mine + "-")):
        return {"SCANLAB_MANIFESTS": source}
    def cut(m):
        sizes = [s.strip() for s in m.group(2).split(",")]
        kept = [s for s in sizes if int(s) <= limit] or [min(sizes, key=int)]
        return f'{m.group(1)}"{",".join(kept)}"'
    folder = source or grade.MANIFESTS
    texts = {}
    for name in sorted(os.listdir(folder)):
        src = os.path.join(folder, name)
        if os.path.isfile(src):
            texts[name] = re.sub(r'(\bsizes\s*=\s*)"([\d,\s]+)"', cut, open(src).read())
    where = mine + (f"-{os.path.basename(source)}" if source else "")
    return write_manifests(os.path.join(BUILD, where), texts)


def quick_lab01_manifests():
    """The environment of the checks that grade lab 01 to test the course's machinery (a class,
    Slurm, Gradescope's uploads, a handin), not the CPU's bandwidth: the kit's manifests with lab
    01's timing test at 2^20 elements, 3 runs, threshold 0.003 (the kit's: 2^25, 5, 0.03). At
    the kit's size the timing test was most of 44 lab 01 grades (lab 01's own solutions-pass
    check, which tests the threshold, runs alone). At 2^20 the copy runs from the cache, and
    what shares the cache moves its CPU time: in a class graded beside another lane the
    solutions measured 0.033 to 0.24 of memcpy (on the wall clock, before the test took CPU
    seconds, 0.009 to 3.5, and once under 0.003 on CI): hence the lower threshold, which a right
    scan clears by far (the wrong ones fail their other tests as at the kit's size). Each file is
    written only where it differs, by rename, so a grade reading the folder never sees it half
    written."""
    old = "params = { n = 33554432, reps = 5, threshold = 0.03 }"
    texts = {}
    for name in sorted(os.listdir(grade.MANIFESTS)):
        src = os.path.join(grade.MANIFESTS, name)
        if not os.path.isfile(src):
            continue
        text = open(src).read()
        if name == "lab01.toml":
            if text.count(old) != 1:
                raise CheckFailed(f"the course checks shrink lab 01's timing test, whose params are no longer "
                                  f"'{old}' in grader/manifests/lab01.toml: follow it here (quick_lab01_manifests)")
            text = text.replace(old, "params = { n = 1048576, reps = 3, threshold = 0.003 }")
        texts[name] = text
    return write_manifests(os.path.join(BUILD, "manifests-course"), texts)
