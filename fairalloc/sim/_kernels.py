"""Specialised loops that give the same schedule as the event engine for one policy, faster.

``simulate(..., engine="auto")`` uses them when they apply; tests check that they and the event
engine produce identical start times.
"""

from __future__ import annotations

import bisect
import heapq
import math
from itertools import islice
from operator import itemgetter

import numpy as np

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

    Reproduces, decision for decision, :class:`~fairalloc.scheduling.FCFS` with ``backfill=True``
    on the event engine (:meth:`fairalloc.scheduling.queue.QueuePolicy._easy`): at every instant
    where a job ends or arrives (ends released first, then arrivals), the queue starts in order
    until the first job that does not fit (the head); the head's *shadow time* is found by adding
    the processors of the running jobs in order of ``(max(start + requested, now), id)`` to the
    free ones until it fits, ``extra`` being what is left over for the head then; later jobs that
    fit start now, in queue order, if ``now + requested <= shadow`` or if they fit in ``extra``
    (which they then use up). Tests check start times, kills and reservations equal to the event
    engine's on hand-made ties, random workloads and Lublin workloads.

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
        Tie-breaking keys of the jobs (the workload rows; default ``0..n-1``): running jobs with
        the same expected end are counted towards the shadow in increasing id.
    reservations : dict, optional
        If given, filled like the policy's ``reservations``: id of each job that was the blocked
        head -> its first shadow time.

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

    References
    ----------
    .. [1] A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user
       runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001.
    """
    sub = submit.tolist()
    procs = processors.tolist()
    dur = duration.tolist()
    est = requested.tolist()
    key = list(range(len(sub))) if ids is None else np.asarray(ids).tolist()
    n = len(sub)
    start = [0.0] * n
    heap: list[tuple[float, int]] = []      # (actual end, job): completions
    ends: list[tuple[float, int, int]] = []  # running jobs by (start + requested, id), with procs
    push, pop = heapq.heappush, heapq.heappop
    insort, bisect_left, bisect_right = bisect.insort, bisect.bisect_left, bisect.bisect_right
    queue: list[int] = []     # waiting jobs (arrival order = increasing index)
    # levels[l]: the waiting jobs at most _LEVELS[l] wide (same order); level[p]: the first level
    # holding a job p wide (len(_LEVELS): none); pick[f]: the level to scan with f processors free
    widths = _LEVELS
    n_lv = len(widths)
    levels: list[list[int]] = [[] for _ in widths]
    top = max(max(procs, default=0), int(capacity)) + 1
    level = [bisect_left(widths, p) for p in range(top)]
    pick = level
    small = widths[0] if widths else 0
    big = widths[-1] if widths else 0
    # waiting jobs by width: a scan for backfill candidates stops after the last one narrow enough
    waiting = [0] * (max(procs, default=0) + 1)
    free = int(capacity)
    inf = math.inf
    # Nothing started or ended since the last EASY pass (`valid`): free processors, head, running
    # jobs are the same; if no running job has passed its expected end since (same `c0`), the shadow
    # and extra are too (the shadow is `now` if it fell among the late jobs), and every job the
    # last pass judged (`queue[:seen]`) fails again: it is no narrower, has no more extra, and
    # `shadow - now` has not grown. Only the arrivals since need judging.
    valid = False
    c0 = seen = extra0 = 0
    late0 = False
    shadow0 = inf
    i = 0
    while True:
        t_heap = heap[0][0] if heap else inf
        t_arr = sub[i] if i < n else inf
        now = t_heap if t_heap <= t_arr else t_arr
        if now == inf:
            break
        while heap and heap[0][0] == now:
            j = pop(heap)[1]
            free += procs[j]
            valid = False
            del ends[bisect_left(ends, (start[j] + est[j], key[j]))]
        while i < n and sub[i] == now:
            queue.append(i)
            p = procs[i]
            waiting[p] += 1
            for lv in range(level[p], n_lv):
                levels[lv].append(i)
            i += 1
        if not queue:
            continue
        # strict FCFS until the first job that does not fit
        pos = 0
        nq = len(queue)
        while pos < nq:
            j = queue[pos]
            p = procs[j]
            if p > free:
                break
            free -= p
            valid = False
            waiting[p] -= 1
            start[j] = now
            push(heap, (now + dur[j], j))
            insort(ends, (now + est[j], key[j], p))
            pos += 1
        if pos == nq:
            queue = []
            for lst in levels:
                lst.clear()
            continue
        if pos:
            h = queue[pos]
            for lst in levels:             # the jobs started: a prefix of every list
                if lst and lst[0] < h:
                    del lst[:bisect_left(lst, h)]
        if free == 0:
            if pos:
                del queue[:pos]
            continue
        # The engine scans the queue after the head and skips every job wider than the free
        # processors: scan the smallest list that holds all the others. With very few free,
        # `left` counts those that fit (the head is not one of them: it did not fit), so the scan
        # stops after the last one, and the pass is skipped when there is none.
        if free <= small:
            left = sum(waiting[:free + 1])
            if left == 0 and reservations is None:
                if pos:
                    del queue[:pos]
                seen = nq - pos      # the queue loses its first pos jobs below
                continue
        else:
            left = nq
        lst = levels[pick[free]] if free <= big else queue
        c = bisect_right(ends, (now, inf))   # jobs expected to have ended: all count as ending now
        if valid and c == c0:
            shadow = now if late0 else shadow0
            extra = extra0
            if seen == nq:
                k = len(lst)
            else:
                k = seen if lst is queue else bisect_left(lst, queue[seen])
        else:
            # EASY: the head's shadow time and extra processors
            need = procs[queue[pos]]
            avail = free
            shadow = inf
            late0 = False
            if c:
                late = ends[:c] if c > 1 else ends[:1]
                if c > 1:
                    late.sort(key=_second)
                for e in late:
                    avail += e[2]
                    if avail >= need:
                        shadow = now
                        late0 = True
                        break
            if shadow == inf:
                for e in (islice(ends, c, None) if c else ends):
                    avail += e[2]
                    if avail >= need:
                        shadow = e[0]
                        break
            extra = extra0 = avail - need
            shadow0 = shadow
            c0 = c
            valid = True
            if reservations is not None:
                reservations.setdefault(key[queue[pos]], shadow)
            k = pos + 1 if lst is queue else bisect_right(lst, queue[pos])
        back = None
        free0 = free
        for k in range(k, len(lst)):
            if not left:
                break
            j = lst[k]
            p = procs[j]
            if p > free0:       # too wide now, and free only shrinks in this pass
                continue
            left -= 1
            if p > free:
                continue
            if now + est[j] > shadow:   # ends after the shadow time: only on extra processors
                if p > extra:
                    continue
                extra -= p
            free -= p
            waiting[p] -= 1
            start[j] = now
            push(heap, (now + dur[j], j))
            insort(ends, (now + est[j], key[j], p))
            if back is None:
                back = [j]
            else:
                back.append(j)
            if free == 0:
                break
        if back is not None:
            valid = False
            for j in back:                # both lists are sorted by arrival
                del queue[bisect_left(queue, j)]
                for lv in range(level[procs[j]], n_lv):
                    lst = levels[lv]
                    del lst[bisect_left(lst, j)]
        else:
            seen = nq - pos      # the queue loses its first pos jobs below
        if pos:
            del queue[:pos]
    return np.array(start)


_second = itemgetter(1)
#: Widths of the waiting jobs also kept in lists of their own: with f processors free, the scan for
#: backfill candidates runs over the list of the jobs at most w wide for the smallest w >= f (the
#: queue if there is none), which holds every job the engine's scan does not skip.
_LEVELS = (4, 16, 64)
