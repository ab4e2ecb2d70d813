r"""The compiled decision core of SDRF (issue 11): what :class:`SDRFScheduler` runs on.

SDRF's rule on one pool (SDRF's setting) or on several servers with first fit, as functions over
arrays: :class:`~fairalloc.scheduling.SDRFScheduler` calls them for every ``submit`` / ``finish`` /
``advance`` / ``schedule`` (:class:`SDRFCore`), and the simulator's whole-run loop (:func:`sdrf_run`,
``fa.simulate(..., policy="sdrf")``) calls the very same functions from compiled code, as
:mod:`fairalloc.scheduling.pool_core` does for DRF. The users are ordered by the live tree itself
(:mod:`fairalloc.kinetic.tree_core`, the one implementation :class:`~fairalloc.kinetic.LiveTree`
wraps): SDRF's priorities decay (Eq. 6) and the tree's comparison treats priorities that would cross
within rounding as equal, which is not transitive, so only the tree's own search path and event
order give its schedule (:mod:`fairalloc.scheduling.pool_core`'s docstring). The functions are
compiled with numba and run as plain Python under ``NUMBA_DISABLE_JIT=1``: this source is the
reference for what the compiled code does. The other server rules and the ``"resort"`` / ``"heap"``
baselines keep the generic Python path (:class:`~fairalloc.scheduling.TaskScheduler`), which calls
the same per-user definitions (:func:`trajectory_row`, :func:`fairalloc.commitments.decay_row_into`,
:func:`~fairalloc.commitments.excess_row_into`).

The rule (``TaskScheduler`` and ``SDRFScheduler``)
--------------------------------------------------
* Per user: the normalised usage :math:`o_i`, the commitments :math:`c_i(t_0)` at the user's last
  change :math:`t_0` and the excess :math:`\bar o_i = \max(o_i - f_i, 0)` (:func:`_changed`,
  ``SDRFScheduler._changed``: Eq. 6 by :func:`fairalloc.commitments.decay_row_into`); the tree holds the trajectory
  :math:`p_i(t) = \max_r (a_r + b_r e^{-(t - t_0)/\tau})` (:func:`trajectory_row`).
* A finish releases the task and updates its user's state, and marks the user (in first-marked
  order). Before the queue is read, the marked users are updated in the tree (``_flush``), except
  at a decision with exactly one marked user: if it would come first with its new trajectory it is
  served without moving (``_lead``: ``tree_core.lead_or_update``).
* A decision: the first user (``blocking="stop"``; ``"skip"``: the first user not set aside in
  this pass) gets its oldest pending task on the first server where it fits; else the pass stops
  (the user is ``blocked_by``) or sets the user aside. The started task updates the user's usage
  and state, then its place in the tree (or removes it when nothing is pending).
* Wake-ups (``blocking="stop"``): while blocked, the simulator asks to be woken at the tree's next
  swap event anywhere in the order (``next_min_change``: the earliest time the first user can
  change); at a wake-up with no arrival or completion it runs the pass only if the first user has
  changed, as :class:`~fairalloc.sim.TaskPolicy` does (its docstring proves the rule exact: a user
  further back reaches the front only through swap events, so watching the first pair alone, or any
  fixed number of positions, misses changes of the first user; issue 25).

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Algorithm 1, Eqs. 5-6,
   Section 6.3 (the live tree).
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import commitments as _c
from ..kinetic import tree_core as tc
from ..tolerance import FLOOR_EPS
from .pool_core import (_BLOCKED, _DECISIONS, PoolCore, _enqueue, _first_fit, _launched, _log_rows,
                        _new_log, _record, _release, _room, _state, _take, _whole_run, njit)

__all__ = ["SDRFCore", "sdrf_run", "trajectory_row"]

_decay_into = njit(cache=True)(_c.decay_row_into)
_excess_into = njit(cache=True)(_c.excess_row_into)

# sm (int64) fields
_NDIRTY, _WAKEUPS = 0, 1
# sf (float) fields
_NOW, _TAU, _KIN, _LEVEL = 0, 1, 2, 3


# ---- the per-user rule: one definition, for this core and the generic Python path ----------------
def trajectory_row(o, excess_, c0, w, level, a, b) -> None:
    r"""User i's priority trajectory for the live tree into ``a`` (intercepts) and ``b`` (slopes).

    With Eq. 6, :math:`c_{ir}(t) = \bar o_{ir} + (c_{ir}(t_0) - \bar o_{ir}) e^{-(t - t_0)/\tau}`; the
    level reading (Eq. 5) is :math:`(\max_r o_{ir} + \max_r c_{ir}) / w_i`, i.e. lines
    :math:`a_r = (\max o_i + \bar o_{ir}) / w_i`, :math:`b_r = (c_{ir}(t_0) - \bar o_{ir}) / w_i`; the
    printed reading :math:`\max_r (o_{ir} + c_{ir}) / w_i` has :math:`a_r = (o_{ir} + \bar o_{ir}) / w_i`.
    A plain loop (lists or arrays): numba compiles it for the core, Python runs it for the generic path.

    Examples
    --------
    >>> a, b = [0.0, 0.0], [0.0, 0.0]
    >>> trajectory_row([0.5, 0.25], [0.0, 0.0], [0.1, 0.3], 1.0, True, a, b); a, b
    ([0.5, 0.5], [0.1, 0.3])
    """
    if level:
        dom = o[0]                             # max(o): the first of equal maxima, as Python's max
        for r in range(1, len(o)):
            if o[r] > dom:
                dom = o[r]
        for r in range(len(o)):
            a[r] = (dom + excess_[r]) / w
    else:
        for r in range(len(o)):
            a[r] = (o[r] + excess_[r]) / w
    for r in range(len(o)):
        b[r] = (c0[r] - excess_[r]) / w


_trajectory = njit(cache=True)(trajectory_row)


# ---- the state ----------------------------------------------------------------------------------
def _sdrf_state(n, k, c0, fair, tau, level, time):
    """SDRF's per-user state: (c0, t0, excess, o, fair, dirty list, dirty flags, skipped flags,
    scratch lines (2, K), sm, sf)."""
    sf = np.array([time, 1.0 if tau is None else tau, 0.0 if tau is None else 1.0, 1.0 if level else 0.0])
    return (np.array(c0, dtype=float).reshape(n, k).copy(), np.full(n, float(time)), np.zeros((n, k)),
            np.zeros((n, k)), np.array(fair, dtype=float), np.zeros(n, np.int64), np.zeros(n, np.bool_),
            np.zeros(n, np.bool_), np.zeros((2, k)), np.zeros(2, np.int64), sf)


# ---- the scheduler's operations ---------------------------------------------------------------------
@njit(cache=True)
def _traj(st, sd, u):
    """User u's trajectory into the scratch lines (``SDRFScheduler._trajectory``); returns its t0."""
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    _trajectory(o[u], ex[u], c0[u], st[2][u], sf[_LEVEL] != 0.0, ab[0], ab[1])
    return t0[u]


@njit(cache=True)
def _tie(st, runs, u, by_wait):
    """The tree's tie value of u: its oldest pending task's submission time (``TaskScheduler._tie``)."""
    return runs[3][st[10][u]] if by_wait else 0.0


@njit(cache=True)
def _changed(st, sd, u):
    """``SDRFScheduler._changed``: user u's usage changed now (a task started or finished)."""
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    usage, totals = st[3], st[1]
    for r in range(o.shape[1]):
        o[u, r] = usage[u, r] / totals[r]
    if sf[_KIN] != 0.0:
        now = sf[_NOW]
        dt = now - t0[u]
        if dt != 0.0:                          # dt = 0 (another change at this instant): c0 as is
            _decay_into(c0[u], ex[u], dt, sf[_TAU], c0[u])
            t0[u] = now
        _excess_into(o[u], fair[u], ex[u])


@njit(cache=True)
def _submit(st, sd, runs, ts, u, r, by_wait):
    """``TaskScheduler.submit_trusted``: run r joins user u's queue now; an idle user enters the tree."""
    now = sd[10][_NOW]
    if _enqueue(st, runs, u, r, now):
        t0 = _traj(st, sd, u)
        tc.insert(ts, u, sd[8], t0, _tie(st, runs, u, by_wait), u)


@njit(cache=True)
def _finished(st, sd, u):
    """After ``pool_core._release`` of u's tasks (``TaskScheduler.finish_all``): its state, and the
    mark that its place in the tree is stale (first-marked order)."""
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    _changed(st, sd, u)
    if st[5][u] > 0 and not isdirty[u]:
        isdirty[u] = True
        dirty[sm[_NDIRTY]] = u
        sm[_NDIRTY] += 1


@njit(cache=True)
def _flush(st, sd, runs, ts, by_wait, in_place):
    """``TaskScheduler._flush``: the marked users' places in the tree, in first-marked order."""
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    for q in range(sm[_NDIRTY]):
        u = dirty[q]
        t = _traj(st, sd, u)
        tc.update(ts, u, ab, t, _tie(st, runs, u, by_wait), u, in_place)
        isdirty[u] = False
    sm[_NDIRTY] = 0


@njit(cache=True)
def _clear(sd):
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    for q in range(sm[_NDIRTY]):
        isdirty[dirty[q]] = False
    sm[_NDIRTY] = 0


@njit(cache=True)
def _advance(st, sd, runs, ts, t, by_wait, in_place):
    """``SDRFScheduler.advance``: flush, then the tree's swap events up to t; returns their number."""
    _flush(st, sd, runs, ts, by_wait, in_place)
    n = tc.advance(ts, t)
    sd[10][_NOW] = t
    return n


@njit(cache=True)
def _lead(st, sd, runs, ts, by_wait, in_place):
    """``TaskScheduler._lead``: the one marked user if it now comes first (served without moving),
    else -1 after flushing."""
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    if sm[_NDIRTY] != 1:
        _flush(st, sd, runs, ts, by_wait, in_place)
        return -1
    u = dirty[0]
    t = _traj(st, sd, u)
    if tc.lead_or_update(ts, u, st[2].shape[0], ab, t, _tie(st, runs, u, by_wait), in_place):
        return u
    _clear(sd)
    return -1


@njit(cache=True)
def _first_unskipped(ts, skipped):
    """The first user in the tree's order not set aside in this pass (-1: none)."""
    F, I, P, B, BO, H, meta, fm = ts
    for j in range(meta[tc._NB]):
        b = BO[tc._ORDER, j]
        for i in range(BO[tc._LEN, b]):
            u = B[b, i]
            if not skipped[u]:
                return u
    return -1


@njit(cache=True)
def _pass(st, sd, runs, ts, eps, by_wait, stop, limit, out, in_place):
    """``TaskScheduler.schedule`` with SDRF: start tasks until the rule stops or ``limit`` started.

    Writes the launches into ``out`` rows (run, tasks, first task id, server), growing it when full;
    returns (number of launches, out). ``meta[_BLOCKED]`` is the blocked user (``stop``) or -1.
    """
    free, totals, w, usage, n_running, n_pending, prio, tie, heap, pos, qhead, qtail, meta, skip, place = st
    c0, t0, ex, o, fair, dirty, isdirty, skipped, ab, sm, sf = sd
    tmeta = ts[6]
    run_d = runs[4]
    blocked = -1
    lead = _lead(st, sd, runs, ts, by_wait, in_place)
    n_skip = 0
    started = 0
    n_out = 0
    last = -1
    last_m = -1
    while tmeta[tc._N] > 0 and started < limit:
        if lead >= 0:
            u = lead
        elif stop:
            u = tc.first(ts)
        else:
            u = _first_unskipped(ts, skipped)
            if u < 0:
                break
        r = qhead[u]
        d = run_d[r]
        m = _first_fit(free, d, place[u], eps)
        if m < 0:
            if lead >= 0:
                _flush(st, sd, runs, ts, by_wait, in_place)
                lead = -1
            if stop:
                blocked = u
                break
            skipped[u] = True                  # "skip": aside until the pass ends
            skip[n_skip] = u
            n_skip += 1
            continue
        if lead >= 0:
            _clear(sd)                         # its place in the tree is replaced just below
            lead = -1
        task = _take(st, runs, u, r, d, m)
        _changed(st, sd, u)
        if n_pending[u] > 0:
            t = _traj(st, sd, u)
            tc.update(ts, u, ab, t, _tie(st, runs, u, by_wait), u, in_place)
        else:
            tc.remove(ts, u)
        started += 1
        if n_out == out.shape[0]:
            out = _room(out, n_out)
        n_out = _record(out, n_out, r, task, m, last, last_m)
        last = r
        last_m = m
    for q in range(n_skip):
        skipped[skip[q]] = False
    meta[_DECISIONS] += started
    meta[_BLOCKED] = blocked
    return n_out, out


@njit(cache=True)
def _next_min_change(st, sd, runs, ts, by_wait, in_place):
    """``TaskScheduler.next_min_change``: flush, then the earliest time the first user can change,
    the tree's next swap event anywhere (``inf``: none; :attr:`fairalloc.kinetic.LiveTree.next_min_change`)."""
    _flush(st, sd, runs, ts, by_wait, in_place)
    return tc.next_event_time(ts)


class SDRFCore(PoolCore):
    r"""SDRF's state in arrays (the live tree's included), driven through the compiled functions of
    this module (the queues, capacities and usage as :class:`~fairalloc.scheduling.pool_core.PoolCore`'s,
    whose heap stays unused); :class:`~fairalloc.scheduling.SDRFScheduler` holds one on one pool (or several
    servers with ``server="first_fit"``) with the live tree, and its methods are thin wrappers.

    Parameters
    ----------
    capacities : ndarray (M, K)
    totals : ndarray (K,)
    placement : ndarray (N, M) of bool
    weights : ndarray (N,)
    commitments : ndarray (N, K)
        At ``time``, fractions of the totals.
    fair : ndarray (N,)
        Fair shares :math:`w_i / \sum_j w_j`.
    tau : float or None
    level : bool
        The level reading (Eq. 5) or the printed one.
    ties : {"wait", "index"}
    blocking : {"stop", "skip"}
    time : float
    load : int
        The tree's block size (:class:`~fairalloc.kinetic.LiveTree`).

    Examples
    --------
    SDRF's example with commitments held constant (``SDRFScheduler``'s docstring): user 0 has
    committed 0.3 of resource 1 and gets 4 of 10 unit tasks:

    >>> core = SDRFCore(np.array([[10.0, 10.0]]), np.array([10.0, 10.0]), np.ones((2, 1), bool),
    ...                 np.ones(2), np.array([[0.0, 0.3], [0.0, 0.0]]), np.array([0.5, 0.5]), None,
    ...                 True, "wait", "stop", 0.0)
    >>> core.submit(0, np.array([1.0, 1.0]), 10, 0.0), core.submit(1, np.array([1.0, 1.0]), 10, 0.0)
    (0, 1)
    >>> launches = core.schedule(None)                  # rows (run, tasks, first task id, server)
    >>> np.bincount(core.runs[0][launches[:, 0]], weights=launches[:, 1], minlength=2).tolist()
    [4.0, 6.0]
    """

    in_place_updates = True

    def __init__(self, capacities, totals, placement, weights, commitments, fair, tau, level, ties,
                 blocking, time, load: int = 64) -> None:
        super().__init__(capacities, totals, placement, weights, ties, blocking)
        n, k = len(weights), len(totals)
        self.sd = _sdrf_state(n, k, commitments, fair, tau, level, time)
        self.ts = tc.new_state(tau, float(time), max(4, int(load)), n, k)

    # read-only views (free, usage, n_running, n_pending, decisions, blocked: PoolCore's)
    @property
    def n_active(self) -> int:
        return int(self.ts[6][tc._N])

    @property
    def swaps(self) -> int:
        return int(self.ts[6][tc._SWAPS])

    @property
    def now(self) -> float:
        return float(self.sd[10][_NOW])

    def commitments_at(self, t: float) -> np.ndarray:
        """(N, K) commitments at t (>= every user's last change), Eq. 6 (:func:`commitments.decay`)."""
        c0, t0, ex = self.sd[0], self.sd[1], self.sd[2]
        if self.sd[10][_KIN] == 0.0:
            return c0.copy()
        return _c.decay(c0, ex, (t - t0)[:, None], float(self.sd[10][_TAU]))

    def flush(self) -> None:
        _flush(self.st, self.sd, self.runs, self.ts, self.by_wait, self.in_place_updates)

    def priority(self, user: int) -> float:
        """The priority the tree holds for an active ``user`` now (``KeyError`` if it has none)."""
        self.flush()
        if self.ts[1][user, tc._BLK] < 0:
            raise KeyError(user)
        return float(tc.priority(self.ts, user, self.now))

    def order(self) -> list[int]:
        """Active users in the order they would be served now."""
        self.flush()
        out = np.zeros(self.st[2].shape[0], np.int64)
        m = tc.order(self.ts, out)
        return out[:m].tolist()

    @property
    def next_min_change(self) -> float:
        return float(_next_min_change(self.st, self.sd, self.runs, self.ts, self.by_wait,
                                      self.in_place_updates))

    def first(self) -> int:
        """The user served first now (-1: no pending task)."""
        self.flush()
        return int(tc.first(self.ts))

    @property
    def next_change(self) -> float:
        self.flush()
        return float(tc.next_event_time(self.ts))

    # operations
    def advance(self, t: float) -> int:
        """Move to time t (>= now): flush, then the tree's swap events; return their number."""
        return int(_advance(self.st, self.sd, self.runs, self.ts, float(t), self.by_wait,
                            self.in_place_updates))

    def submit(self, user: int, demand: np.ndarray, count: int, now: float) -> int:
        """A run of ``count`` tasks of ``demand`` for ``user`` (at the core's now); return its index."""
        r = self._new_run(user, demand, count)
        _submit(self.st, self.sd, self.runs, self.ts, user, r, self.by_wait)
        return r

    def changed(self, user: int) -> None:
        """``user``'s state from its usage now, and its mark (after its releases)."""
        _finished(self.st, self.sd, user)

    def schedule(self, limit: int | None) -> np.ndarray:
        """One pass; return its launches as rows (run, tasks, first task id, server)."""
        n, self._out = _pass(self.st, self.sd, self.runs, self.ts, self.eps, self.by_wait, self.stop,
                             self._limit(limit), self._out, self.in_place_updates)
        return self._out[:n].copy()


# ---- the simulator's loop for SDRF ------------------------------------------------------------------
@njit(cache=True)
def _loop(st, sd, runs, ts, arr_t, user, dur, kill, by_wait, stop, wakeups, eps, start, end, killed, counts):
    """The event engine's loop (:meth:`fairalloc.sim.engine.Simulation.run`) with
    :class:`~fairalloc.sim.TaskPolicy` ``("sdrf")``.

    Jobs are runs in arrival order. At each instant: completions (by end time, then launch
    sequence), then arrivals, then the pending wake-up; if any of them happened, one :func:`_pass`
    (skipped at a wake-up alone that leaves the blocked user first: it would start nothing), then
    the wake-up asked while blocked (the tree's next swap, :func:`_next_min_change`). The policy
    advances the scheduler (flush, tree events) before the first of them at a new time. ``counts``
    gets [events, launches, wake-ups that ran a pass]; returns the launch log (position, tasks,
    server, start, end, killed).
    """
    n = arr_t.shape[0]
    rem = runs[1].copy()
    log = _new_log(max(16, n))
    n_log = 0
    out = np.zeros((64, 4), np.int64)
    done = [(0.0, 0, 0, 0, 0)]                 # completions: (end, launch sequence, position, tasks, server)
    done.pop()
    clock = 0.0                                # the policy's time (the scheduler starts at 0.0)
    wake = np.nan                              # the policy's last wake-up answer
    wake_on = False                            # the engine's pending wake-up
    wake_time = -1.0
    n_wakeups = 0
    seq = 0
    events = 0
    limit = np.iinfo(np.int64).max
    in_place = True
    i = 0
    while True:
        now = np.inf
        if len(done) > 0:
            now = done[0][0]
        if i < n and arr_t[i] < now:
            now = arr_t[i]
        if wake_on and wake_time < now:
            now = wake_time
        if now == np.inf:
            break
        seen = events
        while len(done) > 0 and done[0][0] == now:          # 1. completions
            _, _, p, k, m = heapq.heappop(done)
            rem[p] -= k
            if kill[p]:
                killed[p] = True
            if rem[p] == 0:
                end[p] = now
            if now > clock:
                _advance(st, sd, runs, ts, now, by_wait, in_place)
                clock = now
            _release(st, runs, user[p], p, k, m)
            _finished(st, sd, user[p])
            events += 1
        while i < n and arr_t[i] == now:                    # 2. arrivals
            if now > clock:
                _advance(st, sd, runs, ts, now, by_wait, in_place)
                clock = now
            _submit(st, sd, runs, ts, user[i], i, by_wait)
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
        if now > clock:                                     # one decision
            _advance(st, sd, runs, ts, now, by_wait, in_place)
            clock = now
        if not (woke and events == seen + 1 and tc.first(ts) == st[12][_BLOCKED]):
            # (a wake-up alone that leaves the blocked user first: the pass would start nothing)
            if now == wake:
                n_wakeups += 1
            n_out, out = _pass(st, sd, runs, ts, eps, by_wait, stop, limit, out, in_place)
            seq, log, n_log = _launched(out, n_out, now, dur, kill, start, done, seq, log, n_log)
        w = np.inf                                          # TaskPolicy.next_wakeup
        if wakeups and stop and st[12][_BLOCKED] >= 0:
            t = _next_min_change(st, sd, runs, ts, by_wait, in_place)
            if now < t < np.inf:
                wake = t
                w = t
        if w < np.inf:
            if not (wake_on and w == wake_time):
                wake_on = True
                wake_time = w
        else:
            wake_on = False
            wake_time = -1.0
    counts[0] = events
    counts[1] = n_log
    counts[2] = n_wakeups
    return _log_rows(log, n_log)


def sdrf_run(submit, user, tasks, demand, duration, killed, capacities, totals, placement, weights,
             commitments, fair, tau, *, level: bool = True, ties: str = "wait",
             blocking: str = "stop", wakeups: bool = True) -> dict:
    """SDRF over jobs in arrival order (``submit`` non-decreasing), as the event engine runs
    :class:`~fairalloc.sim.TaskPolicy` ``("sdrf")`` with :class:`SDRFScheduler` (wake-ups on,
    ``wake_on="first"``): the same compiled functions, called from a compiled event loop.

    Parameters
    ----------
    submit, user, tasks, demand, duration, killed, capacities, totals, placement, weights
        As :func:`fairalloc.scheduling.pool_core.pool_run`.
    commitments : ndarray (n_users, K)
        At time 0, fractions of the totals.
    fair : ndarray (n_users,)
        Fair shares.
    tau : float or None
        Eq. 6's time constant (None: commitments held constant).
    level : bool, default True
        The level reading (Eq. 5) or the printed one.
    ties : {"wait", "index"}
    blocking : {"stop", "skip"}
    wakeups : bool, default True
        Wake-ups while blocked (``TaskPolicy(wakeups=...)``).

    Returns
    -------
    dict
        ``start``, ``end``, ``killed`` (n,) by position; ``launches`` (position, tasks, server, start,
        end, killed arrays); ``decisions``, ``events`` (arrivals, completions and wake-ups),
        ``swaps``, ``wakeups`` (wake-ups that ran Algorithm 1's pass).

    Examples
    --------
    Two users on a pool of 2 units with constant commitments; user 0 committed 0.5 of the pool, so
    user 1's task goes first:

    >>> r = sdrf_run(np.array([0., 0.]), np.array([0, 1]), np.array([1, 1]), np.array([[1.], [1.]]),
    ...              np.array([5., 5.]), np.zeros(2, bool), np.array([[1.]]), np.array([1.]),
    ...              np.ones((2, 1), bool), np.ones(2), np.array([[0.5], [0.0]]), np.array([.5, .5]), None)
    >>> r["launches"][0].tolist(), r["start"].tolist()
    ([1, 0], [5.0, 0.0])
    """
    k = len(totals)
    n_users = len(weights)
    st = _state(capacities, totals, placement, weights)
    sd = _sdrf_state(n_users, k, commitments, fair, tau, level, 0.0)
    ts = tc.new_state(tau, 0.0, 64, n_users, k)
    runs, start, end, kill_out = _whole_run(st, user, tasks, demand)
    counts = np.zeros(3, np.int64)
    log = _loop(st, sd, runs, ts, np.ascontiguousarray(submit, dtype=float),
                np.ascontiguousarray(user, dtype=np.int64), np.ascontiguousarray(duration, dtype=float),
                np.ascontiguousarray(killed, dtype=np.bool_), ties == "wait", blocking == "stop",
                bool(wakeups), float(FLOOR_EPS), start, end, kill_out, counts)
    return {"start": start, "end": end, "killed": kill_out, "launches": log,
            "decisions": int(st[12][_DECISIONS]), "events": int(counts[0]),
            "swaps": int(ts[6][tc._SWAPS]), "wakeups": int(counts[2])}
