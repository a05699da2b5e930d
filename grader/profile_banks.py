#!/usr/bin/env python3
"""`make profile LAB=03`: shared-memory bank conflicts of a lab's two kernels, measured by
Nsight Compute (ncu) on the GPU and printed side by side.

Builds a small profiling program (labs/NN-name/profile/*.cu) with a submission's student file
(solutions/ by default, skeletons/ in the student kit; SUBMISSION=path or --submission for
another folder or a handin tarball), runs it once per variant under

    ncu --clock-control none --metrics <the four shared-memory counters below>

and prints the counters in two columns. Lab 03 compares the unpadded and padded Blelloch
scans, and sets the measured conflicts per tile beside the CPU replay's prediction; lab 04
compares the shuffle warp scan with the shared-memory one. Needs nvcc, ncu and an NVIDIA GPU;
without them it says what is missing and exits with 1.

    profile.py --lab 03 [--submission PATH] [--n N] [--block B] [--sm 90]
"""
import argparse
import csv
import glob
import io
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402  (manifests, submissions, paths)

ROOT = grade.ROOT

METRICS = [
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared loads: wavefronts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared loads: bank conflicts"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared stores: wavefronts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared stores: bank conflicts"),
]

LABS = {
    "03": {
        "program": "labs/03-blelloch/profile/blelloch_profile.cu",
        "extra_sources": ["reference/ref_lab03.c"],
        "variants": [("unpadded", "scanExcBlelloch"), ("padded", "scanExcBlellochPadded")],
        "n": 1 << 24,
        "block": 512,
        "unit": "tiles",
    },
    "04": {
        "program": "labs/04-warp-scan/profile/warp_scan_profile.cu",
        "extra_sources": [],
        "variants": [("shfl", "scanIncWarp"), ("smem", "scanIncWarpSmem")],
        "n": 1 << 24,
        "block": 256,
        "unit": "warps",
    },
}


def fail(msg):
    print(f"profile: {msg}", file=sys.stderr)
    sys.exit(1)


def find_tool(name):
    """A CUDA tool on PATH, or in the usual install folders."""
    path = shutil.which(name)
    if path:
        return path
    nvcc = shutil.which("nvcc")
    cands = [os.path.join(os.path.dirname(nvcc), name)] if nvcc else []
    cands += [f"/usr/local/cuda/bin/{name}", f"/opt/nvidia/nsight-compute/{name}"]
    cands += sorted(glob.glob("/opt/nvidia/nsight-compute/*/" + name), reverse=True)
    cands += sorted(glob.glob("/usr/local/cuda/nsight-compute*/" + name), reverse=True)
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def gpu_present():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        r = subprocess.run([smi, "-L"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0 and b"GPU" in r.stdout


def student_file(manifest, submission, work):
    """The submission's student file (a folder or a handin tarball)."""
    if not os.path.exists(submission):
        fail(f"submission '{submission}' does not exist")
    sub_dir = submission
    if os.path.isfile(submission):
        sub_dir = grade.unpack_tarball(submission, os.path.join(work, "unpacked"))
    name = manifest["student_files"][0]
    path = grade.find_student_file(sub_dir, manifest["dir"], name)
    if not path:
        fail(f"no {manifest['dir']}/{name} in {submission}")
    return path


def build(lab, spec, source, out, sm, nvcc):
    cmd = [nvcc, "-O3", "-lineinfo", "-std=c++17", f"-arch=sm_{sm}", "-Igrader/include",
           "-Igrader/harness", "-Ireference", os.path.join(ROOT, spec["program"]), source]
    cmd += [os.path.join(ROOT, s) for s in spec["extra_sources"]]
    cmd += ["-o", out]
    print("$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        fail(f"lab {lab}: the profiling program does not compile (errors above)")


def parse_number(text):
    text = text.strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_csv(text):
    """Sums each metric over every kernel the run profiled; {metric: value}."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}, 0
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    sums = {}
    if rows and "Metric Name" in rows[0]:          # long format: one row per kernel and metric
        for row in rows:
            v = parse_number(row.get("Metric Value", ""))
            if v is not None:
                sums[row["Metric Name"]] = sums.get(row["Metric Name"], 0.0) + v
    else:                                          # wide format (--page raw): one row per kernel
        for row in rows:
            for name, _ in METRICS:
                v = parse_number(row.get(name, "") or "")
                if v is not None:
                    sums[name] = sums.get(name, 0.0) + v
    kernels = len({row.get("ID") for row in rows})
    return sums, kernels


def run_variant(lab, binary, variant, n, block, ncu, work):
    log = os.path.join(work, f"ncu-{variant}.csv")
    cmd = [ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--log-file", log,
           "--metrics", ",".join(m for m, _ in METRICS), binary, variant, str(n), str(block)]
    print("$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    if "ERR_NVGPUCTRPERM" in text + r.stdout + r.stderr:
        fail("ncu may not read the GPU's performance counters on this machine (ERR_NVGPUCTRPERM): "
             "run as root, or allow profiling for all users (the NVreg_RestrictProfilingToAdminUsers=0 "
             "driver option)")
    if r.returncode != 0:
        print(r.stdout + r.stderr + text[-3000:], file=sys.stderr)
        fail(f"lab {lab}: the {variant} run failed under ncu (exit code {r.returncode}; output above)")
    info = {}
    m = re.search(r"^PROFILE (.*)$", r.stdout, re.M)
    if m:
        info = dict(kv.split("=", 1) for kv in m.group(1).split())
    sums, kernels = parse_ncu_csv(text)
    if not sums:
        print(text[-3000:], file=sys.stderr)
        fail(f"lab {lab}: no metrics in ncu's output for the {variant} run ({os.path.relpath(log, ROOT)})")
    return sums, kernels, info


def main(argv=None):
    ap = argparse.ArgumentParser(description="Bank-conflict counters of a lab's kernels (ncu).")
    ap.add_argument("--lab", required=True)
    default_sub = "solutions" if os.path.isdir(os.path.join(ROOT, "solutions")) else "skeletons"
    ap.add_argument("--submission", default=os.environ.get("SUBMISSION") or default_sub,
                    help="folder or handin tarball (default $SUBMISSION, else solutions/, or "
                         "skeletons/ in the student kit)")
    ap.add_argument("--n", type=int, default=None, help="elements (default 2^24)")
    ap.add_argument("--block", type=int, default=None, help="threads per block")
    ap.add_argument("--sm", default=os.environ.get("SM", "90"))
    args = ap.parse_args(argv)

    lab = f"{int(args.lab):02d}" if args.lab.isdigit() else args.lab
    if lab not in LABS:
        fail(f"lab {lab} has no profile; only labs {', '.join(sorted(LABS))} do "
             "(make profile LAB=03: bank conflicts of the Blelloch scans)")
    spec = LABS[lab]
    manifest = [m for m in grade.all_manifests() if m["lab"] == lab][0]

    nvcc, ncu = find_tool("nvcc"), find_tool("ncu")
    missing = [what for what, ok in (("nvcc (the CUDA toolkit)", nvcc),
                                     ("ncu (Nsight Compute, part of the CUDA toolkit)", ncu),
                                     ("an NVIDIA GPU (nvidia-smi -L lists none)", gpu_present()))
               if not ok]
    if missing:
        hint = (" Without one, the CPU replay in `make test LAB=03 T=bank_conflicts` counts the same "
                "conflicts step by step." if lab == "03" else "")
        fail("needs " + ", ".join(missing) + ". Bank conflicts are hardware counters: run "
             f"`make profile LAB={lab}` on a machine with a GPU." + hint)

    submission = args.submission
    work = os.path.join(ROOT, "build", "profile", f"lab{lab}", grade.submission_key(submission))
    os.makedirs(work, exist_ok=True)
    source = student_file(manifest, submission, work)
    binary = os.path.join(work, os.path.splitext(os.path.basename(spec["program"]))[0])
    build(lab, spec, source, binary, args.sm, nvcc)

    n = args.n or spec["n"]
    block = args.block or spec["block"]
    results = []
    for variant, _ in spec["variants"]:
        results.append(run_variant(lab, binary, variant, n, block, ncu, work))

    names = [label for _, label in spec["variants"]]
    print(f"\nlab {lab}: shared-memory counters of one batched scan, n={n}, block={block} "
          f"({os.path.relpath(source, ROOT)}; ncu --clock-control none)")
    print(f"  {'':34}" + "".join(f"{name:>24}" for name in names))
    for metric, label in METRICS:
        print(f"  {label:34}" + "".join(f"{int(r[0].get(metric, 0)):>24,d}" for r in results))
    conflicts = [r[0].get(METRICS[1][0], 0) + r[0].get(METRICS[3][0], 0) for r in results]
    wavefronts = [r[0].get(METRICS[0][0], 0) + r[0].get(METRICS[2][0], 0) for r in results]
    print(f"  {'bank conflicts / wavefronts':34}" +
          "".join(f"{(c / w if w else 0):>24.3f}" for c, w in zip(conflicts, wavefronts)))
    unit = spec["unit"]
    counts = [int(r[2].get(unit, 0) or 0) for r in results]
    if all(counts):
        print(f"  {'bank conflicts per ' + unit[:-1]:34}" +
              "".join(f"{c / k:>24.1f}" for c, k in zip(conflicts, counts)))
    if lab == "03" and all("predicted_conflicts_per_tile" in r[2] for r in results):
        print(f"  {'predicted per tile (CPU replay)':34}" +
              "".join(f"{int(r[2]['predicted_conflicts_per_tile']):>24d}" for r in results))
    kernels = [r[1] for r in results]
    print(f"  {'kernels profiled':34}" + "".join(f"{k:>24d}" for k in kernels))
    print(f"\n(raw ncu output: {os.path.relpath(work, ROOT)}/ncu-*.csv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
