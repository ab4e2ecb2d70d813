r"""Task workloads for the multi-resource schedulers: cleaning, the mean utilisation R, conversions.

The readers (:func:`~fairalloc.workloads.read_google2011`, :func:`~fairalloc.workloads.read_alibaba`)
return what the trace says, including rows a task scheduler cannot use; the generators
(:func:`~fairalloc.workloads.google_like`, :func:`~fairalloc.workloads.alibaba_like`) return clean
task workloads directly. :func:`prepare_tasks` makes a trace usable, saying in ``meta`` what it did:

* **zero demand** (every resource 0, as many Google 2011 tasks): dropped, as the SDRF paper does
  ("tasks with zero demand ... removed", Section 7). Task schedulers rank users by shares; a task
  without demand has none.
* **unknown run time** (NaN: the Google 2011 *subset* has no durations at all, an Alibaba task that
  had not ended, a Google attempt cut by the end of the file): ``"drop"`` (default; the simulator
  would reject these rows anyway), ``"resample"`` (draw from the run times that *are* known in the
  same workload, with ``rng``), or a number of seconds. For the Google subset, where no run time is
  known, the reader's ``duration="end"`` (time of the last recorded event minus the trace start: an
  upper bound) is the other option; ``prepare_tasks`` refuses ``"resample"`` when nothing is known.
* **zero run time**: dropped (a task must occupy resources for some time; TV-TSF durations are
  >= 1 slot).
* ``merge=True`` merges rows that are the same job, user, submission time, run time and demand into
  one row of several tasks (the Google readers give one row per task; the simulator's cost is per
  row and per launch, so merging speeds it up without changing any schedule).

:func:`mean_utilization` is the SDRF paper's *R*: the trace's mean use of each resource,
:math:`R_r = \sum_j k_j\, d_{jr}\, \mathrm{run}_j / H` (tasks, per-task demand, run time) over the
horizon *H* of the submissions; the paper sizes the pool from 50% to 100% of *R*
(:meth:`fairalloc.sim.ResourcePool.from_workload`).

:func:`from_time_varying` turns a :class:`~fairalloc.TimeVaryingInstance` with per-user constant
demands into a slotted workload (one row per user and slot with arrivals), so that the simulator's
``tvtsf`` policy and :func:`~fairalloc.scheduling.tvtsf_greedy` can be run on the same input.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Section 7.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..rng import as_generator
from ..errors import InvalidInstanceError
from .workload import Workload

__all__ = ["prepare_tasks", "mean_utilization", "from_time_varying"]

logger = logging.getLogger(__name__)


def _require_resources(workload: Workload, argument: str = "workload") -> None:
    if not isinstance(workload, Workload):
        raise InvalidInstanceError(f"{argument} must be a Workload, got {type(workload).__name__}",
                                   argument=argument, value=type(workload).__name__)
    if workload.resources.shape[1] == 0:
        raise InvalidInstanceError(f"{argument} has no resource columns: task schedulers need a demand "
                                   "vector per task", argument=argument, value=repr(workload))


def mean_utilization(workload: Workload, /, *, horizon: float | None = None) -> np.ndarray:
    r"""The mean use *R* of each resource over the trace (SDRF paper, Section 7): (K,) array.

    :math:`R_r = \sum_j k_j d_{jr} \mathrm{run}_j / H`, over rows with a known run time and demand.
    ``horizon`` *H* defaults to the span of submissions (last - first); when every task is submitted
    at once (span 0) it is the span to the last expected end, :math:`\max_j(\mathrm{submit}_j +
    \mathrm{run}_j) - \min_j \mathrm{submit}_j`.

    Parameters
    ----------
    workload : Workload
        A task workload (with ``resources``).
    horizon : float, optional
        *H* in the workload's time unit (> 0).

    Returns
    -------
    ndarray, shape (K,)

    Examples
    --------
    Two jobs over 100 s: 2 tasks of <0.5, 1> for 50 s and 1 task of <1, 0> for 100 s:
    R = (2 * 0.5 * 50 + 100, 2 * 1 * 50) / 100 = (1.5, 1.0).

    >>> wl = Workload(submit=[0, 100], run_time=[50, 100], tasks=[2, 1], resources=[[0.5, 1], [1, 0]])
    >>> mean_utilization(wl).tolist()
    [1.5, 1.0]
    """
    _require_resources(workload)
    run, res, k = workload.run_time, workload.resources, workload.tasks
    ok = np.isfinite(run) & np.isfinite(res).all(axis=1)
    if not ok.any():
        raise InvalidInstanceError("no row has a known run time and demand: R is undefined",
                                   argument="workload", value=repr(workload))
    sub = workload.submit[ok]
    if horizon is None:
        horizon = float(sub.max() - sub.min())
        if horizon <= 0:
            horizon = float((sub + run[ok]).max() - sub.min())
    if not (np.isfinite(horizon) and horizon > 0):
        raise InvalidInstanceError(f"horizon={horizon!r} must be finite and > 0", argument="horizon",
                                   value=horizon)
    return (k[ok, None] * res[ok] * run[ok, None]).sum(axis=0) / float(horizon)


def prepare_tasks(workload: Workload, /, *, unknown_run_time: Any = "drop", merge: bool = False,
                  rng: Any = None) -> Workload:
    """A task workload the schedulers can run: see the module docstring for every rule.

    Parameters
    ----------
    workload : Workload
        With resource columns.
    unknown_run_time : {"drop", "resample"} or float
    merge : bool
        Merge identical rows of one job into one row of several tasks.
    rng : int or numpy.random.Generator, optional
        For ``"resample"``.

    Returns
    -------
    Workload
        Sorted by submission time; ``meta["prepared"]`` counts what was dropped, filled or merged.

    Raises
    ------
    InvalidInstanceError
        A bad ``unknown_run_time``; ``"resample"`` with no known run time; ``"drop"`` when every row with
        a demand has an unknown run time (nothing would be left: the message says how to fill them).

    Examples
    --------
    >>> wl = Workload(submit=[0, 0, 5, 5], run_time=[10, np.nan, 0, 10], job_id=[1, 1, 2, 3],
    ...               resources=[[0.1, 0.1], [0.2, 0.1], [0.1, 0.1], [0, 0]])
    >>> out = prepare_tasks(wl)
    >>> len(out), out.meta["prepared"]
    (1, {'zero_demand': 1, 'unknown_run_time': 1, 'zero_run_time': 1, 'filled_run_time': 0, 'merged_rows': 0})
    """
    _require_resources(workload)
    res = workload.resources
    run = workload.run_time.copy()
    zero_demand = np.isfinite(res).all(axis=1) & ~(res > 0).any(axis=1)
    unknown = np.isnan(run)
    filled = 0
    if isinstance(unknown_run_time, str):
        if unknown_run_time == "resample":
            known = run[~unknown & (run > 0)]
            if unknown.any():
                if not known.size:
                    raise InvalidInstanceError(
                        "unknown_run_time='resample' needs some known run times; this workload has none "
                        "(for the Google 2011 subset use read_google2011(..., duration='end'))",
                        argument="unknown_run_time", value=unknown_run_time)
                run[unknown] = as_generator(rng).choice(known, size=int(unknown.sum()))
                filled = int(unknown.sum())
                unknown = np.zeros_like(unknown)
        elif unknown_run_time != "drop":
            raise InvalidInstanceError(f"unknown_run_time={unknown_run_time!r} must be 'drop', 'resample' "
                                       "or a number of seconds", argument="unknown_run_time",
                                       value=unknown_run_time)
    else:
        v = float(unknown_run_time)
        if not (np.isfinite(v) and v > 0):
            raise InvalidInstanceError(f"unknown_run_time={unknown_run_time!r} must be > 0",
                                       argument="unknown_run_time", value=unknown_run_time)
        run[unknown] = v
        filled = int(unknown.sum())
        unknown = np.zeros_like(unknown)
    zero_run = ~unknown & (run <= 0)
    unknown_demand = ~np.isfinite(res).all(axis=1)
    keep = ~(zero_demand | unknown | zero_run | unknown_demand)
    if len(keep) and not keep.any() and (unknown & ~zero_demand & ~unknown_demand).any():
        raise InvalidInstanceError(
            f"every row with a demand has an unknown run time ({int(unknown.sum())} rows), so dropping them "
            "leaves nothing to schedule; fill them (unknown_run_time='resample' or a number of seconds), or "
            "for the Google 2011 subset, which has no run times, read it with read_google2011(..., "
            "duration='end') (fairalloc simulate: --workload google2011:PATH,duration=end)",
            argument="unknown_run_time", value=unknown_run_time)
    wl = workload.replace(run_time=run).take(np.flatnonzero(keep)).sorted()
    merged = 0
    if merge and len(wl):
        key = np.column_stack([wl.job_id, wl.user, wl.submit, wl.run_time, wl.resources])
        _, first, inv = np.unique(key, axis=0, return_index=True, return_inverse=True)
        inv = inv.reshape(-1)
        counts = np.bincount(inv, weights=wl.tasks).astype(np.int64)
        order = np.sort(first)                               # keep the first row of each group
        group_of_first = inv[order]
        merged = len(wl) - order.size
        wl = wl.take(order).replace(tasks=counts[group_of_first]).sorted()
    meta = wl.meta
    meta["prepared"] = {"zero_demand": int(zero_demand.sum()), "unknown_run_time": int(unknown.sum()),
                        "zero_run_time": int(zero_run.sum()), "filled_run_time": filled,
                        "merged_rows": int(merged)}
    if unknown_demand.any():
        meta["prepared"]["unknown_demand"] = int(unknown_demand.sum())
    logger.info("prepare_tasks: %s", meta["prepared"])
    return wl.replace(meta=meta)


def from_time_varying(tv: Any, /, *, slot: float = 1.0) -> Workload:
    r"""A slotted task workload from a :class:`~fairalloc.TimeVaryingInstance` with constant demands.

    One row per user *i* and slot *t* with :math:`B_i(t) > 0`: ``user`` *i*, ``submit`` ``t * slot``,
    ``tasks`` :math:`B_i(t)`, ``resources`` :math:`d_i`, ``run_time`` :math:`e_i` ``* slot``. Per-slot
    demands or weights that change over time have no workload equivalent (a task keeps the demand of
    its job): such instances are refused.

    Parameters
    ----------
    tv : TimeVaryingInstance
        With demands and weights constant over the slots.
    slot : float, default 1.0
        Slot length (the workload's time unit per slot).

    Returns
    -------
    Workload
        Rows ordered by slot, then user; ``resources`` named as the cluster's resources.

    Raises
    ------
    TypeError
        ``tv`` is not a :class:`~fairalloc.TimeVaryingInstance`.
    InvalidInstanceError
        Demands or weights that change over time (naming the user), or a ``slot`` that is not a
        positive, finite number.

    Examples
    --------
    User 0 submits 3 tasks in slot 0 (1 slot each), user 1 submits 2 in slot 1 (2 slots each):

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 8]], [[2, 4], [1, 1]], arrivals=[[3, 0], [0, 2]], durations=[1, 2])
    >>> wl = from_time_varying(tv)
    >>> wl.user.tolist(), wl.submit.tolist(), wl.tasks.tolist(), wl.run_time.tolist()
    ([0, 1], [0.0, 1.0], [3, 2], [1.0, 2.0])
    """
    from ..model import TimeVaryingInstance

    if not isinstance(tv, TimeVaryingInstance):
        raise TypeError(f"tv must be a fairalloc.TimeVaryingInstance, got {type(tv).__name__}")
    if isinstance(slot, bool) or not isinstance(slot, (int, float, np.integer, np.floating)) \
            or not np.isfinite(slot) or slot <= 0:
        raise InvalidInstanceError(f"slot={slot!r} must be a positive, finite number (the slot length)",
                                   argument="slot", value=slot)
    d = tv.task_demands
    if not np.all(d == d[:, :1, :]):
        i = int(np.flatnonzero(~np.all(d == d[:, :1, :], axis=(1, 2)))[0])
        raise InvalidInstanceError(f"task_demands of user {i} change over time: a workload task keeps "
                                   "its job's demand", argument="task_demands", index=(i,))
    w = tv.weights
    if not np.all(w == w[:, :1]):
        i = int(np.flatnonzero(~np.all(w == w[:, :1], axis=1))[0])
        raise InvalidInstanceError(f"weights of user {i} change over time", argument="weights", index=(i,))
    users, slots = np.nonzero(tv.arrivals)
    order = np.lexsort((users, slots))
    users, slots = users[order], slots[order]
    return Workload(submit=slots * float(slot), run_time=tv.durations[users] * float(slot),
                    tasks=tv.arrivals[users, slots], user=users, resources=d[users, 0, :],
                    resource_names=tv.cluster.resource_names, resource_units=tv.cluster.resource_units,
                    status=np.ones(users.size),
                    meta={"source": "TimeVaryingInstance", "time_unit": "slot", "slot": float(slot),
                          "slots": int(tv.n_slots)})
