#!/usr/bin/env python3
"""Builds and runs the emu's corpus (`make emu-corpus`; `make check` and `make check-gpu` too).

Each program of programs.toml is copied with the corpus's common/ folder under
build/emu-corpus/VARIANT/, built by its own Makefile (or CMake) with only the CUDA compiler
changed (`make NVCC=...`, `cmake -DCMAKE_CUDA_COMPILER=...`), and run; it passes when it
exits 0 and prints PASSED, its own self-check. Builds run in parallel, runs one at a time,
each timed. Prints one line per program and ends with `N passed, N failed`.

    run.py [--native] [--probe] [--jobs N] [--only NAME]... [--list] [--json FILE]

    (default)  emu-nvcc: the emu, without the memory probes
    --probe    emu-nvcc --emu-probe: counters and race detector in every kernel
    --native   the CUDA toolkit's nvcc and a GPU (make check-gpu): the native wall times

Python 3 standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "grader", "grading"))
import minitoml  # noqa: E402

EMU_NVCC = os.path.join(ROOT, "grader", "emu", "bin", "emu-nvcc")
INDEX = os.path.join(HERE, "programs.toml")
KEYS = {"name", "run", "features", "style", "build", "timeout"}


class IndexError_(Exception):
    pass


def load_index(path=INDEX):
    """The programs of programs.toml, checked: a mistake names the file, the program and the key."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = minitoml.loads(fh.read())
    except (OSError, minitoml.TOMLDecodeError) as e:
        raise IndexError_("%s: %s" % (os.path.relpath(path, ROOT), e))
    progs = data.get("program")
    if not isinstance(progs, list) or not progs:
        raise IndexError_("%s: no [[program]] entries" % os.path.relpath(path, ROOT))
    seen = set()
    for k, p in enumerate(progs, 1):
        where = "%s, program %d (%s)" % (os.path.relpath(path, ROOT), k, p.get("name", "no name"))
        for key in ("name", "run", "features", "style"):
            if key not in p:
                raise IndexError_("%s: the key `%s` is missing" % (where, key))
        for key in p:
            if key not in KEYS:
                raise IndexError_("%s: unknown key `%s` (known: %s)" % (where, key, ", ".join(sorted(KEYS))))
        if not isinstance(p["features"], list) or not all(isinstance(f, str) for f in p["features"]):
            raise IndexError_("%s: `features` must be a list of strings" % where)
        if p.get("build", "make") not in ("make", "cmake"):
            raise IndexError_("%s: `build` must be \"make\" or \"cmake\"" % where)
        if p["name"] in seen:
            raise IndexError_("%s: a second program named %s" % (where, p["name"]))
        if not os.path.isdir(os.path.join(HERE, p["name"])):
            raise IndexError_("%s: no folder grader/emu/corpus/%s" % (where, p["name"]))
        seen.add(p["name"])
    return progs


def native_nvcc():
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    for cand in (shutil.which("nvcc"), os.path.join(cuda, "bin", "nvcc")):
        if cand and os.path.exists(cand):
            return cand
    return "nvcc"


def sh(cmd, cwd, env, timeout):
    """(exit status, output, seconds); status 124 on a timeout."""
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return r.returncode, r.stdout.decode(errors="replace"), time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return 124, out + "\n(timed out after %d s)" % timeout, time.monotonic() - t0
    except OSError as e:
        return 127, "cannot run %s: %s" % (cmd[0], e.strerror), time.monotonic() - t0


def build(prog, work, nvcc, env):
    d = os.path.join(work, prog["name"])
    if prog.get("build", "make") == "cmake":
        b = os.path.join(d, "build")
        # CMake's CUDA language takes the compiler; the older FindCUDA module the toolkit's root
        # (for the emu, build/emu-toolkit/, which emu-nvcc lays out on its first run)
        root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc))) if nvcc != EMU_NVCC else \
            os.path.join(ROOT, "build", "emu-toolkit")
        flags = ["-DCMAKE_CUDA_COMPILER=" + nvcc, "-DCUDA_TOOLKIT_ROOT_DIR=" + root, "-DCMAKE_BUILD_TYPE=Release"]
        code, out, t = sh(["cmake", "-S", d, "-B", b] + flags, d, env, 600)
        if code:
            return code, out, t
        code, out2, t2 = sh(["cmake", "--build", b, "-j", "1"], d, env, 600)
        return code, out + out2, t + t2
    return sh(["make", "--no-print-directory", "NVCC=" + nvcc], d, env, 600)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Build and run the emu's corpus.")
    ap.add_argument("--native", action="store_true", help="the CUDA toolkit's nvcc, on a GPU")
    ap.add_argument("--probe", action="store_true", help="the emu with the memory probes")
    ap.add_argument("--jobs", type=int, default=2, help="parallel builds (default 2)")
    ap.add_argument("--only", action="append", default=[], help="programs whose name has this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json", help="write the results (status, seconds) to this file")
    args = ap.parse_args(argv)
    try:
        progs = load_index()
    except IndexError_ as e:
        print("corpus: %s" % e)
        return 2
    if args.only:
        progs = [p for p in progs if any(o in p["name"] for o in args.only)]
    if args.list:
        for p in progs:
            print(p["name"])
        return 0
    variant = "native" if args.native else ("emu-probe" if args.probe else "emu")
    nvcc = native_nvcc() if args.native else EMU_NVCC
    work = os.path.join(ROOT, "build", "emu-corpus", variant)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copytree(os.path.join(HERE, "common"), os.path.join(work, "common"))
    for p in progs:
        shutil.copytree(os.path.join(HERE, p["name"]), os.path.join(work, p["name"]))
    env = dict(os.environ)
    env.pop("SCANLAB_EMU_SCHEDULE", None)
    if args.probe:
        env["EMU_PROBE"] = "1"
    else:
        env.pop("EMU_PROBE", None)
    if not args.native:
        # the runtime and build/emu-toolkit/ once, before the parallel builds
        code, out, _ = sh([EMU_NVCC, "-E", "-x", "c", os.devnull], ROOT, env, 600)
        if code:
            print("corpus: emu-nvcc cannot build the emu's runtime:\n" + out)
            return 1
    print("corpus: %d programs, %s, built with %s" % (len(progs), variant, os.path.relpath(nvcc, ROOT)
                                                      if nvcc.startswith(ROOT) else nvcc), flush=True)
    t_all = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        builds = {p["name"]: pool.submit(build, p, work, nvcc, env) for p in progs}
        results, passed, failed = {}, 0, 0
        for p in progs:
            code, out, t_build = builds[p["name"]].result()
            res = {"build_s": round(t_build, 2)}
            if code:
                # the lines that say what failed (a linker's own line comes long before the end
                # of CMake's output), kept beside the output's end
                said = [x for x in out.splitlines() if re.search(r"error|undefined reference|cannot find", x, re.I)]
                res.update(status="build failed", output=out[-3000:], errors=said[:8])
            else:
                cmd = p["run"].split()
                d = os.path.join(work, p["name"])
                rc, rout, t_run = sh(cmd, d, env, int(p.get("timeout", 120)))
                res["run_s"] = round(t_run, 3)
                ok = rc == 0 and "PASSED" in rout
                res.update(status="passed" if ok else "failed (exit status %d)" % rc, output=rout[-3000:])
            results[p["name"]] = res
            if res["status"] == "passed":
                passed += 1
                print("%s: OK (build %.1fs, run %.3fs)" % (p["name"], res["build_s"], res["run_s"]), flush=True)
            else:
                failed += 1
                said = res.get("errors", [])
                tail = "\n    ".join(said + (["..."] if said else []) + res["output"].strip().splitlines()[-15:])
                print("%s: FAIL: %s\n    %s" % (p["name"], res["status"], tail), flush=True)
    summary = {"variant": variant, "nvcc": nvcc, "programs": results, "seconds": round(time.monotonic() - t_all, 1)}
    with open(os.path.join(work, "results.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    print("\ncorpus took %.0fs; results in %s" % (time.monotonic() - t_all, os.path.relpath(work, ROOT)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
