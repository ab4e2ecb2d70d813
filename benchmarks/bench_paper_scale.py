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

``--profile`` prints where the time goes (``cProfile``'s ``tottime`` summed by file, and Python
calls per decision). The simulations run on the simulator's compiled loop (:mod:`fairalloc.sim.kernels`)
around the task schedulers' decision core (:mod:`fairalloc.scheduling.core`). Current figures and
their history (issue 11's profiles before and after the compiled cores) are in
``benchmarks/RESULTS.md``.
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
