"""Cost of one recomputation of the production fair-share rules, compiled with numba (issue 27).

What a simulator pays per ``PriorityCalcPeriod`` (Slurm) or negotiation cycle (HTCondor) once the
rules of :mod:`fairalloc.fairshare` run compiled: for ``--users`` users in a flat tree and under
``--accounts`` accounts,

* Slurm Fair Tree: account usage (``subtree_sum_into``), level fair share, ranking;
* Slurm classic: account usage, effective usage and factor;
* HTCondor: one RUP update of every user and one negotiation cycle (10 one-core jobs per user on a pool
  with half of them free).

Each is timed as the best of ``--repeat`` calls after a warm-up (compilation excluded), in CPU and wall
seconds, beside a baseline run in the same process: ``np.argsort`` of as many floats (the least a
ranking costs). Printed: seconds per recomputation and the ratio to the baseline.

    python benchmarks/bench_fairshare_rules.py                    # 10^3, 10^4, 10^5 users
    python benchmarks/bench_fairshare_rules.py --users 20000 --accounts 200
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from numba import njit

from fairalloc.accounts import AccountTree, subtree_sum_into
from fairalloc.fairshare import _jit, htcondor as hc, slurm


def best(fn, repeat: int) -> tuple[float, float]:
    """Best (CPU s, wall s) of ``repeat`` calls."""
    cpu, wall = math.inf, math.inf
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - w0)
    return cpu, wall


def tree_of(n_users: int, n_accounts: int, rng) -> AccountTree:
    recs = [{"account": f"a{k}", "shares": int(rng.integers(1, 10))} for k in range(n_accounts)]
    for u in range(n_users):
        acct = f"a{int(rng.integers(n_accounts))}" if n_accounts else "root"
        recs.append({"user": f"u{u}", "account": acct, "shares": int(rng.integers(1, 5))})
    return AccountTree(recs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, nargs="*", default=[1000, 10000, 100000])
    ap.add_argument("--accounts", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    _jit.register()
    sub, lev, ft = njit(subtree_sum_into), njit(slurm.level_fairshare_into), njit(slurm.fair_tree_into)
    cla = njit(slurm.classic_fairshare_into)
    rup, neg = njit(hc.rup_update_into), njit(hc.negotiate_into)
    rng = np.random.default_rng(args.seed)
    print(f"loadavg {open('/proc/loadavg').read().split()[:3]}  cpus {os.cpu_count()}")
    print(f"{'users':>7} {'accts':>5} {'rule':<22} {'CPU ms':>9} {'wall ms':>9} {'x argsort':>9}")
    for n in args.users:
        for n_acc in (0, args.accounts):
            t = tree_of(n, n_acc, rng)
            usage = rng.exponential(1.0, n) * (rng.random(n) < 0.7)
            nodes = t.n_nodes
            nu, lf, f, ef = np.empty(nodes), np.empty(nodes), np.zeros(nodes), np.empty(nodes)
            st_n, st_t = np.empty(nodes, np.int64), np.empty(nodes, np.bool_)
            keys = rng.random(n)

            def fair_tree():
                sub(t.parent, t.user_nodes, usage, nu)
                lev(t.fs_parent, t.is_user, t.use_parent, t.sibling_shares, nu, lf)
                ft(t.fs_child_ptr, t.fs_children, t.is_user, lf, t.n_users, f, st_n, st_t)

            def classic():
                sub(t.parent, t.user_nodes, usage, nu)
                cla(t.fs_parent, t.use_parent, t.raw_shares, t.level_shares, t.normalized_shares, t.preorder, nu,
                    1.0, ef, f)

            r = np.full(n, 0.5)
            rho = rng.integers(0, 8, n).astype(float)
            out = np.empty(n)
            tau = 86400.0 / math.log(2)

            def rup_update():
                rup(r, rho, 60.0, tau, 0.5, out)

            jobs = 10
            ptr = np.arange(0, (n + 1) * jobs, jobs, dtype=np.int64)
            size = np.ones(n * jobs)
            eup = rng.uniform(500, 5e5, n)

            def negotiate():
                use = rho.copy()
                neg(eup, use, ptr, size, float(n * jobs // 2), float(n * jobs // 2 + rho.sum()), math.inf, 0.0, 1.0,
                    np.zeros(n * jobs, np.bool_), np.empty(n), np.empty(n), np.empty(n, np.int64))

            def baseline():
                np.argsort(keys, kind="mergesort")

            for fn in (fair_tree, classic, rup_update, negotiate, baseline):
                fn()                                       # compile / warm up
            base_cpu, _ = best(baseline, args.repeat)
            for name, fn in (("slurm fair tree", fair_tree), ("slurm classic", classic),
                             ("htcondor rup update", rup_update), ("htcondor negotiation", negotiate),
                             ("baseline np.argsort", baseline)):
                cpu, wall = best(fn, args.repeat)
                print(f"{n:>7} {n_acc:>5} {name:<22} {cpu * 1e3:>9.3f} {wall * 1e3:>9.3f} {cpu / max(base_cpu, 1e-9):>9.1f}")


if __name__ == "__main__":
    main()
