"""What runs on a Dask worker: one cell, its workload from the worker's cache, its error if any.

The cell function contract (the spec's ``run: "package.module:function"``; default
:func:`fairalloc.experiments.simulation_cell.simulate_cell`)::

    def my_cell(workload, params) -> dict[str, pandas.DataFrame]:
        ...

``workload`` is the :class:`~fairalloc.workloads.Workload` the spec's ``workload`` describes after
``${name}`` substitution (``None`` when the spec has none), built once per worker process and kept
in a small cache keyed by the resolved workload spec (:data:`CACHE_SIZE` entries, least recently
used dropped), so cells that share a workload (the policies and options of one seed) do not build
it again and nothing ships it with every cell. ``params`` is :attr:`Cell.params`: ``label``,
``policy``, ``options``, ``capacity``, ``seed``, ``grid``, ``tables``. The function returns one
DataFrame per table; the runner adds the cell's key and coordinates as columns and keeps the tables
the spec lists (all returned ones when it lists none). Whatever it raises is recorded as the cell's
error and the sweep goes on.

A cell function may carry a ``check`` attribute, ``check(params)``, which the spec calls on every
cell before anything runs: raise ``ValueError`` (best: :class:`~fairalloc.InvalidInstanceError`
with ``argument=`` the option or grid axis at fault) and the spec is refused naming that key::

    def my_cell(workload, params): ...
    def _check(params):
        if params["options"].get("solver") not in ("highs", "cbc"):
            raise InvalidInstanceError("solver must be highs or cbc", argument="solver")
    my_cell.check = _check

A custom cell may also need no workload (leave ``workload`` out) and no policies (then ``policy``
and ``label`` are None and the cells are seeds x grid); a custom ``generator`` may return any
object, which the cell function receives as ``workload``.
"""

from __future__ import annotations

import io
import os
import socket
import threading
import time
import traceback
from collections import OrderedDict
from typing import Any

import pandas as pd

from .inputs import build_workload, resolve_callable
from .spec import Cell

__all__ = ["execute_cell", "CACHE_SIZE", "cached_workload"]

#: Workloads kept per worker process (``FAIRALLOC_SWEEP_CACHE`` overrides).
CACHE_SIZE = int(os.environ.get("FAIRALLOC_SWEEP_CACHE", "4"))
_cache: "OrderedDict[str, Any]" = OrderedDict()
_lock = threading.Lock()
_building: dict[str, threading.Lock] = {}


def cached_workload(cell: Cell) -> tuple[Any, float]:
    """(workload, seconds spent building it here: 0 when it came from this process's cache).

    Parameters
    ----------
    cell : Cell
        Its resolved ``workload`` spec is the cache key.

    Returns
    -------
    tuple
        ``(workload, seconds)``; ``(None, 0.0)`` for a cell without a workload.

    Examples
    --------
    The second call finds the workload built by the first:

    >>> from fairalloc.experiments import Spec
    >>> cell, = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20,
    ...                         "nodes": 16, "rng": 0}, "capacity": {"processors": 16},
    ...                         "policies": ["fcfs"], "seeds": 1}).cells()
    >>> wl, _ = cached_workload(cell)
    >>> len(wl), cached_workload(cell)[1]
    (20, 0.0)
    """
    key = cell.workload_key
    if key is None:
        return None, 0.0
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key], 0.0
        build_lock = _building.setdefault(key, threading.Lock())
    with build_lock:                     # one build per key even with several threads
        with _lock:
            if key in _cache:
                return _cache[key], 0.0
        t0 = time.perf_counter()
        wl = build_workload(cell.workload)
        dt = time.perf_counter() - t0
        with _lock:
            _cache[key] = wl
            while len(_cache) > max(CACHE_SIZE, 1):
                _cache.popitem(last=False)
            _building.pop(key, None)
    return wl, dt


def _with_coords(name: str, df: pd.DataFrame, cell: Cell) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"table {name!r} is a {type(df).__name__}, not a pandas DataFrame")
    if not isinstance(df.index, pd.RangeIndex):      # a named index is data: keep it as columns
        named = any(n is not None for n in df.index.names)
        df = df.reset_index(drop=not named)
    cols = {"key": cell.key, **cell.coords}
    for col, value in cols.items():
        if col in df.columns:
            same = df[col].isna().all() if value is None else bool((df[col] == value).all())
            if not same:
                raise ValueError(f"table {name!r} has a column {col!r} whose values differ from the "
                                 f"cell's {col} = {value!r}; rename it")
            df = df.drop(columns=[col])
    front = pd.DataFrame({c: [v] * len(df) for c, v in cols.items()}, index=df.index)
    return pd.concat([front, df], axis=1)


def _parquet(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def execute_cell(cell: Cell) -> dict[str, Any]:
    """Run ``cell`` here and return its outcome (never raises for the cell's own errors).

    Returns
    -------
    dict
        ``key``, ``status`` (``"done"`` or ``"failed"``), ``tables`` (name -> the table as Parquet
        bytes, the cell's key and coordinates as its first columns), ``wall_s`` (the cell function's own time), ``load_s`` (building
        the workload, 0 when cached), ``error`` (one line) and ``traceback``, ``worker`` (host:pid).

    Parameters
    ----------
    cell : Cell
        One cell of :meth:`Spec.cells <fairalloc.experiments.Spec.cells>`.

    Examples
    --------
    FCFS on 20 Lublin jobs; the cell writes the one table its spec asks for:

    >>> from fairalloc.experiments import Spec
    >>> cell, = Spec.from_dict({"name": "tiny", "workload": {"generator": "lublin", "n_jobs": 20,
    ...                         "nodes": 16, "rng": 0}, "capacity": {"processors": 16},
    ...                         "policies": ["fcfs"], "seeds": 1}).cells()
    >>> out = execute_cell(cell)
    >>> out["status"], sorted(out["tables"]), out["error"]
    ('done', ['summary'], None)
    """
    out: dict[str, Any] = {"key": cell.key, "status": "failed", "tables": {}, "wall_s": float("nan"),
                           "load_s": 0.0, "error": None, "traceback": None,
                           "worker": f"{socket.gethostname()}:{os.getpid()}"}
    try:
        fn = resolve_callable(cell.run)
        workload, out["load_s"] = cached_workload(cell)
        t0 = time.perf_counter()
        tables = fn(workload, cell.params)
        out["wall_s"] = time.perf_counter() - t0
        if not isinstance(tables, dict):
            raise TypeError(f"{cell.run} returned {type(tables).__name__}, not a dict of DataFrames")
        wanted = cell.params.get("tables")
        if wanted:
            missing = [t for t in wanted if t not in tables]
            if missing:
                raise ValueError(f"{cell.run} returned no table {missing[0]!r} (got {sorted(tables)})")
            tables = {t: tables[t] for t in wanted}
        # encoded here, in parallel on the workers: a table Parquet cannot hold fails its cell only
        out["tables"] = {name: _parquet(_with_coords(name, df, cell)) for name, df in tables.items()}
        out["status"] = "done"
    except Exception as exc:  # noqa: BLE001 - a cell's failure is data, the sweep goes on
        out["tables"] = {}
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc()
    return out
