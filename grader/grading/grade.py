#!/usr/bin/env python3
"""ScanLab grader: builds each lab against a submission and runs its tests one by one.

Trust is split three ways:
  - this program and each lab's test binary (build/kit/tests/labNN_tests) are kit code: they
    make the inputs, compute the references, compare, time and decide;
  - the student's code is spliced into the pristine kit files (only the STUDENT regions
    count), checked for what the lab forbids, built inside the sandbox as a user of its own,
    and linked into a *driver* that the test binary starts, again inside the sandbox, for
    every test: it receives inputs and returns outputs, and decides nothing;
  - results.json is written once, atomically, by this program, when grading has finished.

Usage (the Makefile's `grade` and `test` targets call this):
    grade.py [--lab NN]... [--submission PATH] [--backend cuda|emu] [--test NAME]...
             [--verbose] [--results FILE] [--schedule S] [--sm 90]

Why one file (past 800 lines): one pass over a submission, from its manifest to results.json,
with each limit beside the code it bounds.
"""
import argparse
import concurrent.futures
import difflib
import errno
import fcntl
import glob
import hashlib
import json
import lzma
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
import zipfile

import codecheck  # grader/grading/codecheck.py: what student code may hold and call

try:
    import tomllib
except ImportError:  # Python < 3.11: the kit's own reader of the manifests' TOML subset
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import minitoml as tomllib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402  (what a submission path is; the timing figures of a leaderboard)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The self-test points this elsewhere to try broken manifests.
MANIFESTS = os.environ.get("SCANLAB_MANIFESTS") or os.path.join(ROOT, "grader", "manifests")
BUILD = os.path.join(ROOT, "build")
KIT = os.path.join(BUILD, "kit")
SANDBOX = os.path.join(KIT, "bin", "scanlab-sandbox")

# The emu thread schedule grades run under (make check grades the solutions under reverse too,
# and its known-bad races under forward as well): a fresh
# random order for every block and barrier interval exposes a missing barrier whichever way
# it would show, and the seed makes the grade repeatable.
GRADE_SCHEDULE = "random:20261122"


# ---- manifests ---------------------------------------------------------------------------

class ManifestError(Exception):
    pass


# key: (types, required, description). Types are Python types; bool is never an int here.
TOP_KEYS = {
    "lab": ((str,), True), "dir": ((str,), True), "title": ((str,), True),
    "student_files": ((list,), True), "test_source": ((str,), True), "calls_source": ((str,), True),
    "backend": ((str,), False), "timeout": ((int, float), False), "params": ((dict,), False),
    "test": ((list,), True), "limits": ((dict,), False), "forbid": ((list,), False),
    "given_calls": ((list,), False), "allow": ((list,), False), "race_note": ((str,), False),
    "emu_seconds": ((int, float), False),
}
TEST_KEYS = {
    "name": ((str,), True), "title": ((str,), False), "points": ((int,), True),
    "timing": ((bool,), False), "timeout": ((int, float), False), "params": ((dict,), False),
    "emu": ((dict,), False), "cuda": ((dict,), False), "visibility": ((str,), False), "alone": ((bool,), False),
    "counters": ((bool,), False), "gpu": ((dict,), False),
}
OVERRIDE_KEYS = {"params": ((dict,), False), "timeout": ((int, float), False)}
LIMIT_KEYS = {"memory_mb": ((int,), False), "files_mb": ((int,), False), "processes": ((int,), False),
              "tmp_mb": ((int,), False), "build_timeout": ((int, float), False),
              "host_copy_bytes": ((int,), False)}
LIMIT_DEFAULTS = {"memory_mb": 4096, "files_mb": 64, "processes": 64, "tmp_mb": 64,
                  "build_timeout": 120, "host_copy_bytes": 0}
VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")
PARAM_TYPES = (int, float, str)


def _check_table(table, schema, where):
    for key in table:
        if key not in schema:
            close = difflib.get_close_matches(key, list(schema), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(schema))})"
            raise ManifestError(f"{where}: unknown key '{key}'{hint}")
    for key, (types, required) in schema.items():
        if key not in table:
            if required:
                raise ManifestError(f"{where}: missing '{key}'")
            continue
        v = table[key]
        if isinstance(v, bool) and bool not in types:
            ok = False
        else:
            ok = isinstance(v, types)
        if not ok:
            words = {"str": "a string", "int": "a whole number", "float": "a number",
                     "list": "a list", "dict": "a table", "bool": "true or false"}
            want = "a number" if float in types else " or ".join(words[t.__name__] for t in types)
            raise ManifestError(f"{where}: '{key}' must be {want}, not {v!r}")


def _check_params(params, where):
    for k, v in params.items():
        if isinstance(v, bool) or not isinstance(v, PARAM_TYPES):
            raise ManifestError(f"{where}: parameter '{k}' must be a number or a string, not {v!r}")
        if k.startswith("threshold"):
            if isinstance(v, str) or not 0 < v <= 1:
                raise ManifestError(f"{where}: parameter '{k}' = {v!r}: a threshold is a fraction "
                                    "in (0, 1]")
        if k in ("reps", "n", "seed", "block") and (isinstance(v, str) or v < 0 or v != int(v)):
            raise ManifestError(f"{where}: parameter '{k}' = {v!r} must be a whole number >= 0")


def load_manifest(path):
    where = os.path.relpath(path, ROOT)
    try:
        with open(path, "rb") as f:
            m = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"{where}: {e}")
    _check_table(m, TOP_KEYS, where)
    if not re.fullmatch(r"\d\d", m["lab"]):
        raise ManifestError(f"{where}: 'lab' must be two digits, not {m['lab']!r}")
    if m.get("backend", "gpu") not in ("gpu", "cpu"):
        raise ManifestError(f"{where}: 'backend' must be \"cpu\" (a lab without kernels) or left out")
    if "timeout" in m and m["timeout"] <= 0:
        raise ManifestError(f"{where}: 'timeout' must be more than 0 seconds")
    if not m["student_files"] or not all(isinstance(f, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", f)
                                         for f in m["student_files"]):
        raise ManifestError(f"{where}: 'student_files' must be plain file names")
    for key in ("forbid", "allow", "given_calls"):
        if not all(isinstance(f, str) and f for f in m.get(key, [])):
            raise ManifestError(f"{where}: '{key}' must be a list of names")
    for a in m.get("allow", []):
        if a.startswith("@") and a[1:] not in codecheck.GROUPS:
            close = difflib.get_close_matches(a[1:], list(codecheck.GROUPS), n=1)
            hint = f" (did you mean '@{close[0]}'?)" if close else \
                f" (groups: {', '.join('@' + g for g in codecheck.GROUPS)})"
            raise ManifestError(f"{where}: 'allow' names the group '{a}', which does not exist{hint}")
    _check_params(m.get("params", {}), f"{where} [params]")
    limits = dict(LIMIT_DEFAULTS)
    _check_table(m.get("limits", {}), LIMIT_KEYS, f"{where} [limits]")
    for k, v in m.get("limits", {}).items():
        if v <= 0 and k != "host_copy_bytes":
            raise ManifestError(f"{where} [limits]: '{k}' must be more than 0")
        limits[k] = v
    m["limits"] = limits
    names = set()
    for i, t in enumerate(m["test"]):
        if not isinstance(t, dict):
            raise ManifestError(f"{where}: test {i + 1} is not a table")
        tw = f"{where}: test '{t.get('name', i + 1)}'"
        _check_table(t, TEST_KEYS, tw)
        if not re.fullmatch(r"[A-Za-z0-9_]+", t["name"]):
            raise ManifestError(f"{tw}: the name must be letters, digits and _")
        if t["name"] in names:
            raise ManifestError(f"{tw}: appears twice")
        names.add(t["name"])
        if t["points"] <= 0:
            raise ManifestError(f"{tw}: 'points' must be a whole number above 0, not {t['points']}")
        if "timeout" in t and t["timeout"] <= 0:
            raise ManifestError(f"{tw}: 'timeout' must be more than 0 seconds")
        if t.get("visibility", "visible") not in VISIBILITY:
            raise ManifestError(f"{tw}: 'visibility' must be one of {', '.join(VISIBILITY)}")
        _check_params(t.get("params", {}), tw)
        for b in ("emu", "cuda"):
            if b in t:
                _check_table(t[b], OVERRIDE_KEYS, f"{tw} [test.{b}]")
                _check_params(t[b].get("params", {}), f"{tw} [test.{b}]")
                if "timeout" in t[b] and t[b]["timeout"] <= 0:
                    raise ManifestError(f"{tw} [test.{b}]: 'timeout' must be more than 0 seconds")
        for model, over in t.get("gpu", {}).items():
            gw = f"{tw} [test.gpu.{model}]"
            if not t.get("timing"):
                raise ManifestError(f"{gw}: only a timing test has thresholds of its own for a GPU model")
            if not re.fullmatch(r"[A-Za-z0-9]+", model):
                raise ManifestError(f"{gw}: a GPU model is a word of nvidia-smi's name for it (H100, H200, A100)")
            if not isinstance(over, dict):
                raise ManifestError(f"{gw}: must be a table with 'params'")
            _check_table(over, {"params": ((dict,), True)}, gw)
            _check_params(over["params"], gw)
            cuda = test_settings(m, t, "cuda")[1]
            for k in over["params"]:
                if k not in cuda or not re.match(r"(threshold|min_|flat_threshold)", k):
                    raise ManifestError(f"{gw}: '{k}' is not one of the test's thresholds "
                                        f"({', '.join(x for x in cuda if re.match(r'(threshold|min_|flat_)', x))})")
        if t.get("timing"):
            merged = {**m.get("params", {}), **t.get("params", {})}
            if not any(k.startswith("threshold") for k in merged):
                raise ManifestError(f"{tw}: a timing test needs a 'threshold' parameter")
    for key in ("test_source", "calls_source"):
        if not os.path.isfile(os.path.join(ROOT, m[key])):
            raise ManifestError(f"{where}: '{key}' names {m[key]}, which does not exist")
    m["path"] = where
    return m


def all_manifests():
    out = []
    for name in sorted(os.listdir(MANIFESTS)):
        if re.fullmatch(r"lab\d\d\.toml", name):
            out.append(load_manifest(os.path.join(MANIFESTS, name)))
    return out


def lab_backend(manifest, backend):
    return "cpu" if manifest.get("backend") == "cpu" else backend


def graded_here(test, manifest, backend):
    """Whether a test counts on this backend: timing tests need a GPU (or the CPU, for a lab
    without kernels), the efficiency tests that read the emu's counters (`counters`, not timing)
    need the emu. The answer depends on the backend alone, never on what the test reported, so
    every student's maximum is the same. A test not graded here still runs (run_settings): a
    timing test on emu checks its timed calls once at its emu size and shows the memory model's
    figures, reported as a skip."""
    lb = lab_backend(manifest, backend)
    if test.get("timing"):
        return lb != "emu"
    if test.get("counters"):
        return lb == "emu"
    return True


def run_settings(manifest, test, backend, sizes_of=None, gpu=None):
    """Timeout and parameters of a test as it runs on `backend` (test_settings() with the sizes
    of `sizes_of`, default the lab's backend; `gpu`: the device's name, for its model's
    thresholds). A test not graded here runs under the lab's timeout unless its own table for
    the backend sets one: its long timing timeout is for a GPU."""
    lb = lab_backend(manifest, backend)
    timeout, params = test_settings(manifest, test, sizes_of or (lb if lb != "cpu" else backend),
                                    gpu=gpu if lb == "cuda" else None)
    if not graded_here(test, manifest, backend) and "timeout" not in test.get(lb, {}):
        timeout = min(timeout, float(manifest.get("timeout", 30)))
    return timeout, params


def test_settings(manifest, test, backend, gpu=None):
    """Timeout and parameters of one test on one backend (lab, then test, then backend, then, on
    a GPU whose name holds one of the test's `[test.gpu.MODEL]` words, that model's thresholds)."""
    params = dict(manifest.get("params", {}))
    params.update(test.get("params", {}))
    timeout = test.get("timeout", manifest.get("timeout", 30))
    over = test.get(backend, {})
    params.update(over.get("params", {}))
    timeout = over.get("timeout", timeout)
    model = gpu_model(test, gpu) if backend == "cuda" else None
    if model:
        params.update(test["gpu"][model]["params"])
    return float(timeout), params


def gpu_model(test, gpu):
    """The `[test.gpu.MODEL]` of a timing test that the device named `gpu` is (a whole word of
    its name: "NVIDIA H200" is H200, "NVIDIA H100 80GB HBM3" H100), or None."""
    for model in (test.get("gpu") or {}) if gpu else ():
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(model)}(?![A-Za-z0-9])", gpu, re.I):
            return model
    return None


def gpu_name():
    """The name of the GPU the tests run on (the first one CUDA_VISIBLE_DEVICES leaves, as the
    harness uses), from nvidia-smi; None where it cannot say."""
    first = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", first],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    name = r.stdout.strip().splitlines()[0].strip() if r.returncode == 0 and r.stdout.strip() else ""
    return name or None


# ---- text that reaches a terminal, a log or results.json ------------------------------------

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text, limit=400):
    """Control characters out (no escape sequence reaches a terminal), one line capped."""
    text = CONTROL.sub("?", str(text))
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} characters cut]"


def tail(path, lines=6, limit=64 * 1024, skip=None):
    """The last lines of a file, reading at most `limit` bytes of it (less those starting with
    `skip`)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            text = f.read().decode(errors="replace").splitlines()
    except OSError:
        return []
    return [clean(t) for t in text if t.strip() and not (skip and t.startswith(skip))][-lines:]


# ---- submissions ---------------------------------------------------------------------------

class SubmissionError(Exception):
    pass


TAR_LIMITS = {"bytes": 32 << 20, "members": 2000, "unpacked": 64 << 20, "member": 16 << 20}
STUDENT_FILE_MAX = 1 << 20


# The source check's preprocessor runs: address space (the build: 16 GiB). Each lab's solution
# preprocesses within 128 MiB, with nvcc -E and with the emu's g++ -E (its largest output, lab
# 08's, is 2 MiB); a macro that expands without end meets 256 MiB in half a second of CPU, where
# it took 4 s to meet 1 GiB, three runs at once
CHECK_MEM_MB = 256
CHECK_CPU_S = 5           # ... and CPU seconds a process (the build: 4 x build_timeout)
TAR_HEADER_MAX = 64 << 10  # a pax or GNU long-name header's body: a name and a few keys


def _tar_stream(f, gz):
    """The tarball's bytes, in chunks of at most 1 MiB: gunzipped where `gz` (every member of a
    gzip stream, as Python's gzip reads them all), else as they are."""
    z = zlib.decompressobj(16 + zlib.MAX_WBITS) if gz else None
    while True:
        raw = f.read(1 << 16)
        if z is None:
            if not raw:
                return
            yield raw
            continue
        data = raw
        while data:
            out = z.decompress(data, 1 << 20)
            if out:
                yield out
            if z.eof:  # a member ends: the next starts in what is left
                data = z.unused_data
                z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            else:
                data = z.unconsumed_tail
        if not raw:
            tail = z.flush()
            if tail:
                yield tail
            return


def check_tarball(path):
    """Walks a tarball's headers in a stream, in bounded memory, before tarfile reads it: Python's
    tarfile reads a pax or GNU long-name header's body whole, whatever size the header claims (a
    510 KiB handin of zeros held 1.5 GiB). Refuses, with SubmissionError, a header body past
    TAR_HEADER_MAX, a stream that unpacks past the limits, and compression other than gzip."""
    if os.path.getsize(path) > TAR_LIMITS["bytes"]:
        raise SubmissionError(f"{path}: larger than {TAR_LIMITS['bytes'] >> 20} MiB")
    cap = TAR_LIMITS["unpacked"] + (TAR_LIMITS["members"] + 2) * (512 + TAR_HEADER_MAX)
    with open(path, "rb") as f:
        magic = f.read(6)
        f.seek(0)
        if magic[:3] == b"BZh" or magic[:6] == b"\xfd7zXZ\x00" or magic[:4] == b"\x28\xb5\x2f\xfd":
            raise SubmissionError(f"{path}: compressed other than with gzip (make handin writes .tar.gz)")
        seen = members = skip = 0
        pending = b""  # part of a header block split between chunks
        try:
            for chunk in _tar_stream(f, magic[:2] == b"\x1f\x8b"):
                seen += len(chunk)
                if seen > cap:
                    raise SubmissionError(f"{path}: unpacks to more than {TAR_LIMITS['unpacked'] >> 20} MiB")
                data, at = pending + chunk, 0
                pending = b""
                while at < len(data):
                    if skip:
                        n = min(skip, len(data) - at)
                        at, skip = at + n, skip - n
                        continue
                    if len(data) - at < 512:
                        pending = data[at:]
                        break
                    block = data[at:at + 512]
                    at += 512
                    if block == bytes(512):
                        continue
                    members += 1
                    if members > TAR_LIMITS["members"] + 2:
                        raise SubmissionError(f"{path}: more than {TAR_LIMITS['members']} entries")
                    field = block[124:136]
                    if field[0] & 0x80:  # base-256
                        size = int.from_bytes(field[1:], "big")
                    else:
                        try:
                            size = int(field.split(b"\0", 1)[0].strip() or b"0", 8)
                        except ValueError:
                            raise SubmissionError(f"{path}: not a readable tarball (a header's size is not "
                                                  "a number)") from None
                    kind = block[156:157]
                    if kind in (b"x", b"g", b"L", b"K") and size > TAR_HEADER_MAX:
                        what = "a pax extended header" if kind in (b"x", b"g") else "a GNU long-name header"
                        raise SubmissionError(f"{path}: refusing {what} of {size >> 10} KiB (at most "
                                              f"{TAR_HEADER_MAX >> 10} KiB)")
                    skip = -(-size // 512) * 512
        except zlib.error as e:
            raise SubmissionError(f"{path}: not a readable tarball (gzip: {e})") from None


HANDIN_ARCHIVES = figures.HANDIN_ARCHIVES


def admit_member(path, name, size, total, limits):
    """The bytes unpacked so far with an archive member of `size`, or SubmissionError past a
    member's or the whole's limit."""
    if size > limits["member"]:
        raise SubmissionError(f"{path}: '{clean(name)}' is larger than {limits['member'] >> 20} MiB")
    if total + size > limits["unpacked"]:
        raise SubmissionError(f"{path}: unpacks to more than {limits['unpacked'] >> 20} MiB")
    return total + size


def copy_bounded(src, target, size, what):
    """Copies an archive member's stream to `target`, refusing it past the size its header said."""
    copied = 0
    with open(target, "wb") as out:
        while True:
            chunk = src.read(1 << 16)
            if not chunk:
                break
            copied += len(chunk)
            if copied > size:
                raise SubmissionError(f"{what} is longer than it says")
            out.write(chunk)


def zip_entries(path):
    """The member count a zip's end record states, read before zipfile reads its whole directory
    (a 32 MiB zip of empty members lists hundreds of thousands); None where there is none."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(max(0, size - 65557))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    count = int.from_bytes(tail[at + 10:at + 12], "little") if at >= 0 and len(tail) >= at + 12 else None
    return None if count == 0xFFFF else count  # a zip64 keeps its count elsewhere: infolist() is checked


def unpack_zip(path, dest, limits=None):
    """Extracts a zip handin (an LMS's download, a student's upload) within the tarball's limits
    (or `limits`, for a whole class's download), refusing links, paths that leave dest, and
    members longer than their headers say."""
    limits = limits or TAR_LIMITS
    if os.path.getsize(path) > limits["bytes"]:
        raise SubmissionError(f"{path}: larger than {limits['bytes'] >> 20} MiB")
    if (zip_entries(path) or 0) > limits["members"]:
        raise SubmissionError(f"{path}: more than {limits['members']} entries")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    total = 0
    try:
        with zipfile.ZipFile(path) as z:
            members = z.infolist()
            if len(members) > limits["members"]:
                raise SubmissionError(f"{path}: more than {limits['members']} entries")
            for member in members:
                name = os.path.normpath(member.filename)
                if name.startswith("..") or os.path.isabs(name) or member.filename.startswith(("/", "\\")):
                    raise SubmissionError(f"{path}: refusing entry '{clean(member.filename)}' outside the zip")
                if member.is_dir():
                    continue
                kind = (member.external_attr >> 16) & 0o170000
                if kind not in (0, stat.S_IFREG):
                    raise SubmissionError(f"{path}: refusing '{clean(member.filename)}' (not a regular file)")
                total = admit_member(path, member.filename, member.file_size, total, limits)
                target = os.path.join(dest, name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(member) as src:
                    copy_bounded(src, target, member.file_size, f"{path}: '{clean(member.filename)}'")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, OSError,
            zlib.error, lzma.LZMAError) as e:
        raise SubmissionError(f"{path}: not a readable zip ({e})")
    return dest


def unpack_tarball(path, dest):
    """Extracts a handin tarball (or a zip: unpack_zip) within limits, refusing links, devices
    and paths that leave dest."""
    with open(path, "rb") as f:
        if f.read(4) in (b"PK\x03\x04", b"PK\x05\x06"):  # a zip, or an empty one
            return unpack_zip(path, dest)
    check_tarball(path)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    total = count = 0
    try:
        with tarfile.open(path) as tar:
            for member in tar:
                count += 1
                if count > TAR_LIMITS["members"]:
                    raise SubmissionError(f"{path}: more than {TAR_LIMITS['members']} entries")
                name = os.path.normpath(member.name)
                if name.startswith("..") or os.path.isabs(name):
                    raise SubmissionError(f"{path}: refusing entry '{clean(member.name)}' outside the tarball")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise SubmissionError(f"{path}: refusing '{clean(member.name)}' (not a regular file)")
                total = admit_member(path, member.name, member.size, total, TAR_LIMITS)
                src = tar.extractfile(member)
                target = os.path.join(dest, name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                copy_bounded(src, target, member.size, f"{path}: '{clean(member.name)}'")
    except (tarfile.TarError, EOFError, OSError) as e:
        raise SubmissionError(f"{path}: not a readable tarball ({e})")
    return dest


def unpack_prefix(pid=None):
    """The name's start of the folder under build/ where grade.py unpacks a handin: with its
    process id, so that whoever started it can tell its folder from another grade's."""
    return f"unpacked-{os.getpid() if pid is None else pid}-"


def candidates(sub_dir, manifest, name):
    """Where a student file may be in an upload: NN-name/file (a handin), file (a flat upload),
    skeletons/NN-name/file (a repository or a kit), one folder down for any of them."""
    rels = [os.path.join(manifest["dir"], name), name, os.path.join("skeletons", manifest["dir"], name)]
    out = [os.path.join(sub_dir, r) for r in rels]
    try:
        tops = sorted(e for e in os.listdir(sub_dir) if not e.startswith("."))
    except OSError:
        tops = []
    if len(tops) == 1 and os.path.isdir(os.path.join(sub_dir, tops[0])) and not os.path.islink(
            os.path.join(sub_dir, tops[0])):
        out += [os.path.join(sub_dir, tops[0], r) for r in rels]
    return out


def near_misses(sub_dir, manifest, name):
    """Files where a student file may be (candidates' folders) whose names an upload or an LMS
    download made from it: `warp_scan (1).cu`, `warp_scan-2.cu`, `Warp_Scan.cu`, `warp_scan.cu.txt`."""
    stem, ext = os.path.splitext(name)
    pattern = re.compile(rf"{re.escape(stem)}[ _-]*(\(\d+\)|-?\d+)?{re.escape(ext)}(\.\w+)?", re.I)
    found = []
    for folder in sorted({os.path.dirname(c) for c in candidates(sub_dir, manifest, name)}):
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            continue
        found += [os.path.relpath(os.path.join(folder, e), sub_dir) for e in entries
                  if e != name and pattern.fullmatch(e) and os.path.isfile(os.path.join(folder, e))]
    return found[:3]


def has_link(base, path):
    """True when any component of path (below base) is a symbolic link."""
    rel = os.path.relpath(path, base)
    cur = base
    for part in rel.split(os.sep):
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            return True
    return False


def find_student_file(sub_dir, manifest, name):
    for cand in candidates(sub_dir, manifest, name):
        if os.path.lexists(cand):
            if has_link(sub_dir, cand):
                raise SubmissionError(f"{os.path.relpath(cand, sub_dir)}: a symbolic link (refused: "
                                      "hand in the file itself)")
            if not os.path.isfile(cand):
                continue
            if os.path.getsize(cand) > STUDENT_FILE_MAX:
                raise SubmissionError(f"{os.path.relpath(cand, sub_dir)}: larger than "
                                      f"{STUDENT_FILE_MAX >> 10} KiB")
            return cand
    return None


# ---- student regions ---------------------------------------------------------------------------

BEGIN = re.compile(r"/\*\s*STUDENT-BEGIN\(lab(\d\d)\)\s*\*/")
END = re.compile(r"/\*\s*STUDENT-END\(lab(\d\d)\)\s*\*/")


def split_regions(lines, lab, what):
    """(outside, regions): outside[i] is the text before region i (and the rest after the last);
    each is a list of lines. Raises SubmissionError on damaged markers."""
    outside, regions, cur, inside = [], [], [], False
    for no, line in enumerate(lines, 1):
        b, e = BEGIN.search(line), END.search(line)
        if b and e:
            raise SubmissionError(f"{what}:{no}: STUDENT-BEGIN and STUDENT-END on one line")
        if b:
            if inside:
                raise SubmissionError(f"{what}:{no}: STUDENT-BEGIN inside a student region")
            if b.group(1) != lab:
                raise SubmissionError(f"{what}:{no}: a region of lab {b.group(1)} in lab {lab}'s file")
            cur.append(line)
            outside.append(cur)
            cur, inside = [], True
        elif e:
            if not inside:
                raise SubmissionError(f"{what}:{no}: STUDENT-END without STUDENT-BEGIN")
            regions.append(cur)
            cur, inside = [line], False
        else:
            cur.append(line)
    if inside:
        raise SubmissionError(f"{what}: STUDENT-BEGIN without STUDENT-END")
    outside.append(cur)
    return outside, regions


def splice(kit_path, sub_path, lab, shown):
    """The kit's file with the submission's student regions in it: (text, notes, region line
    ranges in the result). Only the regions of the submission count."""
    kit_lines = open(kit_path, encoding="utf-8", errors="replace").read().splitlines(keepends=True)
    raw = open(sub_path, "rb").read()
    if b"\0" in raw:
        raise SubmissionError(f"{shown}: not a text file")
    sub_lines = raw.decode("utf-8", errors="replace").splitlines(keepends=True)
    k_out, k_reg = split_regions(kit_lines, lab, f"kit {os.path.relpath(kit_path, ROOT)}")
    s_out, s_reg = split_regions(sub_lines, lab, shown)
    if len(s_reg) != len(k_reg):
        raise SubmissionError(f"{shown}: {len(s_reg)} student regions, the kit's file has {len(k_reg)} "
                              "(the STUDENT-BEGIN/END markers must stay as handed out)")
    notes = []
    if [ln.rstrip() for part in s_out for ln in part] != [ln.rstrip() for part in k_out for ln in part]:
        notes.append(f"{shown}: code outside the STUDENT regions differs from the kit's; only the "
                     "regions were graded (the rest is the kit's own)")
    text, ranges, line = [], [], 1
    for i, part in enumerate(k_out):
        text += part
        line += len(part)
        if i < len(s_reg):
            reg = [ln if ln.endswith("\n") else ln + "\n" for ln in s_reg[i]]
            ranges.append((line, line + len(reg) - 1))
            text += reg
            line += len(reg)
    return "".join(text), notes, ranges


# ---- what student code may hold and call (grader/grading/codecheck.py) ----------------------------------

def _matcher(patterns):
    exact, prefixes = set(), []
    for p in patterns:
        (prefixes.append(p[:-1]) if p.endswith("*") else exact.add(p))

    def hit(name):
        return name in exact or any(name.startswith(p) for p in prefixes)
    return hit


def kit_words(manifest):
    """{student file: the names the kit's code uses around its regions and in the lab headers
    (comments left out)}: a student #define of one of them would change kit code."""
    def words(text):
        return set(re.findall(r"[A-Za-z_]\w*", re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)))
    headers = set()
    for f in sorted(os.listdir(os.path.join(ROOT, "grader", "trusted", "include"))):
        if f.endswith(".h"):
            headers |= words(open(os.path.join(ROOT, "grader", "trusted", "include", f)).read())
    out = {}
    for name in manifest["student_files"]:
        path = os.path.join(ROOT, "skeletons", manifest["dir"], name)
        outside, _ = split_regions(open(path).read().splitlines(keepends=True), manifest["lab"], path)
        out[name] = headers | words("".join("".join(p) for p in outside))
    return out


_POISONED = []


def poisoned_names():
    """What the preprocessor refuses in the regions: codecheck's list and every macro the host
    compilers predefine (the machine, the compiler, the language), but __FILE__ and __LINE__."""
    if not _POISONED:
        names = set(codecheck.POISONED) | codecheck.predefined_macros(
            [["cc", "-std=gnu11", "-x", "c"], ["g++", "-std=c++17", "-x", "c++"]])
        _POISONED.extend(sorted(names - codecheck.PREDEFINED_OK))
    return _POISONED


# What nm calls a global definition: text, data, bss, read-only, small data, weak (W, V), and
# GNU's indirect functions (i: glibc's memset, strcpy, __memcpy_chk ...) and unique globals (u).
DEFINED_TYPES = set("TDBRGSWViu")
# The weak definitions of the C++ library and of the kit's objects are inline functions and
# templates of headers, which a student's object defines as weakly where it uses them: not
# reserved. The C library's weak definitions are its functions' other names, reserved like
# the rest.
STRONG_TYPES = DEFINED_TYPES - set("WVu")


def reserved_symbols(backend, driver_objs):
    """Names the kit and the libraries define: a student definition of one would replace it."""
    cache = os.path.join(KIT, backend, "reserved-4.txt")  # -4: the probes' memcpy, memmove, memset
    if os.path.exists(cache):
        return set(open(cache).read().split("\n"))
    names = set()
    libs = list(driver_objs)
    for so in ("libc.so.6", "libstdc++.so.6", "libm.so.6"):
        r = subprocess.run(["gcc", f"-print-file-name={so}"], capture_output=True, text=True)
        if r.returncode == 0 and os.path.isabs(r.stdout.strip()):
            libs.append(os.path.realpath(r.stdout.strip()))
    # libgcc's helpers (__popcountdi2 ...), which the kit's code may call: a static archive, so a
    # student definition would be linked in their place
    r = subprocess.run(["gcc", "-print-libgcc-file-name"], capture_output=True, text=True)
    if r.returncode == 0 and os.path.isabs(r.stdout.strip()):
        libs.append(os.path.realpath(r.stdout.strip()))
    if backend == "emu":
        libs.append(os.path.join(BUILD, "emu-rt", "libscanlab_emu.a"))
    if backend == "cuda" and shutil.which("nvcc"):
        cudart = os.path.join(os.path.dirname(os.path.realpath(shutil.which("nvcc"))), "..", "lib64",
                              "libcudart_static.a")
        libs.append(cudart)
    for lib in libs:
        dyn = ["-D"] if lib.endswith((".so.6",)) else []
        kinds = DEFINED_TYPES if os.path.basename(lib).startswith(("libc.so", "libm.so")) else STRONG_TYPES
        r = subprocess.run(["nm", "-P", "--defined-only", "-g"] + dyn + [lib], capture_output=True,
                           text=True, errors="replace")
        for line in r.stdout.splitlines():
            p = line.split()
            if len(p) >= 2 and p[1] in kinds:
                names.add(p[0].split("@")[0])
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".tmp", "w") as f:
        f.write("\n".join(sorted(names)))
    os.replace(cache + ".tmp", cache)
    return names


# With the emu's probes, memcpy, memmove and memset in a student's file are renamed to the
# probes' own (grader/emu/include/scanlab_emu.h): a definition of one is named as the student
# wrote it.
PROBE_RENAMED = {"_ZN11scanlab_emu12probe_memcpyEPvPKvm": "memcpy", "_ZN11scanlab_emu13probe_memmoveEPvPKvm": "memmove",
                 "_ZN11scanlab_emu12probe_memsetEPvim": "memset"}


def check_objects(objs, manifest, backend, reserved, copies):
    """Problems in the student's compiled code: what it calls or reads that the lab does not
    allow (codecheck.check_symbols), definitions that would replace the kit's or a library's
    functions."""
    problems = []
    for name, obj in objs.items():
        shown = f"{manifest['dir']}/{name}"
        problems += codecheck.check_symbols(obj, manifest, backend, shown, _matcher(manifest.get("forbid", [])),
                                            copies[name].names_at)
        problems += codecheck.check_sections(obj, shown)
        r = subprocess.run(["nm", "-P", "--defined-only", "-g", obj], capture_output=True, text=True,
                           errors="replace")
        for line in r.stdout.splitlines():
            p = line.split()
            # a versioned definition (memset@@GLIBC_2.2.5) is one of memset to the linker
            if len(p) >= 2 and p[1] in DEFINED_TYPES and p[0].split("@")[0] in reserved:
                name = p[0].split("@")[0]
                name = PROBE_RENAMED.get(name, name)
                problems.append(f"{shown}: defines {name}, which the kit or a library already defines")
    return list(dict.fromkeys(problems))


BUILD_FSIZE_MB = [512]  # the build's limit on a file it writes (the sandbox's --fsize; --build-fsize, the kit's self-test)


def compiler_errors(log_path, manifest, ranges_of, limit=6):
    """The compiler's complaints a student is shown: those about the lines of the student's
    own files (each as `NN-name/file:LINE: error: ...`), never a line of another file's text;
    the link's `undefined reference` lines name the student's own symbols."""
    text = "\n".join(tail(log_path, 4000, limit=4 << 20))
    out = []
    for name, ranges in ranges_of.items():
        shown = f"{manifest['dir']}/{name}"
        whole = [(1, 10 ** 9)]
        for line, msg in codecheck.own_messages(text, (f"src/{shown}", shown), whole):
            where = "" if any(a <= line <= b for a, b in ranges) else " (kit code)"
            out.append(clean(f"{shown}:{line}{where}: error: {msg}", 300))
    for line in text.splitlines():
        if "undefined reference to" in line:
            m = re.search(r"undefined reference to [`'](.*?)'", line)
            if m:
                out.append(clean(f"undefined reference to {m.group(1)}", 300))
    out = list(dict.fromkeys(out))
    if not out and re.search(r"File size limit exceeded|signal 25\b|SIGXFSZ", text):
        out = [f"the build stopped at its limit of {BUILD_FSIZE_MB[0]} MiB a file: the student's code makes an "
               "object that large (a static array initialized in full, a constant of that size?)"]
    elif not out and re.search(r"virtual memory exhausted|out of memory allocating|Cannot allocate memory|"
                               r"signal 9 \[Killed\]|Killed signal terminated", text):
        out = ["the build ran out of the memory it may use: the student's code asks the compiler for more than "
               "a lab needs (a huge array, templates or macros that expand without end?)"]
    if not out:
        out = ["errors in the kit's headers or the link (the full log is kept for the instructor)"]
    return out[:limit]


# ---- building -----------------------------------------------------------------------------------

class KitLock:
    """One kit build at a time (several graders may run at once)."""

    def __enter__(self):
        os.makedirs(KIT, exist_ok=True)
        self.f = open(os.path.join(KIT, ".lock"), "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def make_vars(manifest, backend, sm):
    return [f"BACKEND={lab_backend(manifest, backend)}", f"LAB={manifest['lab']}", f"SM={sm}",
            f"TEST_SRC={manifest['test_source']}", f"CALLS_SRC={manifest['calls_source']}"]


def build_kit(manifest, backend, sm, log_path):
    """The lab's trusted programs: tests, call table, drivers' kit parts, sandbox; a make job a
    core (the emulator's runtime alone is 11 files, 23 s of CPU on a laptop's core)."""
    cmd = ["make", "--no-print-directory", f"-j{min(os.cpu_count() or 1, 8)}", "-f", "grader/grading/build.mk",
           "kit"] + make_vars(manifest, backend, sm)
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with KitLock(), open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    return code == 0


def kit_fingerprint(manifest, backend):
    """What a student's driver is built from and checked against besides the student's code."""
    h = hashlib.sha256()
    paths = ["grader/grading/build.mk", "grader/grading/student.mk", "grader/grading/codecheck.py", "grader/emu/emu.mk",
             manifest["calls_source"]]
    for d in ("grader/trusted/driver", "grader/trusted/include", "grader/trusted/harness", "grader/emu/include", "grader/emu/runtime"):
        paths += sorted(os.path.join(d, f) for f in os.listdir(os.path.join(ROOT, d)))
    paths.append("grader/emu/cu2cpp.py")
    for p in paths:
        full = os.path.join(ROOT, p)
        if os.path.isfile(full):
            h.update(p.encode() + b"\0" + open(full, "rb").read() + b"\0")
    h.update(backend.encode())
    h.update(json.dumps([manifest.get(k) for k in ("forbid", "allow", "given_calls")]).encode())
    return h.hexdigest()


def sandbox_probe():
    try:
        r = subprocess.run([SANDBOX, "--probe"], capture_output=True, text=True, timeout=20)
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return {}


def protections_line(probe, backend):
    parts = ["verdicts in a separate process"]
    if probe.get("uid"):
        parts.append("a user of its own")
    if probe.get("user_namespace"):
        parts.append("a user namespace")
    if probe.get("pid_namespace"):
        parts.append("a PID namespace")
    if probe.get("net_namespace"):
        parts.append("no network")
    if probe.get("ipc_namespace"):
        parts.append("its own IPC")
    if probe.get("view"):
        parts.append("a read-only view of only the driver's files, a private /tmp")
    elif probe.get("mount_namespace"):
        parts.append("a private /tmp, the kit hidden")
    parts.append("limits on CPU, memory, files and processes" if probe.get("uid") or probe.get("user_namespace")
                 else "limits on CPU, memory and files")
    missing = []
    if not probe.get("uid") and not probe.get("user_namespace"):
        missing.append("own user (not root)")
    for key, what in (("pid_namespace", "PID namespace"), ("net_namespace", "network namespace"),
                      ("ipc_namespace", "IPC namespace"), ("view", "a root of its own (the host's "
                                                                   "readable files are visible)")):
        if not probe.get(key):
            missing.append(what)
    line = "protections: " + ", ".join(parts)
    if missing:
        line += "; not available here: " + ", ".join(missing)
    if backend == "emu" and not shutil.which("nvcc"):
        line += "; kernels not checked by nvcc (no CUDA toolkit)"
    return line


def run_sandboxed(cmd, log, timeout, opts):
    """Runs cmd in the sandbox, its output to log; returns (exit code, timed out)."""
    full = [SANDBOX] + opts + ["--"] + cmd
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    try:
        proc = subprocess.Popen(full, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=ROOT, start_new_session=True)
    except OSError as e:
        log.write(f"cannot start the sandbox: {e}\n")
        return 125, False
    try:
        return proc.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return -9, True


def build_student(manifest, backend, sm, sub_dir, grade_dir, force=False, quick=False, devcheck=True):
    """Splices, checks and builds the student's driver for one lab. Returns a dict: ok, driver,
    problems (lines for every test's reason), notes, log. `quick` (emu, make test): built at -O1
    (QUICK_OPT) for a first result in seconds, the race detector on; `devcheck` False: without
    nvcc's device pass (the quick build of the same code made it)."""
    lab = manifest["lab"]
    lb = lab_backend(manifest, backend)
    res = {"ok": False, "driver": None, "problems": [], "notes": [], "log": None}
    spliced, ranges_of = {}, {}
    try:
        for name in manifest["student_files"]:
            src = find_student_file(sub_dir, manifest, name)
            if src is None:
                near = near_misses(sub_dir, manifest, name)
                res["problems"] = [f"missing student file {manifest['dir']}/{name} in the submission" +
                                   (f" (found {', '.join(near)}: rename it to {name})" if near else "")]
                return res
            shown = f"{manifest['dir']}/{name}"
            kit_file = os.path.join(ROOT, "skeletons", manifest["dir"], name)
            text, notes, ranges = splice(kit_file, src, lab, shown)
            res["notes"] += notes
            spliced[name], ranges_of[name] = text, ranges
    except SubmissionError as e:
        res["problems"] = [clean(str(e))]
        return res
    except OSError as e:
        res["problems"] = [clean(f"cannot read the submission: {e}")]
        return res

    kit = kit_fingerprint(manifest, lb).encode()  # read once: it hashes the kit's files

    def key_of(opt):
        # The key is the code, not where it came from: the same file in two students' folders (or
        # a class's copies of the solution) builds once; the spliced text names the file by its
        # place in the kit, never by the submission's path.
        h = hashlib.sha256(kit)
        h.update(f"{sm}\0{opt}\0".encode())
        for name in sorted(spliced):
            h.update(name.encode() + b"\0" + spliced[name].encode() + b"\0")
        return h.hexdigest()[:24]
    # make test's quick build gives way to the graded build of the same code where that is built
    # already (make grade graded this code, or an earlier make test's graded build finished): the
    # first result comes at once, and from the build make grade grades (res["graded"]).
    if quick and not force and os.path.exists(os.path.join(BUILD, "sub", lb, key_of(""), f"lab{lab}", ".complete")):
        quick = False
        res["graded"] = True
    key = key_of(QUICK_OPT if quick else "")
    final = os.path.join(BUILD, "sub", lb, key, f"lab{lab}")
    driver = os.path.join(final, f"lab{lab}_driver")
    log_path = os.path.join(grade_dir, "logs", f"lab{lab}", "build-quick.log" if quick else "build.log")
    res["log"] = log_path
    os.makedirs(os.path.dirname(log_path), exist_ok=True)

    # One build of a key at a time: graders started together on the same code (a class's
    # untouched skeletons under JOBS=4, two make targets at once) build it once, and the later
    # ones wait and take the finished driver (`shared`). A forced one (--rebuild) still builds,
    # after the other.
    os.makedirs(os.path.dirname(final), exist_ok=True)
    with open(final + ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            waited = False
        except BlockingIOError:
            fcntl.flock(lock, fcntl.LOCK_EX)
            waited = True
        if os.path.exists(os.path.join(final, ".complete")) and not force:
            shutil.copyfile(os.path.join(final, "build.log"), log_path)
            res.update(ok=True, driver=driver, shared=waited)
            return res
        # A staging folder outside the kit, with only what the build needs (build.mk's student
        # kit), readable by the sandbox's user wherever the kit lives.
        kit_dir = os.path.join(KIT, lb, "student", f"lab{lab}")
        work = tempfile.mkdtemp(prefix=f"scanlab-lab{lab}-", dir=STAGING[0] if STAGING else None)
        try:
            return _build_staged(manifest, lb, work, kit_dir, spliced, ranges_of, final, driver, log_path, res,
                                 quick, devcheck)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _build_staged(manifest, lb, work, kit_dir, spliced, ranges_of, final, driver, log_path, res, quick=False,
                  devcheck=True):
    """build_student's work in the staging folder: the source check (the preprocessor, in the
    sandbox), then the build (in the sandbox), then the object check."""
    lab = manifest["lab"]
    os.chmod(work, 0o755)
    # what the build makes (src/, check/, out/) is made here, never taken from the kit's folder,
    # where a stray one (a hand-run build there) stopped every grade with a traceback
    shutil.copytree(kit_dir, work, dirs_exist_ok=True,
                    ignore=lambda d, names: [n for n in names if n == ".ready" or
                                             (os.path.samefile(d, kit_dir) and n in ("src", "check", "out"))])
    src_dir, out_dir = os.path.join(work, "src", manifest["dir"]), os.path.join(work, "out")
    os.makedirs(src_dir)
    os.makedirs(out_dir)
    copies = {}
    for name, text in spliced.items():
        with open(os.path.join(src_dir, name), "w") as f:
            f.write(text)
        copies[name] = codecheck.write_check_files(os.path.join(work, "check"), name, text, ranges_of[name],
                                                   f"{manifest['dir']}/{name}", poisoned_names())
    srcs = " ".join(f"src/{manifest['dir']}/{n}" for n in manifest["student_files"])
    make = [shutil.which("make") or "/usr/bin/make", "--no-print-directory", "-j2", "-f", "student.mk"]
    limit = BUILD_TIMEOUT[0] or manifest["limits"]["build_timeout"]
    opts = ["--rw", work, "--own", work, "--chdir", work, "--hide", ROOT, "--cpu", str(int(limit * 4) + 10),
            "--mem", "16384", "--fsize", str(BUILD_FSIZE_MB[0]), "--nproc", "256", "--tmp", "2048",
            "--env", "PATH=" + os.environ.get("PATH", "/usr/bin:/bin")]
    for d in extra_hidden():
        opts += ["--hide", d]
    t0 = time.monotonic()
    timeout_problem = [f"does not compile: did not compile within {limit:g} s (build_timeout in "
                       f"grader/manifests/lab{lab}.toml)"]
    # The source check's preprocessor runs get less than the build: a lab's file preprocesses to
    # about 1.5 MiB (nvcc's view of lab 07) in 0.3 s of CPU and 27 MiB, so
    # CHECK_CPU_S of CPU a process, CHECK_MEM_MB of address space and files of CHECK_FSIZE_MB stop
    # a macro that expands without end, or an #include of /dev/zero, in seconds (with the build's
    # limits, 2^24 tokens took 85 s, and two runs at once read /dev/zero until the machine ran
    # short).
    check_opts = list(opts)
    check_opts[check_opts.index("--cpu") + 1] = str(CHECK_CPU_S)
    check_opts[check_opts.index("--mem") + 1] = str(CHECK_MEM_MB)
    check_opts[check_opts.index("--fsize") + 1] = str(codecheck.CHECK_FSIZE_MB)
    with open(log_path, "w") as log:
        # 1. What the compiler will read: the preprocessor's view of the regions (codecheck.py).
        code, timed_out = run_sandboxed(make + ["check", f"LAB={lab}", f"SRCS={srcs}"], log, limit, check_opts)
    if timed_out:
        res["problems"] = timeout_problem
        return res
    words = kit_words(manifest)
    forbidden = _matcher(manifest.get("forbid", []))
    problems = []
    for name in manifest["student_files"]:
        problems += codecheck.read_check(out_dir, name, ranges_of[name], copies[name],
                                         f"{manifest['dir']}/{name}", manifest, words[name], forbidden)
    if problems:
        res["problems"] = ["does not build: student code does what this lab does not allow"] + \
            [clean(p) for p in problems[:8]]
        return res
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    # 2. The build.
    targets = ["driver"] + (["devcheck"] if lb == "emu" and devcheck else [])
    with open(log_path, "a") as log:
        code, timed_out = run_sandboxed(make + targets + [f"LAB={lab}", f"SRCS={srcs}"] +
                                        ([f"STUDENT_OPT={QUICK_OPT}"] if quick else []), log,
                                        max(1.0, limit - (time.monotonic() - t0)), opts)
    res["seconds"] = time.monotonic() - t0
    if timed_out:
        res["problems"] = timeout_problem
    else:
        # The objects are checked whenever they were made. When the build failed, the compiler's
        # messages are what the student sees, unless the objects define a name the kit or a
        # library defines, which stops the link (the probes' memset) and says more.
        objs = {n: os.path.join(out_dir, n + ".o") for n in manifest["student_files"]}
        problems = []
        if all(os.path.isfile(o) for o in objs.values()):
            reserved = reserved_symbols(lb, [os.path.join(KIT, lb, "driver", f) for f in
                                             os.listdir(os.path.join(KIT, lb, "driver")) if f.endswith(".o")])
            problems = check_objects(objs, manifest, lb, reserved, copies)
            if code != 0 and not any(": defines " in p for p in problems):
                problems = []
        if problems:
            res["problems"] = ["does not build: student code does what this lab does not allow"] + problems[:8]
        elif code != 0:
            res["problems"] = ["does not compile:"] + compiler_errors(log_path, manifest, ranges_of)
    if res["problems"]:
        return res
    # The driver comes back into the kit's build folder as a trusted copy (its owner, not the
    # sandbox's user, may change it).
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp_final = tempfile.mkdtemp(prefix=f"lab{lab}-", dir=os.path.dirname(final))
    for f in os.listdir(out_dir):
        p = os.path.join(out_dir, f)
        if os.path.isfile(p) and not os.path.islink(p):
            shutil.copyfile(p, os.path.join(tmp_final, f))
    os.chmod(os.path.join(tmp_final, f"lab{lab}_driver"), 0o755)
    os.chmod(tmp_final, 0o755)
    out_dir = tmp_final
    shutil.copyfile(log_path, os.path.join(out_dir, "build.log"))
    open(os.path.join(out_dir, ".complete"), "w").close()
    try:
        os.rename(out_dir, final)
    except OSError as e:
        if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
        if os.path.exists(os.path.join(final, ".complete")):
            # a concurrent build of the same code (same key) finished first: keep its driver,
            # which another grade may be running now, and drop ours
            shutil.rmtree(out_dir, ignore_errors=True)
        else:  # an older, unfinished build
            shutil.rmtree(final, ignore_errors=True)
            os.rename(out_dir, final)
    res.update(ok=True, driver=driver)
    return res


# make test's quick build (emu): the student's file at -O1, for a first result in seconds (lab 06:
# 6.2 s of compile against 11.0 s at -O2, with today's probe options), with the race detector and
# every check on. The tests that read the memory counters (emu_* and the timing tests' figures)
# need the graded build: at -O1 GCC keeps loads nvcc drops (lab 05's reduceRangesKernel: 400
# shared wavefronts against ncu's 365), so they run on the -O2 build make grade makes, compiled
# meanwhile.
QUICK_OPT = "-O1"


def reads_counters(test):
    """A test that reads the emu's memory counters: an efficiency test or a timing test."""
    return bool(test.get("timing") or test.get("counters"))


HIDDEN_EXTRA = []
STAGING = []  # where builds are staged: a temporary folder outside HIDDEN_EXTRA (main)
TEMP_ROOTS = ["/tmp", "/var/tmp", "/dev/shm"]  # the sandbox gives each a private tmpfs (sandbox.c)
BUILD_TIMEOUT = [None]  # --build-timeout (the kit's self-test)


def extra_hidden():
    """Folders no student code may see: the submission's own (other students' files, in a
    class) and where results go."""
    return [d for d in HIDDEN_EXTRA if d and os.path.isdir(d)]


def first_errors(log_path, limit=6):
    lines = []
    for line in tail(log_path, 400, limit=1 << 20):
        if re.search(r"\berror\b|undefined reference|No rule to make", line, re.I):
            lines.append(line.strip())
    return [clean(x, 300) for x in (lines[:limit] or tail(log_path, limit))]


# ---- running one test -----------------------------------------------------------------------------

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


EVENTS_MAX = 1 << 20
# A test's time limit under a sanitizer (--wrap, the kit's GPU checks), over its own: racecheck
# runs a kernel far slower, and make check-gpu runs every lab's sanitizers side by side on one
# GPU (on an H100 there, lab 03's single_tile took 67.8 s under racecheck, three quarters of
# the 90 s that 3 times its limit gave it).
WRAP_SLOWDOWN = 6


def add_race_note(result, manifest):
    """The lab's word on the emulator's race report (the manifest's race_note), after the report:
    the emulator names the barrier that orders the two threads it caught; the lab knows which
    barrier its kernels' data needs (lab 02's array is the whole block's, so a race its first
    step shows between two lanes of one warp is fixed by __syncthreads, not __syncwarp)."""
    note = manifest.get("race_note")
    if result.status != "fail" or not note:
        return
    for i, line in enumerate(result.reasons):
        if "emu: race on " in line:
            result.reasons.insert(i + 1, f"note: {note}")
            return


def run_test(binary, driver, clean_driver, result, timeout, params, log_path, sandbox_opts, backend,
             host_copy_bytes, wrap=()):
    r_fd, w_fd = os.pipe()
    env = dict(os.environ)
    env["SCANLAB_RESULT_FD"] = str(w_fd)
    # On emu, the emulator's own watchdog explains a hang better than a kill does.
    env.setdefault("SCANLAB_EMU_WATCHDOG_S", str(max(1, int(timeout) - 3)))
    cmd = [binary, "--driver", driver, "--clean-driver", clean_driver, "--sandbox", SANDBOX,
           "--backend", backend, "--timeout", f"{timeout:g}", "--host-copy-bytes", str(host_copy_bytes)]
    for o in sandbox_opts:
        cmd += ["--sandbox-opt", o]
    for w in wrap:
        cmd += ["--wrap", shutil.which(w) or w if w == wrap[0] else w]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    cmd.append(result.name)
    events, size = [], [0]

    def reader():
        with os.fdopen(r_fd, "rb") as f:
            for line in f:
                size[0] += len(line)
                if size[0] > EVENTS_MAX:
                    continue
                try:
                    ev = json.loads(line.decode(errors="replace"))
                except ValueError:
                    continue
                if isinstance(ev, dict):
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
            # The test stops a hung call itself and says which; this is the backstop.
            code = proc.wait(timeout=timeout + 10)
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

    fails = [clean(e.get("text", "")) for e in events if e.get("event") == "fail"][:12]
    result.notes = [clean(e.get("text", "")) for e in events if e.get("event") == "note"][:40]
    result.metrics = {clean(e.get("key"), 64): e.get("value") for e in events
                      if e.get("event") == "metric" and isinstance(e.get("value"), (int, float))}
    ends = [e for e in events if e.get("event") == "end"]
    end = ends[-1] if ends else None
    if timed_out:
        result.status = "fail"
        result.reasons = fails + [f"timed out after {timeout:g} s: too slow, work that grows faster than the "
                                  "input (a loop over the elements inside another), an endless loop"
                                  + ("" if backend == "cpu" else ", a hung kernel or a barrier not all threads "
                                     "reach")]
    elif end is None:
        result.status = "fail"
        why = f"the test ended with {describe_status(code)} before finishing (a bug in the kit: " \
              "please report it)"
        result.reasons = fails + [why] + tail(log_path, 6, skip="test: ")
    elif end.get("key") == "pass" and code == 0 and not fails:
        result.status = "pass"
    elif end.get("key") == "skip" and code == 0 and not fails:
        result.status = "skip"
        result.reasons = [clean(end.get("text") or "skipped")]
    else:
        result.status = "fail"
        result.reasons = fails or [f"failed (exit code {code})"] + tail(log_path, 6, skip="test: ")
    result.reasons = [re.sub(r"\bsrc/(\d\d-[\w.-]+/)", r"\1", re.sub(r"\S*build/tmp/[^/\s]+/src/", "", r))
                      for r in result.reasons]
    found = {}
    result.reasons = source_lines(result.reasons, driver, found)
    result.notes = source_lines(result.notes, driver, found)
    if found:  # the log too: what the driver printed stays as it was, the lines follow
        with open(log_path, "a") as log:
            log.write("(the instructions the emulator named by offset, by file and line: " +
                      ", ".join(f"+{k} = {v}" for k, v in sorted(found.items())) + ")\n")
    return result


PC = re.compile(r"(?:/proc/\d+/exe|\S*_driver)\+(0x[0-9a-fA-F]+)\b")


def source_lines(lines, driver, found=None):
    """Where the emu's race detector could only name an instruction (`/proc/2/exe+0x7fe39`: the
    student's code runs confined, where it cannot start addr2line), the driver's file and line,
    as the detector names them elsewhere (`kogge_stone.cu:27`): of the places the instruction was
    inlined into (addr2line -i), the first outside the emulator's own headers (an access inside
    `__stcs` or `atomicAdd` is named by the student's line that called it). `found` collects them."""
    found = {} if found is None else found
    offsets = sorted({m.group(1) for line in lines for m in PC.finditer(line)} - set(found))
    if not offsets or not driver or not shutil.which("addr2line"):
        return [PC.sub(lambda m: found.get(m.group(1), m.group(0)), line) for line in lines]
    try:
        r = subprocess.run(["addr2line", "-a", "-i", "-e", driver] + offsets, capture_output=True, text=True,
                           timeout=30, errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return [PC.sub(lambda m: found.get(m.group(1), m.group(0)), line) for line in lines]
    frames, at = {}, None  # -a: each address on a line of its own, then its places, innermost first
    for line in r.stdout.splitlines():
        if re.fullmatch(r"0x[0-9a-fA-F]+", line.strip()):
            at = int(line.strip(), 16)
            frames[at] = []
        elif at is not None:
            frames[at].append(line.split(" (discriminator")[0].strip())
    for off in offsets:
        places = [w for w in frames.get(int(off, 16), [])
                  if w and not w.startswith("?") and ":" in w and not w.endswith(":?")]
        own = [w for w in places if "emu/include/" not in w]
        where = (own or places or [""])[0]
        if where:
            found[off] = os.path.basename(where.rsplit(":", 1)[0]) + ":" + where.rsplit(":", 1)[1]
    return [PC.sub(lambda m: found.get(m.group(1), m.group(0)), line) for line in lines]


def not_graded(result, backend):
    """A test that does not count on this backend (a timing test on emu, an emu counters test on
    a GPU) is a skip whatever it reported: 0 points, not in the maximum. Its notes (the memory
    model's figures) stay; a failure, which left no figures, becomes a note."""
    if result.status != "skip" or not result.reasons or not result.timing:
        why = [f"no figures: {result.reasons[0]}"] if result.status == "fail" and result.reasons else []
        result.notes = why + result.notes
        result.reasons = [f"not graded on the {backend} backend, which does not time kernels" if result.timing else
                          f"not graded on the {backend} backend: it reads the emu's memory counters (the timing "
                          f"tests grade speed here)"]
    result.status = "skip"


def counters_lost(result):
    """A counters test graded here (the emu) that reported a skip: the graded build always has
    the probes, so their counters are missing only where the run lost them, as code that writes
    the emulator's own memory does (the fourth trial cleared the byte that turns the probes on).
    It fails: a skip would take its points out of the maximum, which the backend alone sets."""
    said = result.reasons[0] if result.reasons else "skipped"
    result.status = "fail"
    result.reasons = ["the emu's memory counters did not come back from the run, which the graded build always "
                      "counts: the submission's code changed the emulator's own memory (or the emulator failed: "
                      f"grade again to tell); the test said: {said}"]


def describe_status(code):
    if code < 0:
        try:
            return f"signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


# ---- output -------------------------------------------------------------------------------------

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


def gradescope_json(labs_results, total, max_total, output_lines):
    tests = []
    for manifest, results in labs_results:
        vis = {t["name"]: t.get("visibility", "visible") for t in manifest["test"]}
        for r in results:
            out = "\n".join(r.reasons + r.notes)
            entry = {"name": f"lab{manifest['lab']} {r.name}: {r.title}", "score": r.score,
                     "max_score": r.points if r.status != "skip" else 0, "output": out,
                     "visibility": vis.get(r.name, "visible")}
            if r.status == "skip":
                entry["output"] = "SKIPPED, not counted: " + out
                entry["status"] = "passed"
            else:
                entry["status"] = "passed" if r.status == "pass" else "failed"
            tests.append(entry)
    shown = {(m["lab"], t["name"]) for m, _ in labs_results for t in m["test"]
             if t.get("visibility", "visible") == "visible"}
    figs = {f"lab{m['lab']} {r.name}": figures.figure(r.notes, r.status) for m, results in labs_results
            for r in results if r.timing and (m["lab"], r.name) in shown}
    figs = {k: v for k, v in figs.items() if v}
    # Gradescope shows the autograder's stdout to students unless told not to: where a test is not
    # visible, stdout (which names every test) is hidden, and `output` has the visible tests alone.
    concealing = any(t["visibility"] != "visible" for t in tests)
    return {"score": total, "max_score": max_total, "output": "\n".join(output_lines),
            "stdout_visibility": "hidden" if concealing else "visible", "tests": tests,
            "leaderboard": figures.leaderboard(figs), "extra_data": {"figures": figs}}


def write_atomically(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# ---- the backend --------------------------------------------------------------------------------

def detect_backend():
    if shutil.which("nvcc") and shutil.which("nvidia-smi"):
        try:
            r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20)
            if r.returncode == 0 and b"GPU" in r.stdout:
                return "cuda"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "emu"


def submission_key(path):
    """A folder name for a submission's logs and results: its name and a hash of its path, so
    two students' `handin.tar.gz` never share one."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    if rel in ("skeletons", "solutions"):
        return rel
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(os.path.abspath(path)))[:40] or "submission"
    return f"{base}-{hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:10]}"


def parse_tests(items):
    out = []
    for item in items:
        out += [t for t in re.split(r"[,\s]+", item) if t]
    return out


def sandbox_options(manifest, backend, timeout, hide_kit=True):
    """The sandbox of a test's driver: its limits, and a root of its own that shows only what a
    driver needs (driver_view). With hide_kit off (a sanitizer wraps the driver and runs it by
    path), the host's files instead, the kit read-only, and a loopback of its own (the
    sanitizer talks to the driver through it)."""
    lim = manifest["limits"]
    cpus = os.cpu_count() or 1
    opts = ["--cpu", str(int(timeout * (cpus + 1)) + 5), "--fsize", str(lim["files_mb"]),
            "--nproc", str(lim["processes"]), "--tmp", str(lim["tmp_mb"])]
    view = driver_view(backend) if hide_kit and os.environ.get("SCANLAB_SANDBOX_VIEW") != "0" else None
    if view:
        opts += ["--view", "--hide", ROOT]
        for kind, path in view:
            opts += [kind, path]
    elif hide_kit:
        # SCANLAB_SANDBOX_VIEW=0 (a diagnosis, grader/README.md), or no way to list the driver's
        # libraries here: the host's files, the kit hidden
        opts += ["--hide", ROOT]
    else:
        opts += ["--ro", ROOT, "--loopback"]
    # The CUDA runtime reserves far more address space than it uses: on a GPU, the limit is
    # on the data segment instead.
    opts += ["--mem", str(lim["memory_mb"])] + (["--mem-data"] if backend == "cuda" else [])
    for d in extra_hidden():
        opts += ["--hide", d]
    return opts


_VIEWS = {}


def _libraries(path):
    """The shared libraries a trusted program or library loads, as the loader finds them (ldd on
    kit-built drivers and system files only, never on a student's driver)."""
    try:
        r = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [m.group(1) for m in re.finditer(r"(?:=>\s*|^\s*)(/\S+)\s+\(0x", r.stdout, re.M)]


def driver_view(backend):
    """What a driver sees in the sandbox, as sandbox options (--view-ro PATH, --view-dev PATH), or
    None where its libraries cannot be listed (no ldd):
    its libraries and the loader's cache; on emu, the shell and addr2line the race detector
    names source lines with; on cuda, the GPU's device files, the driver's libraries (libcuda is
    loaded at run time, so ldd of the driver does not list it) and /sys. What does not exist on
    this machine is left out (by the sandbox)."""
    if backend in _VIEWS:
        return _VIEWS[backend]
    driver = os.path.join(KIT, backend, "scanlab-clean-driver")
    if not os.path.exists(driver):
        # the kit is built before any driver runs; a view made without it would show the host
        raise FileNotFoundError(f"{os.path.relpath(driver, ROOT)}: not built, so the driver's view "
                                f"cannot be listed (build the kit first)")
    tools = ("/bin/sh", shutil.which("addr2line") or "/usr/bin/addr2line") if backend == "emu" else ()
    saved, key = _saved_view(backend, (driver,) + tools)
    if saved is not None:
        _VIEWS[backend] = saved
        return saved
    libs = _libraries(driver)
    if not libs:
        _VIEWS[backend] = None  # without its libraries the driver could not start in a root of its own
        return None
    files = ["/etc/ld.so.cache"] + libs
    devs = []
    for tool in tools:
        files += [tool] + _libraries(tool)
    if backend == "cuda":
        try:
            cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            cache = ""
        libcuda = re.findall(r"^\s*libcuda\.so(?:\.1)? \(.*x86-64.*\) => (\S+)$", cache, re.M)
        libcuda += [p for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64")
                    for p in glob.glob(os.path.join(d, "libcuda.so.1"))]
        folders = {os.path.dirname(p) for p in libcuda}
        for p in libcuda:
            files += [p] + _libraries(p)
        for d in sorted(folders):
            for f in sorted(os.listdir(d)):
                if re.match(r"lib(cuda|nvidia-[\w-]+)\.so", f):
                    files.append(os.path.join(d, f))
        files.append("/sys")
        devs = sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/nvidia-caps/*"))
    out = [("--view-ro", f) for f in dict.fromkeys(files)] + [("--view-dev", d) for d in devs]
    _VIEWS[backend] = out
    if key:  # kept for the next grade; a kit that cannot be written lists it each time
        path = os.path.join(KIT, backend, "view.json")
        try:
            with open(f"{path}.{os.getpid()}", "w") as f:
                json.dump({"key": key, "view": out}, f)
            os.replace(f"{path}.{os.getpid()}", path)
        except OSError:
            pass
    return out


def _saved_view(backend, programs):
    """(the view driver_view last listed for these programs, the key it was saved under), or
    (None, key) where the machine, the programs, the loader's cache or LD_LIBRARY_PATH changed
    since (or another machine listed it last); the key is None on cuda, whose view is listed
    anew in each grade (its driver libraries are found at run time). Three runs of ldd cost
    0.13 s of every grade on a slow machine."""
    if backend == "cuda":
        return None, None
    parts = [os.uname().nodename, os.environ.get("LD_LIBRARY_PATH", "")]  # a cluster's nodes share the kit
    for p in programs + ("/etc/ld.so.cache",):
        try:
            st = os.stat(p)
            parts.append(f"{os.path.realpath(p)}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{p}:missing")
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    try:
        with open(os.path.join(KIT, backend, "view.json")) as f:
            saved = json.load(f)
        if saved.get("key") == key and saved.get("view"):
            return [tuple(x) for x in saved["view"]], key
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return None, key


# ---- main -----------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Grade ScanLab labs.")
    ap.add_argument("--lab", action="append", default=[],
                    help="lab number (01, 2, ...) or a comma list; default every lab")
    ap.add_argument("--submission", default="skeletons",
                    help="folder or handin tarball with the student's files (default skeletons)")
    ap.add_argument("--backend", default=os.environ.get("BACKEND") or None,
                    help="cuda or emu (default: cuda where a GPU answers)")
    ap.add_argument("--test", action="append", default=[],
                    help="run only these tests (a name, or several: a,b or 'a b')")
    ap.add_argument("--verbose", action="store_true", help="show every failure line and note")
    ap.add_argument("--results", default=None, help="where to write results.json")
    ap.add_argument("--schedule", default=None,
                    help=f"emu thread schedule (default: SCANLAB_EMU_SCHEDULE, else {GRADE_SCHEDULE})")
    ap.add_argument("--sm", default=os.environ.get("SM", "90"), help="CUDA architecture (90)")
    ap.add_argument("--max-timeout", type=float, default=None,
                    help="cap every test's timeout at this many seconds (the kit's self-test)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the student's code even if built")
    ap.add_argument("--quick", action="store_true",
                    help="make test on emu: the tests that read no counters run on a build at -O1, the others on "
                         "the graded build, made meanwhile")
    ap.add_argument("--hide", action="append", default=[], help=argparse.SUPPRESS)
    # The kit's own GPU checks: run the student's driver under a sanitizer, with the small sizes
    # of the emu overrides, and with the kit visible to it (the sanitizer runs the driver by path).
    ap.add_argument("--wrap", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--sizes-of", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--build-timeout", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--build-fsize", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--stats", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--test-jobs", type=int, default=int(os.environ.get("TEST_JOBS") or 0) or None,
                    help="tests run at once (default: on a GPU, up to 8; elsewhere 1); timing tests and "
                         "tests marked `alone` always run by themselves")
    args = ap.parse_args(argv)
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no same-user process reads us
    except (OSError, AttributeError):
        pass
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    backend = args.backend or detect_backend()
    if backend not in ("cuda", "emu"):
        print(f"grader: BACKEND must be cuda or emu, not '{backend}'", file=sys.stderr)
        return 2
    device_name = gpu_name() if backend == "cuda" else None
    try:
        manifests = all_manifests()
    except ManifestError as e:
        print(f"grader: manifest error: {e}", file=sys.stderr)
        print("grader: nothing was graded", file=sys.stderr)
        return 2
    wanted = set()
    for item in args.lab:
        for lab in re.split(r"[,\s]+", item):
            if lab.strip():
                wanted.add(f"{int(lab):02d}" if lab.strip().isdigit() else lab.strip())
    if wanted:
        unknown = wanted - {m["lab"] for m in manifests}
        if unknown:
            print(f"grader: no lab {', '.join(sorted(unknown))} (labs: "
                  f"{', '.join(m['lab'] for m in manifests)})", file=sys.stderr)
            return 2
        manifests = [m for m in manifests if m["lab"] in wanted]
    chosen = parse_tests(args.test)
    if chosen:
        known = {t["name"] for m in manifests for t in m["test"]}
        bad = [t for t in chosen if t not in known]
        if bad:
            for m in manifests:
                print(f"grader: lab {m['lab']} tests: {', '.join(t['name'] for t in m['test'])}", file=sys.stderr)
            print(f"grader: no test named {', '.join(bad)}", file=sys.stderr)
            return 2
        manifests = [m for m in manifests if any(t["name"] in chosen for t in m["test"])]

    sub = args.submission
    if not os.path.exists(sub):
        print(f"grader: submission '{sub}' does not exist", file=sys.stderr)
        return 2
    what = figures.not_a_submission(sub)
    if what:
        print(f"grader: submission '{clean(sub, 200)}' is {what}: give a folder or a handin tarball", file=sys.stderr)
        return 2
    key = submission_key(sub)
    grade_dir = os.path.join(BUILD, "grade", backend, key)
    schedule = args.schedule or os.environ.get("SCANLAB_EMU_SCHEDULE") or GRADE_SCHEDULE
    BUILD_TIMEOUT[0] = args.build_timeout
    if args.build_fsize:
        BUILD_FSIZE_MB[0] = args.build_fsize
    os.environ["SCANLAB_EMU_SCHEDULE"] = schedule
    # graded runs stay adversarial: what CUDA leaves undefined fails (a barrier that threads
    # which returned never reach), where a program's own run gets what a GPU does, and a warning
    os.environ["SCANLAB_EMU_STRICT"] = "1"
    HIDDEN_EXTRA.extend([os.path.abspath(sub if os.path.isdir(sub) else os.path.dirname(sub) or "."),
                         os.path.abspath(os.path.dirname(args.results)) if args.results else ""])
    HIDDEN_EXTRA.extend(os.path.abspath(h) for h in args.hide)
    HIDDEN_EXTRA[:] = [d for d in HIDDEN_EXTRA if d and not ROOT.startswith(d.rstrip("/") + "/") and d != ROOT]
    # A temporary folder to hide (a handin in /tmp hides /tmp, its folder) is hidden by the
    # sandbox's private tmpfs there, which student code may write; the builds are staged in one
    # the sandbox shares, so not in it, nor in a hidden folder.
    private = [d for d in HIDDEN_EXTRA if os.path.realpath(d) in {os.path.realpath(t) for t in TEMP_ROOTS}]
    HIDDEN_EXTRA[:] = [d for d in HIDDEN_EXTRA if d not in private]

    def hidden(path):
        path = os.path.realpath(path)
        return any(path == os.path.realpath(d) or path.startswith(os.path.realpath(d).rstrip("/") + "/")
                   for d in HIDDEN_EXTRA + private)
    places = [tempfile.gettempdir()] + TEMP_ROOTS[1:]
    STAGING[:] = [p for p in places if os.path.isdir(p) and os.access(p, os.W_OK) and not hidden(p)][:1]
    if not STAGING:
        print(f"grader: the builds are staged in a temporary folder the sandbox can see, and "
              f"{', '.join(places)} are all hidden from student code (the submission's folder, the "
              f"results' folder, --hide): put the submission or the results in a folder of their own",
              file=sys.stderr)
        return 2

    out_lines = []
    concealed = [0, 0, 0]  # tests not visible to students (their manifests' visibility), their score and points

    def say(line=""):
        print(line, flush=True)
        out_lines.append(line)

    unpacked = None
    os.makedirs(BUILD, exist_ok=True)  # a fresh kit (Gradescope's) has no build/ yet
    if os.path.isfile(sub):
        try:
            unpacked = tempfile.mkdtemp(prefix=unpack_prefix(), dir=BUILD)
            sub_dir = unpack_tarball(sub, unpacked)
        except SubmissionError as e:
            shutil.rmtree(unpacked, ignore_errors=True)  # with the members read before the bad one
            print(f"grader: cannot read submission: {e}", file=sys.stderr)
            return 2
    else:
        sub_dir = sub
        # A folder that holds only a handin tarball (an upload of `make handin`'s file).
        tars = [e for e in os.listdir(sub) if e.lower().endswith(HANDIN_ARCHIVES) and os.path.isfile(os.path.join(sub, e))]
        def has_files():
            try:
                return any(find_student_file(sub, m, f) for m in manifests for f in m["student_files"])
            except SubmissionError:
                return True  # a link: the build reports it
        if len(tars) == 1 and not has_files():
            try:
                unpacked = tempfile.mkdtemp(prefix=unpack_prefix(), dir=BUILD)
                sub_dir = unpack_tarball(os.path.join(sub, tars[0]), unpacked)
            except SubmissionError as e:
                shutil.rmtree(unpacked, ignore_errors=True)
                print(f"grader: cannot read submission: {e}", file=sys.stderr)
                return 2

    if all(lab_backend(m, backend) == "cpu" for m in manifests):  # lab 01: C on the CPU, no kernels
        say(f"Grading {sub} on the CPU (lab {', '.join(m['lab'] for m in manifests)}: no kernels, so no backend)")
    else:
        say(f"Grading {sub} on the {backend} backend" + (f" (emu schedule {schedule})" if backend == "emu" else ""))
    with KitLock():
        subprocess.run(["make", "--no-print-directory", "-s", "-f", "grader/grading/build.mk", "sandbox"], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    say(protections_line(sandbox_probe() if os.path.exists(SANDBOX) else {}, backend))
    labs_results = []
    total = max_total = 0
    try:
        for m in manifests:
            say(f"\nlab {m['lab']} ({m['title']})")
            lb = lab_backend(m, backend)
            tests = [t for t in m["test"] if not chosen or t["name"] in chosen]
            not_here = [t for t in tests if not graded_here(t, m, backend)]
            own = sorted({f"{t['name']} ({gpu_model(t, device_name)})" for t in tests
                          if lb == "cuda" and gpu_model(t, device_name)})
            if own:
                say(f"  ({device_name}: the thresholds measured on this GPU model for {', '.join(own)}, "
                    f"from {m['path']})")
            results = [Result(t["name"], t.get("title", t["name"]), int(t["points"]), bool(t.get("timing")))
                       for t in tests]
            kit_log = os.path.join(grade_dir, "logs", f"lab{m['lab']}", "kit.log")
            graded_build = None  # make test's graded build, when the quick one runs the other tests
            if not build_kit(m, backend, args.sm, kit_log):
                say("  the kit itself does not build (a problem with this machine's setup):")
                for line in first_errors(kit_log):
                    say(f"      {line}")
                for r in results:
                    r.reasons = ["the kit does not build here: see " + os.path.relpath(kit_log, ROOT)]
                built = None
            else:
                t0 = time.monotonic()
                counted = [t for t in tests if reads_counters(t)]
                quick = args.quick and lb == "emu" and len(counted) < len(tests)
                built = build_student(m, backend, args.sm, sub_dir, grade_dir, force=args.rebuild, quick=quick)
                quick = quick and not built.get("graded")
                if quick and built["ok"] and counted:  # the graded build, on the other core, while tests run
                    graded_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
                    graded_build = graded_pool.submit(build_student, m, backend, args.sm, sub_dir, grade_dir,
                                                      force=args.rebuild, quick=False, devcheck=False)
                    graded_pool.shutdown(wait=False)
                for note in built["notes"]:
                    say(f"  note: {note}")
                if not built["ok"]:
                    for line in built["problems"]:
                        say(f"  {line}" if line.startswith(("does not", "missing")) else f"      {line}")
                    if built["log"] and os.path.exists(built["log"]):
                        say(f"      build log: {os.path.relpath(built['log'], ROOT)}")
                    reason = built["problems"][0].rstrip(":")
                    detail = [p for p in built["problems"][1:4]]
                    for r in results:
                        r.reasons = [reason] + detail
                elif quick:
                    say(f"  (built in {time.monotonic() - t0:.1f}s at {QUICK_OPT}, race detector on, for a first "
                        f"result; the graded build, as make grade makes it, follows for "
                        f"{', '.join(t['name'] for t in counted) or 'no test'})")
                else:
                    say(f"  (built in {time.monotonic() - t0:.1f}s" +
                        (": another grade of the same code built it, this one waited)" if built.get("shared") else ")"))
            binary = os.path.join(KIT, "tests", f"lab{m['lab']}_tests")
            clean_driver = os.path.join(KIT, lb, "scanlab-clean-driver")

            def run_one(t, r):
                if r.reasons or not built or not built["ok"]:
                    return
                driver = built["driver"]
                if graded_build is not None and reads_counters(t):
                    g = graded_build.result()
                    if not g["ok"]:
                        r.reasons = [f"the graded build failed where the quick one built: {g['problems'][0]}"] + \
                            g["problems"][1:4]
                        return
                    driver = g["driver"]
                timeout, params = run_settings(m, t, backend, args.sizes_of, gpu=device_name)
                if args.wrap:
                    timeout *= WRAP_SLOWDOWN
                if args.max_timeout:
                    timeout = min(timeout, args.max_timeout)
                log = os.path.join(grade_dir, "logs", f"lab{m['lab']}", f"{t['name']}.log")
                opts = sandbox_options(m, lb, timeout, hide_kit=not args.wrap)
                run_test(binary, driver, clean_driver, r, timeout, params, log, opts, lb,
                         m["limits"]["host_copy_bytes"], wrap=args.wrap.split() if args.wrap else [])
                add_race_note(r, m)

            # Each test is a process of its own, so on a GPU the tests that time nothing run
            # several at once (the device has room; the host's checks are the slow part). A timing
            # test, or one the manifest marks `alone` (it needs most of the device's memory), runs
            # with nothing beside it. Results print in the manifest's order either way.
            # Under a sanitizer (the kit's GPU checks), one at a time: each sanitizer keeps host
            # cores busy, and eight at once ran past their tests' time limits.
            jobs = args.test_jobs or (min(8, max(1, (os.cpu_count() or 2) // 2))
                                      if lb == "cuda" and not args.wrap else 1)
            shared = [i for i, t in enumerate(tests) if jobs > 1 and not t.get("timing") and not t.get("alone")]
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs) if shared else None
            futures = {i: pool.submit(run_one, tests[i], results[i]) for i in shared} if pool else {}
            for i, (t, r) in enumerate(zip(tests, results)):
                if i in futures:
                    futures[i].result()
                else:
                    for f in futures.values():  # nothing runs beside it
                        f.result()
                    run_one(t, r)
                if t in not_here:
                    not_graded(r, backend)
                elif t.get("counters") and r.status == "skip":
                    counters_lost(r)
                print_result(r, args.verbose)
                if t.get("visibility", "visible") == "visible":  # results.json's output: students see it
                    out_lines.append(f"  {r.name}: {r.status.upper()}" + "".join(f"\n      {x}" for x in r.reasons[:6]))
            if pool:
                pool.shutdown()
            score = sum(r.score for r in results)
            possible = sum(r.points for r in results if r.status != "skip")
            skipped = sum(r.points for t, r in zip(tests, results) if r.status == "skip" and t not in not_here)
            total += score
            max_total += possible
            extra = []
            if not_here:
                kind = "timing tests" if all(t.get("timing") for t in not_here) else \
                    "emu counters tests" if not any(t.get("timing") for t in not_here) else "tests"
                extra.append(f"{kind} not graded on the {backend} backend: "
                             f"{', '.join(t['name'] for t in not_here)}")
            if skipped:
                extra.append(f"{skipped} point{'' if skipped == 1 else 's'} skipped on this machine")
            line = f"lab {m['lab']} score: {score}/{possible}" + (f" ({'; '.join(extra)})" if extra else "")
            hidden = [(t, r) for t, r in zip(tests, results) if t.get("visibility", "visible") != "visible"]
            if hidden:  # the output students see has the visible tests' score alone
                print(line, flush=True)
                shown = [r for t, r in zip(tests, results) if (t, r) not in hidden]
                out_lines.append(f"lab {m['lab']} score on its visible tests: {sum(r.score for r in shown)}/"
                                 f"{sum(r.points for r in shown if r.status != 'skip')} ({len(hidden)} hidden "
                                 f"test{'s' if len(hidden) > 1 else ''}: shown when the course releases them)")
                concealed[0] += len(hidden)
                concealed[1] += sum(r.score for _, r in hidden)
                concealed[2] += sum(r.points for _, r in hidden if r.status != "skip")
            else:
                say(line)
            labs_results.append((m, results))
    finally:
        if unpacked:
            shutil.rmtree(unpacked, ignore_errors=True)

    results_path = args.results or os.path.join(grade_dir, "results.json")
    if concealed[0]:
        print(f"\nScore: {total}/{max_total}", flush=True)
        out_lines.append(f"\nScore on the visible tests: {total - concealed[1]}/{max_total - concealed[2]}")
    else:
        say(f"\nScore: {total}/{max_total}")
    write_atomically(results_path, gradescope_json(labs_results, total, max_total, out_lines))
    print(f"results: {os.path.relpath(results_path, ROOT) if not args.results else results_path}")
    if args.stats:
        import resource
        print(f"grader peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")
    return 0 if total == max_total and max_total > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
