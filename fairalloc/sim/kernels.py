"""Specialised loops that give the same schedule as the event engine for one policy, faster.

The EASY kernel is not a second EASY: it drives the same decision core as the event engine's
policy (:mod:`fairalloc.sim.policies.easy`) from a compiled event loop.

``simulate(..., engine="auto")`` uses them when they apply; tests check that they and the event
engine produce identical start times.
"""

from __future__ import annotations

import heapq

import numpy as np

from .policies.easy import easy_run

__all__ = ["fcfs_rigid", "easy_rigid"]


def fcfs_rigid(submit: np.ndarray, processors: np.ndarray, duration: np.ndarray,
               capacity: int) -> np.ndarray:
    """Start times of FCFS without backfilling for rigid jobs given in arrival order.

    Job *i* starts at the earliest time, not before job *i-1* started nor before it was submitted,
    at which ``processors[i]`` processors are free; ends are released lazily, only when the next
    job needs them (FCFS start times depend on nothing else).

    >>> fcfs_rigid(np.array([0., 0., 1.]), np.array([3, 2, 1]), np.array([10., 5., 5.]), 4).tolist()
    [0.0, 10.0, 10.0]
    """
    sub = submit.tolist()
    procs = processors.tolist()
    dur = duration.tolist()
    start = [0.0] * len(sub)
    heap: list[tuple[float, int]] = []
    push, pop = heapq.heappush, heapq.heappop
    free = int(capacity)
    t = 0.0
    for i in range(len(sub)):
        s = sub[i]
        if s > t:
            t = s
        p = procs[i]
        while free < p:
            e, q = pop(heap)
            free += q
            if e > t:
                t = e
        free -= p
        start[i] = t
        push(heap, (t + dur[i], p))
    return np.array(start)


def easy_rigid(submit: np.ndarray, processors: np.ndarray, duration: np.ndarray,
               requested: np.ndarray, capacity: int, *, ids: np.ndarray | None = None,
               reservations: dict | None = None) -> np.ndarray:
    """Start times of FCFS + EASY backfilling for rigid jobs given in arrival order.

    The event loop (ends released first, then arrivals, then one decision per instant) around the
    one EASY decision core, :mod:`fairalloc.sim.policies.easy`, which the event engine's
    :class:`~fairalloc.sim.FCFS` with ``backfill=True`` also calls: the whole loop is
    compiled, so it skips the engine's per-event Python calls.

    Parameters
    ----------
    submit, processors, duration : ndarray (n,)
        Arrival order (submit time non-decreasing); ``1 <= processors <= capacity`` (``simulate``
        rejects the other jobs first); ``duration`` is how long each job really runs (its run
        time, or its requested time if it is killed at its walltime).
    requested : ndarray (n,)
        What a reservation may assume (the requested time, or the run time when it is unknown).
    capacity : int
    ids : array_like of int (n,), optional
        The jobs' keys in ``reservations`` (the workload rows; default ``0..n-1``).
    reservations : dict, optional
        If given, filled like the policy's ``reservations``: id of each job that was the blocked
        head of a backfill pass -> its first shadow time.

    Returns
    -------
    ndarray (n,)

    Examples
    --------
    Four processors; job 1 (3 processors) waits for job 0's end at 10 with 1 extra processor then;
    job 2 (1 processor, ends by 10) backfills at 2:

    >>> easy_rigid(np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.]),
    ...            np.array([10., 5., 20.]), 4).tolist()
    [0.0, 10.0, 2.0]
    """
    start, resv = easy_run(submit, processors, duration, requested, capacity)
    if reservations is not None:
        key = np.arange(len(start)) if ids is None else np.asarray(ids)
        for k in np.flatnonzero(~np.isnan(resv)).tolist():
            reservations.setdefault(int(key[k]), float(resv[k]))
    return start
