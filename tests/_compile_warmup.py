"""Fill numba's on-disk cache before pytest's xdist workers start (tests/conftest.py: the whole suite, cold).

With a cold cache (a fresh clone: CI), each xdist worker compiles what its tests call, and the two
workers of a 2-core run often compile the same function at the same time (numba's cache helps only a
process that starts compiling after the other saved). The controller therefore runs, before the workers
start, one process per group below (in parallel); each runs small ``fairalloc`` command lines in one
interpreter, which compile the heaviest entry points through the same public paths the tests take, and
numba saves them; the workers then load them from the cache. It changes no test and no verdict: a test
compiles whatever the warm-up did not (a failure here is printed at the end of the test run's report,
and the tests still run; so does a warm-up stopped by :data:`CAP_SECONDS`, a safety cap only).

    python tests/_compile_warmup.py GROUP [GROUP ...]      # run these groups in this process

Each group is a list of ``fairalloc`` argument lists (``--out`` and the common options are added).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

#: Groups, heaviest first (the order conftest deals them out to the processes): the cores that share
#: compiled callees are in one group, so that no two processes compile the same function.
GROUPS: dict[str, list[list[str]]] = {
    # the decision core with queue state (every container cluster's policy, with its preemption code)
    "queues": [
        ["simulate", "--workload", "google_like:users=6,tasks=60,seed=1",
         "--policy", "kueue,yarn,mesos,volcano,volcano-drf,volcano-hdrf"],
    ],
    # the decision core without queues (DRF, SDRF, TSF, CDRF), TV-TSF's slot fill, the live tree, and the
    # rigid-job loop (FCFS, EASY and the queue orders; a clean-clone CI run: "queues" took 114 s wall with
    # the rigid jobs in it, this group 62 s)
    "plain": [
        ["compare", "--random", "2", "--random-tv", "1", "--no-pareto"],
        ["simulate", "--workload", "google_like:users=6,tasks=60,seed=1",
         "--policy", "drf,sdrf,tsf,cdrf,tvtsf,tsf-static,cdrf-static"],
        ["simulate", "--workload", "lublin:n=60,nodes=64,seed=3,users=5",
         "--policy", "fcfs,easy,wfp3,unicef,f1,f2,buc,sjf"],
        # Slurm's specialisation of the rigid-job loop and the fair-share rules (Slurm, HTCondor)
        ["whatif", "--generator", "lublin", "--gen", "n_jobs=60", "--gen", "nodes=64", "--gen", "rng=3",
         "--gen", "n_users=5", "--policies", "slurm,slurm+easy,htcondor", "--half-lives", "1d", "--workers", "0"],
        # the learned-priorities trials: the rigid-job loop once per permutation (sim.kernels.rigid_batch), which
        # the tests of fairalloc.experiments.learn and two notebooks call; its first call compiles it whole
        # (test_learn_cli's fit fixture was the slowest set-up of a CI run; benchmarks/RESULTS.md, "CI time")
        ["learn", "train", "--states", "2", "--per-cell", "2", "--trials", "4", "--queued", "4", "--started", "2",
         "--processors", "16", "--workers", "0"],
    ],
}


#: A safety cap on the whole warm-up (wall seconds); the tests compile what it did not.
CAP_SECONDS = 1800


def run(names: list[str]) -> int:
    from fairalloc.cli import main

    failed = 0
    t00, c00 = time.perf_counter(), time.process_time()
    for name in names:
        for argv in GROUPS[name]:
            t0, c0 = time.perf_counter(), time.process_time()
            with tempfile.TemporaryDirectory(prefix="fairalloc-warmup-") as out:
                try:
                    rc = main([*argv, "--out", str(Path(out) / "o"), "-q", "--no-progress"])
                except BaseException as exc:            # report, go on: the tests meet it again
                    rc = f"{type(exc).__name__}: {exc}"
            if rc != 0:
                failed += 1
            print(f"warm-up {name}: fairalloc {' '.join(argv)}: exit {rc}, "
                  f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} CPU s", flush=True)
    # the last line: conftest puts it in the test run's header (how the groups balance, in the CI log)
    print(f"{'+'.join(names)} {time.perf_counter() - t00:.0f} s wall / {time.process_time() - c00:.0f} CPU s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
