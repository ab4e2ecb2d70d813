"""The simulator's one compiled loop: the event engine's order of events around the built-in decisions.

:func:`run` is :meth:`fairalloc.sim.engine.Simulation.run`'s loop (one heap of completions by end time
and launch sequence, arrivals in submission order, one reschedule point), compiled, around one of two
decision cores that the event engine's policies call too, so a built-in policy gives the same schedule
either way (the tests run both):

* rigid jobs on processors (``"fcfs"``, ``"easy"``): EASY's core, :func:`fairalloc.sim.policies.easy.step`
  (strict order without backfilling);
* tasks on a pool or on servers (``"drf"``, ``"sdrf"``, ``"tsf"``, ``"cdrf"``): the task schedulers'
  core, :func:`fairalloc.scheduling.core.schedule`, with SDRF's wake-ups while blocked (the rule of
  :class:`~fairalloc.sim.TaskPolicy`).

At each instant: every completion (releasing its resources), then every arrival, then the pending
wake-up; if any of them happened, one decision (skipped at a wake-up alone that leaves the user the
pass stopped on first: it would start nothing), then the next wake-up while blocked.

A static per-job key (``order``, a rank per job: a learned priority function evaluated once at
submission) orders the rigid queue as FCFS's arrival order does: :func:`rigid_run` takes the ranks.
With ``listed=True`` every job is queued at its rank from the start and startable from its submit
time (a list schedule: a trial of the learned-priorities method); :func:`rigid_batch` runs the loop
once per list order in one compiled call.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..errors import InvalidInstanceError
from ..scheduling import core as C
from . import preemption as P
from .policies import easy as E
from .policies import slurm_loop as S

__all__ = ["run", "rigid_run", "task_run", "RIGID", "TASKS"]
__all__ += ["rigid_batch"]      # the learned-priorities method's trials (issue 29)

RIGID, TASKS = 0, 1


def _arg(a, dtype):
    """``a`` as a C-contiguous, writable array of ``dtype`` (a copy only when it is not one): numba types a
    read-only array as another type and would compile the loop once more for it (a Workload's or a learning
    state's read-only arrays).

    >>> a = np.arange(3.0)
    >>> a.setflags(write=False)
    >>> b = _arg(a, float)
    >>> b.flags.writeable, b.tolist(), _arg(b, float) is b
    (True, [0.0, 1.0, 2.0], True)
    """
    return np.require(a, dtype=dtype, requirements=("C", "W"))


def _grow(a, m):
    """``a`` with room for ``m`` rows (not fewer than it has), its rows kept."""
    out = np.zeros((max(m, a.shape[0]),) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out


# ---- the completions: a binary heap of (end, launch sequence) with (position, tasks, server) ----------
@jit(_nrt=False)
def _before(hend, hint, i, j):
    if hend[i] != hend[j]:
        return hend[i] < hend[j]
    return hint[i, 0] < hint[j, 0]


@jit(_nrt=False)
def _hswap(hend, hint, i, j):
    hend[i], hend[j] = hend[j], hend[i]
    for c in range(4):
        hint[i, c], hint[j, c] = hint[j, c], hint[i, c]


@jit(_nrt=False)
def _push(hend, hint, n, end, seq, p, k, m):
    """One completion into the heap of n entries (room checked by the caller); returns n + 1."""
    hend[n] = end
    hint[n, 0] = seq
    hint[n, 1] = p
    hint[n, 2] = k
    hint[n, 3] = m
    c = n
    while c > 0:
        parent = (c - 1) >> 1
        if not _before(hend, hint, c, parent):
            break
        _hswap(hend, hint, c, parent)
        c = parent
    return n + 1


@jit(_nrt=False)
def _sift_down(hend, hint, c, n):
    """Entry c of the heap of n moved down to its place."""
    while True:
        x = 2 * c + 1
        if x >= n:
            break
        if x + 1 < n and _before(hend, hint, x + 1, x):
            x += 1
        if not _before(hend, hint, x, c):
            break
        _hswap(hend, hint, c, x)
        c = x


@jit(_nrt=False)
def _pop(hend, hint, n):
    """Remove the first completion (read it at row 0 before) from the heap of n; returns n - 1."""
    n -= 1
    if n > 0:
        _hswap(hend, hint, np.int64(0), n)
        _sift_down(hend, hint, np.int64(0), n)
    return n


# the loop's variables kept between calls of _loop (li: ints, lf: floats)
_I, _NWAKE, _SEQ, _EVENTS, _NLOG, _HSIZE, _PHASE, _WAKEON, _FREE = range(9)
_CLOCK, _WAKE, _WAKET, _NOWF = range(4)
# _loop's answers: all events done, more launch rows wanted (``out``), room wanted in the log and heap,
# stopped at ``until``
_DONE, _ROWS, _ROOM, _UNTIL = 0, 1, 2, 3


@jit(_nrt=False)
def _loop(kind, arr_t, dur, kill, start, end, killed, st, runs, ts, user, wakeups, wake_first,
          es, procs, est, rank, resv, backfill, scan, listed, ready, rem, started_r, out, hend, hint,
          lp, lk, lm, lt0, lt1, lkill, li, lf, until=np.inf, sl=None, ps=None):
    """The loop of :func:`run`, compiled without reference counting (it takes every array borrowed and
    allocates nothing): returns :data:`_DONE`; :data:`_ROWS` when a pass needs more launch rows
    (``li[_PHASE]`` 2: the pass resumes at the next call); :data:`_ROOM` when the log and the heap
    might not hold a pass's rows (the pass runs at the next call); :data:`_UNTIL` before the first
    instant at or after ``until`` (the instants before it done); its variables are kept in ``li`` and
    ``lf`` for the next call. Rigid jobs ask for nothing (the heap holds ``n`` completions): one call.
    ``listed``: the rigid jobs were all queued before (:func:`_list_all`), an arrival only wakes
    the loop; ``ready`` each rank's ready time (empty unless listed). ``sl``: Slurm's multifactor
    priority on the rigid jobs (:mod:`fairalloc.sim.policies.slurm_loop`: its passes, the order, the
    next pass as the wake-up); None (settled at compile time) otherwise. ``ps``: Kueue's fair-sharing
    preemption after each pass (:func:`fairalloc.sim.preemption.step`; ``li[_PHASE]`` 4: the check runs
    at the next call), None without."""
    n = arr_t.shape[0]
    tasks = kind == TASKS
    stop = st.meta[C._STOP] != 0
    limit = np.iinfo(np.int64).max
    i, n_wakeups, seq, events = li[_I], li[_NWAKE], li[_SEQ], li[_EVENTS]
    n_log, hs, phase, wake_on, free = li[_NLOG], li[_HSIZE], li[_PHASE], li[_WAKEON] != 0, li[_FREE]
    clock, wake, wake_time, now = lf[_CLOCK], lf[_WAKE], lf[_WAKET], lf[_NOWF]
    code = _DONE
    while True:
        if phase == 0:
            now = np.inf
            if hs > 0:
                now = hend[0]
            if i < n and arr_t[i] < now:
                now = arr_t[i]
            if wake_on and wake_time < now:
                now = wake_time
            if now == np.inf:
                break
            if now >= until:
                code = _UNTIL
                break
            seen = events
            while hs > 0 and hend[0] == now:                     # 1. completions
                p, k, m = hint[0, 1], hint[0, 2], hint[0, 3]
                hs = _pop(hend, hint, hs)
                if kill[p]:
                    killed[p] = True
                if tasks:
                    rem[p] -= k
                    if rem[p] == 0:
                        end[p] = now
                    if now > clock:
                        C.advance(st, runs, ts, now)
                        clock = now
                    C.release(st, runs, user[p], p, k, m)
                    C.changed(st, runs, ts, user[p])
                else:
                    end[p] = now
                    free += procs[p]
                    E.run_remove(p, start[p] + est[p], es)
                    if sl is not None:
                        S.finish(sl, p, now)
                events += 1
            while i < n and arr_t[i] == now:                    # 2. arrivals
                if tasks:
                    if now > clock:
                        C.advance(st, runs, ts, now)
                        clock = now
                    C.submit(st, runs, ts, user[i], i)
                elif sl is not None:
                    S.submit(sl, i, now)
                elif not listed:
                    E.push_at(i, procs[i], est[i], rank[i], es)
                i += 1
                events += 1
            woke = False
            if wake_on and wake_time == now:                    # 3. the wake-up
                wake_on = False
                wake_time = -1.0
                events += 1
                woke = True
            if events == seen:
                continue
            if not tasks:                                       # one decision: rigid jobs (heap room: n)
                if sl is None:
                    k, free = E.step(now, free, es, started_r, resv, backfill, scan, ready)
                else:
                    k, free = S.decide(sl, now, free, es, est, started_r, resv, backfill, scan, ready)
                for q in range(k):
                    j = es.wjob[started_r[q]]
                    start[j] = now
                    seq += 1
                    hs = _push(hend, hint, hs, now + dur[j], seq, j, np.int64(1), np.int64(0))
                if sl is not None:                              # Slurm: the next pass while a waiting job fits
                    w = S.next_wakeup(sl, free)
                    if not (wake_on and w == wake_time):
                        wake_on, wake_time = w < np.inf, (w if w < np.inf else -1.0)
                continue
            if now > clock:                                     # one decision: tasks
                C.advance(st, runs, ts, now)
                clock = now
            if not (woke and events == seen + 1 and wake_first
                    and C.first(st, runs, ts) == st.meta[C._BLOCKED]):
                if now == wake:
                    n_wakeups += 1
                phase = 1
            else:
                phase = 3
        if phase == 1 or phase == 2:
            if hs + out.shape[0] > hend.shape[0] or n_log + out.shape[0] > lp.shape[0]:
                code = _ROOM                                    # (at most one row per launch row)
                break
            n_out = C.schedule_into(st, runs, ts, limit, out, phase == 1)  # (not C.schedule: no refcounts)
            if n_out < 0:
                phase = 2
                code = _ROWS
                break
            for q in range(n_out):
                p = P.job_of(ps, out[q, 0])                     # (a requeued task's run: its job)
                k = out[q, 1]
                m = out[q, 3]
                if start[p] != start[p]:
                    start[p] = now
                seq += 1
                hs = _push(hend, hint, hs, now + dur[p], seq, p, k, m)
                lp[n_log] = p
                lk[n_log] = k
                lm[n_log] = m
                lt0[n_log] = now
                lt1[n_log] = now + dur[p]
                lkill[n_log] = kill[p]
                n_log += 1
            if ps is not None:
                phase = 4
        if phase == 4:                                          # preemption (after the pass, at the same instant)
            evicted, n_log = P.step(ps, st, runs, ts, now, hend, hint, hs, lp, lk, lm, lt0, lt1, lkill, n_log, rem,
                                    end, killed, user)
            seq = n_log                                         # (a launch's log row is its number - 1)
            if evicted == P.ROOM:
                code = _ROOM
                break
            if evicted == P.EVICTED:
                hs = _drop_empty(hend, hint, hs)
                phase = 1
                continue
        phase = 0
        w = np.inf                                          # the next wake-up while blocked
        if wakeups and stop and st.meta[C._BLOCKED] >= 0:
            t = C.next_min_change(st, runs, ts)
            if now < t < np.inf:
                wake = t
                w = t
        w = P.next_wake(ps, now, w)
        if w < np.inf:
            if not (wake_on and w == wake_time):
                wake_on = True
                wake_time = w
        else:
            wake_on = False
            wake_time = -1.0
    li[_I], li[_NWAKE], li[_SEQ], li[_EVENTS] = i, n_wakeups, seq, events
    li[_NLOG], li[_HSIZE], li[_PHASE], li[_WAKEON], li[_FREE] = n_log, hs, phase, wake_on, free
    lf[_CLOCK], lf[_WAKE], lf[_WAKET], lf[_NOWF] = clock, wake, wake_time, now
    return code


@jit(_nrt=False)
def _drop_empty(hend, hint, hs):
    """The heap of ``hs`` completions without its entries of no task (launches whose tasks were all
    evicted), re-heaped; returns its size."""
    n = np.int64(0)
    for i in range(hs):
        if hint[i, 2] > 0:
            hend[n] = hend[i]
            for c in range(4):
                hint[n, c] = hint[i, c]
            n += 1
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(hend, hint, i, n)
    return n


@jit(_nrt=False)
def _list_all(arr_t, procs, est, rank, es, ready, lo=0):
    """A listed run's start: every rigid job (of rank at least ``lo``) queued at its rank, ``ready[rank]``
    its submit time."""
    for q in range(arr_t.shape[0]):
        if rank[q] >= lo:
            E.push_at(q, procs[q], est[q], rank[q], es)
            ready[rank[q]] = arr_t[q]


def run(kind, arr_t, dur, kill, start, end, killed, counts,
        st, runs, ts, user, wakeups, wake_first,
        es, procs, est, rank, capacity, resv, backfill, scan, listed=False, sl=None, preempt=None):
    """The loop (module docstring). ``kind``: :data:`RIGID` or :data:`TASKS`; jobs are given in
    arrival order (position = run index for tasks). Rigid jobs: ``es`` EASY's state, ``procs``,
    ``est`` (what a reservation may assume), ``rank`` each job's rank in the queue's order,
    ``resv`` each rank's first shadow time; ``listed``: every rigid job is queued at its rank from the
    first instant and may start from its arrival time (:func:`rigid_run`); ``sl``: Slurm's state
    (:func:`rigid_run`'s ``slurm``). Tasks: ``st``, ``runs``,
    ``ts`` the core's state, ``user`` each job's user. ``counts`` gets [events, launches, wake-ups
    that ran a pass]; returns the launch log (position, tasks, server, start, end, killed) of task runs.
    ``preempt``: a list holding a :class:`fairalloc.sim.preemption.PreemptState` (Kueue's preemption after
    each pass), replaced by the state as it ends (its events).

    (The events are processed by ``_loop``, which allocates nothing; this function gives it the
    arrays and more room when it asks, a few times a run. It is plain Python: a compiled caller of
    ``_loop`` would link and optimise again all the code ``_loop`` calls, at its first call.)"""
    n = arr_t.shape[0]
    tasks = kind == TASKS
    ps = None if preempt is None else preempt[0]
    rem = runs.left.copy()
    m_log = max(64, n) if tasks else 1        # the launch log's columns
    lp, lk, lm = np.zeros(m_log, np.int64), np.zeros(m_log, np.int64), np.zeros(m_log, np.int64)
    lt0, lt1, lkill = np.zeros(m_log), np.zeros(m_log), np.zeros(m_log, np.bool_)
    out = np.zeros((64, 4), np.int64)
    started_r = np.zeros(max(n, 1), np.int64)
    m_heap = max(64, n) if not tasks else 256   # completions (rigid jobs: at most n)
    hend, hint = np.zeros(m_heap), np.zeros((m_heap, 4), np.int64)
    li = np.zeros(9, np.int64)
    li[_FREE] = capacity
    lf = np.array([st.par[C._NOW] if tasks else 0.0, np.nan, -1.0, 0.0])
    listed = listed and not tasks
    ready = np.empty(n if listed else 0)       # listed rigid jobs: each rank's ready time
    if listed:
        _list_all(arr_t, procs, est, rank, es, ready)
    while True:
        if sl is not None:      # rigid jobs: one call
            code = _loop(kind, arr_t, dur, kill, start, end, killed, st, runs, ts, user, wakeups, wake_first,
                         es, procs, est, rank, resv, backfill, scan, listed, ready, rem, started_r, out, hend, hint,
                         lp, lk, lm, lt0, lt1, lkill, li, lf, np.inf, sl)
        elif ps is not None:
            code = _loop(kind, arr_t, dur, kill, start, end, killed, st, runs, ts, user, wakeups, wake_first,
                         es, procs, est, rank, resv, backfill, scan, listed, ready, rem, started_r, out, hend, hint,
                         lp, lk, lm, lt0, lt1, lkill, li, lf, np.inf, None, ps)
        else:
            code = _loop(kind, arr_t, dur, kill, start, end, killed, st, runs, ts, user, wakeups, wake_first,
                         es, procs, est, rank, resv, backfill, scan, listed, ready, rem, started_r, out, hend, hint,
                         lp, lk, lm, lt0, lt1, lkill, li, lf, np.inf)   # (until given: _batch_loop's typing)
        if code == _DONE:
            break
        if code == _ROWS:
            out = C.grow_rows(out)
        extra = 0
        if ps is not None and ps.meta[P._NEED] > 0:       # preemption asked for room (rows, runs, events)
            extra = int(ps.meta[P._NEED])
            ps, runs = P.make_room(ps, runs)
            ps.meta[P._NEED] = 0
        if li[_HSIZE] + out.shape[0] > hend.shape[0]:
            m = 2 * (li[_HSIZE] + out.shape[0])
            hend, hint = _grow(hend, m), _grow(hint, m)
        if li[_NLOG] + out.shape[0] + extra > lp.shape[0]:
            m = 2 * (li[_NLOG] + out.shape[0] + extra)
            lp, lk, lm, lt0, lt1, lkill = _grow(lp, m), _grow(lk, m), _grow(lm, m), _grow(lt0, m), _grow(lt1, m), \
                _grow(lkill, m)
    n_log = li[_NLOG]
    if ps is not None:
        preempt[0] = ps                                     # (grown: the caller reads the events there)
    counts[0] = li[_EVENTS]
    counts[1] = n_log
    counts[2] = li[_NWAKE]
    return lp[:n_log], lk[:n_log], lm[:n_log], lt0[:n_log], lt1[:n_log], lkill[:n_log]


def _dummy_task_state():
    st, ts = C.new_state(np.ones((1, 1)), np.ones(1), np.ones((1, 1), bool), np.ones(1), key=0, order="heap",
                         rule=0, blocking="stop", ties="wait")
    return st, C.new_runs(1, 1), ts


def task_run(core, submit, user, tasks, demand, duration, killed, *, h=None, wakeups: bool = True,
             wake_first: bool = True, preempt=None) -> dict:
    """Tasks through :func:`run` on ``core``'s state (a :class:`fairalloc.scheduling.core.Core` with no
    run submitted yet), jobs in arrival order (``submit`` non-decreasing).

    Parameters
    ----------
    core : Core
    submit, duration : ndarray (n,)
        Arrival times and how long each job's tasks run.
    user, tasks : ndarray (n,) of int
    demand : ndarray (n, K)
    killed : ndarray (n,) of bool
        Whether the job's tasks end killed (walltime enforcement; reported only).
    h : ndarray (n,), optional
        TSF's monopoly count of each job's demand.
    wakeups, wake_first : bool
        Wake-ups while blocked; at a wake-up, run the pass only if the first user changed.
    preempt : PreemptState, optional
        Kueue's fair-sharing preemption (:func:`fairalloc.sim.preemption.new_state` for these jobs);
        the result's ``preempt`` is the state at the end (its eviction events).

    Returns
    -------
    dict
        ``start``, ``end``, ``killed`` (n,) by position; ``launches`` (position, tasks, server, start,
        end, killed); ``decisions``, ``events``, ``swaps``, ``wakeups``.
    """
    n = len(submit)
    runs = C.new_runs(max(n, 1) if preempt is None else preempt.job.shape[0], core.k)
    runs.user[:n] = user
    runs.left[:n] = tasks
    runs.next_id[:n] = np.concatenate([[0], np.cumsum(tasks)[:-1]]) if n else 0
    runs.d[:n] = demand
    if h is not None:
        runs.h[:n] = h
        need = _max_distinct(user, h)
        if need > core.st.held_h.shape[1]:
            core._grow_held(need)
    core.runs = runs
    core.st.meta[C._RUNS] = n
    start, end, kill_out = np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, bool)
    counts = np.zeros(3, np.int64)
    es = E.new_easy_state(1, 1, 1)
    z = np.zeros(1, np.int64)
    box = None if preempt is None else [preempt]
    log = run(TASKS, _arg(submit, float), _arg(duration, float),
              _arg(killed, np.bool_), start, end, kill_out, counts,
              core.st, runs, core.ts, _arg(user, np.int64), bool(wakeups), bool(wake_first),
              es, z, np.zeros(1), z, 0, np.zeros(1), False, 0, preempt=box)
    return {"start": start, "end": end, "killed": kill_out, "launches": log, "decisions": core.decisions,
            "events": int(counts[0]), "swaps": core.swaps, "wakeups": int(counts[2]),
            "preempt": None if box is None else box[0]}


def _max_distinct(user, h) -> int:
    """The largest number of distinct values of ``h`` among one user's jobs."""
    if not len(user):
        return 1
    pairs = np.unique(np.stack([np.asarray(user, dtype=float), np.asarray(h, dtype=float)]), axis=1)
    return int(np.bincount(pairs[0].astype(np.int64)).max())


def rigid_run(submit, processors, duration, requested, capacity: int, *, killed=None, rank=None,
              backfill: bool = True, scan: int = E.SCAN, listed: bool = False,
              slurm=None) -> tuple[np.ndarray, np.ndarray]:
    """Start times of rigid jobs in arrival order (``submit`` non-decreasing) on ``capacity``
    processors, in strict order of ``rank`` (default: arrival order, FCFS), with EASY backfilling
    when ``backfill``; and each rank's first shadow time as the blocked head (NaN if never).

    Parameters
    ----------
    submit, processors, duration, requested : ndarray (n,)
        ``1 <= processors <= capacity``; ``duration`` is how long each job really runs; ``requested``
        what a reservation may assume.
    capacity : int
    killed : ndarray (n,) of bool, optional
        Jobs that end killed (reported only).
    rank : ndarray (n,) of int, optional
        A permutation of ``range(n)``: each job's place in the queue's order (FCFS: arrival order).
    backfill : bool, default True
    scan : int
        A pass over at most this many ranks after the head scans them without EASY's index.
    listed : bool, default False
        A *list schedule* (a trial of the learned-priorities method): every job is queued at its
        rank from the first instant and may start from its submit time, so a job not yet submitted
        blocks the jobs ranked after it as a job that does not fit does (strict order), and with
        EASY it is the head with a reservation at the shadow time, at least its submit time, while
        later submitted jobs may backfill. Default: a job joins the queue when it is submitted.
    slurm : SlurmLoopState, optional
        Slurm's multifactor priority orders the queue instead of ``rank``
        (:func:`fairalloc.sim.policies.slurm_loop.new_state`, for these jobs in this order; it holds the
        usage, the factors and the counters after the run); not with ``listed``.

    Returns
    -------
    start : ndarray (n,)
    reservation : ndarray (n,)
        By rank.

    Examples
    --------
    Four processors; job 1 (3 wide) waits for job 0's end at 10 with 1 extra processor then; job 2
    (1 wide, ends by 10) backfills at 2; without backfilling it waits behind job 1:

    >>> s, r = rigid_run(np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.]),
    ...                  np.array([10., 5., 20.]), 4)
    >>> s.tolist(), r.tolist()
    ([0.0, 10.0, 2.0], [nan, 10.0, nan])
    >>> rigid_run(np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.]),
    ...           np.array([10., 5., 20.]), 4, backfill=False)[0].tolist()
    [0.0, 10.0, 10.0]

    Listed, job 2 ranked first: nothing starts before it is submitted at 2 (job 0 fits at 0 but
    is ranked after it); then jobs 2 and 0 (1 + 3 wide) run, and job 1 waits for job 0's end at 12:

    >>> rigid_run(np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.]),
    ...           np.array([10., 5., 20.]), 4, rank=np.array([1, 2, 0]), backfill=False, listed=True)[0].tolist()
    [2.0, 12.0, 2.0]
    """
    n = len(submit)
    procs = _arg(processors, np.int64)
    start, end = np.zeros(n), np.full(n, np.nan)
    kill_in = np.zeros(n, bool) if killed is None else _arg(killed, np.bool_)
    resv = np.full(max(n, 1), np.nan)
    if n:
        width = int(procs.max())
        es = E.new_easy_state(n, int(capacity), width)
        rk = np.arange(n, dtype=np.int64) if rank is None else _arg(rank, np.int64)
        st, runs, ts = _dummy_task_state()
        run(RIGID, _arg(submit, float), _arg(duration, float),
            kill_in, start, end, np.zeros(n, bool), np.zeros(3, np.int64), st, runs, ts, np.zeros(1, np.int64),
            False, False, es, procs, _arg(requested, float), rk, int(capacity), resv,
            bool(backfill), int(scan), bool(listed) and slurm is None, sl=slurm)
    return start, resv[:n]


# ---- a batch of list schedules (the learned-priorities method's trials, issue 29) --------------------
@jit(inline='always')
def _put(a, b, m):
    """``b[:m] = a[:m]`` (1-d; without the copy numba makes for overlapping slices)."""
    for i in range(m):
        b[i] = a[i]


@jit(inline='always')
def _carry(es, resv, li, lf, hend, hint, hs, es_to, resv_to, li_to, lf_to, hend_to, hint_to):
    """The state the loop carries from one instant to the next (EASY's state, the reservations, the
    loop's variables, the first ``hs`` completions) copied into the ``_to`` arrays (:func:`_batch_loop`
    keeps it after the shared instants and restores it for each row)."""
    E.copy(es, es_to)
    _put(resv, resv_to, resv.shape[0])
    _put(li, li_to, li.shape[0])
    _put(lf, lf_to, lf.shape[0])
    _put(hend, hend_to, hs)
    for i in range(hs):
        _put(hint[i], hint_to[i], 4)


@jit(_nrt=False)
def _batch_loop(arr_t, procs, dur, est, ranks, lo, capacity, backfill, scan, es, es0, st, runs, ts, out,
                kill, end, killed, resv, resv0, user, ready, rem, started_r, rows, hend, hint, hend0, hint0,
                lp, lk, lm, lt0, lt1, lkill, li, lf, li0, lf0):
    """:func:`_loop` once per row of ``ranks`` (listed rigid jobs) on arrays made once (compiled without
    reference counting: the arrays borrowed, none rebound); ``out[p]`` gets row *p*'s start times.

    The ranks below ``lo`` hold the same jobs in every row, so every instant before the first submit
    time ``t0`` of a job ranked at ``lo`` or later is the same in every row (no such job may start
    before it is ready, and the order after the first of them only matters to them): the loop runs
    those instants once, on row 0's order, and its state (EASY's state ``es0``, the completions
    ``hend0``, ``hint0``, the loop's variables ``li0``, ``lf0``, ``resv0`` and the start times in
    ``out[0]``) is restored for every row, whose own jobs then take the ranks from ``lo`` on."""
    n = arr_t.shape[0]
    # _loop's arguments typed as rigid_run's call in run() types them (int64, bool, an ``until``): a constant
    # (RIGID, True, False) would be a literal type, an omitted ``until`` another type, and numba would
    # compile _loop once more for each such signature (benchmarks/RESULTS.md, "CI time")
    kind, no, yes = RIGID + 0 * n, n < 0, n >= 0
    t0 = np.inf
    for q in range(n):
        if ranks[0, q] >= lo and arr_t[q] < t0:
            t0 = arr_t[q]
    E.clear(es)
    resv[:] = np.nan
    li[:] = 0
    li[_FREE] = capacity
    lf[_CLOCK], lf[_WAKE], lf[_WAKET], lf[_NOWF] = 0.0, np.nan, -1.0, 0.0
    _list_all(arr_t, procs, est, ranks[0], es, ready)
    _loop(kind, arr_t, dur, kill, out[0], end, killed, st, runs, ts, user, no, no,
          es, procs, est, ranks[0], resv, backfill, scan, yes, ready, rem, started_r, rows, hend, hint,
          lp, lk, lm, lt0, lt1, lkill, li, lf, t0)             # the shared instants, before t0
    hs = li[_HSIZE]
    _carry(es, resv, li, lf, hend, hint, hs, es0, resv0, li0, lf0, hend0, hint0)    # kept
    for p in range(ranks.shape[0]):
        if p > 0:
            _carry(es0, resv0, li0, lf0, hend0, hint0, hs, es, resv, li, lf, hend, hint)  # restored
            _put(out[0], out[p], n)
            _list_all(arr_t, procs, est, ranks[p], es, ready, lo)
        _loop(kind, arr_t, dur, kill, out[p], end, killed, st, runs, ts, user, no, no,
              es, procs, est, ranks[p], resv, backfill, scan, yes, ready, rem, started_r, rows, hend, hint,
              lp, lk, lm, lt0, lt1, lkill, li, lf, np.inf)   # rigid jobs: one call, _DONE (heap room n)


@jit
def _rigid_batch(arr_t, procs, dur, est, ranks, capacity, backfill, scan, es, es0, st, runs, ts, out):
    """The arrays of :func:`_batch_loop`, made once for every row."""
    n = arr_t.shape[0]
    z = np.zeros(1, np.int64)
    m_heap = max(64, n)
    _batch_loop(arr_t, procs, dur, est, ranks, _shared(ranks), capacity, backfill, scan, es, es0, st, runs, ts,
                out, np.zeros(n, np.bool_), np.empty(n), np.zeros(n, np.bool_), np.empty(n), np.empty(n), z,
                np.empty(n), runs.left.copy(), np.zeros(max(n, 1), np.int64), np.zeros((64, 4), np.int64),
                np.zeros(m_heap), np.zeros((m_heap, 4), np.int64), np.zeros(m_heap), np.zeros((m_heap, 4), np.int64),
                z, z, z, np.zeros(1), np.zeros(1), np.zeros(1, np.bool_),
                np.zeros(9, np.int64), np.zeros(4), np.zeros(9, np.int64), np.zeros(4))


@jit
def _shared(ranks):
    """How many leading ranks hold the same job in every row of ``ranks`` (row: job -> rank)."""
    n = ranks.shape[1]
    job = np.empty(n, np.int64)          # row 0's job at each rank
    for q in range(n):
        job[ranks[0, q]] = q
    k = n
    for p in range(1, ranks.shape[0]):
        r = 0
        while r < k and ranks[p, job[r]] == r:
            r += 1
        k = r
        if k == 0:
            break
    return k


def rigid_batch(submit, processors, duration, requested, capacity: int, ranks, *, backfill: bool = False,
                scan: int = E.SCAN) -> np.ndarray:
    """Start times of one set of rigid jobs under many list orders: :func:`rigid_run` with
    ``listed=True`` once per row of ``ranks``, in one compiled call (the same loop).

    Parameters
    ----------
    submit, processors, duration, requested : ndarray (n,)
        As :func:`rigid_run` (arrival order: ``submit`` non-decreasing).
    capacity : int
    ranks : ndarray of int (P, n)
        Row *p*: each job's place in the *p*-th list order (a permutation of ``range(n)``).
    backfill : bool, default False
        EASY backfilling over each list order.
    scan : int

    Returns
    -------
    ndarray (P, n)
        Row *p*: the start times under the *p*-th order.

    Raises
    ------
    InvalidInstanceError
        (a ``ValueError``) before the compiled loop, naming the argument, the index and the value: a
        time that is NaN, infinite or negative (an unknown run time), ``submit`` not in arrival
        order, a width that is not an integer from 1 to ``capacity``, arrays of different lengths,
        ``ranks`` not of shape (P, n) or a row that is not a permutation of ``range(n)``.

    Examples
    --------
    The three jobs of :func:`rigid_run`'s examples in arrival order and with job 2 ranked first:

    >>> rigid_batch(np.array([0., 1., 2.]), np.array([3, 3, 1]), np.array([10., 5., 20.]),
    ...             np.array([10., 5., 20.]), 4, np.array([[0, 1, 2], [1, 2, 0]])).tolist()
    [[0.0, 10.0, 10.0], [2.0, 12.0, 2.0]]
    """
    sub, dur, req, procs, rk = _batch_inputs(submit, duration, requested, processors, capacity, ranks)
    n = sub.shape[0]
    out = np.zeros(rk.shape)
    if n == 0 or rk.shape[0] == 0:
        return out
    es, es0 = (E.new_easy_state(n, int(capacity), int(procs.max())) for _ in range(2))
    st, runs, ts = _dummy_task_state()
    _rigid_batch(sub, procs, dur, req, rk, int(capacity), bool(backfill), int(scan), es, es0, st, runs, ts, out)
    return out


def _batch_inputs(submit, duration, requested, processors, capacity, ranks):
    """:func:`rigid_batch`'s arrays, checked before the compiled loop, which trusts them: a NaN or
    infinite time never compares equal to an instant (the loop would wait for it forever), a job
    wider than the cluster never starts, a rank out of range or repeated writes outside EASY's
    arrays. Errors name the argument, the index and the value."""
    from ..validation import require_fits, require_nonnegative, require_positive

    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise InvalidInstanceError(f"capacity={capacity!r} must be an integer >= 1", argument="capacity",
                                   value=capacity)
    sub, dur, req = (_arg(a, float) for a in (submit, duration, requested))
    p = np.asarray(processors)
    n = sub.shape[0]
    for name, a in (("submit", sub), ("duration", dur), ("requested", req), ("processors", p)):
        if a.shape != (n,):
            raise InvalidInstanceError(f"{name} has shape {a.shape}; expected ({n},) as submit",
                                       argument=name, value=a.shape)
    for name, a in (("submit", sub), ("duration", dur), ("requested", req)):
        require_nonnegative(name, a)
    if n > 1 and (sub[1:] < sub[:-1]).any():
        i = int(np.flatnonzero(sub[1:] < sub[:-1])[0]) + 1
        a, b = sub[i].item(), sub[i - 1].item()
        raise InvalidInstanceError(f"submit[{i}]={a!r} is before submit[{i - 1}]={b!r}: jobs must be in arrival "
                                   "order", argument="submit", index=(i,), value=a)
    require_positive("processors", p)
    require_fits("processors", p, int(capacity))
    procs = _arg(p, np.int64)
    if (procs != p).any():
        i = int(np.flatnonzero(procs != p)[0])
        raise InvalidInstanceError(f"processors[{i}]={p[i].item()!r} must be an integer", argument="processors",
                                   index=(i,), value=p[i].item())
    rk = _arg(ranks, np.int64)
    if rk.ndim != 2 or rk.shape[1] != n:
        raise InvalidInstanceError(f"ranks has shape {rk.shape}; expected (P, {n})", argument="ranks", value=rk.shape)
    if rk.size and (np.sort(rk, axis=1) != np.arange(n)).any():
        row = int(np.flatnonzero((np.sort(rk, axis=1) != np.arange(n)).any(axis=1))[0])
        raise InvalidInstanceError(f"ranks[{row}]={rk[row].tolist()} is not a permutation of range({n})",
                                   argument="ranks", index=(row,), value=rk[row].tolist())
    return sub, dur, req, procs, rk
