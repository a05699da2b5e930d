#!/usr/bin/env python3
"""`make bench`: every solution variant of labs 02-07 against the device copy, CUB, Thrust and cuSPARSE.

Builds grader/measure/bench.cu with the solution files that exist (one nvcc per source, linked
once, rebuilt only when a source is newer than the binary), runs it on the GPU, shows a
progress line, then prints two tables (fraction of copy bandwidth, and speed relative to CUB,
for every variant and size) and writes under build/bench/:

    bench.csv   one row per variant and size
    bench.json  the same, with the device
    bench.svg   fraction of copy against N, one line per variant

Usage: bench.py [--min-log2 16] [--max-log2 28] [--extra-log2 30] [--reps 25] [--only TEXT[|TEXT]]
                [--out build/bench] [--no-build] [--from-json bench.json]
Standard library only. GPU only: without one it says so and exits with status 1.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "grading"))
import grade  # noqa: E402  (manifests, backend detection)

# The labs whose solutions are benched, and the macro that tells bench.cu each one is there.
LABS = ("02", "03", "04", "05", "06")


def solution_sources():
    """(lab, path) of every solution file of labs 02-06 that exists."""
    out = []
    for m in grade.all_manifests():
        if m["lab"] not in LABS:
            continue
        for f in m["student_files"]:
            path = os.path.join(ROOT, "solutions", m["dir"], f)
            if os.path.isfile(path):
                out.append((m["lab"], path))
    return out


def build(out_dir, sm):
    """Compiles and links build/bench/bench; returns its path (None on a failed build)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        print("bench: nvcc is not on the PATH", file=sys.stderr)
        return None
    sols = solution_sources()
    labs = sorted({lab for lab, _ in sols})
    inc = ["-I" + os.path.join(ROOT, d) for d in ("grader/trusted/harness", "grader/trusted/include", "reference")]
    flags = ["-O3", "-std=c++17", "-lineinfo", f"-arch=sm_{sm}"] + inc
    objdir = os.path.join(out_dir, "obj")
    os.makedirs(objdir, exist_ok=True)
    sources = [os.path.join(HERE, "bench.cu")] + [p for _, p in sols]
    binary = os.path.join(out_dir, "bench")
    headers = [os.path.join(ROOT, d, f) for d in ("grader/trusted/include", "grader/trusted/harness")
               for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".h")]
    newest = max(os.path.getmtime(p) for p in sources + headers + [__file__])
    if os.path.exists(binary) and os.path.getmtime(binary) >= newest:
        return binary
    print(f"bench: building with the solutions of labs {', '.join(labs)} (nvcc, sm_{sm}) ...", flush=True)
    defs = [f"-DBENCH_LAB{lab}" for lab in labs]
    jobs, objs = [], []
    for src in sources:
        obj = os.path.join(objdir, os.path.relpath(src, ROOT).replace("/", "_") + ".o")
        objs.append(obj)
        cmd = [nvcc] + flags + (defs if src.endswith("bench.cu") else []) + ["-c", src, "-o", obj]
        jobs.append((src, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)))
    ok = True
    for src, p in jobs:
        text = p.communicate()[0].decode(errors="replace")
        if p.returncode != 0:
            ok = False
            print(f"bench: compiling {os.path.relpath(src, ROOT)} failed:\n{text}", file=sys.stderr)
    if not ok:
        return None
    r = subprocess.run([nvcc, f"-arch=sm_{sm}", "-o", binary] + objs, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"bench: linking failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
        return None
    return binary


def build_apps(out_dir, sm):
    """Lab 07's bench (bench_apps.cu with the lab 07 solution, cuSPARSE linked): its path, or
    None when the solution is not there or the build failed (said on stderr)."""
    m = [m for m in grade.all_manifests() if m["lab"] == "07"]
    sol = os.path.join(ROOT, "solutions", m[0]["dir"], m[0]["student_files"][0]) if m else None
    if not sol or not os.path.isfile(sol):
        return None
    nvcc = shutil.which("nvcc")
    src = os.path.join(HERE, "bench_apps.cu")
    binary = os.path.join(out_dir, "bench_apps")
    newest = max(os.path.getmtime(p) for p in (src, sol, __file__, os.path.join(ROOT, "grader/trusted/include/apps.h")))
    if os.path.exists(binary) and os.path.getmtime(binary) >= newest:
        return binary
    print(f"bench: building lab 07's bench (nvcc, sm_{sm}) ...", flush=True)
    inc = ["-I" + os.path.join(ROOT, d) for d in ("grader/trusted/include",)]
    cmd = [nvcc, "-O3", "-std=c++17", "-lineinfo", f"-arch=sm_{sm}"] + inc + [src, sol, "-o", binary, "-lcusparse"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        print(f"bench: building lab 07's bench failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
        return None
    return binary


# ---- output --------------------------------------------------------------------------------

def fmt_n(lg):
    return f"2^{lg}"


def table(results, variants, sizes, key, title, fmt):
    """A variants x sizes matrix of results[key]; '-' where a variant was not timed."""
    cell = {(r["variant"], r["log2n"]): r for r in results}
    width = max(len(v) for v in variants) + 2
    lines = [title, " " * width + "".join(f"{fmt_n(lg):>7}" for lg in sizes)]
    for v in variants:
        row = v.ljust(width)
        for lg in sizes:
            r = cell.get((v, lg))
            row += f"{'-':>7}" if r is None else f"{fmt(r[key]) + ('' if r['ok'] else '!'):>7}"
        lines.append(row)
    return "\n".join(lines)


# Ten hues far apart (black, then the colour wheel); a plot with more lines than hues goes round
# again with another marker shape, so that no two lines share both hue and marker.
COLORS = ["#000000", "#d62728", "#ff7f0e", "#b8a200", "#2ca02c", "#17becf", "#1f5fa8", "#7b4fc9",
          "#e377c2", "#8c564b"]
MARKERS = ("circle", "square", "triangle", "diamond")


def marker(shape, x, y, color):
    """A point of a line: a circle, square, triangle or diamond of about 6 px."""
    if shape == "square":
        return f'<rect x="{x - 2.8:.1f}" y="{y - 2.8:.1f}" width="5.6" height="5.6" fill="{color}"/>'
    if shape == "triangle":
        return (f'<path d="M{x:.1f},{y - 3.6:.1f} L{x + 3.4:.1f},{y + 2.6:.1f} L{x - 3.4:.1f},{y + 2.6:.1f} z" '
                f'fill="{color}"/>')
    if shape == "diamond":
        return (f'<path d="M{x:.1f},{y - 3.6:.1f} L{x + 3.6:.1f},{y:.1f} L{x:.1f},{y + 3.6:.1f} '
                f'L{x - 3.6:.1f},{y:.1f} z" fill="{color}"/>')
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.8" fill="{color}"/>'


def line_style(r):
    """Yardsticks dashed, tile-wise scans thin and dotted (they do less work), full scans thick."""
    if r["lab"] == "-":
        return 2.0, ' stroke-dasharray="7 4"'
    if r["check"].startswith("tiles"):
        return 1.2, ' stroke-dasharray="2 3"'
    return 2.6, ""


def svg_plot(results, variants, sizes, device, path):
    """Fraction of copy against log2 N, one polyline per variant, legend on the right."""
    W, H, L, R, T, B = 980, 520, 70, 330, 40, 60
    H = max(H, T + 20 + 20 * len(variants))  # room for every legend entry
    pw, ph = W - L - R, H - T - B
    ymax = max([1.2] + [r["frac_copy"] for r in results if r["lab"] != "-" or "copy" not in r["variant"]])
    ymax = min(ymax, 2.0)
    x0, x1 = sizes[0], sizes[-1]

    def X(lg):
        return L + (lg - x0) / max(1, x1 - x0) * pw

    def Y(f):
        return T + ph - min(f, ymax) / ymax * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="22" font-size="15">Scan bandwidth as a fraction of the device copy '
           f'({device.get("name", "GPU")})</text>']
    step = 0.2
    k = 0
    while k * step <= ymax + 1e-9:
        f = k * step
        out.append(f'<line x1="{L}" y1="{Y(f):.1f}" x2="{L + pw}" y2="{Y(f):.1f}" stroke="#dddddd"/>')
        out.append(f'<text x="{L - 8}" y="{Y(f) + 4:.1f}" text-anchor="end">{f:.1f}</text>')
        k += 1
    for lg in sizes:
        out.append(f'<line x1="{X(lg):.1f}" y1="{T + ph}" x2="{X(lg):.1f}" y2="{T + ph + 5}" stroke="black"/>')
        out.append(f'<text x="{X(lg):.1f}" y="{T + ph + 20}" text-anchor="middle">2<tspan dy="-6" '
                   f'font-size="12">{lg}</tspan></text>')  # 11 px as a handout shows it
    out.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 12}" text-anchor="middle">N (32-bit ints); dotted: '
               'tile-wise scans, each tile on its own</text>')
    out.append(f'<text x="18" y="{T + ph / 2}" text-anchor="middle" transform="rotate(-90 18 {T + ph / 2})">'
               'fraction of copy bandwidth</text>')
    by = {}
    for r in results:
        by.setdefault(r["variant"], []).append(r)
    for i, v in enumerate(variants):
        pts = sorted(by.get(v, []), key=lambda r: r["log2n"])
        if not pts:
            continue
        color = COLORS[i % len(COLORS)]
        shape = MARKERS[(i // len(COLORS)) % len(MARKERS)]
        width, dash = line_style(pts[0])
        d = " ".join(f"{X(r['log2n']):.1f},{Y(r['frac_copy']):.1f}" for r in pts)
        out.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="{width}"{dash}/>')
        for r in pts:
            out.append(marker(shape, X(r["log2n"]), Y(r["frac_copy"]), color))
        ly = T + 10 + i * 20
        out.append(f'<line x1="{L + pw + 15}" y1="{ly}" x2="{L + pw + 40}" y2="{ly}" stroke="{color}" '
                   f'stroke-width="{width}"{dash}/>')
        out.append(marker(shape, L + pw + 27.5, ly, color))
        out.append(f'<text x="{L + pw + 46}" y="{ly + 4}">{v.replace("&", "&amp;").replace("<", "&lt;")}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def progress(done, total, what, tty):
    if tty:
        bar = int(30 * done / max(1, total))
        sys.stderr.write(f"\r[{'#' * bar}{'.' * (30 - bar)}] {done}/{total} {what[:60]:<60}")
        sys.stderr.flush()
    elif done % 10 == 0 or done == total:
        print(f"  {done}/{total} {what}", file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Time every solution variant against the copy and CUB.")
    ap.add_argument("--min-log2", type=int, default=16)
    ap.add_argument("--max-log2", type=int, default=28)
    ap.add_argument("--extra-log2", type=int, default=30, help="go on up to this size where memory allows")
    ap.add_argument("--reps", type=int, default=25, help="timed runs per measurement (median; at least 20)")
    ap.add_argument("--only", default=None,
                    help="only variants whose name contains this text, or one of several separated "
                         "by | (plus copy, CUB)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--no-build", action="store_true", help="run the binary already built")
    ap.add_argument("--from-json", default=None, metavar="FILE",
                    help="no GPU run: print the tables and draw the plot of a saved bench.json")
    args = ap.parse_args(argv)

    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        os.makedirs(args.out, exist_ok=True)
        return report(saved["results"], saved["device"], args.out, None)

    if grade.detect_backend() != "cuda":
        print("bench: no GPU answers here (nvidia-smi finds none, or nvcc is missing): "
              "make bench times kernels on a real GPU only.", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    binary = os.path.join(args.out, "bench") if args.no_build else build(args.out, os.environ.get("SM", "90"))
    if not binary or not os.path.exists(binary):
        return 1
    cmd = [binary, "--min-log2", str(args.min_log2), "--max-log2", str(args.max_log2),
           "--extra-log2", str(args.extra_log2), "--reps", str(args.reps)]
    if args.only:
        cmd += ["--only", args.only]
    tty = sys.stderr.isatty()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    results, device, total, done = [], {}, 0, 0
    for line in proc.stdout:
        word, _, rest = line.rstrip("\n").partition(" ")
        if word == "DEVICE":
            device = json.loads(rest)
            print(f"bench: {device['name']}, {device['sms']} SMs, {device['l2_mb']} MB L2, "
                  f"median of {device['reps']} runs per point", flush=True)
        elif word == "PLAN":
            total = int(rest)
        elif word == "BEGIN":
            name, lg = rest.split("\t")
            progress(done, total, f"{name}, N = 2^{lg}", tty)
        elif word == "RESULT":
            results.append(json.loads(rest))
            done += 1
    code = proc.wait()
    apps = None if args.no_build and not os.path.exists(os.path.join(args.out, "bench_apps")) else (
        os.path.join(args.out, "bench_apps") if args.no_build else build_apps(args.out, os.environ.get("SM", "90")))
    if code == 0 and apps:
        # lab 07: the applications beside their libraries, from 2^20 (the same protocol)
        acmd = [apps, "--min-log2", str(max(args.min_log2, 20)), "--max-log2", str(args.max_log2),
                "--reps", str(args.reps)] + (["--only", args.only] if args.only else [])
        aproc = subprocess.Popen(acmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        base = total
        for line in aproc.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            if word == "PLAN":
                total = base + int(rest)
            elif word == "BEGIN":
                name, lg = rest.split("\t")
                progress(done, total, f"{name}, N = 2^{lg}", tty)
            elif word == "RESULT":
                results.append(json.loads(rest))
                done += 1
        code = aproc.wait()
    if code == 0 and (not args.only or "lab 08" in args.only) and not args.no_build:
        code = bench_lab08(args, results)
    if tty:
        sys.stderr.write("\r" + " " * 110 + "\r")
    if code != 0:
        print(f"bench: the benchmark stopped with status {code} after {done} of {total} measurements",
              file=sys.stderr)

    if not results:
        return 1
    status = report(results, device, args.out, (done, time.monotonic() - t0))
    return 1 if status or code != 0 else 0


def gpu_count():
    """GPUs this process may use: CUDA_VISIBLE_DEVICES's list where it is set, else those
    nvidia-smi lists (1 when it lists none it can be asked about)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return max(1, len([d for d in visible.split(",") if d.strip() and not d.strip().startswith("-")]))
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 1
    return max(1, sum(1 for line in out.splitlines() if line.startswith("GPU ")))


def bench_lab08(args, results):
    """Lab 08 on every GPU of the machine, one process a rank (make ranks' program, the solution):
    scan-then-propagate, reduce-then-scan and CUB with NCCL, each as a fraction of the GPUs' copy
    bandwidth, at a few sizes a GPU; their x_cub is against the CUB + NCCL form. 0, or the status
    of a run that failed. A lab 08 program that does not build (no nccl.h here) is said and
    skipped: the other labs' rows stand."""
    binary = os.path.join(args.out, "lab08_ranks")
    r = subprocess.run(["make", "--no-print-directory", "ranks-build", "BACKEND=cuda", "SUBMISSION=solutions",
                        f"RANKS_BIN={os.path.relpath(binary, ROOT)}"], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        print(f"bench: lab 08 not timed: its ranks program does not build here (NCCL's nccl.h is needed):\n"
              f"{(r.stdout + r.stderr)[-1500:]}", file=sys.stderr)
        return 0
    gpus = gpu_count()
    sizes = sorted({lg for lg in (max(args.min_log2, 20), 24, 26, args.max_log2) if args.min_log2 <= lg <= args.max_log2})
    for lg in sizes:
        print(f"bench: lab 08, {gpus} GPU{'s' if gpus > 1 else ''} as {gpus} rank processes, 2^{lg} a GPU", flush=True)
        p = subprocess.run([os.path.join(ROOT, "labs", "08-multi-gpu", "ranks", "run_ranks.sh"), str(gpus), binary,
                            "--sizes", "0,1,8193", "--time", str(1 << lg), "--reps", str(args.reps), "--bench"],
                           capture_output=True, text=True, cwd=ROOT)
        for line in p.stdout.splitlines():
            word, _, rest = line.partition(" ")
            if word == "RESULT":
                results.append(json.loads(rest))
            elif line.startswith("lab08_ranks: ") and "CUB with NCCL" in line:
                print("  " + line[len("lab08_ranks: "):], flush=True)
        if p.returncode != 0:
            print(f"bench: lab 08's ranks stopped with status {p.returncode}:\n{p.stdout[-1500:]}{p.stderr[-1500:]}",
                  file=sys.stderr)
            return p.returncode
    return 0


def report(results, device, out_dir, run):
    """Prints the tables, writes bench.csv, bench.json and bench.svg; 1 if a result was wrong."""
    variants = list(dict.fromkeys(r["variant"] for r in results))
    sizes = sorted({r["log2n"] for r in results})
    print()
    print(table(results, variants, sizes, "frac_copy",
                "Fraction of copy bandwidth (8 bytes per element over the time, 9 for segmented scans, 12 by key; "
                "1.0 = the copy):",
                lambda x: f"{x:.2f}"))
    print()
    print(table(results, variants, sizes, "x_cub",
                "Speed relative to CUB InclusiveSum (> 1: faster than CUB):", lambda x: f"{x:.2f}"))
    big = max(sizes)
    print()
    print(f"At N = 2^{big}:")
    w = max(len(v) for v in variants) + 2
    print(f"  {'variant':<{w}}{'moves B/elem':>13}{'median ms':>11}{'GB/s':>8}{'of copy':>9}{'x CUB':>7}")
    for r in results:
        if r["log2n"] == big:
            print(f"  {r['variant']:<{w}}{r['bytes_per_elem']:>13.0f}{r['ms']:>11.3f}{r['gbps']:>8.0f}"
                  f"{r['frac_copy']:>9.2f}{r['x_cub']:>7.2f}")
    wrong = [r for r in results if not r["ok"]]
    for r in wrong:
        print(f"WRONG: {r['variant']} at N = 2^{r['log2n']}: {r['bad']} elements differ from the "
              f"reference ({r['check']}); marked '!' above")
    print("Tile-wise variants (labs 02-04, 05 block scan) scan each tile on their own: they do less "
          "than a scan of the whole array, so their ratio to CUB flatters them.")
    if any(r.get("lab") == "08" for r in results):
        print("Lab 08's rows: N elements a GPU on every GPU, one process a rank; the fraction is of all the GPUs' "
              "copy bandwidth, x CUB against the CUB + NCCL form beside them.")

    with open(os.path.join(out_dir, "bench.csv"), "w", newline="") as f:
        w = csv.writer(f)
        keys = ["variant", "lab", "log2n", "n", "ms", "gbps", "frac_copy", "x_cub", "bytes_per_elem",
                "check", "ok"]
        w.writerow(keys)
        for r in results:
            w.writerow([r[k] for k in keys])
    with open(os.path.join(out_dir, "bench.json"), "w") as f:
        json.dump({"device": device, "results": results}, f, indent=1)
    svg_plot(results, variants, sizes, device, os.path.join(out_dir, "bench.svg"))
    rel = os.path.relpath(out_dir, ROOT)
    took = f"{run[0]} measurements in {run[1]:.0f} s; " if run else ""
    print(f"\nbench: {took}{rel}/bench.csv, {rel}/bench.json, {rel}/bench.svg")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
