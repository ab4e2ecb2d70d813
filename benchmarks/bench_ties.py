"""Index bias of the tie-break: mean task wait by user-index decile, index order vs the fair rule.

Issue 15 item 2. A ``google_like`` workload of 627 users (the SDRF paper's Google trace) and
``--tasks`` tasks (default 5*10^4) submitted over ``--days`` days (default 29, the trace's span) runs
through ``fa.simulate`` on one pool sized at ``--fraction`` (default 50%) of the workload's mean use R
(SDRF Section 7), so that a queue forms and many users sit at the same share (0: nothing running).
For each policy and tie rule it prints:

* the mean task queuing time (submission to start, days) of the users in each tenth of the user
  indices (decile 1 = the lowest indices), over the users that have tasks;
* Spearman's rank correlation between the user index and the user's mean task queuing time
  (``scipy.stats.spearmanr``), with its p-value;
* the overall mean task queuing time and the run's wall time.

``ties="index"`` is the rule before issue 15 (equal priorities to the lower index); ``ties="wait"`` the
default since (the user whose oldest pending task has waited longest, then the lower index). The issue
reported, for DRF with index ties, 0.2 days for the lowest tenth and 97 days for the highest (rank
correlation 0.86), and no such trend for SDRF (whose commitments break ties by history). The numbers
depend on the workload generator's version and seed; the comparison is within one run.

    python benchmarks/bench_ties.py                     # DRF and SDRF, both tie rules (about a minute)
    python benchmarks/bench_ties.py --policies drf --tasks 20000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

import fairalloc as fa
from fairalloc.sim import ResourcePool

DAY = 86400.0


def by_decile(users: np.ndarray, waits: np.ndarray, n_users: int) -> list[float]:
    """Mean of the per-user ``waits`` of the users in each tenth of the indices 0..n_users-1."""
    edges = np.linspace(0, n_users, 11)
    d = np.searchsorted(edges, users, side="right") - 1
    return [float(waits[d == k].mean()) if (d == k).any() else float("nan") for k in range(10)]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=627)
    p.add_argument("--tasks", type=int, default=50_000)
    p.add_argument("--days", type=float, default=29.0, help="submission span in days")
    p.add_argument("--fraction", type=float, default=0.5, help="pool size as a fraction of R")
    p.add_argument("--policies", nargs="*", default=["drf", "sdrf"])
    p.add_argument("--delta", type=float, default=1 - 1e-6, help="SDRF discount per second")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    wl = fa.workloads.google_like(a.users, a.tasks, rng=a.seed, horizon=a.days * DAY)
    pool = ResourcePool.from_workload(wl, a.fraction)
    print(f"google_like: {a.users} users, {wl.n_tasks:,} tasks in {len(wl):,} jobs over {a.days:g} days, "
          f"seed {a.seed}; pool = {a.fraction:.0%} of R = {np.round(pool.totals, 3).tolist()}; "
          "blocking 'stop', first fit")
    print("mean task queuing time per user (days), averaged over the users of each tenth of the indices\n")
    head = " ".join(f"{k:>6}" for k in range(1, 11))
    print(f"{'policy':<6} {'ties':<6} {head}   {'spearman':>8} {'p':>8} {'mean':>7} {'s':>6}")
    for pol in a.policies:
        opts = {"delta": a.delta} if pol == "sdrf" else {}
        for ties in ("index", "wait"):
            t0 = time.perf_counter()
            r = fa.simulate(wl, pool, policy=pol, ties=ties, **opts)
            dt = time.perf_counter() - t0
            u = r.task_users()
            u = u[u["mean_queuing"].notna()]
            users = u["user"].to_numpy()
            waits = u["mean_queuing"].to_numpy() / DAY
            dec = by_decile(users, waits, a.users)
            rho, pval = spearmanr(users, waits)
            mean = float(np.mean(fa.sim.task_metrics.task_queuing_times(r))) / DAY
            cells = " ".join(f"{x:>6.2f}" for x in dec)
            print(f"{pol:<6} {ties:<6} {cells}   {rho:>8.3f} {pval:>8.1e} {mean:>7.3f} {dt:>6.1f}")


if __name__ == "__main__":
    main()
