"""Reader for Google clusterdata-2011-2 ``task_events`` (official layout and the ``;`` subset).

**Official layout** (Reiss et al. [1]_; CSV, no header, empty = absent), 13 columns: 0 time (µs; the
trace starts at 600 s, 0 = before the trace), 1 missing info, 2 job id, 3 task index, 4 machine id,
5 event type (0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING,
8 UPDATE_RUNNING), 6 user (hash), 7 scheduling class, 8 priority, 9 CPU request, 10 memory request,
11 disk request, 12 different-machines restriction. Events of each task are paired into *attempts*:
an attempt opens at a SUBMIT, starts at the next SCHEDULE and closes at the next EVICT / FAIL /
FINISH / KILL / LOST. ``submit`` is the SUBMIT time, ``run_time`` = close - SCHEDULE (NaN when either
is missing from the file), ``status`` the closing event type (-1 if still open), requests from the
attempt's SUBMIT row (falling back to any row of the attempt).

**Subset layout** (``shared/data/google-2011-subset``): ``;``-separated, no header, 10 columns:
0 time (always 0), 1 job id, 2 task index, 3 user hash, 4 scheduling class, 5 priority, 6 a µs
timestamp, 7 a µs timestamp or -1, 8 CPU request, 9 memory request. *Assumption made here:* column 6
is the time of the task's last recorded event (its end, or when the subset was cut), column 7 is an
unidentified second timestamp; both are kept as ``extra["end_time"]`` and ``extra["time2"]`` (seconds,
NaN for -1). Every task is taken as submitted at time 0 (column 0) and its run time as unknown
(NaN), unless ``duration="end"`` asks for ``end_time - 600 s`` (an upper bound on the run time,
since the trace starts at 600 s).

Users are hashes; they become integer ids ``0..U-1`` in order of first appearance, with the hashes
in ``meta["user_names"]``. Times are converted to seconds.

References
----------
.. [1] C. Reiss, J. Wilkes, J. L. Hellerstein, "Google cluster-usage traces: format + schema",
   Google Inc., 2011 (revised 2014).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from ..validation import require_choice
from ..errors import InvalidInstanceError
from ._files import reading, require_file
from .workload import Workload

__all__ = ["read_google2011", "EVENT_TYPES"]

logger = logging.getLogger(__name__)

EVENT_TYPES = {0: "SUBMIT", 1: "SCHEDULE", 2: "EVICT", 3: "FAIL", 4: "FINISH", 5: "KILL", 6: "LOST",
               7: "UPDATE_PENDING", 8: "UPDATE_RUNNING"}
_TERMINAL = (2, 3, 4, 5, 6)
_OFFICIAL = ["time", "missing", "job_id", "task_index", "machine", "event", "user", "sched_class",
             "priority", "cpu", "memory", "disk", "different_machines"]
_SUBSET = ["time", "job_id", "task_index", "user", "sched_class", "priority", "end_time", "time2",
           "cpu", "memory"]
_TRACE_START_S = 600.0
#: Units of the requests: both normalised to the largest machine's capacity (Reiss et al., format).
UNITS = ("normalised", "normalised")


def _sniff(path: Path) -> str:
    import gzip
    opener = gzip.open if path.suffix == ".gz" else open
    with reading(path, line=[1]), opener(path, "rt", encoding="utf-8") as fh:
        first = fh.readline()
    if first.count(";") == len(_SUBSET) - 1:
        return "subset"
    if first.count(",") == len(_OFFICIAL) - 1:
        return "official"
    raise InvalidInstanceError(
        f"{path}:1: neither the official 13-column task_events layout nor the ';' subset layout: "
        f"{first.strip()[:120]!r}", argument="path", index=(1,), value=first)


def _read(paths: list[Path], names: list[str], sep: str, chunksize: int, numeric: Iterable[str]) -> pd.DataFrame:
    """Every file's rows, chunk by chunk; a column of ``numeric`` holding a word is refused with its file and line."""
    frames = []
    for p in paths:
        line = [0]
        with reading(p, line=line), pd.read_csv(p, sep=sep, header=None, names=names, chunksize=chunksize,
                                                dtype={"user": str}, na_values=[""], keep_default_na=False) as chunks:
            for chunk in chunks:
                if chunk.shape[1] != len(names):
                    raise InvalidInstanceError(f"{p}: expected {len(names)} columns", argument="path",
                                               value=str(p))
                _check_numeric(chunk, numeric, p, line[0])
                line[0] += len(chunk)
                frames.append(chunk)
    if not frames:
        return pd.DataFrame({n: [] for n in names})
    return pd.concat(frames, ignore_index=True)


def _check_numeric(df: pd.DataFrame, cols: Iterable[str], path: Path, before: int) -> None:
    """Refuse a word in a number column, naming file and line (``before``: lines of the file before ``df``)."""
    for c in cols:
        if not pd.api.types.is_numeric_dtype(df[c]):
            bad = (pd.to_numeric(df[c], errors="coerce").isna() & df[c].notna()).to_numpy()
            if not bad.any():
                continue
            row = int(np.flatnonzero(bad)[0])
            line = before + row + 1
            raise InvalidInstanceError(f"{path}:{line}: column {c!r} is not a number: {df[c].iloc[row]!r}",
                                       argument="path", index=(line,), value=df[c].iloc[row])


def read_google2011(path: str | Path | Iterable[str | Path], *, layout: str = "auto",
                    attempts: str = "last", duration: str = "unknown",
                    chunksize: int = 1_000_000) -> Workload:
    """Read Google 2011 ``task_events`` file(s) into a task :class:`Workload` (one row per task).

    Parameters
    ----------
    path : path or iterable of paths
        One file or several part files (``part-00000-of-00500.csv.gz`` ...), read in chunks.
    layout : {"auto", "official", "subset"}
        See the module docstring; ``"auto"`` looks at the first line.
    attempts : {"last", "all"}
        Official layout: keep only the last attempt of each task, or every attempt (one row each,
        ``extra["attempt"]`` numbers them from 0).
    duration : {"unknown", "end"}
        Subset layout only: run time NaN, or ``end_time - 600 s`` (an upper bound).
    chunksize : int
        Rows per chunk read by pandas.

    Returns
    -------
    Workload
        ``job_id``, ``user`` (integer codes), ``submit`` (s), ``run_time`` (s), ``tasks`` = 1,
        ``resources`` (``cpu``, ``memory``: normalised requests), ``status`` (closing event type),
        ``extra`` = ``task_index``, ``priority``, ``sched_class`` (+ ``attempt`` or ``end_time``,
        ``time2``); ``meta["assumption"]`` states the column reading used.

    Raises
    ------
    InvalidInstanceError
        A bad choice, a line of neither layout, a word in a number column, a damaged gzip stream or
        a line pandas cannot split (each naming file and line).
    FileNotFoundError, IsADirectoryError
        A path that does not exist, or is a directory.

    Examples
    --------
    Official layout, one task of job 1 (user ``userA``): SUBMIT at 950 s, SCHEDULE at 1000 s, FINISH
    at 1300 s (times in µs in the file), so run time 300 s and status 4 (FINISH):

    >>> import tempfile, pathlib
    >>> rows = ("950000000,,1,0,,0,userA,3,9,0.125,0.07,0.0004,0\\n"
    ...         "1000000000,,1,0,m2,1,userA,3,9,0.125,0.07,0.0004,0\\n"
    ...         "1300000000,,1,0,m2,4,userA,3,9,0.125,0.07,0.0004,0\\n")
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "part-00000-of-00500.csv"
    ...     _ = p.write_text(rows)
    ...     wl = read_google2011(p)
    >>> wl.submit.tolist(), wl.run_time.tolist(), wl.status.tolist(), wl.resources.tolist()
    ([950.0], [300.0], [4], [[0.125, 0.07]])
    >>> wl.meta["user_names"]
    ['userA']
    """
    paths = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    for p in paths:
        require_file(p, "task_events file")
    layout = require_choice("layout", layout, ("auto", "official", "subset"))
    attempts = require_choice("attempts", attempts, ("last", "all"))
    duration = require_choice("duration", duration, ("unknown", "end"))
    if layout == "auto":
        kinds = {_sniff(p) for p in paths}
        if len(kinds) != 1:
            raise InvalidInstanceError("files mix the official and subset layouts", argument="path",
                                       value=[str(p) for p in paths])
        layout = kinds.pop()
    src = ", ".join(str(p) for p in paths)
    if layout == "subset":
        df = _read(paths, _SUBSET, ";", chunksize, ["time", "job_id", "task_index", "sched_class", "priority",
                                                    "end_time", "time2", "cpu", "memory"])
        codes, uniques = pd.factorize(df["user"], sort=False)
        end = df["end_time"].to_numpy(float)
        t2 = df["time2"].to_numpy(float)
        end_s = np.where(end >= 0, end / 1e6, np.nan)
        run = np.full(len(df), np.nan) if duration == "unknown" else np.maximum(end_s - _TRACE_START_S, 0)
        assumption = ("subset layout: column 6 = time of the task's last recorded event (end), "
                      "column 7 = unidentified timestamp; submit = column 0 (0); run time "
                      + ("unknown (NaN)" if duration == "unknown" else "= end - 600 s (upper bound)"))
        return Workload(job_id=df["job_id"].to_numpy(), user=codes,
                        submit=df["time"].to_numpy(float) / 1e6, run_time=run,
                        resources=df[["cpu", "memory"]].to_numpy(float), resource_names=("cpu", "memory"),
                        resource_units=UNITS,
                        extra={"task_index": df["task_index"].to_numpy(np.int64),
                               "sched_class": df["sched_class"].to_numpy(np.int64),
                               "priority": df["priority"].to_numpy(np.int64),
                               "end_time": end_s, "time2": np.where(t2 >= 0, t2 / 1e6, np.nan)},
                        meta={"source": src, "format": "google2011-subset", "assumption": assumption,
                              "user_names": [str(u) for u in uniques]})
    df = _read(paths, _OFFICIAL, ",", chunksize, ["time", "job_id", "task_index", "event", "sched_class",
                                                  "priority", "cpu", "memory"])
    df = df.assign(seq=np.arange(len(df))).sort_values(["job_id", "task_index", "time", "seq"],
                                                       kind="stable")
    ev = df["event"].to_numpy(np.int64)
    key = ["job_id", "task_index"]
    df["attempt"] = (pd.Series(ev == 0, index=df.index).groupby([df[k] for k in key]).cumsum() - 1)
    df = df[df["attempt"] >= 0]  # events before the task's first SUBMIT in these files: no attempt
    ev = df["event"].to_numpy(np.int64)
    t = df["time"].to_numpy(float) / 1e6
    g = df.assign(t_sub=np.where(ev == 0, t, np.nan), t_sched=np.where(ev == 1, t, np.nan),
                  t_end=np.where(np.isin(ev, _TERMINAL), t, np.nan),
                  end_event=np.where(np.isin(ev, _TERMINAL), ev, -1))
    agg = g.groupby(key + ["attempt"], sort=True).agg(
        submit=("t_sub", "min"), start=("t_sched", "min"), end=("t_end", "min"),
        user=("user", "first"), cpu=("cpu", "first"), memory=("memory", "first"),
        priority=("priority", "first"), sched_class=("sched_class", "first"),
        status=("end_event", "max")).reset_index()
    if attempts == "last":
        agg = agg.groupby(key, sort=False).tail(1)
    agg = agg.sort_values(["submit", "job_id", "task_index", "attempt"], kind="stable")
    codes, uniques = pd.factorize(agg["user"], sort=False)
    run = np.array(agg["end"] - agg["start"], dtype=float)
    run[run < 0] = np.nan
    return Workload(job_id=agg["job_id"].to_numpy(), user=codes, submit=agg["submit"].to_numpy(float),
                    run_time=run, resources=agg[["cpu", "memory"]].to_numpy(float),
                    resource_names=("cpu", "memory"), resource_units=UNITS,
                    status=agg["status"].to_numpy(np.int64),
                    extra={"task_index": agg["task_index"].to_numpy(np.int64),
                           "attempt": agg["attempt"].to_numpy(np.int64),
                           "priority": agg["priority"].fillna(-1).to_numpy(np.int64),
                           "sched_class": agg["sched_class"].fillna(-1).to_numpy(np.int64)},
                    meta={"source": src, "format": "google2011", "attempts": attempts,
                          "assumption": "official layout: attempt = SUBMIT .. next terminal event; "
                                        "run time = terminal - SCHEDULE",
                          "user_names": [str(u) for u in uniques]})
