"""Specialised loops that give the same schedule as the event engine for one policy, faster.

``simulate(..., engine="auto")`` uses them when they apply; tests check that they and the event
engine produce identical start times.
"""

from __future__ import annotations

import heapq

import numpy as np

__all__ = ["fcfs_rigid"]


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
