"""The results store of a sweep: one folder, one Parquet file per finished cell and table, a cells
table, read through DuckDB.

Layout of ``OUT/``::

    sweep.json                 the spec as given, its name, fairalloc's version, the code fingerprint
                               (fairalloc.experiments.fingerprint), the cell count
    manifest.parquet           every cell of the spec: key, index, label, policy, seed, params (JSON)
    cells/<key>.json           one record per finished cell: status, wall time, error, worker, and the
                               size and SHA-256 of each table file it wrote
    tables/<table>/<key>.parquet   the cell's rows, its key and coordinates in front
    retired/cells, retired/tables  cells of an earlier spec or of other code, moved out of the way:
                               kept, never read; a later spec with the same cells takes them back
    damaged/<time>/...         files found missing, truncated or altered, moved here (never deleted)

**Writing.** Every file is written to a temporary name in the same folder and renamed
(``os.replace``), so a file is whole or absent whenever the process dies. A cell's record is written
after its tables and lists each file with its size and SHA-256 checksum: a cell counts as finished
only once its record exists, and a rerun rewrites the same file names, so a sweep killed at any
moment and restarted ends with exactly the rows of an uninterrupted run (the restart deletes the
temporary files a kill left, and the table files of cells that have no record). While a sweep runs
it holds ``OUT/.lock`` (``flock``), so a second sweep into the same folder is refused. (Renames
survive the death of the process, not a power cut: nothing is fsynced.)

**Noticing loss.** A cell is *damaged* when its record is not valid JSON, or a file it lists is
missing, of another size, or (when checksums are verified) of another SHA-256. Readers
(:func:`connect`, :func:`load`) check sizes, leave damaged cells out of the views with a warning
naming the files, and answer queries on everything intact; ``fairalloc results`` and a resumed
sweep verify checksums as well. A resumed sweep moves the damaged files to ``damaged/`` and runs
those cells again, saying which and why.

**Reading directly.** The views are the supported way (:func:`connect`, :func:`load`,
``fairalloc results --sql``): they read exactly the files of the spec's done, intact cells, in the
spec's cell order. Each run moves the files of cells that are no longer in the spec (an edited spec,
changed code) to ``retired/``, so that once a sweep has finished, ``tables/<table>/`` holds exactly
the files of the current cells and a direct
``read_parquet('OUT/tables/summary/*.parquet', union_by_name = true)`` sees the same rows (in file
order; ``union_by_name`` because a column of one policy's options is absent from another's files).
While a sweep runs, a cell being written may show its table files before its record.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from ..errors import FairallocWarning, InvalidInstanceError
from .spec import Cell, Spec

__all__ = ["Store", "OpenReport", "connect", "load", "DamagedCellsWarning"]

_CELL_COLUMNS = ["key", "index", "label", "policy", "seed", "params", "status", "wall_s", "load_s",
                 "error", "worker"]
#: Statuses a cell record may hold; a cell without a record is ``pending``, one whose record or
#: files are damaged ``damaged``.
STATUSES = ("done", "failed", "timeout", "lost", "pending", "damaged")


class DamagedCellsWarning(FairallocWarning):
    """Cells of a store whose record or table files are damaged; readers leave them out."""


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class OpenReport:
    """What :meth:`Store.open` found in the folder and did about it.

    Attributes
    ----------
    spec_changed : list of str
        Top-level keys of the spec that changed since the last run into the folder.
    code_changed : tuple of (str, str) or None
        (old, new) code fingerprint when the code changed since the last run: the earlier cells
        are not reused.
    reused : int
        Cells of this spec found done and intact (they will not run).
    repaired : list of dict
        Cells found damaged (``key``, ``problem`` naming the file), moved to ``damaged/``; they run
        again.
    retired : int
        Cells of an earlier spec or code moved to ``retired/``.
    restored : int
        Cells taken back from ``retired/`` (a spec that has them again).
    n_cells : int
        Cells of the spec (the manifest's rows).
    """

    spec_changed: list[str] = field(default_factory=list)
    code_changed: tuple[str, str] | None = None
    reused: int = 0
    repaired: list[dict[str, str]] = field(default_factory=list)
    retired: int = 0
    restored: int = 0
    n_cells: int = 0


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
    ...     problems = Store(d).check(checksum=True)
    >>> names, tables, problems
    (['.lock', 'cells', 'manifest.parquet', 'sweep.json', 'tables'], ['summary'], {})
    """

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)

    @property
    def cells_dir(self) -> Path:
        return self.out / "cells"

    @property
    def tables_dir(self) -> Path:
        return self.out / "tables"

    # -- opening a folder for a run -------------------------------------------------------------
    def accepts(self, name: str) -> dict[str, Any] | None:
        """Check, without writing anything, that a sweep named ``name`` may use this folder.

        The folder may be missing, empty, or hold a sweep of the same name (resumed). :meth:`open`
        applies this check; the command line calls it before it prints anything.

        Parameters
        ----------
        name : str
            The spec's name.

        Returns
        -------
        dict or None
            The folder's ``sweep.json`` when it holds the same sweep; None when the folder is new or
            empty, or its ``sweep.json`` is not valid JSON (:meth:`open` then writes it again).

        Raises
        ------
        InvalidInstanceError
            (``argument="out"``) when ``out`` holds the sweep of a spec with another name, or files
            that are not a sweep's.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as d:
        ...     _ = (pathlib.Path(d) / "notes.txt").write_text("mine")
        ...     Store(d).accepts("lublin")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairalloc.errors.InvalidInstanceError: out='...' exists and is not a sweep folder (no sweep.json); use a new or empty folder
        """
        info = self.out / "sweep.json"
        if info.exists():
            try:
                old = json.loads(info.read_text())
            except ValueError:
                return None
            if old.get("name") != name:
                raise InvalidInstanceError(
                    f"out={str(self.out)!r} holds the sweep {old.get('name')!r}, not {name!r}; use "
                    "another folder", argument="out", value=str(self.out))
            return old
        if self.out.exists() and any(p.name != ".lock" for p in self.out.iterdir()):
            raise InvalidInstanceError(f"out={str(self.out)!r} exists and is not a sweep folder (no "
                                       "sweep.json); use a new or empty folder", argument="out",
                                       value=str(self.out))
        return None

    def open(self, spec: Spec, cells: Iterable[Cell]) -> OpenReport:
        """Create the folder for ``spec``, or take it over from an earlier run of a spec of the same
        name, and hold its lock until :meth:`close`.

        A spec of the same name may have changed since (more seeds, another grid), and so may the
        code: cells are identified by their parameters and code (:attr:`Cell.key`), so those done
        with the same are kept, and the others run. The manifest then lists the new spec's cells only;
        the files of cells no longer in the spec move to ``retired/``, and the damaged files of the
        spec's cells (checksums verified) to ``damaged/``.

        Parameters
        ----------
        spec : Spec
        cells : iterable of Cell
            The spec's cells (read once, lazily).

        Returns
        -------
        OpenReport

        Raises
        ------
        InvalidInstanceError
            (``argument="out"``) when ``out`` holds the sweep of a spec with another name, or files
            that are not a sweep's, or another sweep is writing it now.
        """
        from ..version import __version__

        info = self.out / "sweep.json"
        report = OpenReport()
        old = self.accepts(spec.name)
        if info.exists():
            if old is None:
                old = {"name": spec.name, "damaged": True}    # rewritten below; the cells say the rest
                warnings.warn(f"{info} was damaged (not valid JSON); it is written again",
                              DamagedCellsWarning, stacklevel=3)
            new = json.loads(json.dumps(spec.to_dict(), default=str))
            prev = old.get("spec", {})
            report.spec_changed = sorted(k for k in set(prev) | set(new) if prev.get(k) != new.get(k))
        old = old or {}
        self.cells_dir.mkdir(parents=True, exist_ok=True)
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        for stale in [*self.out.glob(".*.tmp"), *self.cells_dir.glob(".*.tmp"),
                      *self.tables_dir.glob("*/.*.tmp")]:
            stale.unlink()                 # left by a process killed while writing
        code = spec.code
        if old.get("code") and old["code"] != code:
            report.code_changed = (old["code"], code)
        current = self._write_manifest(cells)
        report.n_cells = len(current)
        self._reconcile(current, report)
        doc = {"name": spec.name, "spec": spec.to_dict(), "version": __version__, "code": code,
               "n_cells": len(current)}
        _atomic_write(info, lambda p: p.write_text(json.dumps(doc, indent=2, default=str)))
        return report

    def _write_manifest(self, cells: Iterable[Cell]) -> set[str]:
        """Stream the cells into ``manifest.parquet`` (in batches) and return their keys."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([("key", pa.string()), ("index", pa.int64()), ("label", pa.string()),
                            ("policy", pa.string()), ("seed", pa.int64()), ("params", pa.string())])
        keys: set[str] = set()
        path = self.out / "manifest.parquet"

        def write(tmp: Path) -> None:
            batch: dict[str, list] = {n: [] for n in schema.names}
            with pq.ParquetWriter(tmp, schema) as w:
                def flush() -> None:
                    if batch["key"]:
                        w.write_table(pa.table(batch, schema=schema))
                        for v in batch.values():
                            v.clear()
                for c in cells:
                    keys.add(c.key)
                    for n, v in (("key", c.key), ("index", c.index), ("label", c.params["label"]),
                                 ("policy", c.params["policy"]), ("seed", c.params["seed"]),
                                 ("params", json.dumps(c.params, sort_keys=True, default=str))):
                        batch[n].append(v)
                    if len(batch["key"]) >= 10_000:
                        flush()
                flush()

        _atomic_write(path, write)
        return keys

    def _move(self, src: Path, dest_root: Path) -> None:
        """Move ``src`` (inside ``out``) to the same relative place under ``dest_root``."""
        dest = dest_root / src.relative_to(self.out)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dest)

    def _reconcile(self, current: set[str], report: OpenReport) -> None:
        """Retire the cells that left the spec, take back those that returned, quarantine damage."""
        retired = self.out / "retired"
        records, bad = self._read_records()
        # cells of the spec that an earlier run retired: take them back (whole and intact only)
        if (retired / "cells").is_dir():
            for f in (retired / "cells").glob("*.json"):
                key = f.stem
                if key in current and key not in records:
                    old = Store(retired)
                    recs, _ = old._read_records([f])
                    rec = recs.get(key)
                    if rec is not None and not old._problems(key, rec, checksum=True):
                        for p in old._files(key, rec):
                            self._move_back(p, retired)
                        self._move_back(f, retired)
                        records[key] = rec
                        report.restored += 1
        stamp = None
        for key, rec in records.items():
            if key not in current:                       # not in this spec (or computed by other code)
                for p in self._files(key, rec):
                    if p.exists():
                        self._move(p, retired)
                self._move(self.cells_dir / f"{key}.json", retired)
                report.retired += 1
                continue
            if rec.get("status") != "done":
                continue
            problems = self._problems(key, rec, checksum=True)
            if problems:
                stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
                for p in [*self._files(key, rec), self.cells_dir / f"{key}.json"]:
                    if p.exists():
                        self._move(p, self.out / "damaged" / stamp)
                report.repaired.append({"key": key, "problem": "; ".join(problems)})
            else:
                report.reused += 1
        for key, problem in bad.items():                 # records that are not valid JSON
            stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
            self._move(self.cells_dir / f"{key}.json", self.out / "damaged" / stamp)
            if key in current:
                report.repaired.append({"key": key, "problem": problem})
        # table files no record lists (a process killed between a cell's tables and its record)
        kept = {p for key, rec in records.items() if key in current and rec.get("status") == "done"
                for p in self._files(key, rec)}
        for d in self.tables_dir.iterdir():
            if d.is_dir():
                for f in d.glob("*.parquet"):
                    if f not in kept:
                        f.unlink()

    def _move_back(self, src: Path, retired: Path) -> None:
        dest = self.out / src.relative_to(retired)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dest)

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

    # -- records and files ----------------------------------------------------------------------
    def _read_records(self, files: Iterable[Path] | None = None) -> tuple[dict[str, dict], dict[str, str]]:
        """(key -> record, key -> problem of a record that cannot be read)."""
        good: dict[str, dict] = {}
        bad: dict[str, str] = {}
        if files is None:
            files = self.cells_dir.glob("*.json") if self.cells_dir.is_dir() else []
        for f in files:
            try:
                rec = json.loads(f.read_text())
                if not isinstance(rec, dict) or rec.get("key") != f.stem or "status" not in rec:
                    raise ValueError("not a cell record of this file's key")
            except (ValueError, UnicodeDecodeError) as exc:
                rel = f.relative_to(self.out) if f.is_relative_to(self.out) else f
                bad[f.stem] = f"{rel} is damaged ({type(exc).__name__}: {exc})"
                continue
            good[rec["key"]] = rec
        return good, bad

    def records(self) -> dict[str, dict[str, Any]]:
        """key -> record of every finished cell (done, failed, timeout or lost) whose record can be
        read (:meth:`check` names those that cannot)."""
        return self._read_records()[0]

    def _files(self, key: str, rec: dict[str, Any]) -> list[Path]:
        """The table files a record lists (a record written before checksums: one per table)."""
        if "files" in rec:
            return [self.out / info["file"] for info in rec["files"].values()]
        return [self.tables_dir / t / f"{key}.parquet" for t in rec.get("tables", [])]

    def _problems(self, key: str, rec: dict[str, Any], *, checksum: bool) -> list[str]:
        """What is wrong with the files of a done cell's record (empty: intact)."""
        out = []
        if "files" not in rec:
            for p in self._files(key, rec):
                if not p.is_file():
                    out.append(f"{p.relative_to(self.out)} is missing")
            return out
        for info in rec["files"].values():
            p = self.out / info["file"]
            try:
                size = p.stat().st_size
            except OSError:
                out.append(f"{info['file']} is missing")
                continue
            if size != info["size"]:
                out.append(f"{info['file']} has {size:,} bytes, recorded {info['size']:,} (truncated or replaced)")
            elif checksum and _sha256(p) != info["sha256"]:
                out.append(f"{info['file']} does not match its recorded SHA-256 (altered)")
        return out

    def check(self, keys: Iterable[str] | None = None, *, checksum: bool = False) -> dict[str, str]:
        """key -> what is damaged, for the cells whose record cannot be read or whose done record
        lists a file that is missing, of another size or (``checksum``) of another SHA-256.

        Parameters
        ----------
        keys : iterable of str, optional
            Only these cells (default: every record).
        checksum : bool, default False
            Also compare each file's SHA-256 with its record (reads every file).

        Returns
        -------
        dict of str to str
            Empty when nothing is damaged.
        """
        records, bad = self._read_records()
        want = None if keys is None else set(keys)
        out = {k: v for k, v in bad.items() if want is None or k in want}
        for key, rec in records.items():
            if (want is None or key in want) and rec.get("status") == "done":
                problems = self._problems(key, rec, checksum=checksum)
                if problems:
                    out[key] = "; ".join(problems)
        return out

    def done_keys(self) -> set[str]:
        """Keys of the cells whose record says ``done`` (whether their files are intact:
        :meth:`check`)."""
        return {k for k, r in self.records().items() if r["status"] == "done"}

    def write(self, cell: Cell, outcome: dict[str, Any]) -> None:
        """Write a cell's tables, then its record with each file's size and SHA-256 (each atomically)."""
        files = {}
        for name, data in outcome.get("tables", {}).items():      # Parquet bytes (worker.execute_cell)
            d = self.tables_dir / name
            d.mkdir(parents=True, exist_ok=True)
            _atomic_write(d / f"{cell.key}.parquet", lambda p, data=data: p.write_bytes(data))
            files[name] = {"file": f"tables/{name}/{cell.key}.parquet", "size": len(data),
                           "sha256": hashlib.sha256(data).hexdigest()}
        rec = {"key": cell.key, "index": cell.index, "label": cell.params["label"],
               "policy": cell.params["policy"], "seed": cell.params["seed"], "status": outcome["status"],
               "wall_s": outcome.get("wall_s"), "load_s": outcome.get("load_s"),
               "error": outcome.get("error"), "traceback": outcome.get("traceback"),
               "worker": outcome.get("worker"), "code": outcome.get("code") or cell.code,
               "tables": sorted(files), "files": files}
        _atomic_write(self.cells_dir / f"{cell.key}.json",
                      lambda p: p.write_text(json.dumps(rec, default=str)))

    # -- reading --------------------------------------------------------------------------------
    def _cells_and_damage(self, checksum: bool = False) -> tuple[pd.DataFrame, dict[str, dict], dict[str, str]]:
        """(cells table, the manifest cells' readable records, key -> damage of the manifest's cells)."""
        man = self.out / "manifest.parquet"
        if not man.exists():
            raise InvalidInstanceError(f"out={str(self.out)!r} is not a sweep folder (no manifest.parquet)",
                                       argument="out", value=str(self.out))
        df = pd.read_parquet(man)
        keys = set(df["key"])
        records, bad = self._read_records()
        records = {k: r for k, r in records.items() if k in keys}
        damage = {k: v for k, v in bad.items() if k in keys}
        for key, rec in records.items():
            if rec.get("status") == "done":
                problems = self._problems(key, rec, checksum=checksum)
                if problems:
                    damage[key] = "; ".join(problems)
        get = lambda k, f, d=None: records.get(k, {}).get(f, d)  # noqa: E731
        df["status"] = ["damaged" if k in damage else get(k, "status", "pending") for k in df["key"]]
        for f in ("wall_s", "load_s"):
            df[f] = pd.array([get(k, f) for k in df["key"]], dtype="Float64")
        df["error"] = pd.array([damage.get(k) or get(k, "error") for k in df["key"]], dtype="string")
        df["worker"] = pd.array([get(k, "worker") for k in df["key"]], dtype="string")
        return df[_CELL_COLUMNS], records, damage

    def cells_table(self, *, checksum: bool = False) -> pd.DataFrame:
        """The cells table: every cell of the manifest with its status (``pending`` when it has no
        record yet, ``damaged`` when its record or a file is: the ``error`` column says which),
        wall time, workload build time, error and worker.

        Parameters
        ----------
        checksum : bool, default False
            Verify each done cell's files against their SHA-256 (default: their sizes).
        """
        return self._cells_and_damage(checksum)[0]

    def table_names(self) -> list[str]:
        """Tables with at least one file."""
        if not self.tables_dir.is_dir():
            return []
        return sorted(d.name for d in self.tables_dir.iterdir() if d.is_dir() and any(d.glob("*.parquet")))


def _quote(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _warn_damage(out: Path, damage: dict[str, str]) -> None:
    if not damage:
        return
    items = list(damage.items())
    shown = "; ".join(f"cell {k}: {v}" for k, v in items[:5])
    more = f"; and {len(items) - 5} more" if len(items) > 5 else ""
    warnings.warn(f"{out}: {len(items)} damaged cell(s) left out of the tables ({shown}{more}); run the sweep "
                  "again into this folder to recompute them", DamagedCellsWarning, stacklevel=3)


def _lock_down(con, out: Path) -> bool:
    """Forbid the connection every file but the store's tables (reading) and any setting change.

    Returns whether DuckDB knows ``allowed_directories``; without it the caller materialises the
    tables before external access is switched off."""
    import duckdb

    try:
        con.execute("SET enable_progress_bar = false")
    except duckdb.Error:  # in Jupyter without ipywidgets DuckDB refuses to touch the setting at all
        pass
    for setting in ("autoinstall_known_extensions", "autoload_known_extensions"):
        try:
            con.execute(f"SET {setting} = false")
        except duckdb.Error:  # pragma: no cover - an old DuckDB without the setting
            pass
    try:
        con.execute(f"SET allowed_directories = [{_quote(str(out.resolve() / 'tables') + os.sep)}]")
        return True
    except duckdb.Error:  # pragma: no cover - DuckDB before allowed_directories
        return False


def connect(out: str | Path, *, tables: Iterable[str] | None = None, checksum: bool = False):
    """A read-only DuckDB connection with one view per table of the sweep in ``out``, plus ``cells``.

    Each table's view reads exactly the files of the cells that are in the manifest, done and
    intact, in the spec's cell order (columns united by name). Damaged cells (module docstring) are
    left out with a :class:`DamagedCellsWarning` naming their files; a table none of whose files
    can be read is left out with a warning, and the others still answer.

    The connection reads no file but the store's table files and writes none: DuckDB's external
    access is off (``enable_external_access = false``, with the store's ``tables/`` as the one
    allowed directory) and its configuration locked (``lock_configuration``), so a query cannot read
    ``/etc/os-release``, ``COPY ... TO`` a file, attach a database or load an extension.

    Parameters
    ----------
    out : str or Path
        The sweep's folder.
    tables : iterable of str, optional
        Create views for these tables only (default: all); a table of another name is ignored.
    checksum : bool, default False
        Verify the files' SHA-256 (default: their sizes only, which costs no reading).

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
    cells, records, damage = store._cells_and_damage(checksum)
    _warn_damage(store.out, damage)
    con = duckdb.connect()
    allowed = _lock_down(con, store.out)
    con.register("_cells_df", cells)
    con.execute("CREATE TABLE cells AS SELECT * FROM _cells_df")
    con.unregister("_cells_df")
    want = None if tables is None else set(tables)
    files: dict[str, list[Path]] = {}
    for key in cells.loc[cells["status"] == "done", "key"]:
        rec = records[key]
        if "files" in rec:
            for t, info in rec["files"].items():
                files.setdefault(t, []).append((store.out / info["file"]).resolve())
        else:
            for t in rec.get("tables", []):
                files.setdefault(t, []).append((store.tables_dir / t / f"{key}.parquet").resolve())
    kind = "VIEW" if allowed else "TABLE"
    for name in sorted(files):
        if want is not None and name not in want:
            continue
        paths = files[name]
        for attempt in range(2):
            listing = "[" + ", ".join(_quote(p) for p in paths) + "]"
            try:
                con.execute(f'CREATE {kind} "{name}" AS SELECT t.* EXCLUDE (file_row_number) FROM '
                            f"read_parquet({listing}, union_by_name=true, file_row_number=true) AS t "
                            "JOIN cells AS c ON t.key = c.key "
                            'ORDER BY c."index", t.file_row_number')
                break
            except duckdb.Error as exc:
                unreadable = _unreadable(paths)
                if attempt == 0 and unreadable and len(unreadable) < len(paths):
                    _warn_damage(store.out, {p.stem: f"tables/{name}/{p.name} cannot be read ({why})"
                                             for p, why in unreadable.items()})
                    paths = [p for p in paths if p not in unreadable]
                    continue
                first = str(exc).strip().splitlines()[0]
                warnings.warn(f"{store.out}: table {name!r} cannot be read and is left out ({first})",
                              DamagedCellsWarning, stacklevel=2)
                break
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def _unreadable(paths: list[Path]) -> dict[Path, str]:
    """The files among ``paths`` that are not readable Parquet, with why."""
    import pyarrow.parquet as pq

    bad = {}
    for p in paths:
        try:
            pq.read_metadata(p)
        except Exception as exc:  # noqa: BLE001 - any reason makes the file unreadable
            bad[p] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return bad


#: Statements ``load(sql=...)`` and ``fairalloc results --sql`` run (DESCRIBE, SHOW, SUMMARIZE and
#: FROM-first queries are SELECTs to DuckDB).
_READ_STATEMENTS = ("SELECT", "EXPLAIN")


def _check_query(con, sql: str) -> None:
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except AttributeError:  # pragma: no cover - an old DuckDB: external access is off anyway
        return
    except duckdb.Error:
        return                                   # a syntax error: DuckDB says it when the query runs
    if len(statements) != 1:
        raise InvalidInstanceError(f"sql={sql!r}: give one query (got {len(statements)} statements)",
                                   argument="sql", value=sql)
    kind = str(statements[0].type).rsplit(".", 1)[-1]
    if kind not in _READ_STATEMENTS:
        raise InvalidInstanceError(f"sql={sql!r}: a {kind} statement; the store is read-only: give a "
                                   "SELECT query (export its rows with --csv, or .df() in Python)",
                                   argument="sql", value=sql)


def load(out: str | Path, table: str = "summary", *, sql: str | None = None):
    """The rows of one table of a sweep (or the result of ``sql`` over its tables) as a DuckDB relation.

    Parameters
    ----------
    out : str or Path
        The sweep's folder.
    table : str, default "summary"
        ``"cells"`` or a table the cells wrote (``summary``, ``users``, ``jobs``, or a custom cell's).
    sql : str, optional
        One query (SELECT, also DESCRIBE, SUMMARIZE, EXPLAIN) over the tables (by name) instead of
        one table, on the read-only connection of :func:`connect`; only the tables it names are
        opened.

    Returns
    -------
    duckdb.DuckDBPyRelation
        Call ``.df()`` for a pandas DataFrame.

    Raises
    ------
    InvalidInstanceError
        ``out`` is not a sweep folder, no finished cell wrote ``table`` (the message lists those
        that exist), ``sql`` is not one read-only query, or DuckDB refuses it (its message, and the
        tables).

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

    names = ["cells", *Store(out).table_names()]
    if sql is not None:
        mentioned = [n for n in names[1:] if re.search(rf"(?i)\b{re.escape(n)}\b", sql)]
        con = connect(out, tables=mentioned)
        _check_query(con, sql)
        try:
            return con.sql(sql)
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise InvalidInstanceError(f"sql={sql!r}: {first}; tables: {', '.join(names)}",
                                       argument="sql", value=sql) from None
    if table not in names:
        raise InvalidInstanceError(f"table={table!r}: no finished cell of {str(out)!r} wrote it; tables: "
                                   f"{', '.join(names)}", argument="table", value=table)
    con = connect(out, tables=[table])
    present = {r[0] for r in con.sql("SELECT table_name FROM information_schema.tables").fetchall()}
    if table not in present:
        raise InvalidInstanceError(f"table={table!r}: none of its files in {str(out)!r} can be read (see the "
                                   "warnings); run the sweep again to recompute the cells", argument="table",
                                   value=table)
    return con.sql(f'SELECT * FROM "{table}"')
