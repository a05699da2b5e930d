"""A one-node Slurm cluster on this machine, for the class-grading check: munge and Slurm's
daemons started with a minimal configuration under build/selftest/slurm, stopped afterwards.
Needs root and Debian's slurm-wlm and munge (`make check` installs them)."""
import fcntl
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import common as selftest  # noqa: E402  (grader/selftest/common.py)

ROOT = selftest.ROOT
CheckFailed = selftest.CheckFailed
HERE = os.path.join(ROOT, "build", "selftest", "slurm")

CONF = """# A one-node cluster for ScanLab's self-test.
ClusterName=scanlab-selftest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldPort={port}
SlurmdPort={port1}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# sbatch --wait polls every 2 s while that is less than half of MinJobAge, then every 8 and 32 s
# (300 by default: a class of 15 s here was seen 42 s in); Slurm's least is 2, and 4 keeps a
# finished job's record at least two polls long.
MinJobAge=4
SlurmdTimeout=60
NodeName={host} CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def available():
    if os.geteuid() != 0:
        return "needs root (a cluster's daemons run as root here)"
    missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo") if not shutil.which(t)]
    return f"not installed: {', '.join(missing)} (Debian's slurm-wlm and munge)" if missing else ""


LOCK = "/run/lock/scanlab-selftest-slurm.lock"


def stop_leftovers():
    """Stops the daemons of an earlier self-test cluster that did not end (a run killed midway,
    in this checkout or another): they hold the ports and the munge socket, and an old slurmd
    registering with the new controller drains the node, so the next array would wait forever.
    Only processes whose command line names a self-test cluster's files are touched."""
    mine = re.compile(r"(munged|slurmctld|slurmd)\b.*build/selftest/slurm/")
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            cmd = open(f"/proc/{d}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if mine.search(cmd):
            pids.append(int(d))
    for sig in (15, 9):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if pids:
            time.sleep(1)


def free_ports(count):
    """Ports no process listens on now (the kernel's choice), for the controller and slurmd."""
    held, out = [], []
    try:
        for _ in range(count):
            s_ = socket.socket()
            s_.bind(("", 0))
            held.append(s_)
            out.append(s_.getsockname()[1])
    finally:
        for s_ in held:
            s_.close()
    return out


class Cluster:
    def __enter__(self):
        # One self-test cluster at a time on a machine. It shares nothing with a cluster the
        # machine may run: its own munge socket (slurm.conf's AuthInfo), ports the system had free.
        os.makedirs(os.path.dirname(LOCK), exist_ok=True)
        self.lock = open(LOCK, "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        stop_leftovers()
        shutil.rmtree(HERE, ignore_errors=True)
        for d in ("state", "spool", "munge"):
            os.makedirs(os.path.join(HERE, d))
        host = socket.gethostname().split(".")[0]
        conf = os.path.join(HERE, "slurm.conf")
        # a socket's path holds at most 107 bytes: a short one of its own under /run
        sock = os.path.join(tempfile.mkdtemp(prefix="scanlab-munge-", dir="/run"), "munge.socket")
        self.sock_dir = os.path.dirname(sock)
        ports = free_ports(2)
        open(conf, "w").write(CONF.format(host=host, dir=HERE, cpus=os.cpu_count() or 1,
                                          port=ports[0], port1=ports[1], sock=sock))
        self.env = dict(os.environ, SLURM_CONF=conf, MUNGE_SOCKET=sock)
        key = os.path.join(HERE, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={sock}",
                        f"--pid-file={HERE}/munge/munged.pid", f"--log-file={HERE}/munge/munged.log",
                        f"--seed-file={HERE}/munge/seed"], check=True)
        subprocess.run(["slurmctld", "-f", conf], env=self.env, check=True)
        subprocess.run(["slurmd", "-f", conf], env=self.env, check=True)
        for _ in range(60):
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            if r.stdout.strip() in ("idle", "mixed"):
                return self
            time.sleep(1)
        log = open(os.path.join(HERE, "slurmctld.log")).read()[-800:]
        self.__exit__(None, None, None)
        raise CheckFailed("the one-node Slurm cluster did not come up: " + log)

    def __exit__(self, *exc):
        for pid_file in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            p = os.path.join(HERE, pid_file)
            if os.path.exists(p):
                try:
                    os.kill(int(open(p).read().strip()), 15)
                except (ValueError, ProcessLookupError):
                    pass
        time.sleep(1)
        stop_leftovers()
        if getattr(self, "sock_dir", ""):
            shutil.rmtree(self.sock_dir, ignore_errors=True)
        fcntl.flock(self.lock, fcntl.LOCK_UN)
        self.lock.close()
