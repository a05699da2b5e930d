#!/usr/bin/env python3
"""ScanLab grader: builds each lab's tests against a submission and runs them one by one.

Each test runs in its own process with its own timeout. Verdicts come over a pipe the grader
opens and names in the child's environment together with a secret nonce; whatever the test
prints on stdout or stderr goes to a log file and never decides a grade.

Usage (the Makefile's `grade` and `test` targets call this):
    grade.py [--lab NN]... [--submission PATH] [--backend cuda|emu] [--test NAME]...
             [--verbose] [--results FILE] [--keep-going]
"""
import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time

try:
    import tomllib
except ImportError:  # Python < 3.11: the kit's own reader of the manifests' TOML subset
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import minitoml as tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFESTS = os.path.join(ROOT, "grader", "manifests")
BUILD = os.path.join(ROOT, "build")


# ---- manifests ---------------------------------------------------------------------------

class ManifestError(Exception):
    pass


def load_manifest(path):
    with open(path, "rb") as f:
        m = tomllib.load(f)
    where = os.path.relpath(path, ROOT)
    for key in ("lab", "dir", "title", "student_files", "test_source", "test"):
        if key not in m:
            raise ManifestError(f"{where}: missing '{key}'")
    names = set()
    for t in m["test"]:
        for key in ("name", "points"):
            if key not in t:
                raise ManifestError(f"{where}: a test has no '{key}'")
        if t["name"] in names:
            raise ManifestError(f"{where}: test '{t['name']}' appears twice")
        names.add(t["name"])
        if not re.fullmatch(r"[A-Za-z0-9_]+", t["name"]):
            raise ManifestError(f"{where}: test name '{t['name']}' must be letters, digits, _")
    m["path"] = where
    return m


def all_manifests():
    out = []
    for name in sorted(os.listdir(MANIFESTS)):
        if re.fullmatch(r"lab\d\d\.toml", name):
            out.append(load_manifest(os.path.join(MANIFESTS, name)))
    return out


def test_settings(manifest, test, backend):
    """Timeout and parameters of one test on one backend (lab, then test, then backend)."""
    params = dict(manifest.get("params", {}))
    params.update(test.get("params", {}))
    timeout = test.get("timeout", manifest.get("timeout", 30))
    over = test.get(backend, {})
    params.update(over.get("params", {}))
    timeout = over.get("timeout", timeout)
    return float(timeout), params


# ---- submissions -------------------------------------------------------------------------

def submission_key(path):
    """A short, filesystem-safe name for a submission, used for its build folder."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    if rel in ("skeletons", "solutions"):
        return rel
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(os.path.abspath(path)))[:40]
    return "sub-" + (base or "submission")


def unpack_tarball(path, dest):
    """Extracts a handin tarball, refusing links, devices and paths that leave dest."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name)
            if name.startswith("..") or os.path.isabs(name):
                raise ValueError(f"{path}: refusing entry '{member.name}' outside the tarball")
            if member.isdir():
                continue
            if not member.isfile():
                raise ValueError(f"{path}: refusing '{member.name}' (not a regular file)")
            src = tar.extractfile(member)
            target = os.path.join(dest, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            os.utime(target, (member.mtime, member.mtime))
    return dest


def find_student_file(sub_dir, lab_dir, name):
    """The submission's copy of a student file: NN-name/file, or file at the top (flat upload)."""
    for cand in (os.path.join(sub_dir, lab_dir, name), os.path.join(sub_dir, name)):
        if os.path.isfile(cand):
            return cand
    return None


def stage(manifest, sub_dir, stage_dir):
    """Copies the lab's student files into stage_dir/NN-name/; returns the missing ones."""
    missing = []
    for name in manifest["student_files"]:
        src = find_student_file(sub_dir, manifest["dir"], name)
        dst = os.path.join(stage_dir, manifest["dir"], name)
        if src is None:
            missing.append(f"{manifest['dir']}/{name}")
            if os.path.exists(dst):
                os.remove(dst)
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not (os.path.exists(dst) and open(src, "rb").read() == open(dst, "rb").read()):
            shutil.copy2(src, dst)
    return missing


# ---- backend -------------------------------------------------------------------------------

def detect_backend():
    if shutil.which("nvcc") and shutil.which("nvidia-smi"):
        try:
            r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20)
            if r.returncode == 0 and b"GPU" in r.stdout:
                return "cuda"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "emu"


# ---- running one test ----------------------------------------------------------------------

SIGNAL_NAMES = {
    signal.SIGSEGV: "SIGSEGV (segmentation fault: a bad pointer or an out-of-bounds access)",
    signal.SIGABRT: "SIGABRT (abort: a failed assert or a corrupted heap)",
    signal.SIGFPE: "SIGFPE (arithmetic error: an integer division by zero?)",
    signal.SIGBUS: "SIGBUS (bus error: a misaligned or unmapped access)",
    signal.SIGILL: "SIGILL (illegal instruction)",
    signal.SIGKILL: "SIGKILL (killed: out of memory?)",
}


class Result:
    def __init__(self, name, title, points, timing):
        self.name, self.title, self.points, self.timing = name, title, points, timing
        self.status = "fail"        # pass | fail | skip
        self.reasons = []           # lines explaining a FAIL or SKIP
        self.notes = []
        self.metrics = {}
        self.seconds = 0.0
        self.log = None

    @property
    def score(self):
        return self.points if self.status == "pass" else 0


def tail(path, lines=6):
    try:
        with open(path, "r", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return []
    text = [t for t in text if t.strip()]
    return text[-lines:]


def run_test(binary, result, timeout, params, log_path, env_extra):
    r_fd, w_fd = os.pipe()
    nonce = secrets.token_hex(16)
    env = dict(os.environ)
    env.update(env_extra)
    env["SCANLAB_RESULT_FD"] = str(w_fd)
    env["SCANLAB_NONCE"] = nonce
    # On emu, the emulator's own watchdog explains a hang better than our kill does.
    env.setdefault("SCANLAB_EMU_WATCHDOG_S", str(max(1, int(timeout) - 2)))
    cmd = [binary]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    cmd.append(result.name)
    events = []

    def reader():
        with os.fdopen(r_fd, "r", errors="replace") as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if isinstance(ev, dict) and ev.get("nonce") == nonce:
                    events.append(ev)

    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        try:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, pass_fds=(w_fd,), start_new_session=True, cwd=ROOT)
        except OSError as e:
            os.close(w_fd)
            os.close(r_fd)
            result.reasons = [f"could not run the test binary: {e}"]
            return result
        os.close(w_fd)
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        timed_out = False
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            code = proc.wait()
        th.join(timeout=5)
    result.seconds = time.monotonic() - t0
    result.log = log_path

    fails = [e.get("text", "") for e in events if e.get("event") == "fail"]
    result.notes = [e.get("text", "") for e in events if e.get("event") == "note"]
    result.metrics = {e.get("key"): e.get("value") for e in events if e.get("event") == "metric"}
    ends = [e for e in events if e.get("event") == "end"]
    end = ends[-1] if ends else None

    # The emulator's diagnostics name the barrier, lane or launch at fault: always show them.
    emu_lines = [line for line in tail(log_path, 200) if line.startswith("emu: ")][:4]
    if timed_out:
        result.status = "fail"
        result.reasons = fails + [f"timed out after {timeout:g} s: an endless loop, a hung kernel "
                                  "or a barrier not all threads reach"] + tail(log_path, 4)
    elif end is None:
        result.status = "fail"
        if code < 0:
            why = f"crashed with {SIGNAL_NAMES.get(-code, signal.Signals(-code).name)}"
        else:
            why = f"exited with code {code} before the test finished"
        result.reasons = fails + [why] + tail(log_path, 6)
    elif end.get("key") == "pass" and code == 0 and not fails:
        result.status = "pass"
    elif end.get("key") == "skip" and code == 0 and not fails:
        result.status = "skip"
        result.reasons = [end.get("text") or "skipped"]
    else:
        result.status = "fail"
        result.reasons = fails or [f"failed (exit code {code})"] + tail(log_path, 6)
        result.reasons += [line for line in emu_lines if line not in result.reasons]
        if end.get("key") == "pass":
            result.reasons.append(f"the test passed but the process then exited with code {code}")
            result.reasons += tail(log_path, 4)
    # Student files are compiled from a staging copy: name them as the student knows them.
    result.reasons = [re.sub(r"build/grade/\S*?/src/", "", r) for r in result.reasons]
    return result


# ---- building ---------------------------------------------------------------------------------

def build_lab(manifest, backend, stage_dir, out_dir, log_path, sm):
    lab_backend = manifest.get("backend", backend)
    if lab_backend not in ("cpu", "cuda", "emu"):
        raise ManifestError(f"{manifest['path']}: backend must be cpu, cuda or emu")
    if lab_backend != "cpu":
        lab_backend = backend
    files = " ".join(f"{manifest['dir']}/{f}" for f in manifest["student_files"])
    cmd = ["make", "--no-print-directory", "-f", "grader/build.mk",
           f"BACKEND={lab_backend}", f"LAB={manifest['lab']}", f"SRC_DIR={os.path.relpath(stage_dir, ROOT)}",
           f"STUDENT_FILES={files}", f"TEST_SRC={manifest['test_source']}",
           f"KIT_SOURCES={' '.join(manifest.get('kit_sources', []))}",
           f"OUT={os.path.relpath(out_dir, ROOT)}", f"SM={sm}"]
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    return code == 0, os.path.join(out_dir, f"lab{manifest['lab']}_tests")


def first_errors(log_path, limit=4):
    lines = []
    for line in tail(log_path, 400):
        if re.search(r"\berror\b|undefined reference|No rule to make", line, re.I):
            lines.append(line.strip())
    return lines[:limit] or tail(log_path, limit)


# ---- output --------------------------------------------------------------------------------

def use_color():
    return sys.stdout.isatty() and os.environ.get("NO_COLOR") is None


def paint(text, code):
    return f"\033[{code}m{text}\033[0m" if use_color() else text


def print_result(r, verbose):
    label = {"pass": paint("OK", "32"), "fail": paint("FAIL", "31"), "skip": paint("SKIP", "33")}[r.status]
    line = f"  {r.name}: {label} ({r.seconds:.1f}s)"
    if r.status == "skip":
        line = f"  {r.name}: {label} ({r.reasons[0]})"
    print(line, flush=True)
    if r.status == "fail":
        shown = r.reasons if verbose else r.reasons[:6]
        for reason in shown:
            print(f"      {reason}")
        if len(shown) < len(r.reasons):
            print(f"      ... ({len(r.reasons) - len(shown)} more lines)")
        if r.log:
            print(f"      full output: {os.path.relpath(r.log, ROOT)}")
    for note in r.notes:
        if verbose or r.timing:
            print(f"      {note}")


def gradescope_json(labs_results, total, max_total):
    tests = []
    for manifest, results in labs_results:
        for r in results:
            out = "\n".join(r.reasons + r.notes)
            entry = {"name": f"lab{manifest['lab']} {r.name}: {r.title}",
                     "score": r.score, "max_score": r.points if r.status != "skip" else 0,
                     "output": out}
            if r.status == "skip":
                entry["output"] = "SKIPPED, not counted: " + out
                entry["status"] = "passed"  # Gradescope knows only passed/failed; 0 of 0 points
            else:
                entry["status"] = "passed" if r.status == "pass" else "failed"
            tests.append(entry)
    return {"score": total, "max_score": max_total, "output": f"Score: {total}/{max_total}", "tests": tests}


# ---- main ----------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Grade ScanLab labs.")
    ap.add_argument("--lab", action="append", default=[],
                    help="lab number (01, 2, ...) or a comma list; default every lab")
    ap.add_argument("--submission", default="skeletons",
                    help="folder or handin tarball with the student's files (default skeletons)")
    ap.add_argument("--backend", default=os.environ.get("BACKEND") or None,
                    help="cuda or emu (default: cuda where a GPU answers)")
    ap.add_argument("--test", action="append", default=[], help="run only tests with this name")
    ap.add_argument("--verbose", action="store_true", help="show every failure line and note")
    ap.add_argument("--results", default=None, help="where to write results.json")
    ap.add_argument("--sm", default=os.environ.get("SM", "90"), help="CUDA architecture (90)")
    ap.add_argument("--max-timeout", type=float, default=None,
                    help="cap every test's timeout at this many seconds (the kit's self-test)")
    args = ap.parse_args(argv)

    backend = args.backend or detect_backend()
    if backend not in ("cuda", "emu"):
        print(f"grader: BACKEND must be cuda or emu, not '{backend}'", file=sys.stderr)
        return 2

    try:
        manifests = all_manifests()
    except (ManifestError, tomllib.TOMLDecodeError) as e:
        print(f"grader: manifest error: {e}", file=sys.stderr)
        return 2
    wanted = set()
    for item in args.lab:
        for lab in item.split(","):
            if lab.strip():
                wanted.add(f"{int(lab):02d}" if lab.strip().isdigit() else lab.strip())
    if wanted:
        unknown = wanted - {m["lab"] for m in manifests}
        if unknown:
            print(f"grader: no lab {', '.join(sorted(unknown))} (labs: "
                  f"{', '.join(m['lab'] for m in manifests)})", file=sys.stderr)
            return 2
        manifests = [m for m in manifests if m["lab"] in wanted]

    sub = args.submission
    if not os.path.exists(sub):
        print(f"grader: submission '{sub}' does not exist", file=sys.stderr)
        return 2
    key = submission_key(sub)
    grade_dir = os.path.join(BUILD, "grade", backend, key)
    if os.path.isfile(sub):
        try:
            sub_dir = unpack_tarball(sub, os.path.join(grade_dir, "unpacked"))
        except (tarfile.TarError, ValueError, OSError) as e:
            print(f"grader: cannot read submission '{sub}': {e}", file=sys.stderr)
            return 2
    else:
        sub_dir = sub
    stage_dir = os.path.join(grade_dir, "src")

    print(f"Grading {sub} on the {backend} backend"
          + (f" (emu schedule {os.environ.get('SCANLAB_EMU_SCHEDULE', 'forward')})" if backend == "emu" else ""),
          flush=True)
    labs_results = []
    total = max_total = skipped_points = 0
    for m in manifests:
        print(f"\nlab {m['lab']} ({m['title']})", flush=True)
        tests = [t for t in m["test"] if not args.test or t["name"] in args.test]
        results = [Result(t["name"], t.get("title", t["name"]), int(t["points"]), bool(t.get("timing")))
                   for t in tests]
        missing = stage(m, sub_dir, stage_dir)
        out_dir = os.path.join(BUILD, m.get("backend") if m.get("backend") == "cpu" else backend,
                               key, f"lab{m['lab']}")
        build_log = os.path.join(grade_dir, "logs", f"lab{m['lab']}", "build.log")
        if missing:
            for f in missing:
                print(f"  missing student file {f} in the submission")
            for r in results:
                r.reasons = ["missing student file: " + ", ".join(missing)]
        else:
            t0 = time.monotonic()
            ok, binary = build_lab(m, backend, stage_dir, out_dir, build_log, args.sm)
            if not ok:
                print("  does not compile:")
                for line in first_errors(build_log):
                    print(f"      {line}")
                print(f"      build log: {os.path.relpath(build_log, ROOT)}")
                for r in results:
                    r.reasons = ["does not compile (errors above)"]
            else:
                print(f"  (built in {time.monotonic() - t0:.1f}s)", flush=True)
        for t, r in zip(tests, results):
            if not r.reasons:
                timeout, params = test_settings(m, t, backend)
                if args.max_timeout:
                    timeout = min(timeout, args.max_timeout)
                log = os.path.join(grade_dir, "logs", f"lab{m['lab']}", f"{t['name']}.log")
                run_test(binary, r, timeout, params, log, {})
            print_result(r, args.verbose)
        score = sum(r.score for r in results)
        possible = sum(r.points for r in results if r.status != "skip")
        skipped = sum(r.points for r in results if r.status == "skip")
        total += score
        max_total += possible
        skipped_points += skipped
        extra = f" ({skipped} points skipped, not counted)" if skipped else ""
        print(f"lab {m['lab']} score: {score}/{possible}{extra}", flush=True)
        labs_results.append((m, results))

    results_path = args.results or os.path.join(grade_dir, "results.json")
    os.makedirs(os.path.dirname(os.path.abspath(results_path)), exist_ok=True)
    with open(results_path, "w") as f:
        json.dump(gradescope_json(labs_results, total, max_total), f, indent=2)
    print(f"\nScore: {total}/{max_total}"
          + (f" ({skipped_points} points of timing tests skipped: no GPU)" if skipped_points else ""))
    print(f"results: {os.path.relpath(results_path, ROOT) if not args.results else results_path}")
    return 0 if total == max_total and max_total > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
