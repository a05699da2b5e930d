#!/usr/bin/env python3
"""`make profile LAB=03`: the memory counters of a lab's kernels (global requests and sectors,
shared wavefronts and bank conflicts), as the emulator models them and, on a machine with a
GPU, as Nsight Compute (ncu) measures them, side by side, with a verdict per counter.

Builds a small profiling program (labs/NN-name/profile/*.cu) with a submission's student file
(solutions/ by default, skeletons/ in the student kit; SUBMISSION=path or --submission for
another folder or a handin tarball) and runs it once per variant or case:

  - on the emu, built with the memory probes and run with SCANLAB_EMU_PROFILE and one worker
    (always, where a host C++ compiler is installed: the counters as an H100 counts them, see
    grader/emu);
  - where nvcc, ncu and a GPU answer, also under
        ncu --clock-control none --metrics <the eight counters below, and ncu's shared
                                             wavefronts counted by instruction>

Lab 03 compares the unpadded and padded Blelloch scans, and sets the conflicts per tile beside
the CPU replay's prediction; lab 04 compares the shuffle warp scan with the shared-memory one.
Labs 02, 05, 06 and 07 run each graded function once on a few tiles (the cases in LABS) and
list every kernel launch. With both ncu and the emu, every launch's counters are compared
(grader/measure/profile_compare.py: exact for global requests and sectors and for shared wavefronts
counted by instruction, within 10% (or within ncu's contention) for the L1's shared wavefronts
and conflicts, a lower bound for the loads of a look-back that polls) and a
Markdown table for grader/emu/README.md ends the output.

    profile_banks.py --lab 03|02,05|all [--submission PATH] [--n N] [--block B] [--sm 90]
                     [--no-emu | --emu-only] [--strict] [--record FILE | --recorded FILE]
                     [--differences FILE]

--record FILE keeps ncu's counts of the run in FILE (JSON, by lab and case; the kit's solutions
at the default sizes, which is what --recorded assumes); --recorded FILE
compares the emu with counts kept so, without a GPU. grader/emu/h100_profile.json holds an
H100's counts of the solutions at the default sizes: without a GPU, a profile of the solutions
at those sizes is compared with them; `make check` does so for every lab.
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading"))
import grade  # noqa: E402  (manifests, submissions, paths)
import profile_compare as pc  # noqa: E402  (ncu's CSV, the verdicts, the Markdown table)

ROOT = grade.ROOT

METRICS = [(name, label) for name, label, _, _ in pc.METRICS]


# GCC's instrumentation reports a copy of a whole struct (FlagValue, FlagVal: 8 bytes) as a byte
# range; the emu's probes split it into 4-byte accesses in address order, as nvcc copies a pair
# of 4-byte fields (grader/emu/runtime/probe.cpp, record_range): these rows check that rule.
STRUCT_NOTE = "8-byte pairs copied as structs: the emu counts two 4-byte accesses each"
SCAN_TOTALS_NOTE = "the block scan's warp totals (FlagVal) are struct copies: two 4-byte accesses each"
LOOKBACK_NOTE = "4 tiles: tiles 1-3 look back"
ONE_TILE_NOTE = "one whole tile: no look-back"
SHORT_TILE_NOTE = "one short tile: no look-back"
RADIX_NOTE = "one count of every pass's digits, then 4 passes of 3 tiles of 6144: tiles 1-2 of each look back digit by digit"



def shown_source(source):
    """The profiled file as a reader of any kit can place it: the reference solution by its lab
    folder (the student kit has no solutions/), anything else by its path."""
    rel = os.path.relpath(source, ROOT)
    return "the reference solution, " + rel[len("solutions/"):] if rel.startswith("solutions/") else rel

def case(cid, calls, argv, note=""):
    """One run of a profiling program: its id (file names), the call it makes as the output
    shows it, the program's arguments, and a note the output shows beside the call."""
    return {"id": cid, "calls": calls, "argv": [str(a) for a in argv], "note": note}


def seg_cases():
    """Lab 06: the six batched scans, the head lanes and the operator on 5 blocks of 256 (the
    last 100 long), the single passes on 4 tiles and on one."""
    variants = (("warp_op_inc", "SEG_WARP_OP_INC"), ("warp_op_exc", "SEG_WARP_OP_EXC"),
                ("warp_inc", "SEG_WARP_INC"), ("warp_exc", "SEG_WARP_EXC"),
                ("block_inc", "SEG_BLOCK_INC"), ("block_exc", "SEG_BLOCK_EXC"))
    return [case(v, f"segScanBatch<int32_t, Add>({enum}, n=1124, block=256)", [v, 1124, 256])
            for v, enum in variants] + [
        case("head_lane", "segHeadLaneBatch(n=1124, block=256)", ["head_lane", 1124, 256]),
        case("operator", "segOpApply<int32_t, Add>(n=1124)", ["operator", 1124], STRUCT_NOTE),
        case("global_inc", "segScanIncGlobal<int32_t, Add>(n=24676)", ["global_inc", 24676], LOOKBACK_NOTE),
        case("global_exc", "segScanExcGlobal<int32_t, Add>(n=24676)", ["global_exc", 24676], LOOKBACK_NOTE),
        case("global_inc_1tile", "segScanIncGlobal<int32_t, Add>(n=8192)", ["global_inc", 8192], ONE_TILE_NOTE),
        case("global_exc_1tile", "segScanExcGlobal<int32_t, Add>(n=8000)", ["global_exc", 8000], SHORT_TILE_NOTE),
    ]


def app_cases():
    """Lab 07: each application on 4 tiles of APP_TILE = 4096 (the last 100 long); those with a
    look-back also on one tile; the paths for empty inputs and the kit's helpers."""
    n = 3 * 4096 + 100
    return [
        case("app_scan_exc", f"appScanExc(n={n})", ["app_scan_exc", n], LOOKBACK_NOTE),
        case("app_scan_exc_1tile", "appScanExc(n=4096)", ["app_scan_exc", 4096], ONE_TILE_NOTE),
        case("compact_scan", f"compactScan(n={n}, pivot=0)", ["compact_scan", n], "appScanExc: " + LOOKBACK_NOTE),
        case("compact_single", f"compactSinglePass(n={n}, pivot=0)", ["compact_single", n], LOOKBACK_NOTE),
        case("compact_single_1tile", "compactSinglePass(n=4096, pivot=0)", ["compact_single", 4096], ONE_TILE_NOTE),
        case("partition", f"partitionStable(n={n}, pivot=0)", ["partition", n], LOOKBACK_NOTE),
        case("partition_1tile", "partitionStable(n=4096, pivot=0)", ["partition", 4096], ONE_TILE_NOTE),
        case("partition_single", f"partitionSinglePass(n={n}, pivot=0)", ["partition_single", n], LOOKBACK_NOTE),
        case("split", f"splitBit(n={n}, bit=3)", ["split", n], LOOKBACK_NOTE),
        case("split_1tile", "splitBit(n=4096, bit=3)", ["split", 4096], ONE_TILE_NOTE),
        case("radix_keys", f"radixSortKeys(n={n})", ["radix_keys", n], RADIX_NOTE),
        case("radix_pairs", f"radixSortPairs(n={n})", ["radix_pairs", n], RADIX_NOTE),
        case("line_of_sight", f"lineOfSight(n={n})", ["line_of_sight", n], LOOKBACK_NOTE),
        case("line_of_sight_1tile", "lineOfSight(n=4096)", ["line_of_sight", 4096], ONE_TILE_NOTE),
        case("spmv", f"spmvCsr(nnz={n})", ["spmv", n], LOOKBACK_NOTE + "; " + SCAN_TOTALS_NOTE),
        case("spmv_1tile", "spmvCsr(nnz=4000)", ["spmv", 4000], SHORT_TILE_NOTE + "; " + SCAN_TOTALS_NOTE),
        case("spmv_empty", "spmvCsr(rows=1000, nnz=0)", ["spmv_empty", 1000]),
        case("str_compare", f"strCompare(bytes={n})", ["str_compare", n]),
        case("str_batch", f"strCompareBatch(bytes of a={n})", ["str_batch", n],
             LOOKBACK_NOTE + "; " + SCAN_TOTALS_NOTE),
        case("str_batch_1tile", "strCompareBatch(bytes of a=4000)", ["str_batch", 4000],
             SHORT_TILE_NOTE + "; " + SCAN_TOTALS_NOTE),
        case("str_batch_empty", "strCompareBatch(pairs=1000, every a empty)", ["str_batch_empty", 1000]),
        case("first_diff", "firstDiffApply(n=1000)", ["first_diff", 1000]),
    ]


LABS = {
    "02": {
        "program": "labs/02-kogge-stone/profile/kogge_stone_profile.cu",
        "extra_sources": [],
        "cases": [
            case("ks", "scanIncKoggeStone(n=1000, blockSize=1024)", ["ks", 1000, 1024]),
            case("db", "scanIncKoggeStoneDB(n=1000, blockSize=1024)", ["db", 1000, 1024]),
            case("tiles", "scanIncKoggeStoneTiles(n=4196, blockSize=1024)", ["tiles", 4196, 1024]),
        ],
    },
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
    "05": {
        "program": "labs/05-global-scan/profile/global_scan_profile.cu",
        "extra_sources": [],
        "cases": [
            case("block_tiles", "scanIncBlockTiles(n=1000, block=256)", ["block_tiles", 1000, 256]),
            case("anylength_inc", "scanIncBlockAnyLength(n=6644)", ["anylength_inc", 6644]),
            case("anylength_exc", "scanExcBlockAnyLength(n=6644)", ["anylength_exc", 6644]),
            case("propagate_inc", "scanIncPropagate(n=4196)", ["propagate_inc", 4196]),
            case("propagate_exc", "scanExcPropagate(n=4196)", ["propagate_exc", 4196]),
            case("rts_inc", "scanIncReduceThenScan(n=8292)", ["rts_inc", 8292]),
            case("rts_exc", "scanExcReduceThenScan(n=8292)", ["rts_exc", 8292]),
            case("lookback_inc", "scanIncLookback(n=24676)", ["lookback_inc", 24676], LOOKBACK_NOTE),
            case("lookback_exc", "scanExcLookback(n=24676)", ["lookback_exc", 24676], LOOKBACK_NOTE),
            case("lookback_inc_1tile", "scanIncLookback(n=8192)", ["lookback_inc", 8192], ONE_TILE_NOTE),
            case("lookback_exc_1tile", "scanExcLookback(n=8000)", ["lookback_exc", 8000], SHORT_TILE_NOTE),
        ],
    },
    "06": {
        "program": "labs/06-segmented-scan/profile/seg_scan_profile.cu",
        "extra_sources": [],
        "cases": seg_cases(),
    },
    "07": {
        "program": "labs/07-applications/profile/apps_profile.cu",
        "extra_sources": [],
        "cases": app_cases(),
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
    """The first GPU's name from `nvidia-smi -L`, or None."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        r = subprocess.run([smi, "-L"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [x for x in r.stdout.decode(errors="replace").splitlines() if x.startswith("GPU")]
    # "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)" -> "NVIDIA H100 80GB HBM3"
    return re.sub(r"^GPU \d+:\s*|\s*\(UUID:.*\)$", "", lines[0]) if r.returncode == 0 and lines else None


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


def shown(cmd):
    return " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)


def build(lab, spec, source, out, sm, nvcc):
    cmd = [nvcc, "-O3", "-lineinfo", "-std=c++17", f"-arch=sm_{sm}", "-Igrader/trusted/include",
           "-Igrader/trusted/harness", "-Ireference", os.path.join(ROOT, spec["program"]), source]
    cmd += [os.path.join(ROOT, s) for s in spec["extra_sources"]]
    cmd += ["-o", out]
    print("$ " + shown(cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        fail(f"lab {lab}: the profiling program does not compile (errors above)")


def info_of(stdout):
    """The program's `PROFILE key=value ...` line as a dict."""
    m = re.search(r"^PROFILE (.*)$", stdout, re.M)
    return dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv) if m else {}


def run_ncu(lab, binary, tag, argv, ncu, work):
    """Runs one variant or case under ncu; ([{"id", "name", "metrics"}] per launch, PROFILE info).
    Fails, with ncu's output, when the run fails or its CSV cannot be read."""
    log = os.path.join(work, f"ncu-{tag}.csv")
    if os.path.exists(log):
        os.remove(log)
    cmd = [ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--log-file", log,
           "--metrics", ",".join(pc.NCU_METRIC_NAMES), binary] + argv
    print("$ " + shown(cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    if "ERR_NVGPUCTRPERM" in text + r.stdout + r.stderr:
        fail("ncu may not read the GPU's performance counters on this machine (ERR_NVGPUCTRPERM): "
             "run as root, or allow profiling for all users (the NVreg_RestrictProfilingToAdminUsers=0 "
             "driver option)")
    if r.returncode != 0:
        print(r.stdout + r.stderr + text[-3000:], file=sys.stderr)
        fail(f"lab {lab}: the {tag} run failed under ncu (exit code {r.returncode}; output above)")
    try:
        kernels = pc.parse_ncu_kernels(text)
    except pc.ProfileError as e:
        print(r.stdout[-2000:] + r.stderr[-2000:] + text[-3000:], file=sys.stderr)
        fail(f"lab {lab}: the {tag} run: {e} ({os.path.relpath(log, ROOT)}; ncu's output above)")
    return kernels, info_of(r.stdout)


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
    flags = ["-std=c++17", "-O2", "-g1", "-pthread", "-Wno-unknown-pragmas", "-Igrader/emu/include",
             "-include", "scanlab_emu.h"] + emu_make_var("EMU_PROBE_FLAGS").split()
    inc = ["-Igrader/trusted/include", "-Igrader/trusted/harness", "-Ireference"]
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
    print("$ (emu) " + shown(cmds[1]), flush=True)
    key = build_key(cmds, [spec["program"], source] + list(spec["extra_sources"]))
    stamp = out + ".key"
    if os.path.exists(out) and os.path.exists(stamp) and open(stamp).read() == key:
        return out  # built from these very inputs already (make check profiles twice)
    if os.path.exists(stamp):
        os.remove(stamp)
    for cmd in cmds:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            print("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr, file=sys.stderr)
            fail(f"lab {lab}: the profiling program does not build for the emu (errors above)")
    open(stamp, "w").write(key)
    return out


def build_key(cmds, sources):
    """What an emu build of the profiling program depends on, as one hash: its commands, its
    sources, every header the kit's include folders hold and the emulator's runtime library
    (a build whose key is unchanged is skipped)."""
    h = hashlib.sha256(json.dumps(cmds).encode())
    files = [os.path.join(ROOT, s) if not os.path.isabs(s) else s for s in sources]
    for d in ("grader/emu/include", "grader/trusted/include", "grader/trusted/harness", "reference",
              os.path.dirname(os.path.join(ROOT, sources[0])), os.path.dirname(os.path.abspath(sources[1]))):
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".h", ".cuh", ".hpp"))]
    files += [os.path.join(ROOT, "build/emu-rt/libscanlab_emu.a"), os.path.join(ROOT, "grader/emu/cu2cpp.py")]
    for f in sorted(set(files)):
        h.update(f.encode() + b"\0")
        with open(f, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def run_emu(lab, binary, tag, argv, work):
    """Runs one variant or case on the emu, with one worker (a look-back then finds every tile
    before its own published: it reads each window once); ([{"name", "metrics", "emu"}] per
    launch, PROFILE info)."""
    prof = os.path.join(work, f"emu-{tag}.jsonl")
    if os.path.exists(prof):
        os.remove(prof)
    env = dict(os.environ, SCANLAB_EMU_PROFILE=prof)
    env.setdefault("SCANLAB_EMU_SCHEDULE", "forward")
    # profile_compare.py: the lower bound on polling needs blocks that run one after another
    # unless one waits (no tile held back, no switch at a publish point)
    env["SCANLAB_EMU_CALM"] = "1"
    cmd = [binary] + argv
    print("$ SCANLAB_EMU_PROFILE=" + os.path.relpath(prof, ROOT) + " " + shown(cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        fail(f"lab {lab}: the {tag} run failed on the emu (exit code {r.returncode}; output above)")
    kernels = []
    for line in open(prof) if os.path.exists(prof) else []:
        rec = json.loads(line)
        kernels.append({"name": rec["kernel"], "metrics": rec["metrics"], "emu": rec.get("emu", {})})
    if not kernels:
        fail(f"lab {lab}: the {tag} run on the emu recorded no launch in {os.path.relpath(prof, ROOT)} "
             "(was the program built with the probe flags?)")
    return kernels, info_of(r.stdout)


def summed(kernels, info):
    """(sums of each metric over the launches, launches, info): what print_table shows."""
    sums = {}
    for k in kernels:
        for name, v in k["metrics"].items():
            sums[name] = sums.get(name, 0) + v
    return sums, len(kernels), info


def print_table(lab, spec, names, results):
    """names: one column title per result; results: (sums, kernels, info) per column."""
    width = max(24, max(len(x) for x in names) + 2)
    print(f"  {'':34}" + "".join(f"{name:>{width}}" for name in names))
    rows = METRICS + ([(m, label) for m, label, _ in pc.INSTR_METRICS]
                      if any(pc.INSTR_METRICS[0][0] in r[0] for r in results) else [])
    for metric, label in rows:  # by-instruction rows where ncu ran; the emu counts by instruction
        print(f"  {label:34}" + "".join(f"{pc.emu_value(r[0], metric):>{width},d}" for r in results))
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


def print_launches(spec, runs, who):
    """The counters of every launch of every case, one row per launch (one side's)."""
    names = {id(k): pc.display_name(k["name"], k["name"]) for c in spec["cases"] for k in runs[c["id"]][0]}
    width = max(30, max(len(x) for x in names.values()) + 2)
    vol = who == "emu"
    print(f"    {'':{width}}" + "".join(f"{short:>10}" for _, _, short, _ in pc.METRICS) +
          (f"{'vol sect':>10}" if vol else ""))
    for c in spec["cases"]:
        note = f" ({c['note']})" if c["note"] else ""
        print(f"  {c['id']}: {c['calls']}{note}")
        for k in runs[c["id"]][0]:
            v = k.get("emu", {}).get(pc.VOLATILE, 0)
            print(f"    {names[id(k)]:{width}}" +
                  "".join(f"{int(k['metrics'].get(m, 0)):>10,}" for m in pc.METRIC_NAMES) +
                  (f"{int(v):>10,}" if vol else ""))
    if vol and any(k.get("emu", {}).get(pc.VOLATILE, 0) for r in runs.values() for k in r[0]):
        print("  vol sect: the emu's volatile load sectors (included in gld sect), a look-back polling its\n"
              "  neighbours' status words; the emu runs with one worker, so each look-back reads each window\n"
              "  once. On a GPU the global loads of those launches are compared as a lower bound (ncu >= emu),\n"
              "  not exactly; every other counter of them, and the one-tile cases (no look-back), exactly.")


RECORDED = os.path.join(ROOT, "grader", "emu", "h100_profile.json")


def load_recorded(path):
    try:
        data = json.load(open(path))
        if not isinstance(data.get("labs"), dict):
            raise ValueError("no \"labs\" object")
        return data
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read recorded ncu counts: {e}")


def recorded_runs(data, path, lab, runs):
    """The recorded ncu counts of one lab's runs, as run_ncu returns them."""
    cases = data["labs"].get(lab, {})
    out = {}
    for tag, _, _ in runs:
        if tag not in cases:
            fail(f"{path}: no recorded counts for lab {lab}, case {tag} (record them with --record on a GPU)")
        kernels = [{"id": str(i), "name": k["kernel"], "metrics": dict(k["metrics"])} for i, k in enumerate(cases[tag])]
        for k in kernels:
            missing = [m for m in pc.NCU_METRIC_NAMES if m not in k["metrics"]]
            if missing:
                fail(f"{path}: lab {lab} case {tag}, {k['name']}: no {missing[0]}")
        out[tag] = (kernels, {})
    return out


def record(path, lab, gpu_runs, gpu):
    """Adds one lab's ncu counts to the JSON file at path (kept in the order of the runs)."""
    data = json.load(open(path)) if os.path.exists(path) else {}
    data["device"] = gpu or data.get("device", "")
    labs = data.setdefault("labs", {})
    labs[lab] = {tag: [{"kernel": k["name"], "metrics": {m: k["metrics"][m] for m in pc.NCU_METRIC_NAMES}}
                       for k in kernels] for tag, (kernels, _) in gpu_runs.items()}
    data["labs"] = dict(sorted(labs.items()))
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def profile_lab(lab, args, nvcc, ncu, gpu, use_emu, recorded=None):
    """Profiles one lab; returns [(lab, call, compared launches)] when both ncu (or its recorded
    counts) and the emu ran."""
    spec = LABS[lab]
    manifest = [m for m in grade.all_manifests() if m["lab"] == lab][0]
    submission = args.submission
    work = os.path.join(ROOT, "build", "profile", f"lab{lab}", grade.submission_key(submission))
    os.makedirs(work, exist_ok=True)
    source = student_file(manifest, submission, work)
    base = os.path.join(work, os.path.splitext(os.path.basename(spec["program"]))[0])
    if "variants" in spec:
        n = args.n or spec["n"]
        block = args.block or spec["block"]
        runs = [(variant, f"{label}(n={n}, block={block})", [variant, str(n), str(block)])
                for variant, label in spec["variants"]]
    else:
        runs = [(c["id"], c["calls"], c["argv"]) for c in spec["cases"]]
    notes = {c["id"]: f" ({c['note']})" for c in spec.get("cases", []) if c["note"]}
    gpu_runs = emu_runs = None
    if gpu:
        build(lab, spec, source, base, args.sm, nvcc)
        gpu_runs = {tag: run_ncu(lab, base, tag, argv, ncu, work) for tag, _, argv in runs}
        if args.record:
            record(args.record, lab, gpu_runs, gpu)
    elif recorded:
        gpu_runs = recorded_runs(recorded, args.recorded, lab, runs)
    if use_emu:
        build_emu(lab, spec, source, base + "-emu")
        emu_runs = {tag: run_emu(lab, base + "-emu", tag, argv, work) for tag, _, argv in runs}
        if recorded:  # the program's PROFILE line (tiles, the replay's prediction) from the emu's run
            gpu_runs = {tag: (gpu_runs[tag][0], emu_runs[tag][1]) for tag in gpu_runs}
    how = "; ".join(x for x in (f"ncu's counts recorded in {os.path.relpath(args.recorded, ROOT)}" if recorded
                                else "ncu --clock-control none" if gpu_runs else "",
                                "emu: memory probes, SCANLAB_EMU_PROFILE" if emu_runs else "") if x)
    if "variants" in spec:
        names, results = [], []
        for (tag, _, _), (_, label) in zip(runs, spec["variants"]):
            if gpu_runs:
                names.append(f"{label} (ncu)" if emu_runs else label)
                results.append(summed(*gpu_runs[tag]))
            if emu_runs:
                names.append(f"{label} (emu)" if gpu_runs else label)
                results.append(summed(*emu_runs[tag]))
        print(f"\nlab {lab}: memory counters of one batched scan, n={n}, block={block} "
              f"({shown_source(source)}; {how})")
        print_table(lab, spec, names, results)
    else:
        print(f"\nlab {lab}: memory counters of every kernel launch of each call, on a few tiles "
              f"({shown_source(source)}; {how}{', one worker' if emu_runs else ''})")
        if not (gpu_runs and emu_runs):
            print_launches(spec, gpu_runs or emu_runs, "ncu" if gpu_runs else "emu")
    entries = []
    if gpu_runs and emu_runs:
        print(f"\nlab {lab}: ncu against the emu, launch by launch (columns: ncu, emu, verdict)")
        for tag, label, _ in runs:
            try:
                pairs = pc.align(gpu_runs[tag][0], emu_runs[tag][0], f"lab {lab} {tag}")
            except pc.ProfileError as e:
                fail(str(e))
            launches = pc.compare(pairs)
            pc.print_comparison(f"{tag}: {label}{notes.get(tag, '')}", launches)
            entries.append((lab, label, launches))
    raw = ([f"{os.path.relpath(work, ROOT)}/ncu-*.csv"] if gpu_runs and not recorded else []) + \
          ([f"{os.path.relpath(work, ROOT)}/emu-*.jsonl"] if emu_runs else [])
    print(f"\n(raw output: {', '.join(raw)})")
    return entries


def parse_labs(text):
    """`03`, `2`, `02,05`, `02 05` or `all`: the labs, in order."""
    items = [x for x in re.split(r"[,\s]+", text.strip()) if x]
    if items == ["all"]:
        return sorted(LABS)
    labs = []
    for item in items:
        lab = f"{int(item):02d}" if item.isdigit() else item
        if lab not in LABS:
            fail(f"lab {lab} has no profile; labs {', '.join(sorted(LABS))} do, or all "
                 "(make profile LAB=03: bank conflicts of the Blelloch scans)")
        if lab not in labs:
            labs.append(lab)
    if not labs:
        fail("which lab? make profile LAB=03 (or LAB=all)")
    return labs


def main(argv=None):
    ap = argparse.ArgumentParser(description="Memory counters of a lab's kernels (emu model, ncu).")
    ap.add_argument("--lab", required=True, help="a lab (03), several (02,05) or all")
    default_sub = "solutions" if os.path.isdir(os.path.join(ROOT, "solutions")) else "skeletons"
    ap.add_argument("--submission", default=os.environ.get("SUBMISSION") or default_sub,
                    help="folder or handin tarball (default $SUBMISSION, else solutions/, or "
                         "skeletons/ in the student kit)")
    ap.add_argument("--n", type=int, default=None, help="elements, labs 03 and 04 (default 2^16)")
    ap.add_argument("--block", type=int, default=None, help="threads per block, labs 03 and 04")
    ap.add_argument("--sm", default=os.environ.get("SM", "90"))
    ap.add_argument("--no-emu", action="store_true", help="ncu only (a GPU machine)")
    ap.add_argument("--emu-only", action="store_true", help="the emu only, even where ncu and a GPU answer")
    ap.add_argument("--strict", action="store_true",
                    help="exit with status 3 when a counter compared with ncu's disagrees")
    ap.add_argument("--record", metavar="FILE", help="keep ncu's counts in FILE (JSON), lab by lab")
    ap.add_argument("--differences", metavar="FILE",
                    help="write the counters that differ to FILE (JSON: lab, call, kernel, counter, ncu, emu)")
    ap.add_argument("--recorded", metavar="FILE",
                    help="compare the emu with ncu's counts kept in FILE (no GPU needed), such as "
                         "grader/emu/h100_profile.json")
    args = ap.parse_args(argv)
    recorded = None
    kit_solutions = os.path.realpath(args.submission) == os.path.realpath(os.path.join(ROOT, "solutions"))
    if (not args.recorded and not args.emu_only and not args.no_emu and not args.record and not args.n
            and not args.block and kit_solutions and os.path.exists(RECORDED)
            and not (find_tool("ncu") and gpu_present())):
        args.recorded = RECORDED  # no GPU: the solutions beside the H100's kept counts
    if args.recorded:
        if args.record or args.no_emu:
            fail("--recorded compares the emu with kept counts: not with --record or --no-emu")
        if args.n or args.block:
            fail("--recorded holds the counts of the default sizes: leave out --n and --block")
        if not kit_solutions:
            fail("--recorded holds the counts of the kit's solutions: leave out --submission")
        recorded = load_recorded(args.recorded)
        args.emu_only = True

    labs = parse_labs(args.lab)
    if (args.n or args.block) and any("cases" in LABS[lab] for lab in labs):
        fail("--n and --block set the size of labs 03 and 04; the other labs run fixed cases (LABS in "
             "grader/measure/profile_banks.py)")
    if args.emu_only and args.no_emu:
        fail("--emu-only and --no-emu leave nothing to run")
    nvcc, ncu, gpu = find_tool("nvcc"), find_tool("ncu"), None if args.emu_only else gpu_present()
    missing = [what for what, ok in (("nvcc (the CUDA toolkit)", nvcc),
                                     ("ncu (Nsight Compute, part of the CUDA toolkit)", ncu),
                                     ("an NVIDIA GPU (nvidia-smi -L lists none)", gpu))
               if not ok]
    if args.emu_only:
        missing = ["ncu left out (--emu-only)"]
    use_emu = not args.no_emu and shutil.which(os.environ.get("EMU_CXX", "g++"))
    if args.record and (missing or not kit_solutions or args.n or args.block):
        fail("--record keeps ncu's counts of the kit's solutions at the default sizes: it needs nvcc, ncu and "
             "a GPU (" + ("; ".join(missing) or "present") + "), no --submission, --n or --block")
    if missing and not use_emu:
        fail("needs " + ", ".join(missing) + " for ncu's counters, or a host C++ compiler (g++) for "
             "the emulator's")
    if recorded:
        print(f"profile: the emulator's counters beside ncu's on {recorded.get('device') or 'a GPU'}, as "
              f"recorded in {os.path.relpath(args.recorded, ROOT)} ({recorded.get('note', '')})", flush=True)
    elif args.emu_only:
        print("profile: --emu-only: the emulator's counters alone, as an H100 would count them "
              "(grader/emu/README.md, 'Memory probes')", flush=True)
    elif missing:
        print(f"profile: no ncu here ({'; '.join(missing)} missing): the emulator's counters alone, "
              "as an H100 would count them (grader/emu/README.md, 'Memory probes')", flush=True)
    entries = []
    for lab in labs:
        entries += profile_lab(lab, args, nvcc, ncu, gpu if not missing else None, use_emu, recorded)
    if not entries:
        return 0
    launches = [k for _, _, ks in entries for k in ks]
    exact_ok, exact, tol_ok, tol, poll_ok, poll = pc.summary(launches)
    where = f"recorded ({recorded.get('device', '')})" if recorded else f"on {gpu}"
    print(f"\nMarkdown for grader/emu/README.md (labs {', '.join(labs)}; ncu {where}; a cell shows ncu's "
          "value, and the emu's after it where they differ):\n")
    print(pc.markdown(entries))
    print(f"\nagreement over {len(launches)} launches: exact counters {exact_ok} of {exact} agree; "
          f"shared counters within 10% or contention: {tol_ok} of {tol}; polled loads (ncu >= emu): {poll_ok} of {poll}")
    bad = (exact - exact_ok) + (tol - tol_ok) + (poll - poll_ok)
    if args.differences:
        rows = [{"lab": lab, "call": call, "kernel": pc.base_name(k["name"]), "counter": label, "ncu": g, "emu": e,
                 "verdict": text}
                for lab, call, ks in entries for k in ks for label, g, e, ok, text in k["rows"] if ok is False]
        with open(args.differences, "w") as f:
            json.dump(rows, f, indent=1)
    print("profile: every compared counter agrees" if not bad else
          f"profile: {bad} compared counters DIFFER (the rows marked DIFFER above)")
    return 3 if bad and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
