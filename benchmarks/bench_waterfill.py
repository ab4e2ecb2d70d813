"""Water-filling sweep vs iterated LPs, and the sweep vs the sorting floor (issue 2's benchmark).

Run: ``python benchmarks/bench_waterfill.py`` (about a minute; ``--quick`` for a smaller run).

Part 1, n = 10, 100, 1000 users, 3 resources, random positive demands and commitments: time of
``fa.sdrf(method="waterfill")`` and ``fa.sdrf(method="lp")`` (HiGHS through cvxpy, unless
``--solver``), their ratio and the largest difference of the normalised allocations.
Target: waterfill >= 300x faster than lp at n = 1000.

Part 2, n = 10^4, 10^5, 10^6: ``fa.sdrf`` (the whole public call: validation, formulas, sweep,
result) and the engine alone (``_waterfill.waterfill``), each against one ``np.argsort`` of 2n
float64 keys timed in the same run (the physical floor: the sweep sorts 2n breakpoints).
Target: <= 3x that argsort at n = 10^6.

Both parts run twice: on positive demands (the issue's setting: one freezing round), and with 20%
zero demands, where lexicographic filling needs more rounds (each round sorts and searches again;
the iterated-LP method needs more LPs too).

Times are the best of ``--repeat`` runs (minimum wall time), all measured in this process.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fairalloc as fa
from fairalloc import shares
from fairalloc.mechanisms._waterfill import waterfill


def best_time(fn, repeat: int, number: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def instance(n: int, m: int, rng: np.random.Generator, zeros: float = 0.0):
    """Uniform random demands (a fraction ``zeros`` of entries set to 0) and commitments in [0, 1/n)."""
    d = rng.uniform(0.0, 1.0, size=(n, m))
    d[rng.uniform(size=(n, m)) < zeros] = 0.0
    empty = ~(d > 0).any(axis=1)
    d[empty, rng.integers(0, m, size=empty.sum())] = rng.uniform(0.1, 1.0, size=empty.sum())
    c = rng.uniform(0.0, 1.0 / n, size=(n, m))
    return fa.Instance(d, capacities=rng.uniform(1.0, 5.0, size=m)), c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    ap.add_argument("--solver", default="highs", help="LP backend for method='lp' (default highs)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    m = 3
    print(f"fairalloc {fa.__version__}, numpy {np.__version__}, LP solver {args.solver}")
    for zeros in (0.0, 0.2):
        part1(args, rng, m, zeros)
    for zeros in (0.0, 0.2):
        part2(args, rng, m, zeros)


def part1(args, rng, m, zeros):
    print(f"\n== Part 1: waterfill vs iterated LPs (3 resources, random commitments, {zeros:.0%} zero demands) ==")
    print(f"{'n':>6} {'waterfill':>12} {'lp':>12} {'ratio':>8} {'LPs':>4} {'max |diff|':>11}")
    ratios = {}
    for n in ([10, 100] if args.quick else [10, 100, 1000]):
        inst, c = instance(n, m, rng, zeros)
        wf = fa.sdrf(inst, c)
        lp = fa.sdrf(inst, c, method="lp", solver=args.solver)
        diff = np.abs(shares.normalized_demands(wf.allocation - lp.allocation, inst.capacities)).max()
        t_wf = best_time(lambda: fa.sdrf(inst, c), args.repeat, number=50)
        t_lp = best_time(lambda: fa.sdrf(inst, c, method="lp", solver=args.solver), max(2, args.repeat // 2))
        ratios[n] = t_lp / t_wf
        print(f"{n:>6} {t_wf * 1e6:>10.1f}us {t_lp * 1e3:>10.2f}ms {t_lp / t_wf:>8.0f} "
              f"{lp.stats['n_solves']:>4} {diff:>11.2e}")
    if 1000 in ratios:
        verdict = "met" if ratios[1000] >= 300 else "MISSED"
        print(f"target waterfill >= 300x lp at n=1000: {verdict} ({ratios[1000]:.0f}x)")


def part2(args, rng, m, zeros):
    print(f"\n== Part 2: waterfill vs one argsort of 2n float64 keys (same run; {zeros:.0%} zero demands) ==")
    print(f"{'n':>9} {'fa.sdrf':>10} {'engine':>10} {'argsort 2n':>11} {'sdrf/sort':>10} {'engine/sort':>12} {'rounds':>7}")
    sizes = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    last = None
    for n in sizes:
        inst, c = instance(n, m, rng, zeros)
        a = inst.normalized_demands
        mu = shares.dominant_shares(a)
        v = shares.demand_vectors(a, mu)
        b = shares.dominant_commitment(c)
        w = np.ones(n)
        keys = rng.uniform(size=2 * n)
        reps = args.repeat if n < 10**6 else max(3, args.repeat // 2)
        t_sort = best_time(lambda: np.argsort(keys), reps)
        t_eng = best_time(lambda: waterfill(v, mu, b, w), reps)
        t_all = best_time(lambda: fa.sdrf(inst, c), reps)
        rounds = fa.sdrf(inst, c).stats["rounds"]
        last = (n, t_all / t_sort)
        print(f"{n:>9} {t_all * 1e3:>8.2f}ms {t_eng * 1e3:>8.2f}ms {t_sort * 1e3:>9.2f}ms "
              f"{t_all / t_sort:>10.2f} {t_eng / t_sort:>12.2f} {rounds:>7}")
    if last and last[0] == 10**6:
        verdict = "met" if last[1] <= 3 else "MISSED"
        print(f"target fa.sdrf <= 3x argsort at n=1e6: {verdict} ({last[1]:.2f}x)")


if __name__ == "__main__":
    main()
