r"""The compiled decision core of DRF (issue 11): what :class:`DRFScheduler` runs on.

One set of functions over arrays holds DRF's rule on one pool (a cluster of one server, SDRF's and the
DRF paper's setting) or on several servers with first fit and per-user placement.
:class:`~fairalloc.scheduling.DRFScheduler` calls them for every ``submit`` / ``finish`` /
``schedule`` (:class:`PoolCore`), and the simulator's whole-run loop (:func:`pool_run`,
``fa.simulate(..., policy="drf")``) calls the very same functions from compiled code, as the event
engine and the EASY kernel both call :mod:`fairalloc.scheduling.easy`. The functions are compiled
with numba and run as plain Python under ``NUMBA_DISABLE_JIT=1``: this source is the reference for
what the compiled code does. The other server rules (``"best_fit"``, ``"tvtsf"``, a callable on
several servers) and the ``"resort"`` / ``"heap"`` baselines keep the generic Python path
(:class:`~fairalloc.scheduling.TaskScheduler` with SDRF's state at zero commitments), which is also
what the tests compare this core with.

The order
---------
DRF's priority is constant between a user's own starts and finishes (no commitments). The generic
path (:class:`~fairalloc.scheduling.SDRFScheduler` with zero commitments, a
:class:`~fairalloc.kinetic.LiveTree` with ``tau=None``) keeps the users with pending tasks in the
order of

.. math:: \bigl(p_i,\ \mathrm{tie}_i,\ i\bigr), \qquad p_i = \frac{\max_r u_{ir} / T_r + 0}{w_i} + 0,

with :math:`u_{ir}` the raw usage, :math:`T_r` the pool's totals
(:func:`fairalloc.shares.dominant_share_row`) and :math:`\mathrm{tie}_i` the submission time of the
user's oldest pending task (``ties="wait"``) or 0 (``"index"``). The two "+ 0" are the generic path's:
its trajectory's intercept is :math:`(\max_r o_{ir} + \bar o_{ir}) / w_i` with :math:`\bar o = 0` and
the tree's value is intercept plus slope 0 (they only turn -0.0 into 0.0). The live tree compares two
such priorities by their difference (``live_tree._cmp`` with slopes 0), and the IEEE difference of two
unequal floats is never 0, so its comparison *is* this lexicographic order: transitive, and the
first user of any correct priority queue is the user the tree serves first. Here the queue is an
indexed binary heap over users. A user's key only changes when its own usage or head changes, so it
is recomputed at once (``finish`` marks it in the generic path and updates it before the next read:
the same key, since the usage does not change in between).

The decision (:func:`_pass`, ``TaskScheduler.schedule``)
-------------------------------------------------------
While a user has pending tasks: the first user in the order gets the oldest of its pending tasks on
the first server it may use where the task fits (:func:`fairalloc.shares.task_fits_row`,
``FreeCapacity.find``'s first fit; on one pool, the pool); else the pass stops
(``blocking="stop"``, DRF's default: the user is reported as ``blocked_by``) or sets the user aside
until the pass ends (``"skip"``: taken out of the heap, put back with the same key). A start
subtracts the task's demand from the server's free capacity and adds it to the user's usage (per task, the same
float operations as the Python path); a finish adds it back and subtracts it from the usage, which is
reset to 0 when the user's last task ends. Consecutive starts of one run (one ``submit``) form one
launch ``(run, tasks, first task id, server)``.

SDRF
----
SDRF's priorities decay with time (Eq. 6), and the live tree compares two of them as equal when they
would cross within the time resolution (``tree_core.cmp``), which is not transitive: a heap would
serve other users than the tree in such near-ties. SDRF therefore has its own core,
:mod:`fairalloc.scheduling.sdrf_core`, which orders the users with the live tree's arrays
(:mod:`fairalloc.kinetic.tree_core`: its search path, comparisons and event order) and shares this
module's queue, capacity and launch functions (``_enqueue``, ``_take``, ``_record``, ``_release``,
``_first_fit``, ``_launched``).

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011, Section 4 (progressive filling of tasks).
.. [2] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Algorithm 1 (with zero
   commitments: DRF; "the system is full" stops the round).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from .. import shares
from ..tolerance import FLOOR_EPS

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a dependency; plain Python is the fallback
    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

__all__ = ["PoolCore", "pool_run"]

# the one definition of each formula (plain functions in fairalloc.shares), compiled here
_dominant = njit(cache=True)(shares.dominant_share_row)
_fits = njit(cache=True)(shares.task_fits_row)

_NO_LIMIT = int(np.iinfo(np.int64).max)

# meta (int64 array) fields
_SIZE, _DECISIONS, _BLOCKED, _RUNS = 0, 1, 2, 3


# ---- the users in DRF order: an indexed binary heap keyed (p, tie, user) ---------------------------
@njit(cache=True)
def _before(a, b, prio, tie):
    """Whether user a comes before user b: (p, tie, index) lexicographically."""
    if prio[a] != prio[b]:
        return prio[a] < prio[b]
    if tie[a] != tie[b]:
        return tie[a] < tie[b]
    return a < b


@njit(cache=True)
def _up(k, heap, pos, prio, tie):
    u = heap[k]
    while k > 0:
        parent = (k - 1) >> 1
        v = heap[parent]
        if not _before(u, v, prio, tie):
            break
        heap[k] = v
        pos[v] = k
        k = parent
    heap[k] = u
    pos[u] = k


@njit(cache=True)
def _down(k, heap, pos, n, prio, tie):
    u = heap[k]
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and _before(heap[c + 1], heap[c], prio, tie):
            c += 1
        v = heap[c]
        if not _before(v, u, prio, tie):
            break
        heap[k] = v
        pos[v] = k
        k = c
    heap[k] = u
    pos[u] = k


@njit(cache=True)
def _push(u, heap, pos, n, prio, tie):
    """Add u to a heap of n users; return the new size."""
    heap[n] = u
    pos[u] = n
    _up(n, heap, pos, prio, tie)
    return n + 1


@njit(cache=True)
def _remove(u, heap, pos, n, prio, tie):
    """Remove u from a heap of n users; return the new size."""
    k = pos[u]
    n -= 1
    pos[u] = -1
    if k < n:
        v = heap[n]
        heap[k] = v
        pos[v] = k
        _up(k, heap, pos, prio, tie)
        _down(pos[v], heap, pos, n, prio, tie)
    return n


@njit(cache=True)
def _rekey(u, usage, totals, w, prio, tie, heap, pos, n):
    """User u's DRF priority from its usage now (module docstring), and its place in the heap."""
    prio[u] = (_dominant(usage[u], totals) + 0.0) / w[u] + 0.0
    _up(pos[u], heap, pos, prio, tie)
    _down(pos[u], heap, pos, n, prio, tie)


@njit(cache=True)
def _first_fit(free, d, eligible, eps):
    """The first server where one task of demand d fits and the user may run (-1: none):
    ``FreeCapacity.find`` with ``"first_fit"`` (on one pool the only server; a task submitted there
    fits its empty capacity, so the user may run on it)."""
    for m in range(free.shape[0]):
        if eligible[m] and _fits(free[m], d, eps):
            return m
    return -1


# ---- the scheduler's operations ---------------------------------------------------------------------
@njit(cache=True, inline="always")   # in the loops: no call
def _enqueue(st, runs, u, r, now):
    """Run r (its user, task count and demand already in ``runs``) joins the end of user u's queue at
    time ``now``; return whether u had no pending task before (its head is this run)."""
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    run_user, run_left, run_next_id, run_sub, run_d, nxt = runs
    run_sub[r] = now
    nxt[r] = -1
    if qtail[u] < 0:
        qhead[u] = r
    else:
        nxt[qtail[u]] = r
    qtail[u] = r
    idle = n_pending[u] == 0
    n_pending[u] += run_left[r]
    return idle


@njit(cache=True)
def _submit(st, runs, u, r, now, by_wait):
    """``TaskScheduler.submit_trusted``: run r (its user, task count and demand already in ``runs``)
    joins the end of user u's queue at time ``now``."""
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    if _enqueue(st, runs, u, r, now):          # its head is this run
        tie[u] = now if by_wait else 0.0
        prio[u] = (_dominant(usage[u], totals) + 0.0) / w[u] + 0.0
        meta[_SIZE] = _push(u, heap, pos, meta[_SIZE], prio, tie)


@njit(cache=True, inline="always")   # in the loops: no call
def _take(st, runs, u, r, d, m):
    """The start of user u's oldest pending task (run r = its queue's head, demand d = r's) on server
    m (``TaskScheduler.schedule``): the queue, the server's free capacity and u's usage (per task,
    the Python path's float operations). Returns the task id."""
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    run_user, run_left, run_next_id, run_sub, run_d, nxt = runs
    task = run_next_id[r]
    run_next_id[r] = task + 1
    run_left[r] -= 1
    if run_left[r] == 0:
        qhead[u] = nxt[r]
        if qhead[u] < 0:
            qtail[u] = -1
    n_pending[u] -= 1
    for x in range(free.shape[1]):
        free[m, x] = free[m, x] - d[x]
    for x in range(free.shape[1]):
        usage[u, x] = usage[u, x] + d[x]
    n_running[u] += 1
    return task


@njit(cache=True, inline="always")   # in the loops: no call
def _record(out, n_out, r, task, m, last, last_m):
    """One start in the launch rows ``out`` (run, tasks, first task id, server), which has room for
    one more row: consecutive starts of one run on one server form one launch. Returns n_out."""
    if r == last and m == last_m:
        out[n_out - 1, 1] += 1
        return n_out
    out[n_out, 0] = r
    out[n_out, 1] = 1
    out[n_out, 2] = task
    out[n_out, 3] = m
    return n_out + 1


@njit(cache=True)
def _room(out, n_out):
    """``out`` with room for one more launch row (doubled when full)."""
    bigger = np.zeros((2 * n_out + 16, 4), np.int64)
    bigger[:n_out] = out[:n_out]
    return bigger


@njit(cache=True)
def _release(st, runs, u, r, k, m):
    """``TaskScheduler._release`` of k tasks of run r (user u) on server m, one at a time."""
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    d = runs[4][r]
    n_res = free.shape[1]
    for _ in range(k):
        for x in range(n_res):
            free[m, x] = free[m, x] + d[x]
        n_running[u] -= 1
        if n_running[u] == 0:
            for x in range(n_res):
                usage[u, x] = 0.0              # no round-off residue once nothing runs
        else:
            for x in range(n_res):
                usage[u, x] = usage[u, x] - d[x]


@njit(cache=True)
def _changed(st, u):
    """After ``_release`` of user u's tasks (``TaskScheduler.finish_all``): its key from the usage now."""
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    if n_pending[u] > 0:
        _rekey(u, usage, totals, w, prio, tie, heap, pos, meta[_SIZE])


@njit(cache=True)
def _pass(st, runs, eps, by_wait, stop, limit, out):
    """``TaskScheduler.schedule``: start tasks until the rule stops or ``limit`` tasks started.

    Writes the launches into ``out`` rows (run, tasks, first task id, server), growing it when full;
    returns (number of launches, out). ``meta[_BLOCKED]`` is the blocked user (``stop``) or -1.
    """
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    run_user, run_left, run_next_id, run_sub, run_d, nxt = runs
    size = meta[_SIZE]
    n_skip = 0
    started = 0
    n_out = 0
    last = -1
    last_m = -1
    blocked = -1
    while size > 0 and started < limit:
        u = heap[0]
        r = qhead[u]
        d = run_d[r]
        m = _first_fit(free, d, place[u], eps)
        if m < 0:
            if stop:
                blocked = u
                break
            size = _remove(u, heap, pos, size, prio, tie)   # "skip": aside until the pass ends
            skip[n_skip] = u
            n_skip += 1
            continue
        task = _take(st, runs, u, r, d, m)
        if n_pending[u] > 0:
            tie[u] = run_sub[qhead[u]] if by_wait else 0.0
            _rekey(u, usage, totals, w, prio, tie, heap, pos, size)
        else:
            size = _remove(u, heap, pos, size, prio, tie)
        started += 1
        if n_out == out.shape[0]:
            out = _room(out, n_out)
        n_out = _record(out, n_out, r, task, m, last, last_m)
        last = r
        last_m = m
    for q in range(n_skip):                    # the users set aside, back with their keys
        size = _push(skip[q], heap, pos, size, prio, tie)
    meta[_SIZE] = size
    meta[_DECISIONS] += started
    meta[_BLOCKED] = blocked
    return n_out, out


# ---- the state ----------------------------------------------------------------------------------
def _state(capacities, totals, placement, weights):
    """The state tuple: (M, K) free capacities, (K,) totals, (N, M) placement, (N,) weights."""
    n = len(weights)
    k = len(totals)
    st = (np.array(capacities, dtype=float).reshape(-1, k), np.array(totals, dtype=float),
          np.array(weights, dtype=float), np.zeros((n, k)), np.zeros(n, np.int64),
          np.zeros(n, np.int64), np.zeros(n), np.zeros(n), np.full(n, -1, np.int64),
          np.full(n, -1, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64),
          np.array([0, 0, -1, 0], np.int64), np.zeros(n, np.int64),
          np.ascontiguousarray(placement, dtype=np.bool_))
    return st


def _runs(n_runs, k):
    return (np.zeros(n_runs, np.int64), np.zeros(n_runs, np.int64), np.zeros(n_runs, np.int64),
            np.zeros(n_runs), np.zeros((n_runs, k)), np.full(n_runs, -1, np.int64))


def _whole_run(st, user, tasks, demand):
    """A whole run's jobs as runs (user, tasks, first task id, demand) in ``st``, and the empty start,
    end and killed outputs (:func:`pool_run`, :func:`~fairalloc.scheduling.sdrf_core.sdrf_run`)."""
    n = len(user)
    runs = _runs(max(n, 1), st[1].shape[0])
    runs[0][:n] = user
    runs[1][:n] = tasks
    runs[2][:n] = np.concatenate([[0], np.cumsum(tasks)[:-1]]) if n else 0
    runs[4][:n] = demand
    st[12][_RUNS] = n
    return runs, np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, bool)


class PoolCore:
    """DRF's state in arrays, driven through the compiled functions of this module.

    :class:`~fairalloc.scheduling.DRFScheduler` holds one when its structure is the live tree and
    its cluster is one pool (any server rule: on one server they agree) or several servers with
    ``server="first_fit"``; its methods are thin wrappers around these.

    Parameters
    ----------
    capacities : ndarray (M, K)
        Per-server capacities (raw units).
    totals : ndarray (K,)
        The cluster totals (the shares' denominators).
    placement : ndarray (N, M) of bool
    weights : ndarray (N,)
    ties : {"wait", "index"}
    blocking : {"stop", "skip"}

    Examples
    --------
    DRF paper, Section 4 (9 CPUs, 18 GB; A's tasks <1, 4>, B's <3, 1>): A, B, A, B, A; then A and B
    are both at 2/3, A first (lower index), and A's next task does not fit:

    >>> core = PoolCore(np.array([[9.0, 18.0]]), np.array([9.0, 18.0]), np.ones((2, 1), bool),
    ...                 np.ones(2), "wait", "stop")
    >>> core.submit(0, np.array([1.0, 4.0]), 10, 0.0), core.submit(1, np.array([3.0, 1.0]), 10, 0.0)
    (0, 1)
    >>> core.schedule(None)[:, 0].tolist(), core.blocked
    ([0, 1, 0, 1, 0], 0)
    """

    def __init__(self, capacities, totals, placement, weights, ties: str, blocking: str) -> None:
        self.st = _state(capacities, totals, placement, weights)
        self.k = len(totals)
        self.runs = _runs(16, self.k)
        self.by_wait = ties == "wait"
        self.stop = blocking == "stop"
        self.eps = float(FLOOR_EPS)
        self._out = np.zeros((64, 4), np.int64)
        self.next_id = 0

    # read-only views
    @property
    def free(self) -> np.ndarray:
        return self.st[0]

    @property
    def usage(self) -> np.ndarray:
        return self.st[3]

    @property
    def n_running(self) -> np.ndarray:
        return self.st[4]

    @property
    def n_pending(self) -> np.ndarray:
        return self.st[5]

    @property
    def decisions(self) -> int:
        return int(self.st[12][_DECISIONS])

    @property
    def blocked(self) -> int | None:
        b = int(self.st[12][_BLOCKED])
        return None if b < 0 else b

    @property
    def n_active(self) -> int:
        return int(self.st[12][_SIZE])

    @property
    def swaps(self) -> int:
        """Always 0: constant priorities never swap."""
        return 0

    @property
    def next_change(self) -> float:
        """Always ``inf``: the order changes only at submits and finishes."""
        return math.inf

    next_min_change = next_change

    def advance(self, t: float) -> int:
        """Nothing moves between events (constant priorities): 0 swap events."""
        return 0

    def priority(self, user: int) -> float:
        """The key the heap holds for an active ``user`` (``KeyError`` if it has no pending task)."""
        if self.st[9][user] < 0:
            raise KeyError(user)
        return float(self.st[6][user])

    def order(self) -> list[int]:
        """Active users in the order they would be served now."""
        prio, tie, heap = self.st[6], self.st[7], self.st[8]
        users = heap[:self.n_active].tolist()
        return sorted(users, key=lambda u: (prio[u], tie[u], u))

    def run_user(self, run: int) -> int:
        return int(self.runs[0][run])

    # operations
    def submit(self, user: int, demand: np.ndarray, count: int, now: float) -> int:
        """A run of ``count`` tasks of ``demand`` for ``user`` at ``now``; return its run index
        (its task ids are ``next_id`` before the call onwards)."""
        r = self._new_run(user, demand, count)
        _submit(self.st, self.runs, user, r, now, self.by_wait)
        return r

    def _new_run(self, user: int, demand: np.ndarray, count: int) -> int:
        """The next run's row in ``runs`` (grown when full): its user, task count, first id, demand."""
        meta = self.st[12]
        r = int(meta[_RUNS])
        if r == len(self.runs[0]):
            self.runs = tuple(np.concatenate([a, np.full_like(a, -1 if j == 5 else 0)])
                              for j, a in enumerate(self.runs))
        run_user, run_left, run_next_id, run_sub, run_d, nxt = self.runs
        run_user[r] = user
        run_left[r] = count
        run_next_id[r] = self.next_id
        run_d[r] = demand
        self.next_id += count
        meta[_RUNS] = r + 1
        return r

    def release(self, user: int, run: int, count: int, server: int) -> None:
        """The resources of ``count`` running tasks of ``run`` on ``server`` (then :meth:`changed`)."""
        _release(self.st, self.runs, user, run, count, server)

    def changed(self, user: int) -> None:
        """``user``'s key from its usage now (after its releases)."""
        _changed(self.st, user)

    def schedule(self, limit: int | None) -> np.ndarray:
        """One pass; return its launches as rows (run, tasks, first task id, server)."""
        n, self._out = _pass(self.st, self.runs, self.eps, self.by_wait, self.stop, self._limit(limit),
                             self._out)
        return self._out[:n].copy()

    @staticmethod
    def _limit(limit: int | None) -> int:
        return _NO_LIMIT if limit is None else int(limit)


# ---- the simulator's loop for DRF on a pool ---------------------------------------------------------
@njit(cache=True)
def _loop(st, runs, arr_t, user, dur, kill, by_wait, stop, eps, start, end, killed, counts):
    """The event engine's loop (:meth:`fairalloc.sim.engine.Simulation.run`) with DRF.

    Jobs are runs, in arrival order (position = arrival rank = run index; ``runs`` holds their users,
    task counts and demands). At each instant: completions (by end time, then launch sequence), then
    arrivals, then one :func:`_pass`. ``counts`` gets [events, launches]; returns the launch log
    (position, tasks, server, start, end, killed).
    """
    n = arr_t.shape[0]
    rem = runs[1].copy()                       # tasks not yet finished, per position
    log = _new_log(max(16, n))
    n_log = 0
    out = np.zeros((64, 4), np.int64)
    done = [(0.0, 0, 0, 0, 0)]                 # completions: (end, launch sequence, position, tasks, server)
    done.pop()
    clock = 0.0                                # the scheduler's time (it starts at 0.0)
    seq = 0
    events = 0
    limit = np.iinfo(np.int64).max
    i = 0
    while True:
        now = np.inf
        if len(done) > 0:
            now = done[0][0]
        if i < n and arr_t[i] < now:
            now = arr_t[i]
        if now == np.inf:
            break
        if now > clock:
            clock = now
        while len(done) > 0 and done[0][0] == now:          # 1. completions
            _, _, p, k, m = heapq.heappop(done)
            rem[p] -= k
            if kill[p]:
                killed[p] = True
            if rem[p] == 0:
                end[p] = now
            _release(st, runs, user[p], p, k, m)
            _changed(st, user[p])
            events += 1
        while i < n and arr_t[i] == now:                    # 2. arrivals
            _submit(st, runs, user[i], i, clock, by_wait)
            i += 1
            events += 1
        n_out, out = _pass(st, runs, eps, by_wait, stop, limit, out)   # 3. one decision
        seq, log, n_log = _launched(out, n_out, now, dur, kill, start, done, seq, log, n_log)
    counts[0] = events
    counts[1] = n_log
    return _log_rows(log, n_log)


@njit(cache=True)
def _new_log(m):
    """The launch log's columns (position, tasks, server, start, end, killed), room for m rows."""
    return (np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m), np.zeros(m),
            np.zeros(m, np.bool_))


@njit(cache=True)
def _log_rows(log, n_log):
    p, k, s, t0, t1, kill = log
    return p[:n_log], k[:n_log], s[:n_log], t0[:n_log], t1[:n_log], kill[:n_log]


@njit(cache=True, inline="always")   # in the loops: no call
def _launched(out, n_out, now, dur, kill, start, done, seq, log, n_log):
    """The engine's part of a decision (``Simulation.run``): each launch row (position, tasks, first
    task id, server) starts its job if it had not, becomes a completion (end, launch sequence,
    position, tasks, server) in ``done`` and a row of the launch log. Returns (seq, log, n_log)."""
    for q in range(n_out):
        p = out[q, 0]
        k = out[q, 1]
        m = out[q, 3]
        if start[p] != start[p]:
            start[p] = now
        seq += 1
        heapq.heappush(done, (now + dur[p], seq, p, k, m))
        if n_log == log[0].shape[0]:
            grown = 2 * n_log
            log = (_grow(log[0], grown), _grow(log[1], grown), _grow(log[2], grown), _grow(log[3], grown),
                   _grow(log[4], grown), _grow(log[5], grown))
        log[0][n_log] = p
        log[1][n_log] = k
        log[2][n_log] = m
        log[3][n_log] = now
        log[4][n_log] = now + dur[p]
        log[5][n_log] = kill[p]
        n_log += 1
    return seq, log, n_log


@njit(cache=True)
def _grow(a, m):
    out = np.zeros(m, a.dtype)
    out[:a.shape[0]] = a
    return out


def pool_run(submit, user, tasks, demand, duration, killed, capacities, totals, placement, weights, *,
             ties: str = "wait", blocking: str = "stop") -> dict:
    """DRF over jobs in arrival order (``submit`` non-decreasing), as the event engine
    runs :class:`~fairalloc.sim.TaskPolicy` ``("drf")`` with :class:`DRFScheduler`: the same compiled
    functions, called from a compiled event loop.

    Parameters
    ----------
    submit, duration : ndarray (n,)
        Arrival times (non-decreasing) and how long each job's tasks run.
    user, tasks : ndarray (n,) of int
        Each job's user (0 <= user < len(weights)) and number of identical tasks (>= 1).
    demand : ndarray (n, K)
        One task's demand in raw units; each fits in ``capacity``.
    killed : ndarray (n,) of bool
        Whether the job's tasks end killed (walltime enforcement; reported only).
    capacities : ndarray (M, K)
        Per-server capacities (one row: a pool).
    totals : ndarray (K,)
        The cluster totals (the shares' denominators).
    placement : ndarray (n_users, M) of bool
        Servers each user may use (first fit among them).
    weights : ndarray (n_users,)
    ties : {"wait", "index"}
    blocking : {"stop", "skip"}

    Returns
    -------
    dict
        ``start``, ``end``, ``killed`` (n,) by position; ``launches`` (position, tasks, server, start,
        end, killed arrays); ``decisions``, ``events``.

    Examples
    --------
    The DRF paper's example, Section 4 (9 CPUs, 18 GB; A's tasks <1, 4>, B's <3, 1>): A gets 3
    tasks and B 2, alternating A, B, A, B, A as in the paper:

    >>> r = pool_run(np.array([0., 0.]), np.array([0, 1]), np.array([10, 10]),
    ...              np.array([[1., 4.], [3., 1.]]), np.array([5., 5.]), np.zeros(2, bool),
    ...              np.array([[9., 18.]]), np.array([9., 18.]), np.ones((2, 1), bool), np.ones(2))
    >>> r["launches"][0][:5].tolist(), r["start"].tolist()
    ([0, 1, 0, 1, 0], [0.0, 0.0])
    """
    st = _state(capacities, totals, placement, weights)
    runs, start, end, kill_out = _whole_run(st, user, tasks, demand)
    counts = np.zeros(2, np.int64)
    log = _loop(st, runs, np.ascontiguousarray(submit, dtype=float), np.ascontiguousarray(user, dtype=np.int64),
                np.ascontiguousarray(duration, dtype=float), np.ascontiguousarray(killed, dtype=np.bool_),
                ties == "wait", blocking == "stop", float(FLOOR_EPS), start, end, kill_out, counts)
    return {"start": start, "end": end, "killed": kill_out, "launches": log,
            "decisions": int(st[12][_DECISIONS]), "events": int(counts[0])}
