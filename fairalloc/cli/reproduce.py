"""``fairalloc reproduce``: run a shipped reproduction of a seed paper's experiment and report against it.

Examples::

    fairalloc reproduce sdrf-fig4                       # small scale (about a minute), out/reproduce/sdrf-fig4-small
    fairalloc reproduce tvtsf --scale paper --workers 2 --out out/tvtsf-paper
    fairalloc reproduce sdrf-fig4 --scale paper --cells 'pool_fraction=0.5' --cells 'delta=null,0.999999'
    fairalloc reproduce --list

The logic is :func:`fairalloc.experiments.reproductions.reproduce`; this module parses arguments and
prints the report's claims table. The output folder holds the sweep (``sweep/``, resumable: a
killed run continues where it stopped), the figures and ``report.md``. It is named after the job
(``out/reproduce/NAME-SCALE``; ``...-cells-HASH`` for a ``--cells`` run, ``...-from-FOLDER`` for a
``--tables-from`` report), so a partial run never writes over the full run's report; the same job
resumes in its folder, another job in it needs ``--force`` (the output-folder rule of
:mod:`fairalloc.cli.conventions`). ``--format`` gives the figures' formats and table formats written
beside the CSV files (always written: ``report.md`` links them and the notebooks read them).
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

from .conventions import add_format_option, add_output_options, read_marker, resumable_folder, say, show_progress

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    from ..experiments.reproductions import NAMES, SCALES

    p = subparsers.add_parser(
        "reproduce",
        description="Run a shipped experiment spec (" + ", ".join(NAMES) + ") on the experiment layer, "
                    "write its figures (the paper's axes and units) and report.md (per claim: the "
                    "paper's number, ours, reproduced yes or no, and why not).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", choices=NAMES, metavar="NAME", help="one of: " + ", ".join(NAMES))
    p.add_argument("--scale", choices=SCALES, default="small",
                   help="small (about a minute) or paper (the papers' size where the data allows; hours)")
    add_output_options(p, default="out/reproduce/NAME-SCALE, -cells-HASH with --cells, -from-FOLDER with "
                                  "--tables-from; the same job resumes there", what="output folder")
    p.add_argument("--workers", type=int, default=0,
                   help="Dask worker processes (default 0: run the cells in this process)")
    p.add_argument("--cells", action="append", default=None, metavar="'AXIS=V,... [AXIS=V,...]'",
                   help="run only these cells of the grid (repeatable: the union), e.g. --cells "
                        "'pool_fraction=0.5' --cells 'delta=null,0.999999'; values as in the spec (null = "
                        "DRF); the report lists the cells run")
    p.add_argument("--tables-from", default=None, metavar="DIR",
                   help="run nothing: write the report from the cells of another reproduction's output "
                        "folder that are also this one's (e.g. sdrf-fig5/6 from an sdrf-fig4 run)")
    add_format_option(p)
    p.add_argument("--list", action="store_true", help="list the reproductions and exit")
    p.set_defaults(func=run)
    return p


def _job(args: argparse.Namespace) -> str:
    """What the run computes (its folder's identity): name, scale, and the cells or the source of its tables."""
    job = f"{args.name} --scale {args.scale}"
    job += "".join(f" --cells {c!r}" for c in args.cells or ())
    return job + (f" --tables-from {Path(args.tables_from).resolve()}" if args.tables_from else "")


def _default_out(args: argparse.Namespace) -> Path:
    base = f"{args.name}-{args.scale}"
    if args.cells:
        base += "-cells-" + hashlib.sha1("\n".join(args.cells).encode()).hexdigest()[:8]
    if args.tables_from:
        base += "-from-" + Path(args.tables_from).resolve().name
    return Path("out") / "reproduce" / base


def run(args: argparse.Namespace) -> int:
    from ..experiments.reproductions import NAMES, load_spec, reproduce

    if args.list or args.name is None:
        for n in NAMES:
            print(f"{n:20s} {load_spec(n)['title']}")
        return 0 if args.list else 2
    out = Path(args.out) if args.out else _default_out(args)
    ours: tuple[str, ...] = ()
    if read_marker(out) is None and (out / "sweep" / "sweep.json").is_file():
        ours = tuple(p.name for p in out.iterdir())     # a reproduction of an older fairalloc: resumed
        say(args, f"resuming in {out}, written by an older fairalloc reproduce")
    with resumable_folder(out, args, "reproduce", _job(args), ours=ours):
        path = reproduce(args.name, scale=args.scale, out=out, workers=args.workers, progress=show_progress(args),
                         cells=args.cells, tables_from=args.tables_from, formats=args.format)
    text = Path(path).read_text(encoding="utf-8").splitlines()
    say(args, "\n".join(line for line in text if line.startswith("|")), f"report: {path}")
    return 0
