"""Benchmark of the exact TV-TSF program (Eq. 10): time to proven optimality, MILPs solved, speed-ups.

Default (issue 14): **dense** instances (``dense_time_varying_instance``: placement density 0.7,
5-10 tasks per user per active slot, durations 1-3 slots) at 10 x 10 x 20 and 20 x 20 x 30, every
installed MILP backend side by side in one run (HiGHS, CP-SAT, CBC), max-min and leximin, with the
time to proven optimality, the gap at the time limit, and the largest dense size proven within 60 s.
``--warm`` adds, per backend, the same solve with the MIP start between leximin MILPs flipped
(on where the default is off and vice versa): the measurement behind
``fairalloc.exact.leximin.WARM_START_DEFAULT``.

``--lp-bounds`` adds, per backend, each leximin solve with the LP-relaxation bounds
(``fairalloc.exact.lp_bounds``) off, to count the MILPs and time they save; ``--no-lp-bounds`` turns
them off everywhere. ``--flow`` adds each leximin solve with the max-flow check off (LP bounds on);
``--counting`` each leximin solve with every level by the level MILP (tie levels by counting off;
``--level-by-count MODE`` sets the mode everywhere). ``--cuts`` adds each solve with the
Chvatal-Gomory capacity rows (``tvtsf_milp(cuts=True)``).

``--random`` instead uses the sparse random instances (``random_time_varying_instance``) at users
x servers x slots sizes, each solved twice in the same process:

* ``baseline``: the plain Eq. 10 model (errata fixed), one model, cold starts;
* ``improved``: fairalloc's defaults (warm starts between the leximin MILPs, placement components,
  aggregation of identical servers where exact, and whatever else is on by default).

``--ablation`` adds one run per improvement switched on alone over the baseline, to see what each
does. Timings on a shared machine are noisy: compare the ratios printed for the same instance and
solver, measured back to back.

Measured (issue 14)
-------------------
``python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --solvers highs,cpsat`` then
``--sizes 20x20x30 --seeds 2`` at e1a4b26, whose defaults this version keeps (60 s per solve, 2
threads / workers, 2026-11-24 on a shared 2-core machine, load average 6-10: compare within a run). CBC from a second
run (``--sizes 10x10x20 --seeds 3 --solvers highs,cpsat,cbc``, load average 9-13; CBC's code path
is the same in both). Seconds to proven optimality; otherwise FEASIBLE at the limit, with the gap of
the MILP that was stopped and the distinct leximin levels proven by then:

==========  ====  =======  ====================  ====================  ===================
size        seed  problem  HiGHS                 CP-SAT                CBC
==========  ====  =======  ====================  ====================  ===================
10x10x20    0     max-min  gap 0.039             gap 0.037             gap 0.101
10x10x20    0     leximin  gap 0.039, 0 levels   gap 0.037, 0 levels   gap 0.101, 0 levels
10x10x20    1     max-min  8.4 s                 22.7 s                gap 0.019
10x10x20    1     leximin  4 levels (11 MILPs)   0 levels (2 MILPs)    0 levels (1 MILP)
10x10x20    2     max-min  1.5 s                 1.1 s                 0.5 s
10x10x20    2     leximin  7 levels (27 MILPs)   1 level (35 MILPs)    1 level (55 MILPs)
20x20x30    0     max-min  10.2 s                6.3 s                 not run
20x20x30    0     leximin  1 level (3 MILPs)     3 levels (7 MILPs)    not run
20x20x30    1     max-min  17.9 s                17.5 s                not run
20x20x30    1     leximin  1 level (4 MILPs)     1 level (3 MILPs)     not run
==========  ====  =======  ====================  ====================  ===================

Largest dense size with every seed proven within 60 s: max-min 20 x 20 x 30 on HiGHS and CP-SAT
(10 x 10 x 20 is not: seed 0); leximin 5 x 5 x 10 on HiGHS (seeds 0 and 1 in 7.9 s and 2.7 s, 5 MILPs
each), none on CP-SAT (``--sizes 5x5x10,7x7x14 --seeds 2 --solvers highs,cpsat --objectives
leximin``, load average 7.5: CP-SAT gaps 0.33 and 3 at 5 x 5 x 10; 7 x 7 x 14 unproven on both, 1
level at most). The goal (10 x 10 x 20 dense leximin
proven within 10 s) is missed on every backend and seed. The second run had HiGHS's first level
with an integer level (``leximin._INTEGER_FIRST_LEVEL``, off by default; its comment has the
back-to-back figures): 10 x 10 x 20 max-min seed 1 6.7 s, seed 2 1.7 s, leximin seed 2 9 levels in
60 s (32 MILPs); 20 x 20 x 30 max-min seed 0 4.5 s and seed 1 not proven in 60 s (gap 0.015).

**Why (dense 10 x 10 x 20, seed 0, the max-min program that is also the first leximin level).**
The root bound is 78 scaled units (share 0.0629): user 6's own cap, all 78 tasks it submits (each
user's single-user MILP maximum is at or above 78 units). HiGHS with a continuous level finds 75.05
(0.0605) within 5 s and nothing better in 60 s; the bound never moves (2389 nodes, one restart).
Both sides are wrong, and both are hard:

* the incumbent: 75.29 (0.0607) is feasible; HiGHS found it on the fixed-level feasibility MILP
  "every user above 75.05" (objective: the sum of tasks) within 60 s, and the max-min with the
  level as an integer (``leximin._INTEGER_FIRST_LEVEL``) found it in 2 of 3 runs;
* the bound: "every user at least 78" is infeasible (HiGHS 3.5 s at the root, CP-SAT 2.0 s) and so
  is "at least 77" (HiGHS 29 s and 1978 nodes, or 13.5 s at the root with ``cuts=True``; CP-SAT
  2.6-4.1 s); "at least 76" is undecided in 60 s by HiGHS and by CP-SAT, with or without the cuts.
  So the optimum is 75.29 or 76, and the only open question is a packing feasibility question that
  neither solver decides in 60 s. The LP relaxation cannot separate it: with the integer thresholds
  of level 78 the LP is still feasible (up to 287.6 tasks in all; 286.6 with the Chvatal-Gomory rows
  of ``cuts=True``); the fixed-level refutations come from presolve and propagation on the
  thresholds, which the max-min form (the level a variable) does not get.

On seeds 1 and 2 the first level is proven in seconds, but the leximin takes 11-32 MILPs in 60 s
(seed 2, HiGHS: 17 to 21 count MILPs that each raised the second level by one achievable value,
about 0.4 s each; in one run the level MILPs after them took 9.5, 6.9, 6.9 and more than 18 s).
10 s would need every MILP about ten times faster, not one trick. Next steps: decide seed 0's
"at least 76"; fewer count MILPs per level (a bisection over the achievable values instead of one
rise per MILP); and the fixed-level feasibility form (where ``cuts=True`` and CP-SAT refute
quickly) for the first level.

Examples
--------
    python benchmarks/bench_milp.py --seeds 2 --time-limit 60
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --warm --objectives leximin
    python benchmarks/bench_milp.py --random --quick
    python benchmarks/bench_milp.py --time-limit 120 --threads 1
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --ablation --solvers highs
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 2 --warm --lp-bounds
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

import fairalloc as fa
from fairalloc.exact.random_instances import dense_time_varying_instance, random_time_varying_instance

BASELINE = dict(symmetry=False, aggregate=False, decompose=False, tighten=False, warm_start=False)
IMPROVEMENTS = ("warm_start", "decompose", "aggregate", "symmetry", "tighten")


def parse_size(text: str) -> tuple[int, int, int]:
    try:
        n, m, t = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} must look like 10x10x20 (users x servers x slots)")
    return n, m, t


def run_one(tv, solver: str, objective: str, options: dict, time_limit: float, threads: int | None) -> dict:
    if solver not in fa.available_solvers("milp"):
        return {"status": "not installed", "seconds": float("nan"), "n_milps": 0, "gap": None, "min_share": None,
                "levels_proven": None, "n_users": tv.n_agents, "leximin": None}
    t0 = time.perf_counter()
    r = fa.exact.tvtsf_milp(tv, objective=objective, solver=solver, time_limit=time_limit, threads=threads,
                            **options)
    wall = time.perf_counter() - t0
    return {"status": r.status.value, "seconds": wall, "n_milps": r.stats.get("n_solves", 0),
            "gap": r.stats.get("mip_gap"), "stopped": _stopped_round(r.stats),
            "min_share": r.objective, "components": r.stats.get("n_components"),
            "variables": r.stats.get("n_variables"), "constraints": r.stats.get("n_constraints"),
            "ties": sum(c.get("tie_levels", 0) for c in r.stats.get("components", [])),
            "skipped": sum(c.get("count_skipped", 0) for c in r.stats.get("components", [])),
            "levels_skipped": sum(c.get("levels_skipped", 0) for c in r.stats.get("components", [])),
            "lp_dropped": sum(c.get("lp_users_dropped", 0) for c in r.stats.get("components", [])),
            "lp_s": sum(c.get("lp_s", 0.0) for c in r.stats.get("components", [])),
            "by_count": sum(c.get("levels_by_count", 0) for c in r.stats.get("components", [])),
            "rises": sum(c.get("count_rises", 0) for c in r.stats.get("components", [])),
            "flow_checks": sum(c.get("flow_checks", 0) for c in r.stats.get("components", [])),
            "flow_dropped": sum(c.get("flow_users_dropped", 0) for c in r.stats.get("components", [])),
            "flow_levels": sum(c.get("flow_levels_skipped", 0) for c in r.stats.get("components", [])),
            "flow_s": sum(c.get("flow_s", 0.0) for c in r.stats.get("components", [])),
            "levels_proven": r.stats.get("levels_proven"), "n_users": tv.n_agents,
            "leximin": None if r.details is None or "leximin" not in r.details else r.details["leximin"]}


def fmt(res: dict) -> str:
    lp = ""
    if res.get("levels_skipped") or res.get("lp_dropped") or res.get("lp_s"):
        lp = (f" (LP bounds: {res['levels_skipped']} level MILPs skipped, {res['lp_dropped']} users dropped, "
              f"{res['lp_s']:.2f}s in LPs)")
    if res.get("by_count"):
        lp += f" ({res['by_count']} levels by counting, {res['rises']} count MILPs that raised a level)"
    if res.get("flow_checks"):
        lp += (f" (max-flow: {res['flow_checks']} checks, {res['flow_dropped']} users dropped, "
               f"{res['flow_levels']} level MILPs skipped, {res['flow_s']:.2f}s)")
    if res["status"] == "optimal":
        return f"{res['seconds']:7.2f}s optimal  {res['n_milps']:3d} MILPs{lp}"
    gap = _gap_text(res)
    lv = res.get("levels_proven")
    lv = f", {lv} distinct leximin levels proven" if lv is not None and res["status"] != "optimal" else ""
    return f"{res['seconds']:7.2f}s {res['status']:8s} {res['n_milps']:3d} MILPs {gap}{lv}{lp}"


def _stopped_round(stats: dict) -> dict | None:
    """The unproven round (kind, objective, bound) of the component that stopped, if any."""
    for c in stats.get("components", []):
        if c.get("status") != "optimal" and c.get("rounds"):
            last = c["rounds"][-1]
            return {"kind": last.get("kind"), "objective": last.get("objective"), "bound": last.get("bound")}
    return None


def _gap_text(res: dict) -> str:
    """'gap G' (relative, the library's) unless the stopped MILP's objective is 0 (a count MILP that
    found nobody above the level yet): a relative gap means nothing there (bound / 1e-10), so the
    absolute one, bound - objective, is printed instead; 'gap n/a' without a bound."""
    st = res.get("stopped")
    if st and st.get("objective") is not None and abs(st["objective"]) < 1e-9:
        if st.get("bound") is None:
            return f"gap n/a ({st.get('kind')} MILP at objective 0, no bound)"
        return f"absolute gap {st['bound'] - st['objective']:.3g} ({st.get('kind')} MILP at objective 0)"
    return "gap n/a" if res["gap"] is None else f"gap {res['gap']:.3g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=lambda s: [parse_size(x) for x in s.split(",")],
                    default=None, help="e.g. 10x10x20,20x20x30 (default; --random: 5x5x10,10x10x20,20x20x30)")
    ap.add_argument("--objectives", default="maxmin,leximin")
    ap.add_argument("--solvers", default="highs,cpsat,cbc")
    ap.add_argument("--seeds", type=int, default=1, help="instances per size (seeds 0..n-1)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve (default 60)")
    ap.add_argument("--threads", type=int, default=2, help="solver threads / CP-SAT workers (default 2)")
    ap.add_argument("--random", action="store_true", help="the sparse random instances, baseline vs improved")
    ap.add_argument("--warm", action="store_true", help="also each solve with the warm start flipped")
    ap.add_argument("--lp-bounds", action="store_true", help="also each leximin solve with the LP bounds off")
    ap.add_argument("--no-lp-bounds", action="store_true", help="LP-relaxation bounds off everywhere")
    ap.add_argument("--level-by-count", choices=["never", "ties", "always"], default=None,
                    help="how leximin levels after the first are found (default: the library's, 'ties')")
    ap.add_argument("--flow", action="store_true",
                    help="also each leximin solve with the max-flow check off (LP bounds on)")
    ap.add_argument("--counting", action="store_true",
                    help="also each leximin solve with every level by the level MILP (levels by counting off)")
    ap.add_argument("--cuts", action="store_true",
                    help="also each solve with the Chvatal-Gomory capacity rows (tvtsf_milp(cuts=True))")
    ap.add_argument("--secondary", choices=["never", "after-first", "always"], default=None,
                    help="where leximin levels carry the secondary objective term (default: the library's)")
    ap.add_argument("--placement-density", type=float, default=0.7)
    ap.add_argument("--load", type=float, default=1.5, help="offered load of the random arrivals")
    ap.add_argument("--server-types", type=int, default=None,
                    help="distinct server types (default: about a third of the servers)")
    ap.add_argument("--quick", action="store_true", help="5x5x10 and 10x10x20 only, 30 s limit")
    ap.add_argument("--ablation", action="store_true", help="also each improvement alone over the baseline")
    ap.add_argument("--csv", type=Path, help="write every run to this CSV file")
    args = ap.parse_args(argv)
    if args.sizes is None:
        args.sizes = [(5, 5, 10), (10, 10, 20), (20, 20, 30)] if args.random else [(10, 10, 20), (20, 20, 30)]
    if args.quick:
        args.sizes = [(5, 5, 10), (10, 10, 20)] if args.random else [(10, 10, 20)]
        args.time_limit = min(args.time_limit, 30.0)
    objectives = [o.strip() for o in args.objectives.split(",") if o.strip()]
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    if args.secondary:
        import fairalloc.exact.leximin as lx

        lx._SECONDARY = args.secondary
        print(f"leximin levels with the secondary term (z + eps * sum of values, gap delta/4): {args.secondary}")
    if args.level_by_count:
        import fairalloc.exact.leximin as lx

        lx._LEVEL_BY_COUNT = args.level_by_count
        print(f"leximin levels after the first by counting: {args.level_by_count}")
    if args.no_lp_bounds:
        import fairalloc.exact.leximin as lx

        lx._LP_BOUNDS = False
        print("leximin LP-relaxation bounds: off")
    if not args.random:
        return dense(args, solvers, objectives)
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
    return _goal_and_csv(rows, "improved", args.csv)


def dense(args, solvers: list[str], objectives: list[str]) -> int:
    """Dense instances, every backend side by side (module docstring)."""
    import os

    from fairalloc.exact.leximin import WARM_START_DEFAULT

    print(f"fairalloc {fa.__version__}; dense instances; backends {solvers} (installed: "
          f"{fa.available_solvers('milp')}); time limit {args.time_limit:g}s per solve; threads/workers "
          f"{args.threads}; load average {os.getloadavg()[0]:.2f} (shared machine: compare within a run)")
    rows = []
    for (n, m, t) in args.sizes:
        for seed in range(args.seeds):
            tv = dense_time_varying_instance(n, m, t, rng=seed, placement_density=args.placement_density)
            print(f"\n== dense {n} users x {m} servers x {t} slots, seed {seed}: {int(tv.arrivals.sum())} tasks "
                  f"submitted, {int(tv.placement.sum())} placement edges", flush=True)
            for obj in objectives:
                for solver in solvers:
                    confs = {"default": {}}
                    if args.warm and obj == "leximin" and solver in ("highs", "cpsat"):
                        confs["warm flipped"] = {"warm_start": not WARM_START_DEFAULT.get(solver, False)}
                    if args.lp_bounds and obj == "leximin":
                        confs["LP bounds off"] = {"_lp_bounds": False}
                    if args.flow and obj == "leximin":
                        confs["max-flow off"] = {"_flow_bounds": False}
                    if args.counting and obj == "leximin":
                        confs["levels by MILP"] = {"_level_by_count": "never"}
                    if args.cuts:
                        confs["cuts on"] = {"cuts": True}
                    for name, opts in confs.items():
                        res = _with_lp_bounds(opts, lambda o: run_one(tv, solver, obj, o, args.time_limit,
                                                                      args.threads))
                        rows.append({"size": f"{n}x{m}x{t}", "seed": seed, "solver": solver, "objective": obj,
                                     "config": name, **{k: v for k, v in res.items() if k != "leximin"}})
                        warm = opts.get("warm_start", WARM_START_DEFAULT.get(solver, False))
                        print(f"  {obj:7s} {solver:5s} {name:12s} (warm start {'on' if warm else 'off'}): "
                              f"{fmt(res) if res['status'] != 'not installed' else 'not installed'}", flush=True)
                ok = [r for r in rows if r["size"] == f"{n}x{m}x{t}" and r["seed"] == seed and r["objective"] == obj
                      and r["status"] == "optimal" and r["config"] == "default"]
                if len(ok) > 1:
                    vals = {r["solver"]: r["min_share"] for r in ok}
                    same = np.allclose(list(vals.values()), next(iter(vals.values())), atol=1e-12)
                    print(f"    proven minima agree across backends: {same} {vals if not same else ''}")
    print("\n== summary (default configuration)")
    for obj in objectives:
        for solver in solvers:
            mine = [r for r in rows if r["solver"] == solver and r["objective"] == obj and r["config"] == "default"]
            sized = {}
            for r in mine:
                sized.setdefault(r["size"], []).append(r)
            parts = []
            for size, rs in sized.items():
                done = [r["seconds"] for r in rs if r["status"] == "optimal"]
                gaps = [_gap_text(r) for r in rs if r["status"] != "optimal"]
                parts.append(f"{size}: {len(done)}/{len(rs)} proven"
                             + (f" (median {np.median(done):.1f}s)" if done else "")
                             + (f", at the limit: {', '.join(gaps)}" if gaps else ""))
            print(f"  {obj:7s} {solver:5s}: {'; '.join(parts)}; largest dense size with every seed proven "
                  f"within 60 s: {_largest(mine)}")
    return _goal_and_csv(rows, "default", args.csv)


def _goal_and_csv(rows: list[dict], config: str, path) -> int:
    """The issue's goal (10x10x20 leximin proven within 10 s) per backend and seed of ``config``,
    then every row to ``path`` (CSV) when given."""
    for r in rows:
        if r["size"] == "10x10x20" and r["objective"] == "leximin" and r["config"] == config:
            met = r["status"] == "optimal" and r["seconds"] <= 10
            print(f"  goal 10x10x20 leximin proven within 10 s ({r['solver']}, seed {r['seed']}, {config}): "
                  f"{'met' if met else 'missed'} ({r['seconds']:.2f}s, {r['status']})")
    if path and rows:
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"  rows written to {path}")
    return 0


def _with_lp_bounds(opts: dict, call):
    """``call(opts)`` with ``opts['_lp_bounds']`` / ``opts['_level_by_count']`` (when given) as the leximin
    driver's LP-bounds and levels-by-counting switches."""
    import fairalloc.exact.leximin as lx

    switches = {"_lp_bounds": "_LP_BOUNDS", "_level_by_count": "_LEVEL_BY_COUNT", "_flow_bounds": "_FLOW_BOUNDS"}
    old = {k: getattr(lx, a) for k, a in switches.items()}
    for k, a in switches.items():
        if k in opts:
            setattr(lx, a, opts[k])
    try:
        return call({k: v for k, v in opts.items() if k not in switches})
    finally:
        for k, a in switches.items():
            setattr(lx, a, old[k])


def _largest(rows: list[dict]) -> str:
    by: dict[str, bool] = {}
    for r in rows:
        by[r["size"]] = by.get(r["size"], True) and r["status"] == "optimal" and r["seconds"] <= 60
    ok = [s for s, v in by.items() if v]
    return max(ok, key=lambda z: np.prod([int(v) for v in z.split("x")])) if ok else "none"


if __name__ == "__main__":
    sys.exit(main())
