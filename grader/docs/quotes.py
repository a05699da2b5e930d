#!/usr/bin/env python3
"""Checks that the program output quoted in the handouts is what the programs print today.

A quoted block is announced by an HTML comment (invisible in the rendered page) right before
the indented block that quotes the output:

    <!-- quote
    run: make test LAB=04 T=inc_partial_warps SUBMISSION=skeletons
    edit: solutions/04-warp-scan/warp_scan.cu
      shflUpAny(mask, x, d)
      shflUpAny(WARP_FULL_MASK, x, d)
    gpu: yes
    -->

`run` is the command, run from the kit's root on the emu backend (`BACKEND=emu`), also with
--gpu, unless `gpu: yes`, which runs it on the default backend and only with --gpu (on a GPU
machine; `make check-gpu`). `edit` copies a student file into a scratch submission with one
text replaced (the quote shows a known bug) and points SUBMISSION= at it. Every quoted line must appear in the output, in order, after
the lines that start with `$ ` (the commands) and `...` (left out) are dropped; times such as
`(0.2s)` match any time; a line that ends in ` \\` goes on in the next (long output wrapped to
fit the page); `(exit status N)` must be the program's exit status. A failure shows
the block and the real output, so the quote can be corrected by hand.

    quotes.py [--gpu] [--list] [FILE...]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"<!-- quote\n(.*?)-->\n", re.S)


def handouts():
    return [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "grader", "README.md")] + \
        sorted(glob.glob(os.path.join(ROOT, "labs", "*", "README.md")))


def parse(path):
    """The quotes of a file: dicts with file, line, run, edits, gpu, lines (the quoted text)."""
    text = open(path).read()
    out = []
    for m in MARK.finditer(text):
        spec = {"file": os.path.relpath(path, ROOT), "line": text.count("\n", 0, m.start()) + 1,
                "run": None, "edits": [], "gpu": False, "lines": []}
        body = m.group(1).splitlines()
        i = 0
        while i < len(body):
            key, _, value = body[i].partition(":")
            key = key.strip()
            if key == "run":
                spec["run"] = value.strip()
            elif key == "gpu":
                spec["gpu"] = value.strip() == "yes"
            elif key == "edit":
                spec["edits"].append((value.strip(), body[i + 1].strip(), body[i + 2].strip()))
                i += 2
            elif body[i].strip():
                raise ValueError(f"{spec['file']}:{spec['line']}: unknown key in quote: {body[i]!r}")
            i += 1
        if not spec["run"]:
            raise ValueError(f"{spec['file']}:{spec['line']}: a quote without `run:`")
        # The quoted block: the indented lines after the comment (blank lines inside allowed).
        rest = text[m.end():].splitlines()
        block = []
        for line in rest:
            if line.strip() and not line.startswith("    "):
                break
            block.append(line)
        while block and not block[-1].strip():
            block.pop()
        # A line that ends in ` \\` goes on in the next one (long output wrapped to fit the page).
        joined = []
        for b in block:
            if joined and joined[-1].endswith(" \\"):
                joined[-1] = joined[-1][:-2] + " " + b.strip()
            elif b.strip():
                joined.append(b.strip())
        spec["lines"] = joined
        if not spec["lines"]:
            raise ValueError(f"{spec['file']}:{spec['line']}: a quote with no indented block after it")
        out.append(spec)
    return out


def command(spec, submission=None):
    """The shell command that reproduces a quote: on the emu backend unless the quote says
    `gpu: yes` (with --gpu too: an emu quote shows the emu's output, whatever the machine)."""
    cmd = spec["run"]
    if submission:
        cmd += f" SUBMISSION={submission}"
    if not spec["gpu"]:
        cmd = "BACKEND=emu " + cmd if not cmd.startswith("make") else cmd + " BACKEND=emu"
    return cmd


def run_quote(spec):
    """Runs a quote's command; returns (exit status, output)."""
    work = tempfile.mkdtemp(prefix="scanlab-quote-")
    try:
        sub = None
        if spec["edits"]:
            sub = os.path.join(work, "submission")
            for rel, old, new in spec["edits"]:
                parts = rel.split("/")
                dest = os.path.join(sub, *parts[1:])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                src = open(os.path.join(ROOT, rel)).read() if not os.path.exists(dest) else open(dest).read()
                if old not in src:
                    raise ValueError(f"{spec['file']}:{spec['line']}: `{old}` is not in {rel}")
                open(dest, "w").write(src.replace(old, new, 1))
        cmd = command(spec, sub)
        env = dict(os.environ, NO_COLOR="1")
        env.pop("SCANLAB_EMU_SCHEDULE", None)
        r = subprocess.run(["bash", "-c", cmd.replace("make ", "make --no-print-directory ", 1)],
                           cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=900)
        return r.returncode, r.stdout.decode(errors="replace")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def norm(line):
    line = re.sub(r"\(\d+\.\d+s\)", "(T)", " ".join(line.split()))
    return re.sub(r"\[0x[0-9a-f]+\]", "[0x...]", line)  # code addresses move with the compiler


def compare(spec, code, output):
    """None when the quote matches the run, else the reason."""
    have = [norm(x) for x in output.splitlines()]
    pos = 0
    for line in spec["lines"]:
        if line.startswith("$ ") or line == "...":
            continue
        m = re.fullmatch(r"\(exit status (\d+)\)", line)
        if m:
            # Under make, the program's own status is in make's "Error N" line.
            made = re.findall(r"^make(?:\[\d+\])?: \*\*\* \[.*\] Error (\d+)$", output, re.M)  # make[1] under make
            status = int(made[-1]) if made else code
            if int(m.group(1)) != status:
                return f"quoted exit status {m.group(1)}, the program exited {status}"
            continue
        want = norm(line)
        for j in range(pos, len(have)):
            if have[j] == want or (have[j].endswith(want) and len(want) > 30):
                pos = j + 1
                break
        else:
            return f"this quoted line is not in the output (in order):\n    {line}"
    return None


def main():
    ap = argparse.ArgumentParser(description="Check the handouts' quoted program output.")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--gpu", action="store_true", help="also the quotes that need a GPU, on the GPU")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    files = [os.path.abspath(f) for f in args.files] or handouts()
    bad = checked = skipped = 0
    for path in files:
        for spec in parse(path):
            where = f"{spec['file']}:{spec['line']}"
            if args.list:
                print(f"{where}: {spec['run']}" + (" (GPU)" if spec["gpu"] else ""))
                continue
            if spec["gpu"] and not args.gpu:
                skipped += 1
                continue
            code, out = run_quote(spec)
            why = compare(spec, code, out)
            checked += 1
            if why:
                bad += 1
                print(f"{where}: the quoted output of `{spec['run']}` is stale: {why}\n"
                      "  the real output:\n" + "\n".join("    " + x for x in out.splitlines()[-40:]))
    if not args.list:
        print(f"quotes: {checked} checked against real runs, {bad} stale, {skipped} need a GPU")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
