"""Kueue, YARN, Mesos and Volcano as task-simulator policies (issue 28): decisions per CPU second beside DRF and SDRF,
and a Kueue-scale scenario (1,000 ClusterQueues in 100 cohorts).

The policies: DRF (``stop`` and ``skip``), SDRF, Kueue (one ClusterQueue per user; ``-1cq``: one ClusterQueue
holding every user, which runs on the plain-Python reference loop without AFS: Kueue nominates the ClusterQueue's
oldest head, see :mod:`fairalloc.sim.policies.container`; ``-afs``: Admission Fair Sharing with a 1 h half-life), YARN, Mesos, Volcano (proportion;
``-drf``: with the DRF plugin's job order; ``-hdrf``: hierarchical DRF, flat here); ``kueue-preempt``: Kueue with
fair-sharing preemption (default strategies; ``-10min``: a 600 s minimum run time) on the compiled loop, and
``-ref`` the same on the plain-Python reference loop of :mod:`fairalloc.sim.preemption` (``engine="reference"``;
their preemptions, loops and wasted work are printed too: equal on both engines); ``yarn-preempt``: YARN's
fair-share preemption (:mod:`fairalloc.sim.yarn_preemption`; a 60 s ``fairSharePreemptionTimeout``, threshold
0.5, utilization threshold 0.8), ``-ref`` on its reference loop.

1. ``google_like(--users, --tasks)`` on a pool of ``--fraction`` of the mean use R: every policy in one
   process on the same workload, each after a warm-up on a small workload (compilation outside the
   timing); decisions (tasks started) per CPU second and the ratio to DRF's in the same run. The
   production policies run with one queue per user (their default; Kueue adds the cohort holding the
   pool).
2. Kueue at scale: ``--queues`` ClusterQueues in ``--cohorts`` cohorts, each ClusterQueue with one
   LocalQueue (a user) and a nominal quota of pool/queues, the cohorts holding nothing of their own;
   ``--workloads`` jobs of one task each drawn from ``google_like(--queues, ...)`` (Kueue admits
   workloads; one pod per workload) over ``--scale-days``; wall and CPU seconds, decisions per CPU second,
   peak resident memory, and how many workloads exceed their cohort's whole quota (Kueue never admits
   those: they stay pending).

Usage::

    nice -n 10 python benchmarks/bench_container.py                      # 627 users, 10^6 tasks; 1,000 queues
    nice -n 10 python benchmarks/bench_container.py --tasks 100000 --workloads 20000   # a quick look
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.sim import ResourcePool


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _load() -> str:
    return "load " + " ".join(open("/proc/loadavg").read().split()[:3])


#: label -> (policy, options). The production policies pass over a queue whose task fits nowhere
#: (blocking "skip"); DRF stops there by default, so DRF with "skip" is the like-for-like baseline.
#: ``accounts: "one-cq"`` puts every user (LocalQueue) in one ClusterQueue (Admission Fair Sharing orders them).
POLICIES = {"drf": ("drf", {}), "drf-skip": ("drf", {"blocking": "skip"}), "sdrf": ("sdrf", {"delta": 1 - 1e-6}),
            "kueue": ("kueue", {}), "yarn": ("yarn", {}), "mesos": ("mesos", {}), "volcano": ("volcano", {}),
            "volcano-drf": ("volcano-drf", {}), "volcano-hdrf": ("volcano-hdrf", {}),
            "kueue-afs": ("kueue", {"half_life": 3600.0}), "kueue-1cq": ("kueue", {"accounts": "one-cq"}),
            "kueue-afs-1cq": ("kueue", {"half_life": 3600.0, "accounts": "one-cq"}),
            "kueue-preempt": ("kueue", {"preemption": True}),
            "kueue-preempt-10min": ("kueue", {"preemption": {"min_run_time": 600.0}}),
            "kueue-preempt-ref": ("kueue", {"preemption": True, "engine": "reference"}),
            "kueue-preempt-10min-ref": ("kueue", {"preemption": {"min_run_time": 600.0}, "engine": "reference"}),
            "yarn-preempt": ("yarn", {"preemption": {"timeout": 60.0}}),
            "yarn-preempt-ref": ("yarn", {"preemption": {"timeout": 60.0}, "engine": "reference"})}


def _options(kw: dict, n_users: int) -> dict:
    """``kw`` with the ``"one-cq"`` sentinel replaced by the tree it names."""
    if kw.get("accounts") != "one-cq":
        return kw
    tree = AccountTree([{"account": "cq"}] + [{"user": str(u), "account": "cq"} for u in range(n_users)])
    return {**kw, "accounts": tree}


def rates(a) -> None:
    wl = fa.workloads.google_like(a.users, a.tasks, rng=a.seed, horizon=a.days * 86400.0)
    pool = ResourcePool.from_workload(wl, a.fraction)
    small = fa.workloads.google_like(a.users, 5000, rng=a.seed + 1, horizon=3600.0)
    print(f"google_like({a.users}, {a.tasks:,}, {a.days:g} days, rng={a.seed}): {len(wl):,} jobs; pool "
          f"{a.fraction:.0%} of R; {_load()}")
    base = None
    skip = None
    for name in a.policies:
        pol, kw = POLICIES[name]
        kw = _options(kw, a.users)
        fa.simulate(small, ResourcePool.from_workload(small, a.fraction), policy=pol, **kw)   # compile / load cache
        t, w = time.process_time(), time.perf_counter()
        r = fa.simulate(wl, pool, policy=pol, **kw)
        cpu, wall = time.process_time() - t, time.perf_counter() - w
        d = r.stats["decisions"]
        rate = d / cpu
        base = rate if name == "drf" else base
        skip = rate if name == "drf-skip" else skip
        ratio = f"; {base / rate:.2f}x DRF's time per decision" if base and name != "drf" else ""
        if skip and name not in ("drf", "drf-skip", "sdrf"):
            ratio += f", {skip / rate:.2f}x DRF-skip's"
        print(f"  {name:<13} {d:,} decisions in {cpu:,.1f} CPU s ({wall:,.1f} s wall) = {rate:,.0f}/CPU s"
              f"{ratio}; mean wait {np.nanmean(r.jobs['wait']):,.0f} s")
        if r.preemptions is not None:
            waste = ", ".join(f"{k} {v:,.0f}" for k, v in r.stats["wasted_work"].items())
            print(f"  {'':<13} {r.stats['preemptions']:,} preemptions, {r.stats['preemption_loops']:,} loops; "
                  f"wasted work (resource-seconds) {waste}; engine {r.stats['engine']}")
    print(f"  {_load()}")


def kueue_scale(a) -> None:
    n = a.queues
    per = n // a.cohorts
    src = fa.workloads.google_like(n, 3 * a.workloads, rng=a.seed, horizon=a.scale_days * 86400.0)
    rows = np.repeat(np.arange(len(src)), src.tasks)[: a.workloads]         # one task per workload
    rows.sort()
    wl = fa.workloads.Workload(submit=src.submit[rows], run_time=src.run_time[rows], tasks=np.ones(len(rows), int),
                               user=src.user[rows], resources=src.resources[rows], resource_names=src.resource_names)
    pool = ResourcePool.from_workload(wl, a.fraction)
    cap = np.asarray(pool.capacities, dtype=float).reshape(-1)
    quota = cap / n * (1 - 1e-9)
    recs = [{"account": f"cohort{c}"} for c in range(a.cohorts)]
    recs += [{"account": f"cq{q}", "parent": f"cohort{q // per}",
              "nominal_quota": {r: float(quota[k]) for k, r in enumerate(wl.resource_names)}} for q in range(n)]
    recs += [{"user": str(q), "account": f"cq{q}"} for q in range(n)]
    t = time.process_time()
    tree = AccountTree(recs, resources=list(wl.resource_names))
    build = time.process_time() - t
    never = int((wl.resources > quota * per).any(axis=1).sum())
    print(f"Kueue scale: {n:,} ClusterQueues in {a.cohorts} cohorts ({per} each, one LocalQueue each), "
          f"{len(wl):,} one-task workloads over {a.scale_days:g} days, pool {a.fraction:.0%} of R; tree built in "
          f"{build:.2f} CPU s; {never:,} workloads larger than their cohort's quota (never admitted); {_load()}")
    small = wl.take(np.arange(min(len(wl), 2000)))
    fa.simulate(small, pool, policy="kueue", accounts=tree)               # compile / load cache
    before = _peak_mb()
    t, w = time.process_time(), time.perf_counter()
    r = fa.simulate(wl, pool, policy="kueue", accounts=tree)
    cpu, wall = time.process_time() - t, time.perf_counter() - w
    d = r.stats["decisions"]
    print(f"  kueue  {d:,} admissions in {cpu:,.1f} CPU s ({wall:,.1f} s wall) = {d / cpu:,.0f}/CPU s; "
          f"unfinished {int((~r.jobs['finished']).sum()):,}; peak memory {_peak_mb():,.0f} MB "
          f"(before the run {before:,.0f} MB); {_load()}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--days", type=float, default=1.0, help="submission horizon in days")
    p.add_argument("--fraction", type=float, default=0.5, help="pool as a fraction of R")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policies", nargs="*", default=list(POLICIES), choices=list(POLICIES))
    p.add_argument("--queues", type=int, default=1000)
    p.add_argument("--cohorts", type=int, default=100)
    p.add_argument("--workloads", type=int, default=100_000)
    p.add_argument("--scale-days", type=float, default=0.1, help="submission horizon of the Kueue-scale workloads")
    p.add_argument("--skip", choices=["rates", "scale"], default=None)
    a = p.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; {_load()}")
    if a.skip != "rates":
        rates(a)
    if a.skip != "scale":
        kueue_scale(a)


if __name__ == "__main__":
    main()
