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

**Time limit.** A thread cannot be stopped, so with a time limit (the spec's ``time_limit``,
``fairalloc sweep --time-limit``) the cells run in a *cell process*: one child Python process per
worker thread, started once and kept (with its own workload cache), which receives one cell at a
time through a pipe. A cell still running at the limit is stopped with its process (SIGKILL: a cell
stuck in compiled code stops too), recorded with status ``timeout``, and the next cell starts a new
child. The child's start (importing fairalloc, pandas and pyarrow, hashing fairalloc's source) is
not counted in any cell's limit. A cell whose process dies (out of memory, a crash in compiled
code) is recorded as failed with the signal. Without a limit the cells run in the worker's own
thread, as before.

**Code.** Each cell carries the fingerprint of the code its key was computed with
(:attr:`Cell.code <fairalloc.experiments.Cell.code>`); a worker whose own fairalloc (or cell module)
differs refuses the cell, saying so, rather than store results of other code under its key.
"""

from __future__ import annotations

import io
import os
import pickle
import queue
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import OrderedDict
from typing import Any

import pandas as pd

from .inputs import build_workload, resolve_callable
from .spec import Cell, cell_code

__all__ = ["execute_cell", "CACHE_SIZE", "cached_workload", "close_cell_process", "STARTUP_SECONDS"]

#: Safety cap on starting a cell process (importing fairalloc and pandas), not counted in a cell's
#: time limit; a child that is not ready by then fails the cell saying so.
STARTUP_SECONDS = 300.0

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


def execute_cell(cell: Cell, time_limit: float | None = None) -> dict[str, Any]:
    """Run ``cell`` here (or, with ``time_limit``, in this process's cell process) and return its
    outcome (never raises for the cell's own errors).

    Returns
    -------
    dict
        ``key``, ``status`` (``"done"``, ``"failed"`` or ``"timeout"``), ``tables`` (name -> the table
        as Parquet bytes, the cell's key and coordinates as its first columns), ``wall_s`` (the cell
        function's own time), ``load_s`` (building the workload, 0 when cached), ``error`` (one line)
        and ``traceback``, ``worker`` (host:pid), ``code`` (this worker's code fingerprint).

    Parameters
    ----------
    cell : Cell
        One cell of :meth:`Spec.cells <fairalloc.experiments.Spec.cells>`.
    time_limit : float, optional
        Seconds the cell may take, its workload build included (module docstring: the cell then
        runs in a child process that is stopped at the limit).

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
    if time_limit is None:
        return _execute_here(cell)
    return _process().run(cell, float(time_limit))


def _execute_here(cell: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {"key": cell.key, "status": "failed", "tables": {}, "wall_s": float("nan"),
                           "load_s": 0.0, "error": None, "traceback": None,
                           "worker": f"{socket.gethostname()}:{os.getpid()}", "code": None}
    try:
        out["code"] = code = cell_code(cell.run, cell.workload)
        if cell.code and code != cell.code:
            raise RuntimeError(f"this worker ({out['worker']}) runs other code than the sweep's (code {code}, "
                               f"the cell's key was computed with {cell.code}): install the same fairalloc "
                               "and cell modules on every worker")
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


# -- the cell process (time limits) -------------------------------------------------------------

def _send(fh, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(struct.pack("<Q", len(data)) + data)
    fh.flush()


def _recv(fh) -> Any:
    head = fh.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = fh.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


#: Started in the child: read the parent's sys.path first, so that the child imports the same
#: fairalloc and cell modules (a test or a notebook may have changed sys.path), then serve.
_BOOT = ("import pickle, struct, sys; n = struct.unpack('<Q', sys.stdin.buffer.read(8))[0]; "
         "sys.path[:] = pickle.loads(sys.stdin.buffer.read(n)); "
         "from fairalloc.experiments.worker import _serve; _serve()")


def _serve() -> None:  # pragma: no cover - runs in the child process
    """The child's loop: receive a cell, run it, send its outcome; exit at end of input or when the
    parent is gone. Its stdout is the channel, so what a cell prints goes to stderr."""
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)         # Ctrl-C is the parent's to handle
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    # what every cell needs, loaded before the first cell's clock starts: Parquet, and the hash of
    # fairalloc's source (the code check); on a loaded machine these take seconds the first time
    import pyarrow.parquet  # noqa: F401

    from .spec import BUILTIN_CELL
    cell_code(BUILTIN_CELL, None)
    inp = sys.stdin.buffer
    _send(channel, ("ready", os.getpid()))
    while True:
        try:
            cell = _recv(inp)
        except EOFError:
            return
        _send(channel, _execute_here(cell))


class _CellProcess:
    """One child Python process that runs this process's cells one at a time (module docstring)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.frames: queue.Queue = queue.Queue()
        self.lock = threading.Lock()

    def _reader(self, proc: subprocess.Popen, frames: queue.Queue) -> None:
        try:
            while True:
                frames.put(_recv(proc.stdout))
        except (EOFError, OSError, ValueError, pickle.UnpicklingError):
            frames.put(EOFError())

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.frames = queue.Queue()
        threading.Thread(target=self._reader, args=(self.proc, self.frames), daemon=True).start()
        _send(self.proc.stdin, list(sys.path))
        try:
            msg = self.frames.get(timeout=STARTUP_SECONDS)
        except queue.Empty:
            msg = None
        if not (isinstance(msg, tuple) and msg[:1] == ("ready",)):
            self.stop()
            raise RuntimeError(f"the cell process did not start within {STARTUP_SECONDS:g} s "
                               "(safety cap: importing fairalloc in a new Python process)")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc is not None:
            for fh in (proc.stdin, proc.stdout):
                try:
                    fh.close()
                except OSError:
                    pass

    def run(self, cell: Cell, limit: float) -> dict[str, Any]:
        base = {"key": cell.key, "tables": {}, "load_s": 0.0, "traceback": None,
                "worker": f"{socket.gethostname()}:{os.getpid()}", "code": None}
        with self.lock:
            try:
                if self.proc is None or self.proc.poll() is not None:
                    self._start()
                t0 = time.perf_counter()
                _send(self.proc.stdin, cell)
                out = self.frames.get(timeout=limit)
            except queue.Empty:
                self.stop()
                return {**base, "status": "timeout", "wall_s": time.perf_counter() - t0,
                        "error": f"time limit of {limit:g} s reached: the cell was stopped (time_limit)"}
            except (OSError, RuntimeError) as exc:
                self.stop()
                return {**base, "status": "failed", "wall_s": float("nan"), "error": f"{type(exc).__name__}: {exc}"}
            if isinstance(out, EOFError):
                code = self.proc.wait() if self.proc is not None else None
                self.stop()
                how = (f"killed by signal {signal.Signals(-code).name}" if isinstance(code, int) and code < 0
                       else f"exit status {code}")
                return {**base, "status": "failed", "wall_s": time.perf_counter() - t0,
                        "error": f"the cell's process died ({how}; out of memory, or a crash in compiled code?)"}
            out["worker"] = base["worker"]
            return out


_cell_processes: dict[int, _CellProcess] = {}
_registry_lock = threading.Lock()


def _process() -> _CellProcess:
    """This thread's cell process (a worker with several threads runs one child per thread)."""
    ident = threading.get_ident()
    with _registry_lock:
        proc = _cell_processes.get(ident)
        if proc is None:
            if not _cell_processes:
                import atexit

                atexit.register(close_cell_process)
            proc = _cell_processes[ident] = _CellProcess()
    return proc


def close_cell_process() -> None:
    """Stop this process's cell processes, if it has any (the runner does at the end of a sweep run
    in this process; a Dask worker's end with the worker)."""
    with _registry_lock:
        procs = list(_cell_processes.values())
        _cell_processes.clear()
    for proc in procs:
        proc.stop()
