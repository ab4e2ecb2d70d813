"""The leximin drivers and their switches, one setting against another, on the small seeded instances
of ``fairalloc compare`` (``random_instances(40, 12, rng=0)``: 40 task instances x DRF, SDRF, TSF, CDRF
and 12 TV-TSF instances): MILPs solved, LP solves, users dropped from count MILPs and level MILPs proven
without solving (by the LP relaxation and by the max-flow check), and wall time, each configuration
run ``--repeats`` times alternately in one process (a shared machine: only same-run ratios mean
anything). Every solve must be proven optimal; the leximin vectors of the two configurations must
agree.

``--switch`` picks what is compared (``leximin_options`` of the formulations; the rest at the
library's defaults):

* ``driver``: today's level driver (``driver="levels"``) against the value-aware position driver
  (``driver="positions"``, the default);
* ``lp`` (default): the level driver's LP-relaxation bounds (``fairalloc.exact.lp_bounds``; off also
  turns the max-flow check off, which runs only with them);
* ``flow``: the level driver's max-flow check (``solve_leximin(flow=)``, ``placement.flow_check`` /
  ``placement.tv_flow_check``), LP bounds on in both;
* ``counting``: the level driver's tie levels found by count MILPs (``level_by_count="ties"``) against
  every level by the level MILP ("never").
* ``positions-lp``: the position driver's LP bounds (``lp_bounds`` with ``driver="positions"``);
* ``refute``: the position driver without and with its refutations from the top (``refute_solver``);
* ``disposal``: the position driver with exact counts and with free disposal (``free_disposal``);
* ``split``: the position driver's stalled positions by value search (``split_matchings=0``) and by
  matching (``split_matchings=2``);
* ``integer-first``: the level driver's first level MILP with the level as an integer
  (``integer_first_level``) against the continuous level (CP-SAT is integer either way).

    python benchmarks/bench_lp_bounds.py --switch driver --solvers highs,cpsat --repeats 1
    python benchmarks/bench_lp_bounds.py --solvers highs,cpsat --repeats 2
    python benchmarks/bench_lp_bounds.py --switch flow --solvers highs --repeats 1
    python benchmarks/bench_lp_bounds.py --switch positions-lp --solvers highs --repeats 1
    python benchmarks/bench_lp_bounds.py --switch refute --solvers highs --repeats 1
    python benchmarks/bench_lp_bounds.py --switch disposal --solvers highs --repeats 1
    python benchmarks/bench_lp_bounds.py --switch split --solvers highs --repeats 1

The dense instances are measured by ``bench_milp.py --lp-bounds`` / ``--counting``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import fairalloc as fa
from fairalloc.experiments.compare import random_instances

#: switch -> (name, leximin_options of the first setting, of the second)
_LEVELS = {"driver": "levels"}
SWITCHES = {"driver": ("driver", {"driver": "levels"}, {"driver": "positions"}),
            "lp": ("lp_bounds", {**_LEVELS, "lp_bounds": False}, {**_LEVELS, "lp_bounds": True}),
            "flow": ("flow_bounds", {**_LEVELS, "flow_bounds": False}, {**_LEVELS, "flow_bounds": True}),
            "counting": ("level_by_count", {**_LEVELS, "level_by_count": "never"},
                         {**_LEVELS, "level_by_count": "ties"}),
            "positions-lp": ("lp_bounds", {"driver": "positions", "lp_bounds": False},
                             {"driver": "positions", "lp_bounds": True}),
            "refute": ("refute_solver", {"driver": "positions", "refute_solver": None},
                       {"driver": "positions", "refute_solver": "auto"}),
            "disposal": ("free_disposal", {"driver": "positions", "free_disposal": False},
                         {"driver": "positions", "free_disposal": True}),
            "split": ("split_matchings", {"driver": "positions", "split_matchings": 0},
                      {"driver": "positions", "split_matchings": 2}),
            "integer-first": ("integer_first_level", {**_LEVELS, "integer_first_level": False},
                              {**_LEVELS, "integer_first_level": True})}
KEYS = ("lp_users_dropped", "levels_skipped", "lp_solves", "lp_s", "flow_checks", "flow_users_dropped",
        "flow_levels_skipped", "flow_s", "levels_by_count", "count_rises", "users_fixed", "searches", "queries",
        "counts", "positions_by_bound", "proven_by_bound", "positions_by_lp", "lp_rounds", "lp_cpu_s", "refutations",
        "refuted", "top_stalled", "split_positions", "split_solves", "split_known_empty")


def run(insts, solver: str, opts: dict) -> dict:
    out = {"milps": 0, "vecs": [], **{k: 0 for k in KEYS}}
    t0, c0 = time.perf_counter(), time.process_time()
    for name, inst in insts:
        if name.startswith("random-tasks"):
            rs = [fa.exact.tasks_leximin(inst, mechanism=m, solver=solver, leximin_options=opts)
                  for m in ("drf", "sdrf", "tsf", "cdrf")]
        else:
            rs = [fa.exact.tvtsf_milp(inst, solver=solver, leximin_options=opts)]
        for r in rs:
            if r.status is not fa.Status.OPTIMAL:
                raise SystemExit(f"{name} {solver}: not proven ({r.message})")
            out["milps"] += r.stats["n_solves"]
            for c in r.stats.get("components", []):
                for k in KEYS:
                    out[k] += c.get(k, 0)
            out["vecs"].append(np.sort(r.shares if r.shares is not None else r.dominant_shares))
    out["seconds"] = time.perf_counter() - t0
    out["cpu"] = time.process_time() - c0
    return out


def describe(r: dict) -> str:
    return (f"{r['milps']} solves, {r['cpu']:.1f}s CPU; levels: {r['lp_solves']} LP solves ({r['lp_s']:.1f}s), "
            f"LP: {r['lp_users_dropped']} users dropped / {r['levels_skipped']} levels proven; max-flow: "
            f"{r['flow_checks']} checks ({r['flow_s']:.1f}s), {r['flow_users_dropped']} users dropped / "
            f"{r['flow_levels_skipped']} levels proven; {r['levels_by_count']} levels by counting "
            f"({r['count_rises']} rises); positions: {r['users_fixed']} users fixed by deduction, "
            f"{r['positions_by_bound']} positions by the matching bound, {r['searches']} value searches "
            f"({r['queries']} queries), {r['counts']} count fallbacks, {r['positions_by_lp']} positions by LP "
            f"bounds ({r['lp_rounds']} LPs, {r['lp_cpu_s']:.1f}s CPU), {r['refuted']} of {r['refutations']} "
            f"refutations proven, {r['top_stalled']} stalled top queries; by matching: {r['split_positions']} "
            f"positions, {r['split_solves']} solves, {r['split_known_empty']} matchings known empty")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default="highs,cpsat")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--switch", choices=sorted(SWITCHES), default="lp")
    args = ap.parse_args(argv)
    insts = random_instances(40, 12, rng=0)
    attr, off, on = SWITCHES[args.switch]
    print(f"fairalloc {fa.__version__}; compare's random instances (40 task x 4 mechanisms + 12 TV-TSF); "
          f"switch {attr}: {off} vs {on}; load average {os.getloadavg()}")
    for solver in [s.strip() for s in args.solvers.split(",") if s.strip()]:
        res: dict = {"off": [], "on": []}
        for _ in range(args.repeats):
            for key, opts in (("off", off), ("on", on)):
                res[key].append(run(insts, solver, opts))
        a, b = res["off"][0], res["on"][0]
        same = all(np.allclose(x, y, atol=1e-9) for x, y in zip(a["vecs"], b["vecs"]))
        t_on, t_off = (float(np.median([r["seconds"] for r in res[k]])) for k in ("on", "off"))
        print(f"  {solver:5s} {off}: {describe(a)}; {t_off:.1f}s wall (median)")
        print(f"  {solver:5s} {on}: {describe(b)}; {t_on:.1f}s wall (median)")
        print(f"  {solver:5s} solves first/second {a['milps'] / max(b['milps'], 1):.2f}x, wall {t_off / t_on:.2f}x, "
              f"CPU {a['cpu'] / max(b['cpu'], 1e-9):.2f}x | leximin vectors agree: {same}; load average "
              f"{os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
