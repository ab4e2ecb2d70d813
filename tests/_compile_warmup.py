"""Fill numba's on-disk cache before pytest's xdist workers start (tests/conftest.py: the whole suite, cold).

With a cold cache (a fresh clone: CI), each xdist worker compiles what its tests call, and the two
workers of a 2-core run often compile the same function at the same time (numba's cache helps only a
process that starts compiling after the other saved). The controller therefore runs, before the workers
start, one process per group below (in parallel); each runs small ``fairalloc`` command lines in one
interpreter, which compile the heaviest entry points through the same public paths the tests take, and
numba saves them; the workers then load them from the cache. It changes no test: a test compiles whatever
the warm-up did not. A command that fails here is printed at the end of the test run's report, the tests
still run, and the run fails (its commands are public command lines; ``.ci/run``'s second leg counts on
them to run the compiled entry points on the newest Python); a warm-up stopped by :data:`CAP_SECONDS`, a
safety cap only, is printed and fails nothing.

    python tests/_compile_warmup.py GROUP [GROUP ...]      # run these groups in this process

Each group is a list of entries: a ``fairalloc`` argument list (``--out`` and the common options are
added), or ``["@NAME"]``, the function ``NAME`` of this module.

**How the two processes share the queue core's compile.** The ``queues`` group is one compile: the
simulator's loop with the queue core and the preemption code (``sim.kernels._loop`` with a ``QueueState``
and a ``PreemptState``), whose callees numba compiles, in the order the loop's code calls them, inside
that one compile, and saves one by one. A callee that another process saved before the loop's typing
reaches it is loaded instead (numba's dispatcher tries its cache before it compiles). So ``plain``
starts by compiling (:func:`queue_loop_callees`) the loop's callees that call nothing of the queue core's
own (which would be compiled twice: ``queues`` compiles them in its first minutes) and that ``queues``
reaches late: Volcano's and Kueue AFS's session (``scheduling.queues.queue_session``), the admission
checks, the preemption check's tournament (``sim.preemption._next_head``), YARN's fair shares, the sort
of candidates; ``queues`` then loads them (a clean-clone CI run: ``queues`` 223 s, ``plain`` 146 s, one
core idle for the difference, in each leg). The rest of ``plain`` starts later than before, so it
loads the kinetic tree's and EASY's functions ``queues`` saved meanwhile instead of compiling them
beside it. Last in ``plain``, when ``queues`` has long saved the queue core, the entry points of the
core that the event engine calls from Python with a ``QueueState`` (a queue policy passed as an object,
the tests of ``QueueScheduler``): they compile their own bodies only.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

#: Groups, heaviest first (the order conftest deals them out to the processes): the cores that share
#: compiled callees are in one group, so that no two processes compile the same function (module docstring).
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
        # first: the queue loop's late callees that "queues" then loads (module docstring)
        ["@queue_loop_callees"],
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
        # last: the queue core's entry points called from Python (module docstring)
        ["@queue_core_entry_points"],
    ],
}


#: A safety cap on the whole warm-up (wall seconds); the tests compile what it did not.
CAP_SECONDS = 1800


def _tiny_workload():
    from fairalloc.workloads import Workload

    return Workload(submit=[0.0, 0.0, 1.0], run_time=[2.0, 1.0, 1.0], tasks=[2, 1, 1], user=[0, 1, 0],
                    resources=[[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]])


def queue_loop_callees() -> int:
    """Compile, in this process, the queue loop's callees named in the module docstring, for the types the
    loop passes them: the loop's arguments are taken from a ``kueue`` simulation through the public path
    (``fairalloc.simulate``), stopped at the loop's call, and each callee is compiled for the types of the
    state fields its call site passes (``numba.typeof`` of them). A signature that no longer matches a call
    site (the code changed) only costs its compile here: ``queues`` then compiles the callee as before."""
    import inspect

    import numba
    from numba import types

    import fairalloc as fa
    from fairalloc import _jit
    from fairalloc.scheduling import queues as Q
    from fairalloc.sim import kernels as K
    from fairalloc.sim import preemption as P

    _jit.ensure()                               # the dispatchers, bound to the modules' globals (compiles nothing)
    loop = K._loop
    got: dict = {}

    class _Stop(Exception):
        pass

    def capture(*args, **kwargs):
        got.update(inspect.signature(loop.py_func).bind(*args, **kwargs).arguments)
        raise _Stop

    K._loop = capture
    try:
        fa.simulate(_tiny_workload(), [2.0, 2.0], policy="kueue")
    except _Stop:
        pass
    finally:
        K._loop = loop
    st, runs, ps, hint = got["st"], got["runs"], got["ps"], got["hint"]
    ty, i8, f8 = numba.typeof, types.int64, types.float64
    S, R, PS, QS, row = ty(st), ty(runs), ty(ps), ty(st.qs), ty(runs.d[0])
    # in the order the loop's compile reaches them (scheduling.core.schedule_into, then sim.preemption.step)
    for fn, sig in [(Q.queue_session, (QS, i8, ty(st.totals), f8)),   # (qs, key, totals, now)
                    (Q.queue_admits, (QS, i8, i8, row)),              # (qs, key, user, demand row)
                    (Q.queue_take, (QS, i8, i8, row)),
                    (P.job_of, (PS, i8)),
                    (P._yarn_fair_shares, (PS, QS)),
                    (P._push_wake, (PS, f8)),
                    (P._sort, (PS, i8, ty(hint), i8)),                # (ps, n, hint, cluster queue)
                    (P._next_head, (PS, S, R, QS)),
                    (P.next_wake, (PS, f8, f8))]:
        fn.compile(sig)
    return 0


def queue_core_entry_points() -> int:
    """The queue core's entry points the event engine calls from Python (``scheduling.core``'s ``submit``,
    ``schedule``, ``release``, ``changed`` with a ``QueueState``): a ``kueue`` policy object through
    ``fairalloc.simulate``, which runs the event engine (a policy passed as an object keeps its state)."""
    import fairalloc as fa

    fa.simulate(_tiny_workload(), [2.0, 2.0], policy=fa.sim.make_policy("kueue"))
    return 0


def run(names: list[str]) -> int:
    from fairalloc.cli import main

    failed = 0
    t00, c00 = time.perf_counter(), time.process_time()
    for name in names:
        for argv in GROUPS[name]:
            t0, c0 = time.perf_counter(), time.process_time()
            with tempfile.TemporaryDirectory(prefix="fairalloc-warmup-") as out:
                try:
                    if argv[0].startswith("@"):
                        rc = globals()[argv[0][1:]]()
                    else:
                        rc = main([*argv, "--out", str(Path(out) / "o"), "-q", "--no-progress"])
                except BaseException as exc:            # report, go on: the tests meet it again
                    rc = f"{type(exc).__name__}: {exc}"
            if rc != 0:
                failed += 1
            what = argv[0][1:] if argv[0].startswith("@") else "fairalloc " + " ".join(argv)
            print(f"warm-up {name}: {what}: exit {rc}, "
                  f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} CPU s", flush=True)
    # the last line: conftest puts it in the test run's header (how the groups balance, in the CI log)
    print(f"{'+'.join(names)} {time.perf_counter() - t00:.0f} s wall / {time.process_time() - c00:.0f} CPU s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
