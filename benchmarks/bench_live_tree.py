"""SDRF Algorithm 1 with the live tree against re-sorting all users at every decision (same run).

A synthetic continuous-time workload drives :class:`fairalloc.scheduling.SDRFScheduler` on one pool:
every user starts with a few pending tasks (so all of them compete; ``--no-backlog`` turns this off),
then batches of small tasks (demands uniform in [lo, hi] of each of 2 resources, durations exponential)
arrive for random users at a Poisson rate chosen to keep the pool about ``--load`` busy, so queues
form and commitments matter. Both structures see exactly the same events and must produce the same
schedule (checked). Printed: scheduling decisions (tasks started) per second of time spent in the
scheduler (advance, submit, finish and schedule calls; the driver's random draws excluded) for each
structure, their ratio, and the live tree's swap events per 1000 tasks for every delta.

This is phase A's measurement; ``benchmarks/bench_sched.py`` (phase B) runs the ``google_like``
workloads of the simulator.

    python benchmarks/bench_live_tree.py --users 627 --tasks 20000
    python benchmarks/bench_live_tree.py --users 10000 --tasks 20000 --resort-tasks 1000
"""

from __future__ import annotations

import argparse
import heapq
import time

import numpy as np

from fairalloc.scheduling import SDRFScheduler


def run(structure: str, *, users: int, tasks: int, delta: float, load: float, seed: int,
        backlog: bool = True, lo: float = 0.001, hi: float = 0.01, batch: int = 4):
    rng = np.random.default_rng(seed)
    mean_d = (lo + hi) / 2
    mean_run = 100.0
    rate = load / (mean_d * mean_run * (batch + 1) / 2)          # batches per second for the load
    s = SDRFScheduler([[1.0, 1.0]], n_users=users, delta=delta, structure=structure, blocking="stop")
    ends: list[tuple[float, int, int]] = []
    seq, t, log = 0, 0.0, []
    next_arrival = rng.exponential(1 / rate)
    busy = 0.0
    for u in range(users if backlog else 0):    # every user starts with a few pending tasks
        s.submit(u, rng.uniform(lo, hi, 2), count=int(rng.integers(1, batch + 1)))
    while s.decisions < tasks:
        t_end = ends[0][0] if ends else np.inf
        t_wake = s.next_change
        t = min(next_arrival, t_end, t_wake)
        arrival = None
        if t == next_arrival:
            arrival = (int(rng.integers(users)), rng.uniform(lo, hi, 2), int(rng.integers(1, batch + 1)))
            next_arrival = t + rng.exponential(1 / rate)
        done = []
        while ends and ends[0][0] <= t:
            done.append(heapq.heappop(ends)[2])
        t0 = time.perf_counter()                 # time every scheduler call, not the driver
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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--tasks", type=int, default=20000, help="tasks to schedule with the live tree")
    p.add_argument("--resort-tasks", type=int, default=1000, help="tasks to schedule with re-sorting")
    p.add_argument("--deltas", type=float, nargs="*", default=[1 - 10 ** -k for k in (1, 3, 6)])
    p.add_argument("--load", type=float, default=1.2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-backlog", action="store_true",
                   help="do not give every user pending tasks at time 0 (few users active at once)")
    a = p.parse_args(argv)
    print(f"SDRF, {a.users} users ({'all' if not a.no_backlog else 'few'} with pending tasks from t=0), "
          f"pool of 2 resources, load {a.load}, seed {a.seed}")
    print(f"{'delta':>12} {'structure':>10} {'tasks':>7} {'decisions/s':>12} {'swaps/1000 tasks':>17}")
    for delta in a.deltas:
        res = {}
        for structure, n in (("live_tree", a.tasks), ("resort", a.resort_tasks)):
            d, busy, swaps, log = run(structure, users=a.users, tasks=n, delta=delta, load=a.load,
                                      seed=a.seed, backlog=not a.no_backlog)
            res[structure] = (d, busy, log)
            per = f"{1000 * swaps / d:.1f}" if structure == "live_tree" else "-"
            print(f"{delta:>12.7f} {structure:>10} {d:>7} {d / busy:>12.0f} {per:>17}")
        m = min(len(res["live_tree"][2]), len(res["resort"][2]))
        same = res["live_tree"][2][:m] == res["resort"][2][:m]
        ratio = (res["live_tree"][0] / res["live_tree"][1]) / (res["resort"][0] / res["resort"][1])
        print(f"{'':>12} live tree / re-sort: {ratio:.1f}x decisions per second; "
              f"same schedule on the first {m} tasks: {same}")


if __name__ == "__main__":
    main()
