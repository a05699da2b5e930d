"""The sandbox, tried directly: a hostile program (hostile.c) runs in it with the options the
grader gives a student's driver, and tries one way out per case. Each case checks what the
program says and the world after: the kit, the grader's processes, /tmp, leftover processes.

Where the machine does not allow a protection (not root, no user namespaces), the case says
so and checks what remains.
"""
import os
import re
import socket
import subprocess
import time

import common as selftest  # noqa: E402  (grader/selftest/common.py)

ROOT = selftest.ROOT
grade = selftest.grade
CheckFailed = selftest.CheckFailed
WORK = os.path.join(ROOT, "build", "selftest", "isolation")
HOSTILE = os.path.join(WORK, "hostile")


def probe():
    if not hasattr(probe, "result"):
        probe.result = grade.sandbox_probe()
    return probe.result


def hostile_binary():
    os.makedirs(WORK, exist_ok=True)
    src = os.path.join(ROOT, "grader", "selftest", "hostile.c")
    if not os.path.exists(HOSTILE) or os.path.getmtime(HOSTILE) < os.path.getmtime(src):
        code, out = selftest.sh(["cc", "-O1", "-o", HOSTILE, src])
        if code:
            raise CheckFailed("cannot build hostile.c:\n" + out)
    # the sandbox, and the clean driver whose libraries make the driver's view (grade.driver_view)
    if not all(os.path.exists(p) for p in (grade.SANDBOX, os.path.join(grade.KIT, BACKEND[0], "scanlab-clean-driver"))):
        m = [m for m in grade.all_manifests() if m["lab"] == "02"][0]
        if not grade.build_kit(m, BACKEND[0], "90", os.path.join(WORK, f"kit-{BACKEND[0]}.log")):
            raise CheckFailed(f"cannot build the kit ({BACKEND[0]}): see build/selftest/isolation/kit-{BACKEND[0]}.log")
    return HOSTILE


BACKEND = ["emu"]  # whose driver sandbox the cases try (GPU_CASES: cuda's, with the GPU's files)


def run_hostile(*args, timeout=60, opts=None):
    """Runs hostile MODE ARGS in the sandbox as a test's driver runs; returns (exit, output)."""
    m = [m for m in grade.all_manifests() if m["lab"] == "02"][0]
    # The driver's binary is hidden with the kit; the hostile one lives under build/ too, so it
    # is passed by descriptor as the driver is (the sandbox opens its program first).
    hostile = hostile_binary()  # first: it builds the kit the options are made from
    cmd = [grade.SANDBOX] + (opts if opts is not None else grade.sandbox_options(m, BACKEND[0], 10)) + \
        ["--", hostile] + list(args)
    r = subprocess.run(cmd, capture_output=True, timeout=timeout)
    return r.returncode, (r.stdout + r.stderr).decode(errors="replace")


def verdict(out):
    m = re.search(r"^(blocked|ESCAPED): .*$", out, re.M)
    return m.group(0) if m else "no verdict: " + out[-300:]


def need_blocked(out, what):
    v = verdict(out)
    if not v.startswith("blocked"):
        raise CheckFailed(f"{what}: {v}")
    return v


def case_read_memory():
    """The grader's memory through /proc/PID/mem (the trial read it as root)."""
    _, out = run_hostile("read-mem", str(os.getpid()))
    return need_blocked(out, "reading the grader's memory")


def case_signal():
    """SIGSTOP on a process of the grader's user."""
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        _, out = run_hostile("signal", str(sleeper.pid))
        state = open(f"/proc/{sleeper.pid}/stat").read().split(") ")[1][0]
        if state == "T":
            raise CheckFailed(f"the grader's process was stopped ({verdict(out)})")
        return need_blocked(out, "signalling a grader process")
    finally:
        sleeper.kill()
        sleeper.wait()


def case_write_kit():
    """A kit file (the trial appended a constructor to reference/scan_ref.c)."""
    victim = os.path.join(ROOT, "build", "selftest", "victim.c")
    open(victim, "w").write("/* a kit file */\n")
    _, out = run_hostile("write", victim)
    _, out2 = run_hostile("write", os.path.join(ROOT, "reference", "scan_ref.c"))
    if open(victim).read() != "/* a kit file */\n":
        raise CheckFailed("a kit file was changed")
    need_blocked(out2, "writing reference/scan_ref.c")
    return need_blocked(out, "writing a kit file")


def case_read_solutions():
    _, out = run_hostile("read", os.path.join(ROOT, "solutions", "01-serial", "scan_serial.c"))
    return need_blocked(out, "reading solutions/")


def case_tmp():
    """A large file in /tmp, left behind (the trial left 1 GiB)."""
    _, out = run_hostile("tmp-fill")
    if os.path.exists("/tmp/scanlab-hostile-fill"):
        size = os.path.getsize("/tmp/scanlab-hostile-fill")
        os.remove("/tmp/scanlab-hostile-fill")
        raise CheckFailed(f"a {size >> 20} MiB file was left in /tmp ({verdict(out)})")
    return need_blocked(out, "filling /tmp")


def leftovers(marker):
    r = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [p for p in r.stdout.split() if p]


def case_orphans():
    """A child in a session of its own outlives the test (the trial's did)."""
    marker = f"scanlab-orphan-{os.getpid()}-{int(time.time())}"
    run_hostile("orphan", marker)
    time.sleep(0.5)
    left = leftovers(marker)
    if left:
        subprocess.run(["pkill", "-9", "-f", marker])
        raise CheckFailed(f"processes outlived the sandbox: {left}")
    return "none left"


def case_fork_bomb():
    t0 = time.monotonic()
    code, out = run_hostile("fork-bomb")
    if not (probe().get("uid") or probe().get("user_namespace")):
        return "not checked: no user of its own here (not root), so no process limit"
    return need_blocked(out, "a fork bomb") + f" (in {time.monotonic() - t0:.1f}s)"


def case_memory():
    code, out = run_hostile("memory", "16384")
    return need_blocked(out, "taking 16 GiB")


def case_other_checkout():
    """A world-readable file outside the kit and the submissions (another student's checkout):
    the driver's root shows only its own files."""
    import confinement  # noqa: E402
    with confinement.Secret() as s:
        _, out = run_hostile("read", s.path)
        if not probe().get("view"):
            return "not checked: no root of its own here (" + verdict(out) + ")"
        return need_blocked(out, "reading another checkout")


def case_tcp_loopback():
    """A listener on the host's loopback (another student's test, the grader's machine)."""
    with socket.socket() as ls:
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        _, out = run_hostile("connect-tcp", str(ls.getsockname()[1]))
    if not probe().get("net_namespace"):
        return "not checked: no network namespace here (" + verdict(out) + ")"
    return need_blocked(out, "connecting to the host's loopback")


def case_abstract_socket():
    """An abstract unix socket: no file, so no mount hides it; only a network namespace does."""
    name = f"scanlab-selftest-{os.getpid()}"
    with socket.socket(socket.AF_UNIX) as ls:
        ls.bind("\0" + name)
        ls.listen(1)
        _, out = run_hostile("connect-abstract", name)
    if not probe().get("net_namespace"):
        return "not checked: no network namespace here (" + verdict(out) + ")"
    return need_blocked(out, "connecting to an abstract unix socket")


def sysv_keys():
    keys = set()
    for f in ("/proc/sysvipc/shm", "/proc/sysvipc/msg"):
        try:
            keys |= {int(line.split()[0]) for line in open(f).read().splitlines()[1:] if line.split()}
        except (OSError, ValueError):
            pass
    return keys


def case_sysv_ipc():
    """SysV shared memory and a message queue made inside the sandbox do not outlive it: an IPC
    namespace of its own, and where there is none (--no-namespaces, as root), the cleanup by
    uid."""
    verdicts = []
    for label, extra in (("its own IPC namespace", []), ("no namespaces: cleaned up by uid", ["--no-namespaces"])):
        if extra and not probe().get("uid"):
            verdicts.append(f"{label}: not checked (not root: no uid of its own to clean up after)")
            continue
        key = 0x5ca70000 + os.getpid() % 0xffff
        m = [m for m in grade.all_manifests() if m["lab"] == "02"][0]
        hostile_binary()
        _, out = run_hostile("sysv", hex(key), opts=extra + grade.sandbox_options(m, BACKEND[0], 10))
        if key in sysv_keys():
            subprocess.run(["ipcrm", "-M", hex(key)], capture_output=True)
            subprocess.run(["ipcrm", "-Q", hex(key)], capture_output=True)
            raise CheckFailed(f"{label}: SysV objects with key {hex(key)} outlived the sandbox ({verdict(out)})")
        verdicts.append(f"{label}: none left")
    return "; ".join(verdicts)


CASES = [
    ("the grader's memory cannot be read", case_read_memory),
    ("the grader's processes cannot be signalled", case_signal),
    ("the kit cannot be written", case_write_kit),
    ("the solutions cannot be read", case_read_solutions),
    ("nothing is left in /tmp", case_tmp),
    ("no process outlives the sandbox", case_orphans),
    ("a fork bomb is stopped", case_fork_bomb),
    ("memory is limited", case_memory),
    ("another checkout cannot be read", case_other_checkout),
    ("no connection to the host's loopback", case_tcp_loopback),
    ("no connection to an abstract unix socket", case_abstract_socket),
    ("no SysV IPC outlives the sandbox", case_sysv_ipc),
]


def on_cuda(case):
    """The case in the sandbox of a cuda driver (the GPU's device files and libraries in view)."""
    def run():
        BACKEND[0] = "cuda"
        try:
            return case()
        finally:
            BACKEND[0] = "emu"
    return run


GPU_CASES = [(name, on_cuda(fn)) for name, fn in CASES if fn in (
    case_read_solutions, case_write_kit, case_other_checkout, case_tcp_loopback, case_abstract_socket,
    case_sysv_ipc, case_orphans)]
