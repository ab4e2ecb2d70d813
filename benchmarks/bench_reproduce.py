"""Benchmark of ``fairalloc reproduce``: wall time of every shipped reproduction at ``--scale small``,
and of one paper-scale SDRF cell (10^6 tasks, 627 users, pool 50% of R, delta = 1-10^-6) with its
peak memory.

Each measurement runs in a fresh process (``ru_maxrss`` then belongs to that run alone), cells in
that process one after the other (``workers=0``), or on ``--workers`` Dask workers. The machine is
shared: the script prints ``uptime`` before and after, and, as a same-run ratio, each reproduction's
time over the time of its cells' sum as the sweep recorded it (how much is the sweep and report
overhead). Estimates of a whole ``--scale paper`` run are printed from the measured cell times and
the paper-scale cell counts (not run here: hours).

    python benchmarks/bench_reproduce.py                      # every small reproduction + the 10^6 cell
    python benchmarks/bench_reproduce.py --names sdrf-fig5 --no-big
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import subprocess
import tempfile
import time


def _reproduce(name: str, workers: int, queue: "mp.Queue") -> None:
    from fairalloc.experiments.reproductions import reproduce

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        reproduce(name, scale="small", out=d, workers=workers)
        dt = time.perf_counter() - t0
        from fairalloc.experiments import load
        c = load(f"{d}/sweep", "cells").df()
        cell_s = float(c["wall_s"].sum()) if "wall_s" in c else float("nan")
        n = len(c)
    queue.put((name, dt, cell_s, n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))


def _big_cell(n_tasks: int, delta: float | None, queue: "mp.Queue") -> None:
    from fairalloc.experiments.reproductions import sdrf

    t0 = time.perf_counter()
    wl = sdrf.workload(n_users=627, n_tasks=n_tasks, horizon=2505600.0, rng=0, params="subset")   # as the paper spec
    t1 = time.perf_counter()
    out = sdrf.cell(wl, pool_fraction=0.5, delta=delta)
    t2 = time.perf_counter()
    r = out["runs"].iloc[0]
    queue.put((t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
               int(r["swaps"]), float(r["events_per_1000"]), out["users"][["user", "mean_wait"]]))


def _run(target, *args):
    q: mp.Queue = mp.Queue()
    p = mp.Process(target=target, args=(*args, q))
    p.start()
    res = q.get()
    p.join()
    return res


def main() -> None:
    from fairalloc.experiments.reproductions import NAMES, load_spec, scale_spec

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--names", nargs="*", default=list(NAMES))
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--no-big", action="store_true", help="skip the 10^6-task SDRF cell")
    ap.add_argument("--big-tasks", type=int, default=1_000_000)
    args = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    per_cell = {}
    print(f"{'reproduction':20s} {'cells':>6s} {'wall s':>8s} {'cells s':>8s} {'wall/cells':>10s} {'peak MB':>8s}")
    for name in args.names:
        n, dt, cell_s, cells, peak = _run(_reproduce, name, args.workers)
        per_cell[name] = cell_s / max(cells, 1)
        print(f"{n:20s} {cells:6d} {dt:8.1f} {cell_s:8.1f} {dt / cell_s:10.2f} {peak:8.0f}")
    if not args.no_big:
        import numpy as np
        import pandas as pd
        from fairalloc.experiments.reproductions import sdrf
        users = []
        for delta in (None, 1 - 1e-6):
            build, sim, peak, swaps, ev, u = _run(_big_cell, args.big_tasks, delta)
            label = "DRF" if delta is None else "SDRF 1-10^-6"
            print(f"one {args.big_tasks:.0e}-task cell, {label}, pool 50% of R: workload {build:.1f} s, "
                  f"cell {sim:.1f} s, peak {peak:.0f} MB, live-tree events {swaps} ({ev:.3f} per 1000)")
            users.append(u.assign(pool_fraction=0.5, delta=np.nan if delta is None else delta))
        red = sdrf.wait_reduction(pd.concat(users, ignore_index=True)).iloc[0]
        print(f"Fig. 4's metric for that pair of cells: {red['reduction']:.1f}% over {int(red['users'])} users "
              f"(global mean wait: {red['global_reduction']:.1f}%)")
    print("paper-scale cell counts (estimate = cells x measured small-scale seconds per cell is NOT the paper "
          "time: paper cells are larger; see the report):")
    for name in args.names:
        s = load_spec(name)
        print(f"  {name:20s} small {len(scale_spec(s, 'small').cells()):5d} cells, "
              f"paper {len(scale_spec(s, 'paper').cells()):5d} cells")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
