"""SDRF and DRF task scheduling in the simulator on google_like workloads: live tree vs re-sort vs lazy heap.

Issue 5's benchmark. A ``google_like`` workload (10^6 tasks by default) with 627 users (the SDRF paper's
Google trace) and one with 10^4 users runs through ``fa.simulate`` on one pool sized at ``--fraction``
(default 50%) of the workload's mean use R (SDRF Section 7), so queues form and commitments matter.
Printed, all from this one process (timings on a shared machine are noisy; ratios are same-run):

1. decisions per second of the whole simulation (engine + policy + scheduler; a decision = one task
   started) for DRF and SDRF (delta = 1 - 1e-6) with the live tree, on the full workload;
2. live tree vs re-sorting every user at every decision vs a heap with lazy recomputation, on a
   *window* of ``--window`` decisions of the same SDRF run: the run proceeds with the live tree to
   ``--warmup`` decisions (the window starts in the loaded, many-users-active state, which a prefix
   of the workload would not reach), then the scheduler's queue is replaced by the structure under
   test, holding the same trajectories, and the next ``--window`` decisions are timed. The live tree
   is timed on the same window of its own run, twice: on SDRF's compiled core
   (:mod:`fairalloc.scheduling.sdrf_core`, driven by the event engine one call at a time) and on the
   generic Python path with the :class:`LiveTree` wrapper (the path the other structures run on). The launches of the window are compared with the
   live tree's (re-sort must be identical up to the rounding of crossing times; the lazy heap is
   inexact when priorities decrease, see ``fairalloc.kinetic.LazyHeap``, and its agreement is shown);
3. the same three structures when *every* user has pending tasks (phase A's ``bench_live_tree``
   driver, folded in here): the scheduler alone (advance, submit, finish, schedule; the driver's own
   random draws excluded) on a synthetic stream that keeps all 627 / 10^4 users backlogged. In the
   simulations of 1-2 only the users DRF/SDRF have not yet served (the heavy ones) wait, tens to a
   few hundred at a time, so a scan of the waiting users is cheap; this section shows how the
   structures scale when all users compete, which is where the live tree pays;
4. the effect of two changes made for speed, measured in the same process on the 627-user window:
   updating a live-tree element in place when it stays between its neighbours (vs remove and
   re-insert), updating a finishing user's entry lazily so that a user served right after its task
   ended moves once instead of twice (vs at once), and running Algorithm 1 at a wake-up of a
   blocked scheduler only when its first user changed (``wake_on="first"``; both wake at every swap
   since issue 25) vs at every wake-up (``"any"``);
5. live-tree swap events per 1000 tasks for delta = 1 - 10^-1 .. 1 - 10^-7 on a 627-user workload
   spread over 29 days like the Google 2011 trace (``--swap-horizon``; over the generator's default
   day a commitment with tau = 10^6 s barely moves), compared with the paper's about 200 per 1000 at
   1 - 10^-1 and 7 per 1000 at 1 - 10^-6 on the Google trace.

Targets (issue 5): live tree >= 5x re-sort at 627 users, >= 50x at 10^4 users; >= 50,000 decisions
per second for DRF and for SDRF with the live tree at 627 users.

Measured (issue 11, branch sdrf11e; ``--users 627 --sections 2 --tasks 1000000 --warmup 200000
--window 20000``, load 3.5-3.8, 2 CPUs; then the script and package of 6c81f64, the branch's start,
in the same session): live tree on the compiled core 39,450 decisions per CPU s, live tree on the
Python path 31,889, re-sort 6,582, lazy heap 30,364: live tree / re-sort 6.0x (core) and 4.8x
(Python path), launches identical; at 6c81f64 live tree 33,671, re-sort 5,935 (5.7x), lazy heap
44,320. The re-sort baseline computes all states in one compiled call and compares with
``tree_core.cmp`` as plain Python (1.11x its old speed here); the lazy heap calls the compiled
``tree_core.state`` once per element from Python (0.69x). An earlier run of the same command gave
6.0x and 4.9x (resort 6,133). The window runs through the event engine, which now dominates; the
whole-run compiled loop (``fa.simulate(..., policy="sdrf")``) is ``bench_paper_scale.py``'s figure.

    python benchmarks/bench_sched.py                       # the issue's sizes (several minutes)
    python benchmarks/bench_sched.py --tasks 100000 --swap-tasks 100000 --warmup 30000 --window 1000
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import fairalloc as fa
from fairalloc.kinetic import LazyHeap, LiveTree, ResortQueue
from fairalloc.scheduling import TaskScheduler
from fairalloc.sim import ResourcePool, TaskPolicy


class _Stop(Exception):
    pass


class WindowPolicy(TaskPolicy):
    """SDRF that switches its queue to another structure after ``warmup`` decisions, times the next
    ``window`` decisions (whole simulation time, CPU seconds of this process: ``time.process_time``,
    less sensitive than wall time to a loaded machine) and records their launches.

    ``core=True`` (the live tree only): the scheduler runs on its compiled core
    (:mod:`fairalloc.scheduling.sdrf_core`, the live tree's arrays), driven by the event engine one
    call at a time, as ``fa.simulate`` runs a policy object. Otherwise the core is switched off at the
    start and the whole run takes the generic Python path (``TaskScheduler.schedule`` with the
    :class:`LiveTree` wrapper), whose queue is then swapped for the structure under test."""

    def __init__(self, *, structure: str, warmup: int, window: int, core: bool = False, **kw):
        super().__init__("sdrf", **kw)
        self.target, self.warmup, self.window = structure, warmup, window
        self.core = core and structure == "live_tree"
        self.t_start = self.t_end = None
        self.log: list[tuple[int, int, int, float]] = []

    def reset(self, sim):
        super().reset(sim)
        if not self.core:
            self.scheduler._core = None

    def _switch(self) -> None:
        s = self.scheduler
        old = s._queue
        if self.target == "live_tree":
            return
        cls = ResortQueue if self.target == "resort" else LazyHeap
        new = cls(old.tau, time=old.now)
        for key in old:                                  # same trajectories, same order
            new.insert_trusted(key, *old.trajectory(key))         # (intercepts, slopes, t0, tie)
        s._queue = new

    def schedule(self, now):
        d = self.scheduler.decisions
        if self.t_start is None and d >= self.warmup:
            self._switch()
            self.d_start = d
            self.t_start = time.process_time()
        out = super().schedule(now)
        if self.t_start is not None:
            self.log.extend((j, k, s, now) for j, k, s in out)
            if self.scheduler.decisions >= self.d_start + self.window:
                self.t_end = time.process_time()
                self.d_end = self.scheduler.decisions
                raise _Stop
        return out


def run_window(wl, pool, structure, *, warmup, window, delta, core=False, **kw):
    pol = WindowPolicy(structure=structure, warmup=warmup, window=window, delta=delta, core=core, **kw)
    try:
        fa.simulate(wl, pool, policy=pol)
    except _Stop:
        pass
    if pol.t_end is None:
        raise SystemExit(f"the workload ended before {warmup + window} decisions; lower --warmup/--window")
    n = pol.d_end - pol.d_start
    return n / (pol.t_end - pol.t_start), pol.log, pol


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
    p.add_argument("--warmup", type=int, default=200_000, help="decisions before the timed window")
    p.add_argument("--window", type=int, default=3000, help="decisions timed per structure")
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
        print(f"\n2. Live tree vs re-sort vs lazy heap: a window of {a.window:,} decisions after "
              f"{a.warmup:,} of the same SDRF run")
        for users, (wl, pool) in workloads.items():
            warm = min(a.warmup, wl.n_tasks - 2 * a.window)
            rates, logs = {}, {}
            arms = (("core", "live_tree", True), ("live_tree", "live_tree", False), ("resort", "resort", False),
                    ("heap", "heap", False))
            for name, st, core in arms:
                rates[name], logs[name], pol = run_window(wl, pool, st, warmup=warm, window=a.window,
                                                          delta=delta, core=core)
                active = int((pol.scheduler.n_pending > 0).sum())
                label = {"core": "live tree, compiled core", "live_tree": "live tree, Python path"}.get(name, name)
                print(f"   {users:>6} users  {label:<26} {rates[name]:>9,.0f} decisions/s   ({active:,} users "
                      f"with pending tasks at the window's end)")
            same, frac, first = agreement(logs["live_tree"], logs["resort"])
            same_c, _, _ = agreement(logs["core"], logs["live_tree"])
            target = 5 if users <= 1000 else 50
            for name in ("core", "live_tree"):
                ratio = rates[name] / rates["resort"]
                print(f"          live tree ({'compiled core' if name == 'core' else 'Python path'}) / re-sort "
                      f"= {ratio:,.1f}x (target >= {target}x: {'met' if ratio >= target else 'MISSED'})")
            print(f"          same launches: core and Python path {same_c}, Python path and re-sort {same}")
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
        print("\n4. Effect of the speed changes (627-user window, same process; the generic Python path)")
        if 627 in workloads:
            wl, pool = workloads[627]
            warm = min(a.warmup, wl.n_tasks - 2 * a.window)
            base, _, _ = run_window(wl, pool, "live_tree", warmup=warm, window=a.window, delta=delta)
            LiveTree.in_place_updates = False            # the Python path's tree (core off)
            try:
                reins, _, _ = run_window(wl, pool, "live_tree", warmup=warm, window=a.window, delta=delta)
            finally:
                LiveTree.in_place_updates = True
            print(f"   in-place update: {base:,.0f}/s; remove + re-insert: {reins:,.0f}/s "
                  f"({base / reins:.2f}x)")
            TaskScheduler.defer_finish = False
            try:
                eager, _, _ = run_window(wl, pool, "live_tree", warmup=warm, window=a.window, delta=delta)
            finally:
                TaskScheduler.defer_finish = True
            print(f"   finish() updates the queue lazily (serve-then-move): {base:,.0f}/s; at once: "
                  f"{eager:,.0f}/s ({base / eager:.2f}x)")
            sub = wl.head(_rows_for(wl, min(wl.n_tasks, 200_000)))
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
