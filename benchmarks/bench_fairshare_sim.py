"""Slurm fair share and HTCondor as simulator policies against FCFS and EASY, in one process (issue 27, Measure).

On KTH-SP2 (28k jobs, 100 processors, from ``../shared/data``; skipped, saying why, when absent) and on a
Lublin-Feitelson trace of ``--lublin`` jobs (256 processors, 64 users, seed 0), each policy runs once
after a warm-up on a small trace (so compilation is not timed): ``fcfs`` and ``easy`` on the compiled
loop (what ``fa.simulate`` uses for them), ``easy`` on the event engine, ``slurm`` (Fair Tree, flat tree,
7-day half-life, 5-minute passes) and ``slurm+easy`` on the compiled loop (``fa.simulate``'s default for
them) and on the event engine (the oracle; ``--events-max N`` skips those runs on traces of more than N
jobs), and ``htcondor`` (1-day half-life, 60 s cycles) on the compiled loop and on the event engine. It prints wall and CPU seconds, jobs
per CPU second, the policy's decisions (scheduler calls) per CPU second, and the CPU ratio against EASY
(compiled loop and event engine) measured in the same run; a compiled run and its event-engine run must
start every job at the same time (checked, printed). Goal (issue 27): no worse than 2x EASY's time.

    nice -n 10 python benchmarks/bench_fairshare_sim.py --lublin 1000000
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

POLICIES = [("fcfs", {}), ("easy", {}), ("easy", {"engine": "events"}), ("slurm", {}), ("slurm+easy", {}),
            ("slurm", {"engine": "events"}), ("slurm+easy", {"engine": "events"}), ("htcondor", {}),
            ("htcondor", {"engine": "events"})]


def _run(wl, capacity, policy, opts):
    import fairalloc as fa

    w0, c0 = time.perf_counter(), time.process_time()
    r = fa.simulate(wl, capacity, policy=policy, **opts)
    return time.perf_counter() - w0, time.process_time() - c0, r


def bench(name: str, wl, capacity: int, events_max: int = 0) -> None:
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(f"\n{name}: {len(wl)} jobs, {capacity} processors; load average {load}")
    base: dict[str, float] = {}
    starts: dict[str, object] = {}
    print(f"{'policy':<22}{'wall s':>9}{'CPU s':>9}{'jobs/CPU s':>12}{'decisions':>11}{'dec/CPU s':>11}"
          f"{'x EASY':>9}{'x EASY ev':>10}{'mean wait s':>13}")
    for policy, opts in POLICIES:
        if events_max and len(wl) > events_max and policy.startswith("slurm") and opts.get("engine") == "events":
            print(f"{policy + ' (events)':<22}skipped (--events-max {events_max})")
            continue
        w, c, r = _run(wl, capacity, policy, opts)
        label = policy + (" (events)" if opts.get("engine") == "events" else " (kernel)")
        if policy == "easy":
            base["events" if opts else "kernel"] = c
        dec = r.stats.get("decisions", r.stats.get("negotiations"))
        ratio = c / base["kernel"] if "kernel" in base else float("nan")
        ratio_ev = c / base["events"] if "events" in base else float("nan")
        print(f"{label:<22}{w:>9.2f}{c:>9.2f}{len(wl) / c:>12.0f}{(dec if dec is not None else float('nan')):>11.0f}"
              f"{(dec / c if dec else float('nan')):>11.0f}{ratio:>9.1f}{ratio_ev:>10.2f}"
              f"{r.jobs['wait'].mean():>13.0f}", flush=True)
        if policy.startswith("slurm") or policy == "htcondor":
            s = r.jobs["start"].to_numpy()
            if policy in starts:
                same = bool(((starts[policy] == s) | (np.isnan(s) & np.isnan(starts[policy]))).all())
                print(f"{'':<22}every start equal to the compiled run: {same}")
            starts[policy] = s


def main() -> None:
    import fairalloc as fa

    ap = argparse.ArgumentParser()
    ap.add_argument("--lublin", type=int, default=1_000_000, help="jobs of the Lublin trace (0: skip)")
    ap.add_argument("--events-max", type=int, default=0,
                    help="skip the event engine's slurm runs on traces of more jobs than this (0: never)")
    ap.add_argument("--data", default=os.environ.get("FAIRALLOC_DATA",
                                                     str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data")))
    a = ap.parse_args()
    warm = fa.workloads.lublin(2000, nodes=64, rng=1, n_users=8)
    for policy, opts in POLICIES:              # compile (or load the caches) before timing
        fa.simulate(warm, 64, policy=policy, **opts)
    kth = Path(a.data) / "swf" / "KTH-SP2-1996-2.1-cln.swf.gz"
    if kth.exists():
        bench("KTH-SP2", fa.workloads.read_swf(kth), 100, a.events_max)
    else:
        print(f"KTH-SP2 skipped: {kth} not found (set FAIRALLOC_DATA or --data)")
    if a.lublin:
        bench(f"Lublin {a.lublin}", fa.workloads.lublin(a.lublin, nodes=256, rng=0, n_users=64), 256, a.events_max)


if __name__ == "__main__":
    main()
