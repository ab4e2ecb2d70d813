"""SDRF and DRF task scheduling in the simulator on google_like workloads: live tree vs re-sort vs lazy heap.

Issue 5's benchmark. A ``google_like`` workload (10^6 tasks by default) with 627 users (the SDRF paper's
Google trace) and one with 10^4 users runs through ``fa.simulate`` on one pool sized at ``--fraction``
(default 50%) of the workload's mean use R (SDRF Section 7), so queues form and commitments matter.
Printed, all from this one process (timings on a shared machine are noisy; ratios are same-run):

1. decisions per second of the whole simulation (engine + policy + scheduler; a decision = one task
   started) for DRF and SDRF (delta = 1 - 1e-6) with the live tree, on the full workload;
2. live tree vs re-sorting every user at every decision vs a heap with lazy recomputation, as whole
   SDRF runs on the first ``--window-tasks`` tasks of the 627-user workload (the ``structure=`` flag of
   the decision core, :mod:`fairalloc.scheduling.core`, on the simulator's compiled loop; CPU
   seconds). The launches are compared with the live tree's (re-sort must be identical up to the
   rounding of crossing times; the lazy heap is inexact when priorities decrease, see
   ``fairalloc.kinetic.LazyHeap``, and its agreement is shown);
3. the same three structures when *every* user has pending tasks (phase A's ``bench_live_tree``
   driver, folded in here): the scheduler alone (advance, submit, finish, schedule; the driver's own
   random draws excluded) on a synthetic stream that keeps all 627 / 10^4 users backlogged. In the
   simulations of 1-2 only the users DRF/SDRF have not yet served (the heavy ones) wait, tens to a
   few hundred at a time, so a scan of the waiting users is cheap; this section shows how the
   structures scale when all users compete, which is where the live tree pays;
4. the effect of two choices made for speed, in the same process on the 627-user prefix: updating a
   live-tree element in place when it stays between its neighbours (vs remove and re-insert:
   ``Core.in_place_updates``), and running Algorithm 1 at a wake-up of a blocked scheduler only
   when its first user changed (``wake_on="first"``) vs at every wake-up (``"any"``);
5. live-tree swap events per 1000 tasks for delta = 1 - 10^-1 .. 1 - 10^-7 on a 627-user workload
   spread over 29 days like the Google 2011 trace (``--swap-horizon``; over the generator's default
   day a commitment with tau = 10^6 s barely moves), compared with the paper's about 200 per 1000 at
   1 - 10^-1 and 7 per 1000 at 1 - 10^-6 on the Google trace.

Targets (issue 5): live tree >= 5x re-sort at 627 users, >= 50x at 10^4 users; >= 50,000 decisions
per second for DRF and for SDRF with the live tree at 627 users.

Current figures are in ``benchmarks/RESULTS.md``.

    python benchmarks/bench_sched.py                       # the issue's sizes (several minutes)
    python benchmarks/bench_sched.py --tasks 100000 --swap-tasks 100000 --window-tasks 30000
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fairalloc as fa
from fairalloc.sim import ResourcePool, TaskPolicy


class _Policy(TaskPolicy):
    """SDRF whose decision core keeps (or not) an updated live-tree element in place."""

    def __init__(self, *, in_place: bool = True, **kw):
        super().__init__("sdrf", **kw)
        self.in_place = in_place

    def reset(self, sim):
        super().reset(sim)
        self.scheduler._core.in_place_updates = self.in_place


def run_structure(wl, pool, structure, *, delta, in_place=True, **kw):
    """One SDRF run on the compiled loop with the users kept by ``structure``; returns (decisions per
    CPU second, launches as (job, tasks, server, start) tuples, result)."""
    from fairalloc.sim import Simulation
    from fairalloc.sim.simulate import make_state

    pol = _Policy(delta=delta, structure=structure, in_place=in_place, **kw)
    sim = Simulation(wl, make_state(wl, pool, None), pol)
    t = time.process_time()
    r = pol.run_kernel(sim)                 # fa.simulate's compiled loop (a policy object runs the engine)
    dt = time.process_time() - t
    lf = r.launches
    log = list(zip(lf["job"].tolist(), lf["tasks"].tolist(), lf["server"].tolist(), lf["start"].tolist()))
    return r.stats["decisions"] / dt, log, r


def agreement(a, b):
    """(identical, fraction of the first len(a) launches equal in (job, tasks, server) and time)."""
    m = min(len(a), len(b))
    same = [x[:3] == y[:3] and math.isclose(x[3], y[3], rel_tol=1e-12, abs_tol=1e-9) for x, y in zip(a, b)]
    first_diff = next((k for k, ok in enumerate(same) if not ok), None)
    return first_diff is None and len(a) == len(b), (sum(same) / m if m else 1.0), first_diff


def backlog_run(structure, *, users, tasks, delta, seed, load=1.2, lo=0.001, hi=0.01, batch=4):
    """Phase A's driver: every user starts with pending tasks; Poisson batches keep the pool over-
    loaded. Returns (decisions, seconds inside scheduler calls, swaps, start log)."""
    import heapq

    from fairalloc.scheduling import SDRFScheduler

    rng = np.random.default_rng(seed)
    mean_d, mean_run = (lo + hi) / 2, 100.0
    rate = load / (mean_d * mean_run * (batch + 1) / 2)
    s = SDRFScheduler([[1.0, 1.0]], n_users=users, delta=delta, structure=structure, blocking="stop")
    ends: list = []
    seq, t, log, busy = 0, 0.0, [], 0.0
    next_arrival = rng.exponential(1 / rate)
    for u in range(users):
        s.submit(u, rng.uniform(lo, hi, 2), count=int(rng.integers(1, batch + 1)))
    while s.decisions < tasks:
        t_end = ends[0][0] if ends else np.inf
        t = min(next_arrival, t_end, s.next_min_change)
        arrival = None
        if t == next_arrival:
            arrival = (int(rng.integers(users)), rng.uniform(lo, hi, 2), int(rng.integers(1, batch + 1)))
            next_arrival = t + rng.exponential(1 / rate)
        done = []
        while ends and ends[0][0] <= t:
            done.append(heapq.heappop(ends)[2])
        t0 = time.perf_counter()
        s.advance(t)
        for task in done:
            s.finish(task)
        if arrival is not None:
            s.submit(arrival[0], arrival[1], count=arrival[2])
        started = s.schedule()
        busy += time.perf_counter() - t0
        for st in started:
            seq += 1
            heapq.heappush(ends, (t + rng.exponential(mean_run), seq, st.task))
            log.append((st.task, st.user))
    return s.decisions, busy, s.swaps, log


def full_run(wl, pool, policy, **kw):
    t0 = time.perf_counter()
    r = fa.simulate(wl, pool, policy=policy, **kw)
    dt = time.perf_counter() - t0
    return r.stats["decisions"] / dt, dt, r


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=1_000_000, help="tasks of each workload")
    p.add_argument("--users", type=int, nargs="*", default=[627, 10_000])
    p.add_argument("--fraction", type=float, default=0.5, help="pool size as a fraction of R")
    p.add_argument("--window-tasks", type=int, default=200_000,
                   help="sections 2 and 4: tasks of the workload's prefix run per structure")
    p.add_argument("--swap-tasks", type=int, default=None,
                   help="tasks of the 627-user workload for the swap study (default --tasks)")
    p.add_argument("--swap-horizon", type=float, default=29 * 86400.0,
                   help="submission span of the swap-study workload in seconds (Google 2011: 29 days)")
    p.add_argument("--backlog-tasks", type=int, default=20_000)
    p.add_argument("--backlog-resort-tasks", type=int, default=2_000)
    p.add_argument("--deltas", type=int, nargs="*", default=[1, 2, 3, 4, 5, 6, 7],
                   help="k in delta = 1 - 10^-k")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sections", type=int, nargs="*", default=[1, 2, 3, 4, 5], help="sections to run")
    a = p.parse_args(argv)
    delta = 1 - 1e-6
    print(f"google_like workloads, {a.tasks:,} tasks, pool = {a.fraction:.0%} of R, seed {a.seed}; "
          f"SDRF delta = 1 - 1e-6 (dt = 1 s), blocking 'stop', first-fit pool\n")
    workloads = {}
    for users in a.users:
        t0 = time.perf_counter()
        wl = fa.workloads.google_like(users, a.tasks, rng=a.seed)
        pool = ResourcePool.from_workload(wl, a.fraction)
        workloads[users] = (wl, pool)
        print(f"[{users} users] {len(wl):,} jobs, {wl.n_tasks:,} tasks, R = "
              f"{np.round(pool.totals / a.fraction, 2).tolist()}, generated in {time.perf_counter() - t0:.1f} s")

    if 1 in a.sections:
        print("\n1. Whole simulation, live tree (decisions/s = tasks started / wall time of fa.simulate)")
        for users, (wl, pool) in workloads.items():
            for name, kw in (("drf", {}), ("sdrf", {"delta": delta})):
                rate, dt, r = full_run(wl, pool, name, **kw)
                tgt = "  (target >= 50,000/s: " + ("met" if rate >= 50_000 else "MISSED") + ")" \
                    if users == 627 else ""
                print(f"   {users:>6} users  {name:<4} {r.stats['decisions']:>9,} decisions in {dt:7.1f} s = "
                      f"{rate:>9,.0f}/s; swaps {r.stats['swaps']:,}, wake-ups {r.stats['wakeups']:,}, "
                      f"events {r.stats['events']:,}{tgt}")

    if 2 in a.sections:
        print(f"\n2. Live tree vs re-sort vs lazy heap: whole SDRF runs on the first {a.window_tasks:,} tasks "
              "(compiled loop, decisions per CPU second)")
        for users, (wl, pool) in workloads.items():
            sub = wl.head(_rows_for(wl, min(wl.n_tasks, a.window_tasks)))
            rates, logs = {}, {}
            for st in ("live_tree", "resort", "heap"):            # compile first: not timed
                run_structure(sub.head(50), pool, st, delta=delta)
            for st in ("live_tree", "resort", "heap"):
                rates[st], logs[st], r = run_structure(sub, pool, st, delta=delta)
                print(f"   {users:>6} users  {st:<10} {rates[st]:>11,.0f} decisions per CPU s "
                      f"({r.stats['decisions']:,} decisions, swaps {r.stats['swaps']:,})")
            same, _, _ = agreement(logs["live_tree"], logs["resort"])
            ratio = rates["live_tree"] / rates["resort"]
            target = 5 if users <= 1000 else 50
            print(f"          live tree / re-sort = {ratio:,.1f}x (target >= {target}x: "
                  f"{'met' if ratio >= target else 'MISSED'}); same launches: {same}")
            same_h, frac_h, first_h = agreement(logs["live_tree"], logs["heap"])
            print(f"          live tree / lazy heap = {rates['live_tree'] / rates['heap']:,.2f}x; lazy heap's "
                  f"launches equal to the live tree's: {frac_h:.1%}"
                  + ("" if same_h else f" (first difference at launch {first_h})"))

    if 3 in a.sections:
        print(f"\n3. Every user backlogged (scheduler alone, phase A's driver; SDRF delta = 1 - 1e-6; "
              f"{a.backlog_tasks:,} decisions, re-sort {a.backlog_resort_tasks:,})")
        for users in a.users:
            res = {}
            for st, n in (("live_tree", a.backlog_tasks), ("resort", a.backlog_resort_tasks), ("heap", a.backlog_tasks)):
                d, busy, swaps, log = backlog_run(st, users=users, tasks=n, delta=delta, seed=a.seed)
                res[st] = (d / busy, log)
                print(f"   {users:>6} users  {st:<9} {d:>7,} decisions {d / busy:>9,.0f}/s" +
                      (f"   swaps per 1000 tasks {1000 * swaps / d:.1f}" if st == "live_tree" else ""))
            ratio = res["live_tree"][0] / res["resort"][0]
            target = 5 if users <= 1000 else 50
            m = min(len(res["live_tree"][1]), len(res["resort"][1]))
            same = res["live_tree"][1][:m] == res["resort"][1][:m]
            mh = min(len(res["live_tree"][1]), len(res["heap"][1]))
            agree = sum(x == y for x, y in zip(res["live_tree"][1][:mh], res["heap"][1][:mh])) / max(mh, 1)
            print(f"          live tree / re-sort = {ratio:,.1f}x (target >= {target}x: "
                  f"{'met' if ratio >= target else 'MISSED'}); same starts on the first {m:,}: {same}; "
                  f"live tree / lazy heap = {res['live_tree'][0] / res['heap'][0]:.2f}x, heap starts equal "
                  f"to the live tree's: {agree:.1%}")

    if 4 in a.sections:
        print("\n4. Effect of the speed choices (627-user prefix, same process, compiled loop)")
        if 627 in workloads:
            wl, pool = workloads[627]
            sub = wl.head(_rows_for(wl, min(wl.n_tasks, a.window_tasks)))
            base, log_a, _ = run_structure(sub, pool, "live_tree", delta=delta)
            reins, log_b, _ = run_structure(sub, pool, "live_tree", delta=delta, in_place=False)
            print(f"   in-place update: {base:,.0f}/CPU s; remove + re-insert: {reins:,.0f}/CPU s "
                  f"({base / reins:.2f}x); same launches: {log_a == log_b}")
            for wake in ("first", "any"):
                rate, dt, r = full_run(sub, pool, "sdrf", delta=1 - 1e-3, wake_on=wake)
                print(f"   wake on {wake:<5} change (delta = 1 - 1e-3, first {sub.n_tasks:,} tasks): {rate:,.0f}/s, "
                      f"wake-ups {r.stats['wakeups']:,}, swaps {r.stats['swaps']:,}")

    if 5 in a.sections:
        n_swap = a.swap_tasks or a.tasks
        print(f"\n5. Live-tree swap events per 1000 tasks (google_like, 627 users, {n_swap:,} tasks over "
              f"{a.swap_horizon / 86400:g} days, SDRF, pool at {a.fraction:.0%} of R)")
        if a.deltas:
            wl = fa.workloads.google_like(627, n_swap, rng=a.seed, horizon=a.swap_horizon)
            pool = ResourcePool.from_workload(wl, a.fraction)
            print(f"   {'delta':>14} {'tasks':>10} {'swaps':>10} {'per 1000':>9} {'wake-ups':>9} {'s':>7}")
            for k in a.deltas:
                d = 1 - 10.0 ** -k
                rate, dt, r = full_run(wl, pool, "sdrf", delta=d)
                n = r.stats["decisions"]
                print(f"   {'1 - 1e-' + str(k):>14} {n:>10,} {r.stats['swaps']:>10,} "
                      f"{1000 * r.stats['swaps'] / n:>9.1f} {r.stats['wakeups']:>9,} {dt:>7.1f}")
            print("   (SDRF paper, Google trace, 50% of R: ~200 per 1000 at 1 - 1e-1, ~7 per 1000 at 1 - 1e-6)")

def _rows_for(wl, tasks: int) -> int:
    """Rows of the workload (in submission order) holding at most ``tasks`` tasks."""
    return int(np.searchsorted(np.cumsum(wl.tasks), tasks, side="right"))


if __name__ == "__main__":
    main()
