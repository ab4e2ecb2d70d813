r"""Metrics of a simulation: per-job, per-user and summary tables, bounded slowdown, utilisation.

Definitions (per job *j*, times in the workload's unit, seconds unless stated):

* wait :math:`w_j` = start - submit; response = end - submit; run :math:`r_j` = end - start (the
  time actually executed, i.e. the walltime when the job was killed);
* bounded slowdown (Feitelson et al. [1]_; learned-priorities paper Eq. 1 with
  :math:`\tau = 10` s): :math:`\mathrm{bsld}_j = \max\{(w_j + r_j) / \max(r_j, \tau), 1\}`;
  AVEbsld is its mean over finished jobs;
* utilisation over time: resources in use / total, a step function of time; mean utilisation =
  busy resource-time / (total x (last end - first submit));
* makespan = last end - first submit.

For task workloads a job starts with its first task and ends with its last; ``launches`` keeps
every launch ``(job, tasks, server, start, end, killed)``. A task simulation is summarised by the task
metrics (:mod:`fairalloc.sim.task_metrics`: waiting, queuing and completion times, utilisation of
*every* resource), not by the bounded slowdown of rigid jobs: its :meth:`SimulationResult.summary`,
``repr``, :meth:`~SimulationResult.utilization` and :meth:`~SimulationResult.mean_utilization` say so.

References
----------
.. [1] D. G. Feitelson, L. Rudolph, U. Schwiegelshohn, K. C. Sevcik, P. Wong, "Theory and practice
   in parallel job scheduling", JSSPP 1997 (bounded slowdown).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

__all__ = ["SimulationResult", "bounded_slowdown", "ave_bsld", "utilization_over_time", "TAU"]

#: Bounded-slowdown threshold in seconds (learned-priorities paper, Eq. 1).
TAU = 10.0


def bounded_slowdown(wait: Any, run: Any, tau: float = TAU) -> np.ndarray:
    """:math:`\\max\\{(w + r) / \\max(r, \\tau), 1\\}` elementwise (learned-priorities paper Eq. 1).

    Parameters
    ----------
    wait : array_like
        Waits :math:`w` (seconds).
    run : array_like
        Run times :math:`r` (seconds), same shape.
    tau : float, default :data:`TAU` (10 s)
        The bound on short run times.

    Returns
    -------
    ndarray
        Bounded slowdowns (>= 1; NaN where an input is NaN).

    Examples
    --------
    >>> bounded_slowdown([0, 90, 30], [100, 10, 5]).tolist()   # (0+100)/100, (90+10)/10, (30+5)/10
    [1.0, 10.0, 3.5]
    """
    w = np.asarray(wait, dtype=float)
    r = np.asarray(run, dtype=float)
    return np.maximum((w + r) / np.maximum(r, tau), 1.0)


def ave_bsld(wait: Any, run: Any, tau: float = TAU) -> float:
    """AVEbsld (learned-priorities paper Eq. 1): mean bounded slowdown (NaN entries ignored).

    Parameters
    ----------
    wait, run : array_like
        Waits and run times (seconds), as :func:`bounded_slowdown`.
    tau : float, default :data:`TAU` (10 s)

    Returns
    -------
    float
        The mean, or NaN when every entry is NaN (or there is none).

    Examples
    --------
    >>> ave_bsld([0, 90, 30], [100, 10, 5])   # (1 + 10 + 3.5) / 3
    4.833333333333333
    """
    b = bounded_slowdown(wait, run, tau)
    b = b[~np.isnan(b)]
    return float(b.mean()) if b.size else float("nan")


def utilization_over_time(start: Any, end: Any, amount: Any, total: float) -> pd.DataFrame:
    """Step function of the fraction of ``total`` in use: rows ``time``, ``in_use``, ``utilization``.

    Each interval ``[start, end)`` uses ``amount``; the value in a row holds from its time until the
    next row's.

    Parameters
    ----------
    start, end : array_like, shape (n,)
        Interval bounds; intervals with a NaN bound (never started or unfinished) are left out.
    amount : array_like, shape (n,)
        Amount each interval uses.
    total : float
        The capacity the fraction is of.

    Returns
    -------
    pandas.DataFrame
        Columns ``time``, ``in_use``, ``utilization``, one row per distinct time.

    Examples
    --------
    Two intervals of 2 units on a total of 4: [0, 10) and [5, 20) overlap on [5, 10):

    >>> utilization_over_time([0, 5], [10, 20], [2, 2], 4).values.tolist()
    [[0.0, 2.0, 0.5], [5.0, 4.0, 1.0], [10.0, 2.0, 0.5], [20.0, 0.0, 0.0]]
    """
    s = np.asarray(start, dtype=float)
    e = np.asarray(end, dtype=float)
    a = np.asarray(amount, dtype=float)
    keep = ~(np.isnan(s) | np.isnan(e))
    t = np.concatenate([s[keep], e[keep]])
    d = np.concatenate([a[keep], -a[keep]])
    if t.size == 0:
        return pd.DataFrame({"time": [], "in_use": [], "utilization": []})
    order = np.argsort(t, kind="stable")
    t, d = t[order], d[order]
    last = np.r_[t[1:] != t[:-1], True]
    use = np.cumsum(d)[last]
    use[np.abs(use) < 1e-9 * max(total, 1.0)] = 0.0
    return pd.DataFrame({"time": t[last], "in_use": use, "utilization": use / total})


class SimulationResult:
    """Outcome of one simulation: tables, summary and files.

    Attributes
    ----------
    jobs : pandas.DataFrame
        One row per admitted job: ``row`` (position in the workload), ``job_id``, ``user``,
        ``submit``, ``start``, ``end``, ``wait``, ``response``, ``run``, ``requested_time``,
        ``processors``, ``tasks``, ``killed``, ``bsld``, ``finished``.
    rejected : pandas.DataFrame
        ``row``, ``job_id``, ``reason`` of the jobs that could never run.
    launches : pandas.DataFrame or None
        Task workloads: every launch (``job`` = workload row).
    policy : str
    enforce_walltime : bool
        Whether jobs were killed at their requested time (True) or ran to completion (False).
    capacity : numpy.ndarray
        Total of each resource (``resource_names``).
    resource_names : tuple of str
    stats : dict
        The policy's figures of the run (decisions, wake-ups, ...).
    meta : dict
        ``workload`` (its source) and ``n_workload_rows``.
    preemptions : pandas.DataFrame or None
        A policy that preempts (``kueue`` with ``preemption=``): one row per eviction
        (:func:`fairalloc.sim.preemption.reference_kueue_run`); None otherwise.

    Examples
    --------
    The example of :func:`~fairalloc.simulate`: 4 processors, FCFS; jobs of 3 and 2 processors
    submitted at 0, a 1-processor job at 1. Starts 0, 10, 10: waits 0, 10, 9, bounded slowdowns
    (0 + 10)/10 = 1, (10 + 5)/10 = 1.5, (9 + 5)/10 = 1.4 (run 5 < tau = 10), mean 1.3; makespan 15;
    utilisation (3*10 + 2*5 + 1*5) / (4*15) = 0.75:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> r = fa.simulate(wl, 4)
    >>> r.jobs["bsld"].tolist(), r.avebsld, r.makespan, r.mean_utilization()
    ([1.0, 1.5, 1.4], 1.3, 15.0, 0.75)
    >>> r
    SimulationResult(policy='fcfs', 3/3 jobs finished, 0 rejected, AVEbsld=1.3, mean wait=6.333, jobs exceeding their request: run to completion)
    """

    def __init__(self, jobs: pd.DataFrame, rejected: pd.DataFrame, *, policy: str,
                 enforce_walltime: bool, capacity: Any, resource_names: tuple[str, ...],
                 launches: pd.DataFrame | None = None, stats: Mapping[str, Any] | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
        self.jobs = jobs
        self.rejected = rejected
        self.launches = launches
        self.policy = policy
        self.enforce_walltime = bool(enforce_walltime)
        self.capacity = np.asarray(capacity, dtype=float)
        self.resource_names = tuple(resource_names)
        self.stats = dict(stats or {})
        self.meta = dict(meta or {})
        self.preemptions: pd.DataFrame | None = None

    @classmethod
    def from_run(cls, workload: Any, *, start: np.ndarray, end: np.ndarray, killed: np.ndarray,
                 rejected: list[tuple[int, str]], launches: Mapping[str, np.ndarray] | None,
                 policy: str, state: Any, enforce_walltime: bool,
                 stats: Mapping[str, Any]) -> "SimulationResult":
        rej_rows = np.array([r for r, _ in rejected], dtype=np.int64)
        mask = np.ones(len(workload), dtype=bool)
        mask[rej_rows] = False
        rows = np.flatnonzero(mask)
        s, e = start[rows], end[rows]
        sub = workload.submit[rows]
        wait = s - sub
        run = e - s
        jobs = pd.DataFrame({
            "row": rows, "job_id": workload.job_id[rows], "user": workload.user[rows], "submit": sub,
            "start": s, "end": e, "wait": wait, "response": e - sub, "run": run,
            "requested_time": workload.requested_time[rows], "processors": workload.processors[rows],
            "tasks": workload.tasks[rows], "killed": killed[rows],
            "bsld": bounded_slowdown(wait, run), "finished": ~np.isnan(e)})
        rej = pd.DataFrame({"row": rej_rows, "job_id": workload.job_id[rej_rows],
                            "reason": [why for _, why in rejected]})
        lf = None
        if launches is not None:
            lf = pd.DataFrame(launches)
            jj = lf["job"].to_numpy()
            per_task = (workload.resources[jj, 0] if workload.resources.shape[1]
                        else workload.processors[jj].astype(float))
            lf["amount"] = lf["tasks"].to_numpy() * per_task
            res = workload.resources
            if res.shape[1] == len(state.resource_names):    # per-resource amounts (task metrics)
                for k, name in enumerate(state.resource_names):
                    lf[f"amount:{name}"] = lf["tasks"].to_numpy() * res[jj, k]
        meta = {"workload": workload.meta.get("source", ""), "n_workload_rows": len(workload)}
        return cls(jobs, rej, policy=policy, enforce_walltime=enforce_walltime,
                   capacity=state.totals, resource_names=tuple(state.resource_names),
                   launches=lf, stats=stats, meta=meta)

    # -- metrics -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def finished(self) -> pd.DataFrame:
        return self.jobs[self.jobs["finished"].to_numpy()]

    @property
    def makespan(self) -> float:
        """Last end - first submit over finished jobs (0 for an empty run)."""
        f = self.finished
        return float(f["end"].max() - self.jobs["submit"].min()) if len(f) else 0.0

    @property
    def avebsld(self) -> float:
        """Mean bounded slowdown (tau = 10 s) over finished jobs; NaN when none finished."""
        f = self.finished
        return float(f["bsld"].mean()) if len(f) else float("nan")

    def _amount(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(start, end, amount, total) of every busy interval on the processors (rigid jobs)."""
        if self.launches is not None:
            lf = self.launches
            amt = lf["tasks"].to_numpy(float)
            if "amount" in lf:
                amt = lf["amount"].to_numpy(float)
            return lf["start"].to_numpy(), lf["end"].to_numpy(), amt, float(self.capacity[0])
        j = self.jobs
        return (j["start"].to_numpy(), j["end"].to_numpy(), j["processors"].to_numpy(float),
                float(self.capacity[0]))

    def utilization(self) -> pd.DataFrame:
        """Utilisation over time, a step function (a row's values hold until the next row's time).

        Rigid jobs: columns ``time``, ``in_use`` (processors), ``utilization``. A task simulation
        (:attr:`is_task_result`): ``time`` and one column per resource, the fraction of its total in
        use (:meth:`resource_utilization`): every resource, not only the first.
        """
        if self.is_task_result:
            return self.resource_utilization()
        s, e, a, total = self._amount()
        return utilization_over_time(s, e, a, total)

    def mean_utilization(self) -> float:
        """Busy processor-time / (processors x makespan) of a rigid-job simulation.

        A task simulation has one figure per resource (:meth:`mean_resource_utilization`); with a
        single resource this returns it, with several it raises ``ValueError`` (no resource stands
        for the others).
        """
        if self.is_task_result:
            per = self.mean_resource_utilization()
            if len(per) == 1:
                return next(iter(per.values()))
            raise ValueError(f"a task simulation has one utilisation per resource ({', '.join(per)}): "
                             "use mean_resource_utilization()")
        s, e, a, total = self._amount()
        ok = ~(np.isnan(s) | np.isnan(e))
        span = self.makespan
        return float(((e - s) * a)[ok].sum() / (total * span)) if span > 0 else 0.0

    def mean_resource_utilization(self) -> dict[str, float]:
        """Task simulations: busy resource-time / (total x makespan) per resource name
        (:func:`fairalloc.sim.task_metrics.mean_resource_utilization`)."""
        from .task_metrics import mean_resource_utilization
        return mean_resource_utilization(self)

    def users(self) -> pd.DataFrame:
        """Per user: jobs, mean and median wait, mean response, mean bounded slowdown, killed."""
        f = self.finished
        if not len(f):
            return pd.DataFrame(columns=["user", "jobs", "mean_wait", "median_wait",
                                         "mean_response", "mean_bsld", "killed"])
        g = f.groupby("user", sort=True)
        return pd.DataFrame({"jobs": g.size(), "mean_wait": g["wait"].mean(),
                             "median_wait": g["wait"].median(), "mean_response": g["response"].mean(),
                             "mean_bsld": g["bsld"].mean(), "killed": g["killed"].sum()}).reset_index()

    def summary(self) -> dict[str, Any]:
        """One row of headline figures (``enforce_walltime`` included).

        Rigid jobs: counts, waits, ``avebsld``, ``makespan``, ``utilization`` (processors). A task
        simulation: the same counts and waits (per job: its first task's start), ``makespan``, then the
        task figures of :meth:`task_summary` (``mean_user_wait``, ``mean_task_queuing``,
        ``mean_job_completion``, ``completed_by_horizon``, ``utilization:<resource>`` for every
        resource) instead of ``avebsld`` and a single ``utilization``.
        """
        f = self.finished
        out = {"policy": self.policy, "jobs": int(len(self.jobs)), "finished": int(len(f)),
               "rejected": int(len(self.rejected)), "killed": int(f["killed"].sum()),
               "mean_wait": float(f["wait"].mean()) if len(f) else float("nan"),
               "median_wait": float(f["wait"].median()) if len(f) else float("nan"),
               "max_wait": float(f["wait"].max()) if len(f) else float("nan"),
               "mean_response": float(f["response"].mean()) if len(f) else float("nan")}
        if self.is_task_result:
            out["makespan"] = self.makespan
            out.update({k: v for k, v in self.task_summary().items() if k != "policy"})
        else:
            out.update({"avebsld": self.avebsld, "makespan": self.makespan,
                        "utilization": self.mean_utilization()})
        out["enforce_walltime"] = self.enforce_walltime
        return out

    def __repr__(self) -> str:
        s = self.summary()
        walltime = "killed at walltime" if self.enforce_walltime else "run to completion"
        head = (f"SimulationResult(policy={self.policy!r}, {s['finished']}/{s['jobs']} jobs finished, "
                f"{s['rejected']} rejected, ")
        if self.is_task_result:
            util = ", ".join(f"{n} {s[f'utilization:{n}']:.3g}" for n in self.resource_names)
            return (head + f"{s['tasks']} tasks, mean task queuing={s['mean_task_queuing']:.4g}, "
                    f"mean user wait={s['mean_user_wait']:.4g}, utilization: {util})")
        return (head + f"AVEbsld={s['avebsld']:.4g}, mean wait={s['mean_wait']:.4g}, "
                f"jobs exceeding their request: {walltime})")

    # -- task metrics (fairalloc.sim.task_metrics) --------------------------------------------
    @property
    def is_task_result(self) -> bool:
        """Whether this is a task simulation with per-resource launch amounts."""
        return self.launches is not None and all(f"amount:{n}" in self.launches for n in self.resource_names)

    def task_users(self, *, horizon: float | None = None) -> pd.DataFrame:
        """Per user: waiting time, mean task queuing and job completion times, completed-task ratio
        by ``horizon`` (:func:`fairalloc.sim.task_metrics.per_user`)."""
        from .task_metrics import per_user
        return per_user(self, horizon=horizon)

    def task_summary(self, *, horizon: float | None = None) -> dict[str, Any]:
        """Headline task figures (:func:`fairalloc.sim.task_metrics.summary`)."""
        from .task_metrics import summary
        return summary(self, horizon=horizon)

    def resource_utilization(self) -> pd.DataFrame:
        """Fraction of every resource in use over time (:func:`fairalloc.sim.task_metrics.resource_utilization`)."""
        from .task_metrics import resource_utilization
        return resource_utilization(self)

    # -- files ---------------------------------------------------------------------------------
    def to_parquet(self, directory: str | Path) -> Path:
        """Write ``jobs.parquet``, ``users.parquet``, ``rejected.parquet``, ``utilization.parquet``
        (and ``launches.parquet``; for task simulations also ``task_users.parquet`` and
        ``resource_utilization.parquet``) plus ``summary.json`` into ``directory`` (created)."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.jobs.to_parquet(d / "jobs.parquet", index=False)
        self.users().to_parquet(d / "users.parquet", index=False)
        self.rejected.to_parquet(d / "rejected.parquet", index=False)
        self.utilization().to_parquet(d / "utilization.parquet", index=False)
        if self.launches is not None:
            self.launches.to_parquet(d / "launches.parquet", index=False)
        task_info = None
        if self.is_task_result:
            self.task_users().to_parquet(d / "task_users.parquet", index=False)
            self.resource_utilization().to_parquet(d / "resource_utilization.parquet", index=False)
            task_info = self.task_summary()
        info = {"summary": self.summary(), "task_summary": task_info, "capacity": self.capacity.tolist(),
                "resource_names": list(self.resource_names), "stats": self.stats, "meta": self.meta}
        (d / "summary.json").write_text(json.dumps(info, indent=2, default=str))
        return d

    @classmethod
    def read_parquet(cls, directory: str | Path) -> "SimulationResult":
        """Inverse of :meth:`to_parquet`."""
        d = Path(directory)
        info = json.loads((d / "summary.json").read_text())
        lf = pd.read_parquet(d / "launches.parquet") if (d / "launches.parquet").exists() else None
        return cls(pd.read_parquet(d / "jobs.parquet"), pd.read_parquet(d / "rejected.parquet"),
                   policy=info["summary"]["policy"],
                   enforce_walltime=info["summary"]["enforce_walltime"], capacity=info["capacity"],
                   resource_names=tuple(info["resource_names"]), launches=lf, stats=info["stats"],
                   meta=info["meta"])
