"""Reader for the Alibaba cluster traces' ``batch_task`` tables (v2017 and v2018).

* **v2017** ([1]_): task_create_time, task_end_time (s from trace start), job_id, task_id,
  number_of_instances, status (Terminated / Waiting / Running / Failed ...), CPUs requested per
  instance (100 = 1 core), normalised memory requested per instance. A header row (as in
  ``shared/data/alibaba-2017``) is detected and skipped.
* **v2018** ([2]_, used by TV-TSF): no header; task_name (encodes the DAG: ``M5_3_4`` is task 5
  depending on 3 and 4), instance_num, job_name (``j_123``), task_type, status, start_time,
  end_time, plan_cpu (100 = 1 core), plan_mem (normalised 0-100).

One row per task (a group of ``tasks`` identical instances): ``submit`` = create time (v2017) or
start time (v2018: the table has no creation time), ``run_time`` = end - that time when the task
ended (NaN otherwise), ``resources`` = (``cpu`` in cores, ``memory`` normalised), ``status`` codes
1 Terminated, 0 Failed, 5 Cancelled, 2 Waiting, 3 Running, 4 Ready, -1 other (names in
``meta["status_codes"]``). Neither table has users: ``users="job"`` makes each job a user;
``users=k`` maps jobs to ``k`` users uniformly with ``rng`` (seeded, documented in ``meta``).
Rows with 0 instances are dropped and counted (``meta["dropped_zero_instances"]``).

References
----------
.. [1] Alibaba, cluster-trace-v2017, https://github.com/alibaba/clusterdata (research use).
.. [2] Alibaba, cluster-trace-v2018 ``batch_task`` schema, same repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..rng import as_generator
from ..errors import InvalidInstanceError
from ._files import reading, require_file
from .workload import Workload

__all__ = ["read_alibaba", "STATUS_CODES"]

STATUS_CODES = {"Terminated": 1, "Failed": 0, "Cancelled": 5, "Waiting": 2, "Running": 3, "Ready": 4}
_V2017 = ["create_time", "end_time", "job_id", "task_id", "instances", "status", "cpu", "memory"]
_V2018 = ["task_name", "instances", "job_name", "task_type", "status", "start_time", "end_time",
          "cpu", "memory"]


def _has_header(path: Path, numeric_column: int) -> bool:
    """A header row is one whose always-numeric column (instances) is not a number."""
    import gzip
    opener = gzip.open if path.suffix == ".gz" else open
    with reading(path, line=[1]), opener(path, "rt", encoding="utf-8") as fh:
        fields = fh.readline().split(",")
    first = fields[numeric_column].strip() if len(fields) > numeric_column else ""
    try:
        float(first)
        return False
    except ValueError:
        return True


def _numeric(df: pd.DataFrame, col: str, path: Path, offset: int) -> np.ndarray:
    out = pd.to_numeric(df[col], errors="coerce")
    bad = out.isna() & df[col].notna() & (df[col].astype(str).str.strip() != "")
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InvalidInstanceError(f"{path}:{row + 1 + offset}: column {col!r} is not a number: "
                                   f"{df[col].iloc[row]!r}", argument="path", index=(row + 1 + offset,),
                                   value=df[col].iloc[row])
    return out.to_numpy(float)


def read_alibaba(path: str | Path, *, version: int = 2017, users: str | int = "job",
                 rng: Any = None, chunksize: int = 1_000_000) -> Workload:
    """Read an Alibaba ``batch_task`` CSV (v2017 or v2018 layout) into a task :class:`Workload`.

    Parameters
    ----------
    path : str or Path
        CSV (optionally ``.gz``), read in chunks of ``chunksize`` rows.
    version : {2017, 2018}
    users : "job" or int
        How jobs become users (the tables have none): one user per job, or ``k`` users with jobs
        mapped uniformly at random by ``rng``.
    rng : int or numpy.random.Generator, optional
        Only used with ``users=k``.
    chunksize : int, default 1000000
        Rows per chunk read by pandas.

    Returns
    -------
    Workload
        One row per task, sorted by submit: ``job_id``, ``user``, ``submit`` (s), ``run_time`` (s,
        NaN unless ended), ``tasks`` = instances, ``resources`` (``cpu`` cores, ``memory``
        normalised), ``status`` (codes in the module docstring); ``extra["task_id"]`` (2017) or
        ``extra["task_name"]`` (2018); ``meta`` counts what was dropped.

    Raises
    ------
    InvalidInstanceError
        ``version`` not 2017 or 2018, a field that is not a number, a damaged gzip stream or a line
        pandas cannot split (naming file and line).
    FileNotFoundError, IsADirectoryError
        ``path`` does not exist, or is a directory.

    Examples
    --------
    A v2017 table of two rows of job 3, written to a temporary file: task 4 (5 instances of 0.5
    core, created at 100, ended at 160: run 60 s) and task 5 (1 instance created at 90, still
    waiting: run NaN). Rows are sorted by submit, so task 5 comes first:

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "batch_task.csv"
    ...     _ = p.write_text("100,160,3,4,5,Terminated,50,0.0079\\n90,0,3,5,1,Waiting,100,0.01\\n")
    ...     wl = read_alibaba(p, version=2017)
    >>> wl.submit.tolist(), wl.tasks.tolist(), wl.run_time.tolist(), wl.resources[:, 0].tolist()
    ([90.0, 100.0], [1, 5], [nan, 60.0], [1.0, 0.5])
    >>> wl.status.tolist(), wl.user.tolist()
    ([2, 1], [0, 0])
    """
    path = Path(path)
    if version not in (2017, 2018):
        raise InvalidInstanceError(f"version={version!r} must be 2017 or 2018", argument="version",
                                   value=version)
    require_file(path, "batch_task file")
    names = _V2017 if version == 2017 else _V2018
    header = 0 if _has_header(path, 4 if version == 2017 else 1) else None
    with reading(path), pd.read_csv(path, header=header, names=names, chunksize=chunksize, dtype=str,
                                    skipinitialspace=True, keep_default_na=False) as chunks:
        frames = list(chunks)
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({n: [] for n in names})
    off = 1 if header == 0 else 0
    inst = _numeric(df, "instances", path, off)
    cpu = _numeric(df, "cpu", path, off) / 100.0
    mem = _numeric(df, "memory", path, off)
    end = _numeric(df, "end_time", path, off)
    if version == 2017:
        sub = _numeric(df, "create_time", path, off)
        job = _numeric(df, "job_id", path, off)
        extra = {"task_id": _numeric(df, "task_id", path, off)}
    else:
        sub = _numeric(df, "start_time", path, off)
        job_str = df["job_name"].astype(str)
        job = pd.to_numeric(job_str.str.extract(r"(\d+)$")[0], errors="coerce").to_numpy(float)
        job = np.where(np.isnan(job), -1, job)
        extra = {"task_name": df["task_name"].astype(str).to_numpy(),
                 "task_type": df["task_type"].astype(str).to_numpy()}
    status = df["status"].astype(str).str.strip().map(STATUS_CODES).fillna(-1).to_numpy(np.int64)
    keep = (inst > 0) & np.isfinite(sub) & (sub >= 0)
    dropped_zero = int((~(inst > 0)).sum())
    dropped_time = int(((inst > 0) & ~(np.isfinite(sub) & (sub >= 0))).sum())
    run = np.where(np.isfinite(end) & (end > 0) & (end >= sub), end - sub, np.nan)
    jobs = job[keep].astype(np.int64)
    if users == "job":
        _, user = np.unique(jobs, return_inverse=True)
        mapping = "one user per job (users numbered in job-id order)"
    elif isinstance(users, (int, np.integer)) and not isinstance(users, bool) and users >= 1:
        gen = as_generator(rng)
        uj, inv = np.unique(jobs, return_inverse=True)
        user = gen.integers(0, int(users), uj.size)[inv]
        mapping = f"jobs mapped uniformly at random to {int(users)} users (seeded rng)"
    else:
        raise InvalidInstanceError(f"users={users!r} must be 'job' or a positive integer",
                                   argument="users", value=users)
    order = np.argsort(sub[keep], kind="stable")
    meta = {"source": str(path), "format": f"alibaba-{version}", "user_mapping": mapping,
            "status_codes": STATUS_CODES, "dropped_zero_instances": dropped_zero,
            "dropped_missing_time": dropped_time,
            "submit": "task create time" if version == 2017 else "task start time (no create time)"}
    return Workload(job_id=jobs[order], user=user[order], submit=sub[keep][order],
                    run_time=run[keep][order], tasks=inst[keep][order], status=status[keep][order],
                    resources=np.c_[cpu, mem][keep][order], resource_names=("cpu", "memory"),
                    resource_units=("cores", "normalised" if version == 2017 else "normalised x100"),
                    extra={k: v[keep][order] for k, v in extra.items()}, meta=meta)
