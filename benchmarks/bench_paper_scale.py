"""Paper-scale task simulation (issue 11): one google_like month at the SDRF paper's size, timed.

The SDRF paper's experiment is one month of the Google 2011 trace: 32 million tasks from 627 users,
the pool at 50% to 100% of the mean use R. This script generates ``google_like(627, --tasks,
horizon=--days days, rng=--seed)``, sizes the pool at ``--fraction`` of R and runs ``fa.simulate``
once per ``--policies`` entry (DRF; SDRF with delta = 1 - 1e-6), printing for each run the CPU
seconds (``time.process_time``: less sensitive than wall time on a shared machine), the wall
seconds, decisions (tasks started) per CPU second, the engine used and the process's peak resident
memory so far
(``resource.getrusage``, which includes the workload). ``uptime`` is printed first and last.

    python benchmarks/bench_paper_scale.py --tasks 32000000 --policies drf
    python benchmarks/bench_paper_scale.py --tasks 1000000 --policies drf sdrf
    python benchmarks/bench_paper_scale.py --tasks 100000 --policies drf --profile

Where an SDRF run's time goes (issue 11's profile; SDRF, delta = 1 - 1e-6, 627 users, pool at 50% of
R, ``google_like(627, 10**5, rng=0)``: 100,000 decisions, 12 swaps), as shares of the time
``cProfile`` attributes to each part's own code (``tottime`` summed by file; cProfile inflates small
functions, so read the shares, not the seconds), before (e281ff2) and after the changes of branch
speed11c:

===========================================================================  ========  =======
part                                                                          e281ff2   after
===========================================================================  ========  =======
live tree: order, certificates, envelopes (``kinetic/live_tree.py``)          36%       33%
scheduler loop: schedule, finish, lead (``scheduling/_base.py``)              16%       19%
SDRF state: Eq. 6, excess, trajectories (``progressive.py``, ``commitments``)  13%       14%
free capacity and task fits (``scheduling/servers.py``, ``shares.py``)        11%       10%
builtins (len, max, heapq, list and tuple operations)                         10%       11%
event engine, admission, allocate (``sim/engine.py``, ``cluster_state.py``)   7%        8%
policy glue: launches, wake-ups (``sim/task_policies.py``)                    6%        5%
Python function calls per decision                                            132       122
===========================================================================  ========  =======

No part dominates: a decision is about 120 Python calls spread over the engine, the policy, the
scheduler, the SDRF state and the live tree, so removing a few calls (branch speed11c: the live
tree's in-place check and lead test on cached states, certificates from the cached piece, one
find-and-take per decision, one update per user per instant for tasks ending together) gains a
few per cent: ``check_schedules.py --time-tasks`` same-run ratios on a machine at load 14 to 18,
SDRF 1.02 at 10^6 tasks against 993ac21 and 1.00 (best of 3; means 1.04) at 3*10^5 against
e281ff2, DRF 1.10 and 1.05; what remains is the interpreter's per-call cost. The issue's 50k SDRF
decisions per CPU second needs the structural change it names: the scheduler's state (per-user
commitments, the live tree's blocks, certificates and event heap, the pending runs) in arrays
operated on by compiled functions that ``SDRFScheduler`` itself calls, bit for bit. Swap and
wake-up counts are in ``check_schedules.py``'s digests, and the live tree counts two priorities
that would cross within rounding as equal (``kinetic.live_tree._cmp``), which is not transitive, so
such a core must follow the tree's own search path (its blocks) and event order (time, then
sequence number), not merely keep the users sorted.

DRF after branch speed11d: ``DRFScheduler`` runs on the compiled core
:mod:`fairalloc.scheduling.pool_core` (one pool, or first-fit servers), and ``fa.simulate(...,
policy="drf")`` runs the compiled whole-run loop that calls the same functions. Where DRF's time
goes, ``cProfile`` of ``fa.simulate(google_like(627, 10**5, rng=0), pool at 50% of R, policy="drf")``
(100,000 decisions, ``tottime`` by file; load 7.6 to 9.5, 2 CPUs; ``--tasks 100000 --policies drf
--profile``; the before column: the same profiling code with the package of e1a4b26 first on
PYTHONPATH), before and after:

======================================================  ========================  ===================
part                                                    e1a4b26 (event engine)    after (kernel)
======================================================  ========================  ===================
live tree (``kinetic/live_tree.py``)                    26.0%                     --
scheduler loop (``scheduling/_base.py``)                23.0%                     --
SDRF state at zero commitments (``progressive.py``)     9.4%                      --
free capacity, fits (``servers.py``, ``shares.py``)     14.4%                     --
policy glue and engine (``task_policies``, ``engine``)  14.6%                     --
builtins                                                9.4%                      56.1% (0.15 s)
compiled core (``scheduling/pool_core.py``)             --                        36.7% (0.10 s)
CPU seconds under the profiler                          6.55                      0.13
Python function calls per decision                      93                        0.04
======================================================  ========================  ===================

A policy object (``TaskPolicy("drf")``) still runs the event engine, now over the core's
functions: 40 Python calls per decision, 2.5-2.9 CPU s for 2*10^5 decisions against 4.1-4.4 s at
e1a4b26 (1.4-1.8x, same session). Same-run figures (``check_schedules.py --ref 993ac21 --tasks 0
--time-tasks 1000000 --repeat 1``, load 8.2): DRF 1,065,968 decisions per CPU second against 35,218
at 993ac21 (30.3x); SDRF 29,028 against 26,932 (1.08x, unchanged code: noise). This script with
``--tasks 32000000 --policies drf`` (load 8.1): 32,000,000 decisions in 27.2 CPU s (54.7 s wall),
1.18 M per CPU second, peak resident memory 3.8 GB (GNU time: 3.9 GB).

SDRF after branch sdrf11e: the live tree's state and operations are compiled functions
(:mod:`fairalloc.kinetic.tree_core`; ``LiveTree`` wraps them), ``SDRFScheduler`` runs on the compiled
core :mod:`fairalloc.scheduling.sdrf_core` (one pool, or first-fit servers) that orders users with
those functions, and ``fa.simulate(..., policy="sdrf")`` runs the compiled whole-run loop over the
same functions. ``check_schedules.py --ref 993ac21``: 84 of 84 runs identical (launches, starts,
ends, decisions, swaps, wake-ups). Where SDRF's time goes, ``cProfile`` of ``fa.simulate(
google_like(627, 10**5, rng=0, horizon=29 days), pool at 50% of R, policy="sdrf", delta=1 - 1e-6)``
(100,000 decisions, 93 swaps, 4 wake-ups; ``--tasks 100000 --policies sdrf --profile``; the before
column: the same profiling code with the package of 6c81f64, the branch's start, first on
PYTHONPATH; load 2.7-2.9, 2 CPUs):

======================================================  ========================  ===================
part                                                    6c81f64 (event engine)    after (kernel)
======================================================  ========================  ===================
live tree (``kinetic/live_tree.py``)                    32.8%                     --
scheduler loop (``scheduling/_base.py``)                17.6%                     --
SDRF state (``progressive.py``, ``commitments.py``)     13.2%                     --
free capacity, fits (``servers.py``, ``shares.py``)     11.2%                     --
policy glue and engine (``task_policies``, ``engine``,  15.3%                     0.3%
``cluster_state``)
builtins                                                9.3%                      1.1%
compiled core (``scheduling/sdrf_core.py``)             --                        96.0% (0.34 s)
CPU seconds under the profiler                          8.6                       0.35
Python function calls per decision                      148                       0.04
======================================================  ========================  ===================

The profile above was taken at 17cc4e2. Same-run figures at ca85531 (``check_schedules.py --ref
993ac21 --tasks 0 --time-tasks 1000000 --repeat 2``, load 3.3-3.4, numba caches warm): SDRF 277,208
decisions per CPU second against 34,554 at 993ac21 (8.0x; the issue's goal 50,000), DRF 1,138,109
against 48,880 (23.3x). This script with ``--tasks 32000000 --policies sdrf``: 32,000,000 decisions
in 111.1 CPU s at 17cc4e2 (load 2.3), 119.0 CPU s at 360c5a4 (load 3.2) and 113.6 CPU s (116.6 s wall,
load 3.3-3.5) at ca85531, 268,829-288,067 per CPU second, 32,830 swaps, 696 wake-ups, peak resident memory 3.8 GB (GNU time: 3.9 GB); the issue's
goal: under 10 minutes and 8 GB on one core. DRF's compiled loop now shares the start, launch-record
and completion functions with SDRF's (``pool_core._take``, ``_record``, ``_launched``, inlined):
warm in-process runs at 10^6 tasks give 1.41-1.69 M decisions per CPU second against 1.73-1.97 M at
6c81f64 in the same session (about 0.85-0.9x; 0.7x with plain calls, about 1.0x with the old
inline code). A policy object (``TaskPolicy("sdrf")``) still runs the event engine, over the core's
functions: 42,459 and 43,499 decisions per CPU second at 2*10^5 tasks against 35,911 and 37,036 at
6c81f64 (1.18x, same session; the engine and the policy's glue now dominate). TSF and CDRF run the
generic path on the ``LiveTree`` wrapper: 10,957 and 12,301 against 10,300 and 11,215 at 6c81f64
(1.06x, 1.10x; the wrapper keeps a copy of the order while its version is unchanged, so a pass that
sets users aside does not re-read the arrays; without that copy they were 0.74x).
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import os
import pstats
import resource
import time

import fairalloc as fa
from fairalloc.sim import ResourcePool


def _uptime() -> str:
    try:
        with open("/proc/loadavg") as f:
            return "load average " + " ".join(f.read().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "load average unknown"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0     # kB on Linux


def _print_profile(prof: cProfile.Profile, decisions: int) -> None:
    """cProfile's ``tottime`` summed by file (shares), and Python calls per decision."""
    by: collections.Counter = collections.Counter()
    calls, total = 0, 0.0
    for (path, _line, _fn), (_cc, nc, tt, _ct, _callers) in pstats.Stats(prof).stats.items():
        key = path.split("fairalloc/")[-1] if "fairalloc/" in path else (
            "builtins" if path == "~" else os.path.basename(path))
        by[key] += tt
        calls += nc
        total += tt
    print(f"     profile: {calls / max(decisions, 1):.2f} Python calls per decision; tottime by file:")
    for key, v in by.most_common(10):
        print(f"       {key:<40} {v / total:6.1%}  {v:.3f} s")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=32_000_000)
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--days", type=float, default=29.0, help="submission horizon in days")
    p.add_argument("--fraction", type=float, default=0.5, help="pool as a fraction of R")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policies", nargs="*", default=["drf"], choices=["drf", "sdrf"])
    p.add_argument("--profile", action="store_true",
                   help="run under cProfile (after a small warm-up run) and print tottime shares by file")
    a = p.parse_args(argv)
    print(f"{_uptime()}; {os.cpu_count()} CPUs")
    t = time.process_time()
    wl = fa.workloads.google_like(a.users, a.tasks, rng=a.seed, horizon=a.days * 86400.0)
    pool = ResourcePool.from_workload(wl, a.fraction)
    print(f"google_like({a.users}, {a.tasks:,}, horizon={a.days:g} days, rng={a.seed}): {len(wl):,} jobs, "
          f"generated in {time.process_time() - t:.1f} CPU s; pool {a.fraction:.0%} of R; "
          f"peak memory {_peak_mb():,.0f} MB")
    for name in a.policies:
        kw = {"delta": 1 - 1e-6} if name == "sdrf" else {}
        prof = None
        if a.profile:                          # compile / load the numba cache outside the profile
            small = fa.workloads.google_like(a.users, 2000, rng=a.seed + 1)
            fa.simulate(small, ResourcePool.from_workload(small, a.fraction), policy=name, **kw)
            prof = cProfile.Profile()
            prof.enable()
        t, w = time.process_time(), time.perf_counter()
        r = fa.simulate(wl, pool, policy=name, **kw)
        cpu, wall = time.process_time() - t, time.perf_counter() - w
        if prof is not None:
            prof.disable()
            _print_profile(prof, r.stats["decisions"])
        d = r.stats["decisions"]
        print(f"{name:<4} {d:,} decisions in {cpu:,.1f} CPU s ({wall:,.1f} s wall) = {d / cpu:,.0f}/CPU s; "
              f"engine {r.stats.get('engine', 'events')}; swaps {r.stats['swaps']:,}, wake-ups "
              f"{r.stats['wakeups']:,}; peak memory {_peak_mb():,.0f} MB")
    print(_uptime())


if __name__ == "__main__":
    main()
