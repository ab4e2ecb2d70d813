"""Benchmark of the exact TV-TSF program (Eq. 10): time to proven optimality, MILPs solved, speed-ups.

Random TV-TSF instances (seeded, ``fairalloc.exact.random_instances``) at users x servers x slots
sizes; max-min and leximin objectives; HiGHS and CBC; each solved twice in the same process:

* ``baseline``: the plain Eq. 10 model (errata fixed), one model, cold starts;
* ``improved``: fairalloc's defaults (warm starts between the leximin MILPs, placement components,
  aggregation of identical servers where exact, and whatever else is on by default).

``--ablation`` adds one run per improvement switched on alone over the baseline, to see what each
does. Timings on a shared machine are noisy: compare the ratios printed for the same instance and
solver, measured back to back.

Examples
--------
    python benchmarks/bench_milp.py --quick
    python benchmarks/bench_milp.py --time-limit 120 --threads 1
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --ablation --solvers highs
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

import fairalloc as fa
from fairalloc.exact.random_instances import random_time_varying_instance

BASELINE = dict(symmetry=False, aggregate=False, decompose=False, tighten=False, warm_start=False)
IMPROVEMENTS = ("warm_start", "decompose", "aggregate", "symmetry", "tighten")


def parse_size(text: str) -> tuple[int, int, int]:
    try:
        n, m, t = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} must look like 10x10x20 (users x servers x slots)")
    return n, m, t


def run_one(tv, solver: str, objective: str, options: dict, time_limit: float, threads: int | None) -> dict:
    t0 = time.perf_counter()
    r = fa.exact.tvtsf_milp(tv, objective=objective, solver=solver, time_limit=time_limit, threads=threads,
                            **options)
    wall = time.perf_counter() - t0
    return {"status": r.status.value, "seconds": wall, "n_milps": r.stats.get("n_solves", 0),
            "gap": r.stats.get("mip_gap"), "min_share": r.objective, "components": r.stats.get("n_components"),
            "variables": r.stats.get("n_variables"), "constraints": r.stats.get("n_constraints"),
            "ties": sum(c.get("tie_levels", 0) for c in r.stats.get("components", [])),
            "skipped": sum(c.get("count_skipped", 0) for c in r.stats.get("components", [])),
            "levels_proven": r.stats.get("levels_proven"), "n_users": tv.n_agents,
            "leximin": None if r.details is None or "leximin" not in r.details else r.details["leximin"]}


def fmt(res: dict) -> str:
    if res["status"] == "optimal":
        return f"{res['seconds']:7.2f}s optimal  {res['n_milps']:3d} MILPs"
    gap = "n/a" if res["gap"] is None else f"{res['gap']:.3g}"
    lv = res.get("levels_proven")
    lv = f", {lv} of {res['n_users']} leximin entries proven" if lv is not None and res.get("leximin") is None else ""
    return f"{res['seconds']:7.2f}s {res['status']:8s} {res['n_milps']:3d} MILPs gap {gap}{lv}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=lambda s: [parse_size(x) for x in s.split(",")],
                    default=[(5, 5, 10), (10, 10, 20), (20, 20, 30)], help="e.g. 5x5x10,10x10x20,20x20x30")
    ap.add_argument("--objectives", default="maxmin,leximin")
    ap.add_argument("--solvers", default="highs,cbc")
    ap.add_argument("--seeds", type=int, default=1, help="instances per size (seeds 0..n-1)")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve (default 120)")
    ap.add_argument("--threads", type=int, default=1, help="solver threads (default 1: shared machine)")
    ap.add_argument("--placement-density", type=float, default=0.7)
    ap.add_argument("--load", type=float, default=1.5, help="offered load of the random arrivals")
    ap.add_argument("--server-types", type=int, default=None,
                    help="distinct server types (default: about a third of the servers)")
    ap.add_argument("--quick", action="store_true", help="5x5x10 and 10x10x20 only, 30 s limit")
    ap.add_argument("--ablation", action="store_true", help="also each improvement alone over the baseline")
    ap.add_argument("--csv", type=Path, help="write every run to this CSV file")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes = [(5, 5, 10), (10, 10, 20)]
        args.time_limit = min(args.time_limit, 30.0)
    objectives = [o.strip() for o in args.objectives.split(",") if o.strip()]
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    configs = {"baseline": BASELINE, "improved": {}}
    if args.ablation:
        for imp in IMPROVEMENTS:
            configs[f"+{imp}"] = {**BASELINE, imp: True}
    print(f"fairalloc {fa.__version__}; solvers {solvers}; time limit {args.time_limit:g}s; threads {args.threads}")
    print(f"baseline = {BASELINE}; improved = tvtsf_milp defaults")
    rows = []
    proven_60: dict[tuple, bool] = {}
    for (n, m, t) in args.sizes:
        for seed in range(args.seeds):
            tv = random_time_varying_instance(n, m, t, rng=seed, load=args.load,
                                              placement_density=args.placement_density,
                                              n_server_types=args.server_types)
            print(f"\n== {n} users x {m} servers x {t} slots, seed {seed}: {int(tv.arrivals.sum())} tasks "
                  f"submitted, {int(tv.placement.sum())} placement edges")
            for solver in solvers:
                for obj in objectives:
                    res = {}
                    for name, opts in configs.items():
                        res[name] = run_one(tv, solver, obj, opts, args.time_limit, args.threads)
                        rows.append({"size": f"{n}x{m}x{t}", "seed": seed, "solver": solver, "objective": obj,
                                     "config": name, **{k: v for k, v in res[name].items() if k != "leximin"}})
                    base, imp = res["baseline"], res["improved"]
                    same = (base["leximin"] is None or imp["leximin"] is None
                            or np.allclose(base["leximin"], imp["leximin"]))
                    both = base["status"] == imp["status"] == "optimal"
                    ratio = f"{base['seconds'] / imp['seconds']:.2f}x" if both else "n/a (not both proven)"
                    print(f"  {solver:5s} {obj:7s} baseline {fmt(base)} | improved {fmt(imp)} | "
                          f"speed-up {ratio}{'' if same else '  LEXIMIN VECTORS DIFFER'}")
                    for name in configs:
                        if name.startswith("+"):
                            r = res[name]
                            rr = f"{base['seconds'] / r['seconds']:.2f}x" if base["status"] == r["status"] == "optimal" else "n/a"
                            print(f"        {name:12s} {fmt(r)}  vs baseline {rr}")
                    key = (n, m, t, solver, obj)
                    ok = imp["status"] == "optimal" and imp["seconds"] <= 60
                    proven_60[key] = proven_60.get(key, True) and ok
    print("\n== summary")
    for solver in solvers:
        for obj in objectives:
            sizes = [(n, m, t) for (n, m, t) in args.sizes if proven_60.get((n, m, t, solver, obj))]
            largest = max(sizes, key=lambda s: s[0] * s[1] * s[2]) if sizes else None
            print(f"  {solver:5s} {obj:7s}: largest size proven optimal within 60 s (improved): "
                  f"{'x'.join(map(str, largest)) if largest else 'none'}")
    tgt = [r for r in rows if r["size"] == "10x10x20" and r["objective"] == "leximin" and r["config"] == "improved"]
    for r in tgt:
        met = r["status"] == "optimal" and r["seconds"] <= 10
        print(f"  target 10x10x20 leximin <= 10 s ({r['solver']}, seed {r['seed']}): "
              f"{'met' if met else 'MISSED'} ({r['seconds']:.2f}s, {r['status']})")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"  rows written to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
