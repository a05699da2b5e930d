"""Self-test of the emu as a drop-in for nvcc: grader/emu/bin/emu-nvcc's options and errors,
the memory probes through it, and the corpus of grader/emu/corpus/ (built by each program's own
Makefile or CMake with only the CUDA compiler changed), on the emu and, under --gpu, natively.
"""
import json
import os
import re
import shutil
import subprocess
import sys

from common import BUILD, ROOT, CheckFailed, sh  # noqa: E402  (grader/selftest/common.py)

NVCC = os.path.join(ROOT, "grader", "emu", "bin", "emu-nvcc")
CORPUS = os.path.join(ROOT, "grader", "emu", "corpus")

# a program of two files: host code in a .cpp calling a kernel of the .cu through extern "C"
# and an explicit template instantiation; the kernel's second loop races (no barrier)
RACY_CU = r"""
#include "racy.h"
template <typename T>
__global__ void shiftKernel(T *d, int n) {
  __shared__ T s[64];
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  T v = threadIdx.x + 1 < 64 ? s[threadIdx.x + 1] : 0;
  s[threadIdx.x] = v;  /* another thread may still read this word: a race */
  d[threadIdx.x] = s[threadIdx.x];
}
template <typename T>
void shift(T *d, int n) { shiftKernel<T><<<1, 64>>>(d, n); }
template void shift<int>(int *, int);
extern "C" int sync_all(void) { return (int)cudaDeviceSynchronize(); }
"""
RACY_H = r"""
#pragma once
template <typename T> void shift(T *d, int n);
extern "C" int sync_all(void);
"""
# a host file with what the samples' helper_math.h defines outside __CUDACC__: cuda_runtime.h in
# a .cpp file gives the host API only, as the toolkit's does
HOST_MATH = r"""
#include <cuda_runtime.h>
#include <math.h>
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
int main() {
  float2 f = make_float2(4.0f, 0.0f);
  int *d = nullptr;
  if (cudaMalloc(&d, 16) != cudaSuccess) return 1;
  return min(2, 3) + max(0, 1) + (int)(1.0f / rsqrtf(f.x * 4.0f)) == 7 && cudaFree(d) == cudaSuccess ? 0 : 1;
}
"""
# a thread with 200 KB of locals: a GPU thread may have 512 KiB of local memory, and so does a
# program emu-nvcc builds (the kit's own builds keep 64 KiB stacks)
BIG_LOCALS = r"""
#include <cstdio>
__global__ void localKernel(float *out, int n) {
  float buf[50000];
  for (int i = 0; i < n; i++) buf[i] = i * 0.5f + threadIdx.x;
  float s = 0;
  for (int i = 0; i < n; i += 997) s += buf[i];
  out[threadIdx.x] = s;
}
int main() {
  float *d;
  cudaMalloc(&d, 64 * sizeof(float));
  localKernel<<<2, 64>>>(d, 50000);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""
# CUDA the emulator does not declare, beside a typo of the program's own
UNDECLARED = r"""
__global__ void k(float *x) { x[0] = cudaSomeFutureCall(x[1]) + __future_intrinsic(2.0f) + myOwnTypo(3.0f); }
int main() { return 0; }
"""
# the CUDA toolkit's libraries the emulator does not provide, each included as a program would
# (the compiler stops at the first header it cannot find); and a header of the program's own
# that is missing, which is the program's mistake
LIBRARY_USES = {"thrust_use.cu": ("#include <thrust/device_vector.h>\n#include <thrust/reduce.h>\n", "Thrust"),
                "cub_use.cu": ("#include <cub/cub.cuh>\n", "CUB"),
                "cublas_use.cu": ("#include <cublas_v2.h>\n", "cuBLAS"),
                "cufft_use.cu": ("#include <cuda_runtime.h>\n#include <cufft.h>\n", "cuFFT")}
OWN_HEADER_MISSING = "#include \"my_helpers.cuh\"\nint main() { return 0; }\n"
# kernels emu-nvcc gives a loops version by default (loops.py): a block reversal with a barrier,
# launched three times; and a file whose loops version does not compile (a parameter's method
# that changes it: the loops version's parameters are const), which builds as before
LOOPS_CU = r"""
#include <cstdio>
__global__ void reverseBlock(int *d) {
  __shared__ int s[128];
  s[threadIdx.x] = d[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  d[blockIdx.x * 128 + threadIdx.x] = s[127 - threadIdx.x];
}
int main() {
  int h[256], *d;
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  for (int k = 0; k < 3; k++) reverseBlock<<<2, 128>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 256; i++) bad += h[i] != i / 128 * 128 + 127 - i % 128;
  printf("%s\n", bad ? "wrong" : "reversed");
  return bad;
}
"""
# a barrier in a function of a header from an -isystem folder, first reached in a kernel's third
# launch: the rewrite reads that header too, and keeps the kernel on fibers (as loops, the
# launch would reach a barrier the loops version does not hold, and fail)
SYSTEM_SYNC_H = "__device__ inline void laterSync() { __syncthreads(); }\n"
SYSTEM_SYNC_CU = r"""
#include <cstdio>
#include <later_sync.cuh>
__global__ void swapLater(int *d, int late) {
  __shared__ int s[64];
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  int v = s[63 - threadIdx.x];
  if (late) {
    __syncthreads();
    s[threadIdx.x] = v + 1;
    laterSync();
    v = s[63 - threadIdx.x];
  }
  d[threadIdx.x] = v;
}
int main() {
  int h[64], *d;
  for (int i = 0; i < 64; i++) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  for (int k = 0; k < 3; k++) swapLater<<<1, 64>>>(d, k == 2);
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s\n", e == cudaSuccess && h[0] == 1 && h[63] == 64 ? "swapped" : cudaGetErrorString(e));
  return 0;
}
"""
LOOPS_NO_COMPILE_CU = r"""
#include <cstdio>
struct Counter {
  int n;
  __device__ void bump() { n++; }
};
__global__ void countKernel(Counter c, int *out) {
  __shared__ int s[64];
  c.bump();
  s[threadIdx.x] = c.n + threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
int main() {
  int *d, h[64];
  cudaMalloc(&d, sizeof h);
  for (int k = 0; k < 2; k++) countKernel<<<1, 64>>>(Counter{10}, d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s\n", h[0] == 74 && h[63] == 11 ? "counted" : "wrong");
  return 0;
}
"""
RACY_MAIN = r"""
#include <cstdio>
#include <cuda_runtime.h>
#include "racy.h"
int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  cudaMemset(d, 0, 64 * sizeof(int));
  shift<int>(d, 64);
  int e = sync_all();
  printf("sync: %d\n", e);
  return e;
}
"""


def _nvcc(args, cwd, env=None, timeout=300):
    full = dict(os.environ)
    full.pop("EMU_PROBE", None)
    full.update(env or {})
    r = subprocess.run([NVCC] + args, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace")


def driver():
    """emu-nvcc takes nvcc's options and refuses what it cannot do with a sentence, never a
    traceback; the probes work through it (a race is found, counters name each kernel); kernels
    get loops versions unless SCANLAB_EMU_LOOPS=0, and a file whose loops versions do not compile
    builds without them."""
    work = os.path.join(BUILD, "emu-nvcc")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "sysinc"))
    for name, text in (("racy.cu", RACY_CU), ("racy.h", RACY_H), ("main.cpp", RACY_MAIN), ("host_math.cpp", HOST_MATH),
                       ("big_locals.cu", BIG_LOCALS), ("undeclared.cu", UNDECLARED),
                       ("own_header.cu", OWN_HEADER_MISSING), ("loops.cu", LOOPS_CU),
                       ("loops_no_compile.cu", LOOPS_NO_COMPILE_CU), ("system_sync.cu", SYSTEM_SYNC_CU),
                       (os.path.join("sysinc", "later_sync.cuh"), SYSTEM_SYNC_H)) + \
            tuple((name, text + "int main() { return 0; }\n") for name, (text, _) in LIBRARY_USES.items()):
        with open(os.path.join(work, name), "w") as fh:
            fh.write(text)
    with open(os.path.join(work, "opts.rsp"), "w") as fh:
        fh.write("-O2 -I.\n")
    bad = []

    def expect(args, want_code, phrases, env=None, label=None):
        code, out = _nvcc(args, work, env)
        label = label or "emu-nvcc " + " ".join(args)
        if (want_code == 0) != (code == 0):
            bad.append(f"{label}: exit status {code}:\n      " + "\n      ".join(out.strip().splitlines()[-6:]))
            return out
        for p in phrases:
            if p not in out:
                bad.append(f"{label}: the output lacks {p!r}:\n      " + "\n      ".join(out.strip().splitlines()[-6:]))
        if "Traceback" in out:
            bad.append(f"{label}: a Python traceback")
        return out

    expect(["--version"], 0, ["release 12.0", "nvcc: NVIDIA (R) Cuda compiler driver"])
    # separate compilation with GPU options that mean nothing on the CPU, then the link
    expect(["-gencode", "arch=compute_90,code=sm_90", "-lineinfo", "--use_fast_math", "-Xptxas", "-v",
            "--options-file", "opts.rsp", "-dc", "racy.cu", "-o", "racy.o"], 0, [])
    expect(["-std=c++17", "-c", "main.cpp", "-o", "main.o"], 0, [])
    expect(["-arch=sm_90", "-dlink", "racy.o", "-o", "dlink.o"], 0, [])
    expect(["main.o", "racy.o", "dlink.o", "-o", "plain", "-lcudart"], 0, [])
    r = subprocess.run([os.path.join(work, "plain")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0 or b"sync: 0" not in r.stdout:
        bad.append("the plain build should run (the race goes unnoticed without the probes): "
                   + r.stdout.decode(errors="replace")[-300:])
    # the same program with the probes: the race is reported, the profile names the kernel
    expect(["--emu-probe", "-c", "racy.cu", "-o", "racy_probe.o"], 0, [])
    expect(["main.o", "racy_probe.o", "-o", "probed"], 0, [])
    prof = os.path.join(work, "prof.jsonl")
    if os.path.exists(prof):
        os.remove(prof)
    env = dict(os.environ, SCANLAB_EMU_PROFILE=prof, SCANLAB_EMU_RACECHECK="0")
    r = subprocess.run([os.path.join(work, "probed")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    lines = open(prof).read().splitlines() if os.path.exists(prof) else []
    if not lines or json.loads(lines[0]).get("kernel") != "shiftKernel<int>":
        bad.append(f"the probed build's profile ({len(lines)} lines) should name shiftKernel<int>: {lines[:1]}")
    env.pop("SCANLAB_EMU_RACECHECK")
    r = subprocess.run([os.path.join(work, "probed")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = r.stdout.decode(errors="replace")
    if r.returncode == 0 or "emu: race on a __shared__ array" not in out or "in kernel shiftKernel<int>" not in out \
            or "racy.cu:9" not in out:
        bad.append("the probed build should report the race in shiftKernel:\n      " + out[-400:])
    # EMU_PROBE=1 in the environment does the same as --emu-probe
    expect(["racy.cu", "main.cpp", "-o", "probed_env"], 0, [], env={"EMU_PROBE": "1"}, label="EMU_PROBE=1 emu-nvcc")
    r = subprocess.run([os.path.join(work, "probed_env")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if b"emu: race on a __shared__ array" not in r.stdout:
        bad.append("EMU_PROBE=1 emu-nvcc should build with the probes (no race reported)")
    expect(["-run", "host_math.cpp", "-o", "host_math"], 0, [], label="a host .cpp with its own min, max, rsqrtf")
    expect(["-run", "big_locals.cu", "-o", "big_locals"], 0, [], label="a thread with 200 KB of locals")
    # kernels as loops by default, from a kernel's second launch (SCANLAB_EMU_LOOPS_WHY says so);
    # SCANLAB_EMU_LOOPS=0 at the build leaves the loops versions out; a file whose loops versions
    # do not compile builds without them, said only where asked
    why = {"SCANLAB_EMU_LOOPS_WHY": "1"}
    out = expect(["-run", "loops.cu", "-o", "loops_default"], 0, ["loops.py: loops.cu: reverseBlock: as loops",
                 "emu: kernel reverseBlock: its later launches run as loops", "reversed"], env=why,
                 label="SCANLAB_EMU_LOOPS_WHY=1 emu-nvcc -run loops.cu")
    out = expect(["-run", "loops.cu", "-o", "loops_off"], 0, ["reversed"], env=dict(why, SCANLAB_EMU_LOOPS="0"),
                 label="SCANLAB_EMU_LOOPS=0 emu-nvcc -run loops.cu")
    if "loops" in out.replace("loops_off", ""):
        bad.append("SCANLAB_EMU_LOOPS=0 at the build should leave the loops versions out:\n      " + out[-300:])
    out = expect(["-run", "loops_no_compile.cu", "-o", "loops_no_compile"], 0, ["counted"])
    if "loops" in out.replace("loops_no_compile", ""):
        bad.append("a loops version that does not compile should say nothing unless asked:\n      " + out[-300:])
    expect(["-run", "loops_no_compile.cu", "-o", "loops_no_compile"], 0,
           ["loops_no_compile.cu: its loops version does not compile; the file as before", "counted"], env=why,
           label="SCANLAB_EMU_LOOPS_WHY=1 emu-nvcc -run loops_no_compile.cu")
    expect(["-isystem", "sysinc", "-run", "system_sync.cu", "-o", "system_sync"], 0,
           ["laterSync holds a barrier or a collective the loops version cannot inline", "swapped"], env=why,
           label="SCANLAB_EMU_LOOPS_WHY=1 emu-nvcc -isystem sysinc -run system_sync.cu")
    # -M, -E, -x cu, -run
    expect(["-M", "racy.cu"], 0, ["racy.o:", "racy.h"])
    # FindCUDA's way: the rules into -o, host flags quoted after a comma
    expect(["-M", "-D__CUDACC__", "racy.cu", "-o", "racy.dep", "-Xcompiler", ',"-g"'], 0, [])
    dep = open(os.path.join(work, "racy.dep")).read() if os.path.exists(os.path.join(work, "racy.dep")) else ""
    if "racy.h" not in dep:
        bad.append("emu-nvcc -M ... -o racy.dep should write the rules there: " + dep[:200])
    expect(["-E", "-x", "cu", "racy.h"], 0, ["shift"])
    expect(["-run", "racy.cu", "main.cpp", "-o", "run_me"], 0, ["sync: 0"])
    # what cannot work: a sentence, exit status 1
    expect(["racy.cu", "-lcublas"], 1, ["-lcublas: the emulator has no cuBLAS"])
    expect(["-ptx", "racy.cu"], 1, ["-ptx: GPU code (PTX, cubin, fatbin) is not what the emulator makes"])
    expect(["-shared", "racy.cu", "-o", "libx.so"], 1, ["-shared: the emulator builds programs and static libraries"])
    expect(["missing.cu"], 1, ["missing.cu: no such file"])
    expect(["notes.txt"], 1, ["unknown file type"])
    expect(["--options-file", "nothere.rsp", "racy.cu"], 1, ["options file nothere.rsp"])
    expect(["--frobnicate", "-c", "racy.cu", "-o", "x.o"], 0, ["ignoring option --frobnicate"])
    # a compile error on CUDA the emulator lacks says so; a typo of the program's is left to the compiler
    code, out = _nvcc(["-c", "undeclared.cu", "-o", "undeclared.o"], work)
    note = [ln for ln in out.splitlines() if ln.startswith("emu-nvcc: note:")]
    if code != 1 or not note or "cudaSomeFutureCall, __future_intrinsic: not declared here" not in note[0] \
            or "myOwnTypo" in note[0] or "What it cannot reproduce" not in note[0]:
        bad.append("an undeclared CUDA name should get a note naming it (and not the program's typo):\n      " +
                   (note[0] if note else out[-400:]))
    # a library of the toolkit's, included: the compiler's "No such file", then a note naming it
    for name, (_, library) in LIBRARY_USES.items():
        code, out = _nvcc(["-c", name, "-o", name + ".o"], work)
        note = [ln for ln in out.splitlines() if ln.startswith("emu-nvcc: note:")]
        if code != 1 or not note or f"belongs to {library}," not in note[0] or "What it cannot reproduce" not in note[0]:
            bad.append(f"{name}: including {library} should end in a note naming it:\n      " +
                       (note[0] if note else out[-300:]))
    code, out = _nvcc(["-c", "own_header.cu", "-o", "own_header.o"], work)
    if code != 1 or "emu-nvcc: note:" in out:
        bad.append("a missing header of the program's own is its mistake, with no note on the emulator:\n      " +
                   out[-300:])
    # -ccbin names a C compiler (as nvcc's user may): the link takes its C++ driver, as nvcc's does
    for ccbin in (["-ccbin", "gcc"], ["-ccbin=gcc"], ["-ccbin", shutil.which("gcc") or "/usr/bin/gcc"]):
        expect(ccbin + ["-run", "big_locals.cu", "-o", "ccbin_gcc"], 0, [],
               label="emu-nvcc " + " ".join(ccbin) + " (a C compiler)")
    if bad:
        raise CheckFailed("\n    ".join(bad))
    return ("options, separate compilation, -dlink, -M, -E, -run, host files, -ccbin with a C compiler, the probes, "
            "kernels as loops by default (and off, and a file whose loops version does not compile), six refusals, "
            "and notes on CUDA the emulator lacks: a name, a library's header")


# a .cu file for the precompiled header's check: a comparison of signed and unsigned and an
# unused parameter (the warnings scanlab_emu.h's pragmas turn off), a copy of a size known at run time (the probes'
# memcpy, by `#pragma redefine_extname`), a kernel with a barrier
PCH_CU = r"""
__global__ void scale(float *x, int n, float a) {
  __shared__ float s[128];
  s[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
  __syncthreads();
  if (threadIdx.x < n) x[threadIdx.x] = a * s[(threadIdx.x + 1) % blockDim.x];
}
void copy(void *d, const void *s, unsigned long n) { memcpy(d, s, n); }
int count(unsigned n, int k, int unused) { return n < k ? 1 : 0; }
"""


def _object_text(obj):
    """An object's machine code and symbols, as text to compare."""
    code, dis = sh(["objdump", "-d", "--no-show-raw-insn", obj])
    code2, syms = sh(["nm", obj])
    if code or code2:
        raise CheckFailed(f"objdump or nm cannot read {os.path.relpath(obj, ROOT)}:\n{dis[-400:]}{syms[-400:]}")
    return "\n".join(dis.splitlines()[3:]) + syms


def precompiled():
    """grader/emu/pch.py: a compile with the emulator's headers precompiled gives the object the
    header's text gives (plain, with the probes, and for lockstep warps), with the header's
    warnings off under -Wall -Wextra -Werror; a .gch the compiler refuses (a damaged one) and a
    program folder with a file named as a standard header fall back to the text."""
    sys.path.insert(0, os.path.join(ROOT, "grader", "emu"))
    import pch  # noqa: E402  (grader/emu/pch.py)
    work = os.path.join(BUILD, "emu-pch-check")
    shutil.rmtree(work, ignore_errors=True)
    cache = os.path.join(work, "cache")
    os.makedirs(os.path.join(work, "shadow"))
    src = os.path.join(work, "k.cpp")
    code, out = sh([sys.executable, os.path.join(ROOT, "grader", "emu", "cu2cpp.py"), os.path.join(work, "k.cu"), src]
                   ) if _write(os.path.join(work, "k.cu"), PCH_CU) else (1, "")
    if code:
        raise CheckFailed("cu2cpp.py cannot rewrite the check's file:\n" + out[-800:])
    _write(os.path.join(work, "shadow", "string.h"), "#include_next <string.h>\n")
    cfg = dict(line.split("=", 1) for line in sh(["make", "--no-print-directory", "-s", "-f", "grader/emu/emu.mk",
                                                   "emu-flags"])[1].splitlines() if "=" in line)
    base = cfg["EMU_CXX"].split() + cfg["EMU_CXXFLAGS"].split() + ["-Wall", "-Wextra", "-Werror", "-I" + os.path.join(ROOT, "grader", "emu", "include"),
                                                    "-include", "scanlab_emu.h"]
    said = []
    for kind, extra in (("plain", []), ("probes", cfg["EMU_PROBE_FLAGS"].split()),
                        ("lockstep", cfg["EMU_LOCKSTEP_FLAGS"].split())):
        plain_obj, pch_obj = os.path.join(work, kind + "-text.o"), os.path.join(work, kind + "-pch.o")
        cmd = base + extra + ["-c", src, "-o", plain_obj]
        code, out = sh(cmd)
        if code:
            raise CheckFailed(f"{kind}: the header's text does not compile:\n" + out[-800:])
        cmd = pch.command(base + extra + ["-c", src, "-o", pch_obj], src, pch_obj, cache)
        used = [c for c in cmd if c.startswith(cache)]
        if not used:
            raise CheckFailed(f"{kind}: pch.command made no .gch under {os.path.relpath(cache, ROOT)}: " + " ".join(cmd))
        code, out = sh(cmd + ["-H", "-Winvalid-pch"])
        if code or "! " + used[0] + ".gch" not in out:
            raise CheckFailed(f"{kind}: the compile did not read {used[0]}.gch (-H says):\n" + out[-800:])
        if _object_text(plain_obj) != _object_text(pch_obj):
            raise CheckFailed(f"{kind}: the object with the .gch differs from the one with the header's text")
        said.append(kind)
    # a damaged .gch: GCC refuses it and reads the header's text; the same object all the same
    gch = used[0] + ".gch"
    with open(gch, "r+b") as fh:
        fh.seek(0)
        fh.write(b"damaged!")
    code, out = sh(cmd)
    if code or _object_text(os.path.join(work, "lockstep-text.o")) != _object_text(os.path.join(work, "lockstep-pch.o")):
        raise CheckFailed("a damaged .gch should leave the compile to the header's text, the same object:\n" + out[-800:])
    # a program folder with a string.h of its own: no .gch (the standard headers would find it)
    obj = os.path.join(work, "shadow.o")
    cmd = pch.command(base + ["-I" + os.path.join(work, "shadow"), "-c", src, "-o", obj], src, obj, cache)
    if any(c.startswith(cache) for c in cmd):
        raise CheckFailed("a folder of the program's own with a string.h should leave the compile to the header's "
                          "text: " + " ".join(cmd))
    # where the text must decide: a file included by option (a .gch would hold it first), a
    # warning the emulator's headers are not clean under, a wrapper that is not g++ itself
    _write(os.path.join(work, "mine.h"), "#ifdef __CUDACC__\nstatic const int in_cuda = 1;\n#endif\n")
    for why, cmd in (("-include of the program's own", base + ["-include", os.path.join(work, "mine.h")]),
                     ("-Wold-style-cast", base + ["-Wold-style-cast"]),
                     ("a compiler wrapper", ["env"] + base)):
        cmd = pch.command(cmd + ["-c", src, "-o", obj], src, obj, cache)
        if any(c.startswith(cache) for c in cmd):
            raise CheckFailed(f"{why}: the compile should read the header's text, not a .gch: " + " ".join(cmd))
    # every diagnostic pragma of the header is one pch.py (and emu.mk) turns into an option
    with open(os.path.join(ROOT, "grader", "emu", "include", "scanlab_emu.h"), encoding="utf-8") as fh:
        pragmas = re.findall(r"^\s*#\s*pragma\s+GCC\s+diagnostic\b.*$", fh.read(), re.M)
    if len(pragmas) != len(pch.pragma_flags()):
        raise CheckFailed(f"scanlab_emu.h's diagnostic pragmas {pragmas} are not all read by pch.py "
                          f"({pch.pragma_flags()}): a .gch drops them")
    if cfg.get("EMU_PRAGMA_FLAGS", "").split() != pch.pragma_flags():
        raise CheckFailed(f"emu.mk's EMU_PRAGMA_FLAGS ({cfg.get('EMU_PRAGMA_FLAGS')}), which the grader's student "
                          f"builds end with, differ from what pch.py reads ({pch.pragma_flags()})")
    kit = student_kit_pch(work)
    return (f"the same object with the .gch and the header's text ({', '.join(said)}; -Wall -Wextra -Werror); "
            f"a damaged .gch and a program's own string.h fall back to the text, and so do an -include of its "
            f"own, -Wold-style-cast and a compiler wrapper; {kit}")


def student_kit_pch(work):
    """The grader's student kit on emu (build.mk) makes its .gch with its own copy of the student
    compile's options: a student's file compiled as student.mk compiles it, at -O2 and at make
    test's -O1, must read that .gch (GCC would read the header's text, slower, where the options
    drifted apart, and nothing else would notice)."""
    sub = os.path.join(work, "submission")  # a copy: the other lane grades solutions/ into its own folder
    shutil.copytree(os.path.join(ROOT, "solutions", "02-kogge-stone"), os.path.join(sub, "02-kogge-stone"))
    code, out = sh([sys.executable, "grader/grading/grade.py", "--lab", "02", "--submission", sub,
                    "--backend", "emu", "--test", "ks_example"])
    kit = os.path.join(ROOT, "build", "kit", "emu", "student", "lab02")
    if code or not os.path.exists(os.path.join(kit, "emu", "include", "scanlab_emu.h.gch")):
        raise CheckFailed("lab 02's student kit on emu holds no scanlab_emu.h.gch after a grade:\n" + out[-800:])
    stage = os.path.join(work, "student-kit")
    shutil.copytree(kit, stage)
    os.makedirs(os.path.join(stage, "out"))
    cpp = os.path.join("out", "kogge_stone.cu.o.cpp")
    code, out = sh([sys.executable, "emu/cu2cpp.py", os.path.join(ROOT, "solutions", "02-kogge-stone", "kogge_stone.cu"),
                    cpp], cwd=stage)
    flags = open(os.path.join(stage, "flags.mk")).read()
    cxx = re.search(r"^STUDENT_CXX = (.*)$", flags, re.M)
    if code or not cxx:
        raise CheckFailed("lab 02's student kit: no rewrite or no STUDENT_CXX in flags.mk:\n" + out[-800:])
    for opt in ("", "-O1"):  # grade.py's full build, and make test's quick one (QUICK_OPT)
        cmd = cxx.group(1).replace("$(STUDENT_OPT)", opt).split() + ["-H", "-Winvalid-pch", "-c", cpp, "-o",
                                                                      os.path.join("out", "k.o")]
        code, out = sh(cmd, cwd=stage)
        if code or "! emu/include/scanlab_emu.h.gch" not in out:
            raise CheckFailed(f"a student's file compiled as the grader's student kit compiles it{' at ' + opt if opt else ''} "
                              "did not read the kit's scanlab_emu.h.gch (its options and build.mk's drifted apart?):\n"
                              + "\n".join(out.splitlines()[:12]))
    return "the grader's student kit reads its own .gch at -O2 and -O1"


def _write(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    return True


def _corpus(args, expect_passed=None):
    code, out = sh([sys.executable, os.path.join(CORPUS, "run.py")] + args, timeout=3000)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", last)
    if code != 0 or not m or m.group(2) != "0" or (expect_passed is not None and int(m.group(1)) != expect_passed):
        failures = [ln for ln in out.splitlines() if ": FAIL" in ln or ln.startswith("    ")]
        raise CheckFailed("grader/emu/corpus/run.py " + " ".join(args) + ":\n    " +
                          "\n    ".join((failures or out.splitlines())[-40:]))
    return out


def _load_corpus_runner():
    """grader/emu/corpus/run.py as a module (`run` is the self-test's own name)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("corpus_run", os.path.join(CORPUS, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def corpus_emu(probe=False):
    n = len(_load_corpus_runner().load_index())
    out = _corpus(["--jobs", "2"] + (["--probe"] if probe else []), expect_passed=n)
    took = re.search(r"corpus took (\d+)s", out)
    return f"{n} programs built by their own Makefile or CMake with emu-nvcc, each passes its self-check" + \
        (f" ({took.group(1)}s)" if took else "")


def corpus_native():
    """On a GPU: every corpus program built with the toolkit's nvcc passes there too; then the
    same programs on the emu, on the same machine, and each one's wall times side by side (the
    emu's slowdown; the corpus's README has a column for the native ones)."""
    n = len(_load_corpus_runner().load_index())
    _corpus(["--native", "--jobs", "4"], expect_passed=n)
    _corpus(["--jobs", "4"], expect_passed=n)
    native = json.load(open(os.path.join(ROOT, "build", "emu-corpus", "native", "results.json")))["programs"]
    emu = json.load(open(os.path.join(ROOT, "build", "emu-corpus", "emu", "results.json")))["programs"]
    rows, ratios = [], []
    for name, r in native.items():
        e = emu[name]["run_s"]
        ratios.append(e / max(r["run_s"], 1e-3))
        rows.append(f"{name}: native {r['run_s']:.3f}s, emu {e:.3f}s, emu/native {ratios[-1]:.2f}")
    ratios.sort()
    print("    " + "\n    ".join(rows), flush=True)
    return (f"{n} programs pass natively; emu/native wall time: median {ratios[len(ratios) // 2]:.2f}, "
            f"from {ratios[0]:.2f} to {ratios[-1]:.2f} (build/emu-corpus/native/results.json)")


def tests_native():
    """On a GPU: every emu test that expects pass (its claim of what CUDA does) builds with nvcc
    and passes there (grader/emu/tests/run_native.py), save those marked `native no WHY` and
    those that need more GPUs than the machine has, which it lists."""
    code, out = sh([sys.executable, "grader/emu/tests/run_native.py"], timeout=900)
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    if code or not m or int(m.group(2)) or not int(m.group(1)):
        bad = [x for x in out.splitlines() if "FAIL" in x or x.startswith("    ")]
        raise CheckFailed("\n    ".join(["the emu's tests built with nvcc:"] + (bad or out.splitlines()[-15:])))
    left = re.search(r"^left out: (.*)$", out, re.M)
    return f"{m.group(1)} tests pass as nvcc builds them; left out: {left.group(1) if left else '?'}"


def corpus_table():
    """Each table of grader/emu/corpus/README.md (the programs; the emu against a GPU) lists
    exactly the programs of programs.toml, in order."""
    progs = [p["name"] for p in _load_corpus_runner().load_index()]
    text = open(os.path.join(CORPUS, "README.md"), encoding="utf-8").read()
    tables = 0
    for section in re.split(r"^## ", text, flags=re.M):
        rows = re.findall(r"^\| `([a-z0-9_]+)` \|", section, re.M)
        if not rows:
            continue
        tables += 1
        if rows != progs:
            missing = sorted(set(progs) - set(rows))
            extra = sorted(set(rows) - set(progs))
            raise CheckFailed(f"grader/emu/corpus/README.md's table under '{section.splitlines()[0]}' and "
                              f"programs.toml differ: missing {missing}, not in programs.toml {extra}" +
                              ("" if missing or extra else " (the order differs)"))
    if tables < 2:
        raise CheckFailed(f"grader/emu/corpus/README.md: {tables} tables of the programs, expected 2 (the programs; "
                          "the emu against a GPU)")
    rows = progs
    return f"{len(rows)} programs, the same in programs.toml and in both tables"
