r"""Training states (S, Q) of the learned-priorities method.

The paper (Section 2) simulates a homogeneous cluster of 256 processors and two lists of jobs: **S**,
16 jobs "scheduled in any order and executed at the beginning of the simulation" so that the
cluster is realistically busy, and **Q**, 32 jobs "executed right after S", whose permutations are
scored. How "right after" and "already started" are realised here follows the authors' published
pipeline (``hpcsched/gen-sched-policies``, SC'17: ``generate_simulation_data.py`` and
``trials_simulator.c``), which the paper does not spell out:

* a state is a window of ``started + queued`` **consecutive jobs of a trace** sorted by submit
  time: S is its first ``started`` jobs, Q the next ``queued``; submit times are taken relative to
  the window's first job (so S's first job is submitted at 0);
* in a trial (:mod:`.reference`) the jobs are started in one list order, S in trace order then Q in
  the trial's permutation, **strictly** (no job overtakes an earlier one in the list; no
  backfilling), each no earlier than its submit time and when enough processors are free. So every
  job of S has started before any job of Q (S is "already started"), on a cluster that was empty
  at time 0, and a job of Q put first that is submitted late makes the others wait for it: that is
  what gives the submit time *s* its weight in the paper's functions.

Windows are drawn at random (``rng``) without overlap, uniformly among all placements of
``n_states`` disjoint windows in the trace (the authors draw window starts independently; disjoint
windows keep held-out states free of training jobs). For the Lublin-Feitelson model one trace of
exactly ``n_states * (started + queued)`` jobs is generated, so its windows are consecutive blocks.
A real trace (an SWF log read by :func:`fairalloc.workloads.read_swf`) is cleaned first: jobs
whose run time or processor count is unknown are dropped and counted in ``meta["dropped"]``.

Each job carries an *estimate* (its requested time when the trace has one, else its run time),
which only EASY backfilling reads.

References
----------
.. [1] D. Carastan-Santos, R. Y. de Camargo, learned nonlinear priority functions (workshop paper),
   Section 2.
.. [2] D. Carastan-Santos, R. Y. de Camargo, "Obtaining dynamic scheduling policies with simulation
   and machine learning", SC'17; code ``hpcsched/gen-sched-policies``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ...errors import InvalidInstanceError
from ...rng import as_generator

__all__ = ["States", "training_states", "PROCESSORS", "STARTED", "QUEUED"]

logger = logging.getLogger(__name__)

#: The paper's cluster size, |S| and |Q|.
PROCESSORS = 256
STARTED = 16
QUEUED = 32


def _count(argument: str, value: Any, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InvalidInstanceError(f"{argument}={value!r} must be an integer >= {least}", argument=argument,
                                   value=value)
    return int(value)


@dataclass(frozen=True, eq=False)
class States:
    """A batch of training states: ``n_states`` windows of ``started + queued`` jobs each.

    Row *i* of every array is one state; column *j* its *j*-th job, S first (columns
    ``0 .. started-1``, trace order) then Q (columns ``started ..``, trace order; a trial permutes
    them).

    Parameters
    ----------
    run_time : array_like, shape (k, m)
        Run times (seconds, finite, >= 0).
    processors : array_like of int, shape (k, m)
        Processors of each job, 1 to ``capacity``.
    submit : array_like, shape (k, m)
        Submit times relative to the window's start (seconds, finite, >= 0).
    estimate : array_like, shape (k, m), optional
        Run-time estimates for EASY backfilling (seconds, finite, >= 0); default the run times.
    capacity : int, default 256
        Processors of the homogeneous cluster.
    started : int, default 16
        |S|: the first ``started`` columns; ``m - started`` = |Q| must be at least 2.
    meta : mapping, optional
        JSON-serialisable provenance (workload, seed, window positions, dropped jobs).

    Raises
    ------
    InvalidInstanceError
        Arrays of different shapes, a queue of fewer than 2 jobs, a job wider than ``capacity``, a
        negative or non-finite time (naming the array, the (state, job) index and the value).

    Examples
    --------
    One state, no S, a queue of two jobs on 4 processors:

    >>> st = States(run_time=[[10, 20]], processors=[[4, 2]], submit=[[0, 5]], capacity=4, started=0)
    >>> len(st), st.queued, st.queue_frame(0)[["r", "n", "s"]].to_numpy().tolist()
    (1, 2, [[10.0, 4.0, 0.0], [20.0, 2.0, 5.0]])
    >>> States(run_time=[[10, 20]], processors=[[8, 2]], submit=[[0, 5]], capacity=4, started=0)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: processors[0, 0]=8 is wider than the cluster (capacity=4)
    """

    run_time: np.ndarray
    processors: np.ndarray
    submit: np.ndarray
    estimate: np.ndarray | None = None
    capacity: int = PROCESSORS
    started: int = STARTED
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        cap = _count("capacity", self.capacity, 1)
        run = np.array(self.run_time, dtype=float, ndmin=2)
        if run.ndim != 2:
            raise InvalidInstanceError(f"run_time has shape {run.shape}, expected (states, jobs)",
                                       argument="run_time", value=run.shape)
        arrays = {"run_time": run}
        for name in ("processors", "submit", "estimate"):
            raw = getattr(self, name)
            if raw is None and name == "estimate":
                arrays[name] = run.copy()
                continue
            if raw is None:
                raise InvalidInstanceError(f"{name} is required", argument=name, value=None)
            a = np.array(raw, dtype=float, ndmin=2)
            if a.shape != run.shape:
                raise InvalidInstanceError(f"{name} has shape {a.shape}, run_time {run.shape}", argument=name,
                                           value=a.shape)
            arrays[name] = a
        for name, a in arrays.items():
            bad = ~np.isfinite(a) | (a < 0)
            if bad.any():
                i, j = map(int, np.argwhere(bad)[0])
                raise InvalidInstanceError(f"{name}[{i}, {j}]={float(a[i, j])!r} must be finite and >= 0", argument=name,
                                           index=(i, j), value=float(a[i, j]))
        p = arrays["processors"]
        bad = (p != np.round(p)) | (p < 1)
        if bad.any():
            i, j = map(int, np.argwhere(bad)[0])
            raise InvalidInstanceError(f"processors[{i}, {j}]={float(p[i, j])!r} must be an integer >= 1",
                                       argument="processors", index=(i, j), value=float(p[i, j]))
        wide = p > cap
        if wide.any():
            i, j = map(int, np.argwhere(wide)[0])
            raise InvalidInstanceError(f"processors[{i}, {j}]={int(p[i, j])} is wider than the cluster "
                                       f"(capacity={cap})", argument="processors", index=(i, j), value=int(p[i, j]))
        m = run.shape[1]
        started = _count("started", self.started, 0)
        if m - started < 2:
            raise InvalidInstanceError(f"a state of {m} jobs with started={started} leaves a queue of {m - started} "
                                       "job(s); the method permutes the queue, so it needs at least 2",
                                       argument="queued", value=m - started)
        try:
            meta = json.loads(json.dumps(dict(self.meta)))
        except (TypeError, ValueError) as exc:
            raise InvalidInstanceError(f"meta is not JSON-serialisable: {exc}", argument="meta",
                                       value=str(self.meta)[:80]) from None
        for name, a in arrays.items():
            a = a.astype(np.int64) if name == "processors" else a
            a.setflags(write=False)
            object.__setattr__(self, name, a)
        object.__setattr__(self, "capacity", cap)
        object.__setattr__(self, "started", started)
        object.__setattr__(self, "meta", meta)

    def __len__(self) -> int:
        return int(self.run_time.shape[0])

    @property
    def n_jobs(self) -> int:
        """Jobs per state, |S| + |Q|."""
        return int(self.run_time.shape[1])

    @property
    def queued(self) -> int:
        """|Q|."""
        return self.n_jobs - self.started

    def state(self, i: int) -> "States":
        """State ``i`` alone (a batch of one)."""
        i = int(i)
        if not -len(self) <= i < len(self):
            raise IndexError(f"state {i} of {len(self)}")
        sl = slice(i, i + 1) if i != -1 else slice(i, None)
        return States(self.run_time[sl], self.processors[sl], self.submit[sl], self.estimate[sl],
                      capacity=self.capacity, started=self.started, meta=self.meta)

    def queue_frame(self, i: int) -> pd.DataFrame:
        """The queue Q of state ``i``: columns ``job`` (0..q-1), ``r``, ``n``, ``s`` (the features)."""
        q = slice(self.started, None)
        return pd.DataFrame({"job": np.arange(self.queued), "r": self.run_time[i, q],
                             "n": self.processors[i, q].astype(float), "s": self.submit[i, q]})

    def to_frame(self) -> pd.DataFrame:
        """Long table: ``state``, ``position`` (column), ``part`` (``"S"``/``"Q"``), ``run_time``,
        ``processors``, ``submit``, ``estimate``."""
        k, m = self.run_time.shape
        return pd.DataFrame({"state": np.repeat(np.arange(k), m), "position": np.tile(np.arange(m), k),
                             "part": np.tile(np.where(np.arange(m) < self.started, "S", "Q"), k),
                             "run_time": self.run_time.ravel(), "processors": self.processors.ravel(),
                             "submit": self.submit.ravel(), "estimate": self.estimate.ravel()})

    def to_parquet(self, path: str | Path) -> Path:
        """One Parquet file: :meth:`to_frame`, with capacity, started and meta in its metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = Path(path)
        table = pa.Table.from_pandas(self.to_frame(), preserve_index=False)
        md = dict(table.schema.metadata or {})
        md[b"fairalloc.learn.states"] = json.dumps({"capacity": self.capacity, "started": self.started,
                                                    "meta": dict(self.meta)}).encode()
        pq.write_table(table.replace_schema_metadata(md), path)
        return path

    @classmethod
    def read_parquet(cls, path: str | Path) -> "States":
        """Inverse of :meth:`to_parquet`.

        Examples
        --------
        >>> import tempfile, os
        >>> st = training_states(3, queued=4, started=2, processors=64, rng=0)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = States.read_parquet(st.to_parquet(os.path.join(d, "states.parquet")))
        >>> bool((back.submit == st.submit).all()), back.capacity, back.started, back.meta == st.meta
        (True, 64, 2, True)
        """
        import pyarrow.parquet as pq

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"states file not found: {path}")
        table = pq.read_table(path)
        raw = (table.schema.metadata or {}).get(b"fairalloc.learn.states")
        if raw is None:
            raise InvalidInstanceError(f"{path}: not a states file (no fairalloc.learn.states metadata; write it "
                                       "with States.to_parquet or `fairalloc learn states`)", argument="path",
                                       value=str(path))
        info = json.loads(raw)
        df = table.to_pandas().sort_values(["state", "position"], kind="stable")
        k = int(df["state"].max()) + 1 if len(df) else 0
        m = len(df) // k if k else 0
        if k * m != len(df):
            raise InvalidInstanceError(f"{path}: {len(df)} rows do not make {k} states of equal size",
                                       argument="path", value=str(path))
        cols = {c: df[c].to_numpy().reshape(k, m) for c in ("run_time", "processors", "submit", "estimate")}
        return cls(**cols, capacity=info["capacity"], started=info["started"], meta=info.get("meta", {}))


def _usable(workload: Any, capacity: int) -> tuple[Any, dict[str, int]]:
    """The workload's jobs sorted by submit time with unknown run times and processors dropped."""
    from ...workloads import Workload

    if not isinstance(workload, Workload):
        raise InvalidInstanceError(f"workload={type(workload).__name__} must be 'lublin' or a "
                                   "fairalloc.workloads.Workload (e.g. read_swf(path))", argument="workload",
                                   value=type(workload).__name__)
    if len(workload) == 0:
        raise InvalidInstanceError("workload has no jobs", argument="workload", value=0)
    run = workload.run_time
    known = ~np.isnan(run)
    if not known.any():
        raise InvalidInstanceError(f"workload has no run times (run_time is unknown for all {len(workload)} jobs): "
                                   "a trial needs every job's run time", argument="workload.run_time",
                                   value=float("nan"))
    procs = workload.processors
    keep = known & (procs >= 1)
    dropped = {"unknown_run_time": int((~known).sum()), "unknown_processors": int((known & (procs < 1)).sum())}
    wl = workload.take(keep).sorted()
    wide = np.flatnonzero(wl.processors > capacity)
    if wide.size:
        j = int(wide[0])
        raise InvalidInstanceError(
            f"workload job {int(wl.job_id[j])} (processors={int(wl.processors[j])}) is wider than the cluster "
            f"(processors={capacity}); {wide.size} job(s) are: give processors >= {int(wl.processors.max())} "
            f"(the trace says MaxProcs={workload.meta.get('MaxProcs', 'unknown')}) or drop them first "
            f"(workload.take(workload.processors <= {capacity}))", argument="workload.processors",
            index=(j,), value=int(wl.processors[j]))
    if dropped["unknown_run_time"] or dropped["unknown_processors"]:
        logger.info("training states: dropped %d job(s) of unknown run time and %d of unknown processors",
                    dropped["unknown_run_time"], dropped["unknown_processors"])
    return wl, dropped


def _window_starts(n_rows: int, n_states: int, width: int, gen: np.random.Generator) -> np.ndarray:
    """Starts of ``n_states`` disjoint windows of ``width`` rows, uniform over all placements.

    Choosing ``n_states`` distinct sorted values :math:`b_i` in ``range(n_rows - n_states*(width-1))``
    and setting :math:`start_i = b_i + i (width - 1)` is a bijection onto the placements.
    """
    slots = n_rows - n_states * (width - 1)
    b = np.sort(gen.choice(slots, size=n_states, replace=False))
    return b + np.arange(n_states) * (width - 1)


def training_states(n_states: int, *, workload: Any = "lublin", processors: int = PROCESSORS,
                    started: int = STARTED, queued: int = QUEUED, rng: Any = None,
                    lublin: Mapping[str, Any] | None = None) -> States:
    """Draw ``n_states`` training states (S, Q) from a workload (module docstring for the method).

    Parameters
    ----------
    n_states : int >= 1
        Number of states.
    workload : "lublin" or Workload, default "lublin"
        The Lublin-Feitelson model (:func:`fairalloc.workloads.lublin` with ``nodes=processors``
        and the typeless parameters, as the model program's ``lublin_256.swf`` the authors sampled;
        change them with ``lublin``), or a workload of rigid jobs, e.g. a real SWF log
        (:func:`fairalloc.workloads.read_swf`).
    processors : int, default 256
        Processors of the homogeneous cluster.
    started : int, default 16
        |S|, jobs started before the queue (0 allowed).
    queued : int, default 32
        |Q|, jobs whose permutations a trial scores (at least 2).
    rng : int or numpy.random.Generator, optional
        Seed of the windows (and of the Lublin trace).
    lublin : mapping, optional
        Extra keyword arguments of :func:`fairalloc.workloads.lublin` (``typed``, ``umed``,
        ``estimate``); ``n_jobs``, ``nodes`` and ``rng`` are set here.

    Returns
    -------
    States
        ``meta``: ``workload`` (what it was), ``seed`` (when ``rng`` is an int), ``window_start``
        (row of each window in the sorted, cleaned trace), ``job_id`` of each window's first job,
        ``dropped`` (jobs of unknown run time or processors).

    Raises
    ------
    InvalidInstanceError
        ``n_states``, ``started``, ``queued`` or ``processors`` out of range; a workload without run
        times; a job wider than the cluster; a trace too short for ``n_states`` disjoint windows
        (the message says how many fit).

    Examples
    --------
    Two states of the paper's shape from the model, and the windows' relative submit times (each
    starts at 0 and is non-decreasing):

    >>> st = training_states(2, rng=7)
    >>> st.run_time.shape, st.started, st.queued, st.capacity
    ((2, 48), 16, 32, 256)
    >>> st.submit[:, 0].tolist(), bool((np.diff(st.submit, axis=1) >= 0).all())
    ([0.0, 0.0], True)
    """
    n_states = _count("n_states", n_states, 1)
    processors = _count("processors", processors, 1)
    started = _count("started", started, 0)
    if isinstance(queued, bool) or not isinstance(queued, (int, np.integer)) or queued < 2:
        raise InvalidInstanceError(f"queued={queued!r} must be an integer >= 2 (a queue of one job has one "
                                   "order: nothing to learn)", argument="queued", value=queued)
    queued = int(queued)
    width = started + queued
    seed = rng if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    if isinstance(workload, str):
        if workload.lower() != "lublin":
            raise InvalidInstanceError(f"workload={workload!r} must be 'lublin' or a Workload (read an SWF log with "
                                       "fairalloc.workloads.read_swf)", argument="workload", value=workload)
        from ...workloads import lublin as lublin_model

        opts = {"typed": False, **dict(lublin or {})}
        clash = sorted({"n_jobs", "days", "nodes", "rng"} & set(opts))
        if clash:
            raise InvalidInstanceError(f"lublin={dict(lublin or {})!r}: {clash} are set by training_states",
                                       argument="lublin", value=clash)
        wl = lublin_model(n_states * width, nodes=processors, rng=gen, **opts)
        described: Any = {"model": "lublin", "nodes": processors, **{k: v for k, v in opts.items()}}
    else:
        if lublin:
            raise InvalidInstanceError("lublin= applies to workload='lublin' only", argument="lublin",
                                       value=dict(lublin))
        wl = workload
        described = {"source": str(workload.meta.get("source", "workload")), "jobs": len(workload)}
    wl, dropped = _usable(wl, processors)
    n = len(wl)
    if n_states * width > n:
        raise InvalidInstanceError(f"n_states={n_states} disjoint windows of {width} jobs need {n_states * width} "
                                   f"jobs; the workload has {n} usable: at most {n // width} states",
                                   argument="n_states", value=n_states)
    starts = _window_starts(n, n_states, width, gen)
    rows = starts[:, None] + np.arange(width)[None, :]
    submit = wl.submit[rows]
    req = wl.requested_time[rows]
    run = wl.run_time[rows]
    estimate = np.where(np.isfinite(req) & (req > 0), req, run)
    meta = {"workload": described, "seed": None if seed is None else int(seed), "window_start": starts.tolist(),
            "job_id": wl.job_id[starts].tolist(), "dropped": dropped}
    return States(run_time=run, processors=wl.processors[rows], submit=submit - submit[:, :1], estimate=estimate,
                  capacity=processors, started=started, meta=meta)
