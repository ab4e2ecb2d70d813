"""``fairalloc sweep``: run an experiment spec's cells on Dask into a resumable results folder.

Examples::

    fairalloc sweep examples/sweep_lublin.yaml --out out/lublin             # one worker per core
    fairalloc sweep examples/sweep_lublin.yaml --out out/lublin --workers 2
    fairalloc sweep examples/sweep_sdrf.yaml --out out/sdrf --scheduler tcp://10.0.0.5:8786
    fairalloc sweep spec.yaml --out out/x --time-limit 600                  # stop a cell after 10 min

Run it again with the same ``--out`` after an interruption: cells already done with the same
parameters and code are skipped, damaged ones run again (the summary says which). The spec format
is in :mod:`fairalloc.experiments.spec` (the docs' "Sweep spec format" page); read the results with
``fairalloc results``. Exit status 0 when every cell is done, 1 when some failed, timed out or were
lost with the cluster (listed with their errors), 2 for a wrong spec or folder, 130 on Ctrl-C (the
cells finished so far are kept).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    from .conventions import positive_float, positive_int

    p = subparsers.add_parser(
        "sweep",
        description="Expand an experiment spec (YAML) into cells and run them on a local Dask cluster "
                    "(one worker per core) or an existing one (--scheduler); each finished cell is "
                    "written to --out at once, so a rerun skips what is done.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="spec format: the docs' 'Sweep spec format' page (fairalloc.experiments.spec.SCHEMA; "
               "examples/sweep_*.yaml); results: fairalloc results DIR [--sql ...]; "
               "-v shows Dask's own log messages")
    p.add_argument("spec", metavar="SPEC.yaml", help="experiment spec")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="results folder: new or empty, or a sweep of the same spec name (resumed); anything else "
                        "is refused, saying what it holds")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="N",
                       help="worker processes of the local cluster (default: one per core; 0: run "
                            "the cells in this process, without Dask)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="address of a running Dask scheduler (dask scheduler; dask worker ADDRESS)")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="stop a cell still running after SECONDS and record it as 'timeout' (default: the "
                        "spec's time_limit, else none)")
    p.add_argument("--max-cells", type=positive_int, default=None, metavar="N",
                   help="refuse a spec of more than N cells (default 100,000: "
                        "fairalloc.experiments.spec.MAX_CELLS)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..experiments import Spec, run_sweep
    from ..experiments.runner import SweepInterrupted
    from ..experiments.spec import MAX_CELLS
    from ..experiments.store import Store
    from .conventions import EXIT_INTERRUPTED, emit_json, say, show_progress

    max_cells = args.max_cells or MAX_CELLS
    spec = Spec.from_yaml(args.spec, max_cells=max_cells)
    Store(args.out).accepts(spec.name)      # a folder it may not use is refused before the header
    if not args.quiet:
        print(f"sweep {spec.name!r}: {spec.n_cells:,} cells -> {args.out}", file=sys.stderr)
    try:
        summary = run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                            progress=show_progress(args), time_limit=args.time_limit,
                            max_cells=max_cells)
    except SweepInterrupted as exc:
        s = exc.summary
        print(f"fairalloc sweep: interrupted: {s.done} cells done in this run, {s.skipped} before, of "
              f"{s.total}; kept in {s.out} (run the same command again to finish)", file=sys.stderr)
        return EXIT_INTERRUPTED
    say(args, str(summary))
    emit_json(args, {"name": summary.name, "out": str(summary.out), "total": summary.total,
                     "done": summary.done, "skipped": summary.skipped, "failed": summary.failed,
                     "timed_out": summary.timed_out, "lost": summary.lost, "not_started": summary.not_started,
                     "cluster_lost": summary.cluster_lost, "repaired": summary.repaired,
                     "retired": summary.retired, "code_changed": summary.code_changed,
                     "spec_changed": summary.spec_changed})
    return 0 if summary.ok else 1
