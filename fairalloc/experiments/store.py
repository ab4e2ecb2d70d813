"""The results store of a sweep: one folder, one Parquet file per finished cell and table, a cells
table, read through DuckDB.

Layout of ``OUT/``::

    sweep.json                 the spec as given, its name, fairalloc's version, the cell count
    manifest.parquet           every cell of the spec: key, index, label, policy, seed, params (JSON)
    cells/<key>.json           one record per finished cell: status, wall time, error, worker
    tables/<table>/<key>.parquet   the cell's rows, its key and coordinates in front

Every file is written to a temporary name in the same folder and renamed (``os.replace``), so a
file is whole or absent whenever the process dies. A cell's record is written after its tables:
a cell counts as finished only once its record exists, and a rerun rewrites the same file names,
so a sweep killed at any moment and restarted ends with exactly the rows of an uninterrupted run
(the restart deletes the temporary files a kill left). While a sweep runs it holds ``OUT/.lock``
(``flock``), so a second sweep into the same folder is refused.
Readers take a table's rows only from cells the manifest lists and the records call ``done``.
(Renames survive the death of the process, not a power cut: nothing is fsynced.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InvalidInstanceError
from .spec import Cell, Spec

__all__ = ["Store", "connect", "load"]

_CELL_COLUMNS = ["key", "index", "label", "policy", "seed", "params", "status", "wall_s", "load_s",
                 "error", "worker"]


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


class Store:
    """One sweep's folder (module docstring for the layout).

    :func:`~fairalloc.experiments.run_sweep` opens one, writes each finished cell, and closes it;
    :func:`load` and :func:`connect` read it.

    Parameters
    ----------
    out : str or Path
        The folder (created by :meth:`open`).

    Attributes
    ----------
    out : Path
    cells_dir, tables_dir : Path
        ``out / "cells"`` and ``out / "tables"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fairalloc.experiments import run_sweep
    >>> spec = {"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 16,
    ...         "rng": "${seed}"}, "capacity": {"processors": 16}, "policies": ["fcfs"], "seeds": 1}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(spec, d, workers=0, progress=False)
    ...     names = sorted(p.name for p in Store(d).out.iterdir())
    ...     tables = sorted(p.name for p in Store(d).tables_dir.iterdir())
    >>> names, tables
    (['.lock', 'cells', 'manifest.parquet', 'sweep.json', 'tables'], ['summary'])
    """

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)

    @property
    def cells_dir(self) -> Path:
        return self.out / "cells"

    @property
    def tables_dir(self) -> Path:
        return self.out / "tables"

    def open(self, spec: Spec, cells: list[Cell]) -> list[str]:
        """Create the folder for ``spec``, or take it over from an earlier run of a spec of the same
        name, and hold its lock until :meth:`close`.

        A spec of the same name may have changed since (more seeds, another grid): cells are
        identified by their parameters, so those already done are kept and the others run; the
        manifest then lists the new spec's cells only, and readers see only those (the files of
        cells no longer in the spec stay on disk, unread).

        Returns
        -------
        list of str
            The top-level keys of the spec that changed since the last run (empty: same spec).

        Raises
        ------
        InvalidInstanceError
            (``argument="out"``) when ``out`` holds the sweep of a spec with another name, or files
            that are not a sweep's, or another sweep is writing it now.
        """
        from ..version import __version__

        info = self.out / "sweep.json"
        changed: list[str] = []
        if info.exists():
            old = json.loads(info.read_text())
            if old.get("name") != spec.name:
                raise InvalidInstanceError(
                    f"out={str(self.out)!r} holds the sweep {old.get('name')!r}, not {spec.name!r}; use "
                    "another folder", argument="out", value=str(self.out))
            new = json.loads(json.dumps(spec.to_dict(), default=str))
            prev = old.get("spec", {})
            changed = sorted(k for k in set(prev) | set(new) if prev.get(k) != new.get(k))
        elif self.out.exists() and any(p.name != ".lock" for p in self.out.iterdir()):
            raise InvalidInstanceError(f"out={str(self.out)!r} exists and is not a sweep folder (no "
                                       "sweep.json); use a new or empty folder", argument="out",
                                       value=str(self.out))
        self.cells_dir.mkdir(parents=True, exist_ok=True)
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        for stale in [*self.out.glob(".*.tmp"), *self.cells_dir.glob(".*.tmp"),
                      *self.tables_dir.glob("*/.*.tmp")]:
            stale.unlink()                 # left by a process killed while writing
        doc = {"name": spec.name, "spec": spec.to_dict(), "version": __version__, "n_cells": len(cells)}
        _atomic_write(info, lambda p: p.write_text(json.dumps(doc, indent=2, default=str)))
        manifest = pd.DataFrame({
            "key": [c.key for c in cells], "index": [c.index for c in cells],
            "label": [c.params["label"] for c in cells], "policy": [c.params["policy"] for c in cells],
            "seed": pd.array([c.params["seed"] for c in cells], dtype="Int64"),
            "params": [json.dumps(c.params, sort_keys=True, default=str) for c in cells]})
        _atomic_write(self.out / "manifest.parquet", lambda p: manifest.to_parquet(p, index=False))
        return changed

    def _lock(self) -> None:
        """Hold ``OUT/.lock`` (flock, released when the process dies, even by SIGKILL) so that two
        sweeps never write one folder at the same time."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        fh = open(self.out / ".lock", "a")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            raise InvalidInstanceError(f"out={str(self.out)!r} is being written by another running sweep",
                                       argument="out", value=str(self.out)) from None
        self._lock_file = fh

    def close(self) -> None:
        """Release the folder's lock (taken by :meth:`open`)."""
        fh = getattr(self, "_lock_file", None)
        if fh is not None:
            fh.close()
            self._lock_file = None

    def records(self) -> dict[str, dict[str, Any]]:
        """key -> record of every finished cell (done or failed)."""
        out = {}
        if self.cells_dir.is_dir():
            for f in self.cells_dir.glob("*.json"):
                rec = json.loads(f.read_text())
                out[rec["key"]] = rec
        return out

    def done_keys(self) -> set[str]:
        """Keys of the cells whose record says ``done``."""
        return {k for k, r in self.records().items() if r["status"] == "done"}

    def write(self, cell: Cell, outcome: dict[str, Any]) -> None:
        """Write a cell's tables, then its record (each atomically)."""
        for name, data in outcome.get("tables", {}).items():      # Parquet bytes (worker.execute_cell)
            d = self.tables_dir / name
            d.mkdir(parents=True, exist_ok=True)
            _atomic_write(d / f"{cell.key}.parquet", lambda p, data=data: p.write_bytes(data))
        rec = {"key": cell.key, "index": cell.index, "label": cell.params["label"],
               "policy": cell.params["policy"], "seed": cell.params["seed"], "status": outcome["status"],
               "wall_s": outcome.get("wall_s"), "load_s": outcome.get("load_s"),
               "error": outcome.get("error"), "traceback": outcome.get("traceback"),
               "worker": outcome.get("worker"), "tables": sorted(outcome.get("tables", {}))}
        _atomic_write(self.cells_dir / f"{cell.key}.json",
                      lambda p: p.write_text(json.dumps(rec, default=str)))

    def cells_table(self) -> pd.DataFrame:
        """The cells table: every cell of the manifest with its status (``pending`` when it has no
        record yet), wall time, workload build time, error and worker."""
        man = self.out / "manifest.parquet"
        if not man.exists():
            raise InvalidInstanceError(f"out={str(self.out)!r} is not a sweep folder (no manifest.parquet)",
                                       argument="out", value=str(self.out))
        df = pd.read_parquet(man)
        recs = self.records()
        get = lambda k, f, d=None: recs.get(k, {}).get(f, d)  # noqa: E731
        df["status"] = [get(k, "status", "pending") for k in df["key"]]
        for f in ("wall_s", "load_s"):
            df[f] = pd.array([get(k, f) for k in df["key"]], dtype="Float64")
        for f in ("error", "worker"):
            df[f] = pd.array([get(k, f) for k in df["key"]], dtype="string")
        return df[_CELL_COLUMNS]

    def table_names(self) -> list[str]:
        """Tables with at least one file."""
        if not self.tables_dir.is_dir():
            return []
        return sorted(d.name for d in self.tables_dir.iterdir() if d.is_dir() and any(d.glob("*.parquet")))


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def connect(out: str | Path):
    """A DuckDB connection with one view per table of the sweep in ``out``, plus ``cells``.

    Each table's view reads ``tables/<name>/*.parquet`` (columns united by name), keeps the rows
    of cells that are in the manifest and done, in the spec's cell order.

    Parameters
    ----------
    out : str or Path
        The sweep's folder.

    Returns
    -------
    duckdb.DuckDBPyConnection
        Close it when done.

    Raises
    ------
    InvalidInstanceError
        ``out`` is not a sweep folder.

    Examples
    --------
    One cell (FCFS on 20 Lublin jobs) in a temporary folder; it writes one ``summary`` row:

    >>> import tempfile
    >>> from fairalloc.experiments import run_sweep
    >>> spec = {"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 16,
    ...         "rng": "${seed}"}, "capacity": {"processors": 16}, "policies": ["fcfs"], "seeds": 1}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(spec, d, workers=0, progress=False)
    ...     con = connect(d)
    ...     rows = con.sql("SELECT policy, jobs FROM summary ORDER BY policy").fetchall()
    ...     con.close()
    >>> rows
    [('fcfs', 20)]
    """
    import duckdb

    store = Store(out)
    cells = store.cells_table()
    con = duckdb.connect()
    con.register("_cells_df", cells)
    con.execute("CREATE TABLE cells AS SELECT * FROM _cells_df")
    con.unregister("_cells_df")
    for name in store.table_names():
        glob = _quote(store.tables_dir / name / "*.parquet")
        con.execute(f'CREATE VIEW "{name}" AS SELECT t.* EXCLUDE (file_row_number) FROM '
                    f"read_parquet({glob}, union_by_name=true, file_row_number=true) AS t "
                    "JOIN cells AS c ON t.key = c.key WHERE c.status = 'done' "
                    'ORDER BY c."index", t.file_row_number')
    return con


def load(out: str | Path, table: str = "summary", *, sql: str | None = None):
    """The rows of one table of a sweep (or the result of ``sql`` over its tables) as a DuckDB relation.

    Parameters
    ----------
    out : str or Path
        The sweep's folder.
    table : str, default "summary"
        ``"cells"`` or a table the cells wrote (``summary``, ``users``, ``jobs``, or a custom cell's).
    sql : str, optional
        A query over the tables (by name) instead of one table.

    Returns
    -------
    duckdb.DuckDBPyRelation
        Call ``.df()`` for a pandas DataFrame.

    Raises
    ------
    InvalidInstanceError
        ``out`` is not a sweep folder, no finished cell wrote ``table`` (the message lists those
        that exist), or DuckDB refuses ``sql`` (its message, and the tables).

    Examples
    --------
    One cell (FCFS on 20 Lublin jobs on 16 processors) in a temporary folder; all 20 jobs finish:

    >>> import tempfile
    >>> from fairalloc.experiments import run_sweep
    >>> spec = {"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20, "nodes": 16,
    ...         "rng": "${seed}"}, "capacity": {"processors": 16}, "policies": ["fcfs"], "seeds": 1}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(spec, d, workers=0, progress=False)
    ...     df = load(d, "summary").df()
    ...     n = load(d, sql="SELECT count(*) FROM cells").fetchall()
    >>> df[["policy", "seed", "jobs", "finished"]].values.tolist(), n
    ([['fcfs', 0, 20, 20]], [(1,)])
    """
    import duckdb

    con = connect(out)
    if sql is not None:
        try:
            return con.sql(sql)
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise InvalidInstanceError(f"sql={sql!r}: {first}; tables: "
                                       f"{', '.join(['cells', *Store(out).table_names()])}",
                                       argument="sql", value=sql) from None
    names = ["cells", *Store(out).table_names()]
    if table not in names:
        raise InvalidInstanceError(f"table={table!r}: no finished cell of {str(out)!r} wrote it; tables: "
                                   f"{', '.join(names)}", argument="table", value=table)
    return con.sql(f'SELECT * FROM "{table}"')

