"""``fairalloc results``: print what a sweep folder holds, a table, or an SQL query over its tables.

Examples::

    fairalloc results out/lublin                       # cells by status, failures, damage, tables
    fairalloc results out/lublin --table summary
    fairalloc results out/lublin --sql "SELECT label, avg(mean_wait) FROM summary GROUP BY label"

The tables are DuckDB views named after the tables the cells wrote (``summary``, ``users``,
``jobs``, ...) plus ``cells`` (key, parameters, status, wall time, error). The overview verifies
every file against the checksum its cell recorded and names the damaged ones; ``--table`` and
``--sql`` check sizes, leave damaged cells out with a warning and still answer from the rest.
``--sql`` takes one read-only query: the connection reads no file but the sweep's tables and writes
none (``COPY``, ``ATTACH``, ``read_csv('/etc/...')`` are refused); export rows with ``--csv``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pandas as pd

from .conventions import add_format_option

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "results",
        description="Show the cells of a sweep folder by status with the failures and damaged files, one "
                    "table (--table), or the result of a read-only SQL query over its tables (--sql).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='example: fairalloc results out/sweep --sql "SELECT label, avg(mean_wait) FROM summary '
               'GROUP BY label"')
    p.add_argument("dir", metavar="DIR", help="a folder written by fairalloc sweep")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--sql", default=None, help="a read-only DuckDB query over the tables (by name) and cells")
    what.add_argument("--table", default=None, help="print one table (summary, users, jobs, cells, ...)")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="also write the rows to FILE (format: --format, else FILE's suffix: .csv, .parquet, .json)")
    p.add_argument("--csv", default=None, metavar="FILE", help="the same as --out FILE --format csv")
    p.add_argument("--force", action="store_true", help="--out / --csv: replace an existing FILE")
    add_format_option(p, figures=False)
    p.add_argument("--max-rows", type=int, default=60, help="rows printed at most (default 60; 0: all)")
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help="print nothing but the rows")
    p.set_defaults(func=run)
    return p


def _target(args: argparse.Namespace):
    """``--out FILE`` / ``--csv FILE``: the file and its table format; refused (before any query) when the
    file exists and --force is not given, or the format is unknown."""
    from pathlib import Path

    from ..errors import InvalidInstanceError
    from .conventions import DEFAULT_FORMATS, TABLE_FORMATS

    target, option = (args.csv, "--csv") if args.csv else (args.out, "--out")
    path = Path(target)
    fmt = "csv" if args.csv else (args.format.tables[0] if args.format is not DEFAULT_FORMATS
                                  else path.suffix.lstrip(".").lower() or "csv")
    if fmt not in TABLE_FORMATS:
        raise InvalidInstanceError(f"{option} {target}: no table format {fmt!r} (one of {', '.join(TABLE_FORMATS)}; "
                                   "or give --format)", argument=option, value=target)
    if path.exists() and not args.force:
        raise InvalidInstanceError(f"{option} {target}: exists; give another file, or --force to replace it",
                                   argument=option, value=target)
    return path, fmt


def _export(df: pd.DataFrame, args: argparse.Namespace) -> None:
    from .conventions import write_table

    path, fmt = _target(args)
    stem = path.with_suffix("") if path.suffix.lstrip(".").lower() == fmt else path
    written = write_table(df, stem, [fmt])[0]
    if written != path:
        written.replace(path)


def _print(df: pd.DataFrame, args: argparse.Namespace) -> None:
    from .conventions import format_table

    limit = None if args.max_rows == 0 else args.max_rows
    if args.csv or args.out:                # first: `fairalloc results ... | head` still writes the file
        _export(df, args)
    if getattr(args, "json", None) != "-":
        print(format_table(df, max_rows=limit))
    from .conventions import emit_json
    emit_json(args, json.loads(df.to_json(orient="records")))


def run(args: argparse.Namespace) -> int:
    from ..experiments import load
    from ..experiments.store import Store

    if args.csv and args.out:
        from ..errors import InvalidInstanceError
        raise InvalidInstanceError("give --out or --csv, not both", argument="csv", value=args.csv)
    if args.csv or args.out:
        _target(args)                       # refused before any query

    if args.sql or args.table:
        df = (load(args.dir, sql=args.sql) if args.sql else load(args.dir, args.table)).df()
        _print(df, args)
        return 0
    store = Store(args.dir)
    cells = store.cells_table(checksum=True)
    counts = cells["status"].value_counts()
    if not args.quiet:
        try:
            info = json.loads((store.out / "sweep.json").read_text())
        except (OSError, ValueError):
            info = {}
            print(f"{store.out / 'sweep.json'} is missing or damaged")
        about = info.get("spec", {}).get("description")
        print(f"sweep {info.get('name')!r}" + (f" ({about})" if about else "")
              + f", fairalloc {info.get('version')}, code {info.get('code', '?')}")
        shown = ("done", "failed", "timeout", "lost", "damaged", "pending")
        print(f"{args.dir}: {len(cells)} cells: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in shown
                                                          if s in ("done", "failed", "pending") or counts.get(s)))
        for status in ("failed", "timeout", "lost", "damaged"):
            for _, row in cells[cells["status"] == status].iterrows():
                print(f"  {status} {row['key']} (label={row['label']}, seed={row['seed']}): {row['error']}")
        if counts.get("damaged"):
            print("  damaged cells are left out of the tables; run the sweep again into this folder to "
                  "recompute them")
        names = store.table_names()
        print("tables: " + (", ".join(names) if names else "(none yet)") + ", cells")
    _print(cells.drop(columns=["params"]), args)
    return 0
