"""``fairalloc sweep``: run an experiment spec's cells on Dask into a resumable results folder.

Examples::

    fairalloc sweep examples/sweep_lublin.yaml --out out/lublin             # one worker per core
    fairalloc sweep examples/sweep_lublin.yaml --out out/lublin --workers 2
    fairalloc sweep examples/sweep_sdrf.yaml --out out/sdrf --scheduler tcp://10.0.0.5:8786

Run it again with the same ``--out`` after an interruption: cells already done are skipped. The
spec format is in :mod:`fairalloc.experiments.spec`; read the results with ``fairalloc results``.
Exit status 0 when every cell is done, 1 when some failed (listed with their errors), 2 for a
wrong spec or folder.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sweep",
        description="Expand an experiment spec (YAML) into cells and run them on a local Dask cluster "
                    "(one worker per core) or an existing one (--scheduler); each finished cell is "
                    "written to --out at once, so a rerun skips what is done.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="spec format: fairalloc.experiments.spec (examples/sweep_*.yaml); results: "
               "fairalloc results DIR [--sql ...]")
    p.add_argument("spec", metavar="SPEC.yaml", help="experiment spec")
    p.add_argument("--out", required=True, help="results folder (created; same folder to resume)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="N",
                       help="worker processes of the local cluster (default: one per core; 0: run "
                            "the cells in this process, without Dask)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="address of a running Dask scheduler (dask scheduler; dask worker ADDRESS)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..experiments import Spec, run_sweep
    from .conventions import emit_json, say, show_progress

    spec = Spec.from_yaml(args.spec)
    if not args.quiet:
        print(f"sweep {spec.name!r}: {spec.n_cells} cells -> {args.out}", file=sys.stderr)
    summary = run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                        progress=show_progress(args))
    say(args, str(summary))
    emit_json(args, {"name": summary.name, "out": str(summary.out), "total": summary.total,
                     "done": summary.done, "skipped": summary.skipped, "failed": summary.failed,
                     "spec_changed": summary.spec_changed})
    return 0 if summary.ok else 1
