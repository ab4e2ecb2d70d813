"""What-if grid wall and CPU time on 2 workers: 3 policies x 4 half-lives x 2 traces (issue 27, Measure).

Slurm's multifactor priority (``slurm``: Fair Tree over the account tree, the half-life as
``PriorityDecayHalfLife``), HTCondor's user priority (``htcondor``: the half-life as ``PRIORITY_HALFLIFE``)
and SDRF (tau = half-life / ln 2) at 4 half-lives (1 h, 1 d, 7 d, 30 d), beside FCFS and EASY (once each),
on the KTH-SP2 and SDSC-BLUE SWF traces (first ``--head`` jobs, default all; synthetic 4-account tree;
a trace missing from ``--data`` is skipped, saying why). Each trace is one ``whatif(..., workers=2)``
call; a second call on the same folder is timed as the resume (it computes nothing). CPU time is this
process's plus its children's (the Dask workers), from ``resource``.

    nice -n 10 python benchmarks/bench_whatif.py
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path


def cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main() -> None:
    from fairalloc.experiments.whatif import whatif

    ap = argparse.ArgumentParser()
    ap.add_argument("--head", type=int, default=0, help="first N jobs of each trace (0: all)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--google-tasks", type=int, default=0,
                    help="also the pool setting: google_like with 40 users and this many tasks under DRF, TSF, "
                         "CDRF and SDRF at the 4 half-lives (0: skip)")
    ap.add_argument("--data", default=os.environ.get("FAIRALLOC_DATA", str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data")))
    ap.add_argument("--traces", default="KTH,SDSC", help="which traces, comma-separated (default KTH,SDSC)")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="keep the what-if folders in DIR/<trace> (a rerun resumes: it computes only the cells not "
                         "done; `fairalloc whatif ... --out DIR/<trace>` then writes the report and figures); "
                         "default: a temporary folder")
    a = ap.parse_args()
    traces = [t for t in ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"]
              if t.split("-")[0] in a.traces.split(",")]
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    total_w = total_c = 0.0
    cells = 0
    policies = ["fcfs", "easy", "slurm", "htcondor", "sdrf"]
    with tempfile.TemporaryDirectory() as tmp:
        d = a.out or tmp
        for t in traces:
            if not (Path(a.data) / "swf" / t).exists():
                print(f"{t} skipped: not in {Path(a.data) / 'swf'} (set FAIRALLOC_DATA or --data)")
                continue
            out = Path(d) / t.split("-")[0]
            w0, c0 = time.perf_counter(), cpu()
            s = whatif(Path(a.data) / "swf" / t, policies, half_lives=["1h", "1d", "7d", "30d"],
                       accounts="synthetic", head=a.head or None, out=out, workers=a.workers)
            w, c = time.perf_counter() - w0, cpu() - c0
            total_w += w
            total_c += c
            cells += len(s)
            sim = s["simulate_s"].sum()
            print(f"{t}: {len(s)} cells x {s['jobs'].iloc[0]} jobs: wall {w:.1f} s, CPU {c:.1f} s; simulate() inside cells "
                  f"{sim:.1f} s (ratio wall/simulate {w / sim:.2f})")
            print(f"  cells computed in this call: {s.attrs['sweep'].done}")
            print(s[["label", "half_life", "mean_wait", "mean_bsld", "jain_user", "gap_user", "jain_account",
                     "simulate_s"]].to_string(index=False))
            w0, c0 = time.perf_counter(), cpu()
            again = whatif(Path(a.data) / "swf" / t, policies, half_lives=["1h", "1d", "7d", "30d"],
                           accounts="synthetic", head=a.head or None, out=out, workers=a.workers)
            print(f"  resume: {again.attrs['sweep'].done} cells computed, wall {time.perf_counter() - w0:.1f} s, "
                  f"CPU {cpu() - c0:.1f} s")
        print(f"grid (2 traces x (fcfs, easy + slurm, htcondor, sdrf x 4 half-lives) = {cells} cells): wall {total_w:.1f} s, "
              f"CPU {total_c:.1f} s on {a.workers} workers")
        if a.google_tasks:
            wl = {"generator": "google_like", "n_users": 40, "n_tasks": a.google_tasks, "rng": 0}
            w0, c0 = time.perf_counter(), cpu()
            s = whatif(wl, ["drf", "tsf", "cdrf", "sdrf"], half_lives=["1h", "1d", "7d", "30d"], capacity={"pool": 0.9},
                       accounts="synthetic", out=Path(d) / "google", workers=a.workers)
            w, c = time.perf_counter() - w0, cpu() - c0
            print(f"google_like 40 users, {a.google_tasks} tasks, pool 0.9: {len(s)} cells: wall {w:.1f} s, CPU {c:.1f} s; "
                  f"simulate() inside cells {s['simulate_s'].sum():.1f} s")
            print(s[["label", "half_life", "mean_wait", "jain_user", "gap_user", "jain_account", "gap_account",
                     "simulate_s"]].to_string(index=False))


if __name__ == "__main__":
    main()
