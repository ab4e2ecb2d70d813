"""The leximin driver's LP-relaxation bounds (``fairalloc.exact.lp_bounds``), on against off, on the small
seeded instances of ``fairalloc compare`` (``random_instances(40, 12, rng=0)``: 40 task instances x
DRF, SDRF, TSF, CDRF and 12 TV-TSF instances): MILPs solved, users dropped from count MILPs by the
LP maxima, level MILPs proven without solving, and wall time, each configuration run ``--repeats``
times alternately in one process (a shared machine: only same-run ratios mean anything). Every
solve must be proven optimal; the leximin vectors with and without the bounds must agree.

    python benchmarks/bench_lp_bounds.py --solvers highs,cpsat --repeats 2

The dense instances are measured by ``bench_milp.py --lp-bounds``.
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


def run(insts, solver: str) -> tuple[int, float, int, int, list]:
    n = drop = lvl = 0
    vecs = []
    t0 = time.perf_counter()
    for name, inst in insts:
        if name.startswith("random-tasks"):
            rs = [fa.exact.tasks_leximin(inst, mechanism=m, solver=solver) for m in ("drf", "sdrf", "tsf", "cdrf")]
        else:
            rs = [fa.exact.tvtsf_milp(inst, solver=solver)]
        for r in rs:
            if r.status is not fa.Status.OPTIMAL:
                raise SystemExit(f"{name} {solver}: not proven ({r.message})")
            n += r.stats["n_solves"]
            for c in r.stats.get("components", []):
                drop += c.get("lp_users_dropped", 0)
                lvl += c.get("levels_skipped", 0)
            vecs.append(np.sort(r.shares if r.shares is not None else r.dominant_shares))
    return n, time.perf_counter() - t0, drop, lvl, vecs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default="highs,cpsat")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)
    insts = random_instances(40, 12, rng=0)
    print(f"fairalloc {fa.__version__}; compare's random instances (40 task x 4 mechanisms + 12 TV-TSF); "
          f"load average {os.getloadavg()[0]:.2f}")
    for solver in [s.strip() for s in args.solvers.split(",") if s.strip()]:
        res: dict[bool, list] = {True: [], False: []}
        for _ in range(args.repeats):
            for on in (False, True):
                lx._LP_BOUNDS = on
                res[on].append(run(insts, solver))
        lx._LP_BOUNDS = True
        same = all(np.allclose(a, b, atol=1e-9) for a, b in zip(res[True][0][4], res[False][0][4]))
        t_on, t_off = (np.median([r[1] for r in res[k]]) for k in (True, False))
        print(f"  {solver:5s} off: {res[False][0][0]} MILPs, {t_off:.1f}s (median) | on: {res[True][0][0]} MILPs, "
              f"{res[True][0][2]} users dropped, {res[True][0][3]} levels proven without a MILP, {t_on:.1f}s | "
              f"MILPs off/on {res[False][0][0] / res[True][0][0]:.2f}x, time off/on {t_off / t_on:.2f}x | "
              f"leximin vectors agree: {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
