"""Benchmark of the exact TV-TSF program (Eq. 10): time to proven optimality, solves, the two leximin drivers.

Default: **dense** instances (``dense_time_varying_instance``: placement density 0.7, 5-10 tasks per
user per active slot, durations 1-3 slots) at 10 x 10 x 20 and 20 x 20 x 30, every installed MILP
backend (HiGHS, CP-SAT, CBC), max-min and leximin, and each leximin driver back to back on every
instance (``--drivers positions,levels``: the value-aware position driver of issue 30, then today's
level and count loop, ``fairalloc.exact.leximin``). Per run: status, entries of the leximin vector
proven, wall and CPU seconds (``time.process_time``: the process's own CPU, which a loaded machine
does not inflate), solves, the load average; then the same-run ratios of the two drivers and the
issue's goals (seeds 1 and 2 of 10 x 10 x 20 leximin proven within 10 s and 30 s, every 20 x 20 x 30
max-min proven; the moonshot: every dense 10 x 10 x 20 leximin within 10 s).

Switches, all ``leximin_options``: ``--lp-bounds`` adds each driver's leximin solve with the
LP-relaxation bounds off (both drivers use them; ``--no-lp-bounds``: off everywhere); of the level
driver: ``--flow`` with the max-flow check off; ``--counting`` with every level by the level MILP
(``--level-by-count MODE`` sets the mode everywhere); ``--secondary MODE``. ``--warm`` adds each
solve with the MIP start flipped (the measurement behind ``WARM_START_DEFAULT``); ``--cuts`` each
solve with the Chvatal-Gomory capacity rows (``tvtsf_milp(cuts=True)``); ``--time-slice S`` sets the
position driver's slice; ``--stall-unsliced`` adds each position-driver solve with
``after_stall="unsliced"``; ``--first-slice S``, ``--query-solver NAME``, ``--refute-solver NAME``
and ``--refute-slice S`` set those options of the position driver (``--split-matchings N`` its
``split_matchings``; ``--no-split`` runs each position-driver solve first with ``split_matchings=0``, the
value search on a stalled position, then as configured); ``--no-refute`` runs each
position-driver solve first with the refutations from the top off (the driver before them), then as
configured, back to back; ``--threshold`` runs each position-driver solve as configured, then with ``threshold_solver="patterns"`` (the
threshold backend, :func:`fairalloc.exact.patterns.threshold_schedule`), back to back
(``--threshold-solver patterns`` sets it everywhere); ``--free-disposal`` likewise with free disposal on (``free_disposal=True``: fixed
and matched users asked for at least their counts, the default before exact counts).

``--random`` instead uses the sparse random instances (``random_time_varying_instance``) at users
x servers x slots sizes, each solved twice in the same process:

* ``baseline``: the plain Eq. 10 model (errata fixed), one model, cold starts;
* ``improved``: fairalloc's defaults (warm starts between the leximin MILPs, placement components,
  aggregation of identical servers where exact, and whatever else is on by default).

``--ablation`` adds one run per improvement switched on alone over the baseline, to see what each
does. Timings on a shared machine are noisy: compare the ratios printed for the same instance and
solver, measured back to back, and the CPU seconds. Current figures, with the commands that
produced them: ``benchmarks/RESULTS.md``.

Examples
--------
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --solvers highs --threads 2
    python benchmarks/bench_milp.py --sizes 20x20x30 --seeds 2 --solvers highs --objectives maxmin
    python benchmarks/bench_milp.py --sizes 10x10x20 --seed-list 1 --drivers positions --time-slice 4
    python benchmarks/bench_milp.py --sizes 10x10x20 --seed-list 0 --objectives maxmin --drivers positions \
        --first-slice 20 --query-solver cpsat --time-limit 900
    python benchmarks/bench_milp.py --sizes 10x10x20 --seed-list 1,2 --objectives leximin --solvers highs \
        --drivers positions --no-refute --time-limit 300
    python benchmarks/bench_milp.py --random --quick
    python benchmarks/bench_milp.py --sizes 10x10x20 --seeds 3 --ablation --solvers highs --random
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
        return {"status": "not installed", "seconds": float("nan"), "cpu": float("nan"), "n_milps": 0, "gap": None,
                "min_share": None, "levels_proven": None, "entries": None, "n_users": tv.n_agents, "leximin": None}
    t0, c0 = time.perf_counter(), time.process_time()
    r = fa.exact.tvtsf_milp(tv, objective=objective, solver=solver, time_limit=time_limit, threads=threads,
                            **options)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    lex = None if r.details is None or "leximin" not in r.details else r.details["leximin"]
    return {"status": r.status.value, "seconds": wall, "cpu": cpu, "n_milps": r.stats.get("n_solves", 0),
            "entries": (0 if objective == "leximin" else None) if lex is None else int(np.sum(lex[:, 1])),
            "driver": ",".join(sorted({c.get("driver", "?") for c in r.stats.get("components", [])})),
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
            "refutations": sum(c.get("refutations", 0) for c in r.stats.get("components", [])),
            "refuted": sum(c.get("refuted", 0) for c in r.stats.get("components", [])),
            "refute_cpu": sum(rd.get("cpu_s", 0.0) for c in r.stats.get("components", [])
                              for rd in c.get("rounds", []) if rd.get("kind") == "refute"),
            **{k: sum(c.get(k, 0) for c in r.stats.get("components", []))
               for k in ("threshold_questions", "threshold_found", "threshold_refuted", "threshold_undecided",
                         "split_positions", "split_solves", "split_known_empty")},
            "threshold_cpu": sum(c.get("threshold_cpu_ms", 0) for c in r.stats.get("components", [])) / 1000,
            "levels_proven": r.stats.get("levels_proven"), "n_users": tv.n_agents,
            "leximin": None if r.details is None or "leximin" not in r.details else r.details["leximin"]}


#: configurations besides the drivers whose proven leximin vectors are compared with the drivers'
_COMPARED = ("positions, threshold patterns", "positions, no split")


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
    if res.get("refutations"):
        lp += (f" (refutations: {res['refuted']} of {res['refutations']} proven, "
               f"{res['refute_cpu']:.1f}s CPU)")
    if res.get("threshold_questions"):
        lp += (f" (threshold backend: {res['threshold_questions']} questions, {res['threshold_found']} found, "
               f"{res['threshold_refuted']} refuted, {res['threshold_undecided']} undecided, "
               f"{res['threshold_cpu']:.1f}s CPU)")
    if res.get("split_positions"):
        lp += (f" (by matching: {res['split_positions']} positions, {res['split_solves']} solves, "
               f"{res['split_known_empty']} matchings known empty)")
    cpu = f" ({res['cpu']:.1f}s CPU)" if res.get("cpu") is not None else ""
    ent = f", {res['entries']}/{res['n_users']} entries" if res.get("entries") is not None else ""
    if res["status"] == "optimal":
        return f"{res['seconds']:7.2f}s{cpu} optimal  {res['n_milps']:3d} solves{ent}{lp}"
    gap = _gap_text(res)
    lv = res.get("levels_proven")
    lv = f", {lv} distinct leximin levels proven" if lv is not None and res["status"] != "optimal" else ""
    return f"{res['seconds']:7.2f}s{cpu} {res['status']:8s} {res['n_milps']:3d} solves {gap}{lv}{ent}{lp}"


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
    ap.add_argument("--seed-list", default=None, help="these seeds instead of 0..n-1, e.g. 1,2")
    ap.add_argument("--drivers", default="positions,levels",
                    help="leximin drivers run back to back on every instance (default: the new one, then today's)")
    ap.add_argument("--time-slice", type=float, default=None, help="the position driver's time slice (seconds)")
    ap.add_argument("--first-slice", type=float, default=None,
                    help="the position driver's slice for the first position (default: none, no search)")
    ap.add_argument("--query-solver", default=None, choices=["highs", "cpsat", "cbc"],
                    help="the position driver's second backend for queries the first left open")
    ap.add_argument("--refute-solver", default=None, choices=["auto", "highs", "cpsat", "cbc", "none"],
                    help="the position driver's refutation backend (default: the library's, 'auto'; none: off)")
    ap.add_argument("--refute-slice", type=float, default=None, help="CPU seconds per refutation attempt")
    ap.add_argument("--no-refute", action="store_true",
                    help="also each position-driver solve with the refutations from the top off (before/after)")
    ap.add_argument("--threshold-solver", default=None, choices=["patterns", "none"],
                    help="the position driver's threshold backend (leximin_options['threshold_solver'])")
    ap.add_argument("--threshold", action="store_true",
                    help="run each position-driver solve as configured, then with threshold_solver='patterns', back to back")
    ap.add_argument("--split-matchings", type=int, default=None,
                    help="the position driver's split_matchings (by matching; 0: off)")
    ap.add_argument("--no-split", action="store_true",
                    help="run each position-driver solve first with split_matchings=0 (value search), then as configured")
    ap.add_argument("--free-disposal", action="store_true",
                    help="run each position-driver solve first with free disposal on (\"at least\" counts), then "
                         "as configured, back to back")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve (default 60)")
    ap.add_argument("--threads", type=int, default=2, help="solver threads / CP-SAT workers (default 2)")
    ap.add_argument("--random", action="store_true", help="the sparse random instances, baseline vs improved")
    ap.add_argument("--warm", action="store_true", help="also each solve with the warm start flipped")
    ap.add_argument("--lp-bounds", action="store_true", help="also each leximin solve with the LP bounds off")
    ap.add_argument("--stall-unsliced", action="store_true",
                    help="also each position-driver leximin with after_stall='unsliced' (no slice after a "
                         "stalled query, instead of twice the slice)")
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
    # the level driver's switches (solve_leximin keyword options, passed as leximin_options)
    args.base_opts = {}
    if args.secondary:
        args.base_opts["secondary"] = args.secondary
    if args.level_by_count:
        args.base_opts["level_by_count"] = args.level_by_count
    if args.no_lp_bounds:
        args.base_opts["lp_bounds"] = False
    if args.time_slice is not None:
        args.base_opts["time_slice"] = args.time_slice
    if args.first_slice is not None:
        args.base_opts["first_slice"] = args.first_slice
    if args.query_solver is not None:
        args.base_opts["query_solver"] = args.query_solver
    if args.refute_solver is not None:
        args.base_opts["refute_solver"] = None if args.refute_solver == "none" else args.refute_solver
    if args.refute_slice is not None:
        args.base_opts["refute_slice"] = args.refute_slice
    if args.split_matchings is not None:
        args.base_opts["split_matchings"] = args.split_matchings
    if args.threshold_solver is not None:
        args.base_opts["threshold_solver"] = None if args.threshold_solver == "none" else args.threshold_solver
    args.driver_list = [d.strip() for d in args.drivers.split(",") if d.strip()]
    args.seed_values = ([int(v) for v in args.seed_list.split(",")] if args.seed_list else list(range(args.seeds)))
    if args.base_opts:
        print(f"leximin options: {args.base_opts}")
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
        for seed in args.seed_values:
            tv = random_time_varying_instance(n, m, t, rng=seed, load=args.load,
                                              placement_density=args.placement_density,
                                              n_server_types=args.server_types)
            print(f"\n== {n} users x {m} servers x {t} slots, seed {seed}: {int(tv.arrivals.sum())} tasks "
                  f"submitted, {int(tv.placement.sum())} placement edges")
            for solver in solvers:
                for obj in objectives:
                    res = {}
                    for name, opts in configs.items():
                        opts = {**opts, "leximin_options": args.base_opts} if args.base_opts else opts
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
    """Dense instances, every backend side by side, each leximin driver back to back (module docstring)."""
    import os

    from fairalloc.exact.leximin import WARM_START_DEFAULT

    print(f"fairalloc {fa.__version__}; dense instances; backends {solvers} (installed: "
          f"{fa.available_solvers('milp')}); drivers {args.driver_list}; time limit {args.time_limit:g}s per solve; "
          f"threads/workers {args.threads}; load average {_load()} (shared machine: compare within a run)")
    rows = []
    for (n, m, t) in args.sizes:
        for seed in args.seed_values:
            tv = dense_time_varying_instance(n, m, t, rng=seed, placement_density=args.placement_density)
            print(f"\n== dense {n} users x {m} servers x {t} slots, seed {seed}: {int(tv.arrivals.sum())} tasks "
                  f"submitted, {int(tv.placement.sum())} placement edges", flush=True)
            for obj in objectives:
                for solver in solvers:
                    confs = {d: {"leximin_options": {**args.base_opts, "driver": d}} for d in args.driver_list}
                    levels = {**args.base_opts, "driver": "levels"}
                    if args.warm and obj == "leximin" and solver in ("highs", "cpsat"):
                        confs["warm flipped"] = {"warm_start": not WARM_START_DEFAULT.get(solver, False)}
                    if args.lp_bounds and obj == "leximin":
                        for d in args.driver_list:
                            confs[f"{d}, LP bounds off"] = {"leximin_options": {**args.base_opts, "driver": d,
                                                                                "lp_bounds": False}}
                    if args.no_refute and "positions" in args.driver_list:
                        confs = {"positions, no refutation": {"leximin_options": {
                            **args.base_opts, "driver": "positions", "refute_solver": None}}, **confs}
                    if args.no_split and "positions" in args.driver_list:
                        confs = {"positions, no split": {"leximin_options": {
                            **args.base_opts, "driver": "positions", "split_matchings": 0}}, **confs}
                    if args.threshold and "positions" in args.driver_list:
                        confs["positions, threshold patterns"] = {"leximin_options": {
                            **args.base_opts, "driver": "positions", "threshold_solver": "patterns"}}
                    if args.free_disposal and "positions" in args.driver_list:
                        confs = {"positions, free disposal": {"leximin_options": {
                            **args.base_opts, "driver": "positions", "free_disposal": True}}, **confs}
                    if args.stall_unsliced and obj == "leximin" and "positions" in args.driver_list:
                        confs["positions, unsliced after a stall"] = {"leximin_options": {
                            **args.base_opts, "driver": "positions", "after_stall": "unsliced"}}
                    if args.flow and obj == "leximin":
                        confs["max-flow off"] = {"leximin_options": {**levels, "flow_bounds": False}}
                    if args.counting and obj == "leximin":
                        confs["levels by MILP"] = {"leximin_options": {**levels, "level_by_count": "never"}}
                    if args.cuts:
                        confs["cuts on"] = {"cuts": True}
                    for name, opts in confs.items():
                        res = run_one(tv, solver, obj, opts, args.time_limit, args.threads)
                        rows.append({"size": f"{n}x{m}x{t}", "seed": seed, "solver": solver, "objective": obj,
                                     "config": name, "load": _load(),
                                     **{k: v for k, v in res.items() if k != "leximin"}})
                        warm = opts.get("warm_start", WARM_START_DEFAULT.get(solver, False))
                        print(f"  {obj:7s} {solver:5s} {name:12s} (warm start {'on' if warm else 'off'}; load "
                              f"{_load()}): {fmt(res) if res['status'] != 'not installed' else 'not installed'}",
                              flush=True)
                        if name in args.driver_list or name in _COMPARED:
                            rows[-1]["leximin_vector"] = (None if res.get("leximin") is None
                                                          else np.asarray(res["leximin"]).tolist())
                ok = [r for r in rows if r["size"] == f"{n}x{m}x{t}" and r["seed"] == seed and r["objective"] == obj
                      and r["status"] == "optimal"
                      and (r["config"] in args.driver_list or r["config"] in _COMPARED)]
                if len(ok) > 1:
                    vals = {(r["solver"], r["config"]): r["min_share"] for r in ok}
                    same = np.allclose(list(vals.values()), next(iter(vals.values())), atol=1e-12)
                    vecs = [np.asarray(r["leximin_vector"]) for r in ok if r.get("leximin_vector") is not None]
                    same_vec = all(v.shape == vecs[0].shape and np.allclose(v, vecs[0], atol=1e-12) for v in vecs)
                    print(f"    proven minima agree across backends and drivers: {same} "
                          f"{vals if not same else ''}; proven leximin vectors agree: {same_vec}")
    print("\n== summary")
    for obj in objectives:
        for solver in solvers:
            for conf in args.driver_list:
                mine = [r for r in rows if r["solver"] == solver and r["objective"] == obj and r["config"] == conf]
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
                print(f"  {obj:7s} {solver:5s} {conf:9s}: {'; '.join(parts)}")
    for r in rows:
        if r["config"] in args.driver_list:
            print(f"  {r['size']} seed {r['seed']} {r['objective']:7s} {r['solver']:5s} {r['config']:9s}: "
                  f"{r['status']:9s} entries {r.get('entries')}/{r['n_users']}, {r['seconds']:.1f}s wall, "
                  f"{r['cpu']:.1f}s CPU, {r['n_milps']} solves")
    if len(args.driver_list) > 1:
        a, b = args.driver_list[0], args.driver_list[1]
        for r in rows:
            if r["config"] != a:
                continue
            other = [o for o in rows if o["config"] == b and all(o[k] == r[k] for k in ("size", "seed", "solver",
                                                                                         "objective"))]
            if other and r["status"] == other[0]["status"] == "optimal":
                print(f"  {r['size']} seed {r['seed']} {r['objective']} {r['solver']}: {b} / {a} wall "
                      f"{other[0]['seconds'] / r['seconds']:.2f}x, CPU {other[0]['cpu'] / max(r['cpu'], 1e-9):.2f}x")
    return _goal_and_csv(rows, args.driver_list[0], args.csv)


def _load() -> str:
    """The 1-, 5- and 15-minute load averages (os.getloadavg)."""
    import os

    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _goal_and_csv(rows: list[dict], config: str, path) -> int:
    """The issue's goals for ``config`` (seeds 1 and 2 of 10x10x20 leximin proven within 10 s and 30 s,
    seed 0 decided, every 20x20x30 max-min proven; the moonshot: every 10x10x20 leximin within 10 s),
    then every row to ``path`` (CSV) when given."""
    goal = {1: 10.0, 2: 30.0}
    for r in rows:
        if r["config"] != config:
            continue
        if r["size"] == "10x10x20" and r["objective"] == "leximin":
            met = r["status"] == "optimal" and r["seconds"] <= 10
            print(f"  moonshot 10x10x20 leximin proven within 10 s ({r['solver']}, seed {r['seed']}, {config}): "
                  f"{'met' if met else 'missed'} ({r['seconds']:.2f}s, {r['status']})")
            if r["seed"] in goal:
                met = r["status"] == "optimal" and r["seconds"] <= goal[r["seed"]]
                print(f"  goal seed {r['seed']} proven within {goal[r['seed']]:g} s: {'met' if met else 'missed'}")
        if r["size"] == "20x20x30" and r["objective"] == "maxmin":
            print(f"  goal 20x20x30 max-min proven (seed {r['seed']}, {r['solver']}): {r['status'] == 'optimal'}")
    if path and rows:
        keys = sorted({k for r in rows for k in r})
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        print(f"  rows written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
