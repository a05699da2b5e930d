"""Self-test checks of lab 08's ranks as processes: `make ranks` (one process a rank on this host,
the kit's NCCL stand-in between them) passes the solution and names a rank that skips a
collective, and the Slurm script runs its one-node form through srun on a one-node cluster.
Registered by run.py; each raises common.CheckFailed."""
import os
import re
import tempfile

import common  # noqa: E402  (grader/selftest/common.py: CheckFailed, sh, ROOT, BUILD)
from common import CheckFailed, ROOT, BUILD, sh  # noqa: E402

PASSED = r"lab08_ranks: (\d+) ranks as processes: 1 passed, 0 failed"
SKIPPED = (r"rank \d returned after 0 collectives while rank \d waits in its 1st collective, ncclAllGather of 1 x "
           r"ncclInt32")


def ranks_local():
    """make ranks on the emu: 3 processes pass the solution; with a rank of an empty shard that
    skips reduce-then-scan's all-gather, the run fails and names that rank, within seconds."""
    code, out = sh(["make", "--no-print-directory", "ranks", "RANKS=3", "BACKEND=emu", "SUBMISSION=solutions"],
                   timeout=600)
    if code or not re.search(PASSED, out) or "every rank's part right" not in out:
        raise CheckFailed("make ranks RANKS=3 on the solution:\n" + out[-1500:])
    import bad_submissions  # noqa: E402  (the known-bad case's submission, the same edit)
    sub = bad_submissions.lab08_skips_allgather()
    code, bad = sh(["make", "--no-print-directory", "ranks", "RANKS=3", "BACKEND=emu", f"SUBMISSION={sub}",
                    "RANKS_BIN=build/ranks/emu-skips/lab08_ranks"], timeout=600)
    if code == 0 or not re.search(SKIPPED, bad) or "0 passed, 1 failed" not in bad:
        raise CheckFailed("make ranks RANKS=3 on a rank that skips the all-gather should fail naming it:\n" +
                          bad[-1500:])
    return "3 processes: the solution's parts right; a skipped all-gather named, the run failed"


def ranks_slurm():
    """labs/08-multi-gpu/ranks/lab08_ranks.sbatch through sbatch on a one-node cluster started
    here: srun starts 2 tasks of the emu's build, which meet through the stand-in and pass."""
    import slurm  # noqa: E402  (grader/selftest/slurm.py: the one-node cluster)
    why = slurm.available()
    if why:
        return f"skipped: {why}"
    binary = os.path.join(ROOT, "build", "ranks", "emu-slurm", "lab08_ranks")
    code, out = sh(["make", "--no-print-directory", "ranks-build", "BACKEND=emu", "SUBMISSION=solutions",
                    f"RANKS_BIN={os.path.relpath(binary, ROOT)}"], timeout=600)
    if code:
        raise CheckFailed("make ranks-build:\n" + out[-1500:])
    work = tempfile.mkdtemp(prefix="ranks-slurm-", dir=BUILD)
    log = os.path.join(work, "job.out")
    with slurm.Cluster() as cluster:
        code, out = sh(["sbatch", "--wait", "--nodes=1", "--ntasks=2", f"--output={log}",
                        os.path.join(ROOT, "labs", "08-multi-gpu", "ranks", "lab08_ranks.sbatch"),
                        "--sizes", "0,1,33,8193"],
                       env=dict(cluster.env, LAB08_RANKS_PROGRAM=binary, SCANLAB_NCCL="0",
                                SCANLAB_RANKS_DIR=os.path.join(work, "dir")), timeout=600)
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    m = re.search(PASSED, text)
    if code or not m or m.group(1) != "2":
        raise CheckFailed(f"sbatch lab08_ranks.sbatch (2 tasks) exited {code}:\n{out[-800:]}\n{text[-1500:]}")
    return "sbatch --ntasks=2: srun's 2 tasks passed (" + text.strip().splitlines()[0][:90] + ")"


CHECKS = [("lab 08: ranks as processes on this host (make ranks, the stand-in)", ranks_local),
          ("lab 08: ranks as processes through srun on a one-node Slurm cluster", ranks_slurm)]
