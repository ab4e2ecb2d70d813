"""Throughput of the axiom checkers (proofs_check) and of the misreport searches.

Prints, for each predicate, instances checked per second at several sizes (n <= 8 users), and the
ratio to running the DRF mechanism itself on the same instances in the same process (a baseline
that moves with the machine's load: the machine is shared, absolute rates are noisy). Divisible
predicates run on DRF allocations of random pooled instances (with zero demands and caps, so the
Pareto checks have work to do); integer predicates on hand-built feasible integer allocations of
random task instances (greedy fill in random order). Misreport searches: lies tried per second for
DRF and SDRF. Target (issue 6): >= 200 instances/s for the SI, EF and PO predicates on divisible
mechanisms.

Phase B (the indivisible, server and time-varying rows): the integer predicates on the allocations
of the registered mechanisms (DRF task filling stop/skip, sequential min-max, integer TSF, divisible
TSF), with the mechanism's own run rate as the same-process baseline; the time-varying predicates
(over the horizon and per slot) on TV-TSF schedules (greedy, the program slot by slot, the program
over the horizon); lies tried per second on task and time-varying instances.

    python benchmarks/bench_checks.py              # default sizes
    python benchmarks/bench_checks.py --quick      # fewer instances (smoke test)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fairalloc as fa
from proofs_check import axioms
from proofs_check.misreports import find_profitable_misreport

TARGET = 200.0


def pooled(rng, n, m):
    d = rng.uniform(0.05, 1.0, (n, m)) * (rng.random((n, m)) < 0.8)
    d[np.arange(n), rng.integers(0, m, n)] = rng.uniform(0.2, 1.0, n)      # every user needs something
    total = np.where(rng.random(n) < 0.5, 2.0, rng.uniform(0.05, 1.0, n))   # half capped
    return fa.Instance(d / d.max(axis=1, keepdims=True) * total[:, None])


def tasks(rng, n, M, K):
    caps = rng.integers(4, 12, (M, K)).astype(float)
    d = rng.integers(0, 4, (n, K)).astype(float)
    d[np.arange(n), rng.integers(0, K, n)] = rng.integers(1, 4, n)
    P = rng.random((n, M)) < 0.7
    P[np.arange(n), rng.integers(0, M, n)] = True
    ti = fa.TaskInstance(caps, d, rng.integers(1, 6, n), P)
    left = caps.copy()
    x = np.zeros((n, M))
    for i in rng.permutation(n):
        for l in rng.permutation(M):
            if P[i, l]:
                k = int(min(ti.tasks[i] - x[i].sum(), fa.shares.tasks_that_fit(left[l], d[i])))
                k = int(rng.integers(0, k + 1)) if k > 0 else 0
                x[i, l] += k
                left[l] -= k * d[i]
    return ti, x


def rate(fn, items) -> float:
    t0 = time.perf_counter()
    for it in items:
        fn(*it)
    return len(items) / (time.perf_counter() - t0)


def tv_instance(rng, n, M, T):
    caps = rng.integers(4, 12, (M, 2)).astype(float)
    d = rng.integers(0, 4, (n, T, 2)).astype(float)
    d[:, :, 0] = np.maximum(d[:, :, 0], 1)
    P = rng.random((n, M)) < 0.7
    P[np.arange(n), rng.integers(0, M, n)] = True
    return fa.TimeVaryingInstance(caps, d, rng.integers(0, 4, (n, T)), rng.integers(1, 3, n), P)


def phase_b(rng, count) -> None:
    from fairalloc.scheduling import cdrf_greedy, drf_greedy

    print("\n== phase B: integer predicates on the new mechanisms' allocations, instances/s "
          "(ratio = predicate rate / mechanism rate) ==")
    mechs = {"DRF filling, stop": lambda t: drf_greedy(t, blocking="stop"),
             "DRF filling, skip": lambda t: drf_greedy(t, blocking="skip"),
             "sequential min-max": cdrf_greedy,
             "TSF integer (MILP)": lambda t: fa.exact.tasks_leximin(t, mechanism="tsf", solver="highs"),
             "TSF divisible (LP)": lambda t: fa.tsf(t, solver="highs")}
    n_inst = max(10, count // 10)
    insts = {k: [tasks(rng, *k)[0] for _ in range(n_inst)] for k in [(4, 2, 2), (8, 3, 2)]}
    preds = {"SI": lambda t, r, div: axioms.has_sharing_incentive(t, r, divisible=div, atol=1e-6),
             "EF": lambda t, r, div: axioms.is_envy_free(t, r, divisible=div, atol=1e-6),
             "EF1 remove": lambda t, r, div: axioms.is_ef1(t, r) if not div else None,
             "non-wasteful": lambda t, r, div: axioms.is_non_wasteful(t, r, divisible=div, atol=1e-6),
             "PO strong (MILP/LP)": lambda t, r, div: axioms.is_pareto_efficient(t, r, divisible=div, atol=1e-6),
             "EF any placement": lambda t, r, div: axioms.is_envy_free(t, r, divisible=div, placement="any",
                                                                       atol=1e-6)}
    for k, ts in insts.items():
        print(f"-- n={k[0]} users, M={k[1]} servers, K={k[2]} resources, {len(ts)} instances")
        print(f"{'mechanism':22s}{'runs/s':>9s}" + "".join(f"{p:>22s}" for p in preds))
        for name, fn in mechs.items():
            div = "divisible" in name
            base = rate(fn, [(t,) for t in ts])
            res = [(t, fn(t)) for t in ts]
            cells = []
            for p, pf in preds.items():
                if div and p == "EF1 remove":
                    cells.append("-")
                    continue
                r = rate(lambda t, x, pf=pf: pf(t, x, div), res)
                cells.append(f"{r:.0f} ({r / base:.1f}x)")
            print(f"{name:22s}{base:9.0f}" + "".join(f"{c:>22s}" for c in cells))

    print("\n== phase B: time-varying predicates on TV-TSF schedules, instances/s (ratio to the mechanism) ==")
    tvm = {"greedy (Alg. 1-5)": lambda tv: fa.tvtsf(tv, method="greedy"),
           "program per slot": lambda tv: fa.tvtsf(tv, method="milp-online", solver="highs"),
           "program, horizon": lambda tv: fa.tvtsf(tv, method="milp", solver="highs")}
    tpreds = {"SI cum.": dict(f=axioms.has_sharing_incentive, scope="cumulative"),
              "EF cum.": dict(f=axioms.is_envy_free, scope="cumulative"),
              "EF1 cum.": dict(f=axioms.is_ef1, scope="cumulative"),
              "PO cum. (MILP)": dict(f=axioms.is_pareto_efficient, scope="cumulative"),
              "PO per slot": dict(f=axioms.is_pareto_efficient, scope="per-slot"),
              "no waste cum.": dict(f=axioms.is_non_wasteful, scope="cumulative")}
    for n, M, T in [(3, 2, 3), (6, 2, 4)]:
        tvs = [tv_instance(rng, n, M, T) for _ in range(max(10, count // 15))]
        print(f"-- n={n}, M={M}, T={T} slots, {len(tvs)} instances")
        print(f"{'mechanism':20s}{'runs/s':>9s}" + "".join(f"{p:>18s}" for p in tpreds))
        for name, fn in tvm.items():
            base = rate(fn, [(tv,) for tv in tvs])
            res = [(tv, fn(tv)) for tv in tvs]
            cells = []
            for p, spec in tpreds.items():
                r = rate(lambda tv, x, spec=spec: spec["f"](tv, x, scope=spec["scope"]), res)
                cells.append(f"{r:.0f} ({r / base:.1f}x)")
            print(f"{name:20s}{base:9.0f}" + "".join(f"{c:>18s}" for c in cells))

    print("\n== phase B: lies tried per second (budget 40 per user, 8 instances) ==")
    for label, fn, make in [
            ("DRF filling, stop (n=3, M=2)", lambda t: drf_greedy(t, blocking="stop"), lambda: tasks(rng, 3, 2, 2)[0]),
            ("TV-TSF greedy (n=3, M=2, T=3)", lambda tv: fa.tvtsf(tv, method="greedy"), lambda: tv_instance(rng, 3, 2, 3)),
            ("TV-TSF per slot (n=3, M=2, T=3)", lambda tv: fa.tvtsf(tv, method="milp-online", solver="highs"),
             lambda: tv_instance(rng, 3, 2, 3))]:
        t0 = time.perf_counter()
        tried = runs = 0
        for _ in range(8):
            v = find_profitable_misreport(fn, make(), budget=40, rng=0)
            tried += v.stats.get("lies_tried", 0)
            runs += v.stats.get("mechanism_runs", 0)
        el = time.perf_counter() - t0
        print(f"{label:34s}: {tried / el:8.0f} lies/s ({tried} lies and {runs} mechanism runs in {el:.2f} s)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=300, help="instances per size")
    ap.add_argument("--quick", action="store_true", help="60 instances per size")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    count = 60 if args.quick else args.instances
    rng = np.random.default_rng(args.seed)
    misses = []

    print("== divisible pooled predicates (DRF allocations), instances/s; ratio = rate / fa.drf rate ==")
    preds = {
        "SI": lambda i, r: axioms.has_sharing_incentive(i, r),
        "EF": lambda i, r: axioms.is_envy_free(i, r),
        "PO strong (certificate)": lambda i, r: axioms.is_pareto_efficient(i, r),
        "PO weak (certificate)": lambda i, r: axioms.is_pareto_efficient(i, r, variant="weak"),
        "PO strong (LP, HiGHS)": lambda i, r: axioms.is_pareto_efficient(i, r, method="lp"),
        "bottleneck": lambda i, r: axioms.is_bottleneck(i, r),
        "non-wasteful": lambda i, r: axioms.is_non_wasteful(i, r),
        "PM (re-runs DRF n times)": lambda i, r: axioms.is_population_monotone(fa.drf, i),
        "RM (re-runs DRF 2m times)": lambda i, r: axioms.is_resource_monotone(fa.drf, i),
    }
    print(f"{'predicate':28s}" + "".join(f"{f'n={n},m={m}':>16s}" for n, m in [(2, 2), (4, 3), (8, 4)]))
    sizes = {(n, m): [pooled(rng, n, m) for _ in range(count)] for n, m in [(2, 2), (4, 3), (8, 4)]}
    base = {k: rate(lambda i: fa.drf(i), [(i,) for i in v]) for k, v in sizes.items()}
    items = {k: [(i, fa.drf(i)) for i in v] for k, v in sizes.items()}
    print(f"{'baseline: fa.drf itself':28s}" + "".join(f"{base[k]:16.0f}" for k in sizes))
    for name, fn in preds.items():
        cells = []
        for k in sizes:
            r = rate(fn, items[k])
            cells.append(f"{r:9.0f} ({r / base[k]:.2f}x)")
            if name.split(" (")[0] in ("SI", "EF", "PO strong", "PO weak") and "LP" not in name and r < TARGET:
                misses.append(f"{name} at {k}: {r:.0f}/s")
        print(f"{name:28s}" + "".join(f"{c:>16s}" for c in cells))

    print("\n== exact mode (fractions), n=4, m=3, instances/s ==")
    ex = items[(4, 3)][: max(20, count // 5)]
    for name, fn in {"SI exact": lambda i, r: axioms.has_sharing_incentive(i, r, exact=True, atol=1e-9),
                     "EF exact": lambda i, r: axioms.is_envy_free(i, r, exact=True, atol=1e-9),
                     "PO exact": lambda i, r: axioms.is_pareto_efficient(i, r, exact=True, atol=1e-9)}.items():
        print(f"{name:28s}{rate(fn, ex):16.0f}")

    print("\n== integer predicates on hand-built allocations (task instances), instances/s ==")
    tsz = [(2, 2, 2), (4, 3, 2), (8, 3, 2)]
    tin = {k: [tasks(rng, *k) for _ in range(max(20, count // 3))] for k in tsz}
    ipreds = {
        "SI": lambda t, x: axioms.has_sharing_incentive(t, x),
        "EF (given placement)": lambda t, x: axioms.is_envy_free(t, x),
        "EF1 remove": lambda t, x: axioms.is_ef1(t, x),
        "EF1 gain": lambda t, x: axioms.is_ef1(t, x, variant="gain"),
        "non-wasteful": lambda t, x: axioms.is_non_wasteful(t, x),
        "PO strong (MILP)": lambda t, x: axioms.is_pareto_efficient(t, x),
        "PO weak (MILP)": lambda t, x: axioms.is_pareto_efficient(t, x, variant="weak"),
        "EF any placement (MILP)": lambda t, x: axioms.is_envy_free(t, x, placement="any"),
    }
    print(f"{'predicate':28s}" + "".join(f"{f'n={n},M={M},K={K}':>16s}" for n, M, K in tsz))
    for name, fn in ipreds.items():
        print(f"{name:28s}" + "".join(f"{rate(fn, tin[k]):16.0f}" for k in tsz))

    print("\n== misreport search: lies tried per second (budget 100 per user) ==")
    for mech, label, comm in [(fa.drf, "DRF", False), (fa.sdrf, "SDRF", True)]:
        for n, m in [(2, 2), (4, 3), (8, 4)]:
            insts = sizes[(n, m)][:10]
            t0 = time.perf_counter()
            tried = 0
            for inst in insts:
                c = rng.uniform(0, 0.3, (n, m)) if comm else None
                v = find_profitable_misreport(mech, inst, commitments=c, budget=100, rng=0)
                tried += v.stats["lies_tried"]
            el = time.perf_counter() - t0
            print(f"{label:5s} n={n} m={m}: {tried / el:8.0f} lies/s ({tried} lies, {el:.2f} s; "
                  f"{base[(n, m)]:.0f} DRF runs/s baseline)")

    phase_b(rng, count)

    print("\n== target: >= 200 instances/s for SI, EF, PO on divisible allocations ==")
    print("MET" if not misses else "MISSED: " + "; ".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
