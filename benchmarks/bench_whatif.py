"""What-if grid wall and CPU time on 2 workers: 3 policies x 4 half-lives x 2 traces (issue 27, Measure).

Slurm's multifactor priority (``slurm``: Fair Tree over the account tree, the half-life as
``PriorityDecayHalfLife``), HTCondor's user priority (``htcondor``: the half-life as ``PRIORITY_HALFLIFE``)
and SDRF (tau = half-life / ln 2) at 4 half-lives (1 h, 1 d, 7 d, 30 d), beside FCFS and EASY (once each),
on the KTH-SP2 and SDSC-BLUE SWF traces (first ``--head`` jobs, default all; synthetic 4-account tree;
a trace missing from ``--data`` is skipped, saying why).

Each trace is one run of the command itself, ``fairalloc whatif TRACE`` with the arguments of
:func:`command` (``fairalloc.cli.main``: the same spec, folder rule, cells and report the command writes;
its output is printed as the command prints it); a second run on the same folder is timed as the
resume (it computes nothing and writes the report again). CPU time is this process's plus its
children's (the Dask workers), from ``resource``. ``--out DIR`` keeps the folders ``DIR/<trace>``: they
are the command's folders (``fairalloc whatif`` with the arguments printed resumes them).

    nice -n 10 python benchmarks/bench_whatif.py
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import tempfile
import time
from pathlib import Path

#: The grid of issue 27's Measure item, as ``fairalloc whatif`` arguments.
GRID = ("--policies", "fcfs,easy,slurm,htcondor,sdrf", "--half-lives", "1h,1d,7d,30d", "--accounts", "synthetic")
#: The pool setting (``--google-tasks``): google_like, 40 users, DRF, TSF, CDRF and SDRF at the 4 half-lives.
GOOGLE = ("--generator", "google_like", "--gen", "n_users=40", "--gen", "rng=0", "--policies", "drf,tsf,cdrf,sdrf",
          "--half-lives", "1h,1d,7d,30d", "--pool", "0.9", "--accounts", "synthetic")


def command(trace: str | Path | None, out: str | Path, *, workers: int = 2, head: int | None = None,
            google_tasks: int = 0) -> list[str]:
    """The ``fairalloc whatif`` arguments of one run of the grid: ``trace`` under :data:`GRID` (or, with
    ``google_tasks`` and no trace, :data:`GOOGLE` with that many tasks), into ``out``."""
    args = ["whatif", *((str(trace), *GRID) if trace is not None else (*GOOGLE, "--gen", f"n_tasks={google_tasks}"))]
    if head:
        args += ["--head", str(int(head))]
    return args + ["--out", str(out), "--workers", str(int(workers))]


def cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def run(argv: list[str]) -> tuple[float, float]:
    """Run ``fairalloc`` with ``argv`` (a failure stops the benchmark); returns (wall s, CPU s)."""
    from fairalloc.cli import main

    print(f"$ fairalloc {shlex.join(argv)}", flush=True)
    w0, c0 = time.perf_counter(), cpu()
    code = main([*argv, "--debug"])
    w, c = time.perf_counter() - w0, cpu() - c0
    if code:
        raise SystemExit(f"fairalloc {argv[0]} exited with status {code}")
    return w, c


def main() -> None:
    from fairalloc.experiments.whatif import whatif_tables

    ap = argparse.ArgumentParser()
    ap.add_argument("--head", type=int, default=0, help="first N jobs of each trace (0: all)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--google-tasks", type=int, default=0,
                    help="also the pool setting: google_like with 40 users and this many tasks under DRF, TSF, "
                         "CDRF and SDRF at the 4 half-lives (0: skip)")
    ap.add_argument("--data", default=os.environ.get("FAIRALLOC_DATA", str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data")))
    ap.add_argument("--traces", default="KTH,SDSC", help="which traces, comma-separated (default KTH,SDSC)")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="keep the what-if folders in DIR/<trace> (the command's folders: a rerun resumes, computing "
                         "only the cells not done); default: a temporary folder")
    a = ap.parse_args()
    traces = [t for t in ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"]
              if t.split("-")[0] in a.traces.split(",")]
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    total_w = total_c = 0.0
    cells = 0
    with tempfile.TemporaryDirectory() as tmp:
        d = a.out or tmp
        for t in traces:
            if not (Path(a.data) / "swf" / t).exists():
                print(f"{t} skipped: not in {Path(a.data) / 'swf'} (set FAIRALLOC_DATA or --data)")
                continue
            out = Path(d) / t.split("-")[0]
            argv = command(Path(a.data) / "swf" / t, out, workers=a.workers, head=a.head or None)
            w, c = run(argv)
            total_w += w
            total_c += c
            s = whatif_tables(out)["summary"]
            cells += len(s)
            sim = s["simulate_s"].sum()
            print(f"{t}: {len(s)} cells x {s['jobs'].iloc[0]} jobs: wall {w:.1f} s, CPU {c:.1f} s (the command, its "
                  f"report included); simulate() inside cells {sim:.1f} s (ratio wall/simulate {w / sim:.2f})")
            w, c = run(argv)
            print(f"  resume (the same command again): wall {w:.1f} s, CPU {c:.1f} s")
        print(f"grid (2 traces x (fcfs, easy + slurm, htcondor, sdrf x 4 half-lives) = {cells} cells): wall {total_w:.1f} s, "
              f"CPU {total_c:.1f} s on {a.workers} workers")
        if a.google_tasks:
            out = Path(d) / "google"
            w, c = run(command(None, out, workers=a.workers, google_tasks=a.google_tasks))
            s = whatif_tables(out)["summary"]
            print(f"google_like 40 users, {a.google_tasks} tasks, pool 0.9: {len(s)} cells: wall {w:.1f} s, CPU {c:.1f} s; "
                  f"simulate() inside cells {s['simulate_s'].sum():.1f} s")


if __name__ == "__main__":
    main()
