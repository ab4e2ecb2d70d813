"""The leximin driver's bounds and level search, one switch on against off, on the small seeded instances
of ``fairalloc compare`` (``random_instances(40, 12, rng=0)``: 40 task instances x DRF, SDRF, TSF, CDRF
and 12 TV-TSF instances): MILPs solved, LP solves, users dropped from count MILPs and level MILPs proven
without solving (by the LP relaxation and by the max-flow check), and wall time, each configuration
run ``--repeats`` times alternately in one process (a shared machine: only same-run ratios mean
anything). Every solve must be proven optimal; the leximin vectors of the two configurations must
agree.

``--switch`` picks what is compared (the rest at the library's defaults):

* ``lp`` (default): the LP-relaxation bounds (``fairalloc.exact.lp_bounds``; off also turns the
  max-flow check off, which runs only with them);
* ``flow``: the max-flow check (``solve_leximin(flow=)``, ``placement.flow_check`` /
  ``placement.tv_flow_check``), LP bounds on in both;
* ``counting``: tie levels found by count MILPs (``leximin._LEVEL_BY_COUNT`` "ties") against every
  level by the level MILP ("never").
* ``integer-first``: HiGHS's first level MILP with the level as an integer
  (``leximin._INTEGER_FIRST_LEVEL``) against the continuous level (CP-SAT is integer either way).

    python benchmarks/bench_lp_bounds.py --solvers highs,cpsat --repeats 2
    python benchmarks/bench_lp_bounds.py --switch flow --solvers highs --repeats 1

The dense instances are measured by ``bench_milp.py --lp-bounds`` / ``--counting``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import fairalloc as fa
import fairalloc.exact.leximin as lx
from fairalloc.experiments.compare import random_instances

SWITCHES = {"lp": ("_LP_BOUNDS", False, True), "flow": ("_FLOW_BOUNDS", False, True),
            "counting": ("_LEVEL_BY_COUNT", "never", "ties"),
            "integer-first": ("_INTEGER_FIRST_LEVEL", frozenset(), frozenset({"highs"}))}
KEYS = ("lp_users_dropped", "levels_skipped", "lp_solves", "lp_s", "flow_checks", "flow_users_dropped",
        "flow_levels_skipped", "flow_s", "levels_by_count", "count_rises")


def run(insts, solver: str) -> dict:
    out = {"milps": 0, "vecs": [], **{k: 0 for k in KEYS}}
    t0 = time.perf_counter()
    for name, inst in insts:
        if name.startswith("random-tasks"):
            rs = [fa.exact.tasks_leximin(inst, mechanism=m, solver=solver) for m in ("drf", "sdrf", "tsf", "cdrf")]
        else:
            rs = [fa.exact.tvtsf_milp(inst, solver=solver)]
        for r in rs:
            if r.status is not fa.Status.OPTIMAL:
                raise SystemExit(f"{name} {solver}: not proven ({r.message})")
            out["milps"] += r.stats["n_solves"]
            for c in r.stats.get("components", []):
                for k in KEYS:
                    out[k] += c.get(k, 0)
            out["vecs"].append(np.sort(r.shares if r.shares is not None else r.dominant_shares))
    out["seconds"] = time.perf_counter() - t0
    return out


def describe(r: dict) -> str:
    return (f"{r['milps']} MILPs, {r['lp_solves']} LP solves ({r['lp_s']:.1f}s), LP: {r['lp_users_dropped']} users "
            f"dropped / {r['levels_skipped']} levels proven; max-flow: {r['flow_checks']} checks ({r['flow_s']:.1f}s), "
            f"{r['flow_users_dropped']} users dropped / {r['flow_levels_skipped']} levels proven; "
            f"{r['levels_by_count']} levels by counting ({r['count_rises']} rises)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default="highs,cpsat")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--switch", choices=sorted(SWITCHES), default="lp")
    args = ap.parse_args(argv)
    insts = random_instances(40, 12, rng=0)
    attr, off, on = SWITCHES[args.switch]
    default = getattr(lx, attr)
    print(f"fairalloc {fa.__version__}; compare's random instances (40 task x 4 mechanisms + 12 TV-TSF); "
          f"switch {attr}: {off!r} vs {on!r}; load average {os.getloadavg()[0]:.2f}")
    for solver in [s.strip() for s in args.solvers.split(",") if s.strip()]:
        res: dict = {off: [], on: []}
        try:
            for _ in range(args.repeats):
                for v in (off, on):
                    setattr(lx, attr, v)
                    res[v].append(run(insts, solver))
        finally:
            setattr(lx, attr, default)
        a, b = res[off][0], res[on][0]
        same = all(np.allclose(x, y, atol=1e-9) for x, y in zip(a["vecs"], b["vecs"]))
        t_on, t_off = (float(np.median([r["seconds"] for r in res[k]])) for k in (on, off))
        print(f"  {solver:5s} {attr}={off!r}: {describe(a)}; {t_off:.1f}s (median)")
        print(f"  {solver:5s} {attr}={on!r}: {describe(b)}; {t_on:.1f}s (median)")
        print(f"  {solver:5s} MILPs {off!r}/{on!r} {a['milps'] / max(b['milps'], 1):.2f}x, time {t_off / t_on:.2f}x | "
              f"leximin vectors agree: {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
