"""The one in-memory representation of a workload: :class:`Workload`.

A workload is a table with one row per *job*; the simulator's vocabulary maps onto the allocation
model's once and for all: a **job** (a row here) is what the model calls an *agent's request*, and its
**user** is the model's *agent*. A row describes either

* a **rigid parallel job** (Parallel Workloads Archive, Lublin model): ``tasks == 1`` and it needs
  ``processors`` identical processors at once for ``run_time`` seconds; or
* a **group of identical tasks** (Google, Alibaba): ``tasks`` tasks, each needing the resource vector
  ``resources[row]`` (``resource_names`` says which resource each column is) for ``run_time``
  seconds. A rigid job is the special case of one task whose vector is ``[processors]``.

Columns are numpy arrays of one length ``n`` (a struct of arrays: a 10^6-job workload costs about
60 MB, and every metric is a vectorised expression over them):

==================  ========  =====================================================================
column              dtype     meaning (missing value)
==================  ========  =====================================================================
``job_id``          int64     identifier from the source (row number when the source has none)
``user``            int64     user id, ``>= 0`` (``-1`` = unknown)
``submit``          float64   submission time in seconds, finite and ``>= 0``
``run_time``        float64   actual run time of one task in seconds, ``>= 0`` (NaN = unknown)
``requested_time``  float64   requested wall time in seconds, ``>= 0`` (NaN = unknown)
``processors``      int64     processors of a rigid job, ``>= 1`` (``-1`` = unknown or not rigid)
``tasks``           int64     identical tasks in the row, ``>= 1``
``status``          int64     source status code (SWF: 1 completed, 0 failed, 5 cancelled; -1 = unknown)
``resources``       float64   (n, K) per-task demand, ``>= 0`` (NaN = unknown); K may be 0
==================  ========  =====================================================================

``resource_units`` says, per resource column, the unit of its numbers (``"cores"``, ``"GB"``,
``"normalised"`` for a trace's own normalisation; ``None`` = not declared); the readers and
generators declare theirs, :func:`fairalloc.simulate` refuses a capacity declared in other units
(:mod:`fairalloc.workloads.units`), and :meth:`Workload.convert_units` converts a column.

Any further column (SWF's queue and partition, Lublin's job type, Google's task index ...) travels in
``extra`` and survives :meth:`Workload.to_parquet`. ``meta`` holds what the source said about itself
(SWF header fields such as ``MaxNodes``, counts of skipped lines, the assumptions a reader made).

Instances are immutable: every array is a read-only copy, and methods return new workloads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..validation import as_array, first_bad, frozen, require_units
from ..errors import InvalidInstanceError

__all__ = ["Workload", "CORE_COLUMNS"]

#: The fixed columns, in table order (``resources`` is expanded into one column per resource).
CORE_COLUMNS = ("job_id", "user", "submit", "run_time", "requested_time", "processors", "tasks",
                "status")
_INT_COLUMNS = ("job_id", "user", "processors", "tasks", "status")
_RES_PREFIX = "res:"


def _bad(argument: str, arr: np.ndarray, mask: np.ndarray, what: str) -> None:
    idx = first_bad(mask)
    if idx is None:
        return
    value = arr[idx].item()
    count = int(mask.sum())
    more = f" ({count} entries violate this)" if count > 1 else ""
    raise InvalidInstanceError(f"{argument}[{', '.join(map(str, idx))}]={value!r} {what}{more}",
                               argument=argument, index=idx, value=value)


def _int_column(argument: str, value: Any, n: int, default: int | None) -> np.ndarray:
    if value is None:
        return np.full(n, default, dtype=np.int64) if default is not None else np.arange(n, dtype=np.int64)
    arr = as_array(argument, value, ndim=1, dtype=float)
    if arr.shape[0] != n:
        raise InvalidInstanceError(f"{argument} has length {arr.shape[0]}, expected {n}",
                                   argument=argument, value=arr.shape)
    _bad(argument, arr, ~np.isfinite(arr), "must be finite (use -1 for unknown)")
    _bad(argument, arr, arr != np.round(arr), "must be a whole number")
    return arr.astype(np.int64)


def _float_column(argument: str, value: Any, n: int, *, allow_nan: bool) -> np.ndarray:
    if value is None:
        return np.full(n, np.nan)
    arr = as_array(argument, value, ndim=1, dtype=float)
    if arr.shape[0] != n:
        raise InvalidInstanceError(f"{argument} has length {arr.shape[0]}, expected {n}",
                                   argument=argument, value=arr.shape)
    if allow_nan:
        _bad(argument, arr, np.isinf(arr), "must be finite (NaN = unknown)")
    else:
        _bad(argument, arr, ~np.isfinite(arr), "must be finite")
    _bad(argument, arr, arr < 0, "must be >= 0 (negative times are invalid)")
    return arr


class Workload:
    """A table of jobs (rigid parallel jobs or groups of identical tasks), see the module docstring.

    Parameters
    ----------
    submit : array_like, shape (n,)
        Submission times in seconds (finite, ``>= 0``).
    run_time : array_like, shape (n,)
        Actual run time of one task in seconds (NaN = unknown).
    processors : array_like of int, optional
        Processors of each rigid job (``-1`` = unknown; default all ``-1``).
    requested_time : array_like, optional
        Requested wall time in seconds (NaN = unknown; default all unknown).
    user, job_id, tasks, status : array_like of int, optional
        Defaults: user ``-1``, job ids ``0..n-1``, one task, status ``-1``.
    resources : array_like, shape (n, K), optional
        Per-task resource demand; ``resource_names`` (length K) names the columns.
    resource_units : sequence of str or None, optional
        The unit of each resource column (length K; ``None`` entries or the default: not declared).
    extra : mapping of str to array_like, optional
        Further columns of length n, carried unchanged.
    meta : mapping, optional
        Source metadata (JSON-serialisable values).

    Raises
    ------
    InvalidInstanceError
        A column of the wrong length, a negative or infinite time, a non-integral count, naming the
        column, the row and the value.

    Examples
    --------
    >>> wl = Workload(submit=[0, 10], run_time=[100, 50], processors=[4, 2], user=[0, 1])
    >>> len(wl), wl.n_users, wl.processors.tolist()
    (2, 2, [4, 2])
    >>> Workload(submit=[0, -5], run_time=[1, 1])
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: submit[1]=-5.0 must be >= 0 (negative times are invalid)
    """

    __slots__ = ("_cols", "_resources", "_resource_names", "_resource_units", "_extra", "_meta")

    def __init__(self, *, submit: Any, run_time: Any, processors: Any = None,
                 requested_time: Any = None, user: Any = None, job_id: Any = None,
                 tasks: Any = None, status: Any = None, resources: Any = None,
                 resource_names: Sequence[str] | None = None,
                 resource_units: Sequence[str | None] | None = None,
                 extra: Mapping[str, Any] | None = None, meta: Mapping[str, Any] | None = None) -> None:
        sub = as_array("submit", submit, ndim=1, dtype=float)
        n = sub.shape[0]
        sub = _float_column("submit", sub, n, allow_nan=False)
        cols = {
            "job_id": _int_column("job_id", job_id, n, None),
            "user": _int_column("user", user, n, -1),
            "submit": sub,
            "run_time": _float_column("run_time", run_time, n, allow_nan=True),
            "requested_time": _float_column("requested_time", requested_time, n, allow_nan=True),
            "processors": _int_column("processors", processors, n, -1),
            "tasks": _int_column("tasks", tasks, n, 1),
            "status": _int_column("status", status, n, -1),
        }
        _bad("user", cols["user"], cols["user"] < -1, "must be >= 0 (or -1 for unknown)")
        p = cols["processors"]
        _bad("processors", p, (p < 1) & (p != -1), "must be >= 1 (or -1 for unknown)")
        _bad("tasks", cols["tasks"], cols["tasks"] < 1, "must be >= 1")
        if resources is None:
            res = np.zeros((n, 0))
            names: tuple[str, ...] = ()
        else:
            res = as_array("resources", resources, ndim=(1, 2), dtype=float)
            if res.ndim == 1:
                res = res.reshape(n, -1) if n else res.reshape(0, 0)
            if res.shape[0] != n:
                raise InvalidInstanceError(f"resources has {res.shape[0]} rows, expected {n}",
                                           argument="resources", value=res.shape)
            _bad("resources", res, np.isinf(res), "must be finite (NaN = unknown)")
            _bad("resources", res, res < 0, "must be >= 0")
            k = res.shape[1]
            names = tuple(resource_names) if resource_names is not None else tuple(
                f"r{j}" for j in range(k))
            if len(names) != k:
                raise InvalidInstanceError(f"resource_names has {len(names)} names for {k} columns",
                                           argument="resource_names", value=names)
        units = require_units("resource_units", resource_units, len(names))
        ex: dict[str, np.ndarray] = {}
        for key, val in (extra or {}).items():
            if key in CORE_COLUMNS or key.startswith(_RES_PREFIX):
                raise InvalidInstanceError(f"extra column {key!r} clashes with a core column",
                                           argument="extra", value=key)
            arr = np.array(val, copy=True)
            if arr.shape[:1] != (n,):
                raise InvalidInstanceError(f"extra[{key!r}] has shape {arr.shape}, expected ({n},)",
                                           argument="extra", value=arr.shape)
            ex[key] = frozen(arr)
        self._cols = {k: frozen(v) for k, v in cols.items()}
        self._resources = frozen(res)
        self._resource_names = names
        self._resource_units = units
        self._extra = ex
        self._meta = dict(meta or {})

    # -- columns -----------------------------------------------------------------------------
    def __getattr__(self, name: str) -> np.ndarray:
        cols = object.__getattribute__(self, "_cols")
        if name in cols:
            return cols[name]
        raise AttributeError(name)

    @property
    def resources(self) -> np.ndarray:
        """(n, K) per-task resource demand (K may be 0)."""
        return self._resources

    @property
    def resource_names(self) -> tuple[str, ...]:
        return self._resource_names

    @property
    def resource_units(self) -> tuple[str | None, ...]:
        """The unit of each resource column (``None`` = not declared); see :mod:`fairalloc.workloads.units`."""
        return self._resource_units

    def convert_units(self, conversions: Mapping[str, tuple[float, str]]) -> "Workload":
        """A new workload with resource columns converted: ``{name: (factor, unit)}``.

        Each named column is multiplied by ``factor`` (units of ``unit`` per current unit) and
        declared in ``unit``; ``meta["unit_conversions"]`` records what was done.

        Parameters
        ----------
        conversions : mapping of str to (float, str)
            Resource name -> (positive finite factor, new unit).

        Returns
        -------
        Workload

        Raises
        ------
        InvalidInstanceError
            An unknown resource name, or a factor that is not positive and finite.

        Examples
        --------
        Alibaba 2017 memory is normalised to the largest machine; read one unit as 384 GB:

        >>> wl = Workload(submit=[0], run_time=[1], resources=[[1.0, 0.5]], resource_names=("cpu", "memory"),
        ...               resource_units=("cores", "normalised"))
        >>> out = wl.convert_units({"memory": (384, "GB")})
        >>> out.resources.tolist(), out.resource_units, out.meta["unit_conversions"]
        ([[1.0, 192.0]], ('cores', 'GB'), [{'resource': 'memory', 'from': 'normalised', 'to': 'GB', 'factor': 384.0}])
        """
        res = self._resources.copy()
        units = list(self._resource_units)
        done = list(self._meta.get("unit_conversions", []))
        for name, conv in conversions.items():
            if name not in self._resource_names:
                raise InvalidInstanceError(f"convert_units: no resource {name!r}; resources: {list(self._resource_names)}",
                                           argument="conversions", value=name)
            try:
                factor, unit = float(conv[0]), str(conv[1])
            except (TypeError, ValueError, IndexError):
                raise InvalidInstanceError(f"convert_units: {name}={conv!r} must be (factor, unit)",
                                           argument="conversions", value=conv) from None
            if not (np.isfinite(factor) and factor > 0):
                raise InvalidInstanceError(f"convert_units: {name} factor={factor!r} must be positive and finite",
                                           argument="conversions", value=factor)
            j = self._resource_names.index(name)
            res[:, j] *= factor
            done.append({"resource": name, "from": units[j], "to": unit, "factor": factor})
            units[j] = unit
        meta = dict(self._meta)
        meta["unit_conversions"] = done
        return self.replace(resources=res, resource_units=tuple(units), meta=meta)

    @property
    def extra(self) -> Mapping[str, np.ndarray]:
        return dict(self._extra)

    @property
    def meta(self) -> dict[str, Any]:
        """A copy of the source metadata."""
        return dict(self._meta)

    def __len__(self) -> int:
        return int(self._cols["submit"].shape[0])

    @property
    def n_users(self) -> int:
        """Number of distinct known users (``-1`` not counted)."""
        u = self._cols["user"]
        return int(np.unique(u[u >= 0]).size)

    @property
    def n_tasks(self) -> int:
        return int(self._cols["tasks"].sum())

    def __repr__(self) -> str:
        src = self._meta.get("source", "")
        res = f", resources={list(self._resource_names)}" if self._resource_names else ""
        if any(self._resource_units):
            res += f" in {list(self._resource_units)}"
        return f"Workload({len(self)} jobs, {self.n_users} users{res}{', source=' + repr(src) if src else ''})"

    # -- derived workloads ---------------------------------------------------------------------
    def _kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = dict(self._cols)
        kw.update(resources=self._resources, resource_names=self._resource_names,
                  resource_units=self._resource_units, extra=self._extra, meta=self._meta)
        return kw

    def replace(self, **changes: Any) -> "Workload":
        """A new workload with some columns (or ``meta``/``extra``) replaced; validated again."""
        kw = self._kwargs()
        kw.update(changes)
        return Workload(**kw)

    def take(self, indices: Any) -> "Workload":
        """Rows ``indices`` (integer positions or a boolean mask), in that order."""
        idx = np.asarray(indices)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        kw = {k: v[idx] for k, v in self._cols.items()}
        kw.update(resources=self._resources[idx], resource_names=self._resource_names,
                  resource_units=self._resource_units, extra={k: v[idx] for k, v in self._extra.items()}, meta=self._meta)
        return Workload(**kw)

    def head(self, n: int) -> "Workload":
        return self.take(np.arange(min(int(n), len(self))))

    def sorted(self) -> "Workload":
        """Rows ordered by submission time; ties keep their current order (stable)."""
        return self.take(np.argsort(self._cols["submit"], kind="stable"))

    # -- tables and files --------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One pandas column per core column, one ``res:<name>`` column per resource, then extras."""
        data: dict[str, Any] = dict(self._cols)
        for j, name in enumerate(self._resource_names):
            data[_RES_PREFIX + name] = self._resources[:, j]
        data.update(self._extra)
        return pd.DataFrame(data)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, meta: Mapping[str, Any] | None = None,
                   resource_units: Sequence[str | None] | None = None) -> "Workload":
        """Inverse of :meth:`to_frame`; missing optional core columns take their defaults."""
        if "submit" not in frame or "run_time" not in frame:
            raise InvalidInstanceError("a workload table needs at least 'submit' and 'run_time'",
                                       argument="frame", value=list(frame.columns))
        kw: dict[str, Any] = {c: frame[c].to_numpy() for c in CORE_COLUMNS if c in frame}
        res_cols = [c for c in frame.columns if str(c).startswith(_RES_PREFIX)]
        if res_cols:
            kw["resources"] = frame[res_cols].to_numpy(dtype=float)
            kw["resource_names"] = [c[len(_RES_PREFIX):] for c in res_cols]
            kw["resource_units"] = resource_units
        kw["extra"] = {c: frame[c].to_numpy() for c in frame.columns
                       if c not in CORE_COLUMNS and c not in res_cols}
        return cls(meta=meta, **kw)

    def to_parquet(self, path: str | Path) -> Path:
        """Write the table to one Parquet file; ``meta`` goes into the file's key-value metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = Path(path)
        table = pa.Table.from_pandas(self.to_frame(), preserve_index=False)
        md = dict(table.schema.metadata or {})
        md[b"fairalloc.workload.meta"] = json.dumps(self._meta, default=str).encode()
        md[b"fairalloc.workload.resource_units"] = json.dumps(list(self._resource_units)).encode()
        pq.write_table(table.replace_schema_metadata(md), path)
        return path

    @classmethod
    def read_parquet(cls, path: str | Path) -> "Workload":
        """Read a file written by :meth:`to_parquet`."""
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        raw = (table.schema.metadata or {}).get(b"fairalloc.workload.meta")
        meta = json.loads(raw) if raw else {}
        units = (table.schema.metadata or {}).get(b"fairalloc.workload.resource_units")
        return cls.from_frame(table.to_pandas(), meta=meta, resource_units=json.loads(units) if units else None)

    def equals(self, other: "Workload") -> bool:
        """Same columns (NaN equal to NaN), resources, resource names and extras."""
        if not isinstance(other, Workload) or len(self) != len(other):
            return False
        if (self._resource_names != other._resource_names or self._resource_units != other._resource_units
                or set(self._extra) != set(other._extra)):
            return False
        same = all(np.array_equal(v, other._cols[k], equal_nan=v.dtype.kind == "f")
                   for k, v in self._cols.items())
        same = same and np.array_equal(self._resources, other._resources, equal_nan=True)
        return same and all(np.array_equal(v, other._extra[k]) for k, v in self._extra.items())
