r"""The decision core of the continuous-time task schedulers: one compiled pass for every mechanism.

DRF, SDRF (both priority readings), TSF and CDRF differ only in their *key*
(:mod:`fairalloc.scheduling.keys`); everything else is this module, written once as plain loops over
arrays, compiled with numba at first use (:mod:`fairalloc._jit`) and run as Python under
``NUMBA_DISABLE_JIT=1``. :class:`~fairalloc.scheduling.TaskScheduler` is a checked facade over
:class:`Core`, and the simulator's compiled loop (:mod:`fairalloc.sim.kernels`) calls the same
functions on the same state.

The state
---------
Per user: its pending tasks as a first-in-first-out queue of *runs* (one :meth:`Core.submit`: a count
of identical tasks, a demand, a submission time; :class:`RunTable`), the raw resources its running
tasks hold :math:`u_i`, and the key's own state (SDRF's commitments :math:`c_i(t_0)` at its last change
:math:`t_0` and its excess :math:`\bar o_i`; TSF's monopoly counts of the tasks it runs). Per server:
the free capacity. All of it is one :class:`CoreState`; counters and parameters are in its ``meta``
(ints) and ``par`` (floats) arrays.

The order of the users with pending tasks (``order=``)
------------------------------------------------------
By key, then the tie value (the submission time of the user's oldest pending task with
``ties="wait"``, 0 with ``"index"``), then the user index:

``"heap"``
    an indexed binary heap over users, for keys that move only when the user's own state changes
    (DRF, TSF, CDRF): the key :math:`k_i + 0` (the ``+ 0`` turns a -0.0 into 0.0) is recomputed at
    each of the user's starts, finishes and new heads;
``"live_tree"``
    the kinetic live tree (:mod:`fairalloc.kinetic.tree_core`) for keys that move with time (SDRF's
    decaying commitments): the user's key as a maximum of lines in :math:`e^{-t/\tau}`, swap events
    processed as time advances; a user whose task ended is updated lazily and served first without
    moving when it comes first (``_lead``);
``"resort"``
    no structure: every decision takes the minimum over all users with pending tasks, comparing
    their trajectories with the tree's comparison at now (the baseline the SDRF paper measures the
    live tree against);
``"lazy"``
    a heap of keys as last computed, the top recomputed until it is current: exact only for keys
    that never decrease (the common shortcut; a benchmark baseline, see
    :class:`~fairalloc.kinetic.LazyHeap`).

The pass (:func:`schedule`)
---------------------------
While a user has pending tasks: the first user in the order (``blocking="stop"``; ``"skip"``: the
first not set aside in this pass) gets its oldest pending task on the server the rule picks
(:func:`fairalloc.scheduling.servers.find_server`); when none has room the pass stops (the user is
``blocked``) or sets the user aside until the pass ends. A start subtracts the demand from the
server's free capacity and adds it to the user's holdings, task by task; consecutive starts of one
run on one server form one launch row (run, tasks, first task id, server). A finish adds the demand
back (the holdings are reset to 0 when the user's last task ends, so no round-off residue stays).

Wake-ups (``blocking="stop"``): while stopped on user *h*, the first user can change only at a swap
event of the live tree (:func:`next_min_change`); a caller that advances to that time and finds a
first user other than *h* runs the pass again (:class:`~fairalloc.sim.TaskPolicy` proves the rule
exact).

Plugging in more (what the core is shaped for)
----------------------------------------------
* *A new key* (a production fair-share rule): a function of one user's state in
  :mod:`~fairalloc.scheduling.keys`, a branch in :func:`key_value` (a key constant between the user's
  own changes) or :func:`key_lines` (a key that moves with time as a maximum of lines in
  :math:`e^{-t/\tau}`), and a row of :data:`~fairalloc.scheduling.keys.KEYS`. Keys recomputed from
  global state at fixed instants (Slurm's decayed usage every ``PriorityCalcPeriod``) are re-keyed
  by :func:`rekey_all` at those instants (a periodic wake-up of the loop).
* *A decision trace*: :func:`schedule` writes one row per launch; a trace array of the same shape
  with the key, the tie and the reason of every user examined (started, no room, set aside) is
  written at the same places.
* *Queues above the users* (Kueue, YARN, Mesos; :mod:`~fairalloc.scheduling.queues`): the key ids from
  :data:`~fairalloc.scheduling.keys.QUEUE_KEYS` on read a ``QueueState`` (the ``qs`` field); a start or
  an end updates the queue usage (``queue_take``/``queue_release``) and re-keys the queue's other members
  (:func:`regroup`), and ``queue_admits`` may refuse a start (a quota), which the pass treats as a task
  that fits on no server; Volcano's deserved resources are recomputed at the start of a pass when a
  submission or an end changed the requests (``volcano_session``, then :func:`rekey_all`). Every other key
  reads none of it: its ``qs`` is None, each queue operation returns at once on None, and numba
  compiles a separate, queue-free copy of the core for such a state (the branch on an argument that is
  None is decided at compile time). A compiled call passes a NamedTuple argument as all its arrays, so
  the queue tree's arrays would otherwise be pushed at every call of the pass and the loop.
* *Preemption*: :func:`release` of the victim's tasks, then a run pushed at the *front* of its user's
  queue (``_enqueue`` with ``front``) for requeueing, or dropped for a kill.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Algorithm 1, Eq. 5-6,
   Section 6.3 (the live tree).
.. [2] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011, Section 4 (progressive filling of tasks).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import commitments as _c
from .._jit import jit
from ..kinetic import tree_core as tc
from ..tolerance import FLOOR_EPS
from .keys import CDRF, DRF, SDRF, TSF, _trajectory, cdrf_key, drf_key, tsf_key
from .keys import QUEUE_KEYS, VOLCANO, queue_key
from .queues import queue_admits, queue_group, queue_member, queue_release, queue_session, queue_submit, queue_take
from .servers import find_server

__all__ = ["Core", "CoreState", "RunTable", "ORDERS", "schedule", "schedule_into", "grow_rows", "submit", "release",
           "changed", "advance", "first", "next_min_change", "key_value", "key_lines", "rekey_all", "regroup"]

#: ``order=`` names -> ids.
ORDERS = {"heap": 0, "live_tree": 1, "resort": 2, "lazy": 3}
HEAP, TREE, SCAN, LAZY = 0, 1, 2, 3

# meta (int64) fields
(_SIZE, _DECISIONS, _BLOCKED, _RUNS, _NDIRTY, _KEY, _ORDER, _RULE, _BYWAIT, _STOP, _LSIZE, _RECOMP, _ACTIVE,
 _INPLACE, _TOKEN) = range(15)
# a pass's own variables, kept in meta while its launch rows are given more room (:func:`schedule`)
_LEAD, _NSKIP, _STARTED, _NOUT, _LAST, _LASTM = range(15, 21)
_NMETA = 21
# par (float) fields
_NOW, _TAU, _KIN, _LEVEL, _EPS, _JUMP = range(6)

_decay_into = jit(_c.decay_row_into)
_excess_into = jit(_c.excess_row_into)


class CoreState(NamedTuple):
    """The decision core's arrays (module docstring); N users, M servers, K resources."""

    free: np.ndarray        #: (M, K) free capacity per server
    totals: np.ndarray      #: (K,) cluster totals (the shares' denominators)
    place: np.ndarray       #: (N, M) bool, servers each user may use
    w: np.ndarray           #: (N,) weights
    usage: np.ndarray       #: (N, K) raw resources held by each user's running tasks
    n_running: np.ndarray   #: (N,) running tasks
    n_pending: np.ndarray   #: (N,) pending tasks
    qhead: np.ndarray       #: (N,) first pending run (-1: none)
    qtail: np.ndarray       #: (N,) last pending run
    tie: np.ndarray         #: (N,) tie value (oldest pending task's submission, or 0)
    prio: np.ndarray        #: (N,) heap key
    heap: np.ndarray        #: (N,) the indexed heap of users
    pos: np.ndarray         #: (N,) position of each user in the heap (-1: out)
    skip: np.ndarray        #: (N,) users set aside in the current pass
    skipped: np.ndarray     #: (N,) bool, set aside in the current pass
    c0: np.ndarray          #: (N, K) SDRF: commitments at t0
    t0: np.ndarray          #: (N,) SDRF: time of the user's last change
    ex: np.ndarray          #: (N, K) SDRF: excess over the fair share held since t0
    o: np.ndarray           #: (N, K) SDRF: normalised holdings
    fair: np.ndarray        #: (N,) SDRF: fair shares
    dirty: np.ndarray       #: (N,) live tree: users whose place is stale, in marking order
    isdirty: np.ndarray     #: (N,) bool
    ab: np.ndarray          #: (2, K) scratch: one user's lines
    ab1: np.ndarray         #: (2, 1) scratch: a constant key as one line
    scratch: np.ndarray     #: (K,) scratch for the server rules
    held_h: np.ndarray      #: (N, H) TSF: distinct monopoly counts of the running tasks, first held first
    held_n: np.ndarray      #: (N, H) TSF: running tasks per count
    held_len: np.ndarray    #: (N,) TSF: distinct counts held
    lazy: np.ndarray        #: (L, 4) lazy heap: (key as stored, tie, user, token)
    ltoken: np.ndarray      #: (N,) lazy heap: each user's current token
    meta: np.ndarray        #: int64 counters and choices
    par: np.ndarray         #: float parameters: now, tau, tau finite, level reading, eps, jump reading
    qs: object              #: the queue tree of the production keys (:class:`~fairalloc.scheduling.queues.QueueState`), else None


class RunTable(NamedTuple):
    """The runs (one per submit): their user, pending count, next task id, submission time, demand,
    next run in the user's queue and TSF monopoly count."""

    user: np.ndarray
    left: np.ndarray
    next_id: np.ndarray
    sub: np.ndarray
    d: np.ndarray
    nxt: np.ndarray
    h: np.ndarray


# ---- the indexed heap of users (constant keys), ordered by (prio, tie, user) ----------------------------
@jit(_nrt=False)
def _before(a, b, prio, tie):
    if prio[a] != prio[b]:
        return prio[a] < prio[b]
    if tie[a] != tie[b]:
        return tie[a] < tie[b]
    return a < b


@jit(_nrt=False)
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


@jit(_nrt=False)
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


@jit(inline="always", _nrt=False)
def _hpush(st, u):
    n = st.meta[_SIZE]
    st.heap[n] = u
    st.pos[u] = n
    _up(n, st.heap, st.pos, st.prio, st.tie)
    st.meta[_SIZE] = n + 1


@jit(inline="always", _nrt=False)
def _hremove(st, u):
    heap, pos = st.heap, st.pos
    k = pos[u]
    n = st.meta[_SIZE] - 1
    pos[u] = -1
    if k < n:
        v = heap[n]
        heap[k] = v
        pos[v] = k
        _up(k, heap, pos, st.prio, st.tie)
        _down(pos[v], heap, pos, n, st.prio, st.tie)
    st.meta[_SIZE] = n


# ---- the lazy heap (baseline): entries (key as stored, tie, user, token) ------------------------------
@jit(_nrt=False)
def _lbefore(L, i, j):
    for c in range(4):
        if L[i, c] != L[j, c]:
            return L[i, c] < L[j, c]
    return False


@jit(_nrt=False)
def _lswap(L, i, j):
    for c in range(4):
        L[i, c], L[j, c] = L[j, c], L[i, c]


@jit(_nrt=False)
def _lsift_down(L, k, n):
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and _lbefore(L, c + 1, c):
            c += 1
        if not _lbefore(L, c, k):
            break
        _lswap(L, k, c)
        k = c


@jit(_nrt=False)
def _lpop(st):
    L = st.lazy
    n = st.meta[_LSIZE] - 1
    st.meta[_LSIZE] = n
    if n > 0:
        _lswap(L, np.int64(0), n)
        _lsift_down(L, np.int64(0), n)


@jit(_nrt=False)
def _lpush(st, ts, u):
    """Push u's key at now (:class:`~fairalloc.kinetic.LazyHeap`'s ``_push``)."""
    L = st.lazy
    n = st.meta[_LSIZE]
    if n == L.shape[0]:                        # full: keep the current entries only (same pops)
        m = np.int64(0)
        for k in range(n):
            if L[k, 3] == st.ltoken[int(L[k, 2])]:
                for c in range(4):
                    L[m, c] = L[k, c]
                m += 1
        for k in range(m // 2 - 1, -1, -1):
            _lsift_down(L, k, m)
        n = m
    st.ltoken[u] += 1
    L[n, 0] = tc.priority(ts, u, st.par[_NOW])
    L[n, 1] = st.tie[u]
    L[n, 2] = u
    L[n, 3] = st.ltoken[u]
    k = n
    while k > 0:
        parent = (k - 1) >> 1
        if not _lbefore(L, k, parent):
            break
        _lswap(L, k, parent)
        k = parent
    st.meta[_LSIZE] = n + 1


@jit(_nrt=False)
def _lazy_min(st, ts):
    """The lazy heap's top once its stored key is current (-1: empty)."""
    L = st.lazy
    while st.meta[_LSIZE] > 0:
        u = int(L[0, 2])
        if L[0, 3] != st.ltoken[u]:
            _lpop(st)
            continue
        if tc.priority(ts, u, st.par[_NOW]) > L[0, 0]:    # grew since stored: push back, look again
            st.meta[_RECOMP] += 1
            _lpop(st)
            _lpush(st, ts, u)
            continue
        return u
    return -1


# ---- keys --------------------------------------------------------------------------------------------------
@jit(inline="always", _nrt=False)
def _tie_of(st, runs, u):
    """The tie value of u: its oldest pending task's submission time (``ties="wait"``) or 0."""
    return runs.sub[st.qhead[u]] if st.meta[_BYWAIT] != 0 else 0.0


@jit(_nrt=False)
def _held_add(st, u, h, delta):
    """TSF: one more (``delta`` 1) or one fewer (-1) running task of monopoly count h for u, the counts
    kept in the order first held (a count that reaches 0 is dropped, the others keep their order)."""
    n = st.held_len[u]
    hh, hn = st.held_h[u], st.held_n[u]
    for j in range(n):
        if hh[j] == h:
            hn[j] += delta
            if hn[j] == 0:
                for q in range(j, n - 1):
                    hh[q] = hh[q + 1]
                    hn[q] = hn[q + 1]
                st.held_len[u] = n - 1
            return
    hh[n] = h
    hn[n] = delta
    st.held_len[u] = n + 1


@jit(inline="always", _nrt=False)
def key_value(st, runs, u):
    """u's key now, for keys constant between its own changes (DRF, TSF, CDRF; :mod:`.keys`)."""
    kind = st.meta[_KEY]
    if kind == DRF:
        return drf_key(st.usage[u], st.totals, st.w[u])
    if kind == TSF:
        return tsf_key(st.held_h[u], st.held_n[u], st.held_len[u], st.w[u])
    if kind >= QUEUE_KEYS:
        return queue_key(kind, st.qs, u, runs.d[st.qhead[u]], st.totals)
    return cdrf_key(st.usage[u], runs.d[st.qhead[u]], st.totals, st.w[u])


@jit(_nrt=False)
def key_lines(st, runs, u):
    """u's key as lines :math:`a_r + b_r e^{-(t - t_0)/\\tau}` for the tree-ordered modes: SDRF's
    (:func:`~fairalloc.scheduling.keys.trajectory_row`) into ``st.ab``, a constant key as one line
    into ``st.ab1``. Returns (0 for ``ab`` or 1 for ``ab1``, t0)."""
    if st.meta[_KEY] == SDRF:
        _trajectory(st.o[u], st.ex[u], st.c0[u], st.w[u], st.par[_LEVEL] != 0.0, st.ab[0], st.ab[1])
        return 0, st.t0[u]
    st.ab1[0, 0] = key_value(st, runs, u)
    st.ab1[1, 0] = 0.0
    return 1, st.par[_NOW]


@jit(_nrt=False)
def _sdrf_changed(st, u):
    """SDRF: u's holdings changed now: its normalised holdings, its commitments brought to now by
    Eq. 6 (:func:`fairalloc.commitments.decay_row_into`; a second change at the same instant leaves them),
    and its excess over the fair share from now on (:func:`fairalloc.commitments.excess_row_into`); with
    ``jump`` (a diagnostic reading) the commitment is set to that excess at once."""
    o = st.o
    for r in range(o.shape[1]):
        o[u, r] = st.usage[u, r] / st.totals[r]
    if st.par[_KIN] != 0.0:
        now = st.par[_NOW]
        dt = now - st.t0[u]
        if dt != 0.0:
            _decay_into(st.c0[u], st.ex[u], dt, st.par[_TAU], st.c0[u])
            st.t0[u] = now
        _excess_into(o[u], st.fair[u], st.ex[u])
        if st.par[_JUMP] != 0.0:               # diagnostic reading: the commitment is the new excess at once
            for r in range(o.shape[1]):
                st.c0[u, r] = st.ex[u, r]
            st.t0[u] = now


# ---- the order ---------------------------------------------------------------------------------------------
@jit(_nrt=False)
def _tree_insert(st, runs, ts, u):
    which, t0 = key_lines(st, runs, u)
    if which == 0:
        tc.insert(ts, u, st.ab, t0, _tie_of(st, runs, u), u)
    else:
        tc.insert(ts, u, st.ab1, t0, _tie_of(st, runs, u), u)


@jit(_nrt=False)
def _tree_update(st, runs, ts, u):
    which, t0 = key_lines(st, runs, u)
    if which == 0:
        tc.update(ts, u, st.ab, t0, _tie_of(st, runs, u), u, st.meta[_INPLACE] != 0)
    else:
        tc.update(ts, u, st.ab1, t0, _tie_of(st, runs, u), u, st.meta[_INPLACE] != 0)


@jit(_nrt=False)
def _set_lines(st, runs, ts, u):
    which, t0 = key_lines(st, runs, u)
    if which == 0:
        tc.set_trajectory(ts, u, st.ab, t0, _tie_of(st, runs, u), u)
    else:
        tc.set_trajectory(ts, u, st.ab1, t0, _tie_of(st, runs, u), u)


@jit(inline="always", _nrt=False)
def _activate(st, runs, ts, u):
    """u has pending tasks again (it had none): its place in the order."""
    order = st.meta[_ORDER]
    st.tie[u] = _tie_of(st, runs, u)
    if order == HEAP:
        st.prio[u] = key_value(st, runs, u) + 0.0
        _hpush(st, u)
    elif order == TREE:
        _tree_insert(st, runs, ts, u)
    else:
        _set_lines(st, runs, ts, u)
        if order == LAZY:
            _lpush(st, ts, u)


@jit(inline="always", _nrt=False)
def _reposition(st, runs, ts, u):
    """u's key or tie changed (u still has pending tasks): its place in the order, now."""
    order = st.meta[_ORDER]
    st.tie[u] = _tie_of(st, runs, u)
    if order == HEAP:
        st.prio[u] = key_value(st, runs, u) + 0.0
        _up(st.pos[u], st.heap, st.pos, st.prio, st.tie)
        _down(st.pos[u], st.heap, st.pos, st.meta[_SIZE], st.prio, st.tie)
    elif order == TREE:
        _tree_update(st, runs, ts, u)
    else:
        _set_lines(st, runs, ts, u)
        if order == LAZY:
            _lpush(st, ts, u)


@jit(inline="always", _nrt=False)
def _deactivate(st, ts, u):
    """u has no pending task left: out of the order."""
    order = st.meta[_ORDER]
    st.meta[_ACTIVE] -= 1
    if order == HEAP:
        _hremove(st, u)
    elif order == TREE:
        tc.remove(ts, u)
    elif order == LAZY:
        st.ltoken[u] += 1


@jit(_nrt=False)
def _flush(st, runs, ts):
    """Live tree: the places of the users marked since (first marked first)."""
    for q in range(st.meta[_NDIRTY]):
        u = st.dirty[q]
        _tree_update(st, runs, ts, u)
        st.isdirty[u] = False
    st.meta[_NDIRTY] = 0


@jit(_nrt=False)
def _clear(st):
    for q in range(st.meta[_NDIRTY]):
        st.isdirty[st.dirty[q]] = False
    st.meta[_NDIRTY] = 0


@jit(_nrt=False)
def _lead(st, runs, ts):
    """Live tree: the one user marked since the last pass if it now comes first (it is served without
    moving twice), else -1 after bringing every marked user's place up to date."""
    if st.meta[_NDIRTY] != 1:
        _flush(st, runs, ts)
        return -1
    u = st.dirty[0]
    which, t0 = key_lines(st, runs, u)
    tie = _tie_of(st, runs, u)
    probe = st.w.shape[0]
    inplace = st.meta[_INPLACE] != 0
    if which == 0:
        ok = tc.lead_or_update(ts, u, probe, st.ab, t0, tie, inplace)
    else:
        ok = tc.lead_or_update(ts, u, probe, st.ab1, t0, tie, inplace)
    if ok:
        return u
    _clear(st)
    return -1


@jit(_nrt=False)
def _scan_min(st, ts, skipping):
    """The minimum over the users with pending tasks (not set aside when ``skipping``), compared by the
    live tree's comparison at now, scanned in index order."""
    best = np.int64(-1)
    now = st.par[_NOW]
    for u in range(st.w.shape[0]):
        if st.n_pending[u] == 0 or (skipping and st.skipped[u]):
            continue
        if best < 0 or tc.compare(ts, u, best, now) < 0:
            best = u
    return best


@jit(inline="always", _nrt=False)
def _next_user(st, ts, stop):
    """The user the pass serves next (-1: none)."""
    order = st.meta[_ORDER]
    if order == HEAP:
        return st.heap[0] if st.meta[_SIZE] > 0 else -1
    if order == TREE:
        return tc.first(ts) if stop else tc.first_unflagged(ts, st.skipped)
    if order == LAZY and stop:
        return _lazy_min(st, ts)
    return _scan_min(st, ts, not stop)


@jit(_nrt=False)
def _sorted_active(st, ts, out):
    """Users with pending tasks sorted by the live tree's comparison at now (insertion sort) into
    ``out``; returns how many."""
    n = 0
    now = st.par[_NOW]
    for u in range(st.w.shape[0]):
        if st.n_pending[u] == 0:
            continue
        j = n
        while j > 0 and tc.compare(ts, u, out[j - 1], now) < 0:
            out[j] = out[j - 1]
            j -= 1
        out[j] = u
        n += 1
    return n


# ---- the operations ----------------------------------------------------------------------------------------
@jit(inline="always", _nrt=False)
def _enqueue(st, runs, u, r, now):
    """Run r (its user, count and demand already in ``runs``) joins the end of u's queue at ``now``;
    returns whether u had no pending task before."""
    runs.sub[r] = now
    runs.nxt[r] = -1
    if st.qtail[u] < 0:
        st.qhead[u] = r
    else:
        runs.nxt[st.qtail[u]] = r
    st.qtail[u] = r
    idle = st.n_pending[u] == 0
    st.n_pending[u] += runs.left[r]
    if idle:
        st.meta[_ACTIVE] += 1
    return idle


# submit, release, changed and regroup are inlined into their callers (the simulator's loop, the pass): a call
# passes every array of the state (the queue tree's too) as an argument.
@jit(inline="always", _nrt=False)
def submit(st, runs, ts, u, r):
    """Run r joins user u's queue now; a user with no pending task before enters the order."""
    if st.meta[_KEY] >= QUEUE_KEYS:
        queue_submit(st.qs, st.meta[_KEY], u, runs.d[r], runs.left[r])
    if _enqueue(st, runs, u, r, st.par[_NOW]):
        _activate(st, runs, ts, u)


@jit(inline="always", _nrt=False)
def _take(st, runs, u, r, d, m):
    """Start u's oldest pending task (run r, demand d) on server m; returns its task id."""
    task = runs.next_id[r]
    runs.next_id[r] = task + 1
    runs.left[r] -= 1
    if runs.left[r] == 0:
        st.qhead[u] = runs.nxt[r]
        if st.qhead[u] < 0:
            st.qtail[u] = -1
    st.n_pending[u] -= 1
    for x in range(st.free.shape[1]):
        st.free[m, x] = st.free[m, x] - d[x]
    for x in range(st.free.shape[1]):
        st.usage[u, x] = st.usage[u, x] + d[x]
    st.n_running[u] += 1
    if st.meta[_KEY] == TSF:
        _held_add(st, u, runs.h[r], np.int64(1))
    elif st.meta[_KEY] >= QUEUE_KEYS:
        queue_take(st.qs, st.meta[_KEY], u, d)
    return task


@jit(inline="always", _nrt=False)
def release(st, runs, u, r, k, m):
    """k running tasks of run r (user u) on server m end now (then :func:`changed` of u)."""
    d = runs.d[r]
    n_res = st.free.shape[1]
    tsf = st.meta[_KEY] == TSF
    for _ in range(k):
        for x in range(n_res):
            st.free[m, x] = st.free[m, x] + d[x]
        st.n_running[u] -= 1
        if st.n_running[u] == 0:
            for x in range(n_res):
                st.usage[u, x] = 0.0
        else:
            for x in range(n_res):
                st.usage[u, x] = st.usage[u, x] - d[x]
        if tsf:
            _held_add(st, u, runs.h[r], np.int64(-1))
    if st.meta[_KEY] >= QUEUE_KEYS:
        queue_release(st.qs, st.meta[_KEY], u, d, k)


@jit(inline="always", _nrt=False)
def changed(st, runs, ts, u):
    """After :func:`release` of u's tasks ending now: u's key state, and its place in the order (the
    live tree: marked, brought up to date before the order is next read)."""
    if st.meta[_KEY] == SDRF:
        _sdrf_changed(st, u)
    elif st.meta[_KEY] >= QUEUE_KEYS:
        regroup(st, runs, ts, u)
    if st.n_pending[u] > 0:
        if st.meta[_ORDER] == TREE:
            if not st.isdirty[u]:
                st.isdirty[u] = True
                st.dirty[st.meta[_NDIRTY]] = u
                st.meta[_NDIRTY] += 1
        else:
            _reposition(st, runs, ts, u)


@jit(inline="always", _nrt=False)
def regroup(st, runs, ts, u):
    """Queue keys: u's queue usage changed, so every *other* member of u's queue with pending tasks takes
    its new key (a member set aside in this pass only gets its key, for its return to the heap)."""
    lo, hi = queue_group(st.qs, u)
    for j in range(lo, hi):
        v = queue_member(st.qs, j)
        if v == u or st.n_pending[v] == 0:
            continue
        if st.meta[_ORDER] == HEAP and st.pos[v] < 0:
            st.prio[v] = key_value(st, runs, v) + 0.0
        else:
            _reposition(st, runs, ts, v)


@jit(_nrt=False)
def advance(st, runs, ts, t):
    """Move the clock to t (>= now): the live tree's swap events up to t; returns their number."""
    if st.meta[_ORDER] == TREE:
        _flush(st, runs, ts)
    n = tc.advance(ts, t)
    st.par[_NOW] = t
    return n


@jit(inline="always", _nrt=False)
def _record(out, n_out, r, task, m, last, last_m):
    """One start in the launch rows ``out`` (run, tasks, first task id, server): consecutive starts of
    one run on one server form one launch. Returns the number of rows."""
    if r == last and m == last_m:
        out[n_out - 1, 1] += 1
        return n_out
    out[n_out, 0] = r
    out[n_out, 1] = 1
    out[n_out, 2] = task
    out[n_out, 3] = m
    return n_out + 1


@jit
def grow_rows(out):
    """``out`` (launch rows) with room for about twice as many rows, its rows kept."""
    n_out = out.shape[0]
    bigger = np.zeros((2 * n_out + 16, 4), np.int64)
    bigger[:n_out] = out
    return bigger


@jit(_nrt=False)
def schedule_into(st, runs, ts, limit, out, fresh):
    """The pass of :func:`schedule` into ``out``, from its start (``fresh``) or from where it stood when
    ``out`` was full (its variables kept in ``meta``); returns the number of launch rows, or -1 when
    ``out`` is full with the pass unfinished: then call again with ``fresh=False`` on
    :func:`grow_rows` of ``out``.

    A compiled loop calls this directly (it takes the state's arrays borrowed: compiled without
    reference counting), not :func:`schedule`: a call of a reference-counted function, or an inlined
    one, with the state as argument counts a reference to each of its arrays in and out."""
    stop = st.meta[_STOP] != 0
    order = st.meta[_ORDER]
    rule = st.meta[_RULE]
    eps = st.par[_EPS]
    meta = st.meta
    if fresh:
        if st.meta[_KEY] >= VOLCANO and queue_session(st.qs, st.meta[_KEY], st.totals, st.par[_NOW]):
            rekey_all(st, runs, ts)            # the session's deserved resources: every queue's share anew
        lead = _lead(st, runs, ts) if order == TREE else -1
        n_skip = 0
        started = 0
        n_out = 0
        last = -1
        last_m = -1
    else:
        lead, n_skip, started = meta[_LEAD], meta[_NSKIP], meta[_STARTED]
        n_out, last, last_m = meta[_NOUT], meta[_LAST], meta[_LASTM]
    blocked = -1
    while started < limit:
        if n_out == out.shape[0]:              # no room left for a launch row: the caller makes more
            meta[_LEAD], meta[_NSKIP], meta[_STARTED] = lead, n_skip, started
            meta[_NOUT], meta[_LAST], meta[_LASTM] = n_out, last, last_m
            return -1
        if lead >= 0:
            u = lead
        else:
            u = _next_user(st, ts, stop)
            if u < 0:
                break
        r = st.qhead[u]
        d = runs.d[r]
        if st.meta[_KEY] >= QUEUE_KEYS and not queue_admits(st.qs, st.meta[_KEY], u, d):
            m = -1                             # the rule refuses it now (a quota): as if it fit nowhere
        else:
            m = find_server(st.free, d, st.place[u], rule, st.totals, eps, st.scratch)
        if m < 0:
            if lead >= 0:
                _flush(st, runs, ts)
                lead = -1
            if stop:
                blocked = u
                break
            if order == HEAP:                  # "skip": aside until the pass ends
                _hremove(st, u)
            st.skipped[u] = True
            st.skip[n_skip] = u
            n_skip += 1
            continue
        if lead >= 0:
            _clear(st)                         # its place is replaced just below
            lead = -1
        task = _take(st, runs, u, r, d, m)
        if st.meta[_KEY] == SDRF:
            _sdrf_changed(st, u)
        elif st.meta[_KEY] >= QUEUE_KEYS:
            regroup(st, runs, ts, u)
        if st.n_pending[u] > 0:
            _reposition(st, runs, ts, u)
        else:
            _deactivate(st, ts, u)
        started += 1
        n_out = _record(out, n_out, r, task, m, last, last_m)
        last = r
        last_m = m
    for q in range(n_skip):                    # the users set aside, back in the order
        u = st.skip[q]
        st.skipped[u] = False
        if order == HEAP:
            _hpush(st, u)
    st.meta[_DECISIONS] += started
    st.meta[_BLOCKED] = blocked
    return n_out


@jit
def schedule(st, runs, ts, limit, out):
    """One pass (module docstring): start tasks until the rule stops or ``limit`` tasks started.

    Writes the launches into ``out`` rows (run, tasks, first task id, server), growing it when full;
    returns (number of launches, out). ``meta[_BLOCKED]`` is the user the pass stopped on, or -1.
    (:func:`schedule_into` is the pass; this wrapper only makes room.)
    """
    n_out = -1
    fresh = True                # one call site, ``fresh`` a bool variable: schedule_into is compiled once
    while n_out < 0:            # (for bool, as sim.kernels calls it), not for Literal[bool](True) and (False)
        if not fresh:
            out = grow_rows(out)
        n_out = schedule_into(st, runs, ts, limit, out, fresh)
        fresh = False
    return n_out, out


@jit(_nrt=False)
def first(st, runs, ts):
    """The user a pass would serve first now (-1: none)."""
    order = st.meta[_ORDER]
    if order == TREE:
        _flush(st, runs, ts)
    return _next_user(st, ts, True)


@jit
def _scan_min_change(st, ts):
    """``"resort"``: the earliest crossing of two neighbours in the order now, by brute force."""
    out = np.empty(st.w.shape[0], np.int64)
    n = _sorted_active(st, ts, out)
    best = math.inf
    for j in range(n - 1):
        t = tc.pair_fail_time(ts, out[j], out[j + 1])
        if t < best:
            best = t
    return best


@jit(_nrt=False)
def next_min_change(st, runs, ts):
    """The earliest time after which the first user can change without a submit or a finish: the live
    tree's next swap event (``inf``: none); for ``"resort"`` the earliest crossing of two neighbours
    in the order, found by brute force; ``inf`` for the heaps (constant keys, or the lazy baseline,
    which does not know)."""
    order = st.meta[_ORDER]
    if order == TREE:
        _flush(st, runs, ts)
        return tc.next_event_time(ts)
    if order != SCAN:
        return math.inf
    return _scan_min_change(st, ts)


@jit(_nrt=False)
def rekey_all(st, runs, ts):
    """Every user with pending tasks re-placed from its key now (for keys that change at fixed
    instants from global state, e.g. a periodic usage decay)."""
    for u in range(st.w.shape[0]):
        if st.n_pending[u] > 0:
            _reposition(st, runs, ts, u)


@jit(_nrt=False)
def _order_of(st, runs, ts, out):
    """Users with pending tasks in the order a pass would serve them now, into ``out``; their number."""
    order = st.meta[_ORDER]
    if order == TREE:
        _flush(st, runs, ts)
        return tc.order(ts, out)
    if order == HEAP:
        n = 0
        for u in range(st.w.shape[0]):
            if st.pos[u] < 0:
                continue
            j = n
            while j > 0 and _before(u, out[j - 1], st.prio, st.tie):
                out[j] = out[j - 1]
                j -= 1
            out[j] = u
            n += 1
        return n
    return _sorted_active(st, ts, out)


# ---- the Python side ---------------------------------------------------------------------------------------
def new_state(capacities, totals, placement, weights, *, key: int, order: str, rule: int, blocking: str,
              ties: str, time: float = 0.0, commitments=None, fair=None, tau=None, level: bool = True,
              jump: bool = False, held: int = 1, load: int = 64, queues=None):
    """A :class:`CoreState` and its :class:`~fairalloc.kinetic.tree_core.TreeState` for N users
    (``len(weights)``) on ``capacities`` (M, K); ``held``: TSF's distinct counts per user to make room for;
    ``queues``: the :class:`~fairalloc.scheduling.queues.QueueState` of a queue key."""
    if (key >= QUEUE_KEYS) != (queues is not None):
        raise ValueError(f"queues: key {key} {'needs' if key >= QUEUE_KEYS else 'reads no'} QueueState")
    capacities = np.array(capacities, dtype=float)
    n, k = len(weights), capacities.shape[1]
    o = ORDERS[order]
    meta = np.zeros(_NMETA, np.int64)
    meta[_BLOCKED] = -1
    meta[_KEY] = key
    meta[_ORDER] = o
    meta[_RULE] = rule
    meta[_BYWAIT] = ties == "wait"
    meta[_STOP] = blocking == "stop"
    meta[_INPLACE] = 1
    par = np.array([time, 1.0 if tau is None else float(tau), 0.0 if tau is None else 1.0,
                    1.0 if level else 0.0, float(FLOOR_EPS), 1.0 if jump else 0.0])
    c0 = np.zeros((n, k)) if commitments is None else np.array(commitments, dtype=float).reshape(n, k).copy()
    st = CoreState(
        free=capacities.copy(), totals=np.array(totals, dtype=float), place=np.array(placement, dtype=np.bool_),
        w=np.array(weights, dtype=float), usage=np.zeros((n, k)), n_running=np.zeros(n, np.int64),
        n_pending=np.zeros(n, np.int64), qhead=np.full(n, -1, np.int64), qtail=np.full(n, -1, np.int64),
        tie=np.zeros(n), prio=np.zeros(n), heap=np.full(n, -1, np.int64), pos=np.full(n, -1, np.int64),
        skip=np.zeros(n, np.int64), skipped=np.zeros(n, np.bool_), c0=c0, t0=np.full(n, float(time)),
        ex=np.zeros((n, k)), o=np.zeros((n, k)), fair=np.zeros(n) if fair is None else np.array(fair, dtype=float),
        dirty=np.zeros(n, np.int64), isdirty=np.zeros(n, np.bool_), ab=np.zeros((2, k)), ab1=np.zeros((2, 1)),
        scratch=np.zeros(k), held_h=np.zeros((n, max(held, 1))), held_n=np.zeros((n, max(held, 1)), np.int64),
        held_len=np.zeros(n, np.int64), lazy=np.zeros((4 * n + 128 if o == LAZY else 1, 4)),
        ltoken=np.zeros(n, np.int64), meta=meta, par=par, qs=queues)
    kin_tau = None if tau is None else float(tau)
    ts = tc.new_state(kin_tau, float(time), max(4, int(load)), n if o != HEAP else 1, k if o != HEAP else 1)
    return st, ts


def new_runs(n_runs: int, k: int) -> RunTable:
    """Room for ``n_runs`` runs of K resources."""
    n_runs = max(int(n_runs), 1)
    return RunTable(np.zeros(n_runs, np.int64), np.zeros(n_runs, np.int64), np.zeros(n_runs, np.int64),
                    np.zeros(n_runs), np.zeros((n_runs, k)), np.full(n_runs, -1, np.int64), np.zeros(n_runs))


_NO_LIMIT = int(np.iinfo(np.int64).max)


class Core:
    """The decision core's state for one scheduler, and its operations (thin calls of the compiled
    functions above). :class:`~fairalloc.scheduling.TaskScheduler` holds one; arguments are not checked
    here.

    Parameters
    ----------
    capacities : ndarray (M, K)
    totals : ndarray (K,)
    placement : ndarray (N, M) of bool
    weights : ndarray (N,)
    key : int
        A key id of :mod:`fairalloc.scheduling.keys`.
    order : {"heap", "live_tree", "resort", "lazy"}
    rule : int
        A server rule id (:data:`fairalloc.scheduling.servers.SERVER_RULES`).
    blocking : {"stop", "skip"}
    ties : {"wait", "index"}
    time : float
    commitments, fair, tau, level, jump
        SDRF's initial commitments (N, K) as fractions of the totals, fair shares (N,), time constant
        (None: constant commitments), reading (level or printed) and the diagnostic ``jump`` (at every
        change of a user's holdings its commitment is set to the new excess at once).
    queues : QueueState, optional
        The queue tree of a production key (:mod:`fairalloc.scheduling.queues`): the user's key is its
        queue's, :func:`~fairalloc.scheduling.queues.queue_admits` may refuse a start, and a start or an
        end re-keys the queue's members (:func:`regroup`).

    Examples
    --------
    DRF paper, Section 4 (9 CPUs, 18 GB; A's tasks <1, 4>, B's <3, 1>): A, B, A, B, A; then A (2/3,
    lower index at the tie) does not fit:

    >>> from fairalloc.scheduling.keys import DRF
    >>> core = Core(np.array([[9.0, 18.0]]), np.array([9.0, 18.0]), np.ones((2, 1), bool), np.ones(2),
    ...             key=DRF, order="heap", rule=0, blocking="stop", ties="wait")
    >>> core.submit(0, np.array([1.0, 4.0]), 10), core.submit(1, np.array([3.0, 1.0]), 10)
    (0, 1)
    >>> core.schedule(None)[:, 0].tolist(), core.blocked
    ([0, 1, 0, 1, 0], 0)
    """

    def __init__(self, capacities, totals, placement, weights, *, key: int, order: str, rule: int,
                 blocking: str, ties: str, time: float = 0.0, commitments=None, fair=None, tau=None,
                 level: bool = True, jump: bool = False, load: int = 64, queues=None) -> None:
        self.st, self.ts = new_state(capacities, totals, placement, weights, key=key, order=order, rule=rule,
                                     blocking=blocking, ties=ties, time=time, commitments=commitments, fair=fair,
                                     tau=tau, level=level, jump=jump, load=load, queues=queues)
        self.k = len(totals)
        self.runs = new_runs(16, self.k)
        self.next_id = 0
        self._out = np.zeros((64, 4), np.int64)
        self._held: list[set] = [set() for _ in range(len(weights))] if key == TSF else []
        self._tsf = key == TSF

    # read-only views
    @property
    def free(self) -> np.ndarray:
        return self.st.free

    @property
    def usage(self) -> np.ndarray:
        return self.st.usage

    @property
    def n_running(self) -> np.ndarray:
        return self.st.n_running

    @property
    def n_pending(self) -> np.ndarray:
        return self.st.n_pending

    @property
    def now(self) -> float:
        return float(self.st.par[_NOW])

    @property
    def decisions(self) -> int:
        return int(self.st.meta[_DECISIONS])

    @property
    def blocked(self) -> int | None:
        b = int(self.st.meta[_BLOCKED])
        return None if b < 0 else b

    @property
    def swaps(self) -> int:
        return int(tc.swaps(self.ts))

    @property
    def recomputations(self) -> int:
        """Keys the lazy heap recomputed (``order="lazy"``)."""
        return int(self.st.meta[_RECOMP])

    @property
    def in_place_updates(self) -> bool:
        """Whether the live tree keeps an updated user in place when it stays between its neighbours."""
        return bool(self.st.meta[_INPLACE])

    @in_place_updates.setter
    def in_place_updates(self, value: bool) -> None:
        self.st.meta[_INPLACE] = bool(value)

    def run_user(self, run: int) -> int:
        return int(self.runs.user[run])

    def commitments_at(self, t: float) -> np.ndarray:
        """(N, K) SDRF commitments at t (>= every user's last change), Eq. 6 (:func:`fairalloc.commitments.decay`)."""
        st = self.st
        if st.par[_KIN] == 0.0:
            return st.c0.copy()
        return _c.decay(st.c0, st.ex, (t - st.t0)[:, None], float(st.par[_TAU]))

    def priority(self, user: int) -> float:
        """The key the order holds for a ``user`` with pending tasks now (``KeyError`` if it has none)."""
        if self.st.n_pending[user] == 0:
            raise KeyError(user)
        if self.st.meta[_ORDER] == HEAP:
            return float(self.st.prio[user])
        first(self.st, self.runs, self.ts)            # (brings the live tree up to date)
        return float(tc.priority(self.ts, user, self.now))

    def key(self, user: int) -> float:
        """``user``'s constant key now (DRF, TSF, CDRF; a user with no pending task: DRF and TSF only)."""
        return float(key_value(self.st, self.runs, user))

    def order(self) -> list[int]:
        out = np.zeros(len(self.st.w), np.int64)
        m = _order_of(self.st, self.runs, self.ts, out)
        return out[:m].tolist()

    def first(self) -> int:
        return int(first(self.st, self.runs, self.ts))

    @property
    def next_min_change(self) -> float:
        return float(next_min_change(self.st, self.runs, self.ts))

    # operations
    def advance(self, t: float) -> int:
        return int(advance(self.st, self.runs, self.ts, float(t)))

    def submit(self, user: int, demand: np.ndarray, count: int, h: float = 0.0) -> int:
        """A run of ``count`` tasks of ``demand`` for ``user`` now (``h``: TSF's monopoly count of the
        demand); returns its run index (its task ids are ``next_id`` before the call onwards)."""
        if self._tsf:
            seen = self._held[user]
            if h not in seen:
                seen.add(h)
                if len(seen) > self.st.held_h.shape[1]:
                    self._grow_held(2 * len(seen))
        r = self._new_run(user, demand, count, h)
        submit(self.st, self.runs, self.ts, user, r)
        return r

    def _grow_held(self, cap: int) -> None:
        st = self.st
        n = len(st.w)
        hh, hn = np.zeros((n, cap)), np.zeros((n, cap), np.int64)
        hh[:, :st.held_h.shape[1]] = st.held_h
        hn[:, :st.held_n.shape[1]] = st.held_n
        self.st = st._replace(held_h=hh, held_n=hn)

    def _new_run(self, user: int, demand: np.ndarray, count: int, h: float) -> int:
        meta = self.st.meta
        r = int(meta[_RUNS])
        if r == len(self.runs.user):
            self.runs = RunTable(*(np.concatenate([a, np.full_like(a, -1 if j == 5 else 0)])
                                   for j, a in enumerate(self.runs)))
        runs = self.runs
        runs.user[r] = user
        runs.left[r] = count
        runs.next_id[r] = self.next_id
        runs.d[r] = demand
        runs.h[r] = h
        self.next_id += count
        meta[_RUNS] = r + 1
        return r

    def release(self, user: int, run: int, count: int, server: int) -> None:
        release(self.st, self.runs, user, run, count, server)

    def changed(self, user: int) -> None:
        changed(self.st, self.runs, self.ts, user)

    def schedule(self, limit: int | None) -> np.ndarray:
        """One pass; its launches as rows (run, tasks, first task id, server)."""
        n, self._out = schedule(self.st, self.runs, self.ts, _NO_LIMIT if limit is None else int(limit), self._out)
        return self._out[:n].copy()
