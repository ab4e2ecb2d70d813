"""Divisible TSF (``fairalloc.exact.tsf_lp.divisible_tsf``) per call: linprog directly against cvxpy.

The static TSF baseline of the TV-TSF reproduction (``tsf-static``) solves one divisible TSF per slot
on the slot's free capacity. This script times that one algorithm through its two LP routes on the
same slot-sized instances (the Table 3 cluster, ``--users`` users with Alibaba-like demands, each
server eligible with probability 0.5, the largest servers always, 1..``--tasks`` pending tasks):
``solver="scipy"`` (``scipy.optimize.linprog`` with HiGHS on the sparse matrices, what the slot loop
uses) and ``solver="highs"`` (the same matrices through cvxpy to HiGHS, the default of
``fa.tsf(method="lp")``). It checks that both give the same task totals and prints the mean seconds
per call, LPs per call and the same-run ratio. The machine is shared: ``uptime`` is printed.

    python benchmarks/bench_divisible_tsf.py                    # 20 instances of 40 users
    python benchmarks/bench_divisible_tsf.py --users 100 --instances 5
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=40)
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--instances", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    import fairalloc as fa
    from fairalloc.exact.tsf_lp import divisible_tsf

    print("uptime:", os.popen("uptime").read().strip())
    cl = fa.clusters.tvtsf_table3()
    caps = cl.capacities
    rng = np.random.default_rng(a.seed)
    cases = []
    for _ in range(a.instances):
        d = np.c_[rng.choice([0.5, 1.0, 2.0, 4.0], a.users), rng.uniform(0.5, 8.0, a.users)]
        pl = rng.random((a.users, cl.n_servers)) < 0.5
        pl[:, np.all(caps == caps.max(axis=0), axis=1)] = True
        free = caps * rng.uniform(0.0, 0.6, (cl.n_servers, 1))          # a slot's free capacity
        k = rng.integers(1, a.tasks + 1, a.users)
        cases.append((free, d, k, fa.shares.monopoly_tasks(d, caps), pl))
    res = {}
    for solver in ("scipy", "highs"):
        divisible_tsf(*cases[0], solver=solver)                          # warm-up (imports, banner)
        t0 = time.perf_counter()
        out = [divisible_tsf(*c, solver=solver) for c in cases]
        res[solver] = (time.perf_counter() - t0, out)
        lps = np.mean([r.n_solves for r in out])
        print(f"{solver:6s} route: {res[solver][0] / len(cases):.4f} s per call, {lps:.1f} LPs per call, "
              f"statuses {sorted({str(r.status) for r in out})}")
    same = all(np.allclose(x.tasks.sum(axis=1), y.tasks.sum(axis=1), atol=1e-5)
               for x, y in zip(res["scipy"][1], res["highs"][1]))
    print(f"same task totals on every instance: {same}")
    print(f"cvxpy route / linprog route: {res['highs'][0] / res['scipy'][0]:.2f}x")
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
