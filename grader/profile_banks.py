#!/usr/bin/env python3
"""`make profile LAB=03`: the memory counters of a lab's two kernels (global requests and
sectors, shared wavefronts and bank conflicts), as the emulator models them and, on a machine
with a GPU, as Nsight Compute (ncu) measures them, side by side.

Builds a small profiling program (labs/NN-name/profile/*.cu) with a submission's student file
(solutions/ by default, skeletons/ in the student kit; SUBMISSION=path or --submission for
another folder or a handin tarball) and runs it once per variant:

  - on the emu, built with the memory probes and run with SCANLAB_EMU_PROFILE (always, where
    a host C++ compiler is installed: the counters as an H100 counts them, see grader/emu);
  - where nvcc, ncu and a GPU answer, also under
        ncu --clock-control none --metrics <the eight counters below>

and prints the counters in columns. Lab 03 compares the unpadded and padded Blelloch scans,
and sets the conflicts per tile beside the CPU replay's prediction; lab 04 compares the
shuffle warp scan with the shared-memory one.

    profile_banks.py --lab 03 [--submission PATH] [--n N] [--block B] [--sm 90] [--no-emu]
"""
import argparse
import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402  (manifests, submissions, paths)

ROOT = grade.ROOT

METRICS = [
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global loads: requests"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global loads: sectors"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global stores: requests"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global stores: sectors"),
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
        "n": 1 << 16,
        "block": 512,
        "unit": "tiles",
    },
    "04": {
        "program": "labs/04-warp-scan/profile/warp_scan_profile.cu",
        "extra_sources": [],
        "variants": [("shfl", "scanIncWarp"), ("smem", "scanIncWarpSmem")],
        "n": 1 << 16,
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
    path = grade.find_student_file(sub_dir, manifest, name)
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


EMU_FLAGS_MK = "grader/emu/emu.mk"


def emu_make_var(name):
    """A variable of the emu's build contract (grader/emu/emu.mk), as make expands it."""
    r = subprocess.run(["make", "--no-print-directory", "-s", "-f", EMU_FLAGS_MK, "-p", "-n", "emu-lib"],
                       cwd=ROOT, capture_output=True, text=True)
    for line in r.stdout.splitlines():
        m = re.match(rf"^{name} [:?]?= (.*)$", line)
        if m:
            return m.group(1).replace("$(EMU_DIR)", "grader/emu")
    return ""


def build_emu(lab, spec, source, out):
    """The profiling program for the emu, with the memory probes; returns its path."""
    r = subprocess.run(["make", "--no-print-directory", "-s", "-f", EMU_FLAGS_MK, "emu-lib"], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        fail("the emulator's runtime does not build (errors above)")
    cxx = os.environ.get("EMU_CXX", "g++")
    flags = ["-std=c++17", "-O2", "-g", "-pthread", "-Wno-unknown-pragmas", "-Igrader/emu/include",
             "-include", "scanlab_emu.h"] + emu_make_var("EMU_PROBE_FLAGS").split()
    inc = ["-Igrader/include", "-Igrader/harness", "-Ireference"]
    os.makedirs(out + ".obj", exist_ok=True)
    objs, cmds = [], []
    for src in [spec["program"], source]:
        src = os.path.relpath(os.path.abspath(src), ROOT) if os.path.abspath(src).startswith(ROOT + "/") else src
        cpp = os.path.join(out + ".obj", os.path.basename(src) + ".cpp")
        obj = cpp[:-4] + ".o"
        cmds.append([sys.executable, "grader/emu/cu2cpp.py", src, cpp, "-I" + os.path.dirname(src)])
        cmds.append([cxx] + flags + inc + ["-I" + os.path.dirname(src), "-c", cpp, "-o", obj])
        objs.append(obj)
    for src in spec["extra_sources"]:
        obj = os.path.join(out + ".obj", os.path.basename(src) + ".o")
        cmds.append(["cc", "-std=c11", "-O2", "-Ireference", "-c", os.path.join(ROOT, src), "-o", obj])
        objs.append(obj)
    cmds.append([cxx, "-pthread", "-o", out] + objs + ["build/emu-rt/libscanlab_emu.a", "-pthread"])
    print("$ (emu) " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmds[1]), flush=True)
    for cmd in cmds:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            print("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr, file=sys.stderr)
            fail(f"lab {lab}: the profiling program does not build for the emu (errors above)")
    return out


def run_emu_variant(lab, binary, variant, n, block, work):
    """Runs one variant on the emu; ({metric: sum over the launches}, launches, PROFILE info)."""
    prof = os.path.join(work, f"emu-{variant}.jsonl")
    if os.path.exists(prof):
        os.remove(prof)
    env = dict(os.environ, SCANLAB_EMU_PROFILE=prof)
    env.setdefault("SCANLAB_EMU_SCHEDULE", "forward")
    cmd = [binary, variant, str(n), str(block)]
    print("$ SCANLAB_EMU_PROFILE=" + os.path.relpath(prof, ROOT) + " " +
          " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        fail(f"lab {lab}: the {variant} run failed on the emu (exit code {r.returncode}; output above)")
    sums, kernels = {}, 0
    for line in open(prof) if os.path.exists(prof) else []:
        rec = json.loads(line)
        kernels += 1
        for k, v in rec["metrics"].items():
            sums[k] = sums.get(k, 0) + v
    info = {}
    m = re.search(r"^PROFILE (.*)$", r.stdout, re.M)
    if m:
        info = dict(kv.split("=", 1) for kv in m.group(1).split())
    return sums, kernels, info


def print_table(lab, spec, names, results):
    """names: one column title per result; results: (sums, kernels, info) per column."""
    width = max(24, max(len(x) for x in names) + 2)
    print(f"  {'':34}" + "".join(f"{name:>{width}}" for name in names))
    for metric, label in METRICS:
        print(f"  {label:34}" + "".join(f"{int(r[0].get(metric, 0)):>{width},d}" for r in results))
    conflicts = [r[0].get(METRICS[5][0], 0) + r[0].get(METRICS[7][0], 0) for r in results]
    wavefronts = [r[0].get(METRICS[4][0], 0) + r[0].get(METRICS[6][0], 0) for r in results]
    print(f"  {'bank conflicts / wavefronts':34}" +
          "".join(f"{(c / w if w else 0):>{width}.3f}" for c, w in zip(conflicts, wavefronts)))
    unit = spec["unit"]
    counts = [int(r[2].get(unit, 0) or 0) for r in results]
    if all(counts):
        print(f"  {'bank conflicts per ' + unit[:-1]:34}" +
              "".join(f"{c / k:>{width}.1f}" for c, k in zip(conflicts, counts)))
    if lab == "03" and all("predicted_conflicts_per_tile" in r[2] for r in results):
        print(f"  {'predicted per tile (CPU replay)':34}" +
              "".join(f"{int(r[2]['predicted_conflicts_per_tile']):>{width}d}" for r in results))
    print(f"  {'kernels profiled':34}" + "".join(f"{r[1]:>{width}d}" for r in results))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Memory counters of a lab's kernels (emu model, ncu).")
    ap.add_argument("--lab", required=True)
    default_sub = "solutions" if os.path.isdir(os.path.join(ROOT, "solutions")) else "skeletons"
    ap.add_argument("--submission", default=os.environ.get("SUBMISSION") or default_sub,
                    help="folder or handin tarball (default $SUBMISSION, else solutions/, or "
                         "skeletons/ in the student kit)")
    ap.add_argument("--n", type=int, default=None, help="elements (default 2^16)")
    ap.add_argument("--block", type=int, default=None, help="threads per block")
    ap.add_argument("--sm", default=os.environ.get("SM", "90"))
    ap.add_argument("--no-emu", action="store_true", help="ncu only (a GPU machine)")
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
    use_emu = not args.no_emu and shutil.which(os.environ.get("EMU_CXX", "g++"))
    if missing and not use_emu:
        fail("needs " + ", ".join(missing) + " for ncu's counters, or a host C++ compiler (g++) for "
             "the emulator's")
    if missing:
        print(f"profile: no ncu here ({'; '.join(missing)} missing): the emulator's counters alone, "
              "as an H100 would count them (grader/emu/README.md, 'Memory probes')", flush=True)

    submission = args.submission
    work = os.path.join(ROOT, "build", "profile", f"lab{lab}", grade.submission_key(submission))
    os.makedirs(work, exist_ok=True)
    source = student_file(manifest, submission, work)
    n = args.n or spec["n"]
    block = args.block or spec["block"]
    names, results = [], []
    base = os.path.join(work, os.path.splitext(os.path.basename(spec["program"]))[0])
    gpu = None
    if not missing:
        build(lab, spec, source, base, args.sm, nvcc)
        gpu = [run_variant(lab, base, variant, n, block, ncu, work) for variant, _ in spec["variants"]]
    emu = None
    if use_emu:
        build_emu(lab, spec, source, base + "-emu")
        emu = [run_emu_variant(lab, base + "-emu", variant, n, block, work) for variant, _ in spec["variants"]]
    for i, (_, label) in enumerate(spec["variants"]):
        if gpu:
            names.append(f"{label} (ncu)" if emu else label)
            results.append(gpu[i])
        if emu:
            names.append(f"{label} (emu)" if gpu else label)
            results.append(emu[i])
    how = "; ".join(x for x in ("ncu --clock-control none" if gpu else "",
                                "emu: memory probes, SCANLAB_EMU_PROFILE" if emu else "") if x)
    print(f"\nlab {lab}: memory counters of one batched scan, n={n}, block={block} "
          f"({os.path.relpath(source, ROOT)}; {how})")
    print_table(lab, spec, names, results)
    raw = ([f"{os.path.relpath(work, ROOT)}/ncu-*.csv"] if gpu else []) + \
          ([f"{os.path.relpath(work, ROOT)}/emu-*.jsonl"] if emu else [])
    print(f"\n(raw output: {', '.join(raw)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
