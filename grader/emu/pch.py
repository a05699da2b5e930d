"""The emu's headers, precompiled: a compile that includes scanlab_emu.h reads a GCC
precompiled header (a .gch file) made once for its options instead of the ~36,000 lines the
header brings in (the C++ standard headers nvcc includes too, and the emulator's own). For
a small .cu file that was two thirds of its compile: an emu test took 0.40 s, 0.23 s with it.

Used by emu-nvcc and the emu's own tests (tests/run_tests.py). For one compile command,
    cmd = pch.command(cmd, src, obj, cache)
gives the same command reading build/emu-pch/KEY/scanlab_emu.h.gch, made on the first use
of KEY, or the command unchanged where none can be made (another process is making it, the
folder cannot be written, the compiler refuses). Either way the object is the one the plain
command makes:

- Only GCC's g++ (the compiler's real name ends in g++ or g++-N): clang stops at a .gch that
  does not fit where GCC reads the text, and a wrapper (ccache) is not known to be either.
- KEY is a digest of the compiler (its path, size and time, so an update makes a new one),
  every option of the command (its -D and -U, -std, -O, -f, -g, the probes' flags) but the
  source, its object, its include folders and its warnings, and the text of every file under
  grader/emu/include (a folder of its own: folders of other texts an hour old are removed).
- GCC checks a .gch against the compile and, where it does not fit (a macro the header reads
  defined differently, another -O's __OPTIMIZE__), reads the header's text instead: the folder
  holds a scanlab_emu.h that includes the real one.
- Left unchanged: a command with another file included by option (-include, -imacros: a .gch
  made with it would hold it before the header), -Wp, options, dependency output, -E; and one
  with warnings beyond -Wall and -Wextra (or -pedantic): the emulator's headers are clean under
  those two (this file's check in make check compiles them with -Werror), not under every
  warning, and a .gch reports none of its own, so the text must decide.
- A program's own include folders come after the emulator's, so they change only what the
  standard headers would find there: where one holds a file of the name of a header the .gch
  was made from (string.h, bits/stl_pair.h), the command is left unchanged.
- GCC 12 does not keep `#pragma GCC diagnostic` in a .gch: the warnings scanlab_emu.h turns
  off that way (-Wsign-compare, -Wunused-parameter: host warnings nvcc never shows for device
  code) are turned off by options at the end of the command instead, which a program's own
  -W options before them cannot turn back on, as with the pragma.
- A .gch GCC cannot make (a failed run) leaves a `failed` mark: that key's compiles read the
  text from then on, without trying again.

Python 3 standard library only.
"""
import fcntl
import hashlib
import os
import re
import subprocess
import time

EMU_DIR = os.path.dirname(os.path.abspath(__file__))
INC = os.path.join(EMU_DIR, "include")
HEADER = "scanlab_emu.h"
# options that name a folder to search (after the emulator's: they can only shadow what the
# standard headers include), and the warnings a .gch may be used with
DIR_OPTS = ("-I", "-iquote", "-idirafter", "-isystem")
CLEAN_UNDER = ("-Wall", "-Wextra", "-Werror", "-w")
_digest = None


def pragma_flags():
    """What scanlab_emu.h's `#pragma GCC diagnostic ignored "-Wx"` lines do, as options (-Wno-x),
    which a .gch drops (emu.mk's EMU_PRAGMA_FLAGS reads them the same way)."""
    with open(os.path.join(INC, HEADER), encoding="utf-8") as fh:
        return ["-Wno-" + w for w in re.findall(r'^#pragma GCC diagnostic ignored "-W([a-z-]+)"', fh.read(), re.M)]


def headers_digest():
    """A digest of every file under grader/emu/include (names and text)."""
    global _digest
    if _digest is None:
        h = hashlib.sha256()
        for top, dirs, files in os.walk(INC):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(top, name)
                h.update(os.path.relpath(path, INC).encode() + b"\0")
                with open(path, "rb") as fh:
                    h.update(fh.read() + b"\0")
        _digest = h.hexdigest()
    return _digest


def split(cmd, src, obj):
    """(compiler and the options that shape the header, the include folders given) of a command,
    or None where a .gch must not serve it (the module's text says which)."""
    keep, dirs, k = [], [], 0
    while k < len(cmd):
        a = cmd[k]
        if a in (src, "-c") or (a == "-o" and k + 1 < len(cmd) and cmd[k + 1] == obj):
            k += 2 if a == "-o" else 1
            continue
        if a == "-include" and k + 1 < len(cmd) and cmd[k + 1] == HEADER:
            k += 2
            continue
        if a.startswith(("-include", "--include", "-imacros", "-Wp,", "-E", "-M", "-fsyntax-only", "-save-temps",
                         "-H", "-pedantic", "-Wpedantic")):
            return None
        if a.startswith("-W") and not (a in CLEAN_UNDER or a.startswith(("-Wno-", "-Werror=", "-Wa,", "-Wl,"))):
            return None
        for opt in DIR_OPTS:
            if a == opt and k + 1 < len(cmd):
                dirs.append(cmd[k + 1])
                k += 2
                break
            if a.startswith(opt) and len(a) > len(opt):
                dirs.append(a[len(opt):])
                k += 1
                break
        else:
            if not (a == "-v" or a.startswith("-W") or a == "-w"):
                keep.append(a)
            k += 1
    return keep, dirs


def shadows(folder, deps):
    """True where an include folder holds a file by the name (its last one to three parts) of
    a header the .gch was made from, other than the emulator's own (found first)."""
    inc = os.path.realpath(INC) + os.sep
    for path in deps:
        if os.path.realpath(path).startswith(inc):
            continue
        parts = path.split(os.sep)
        for n in (1, 2, 3):
            if len(parts) > n and os.path.isfile(os.path.join(folder, *parts[-n:])):
                return True
    return False


def compiler_id(prog):
    """The compiler's real path, size and time where it is GCC's g++; None otherwise."""
    path = os.path.realpath(_which(prog))
    if not re.search(r"g\+\+(-[0-9.]+)?$", os.path.basename(path)):
        return None
    st = os.stat(path)
    return "%s %d %d" % (path, st.st_size, st.st_mtime_ns)


def command(cmd, src, obj, cache):
    """The compile command cmd (which has `-include scanlab_emu.h`) reading a .gch made for it
    under the folder cache; cmd itself where none can be had."""
    if "-include" not in cmd or HEADER not in cmd or os.environ.get("SCANLAB_EMU_NO_PCH") == "1":
        return cmd
    parts = split(cmd, src, obj)
    if parts is None:
        return cmd
    keep, dirs = parts
    try:
        cid = compiler_id(keep[0])
        if cid is None:
            return cmd
        h = hashlib.sha256()
        for a in [cid] + keep:
            h.update(a.encode() + b"\0")
        texts = os.path.join(cache, headers_digest()[:16])
        folder = os.path.join(texts, h.hexdigest()[:24])
        gch = os.path.join(folder, HEADER + ".gch")
        if not os.path.isfile(gch):
            if os.path.exists(os.path.join(folder, "failed")) or not make(keep, folder, gch):
                return cmd
            prune(cache, texts)
        with open(os.path.join(folder, "deps"), encoding="utf-8") as fh:
            deps = [line.rstrip("\n") for line in fh if line.strip()]
    except OSError:
        return cmd
    inc = os.path.realpath(INC)
    if any(shadows(d, deps) for d in dirs if os.path.realpath(d) != inc):
        return cmd
    out, k = [], 0
    while k < len(cmd):
        if cmd[k] == "-include" and k + 1 < len(cmd) and cmd[k + 1] == HEADER:
            out += ["-include", os.path.join(folder, HEADER)]
            k += 2
        else:
            out.append(cmd[k])
            k += 1
    return out + pragma_flags()


def prune(cache, keep):
    """Removes the .gch folders of other texts of the headers (an edit of one makes a new set)
    not used for an hour."""
    import shutil
    for name in os.listdir(cache):
        path = os.path.join(cache, name)
        if path != keep and os.path.isdir(path) and time.time() - os.path.getmtime(path) > 3600:
            shutil.rmtree(path, ignore_errors=True)


def _which(prog):
    if os.sep in prog:
        return prog
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, prog)
        if os.access(p, os.X_OK):
            return p
    return prog


def make(keep, folder, gch):
    """Makes folder/scanlab_emu.h.gch with the options keep; False where another process is
    making it or the compiler refuses (which leaves a `failed` mark)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # another compile is making it: this one reads the header's text
        if os.path.isfile(gch):
            return True
        stub = os.path.join(folder, HEADER)
        with open(stub + ".tmp", "w", encoding="utf-8") as fh:
            fh.write("/* made by grader/emu/pch.py: the header itself, where GCC does not take the .gch */\n"
                     "#include \"%s\"\n" % os.path.relpath(os.path.join(INC, HEADER), folder))
        os.replace(stub + ".tmp", stub)
        tmp, deps = gch + ".%d.tmp" % os.getpid(), os.path.join(folder, "deps.tmp")
        try:
            r = subprocess.run(keep + ["-I" + INC, "-x", "c++-header", os.path.join(INC, HEADER), "-o", tmp,
                                       "-MD", "-MF", deps], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode or not os.path.isfile(tmp) or not os.path.isfile(deps):
                open(os.path.join(folder, "failed"), "w").close()
                return False
            with open(deps, encoding="utf-8") as fh:
                words = fh.read().replace("\\\n", " ").split()
            with open(os.path.join(folder, "deps"), "w", encoding="utf-8") as fh:
                fh.write("\n".join(w for w in words[1:] if not w.endswith(":")) + "\n")
            with open(os.path.join(folder, "options"), "w", encoding="utf-8") as fh:
                fh.write(" ".join(keep) + "\n")
            os.replace(tmp, gch)
        finally:
            for f in (tmp, deps):
                if os.path.exists(f):
                    os.unlink(f)
    return True
