r"""Metrics of task-scheduler simulations (SDRF Section 7, TV-TSF Section 3), from a SimulationResult.

A task workload's row is a *job* of identical tasks (:mod:`fairalloc.sim.engine`); the result keeps
every launch ``(job, tasks, server, start, end)``. Definitions, in the workload's time unit (seconds,
or slots for slotted workloads):

* **user waiting time** (TV-TSF): the user's first submission to the start of its first task,
  :math:`\min_{j \in u} \mathrm{start}_j - \min_{j \in u} \mathrm{submit}_j` (NaN while none started);
* **task queuing time** (TV-TSF): each task's submission to its start; one value per task;
* **job completion time** (TV-TSF): a job's submission to the end of its last task; a *job* is a
  ``job_id`` of the workload (several rows may share one: the Google readers give one row per task);
  NaN while a task of it has not finished;
* **completed-task ratio** (SDRF Fig. 5): per user, the tasks finished by the horizon over the tasks
  submitted by then; the horizon defaults to the last submission of the workload (the trace's end;
  undefined, so the ratios NaN, when every task is submitted at one instant: pass ``horizon``);
* **utilisation per resource**: resources held by running tasks over the cluster totals, a step
  function of time per resource, and its mean over ``[first submit, last end]``.

``per_user`` gathers the per-user figures in one table; ``resource_utilization`` the step function;
both are written to Parquet by :meth:`fairalloc.sim.SimulationResult.to_parquet` for task results.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Section 7, Fig. 4-5.
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Section 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["user_waiting_times", "task_queuing_times", "job_completion_times", "completed_tasks",
           "per_user", "resource_utilization", "mean_resource_utilization", "summary"]


def _launches(result: Any) -> pd.DataFrame:
    if result.launches is None:
        raise ValueError("task metrics need a task simulation (launches); this result has rigid jobs only")
    return result.launches


def _horizon(result: Any, horizon: float | None) -> float:
    if horizon is not None:
        return float(horizon)
    if not len(result.jobs):
        return 0.0
    sub = result.jobs["submit"]
    # every task submitted at one instant (e.g. the Google 2011 subset, which has no submit times): the
    # last submission is no trace end, and a ratio taken there would read 0 for everyone: undefined (NaN)
    return float(sub.max()) if sub.max() > sub.min() else float("nan")


def user_waiting_times(result: Any, /) -> pd.Series:
    """Per user: first submission -> first task start (NaN for a user none of whose tasks started).

    Parameters
    ----------
    result : SimulationResult
        A simulation (rigid or task).

    Returns
    -------
    pandas.Series
        ``user_wait`` indexed by user, in the workload's time unit.

    Examples
    --------
    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> user_waiting_times(fa.simulate(wl, [1.0], policy="drf")).tolist()
    [0.0, 4.0]
    >>> user_waiting_times(fa.simulate(wl, [1.0], policy="drf", ties="index")).tolist()
    [0.0, 5.0]

    By hand: user 0's first task holds the pool 0..5; at 5 both users hold nothing (dominant share
    0). The tie goes to user 1, whose pending task (submitted at 1) has waited longer than user 0's
    (submitted at 2): user 1 starts at 5 (wait 4) and user 0's second task at 6. With
    ``ties="index"`` user 0 (lower index) runs 5..6 and user 1 starts at 6 (wait 5).
    """
    j = result.jobs
    g = j.groupby("user", sort=True)
    return (g["start"].min() - g["submit"].min()).rename("user_wait")


def task_queuing_times(result: Any, /) -> np.ndarray:
    """One value per started task: its start minus its job's submission (launch order).

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).

    Returns
    -------
    ndarray
        Task queuing times (a launch of k tasks gives k equal values).

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): queuing times 0, 5 - 1 = 4, 6 - 2 = 4 in launch order:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> task_queuing_times(r).tolist()
    [0.0, 4.0, 4.0]
    """
    lf = _launches(result)
    submit = result.jobs.set_index("row")["submit"]
    wait = lf["start"].to_numpy() - submit.loc[lf["job"].to_numpy()].to_numpy()
    return np.repeat(wait, lf["tasks"].to_numpy())


def job_completion_times(result: Any, /) -> pd.Series:
    """Per ``job_id``: first submission -> end of the last task (NaN while unfinished).

    Parameters
    ----------
    result : SimulationResult

    Returns
    -------
    pandas.Series
        ``completion`` indexed by ``job_id``.

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): jobs 0, 1, 2 complete in 5 - 0, 7 - 2 and 6 - 1, all 5:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> job_completion_times(r).tolist()
    [5.0, 5.0, 5.0]
    """
    j = result.jobs
    g = j.groupby("job_id", sort=True)
    end = g["end"].max().where(g["finished"].all())
    return (end - g["submit"].min()).rename("completion")


def completed_tasks(result: Any, /, *, horizon: float | None = None) -> pd.DataFrame:
    """Per user: tasks submitted by ``horizon``, tasks finished by it, and their ratio (SDRF Fig. 5).

    ``horizon`` defaults to the last submission time. Launches count by their end time. Every user
    of the result has a row (ratio NaN when it had submitted nothing by the horizon).

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).
    horizon : float, optional
        The time the counts are taken at.

    Returns
    -------
    pandas.DataFrame
        Index ``user``; columns ``submitted``, ``completed`` (int) and ``completed_ratio``.

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7). By t = 6 user 0 submitted 2 tasks and finished 1 (the one ending at 7 is
    not done); user 1 submitted and finished 1:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> completed_tasks(r, horizon=6).values.tolist()
    [[2.0, 1.0, 0.5], [1.0, 1.0, 1.0]]
    """
    h = _horizon(result, horizon)
    j = result.jobs
    sub = j[j["submit"].to_numpy() <= h].groupby("user")["tasks"].sum()
    lf = _launches(result)
    user_of = j.set_index("row")["user"]
    done_l = lf[lf["end"].to_numpy() <= h]
    done = done_l.groupby(user_of.loc[done_l["job"].to_numpy()].to_numpy())["tasks"].sum()
    users = np.unique(j["user"].to_numpy())
    out = pd.DataFrame({"submitted": sub.reindex(users, fill_value=0),
                        "completed": done.reindex(users, fill_value=0)}, index=users)
    out = out.astype({"submitted": np.int64, "completed": np.int64})
    out["completed_ratio"] = out["completed"] / out["submitted"].where(out["submitted"] > 0)
    out.index.name = "user"
    return out


def per_user(result: Any, /, *, horizon: float | None = None) -> pd.DataFrame:
    """One row per user: ``user_wait``, ``mean_queuing`` (tasks), ``mean_completion`` (its jobs),
    ``submitted``, ``completed`` (by the horizon), ``completed_ratio``.

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).
    horizon : float, optional
        As :func:`completed_tasks`.

    Returns
    -------
    pandas.DataFrame
        Column ``user`` then the figures above, one row per user.

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): user 0 waits 0 and queues 0 and 4 (mean 2); user 1 waits and queues 4;
    every job completes in 5:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> per_user(r, horizon=6)[["user", "user_wait", "mean_queuing", "mean_completion"]].values.tolist()
    [[0.0, 0.0, 2.0, 5.0], [1.0, 4.0, 4.0, 5.0]]
    """
    j = result.jobs
    lf = _launches(result)
    user_of = j.set_index("row")["user"]
    submit_of = j.set_index("row")["submit"]
    users = user_of.loc[lf["job"].to_numpy()].to_numpy()
    q = (lf["start"].to_numpy() - submit_of.loc[lf["job"].to_numpy()].to_numpy()) * lf["tasks"].to_numpy()
    mean_q = pd.Series(q).groupby(users).sum() / lf["tasks"].groupby(users).sum()
    comp = job_completion_times(result)
    job_user = j.groupby("job_id")["user"].first()
    mean_c = comp.groupby(job_user.loc[comp.index].to_numpy()).mean()
    out = pd.DataFrame({"user_wait": user_waiting_times(result)})
    out = out.join(pd.DataFrame({"mean_queuing": mean_q, "mean_completion": mean_c}), how="left")
    out = out.join(completed_tasks(result, horizon=horizon), how="left")
    out.index.name = "user"
    return out.reset_index()


def resource_utilization(result: Any, /) -> pd.DataFrame:
    """Step function of the fraction of every resource in use: ``time`` then one column per resource.

    A row's values hold from its time until the next row's.

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).

    Returns
    -------
    pandas.DataFrame
        ``time`` and one column per resource name (fractions of the totals).

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): the pool of 1 is full from 0 to 7, empty after:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> resource_utilization(r).values.tolist()
    [[0.0, 1.0], [5.0, 1.0], [6.0, 1.0], [7.0, 0.0]]
    """
    lf = _launches(result)
    names = list(result.resource_names)
    cols = [f"amount:{n}" for n in names]
    s, e = lf["start"].to_numpy(), lf["end"].to_numpy()
    keep = ~(np.isnan(s) | np.isnan(e))
    t = np.concatenate([s[keep], e[keep]])
    if t.size == 0:
        return pd.DataFrame({"time": [], **{n: [] for n in names}})
    order = np.argsort(t, kind="stable")
    last = np.r_[t[order][1:] != t[order][:-1], True]
    data = {"time": t[order][last]}
    for name, col, total in zip(names, cols, result.capacity):
        a = lf[col].to_numpy()[keep]
        use = np.cumsum(np.concatenate([a, -a])[order])[last]
        use[np.abs(use) < 1e-9 * max(total, 1.0)] = 0.0
        data[name] = use / total
    return pd.DataFrame(data)


def mean_resource_utilization(result: Any, /) -> dict[str, float]:
    """Busy resource-time over total x (last end - first submit), per resource.

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).

    Returns
    -------
    dict
        Resource name -> mean utilisation in [0, 1] (0 for an empty run).

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): 7 units of busy time over 1 x (7 - 0):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> mean_resource_utilization(r)
    {'r0': 1.0}
    """
    lf = _launches(result)
    s, e = lf["start"].to_numpy(), lf["end"].to_numpy()
    ok = ~(np.isnan(s) | np.isnan(e))
    span = result.makespan
    out = {}
    for name, total in zip(result.resource_names, result.capacity):
        a = lf[f"amount:{name}"].to_numpy()
        out[name] = float(((e - s) * a)[ok].sum() / (total * span)) if span > 0 else 0.0
    return out


def summary(result: Any, /, *, horizon: float | None = None) -> dict[str, Any]:
    """Headline figures: means of the three TV-TSF times, completed-task ratio, utilisation.

    Parameters
    ----------
    result : SimulationResult
        A task simulation (with ``launches``).
    horizon : float, optional
        As :func:`completed_tasks`.

    Returns
    -------
    dict
        ``policy``, ``users``, ``tasks``, ``mean_user_wait``, ``mean_task_queuing``,
        ``mean_job_completion``, ``completed_by_horizon`` (finished over submitted tasks by the
        horizon) and ``utilization:<resource>``.

    Raises
    ------
    ValueError
        ``result`` has rigid jobs only (no launches).

    Examples
    --------
    The workload of :func:`user_waiting_times` (by hand there: job 0 runs 0..5, job 2 of user 1,
    submitted at 1, runs 5..6, job 1 of user 0, submitted at 2, runs 6..7): user waits 0 and 4 (mean 2), task queuing 0, 4, 4 (mean 8/3), completions
    5, 5, 5, and 2 of the 3 tasks done by t = 6:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [1.0], policy="drf")
    >>> s = summary(r, horizon=6)
    >>> s["mean_user_wait"], round(s["mean_task_queuing"], 4), s["mean_job_completion"], round(s["completed_by_horizon"], 4)
    (2.0, 2.6667, 5.0, 0.6667)
    """
    uw = user_waiting_times(result)
    q = task_queuing_times(result)
    c = job_completion_times(result)
    ct = completed_tasks(result, horizon=horizon)
    out = {"policy": result.policy, "users": int(len(uw)), "tasks": int(result.jobs["tasks"].sum()),
           "mean_user_wait": float(uw.mean()), "mean_task_queuing": float(q.mean()) if q.size else np.nan,
           "mean_job_completion": float(c.mean()),
           "completed_by_horizon": (float(ct["completed"].sum() / ct["submitted"].sum())
                                    if ct["submitted"].sum() else np.nan)}
    out.update({f"utilization:{k}": v for k, v in mean_resource_utilization(result).items()})
    return out
