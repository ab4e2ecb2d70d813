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

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "results", help="show a sweep's results (tables, SQL through DuckDB)",
        description="Show the cells of a sweep folder by status with the failures and damaged files, one "
                    "table (--table), or the result of a read-only SQL query over its tables (--sql).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='example: fairalloc results out/sweep --sql "SELECT label, avg(mean_wait) FROM summary '
               'GROUP BY label"')
    p.add_argument("dir", metavar="DIR", help="a folder written by fairalloc sweep")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--sql", default=None, help="a read-only DuckDB query over the tables (by name) and cells")
    what.add_argument("--table", default=None, help="print one table (summary, users, jobs, cells, ...)")
    p.add_argument("--csv", default=None, metavar="FILE", help="also write the rows printed to FILE")
    p.add_argument("--max-rows", type=int, default=60, help="rows printed at most (default 60; 0: all)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but the rows")
    p.set_defaults(func=run)
    return p


def _print(df: pd.DataFrame, args: argparse.Namespace) -> None:
    limit = None if args.max_rows == 0 else args.max_rows
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", limit,
                           "display.min_rows", limit, "display.float_format", "{:,.4g}".format):
        if getattr(args, "json", None) != "-":
            print(df.to_string(max_rows=limit) if len(df) else "(no rows)")
    if args.csv:
        df.to_csv(args.csv, index=False)
    from .conventions import emit_json
    emit_json(args, json.loads(df.to_json(orient="records")))


def run(args: argparse.Namespace) -> int:
    from ..experiments import load
    from ..experiments.store import Store

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
