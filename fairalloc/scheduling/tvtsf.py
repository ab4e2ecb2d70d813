r"""TV-TSF Algorithms 1-5: slot-by-slot greedy allocation by cumulative task share, and slotted baselines.

Setting (:class:`~fairalloc.TimeVaryingInstance`): servers with capacities :math:`C_m`, slots
:math:`t = 1..T`; user *i* submits :math:`B_i(t)` tasks of demand :math:`d_i(t)` in slot *t*, each
running :math:`e_i` slots on one server it may use (placement :math:`p_i`). Tasks not started stay
pending and are tried again in later slots (the paper: "resubmitted by the user").

Per slot *t* (Algorithm 1 runs Algorithm 2 for every slot; here every slot with pending tasks):

1. tasks started in slot :math:`t - e_i` end: their capacity is free again;
2. the slot's arrivals join the pending tasks;
3. Algorithm 2 (:func:`fill_slot`, the one implementation, also used by
   :class:`~fairalloc.scheduling.OnlineSlotScheduler`): all users with pending tasks are active.
   Repeatedly, an active user with the smallest key (ties: see below) gets ALLOC (Algorithm 3): one
   task on the server chosen by
   FIND_BESTFIT_SERVER (Algorithm 4, ``server="tvtsf"``: the eligible server where the task fits
   minimising :math:`H(i,m,t) = \lVert d_i/d_{i1} - C_m/C_{m1}\rVert_1` over *remaining*
   capacities, :mod:`fairalloc.scheduling.servers`); FREEZE (Algorithm 5) deactivates users whose share
   can no longer grow (no pending task, or no eligible server with room).

Keys (``policy=``):

``"tvtsf"``
    the cumulative task share, TV-TSF Eq. 3: :math:`s_i(t) = \sum_{\tau\le t} x_i(\tau) /
    \sum_{\tau\le t}\omega_i(\tau) h_i(\tau)`, with :math:`h_i(t)` the monopoly count of Eq. 4 (full
    capacities, placement ignored; :func:`fairalloc.shares.monopoly_tasks`) and :math:`x_i(\tau)` the
    tasks started in slot :math:`\tau`.
``"tsf"``
    TSF in each slot on its own: the task share of the tasks *running* in the slot,
    :math:`n_i(t) / (\omega_i(t) h_i(t))` (no memory of past slots).
``"cdrf"``
    CDRF sequential min-max in each slot: the weighted dominant share of the running tasks after
    the next one, :math:`\max_r (o_{ir}(t) + d_{ir}(t)/C_r) / \omega_i(t)`.

Errata and choices (``papers/tvtsf.md``):

* FREEZE calls ALLOC, which would change capacities; here it is a dry-run feasibility test. It is
  applied lazily: a user is frozen when it is picked and no eligible server has room, which selects
  exactly the same users in the same order as freezing everybody after each round (capacities only
  decrease within a slot, so a frozen user stays frozen).
* :math:`h_i(t)` uses the full capacities :math:`C_{mr}` (the paper says "remaining"; see the errata).
* Every slot counts in the denominator of Eq. 3, whether the user submitted tasks in it or not.
* Algorithm 4 divides by the first resource; when a task does not use it the first positive resource
  of the task is the reference instead (:mod:`fairalloc.scheduling.servers`).
* A task started in slot *t* uses :math:`d_i(t)` for its whole run.
* Ties (equal keys; the paper leaves them arbitrary): ``ties="wait"`` (default) serves the user whose
  oldest pending task arrived in the earliest slot, then the lower index, the rule of every task
  scheduler (:class:`~fairalloc.scheduling.TaskScheduler`); ``ties="index"`` the lower index only.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Eq. 3-4,
   Algorithms 1-5.
"""

from __future__ import annotations

import logging
import time as _time
from collections import deque
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import shares
from ..validation import as_array, require_choice, require_nonnegative, require_shape
from ..errors import InvalidInstanceError
from ..model import TimeVaryingInstance
from ..result import AllocationResult, Status
from .._jit import jit
from ..tolerance import FLOOR_EPS
from .servers import FreeCapacity, find_server

__all__ = ["SlotStart", "SlotScheduler", "slotted_greedy", "tvtsf_greedy", "fill_slot", "fill_slot_arrays", "SlotFill",
           "POLICIES", "TIES"]

logger = logging.getLogger(__name__)

POLICIES = ("tvtsf", "tsf", "cdrf")
_EPS = float(FLOOR_EPS)         # the fit test's slack, as FreeCapacity's
_dominant = jit(shares.dominant_share_row)
#: Tie rules among equal keys (module docstring), as :data:`fairalloc.scheduling.TIES`.
TIES = ("wait", "index")


#: ``kind=`` of :func:`fill_slot`: the key :math:`\mathrm{num}_i / \mathrm{den}_i` whose numerator grows by
#: the job's increment at each start (TV-TSF's cumulative share, TSF's task share), or CDRF's weighted
#: dominant share after the next task, :math:`\max_r (o_{ir} + d_r) / C_r / \omega_i`.
RATIO, DOMINANT_AFTER = 0, 1


@jit(_nrt=False)
def _less(hk, ht, hu, a, b):
    """Heap order: (key, tie, user) lexicographically (users are distinct: a total order)."""
    if hk[a] != hk[b]:
        return hk[a] < hk[b]
    if ht[a] != ht[b]:
        return ht[a] < ht[b]
    return hu[a] < hu[b]


@jit(_nrt=False)
def _swap(hk, ht, hu, a, b):
    hk[a], hk[b] = hk[b], hk[a]
    ht[a], ht[b] = ht[b], ht[a]
    hu[a], hu[b] = hu[b], hu[a]


@jit(_nrt=False)
def _push(hk, ht, hu, size, key, tie, user):
    """Add (key, tie, user) to the binary heap of ``size`` entries; return the new size."""
    j = size
    hk[j], ht[j], hu[j] = key, tie, user
    while j > 0:
        p = (j - 1) // 2
        if not _less(hk, ht, hu, j, p):
            break
        _swap(hk, ht, hu, j, p)
        j = p
    return size + 1


@jit(_nrt=False)
def _pop(hk, ht, hu, size):
    """Remove the smallest entry (moved to position ``size - 1``); return the new size."""
    size -= 1
    _swap(hk, ht, hu, 0, size)
    j = 0
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size and _less(hk, ht, hu, c + 1, c):
            c += 1
        if not _less(hk, ht, hu, c, j):
            break
        _swap(hk, ht, hu, c, j)
        j = c
    return size


@jit(_nrt=False)
def _key(kind, i, job, num, den, usage, weights, jd, totals, row):
    """The key of user ``i`` whose next task is one of job ``job`` (``kind``: :data:`RATIO` or
    :data:`DOMINANT_AFTER`, :func:`fairalloc.shares.dominant_share_row` of usage plus the task); ``row``
    a (K,) work array."""
    if kind == RATIO:
        return num[i] / den[i]
    for r in range(totals.shape[0]):
        row[r] = usage[i, r] + jd[job, r]
    return _dominant(row, totals) / weights[i]


@jit(_nrt=False)
def _fill_slot(free, placement, rule, totals, eps, scratch, row, kind, num, den, usage, weights,
               users, head, last, jd, jn, jinc, jtie, hk, ht, hu, state, out_user, out_server, out_job):
    """TV-TSF Algorithm 2 on arrays (:func:`fill_slot`), resumable: with a server rule given by the
    caller (``rule < 0``) it stops at each choice with the user in ``state[3]``; the caller puts the
    server in ``state[4]`` and calls again. ``state``: heap size, rounds, starts, waiting user, answer."""
    size = state[0]
    if state[3] < -1:                                   # first call: every active user in the heap
        size = 0
        for a in range(users.shape[0]):
            i = users[a]
            size = _push(hk, ht, hu, size, _key(kind, i, head[i], num, den, usage, weights, jd, totals, row),
                         jtie[head[i]], i)
        state[3] = -1
    n = state[2]
    while True:
        if state[3] >= 0:                               # resumed with the caller's server
            i = state[3]
            m = state[4]
            state[3] = -1
        else:
            if size == 0:
                break
            size = _pop(hk, ht, hu, size)
            i = hu[size]
            state[1] += 1
            if rule < 0:
                state[0] = size
                state[2] = n
                state[3] = i
                return
            m = find_server(free, jd[head[i]], placement[i], rule, totals, eps, scratch)
        if m < 0:
            continue                                    # FREEZE: no eligible server with room
        job = head[i]
        for r in range(free.shape[1]):
            free[m, r] -= jd[job, r]
        out_user[n] = i
        out_server[n] = m
        out_job[n] = job
        n += 1
        if kind == RATIO:
            num[i] += jinc[job]
        for r in range(free.shape[1]):
            usage[i, r] += jd[job, r]
        jn[job] -= 1
        if jn[job] == 0:
            head[i] = job + 1
        if head[i] < last[i]:
            size = _push(hk, ht, hu, size, _key(kind, i, head[i], num, den, usage, weights, jd, totals, row),
                         jtie[head[i]], i)
    state[0] = size
    state[2] = n


def fill_slot(servers: FreeCapacity, jobs: dict, *, kind: int, start: Callable[[int, int], Any],
              num: Any = None, den: Any = None, usage: Any = None, weights: Any = None) -> int:
    r"""TV-TSF Algorithm 2 for one slot, with ALLOC (Algorithm 3) and a lazy FREEZE (Algorithm 5).

    Repeatedly the active user with the smallest ``(key, tie, user)`` gets one task of its head job
    on the server the rule chooses (``servers``' rule; Algorithm 4 by default); the capacity is taken
    and ``start(i, m)`` records the start (called for every start in order, once the slot is filled). A user whose head task fits on no eligible server is
    frozen for the rest of the slot (capacities only decrease within a slot); a user whose jobs are
    all started leaves. The loop is compiled (:func:`_fill_slot`, the one implementation); a server
    rule given as a Python callable is asked between compiled steps (the loop resumes with its answer).
    :func:`fill_slot_arrays` is the same loop returning the starts as arrays, without a callback.

    Parameters
    ----------
    servers : FreeCapacity
        Free capacity and the server rule (changed in place: one :meth:`~FreeCapacity.take` per start,
        in the order of the starts).
    jobs : dict
        Active user -> its pending jobs in queue order, each ``(demand, tasks, increment, tie)``:
        the task's demand (K,), raw units; tasks left; the key's increment per start (:data:`RATIO`);
        the tie value while it is the head job (smaller first, then the user index).
    kind : {RATIO, DOMINANT_AFTER}
        :data:`RATIO`: key :math:`\mathrm{num}_i / \mathrm{den}_i`, ``num[i]`` grown by the head job's
        increment at each start; :data:`DOMINANT_AFTER`: :math:`\max_r (o_{ir} + d_r)/C_r/\omega_i`
        with ``usage`` :math:`o` grown by the demand at each start and ``weights`` :math:`\omega`.
    start : callable
        ``start(i, m)``: the caller's bookkeeping of one start of ``i``'s head task on server ``m``.
    num, den : array_like (N,), optional
        :data:`RATIO` state (not changed: the loop works on a copy).
    usage : array_like (N, K), optional
    weights : array_like (N,), optional
        :data:`DOMINANT_AFTER` state (``usage`` not changed: a copy).

    Returns
    -------
    int
        Rounds: users popped, frozen ones included.

    Examples
    --------
    One pool <3, 3>, two users with unit tasks <1, 1>, key = tasks started so far (``num``; ``den``
    1). By hand: user 0 (key 0), user 1 (key 0), user 0 (key 1, tie 0 = 0 broken by index) fill the
    pool; then user 1 (key 1) and user 0 (key 2) are popped once more, fit nowhere and are frozen:
    5 rounds, 2 tasks and 1:

    >>> import numpy as np
    >>> from fairalloc.scheduling import FreeCapacity
    >>> servers = FreeCapacity(np.array([[3.0, 3.0]]), np.ones((2, 1), dtype=bool))
    >>> started = [0, 0]
    >>> def start(i, m):
    ...     started[i] += 1
    >>> jobs = {i: [(np.array([1.0, 1.0]), 10, 1.0, 0.0)] for i in (0, 1)}
    >>> fill_slot(servers, jobs, kind=RATIO, num=[0.0, 0.0], den=[1.0, 1.0], start=start), started
    (5, [2, 1])
    """
    f = fill_slot_arrays(servers, jobs, kind=kind, num=num, den=den, usage=usage, weights=weights)
    for i, m in zip(f.user.tolist(), f.server.tolist()):
        start(i, m)
    return f.rounds


class SlotFill(NamedTuple):
    """What :func:`fill_slot_arrays` did in one slot: the starts in order and the state they left.

    Attributes
    ----------
    rounds : int
        Users popped (frozen ones included).
    user, server, job : ndarray of int64
        Per start, in order: the user, the server, the job (its position in ``jobs``, users in the
        dict's order, each user's jobs in queue order).
    num : ndarray (N,)
        ``num`` after the starts (:data:`RATIO`: grown by each start's increment).
    usage : ndarray (N, K)
        ``usage`` after the starts (grown by each start's demand, one start at a time).
    """

    rounds: int
    user: np.ndarray
    server: np.ndarray
    job: np.ndarray
    num: np.ndarray
    usage: np.ndarray


def fill_slot_arrays(servers: FreeCapacity, jobs: dict, *, kind: int, num: Any = None, den: Any = None,
                     usage: Any = None, weights: Any = None, totals: Any = None) -> SlotFill:
    """:func:`fill_slot` (the same compiled loop, :func:`_fill_slot`) returning the starts as arrays.

    ``servers``' free capacity is left as the starts leave it (the compiled loop's own subtractions, in
    the order of the starts: the values :meth:`~FreeCapacity.take` would leave); ``num`` and ``usage``
    are copied, the copies returned in the :class:`SlotFill`. ``totals`` (default ``servers.totals``)
    are the :data:`DOMINANT_AFTER` key's :math:`C_r` (a pool of free capacity keyed by the cluster's totals).

    Examples
    --------
    :func:`fill_slot`'s example: starts of users 0, 1, 0 on the one pool, 5 rounds:

    >>> import numpy as np
    >>> from fairalloc.scheduling import FreeCapacity
    >>> servers = FreeCapacity(np.array([[3.0, 3.0]]), np.ones((2, 1), dtype=bool))
    >>> jobs = {i: [(np.array([1.0, 1.0]), 10, 1.0, 0.0)] for i in (0, 1)}
    >>> f = fill_slot_arrays(servers, jobs, kind=RATIO, num=[0.0, 0.0], den=[1.0, 1.0])
    >>> f.rounds, f.user.tolist(), f.num.tolist(), servers.free.tolist()
    (5, [0, 1, 0], [2.0, 1.0], [[0.0, 0.0]])
    """
    users = np.fromiter(jobs, dtype=np.int64, count=len(jobs))
    n_users = servers.placement.shape[0]
    k = servers.capacity.shape[1]
    n_jobs = sum(len(v) for v in jobs.values())
    jd = np.empty((n_jobs, k))
    jn = np.empty(n_jobs, dtype=np.int64)
    jinc = np.zeros(n_jobs)
    jtie = np.empty(n_jobs)
    head = np.zeros(n_users, dtype=np.int64)
    last = np.zeros(n_users, dtype=np.int64)
    j = 0
    for i, queue in jobs.items():
        head[i] = j
        for d, c, inc, tie in queue:
            jd[j] = d
            jn[j] = c
            jinc[j] = inc
            jtie[j] = tie
            j += 1
        last[i] = j
    total = int(jn.sum())
    num = np.zeros(n_users) if num is None else np.array(num, dtype=float)
    den = np.ones(n_users) if den is None else np.asarray(den, dtype=float)
    usage = np.zeros((n_users, k)) if usage is None else np.array(usage, dtype=float)
    weights = np.ones(n_users) if weights is None else np.asarray(weights, dtype=float)
    totals = servers.totals if totals is None else np.asarray(totals, dtype=float)
    free = np.array(servers.free, dtype=float)
    hk, ht, hu = np.empty(users.size + 1), np.empty(users.size + 1), np.empty(users.size + 1, dtype=np.int64)
    out_user = np.empty(total, dtype=np.int64)
    out_server = np.empty(total, dtype=np.int64)
    out_job = np.empty(total, dtype=np.int64)
    state = np.array([0, 0, 0, -2, -1], dtype=np.int64)
    rule = servers.rule_id
    scratch = np.zeros(k)
    placement = np.asarray(servers.placement, dtype=bool)
    while True:
        _fill_slot(free, placement, rule, totals, _EPS, scratch, np.zeros(k), kind, num, den, usage, weights,
                   users, head, last, jd, jn, jinc, jtie, hk, ht, hu, state, out_user, out_server, out_job)
        servers.assign(free)
        if state[3] < 0:
            n = int(state[2])
            return SlotFill(int(state[1]), out_user[:n], out_server[:n], out_job[:n], num, usage)
        i = int(state[3])
        state[4] = servers.find(i, jd[head[i]])


class SlotStart(NamedTuple):
    """``count`` tasks of ``user`` started on ``server`` in ``slot``.

    Attributes
    ----------
    user : int
    server : int
    slot : int
        The slot index (from 0).
    count : int
        Tasks started there in that slot (>= 1).

    Examples
    --------
    See :class:`SlotScheduler`, whose :meth:`~SlotScheduler.step` returns these.

    >>> SlotStart(user=0, server=1, slot=0, count=2)
    SlotStart(user=0, server=1, slot=0, count=2)
    """

    user: int
    server: int
    slot: int
    count: int


class SlotScheduler:
    """Incremental slotted scheduler (module docstring): call :meth:`step` once per slot.

    Parameters
    ----------
    instance : TimeVaryingInstance
        Cluster, per-slot demands :math:`d_i(t)`, arrivals :math:`B_i(t)`, durations, placement,
        weights :math:`\\omega_i(t)`.
    policy : {"tvtsf", "tsf", "cdrf"}
    server : str or callable, optional
        Server rule (:mod:`fairalloc.scheduling.servers`); default ``"tvtsf"`` (Algorithm 4) for every
        policy, so that policies differ only in who is served.
    ties : {"wait", "index"}, default "wait"
        Among equal keys: the user whose oldest pending task arrived first, then the lower index; or
        the lower index only.

    Raises
    ------
    InvalidInstanceError
        ``instance`` is not a :class:`~fairalloc.TimeVaryingInstance`, or a bad choice.

    See Also
    --------
    slotted_greedy : runs every slot and packs an :class:`~fairalloc.AllocationResult`.
    OnlineSlotScheduler : the same rule for a stream of tasks.

    Examples
    --------
    The instance of :func:`tvtsf_greedy`; slot 0 as computed by hand there (user 0: 2 tasks on
    server 0, user 1: 4 on server 1), then one pending task each in slot 1:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 8], [8, 8]], [[2, 4], [2, 2]], arrivals=[[3, 0], [5, 0]],
    ...                             durations=[1, 1], placement=[[1, 0], [1, 1]])
    >>> s = SlotScheduler(tv)
    >>> s.step()
    [SlotStart(user=0, server=0, slot=0, count=2), SlotStart(user=1, server=1, slot=0, count=4)]
    >>> [(st.user, st.server, st.count) for st in s.step()], s.done
    ([(0, 0, 1), (1, 1, 1)], True)
    """

    def __init__(self, instance: TimeVaryingInstance, /, *, policy: str = "tvtsf", server: Any = None,
                 ties: str = "wait") -> None:
        if not isinstance(instance, TimeVaryingInstance):
            raise TypeError(f"instance must be a fairalloc.TimeVaryingInstance, got {type(instance).__name__}")
        self.instance = tv = instance
        self.policy = require_choice("policy", policy, POLICIES)
        self.ties = require_choice("ties", ties, TIES)
        self.servers = FreeCapacity(tv.cluster.capacities, tv.placement, "tvtsf" if server is None else server)
        self.totals = self.servers.totals
        n, m, t, k = tv.n_agents, tv.n_servers, tv.n_slots, tv.n_resources
        self.slot = 0
        self.pending = np.zeros(n, dtype=np.int64)
        self._arrived: list[deque[list[int]]] = [deque() for _ in range(n)]   # [slot, count], oldest first
        self.started = np.zeros((n, m, t), dtype=np.int64)
        self.usage = np.zeros((n, k))
        self.n_running = np.zeros(n, dtype=np.int64)
        self.utilization = np.zeros((t, k))
        self.usage_per_slot = np.zeros((m, k, t))
        self._cum = np.zeros(n, dtype=np.int64)                          # tasks started before this slot
        self._monopoly = tv.monopoly
        self._cum_wh = np.cumsum(self._monopoly * tv.weights, axis=1)    # denominator of Eq. 3
        self._ending: dict[int, list[tuple[int, int, int, np.ndarray]]] = {}
        self._rounds = 0

    @property
    def done(self) -> bool:
        return self.slot >= self.instance.n_slots

    def step(self, arrivals: Any = None) -> list[SlotStart]:
        """Run one slot: release ended tasks, add arrivals (default: the instance's), allocate.

        Returns the starts of the slot, one record per (user, server) with a count.
        """
        tv = self.instance
        if self.done:
            raise InvalidInstanceError(f"all {tv.n_slots} slots have been run", argument="slot", value=self.slot)
        t = self.slot
        for i, m, c, d in self._ending.pop(t, []):
            self.servers.release(m, c * d)
            self.usage[i] -= c * d
            self.n_running[i] -= c
            if self.n_running[i] == 0:
                self.usage[i] = 0.0
        if arrivals is None:
            a = tv.arrivals[:, t]
        else:
            a = as_array("arrivals", arrivals, ndim=1)
            require_shape("arrivals", a, (tv.n_agents,), names=["n_agents"])
            require_nonnegative("arrivals", a)
            a = a.astype(np.int64)
        self.pending += a
        for i in np.flatnonzero(a > 0).tolist():
            self._arrived[i].append([t, int(a[i])])
        x = np.zeros(tv.n_agents, dtype=np.int64)
        by_wait = self.ties == "wait"

        def start(i: int, m: int) -> None:
            self.usage[i] += tv.task_demands[i, t]
            self.n_running[i] += 1
            self.pending[i] -= 1
            self.started[i, m, t] += 1
            x[i] += 1
            head = self._arrived[i][0]
            head[1] -= 1
            if head[1] == 0:
                self._arrived[i].popleft()

        # each active user's arrival batches (this slot's demand), tasks left, key increment 1, tie
        jobs = {i: [(tv.task_demands[i, t], c, 1.0, a if by_wait else 0.0) for a, c in self._arrived[i]]
                for i in np.flatnonzero(self.pending > 0).tolist()}
        if self.policy == "cdrf":
            rounds = fill_slot(self.servers, jobs, kind=DOMINANT_AFTER, usage=self.usage,
                               weights=tv.weights[:, t], start=start)
        elif self.policy == "tsf":     # n_i / (w_i h_i) of the running tasks (shares.task_shares)
            rounds = fill_slot(self.servers, jobs, kind=RATIO, num=self.n_running,
                               den=self._monopoly[:, t] * tv.weights[:, t], start=start)
        else:                          # Eq. 3: (X_i + x_i) / sum_tau w h
            rounds = fill_slot(self.servers, jobs, kind=RATIO, num=self._cum, den=self._cum_wh[:, t], start=start)
        self._rounds += rounds
        out = []
        for i, m in zip(*np.nonzero(self.started[:, :, t])):
            c = int(self.started[i, m, t])
            out.append(SlotStart(int(i), int(m), t, c))
            self._ending.setdefault(t + int(tv.durations[i]), []).append((int(i), int(m), c, tv.task_demands[i, t]))
        self._cum += x
        used = self.servers.used()
        self.usage_per_slot[:, :, t] = used
        self.utilization[t] = shares.normalized_demands(used.sum(axis=0), self.totals)
        self.slot += 1
        return out


def slotted_greedy(instance: TimeVaryingInstance, /, *, policy: str = "tvtsf", server: Any = None,
                   ties: str = "wait") -> AllocationResult:
    r"""Run :class:`SlotScheduler` over every slot of ``instance``.

    Parameters
    ----------
    instance : TimeVaryingInstance
    policy : {"tvtsf", "tsf", "cdrf"}, default "tvtsf"
        The key (module docstring).
    server : str or callable, optional
        Server rule; default ``"tvtsf"`` (Algorithm 4) for every policy.
    ties : {"wait", "index"}, default "wait"

    Returns
    -------
    AllocationResult
        ``mechanism`` the policy, ``method="greedy"``, status FEASIBLE; ``tasks`` (N, M, T) tasks
        started per user, server and slot; ``shares`` the cumulative task shares :math:`s_i(T)` at the
        horizon (TV-TSF Eq. 3, :func:`fairalloc.shares.cumulative_task_shares`, the same metric for
        every policy); ``utilities`` tasks started per user; ``stats``: decisions, rounds, min_share,
        unstarted, runtime_s; ``details`` (the keys of the exact TV-TSF programs where they overlap):
        ``cumulative_shares`` (N, T), ``started`` (N, T), ``pending`` (N, T) submitted but not started
        after each slot, ``unstarted`` (N,) its last column, ``usage`` (M, K, T) resources held per
        server and slot (raw units), ``utilization`` (T, K) fraction of each resource held per slot.

    Raises
    ------
    InvalidInstanceError
        ``instance`` is not a :class:`~fairalloc.TimeVaryingInstance`, or a bad choice.

    Examples
    --------
    One server <2, 2>, two users with 2 unit tasks <1, 1> each arriving in slot 0, lasting one
    slot. Each slot holds two tasks; the tie breaks by index, so each user starts one task per
    slot. Then :math:`h = 2` per slot for both and Eq. 3 gives :math:`s_i = 2 / (2 + 2) = 0.5`:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1], [1, 1]], arrivals=[[2, 0], [2, 0]], durations=[1, 1])
    >>> r = slotted_greedy(tv, policy="cdrf")
    >>> r.tasks[:, 0, :].tolist(), r.shares.tolist()
    ([[1, 1], [1, 1]], [0.5, 0.5])
    """
    sched = SlotScheduler(instance, policy=policy, server=server, ties=ties)
    t0 = _time.perf_counter()
    while not sched.done:
        sched.step()
    runtime = _time.perf_counter() - t0
    tv = instance
    starts = sched.started.sum(axis=1)
    cum = shares.cumulative_task_shares(starts, tv.monopoly, tv.weights)
    final = cum[:, -1]
    total = int(starts.sum())
    unstarted = sched.pending.copy()
    logger.debug("%s slotted greedy: %d tasks started over %d slots", sched.policy, total, tv.n_slots)
    return AllocationResult.from_arrays(
        status=Status.FEASIBLE, mechanism=sched.policy, method="greedy", tasks=sched.started,
        shares=final, utilities=starts.sum(axis=1).astype(float),
        message=f"greedy {sched.policy} over {tv.n_slots} slots ({sched.servers.rule_name} servers); "
                f"{int(unstarted.sum())} tasks still pending at the horizon",
        stats={"decisions": total, "rounds": sched._rounds, "min_share": float(final.min()),
               "unstarted": int(unstarted.sum()), "server": sched.servers.rule_name, "runtime_s": runtime},
        details={"cumulative_shares": cum, "started": starts,
                 "pending": np.cumsum(tv.arrivals, axis=1) - np.cumsum(starts, axis=1),
                 "unstarted": unstarted, "usage": sched.usage_per_slot, "utilization": sched.utilization})


def tvtsf_greedy(instance: TimeVaryingInstance, /, *, server: Any = None) -> AllocationResult:
    r"""TV-TSF heuristic (Algorithms 1-5) on a :class:`~fairalloc.TimeVaryingInstance`.

    Same as :func:`slotted_greedy` with ``policy="tvtsf"`` (to be registered as
    ``fa.tvtsf(tv, method="greedy")``).

    Parameters
    ----------
    instance : TimeVaryingInstance
    server : str or callable, optional
        Server rule; default ``"tvtsf"`` (Algorithm 4).

    Returns
    -------
    AllocationResult
        As :func:`slotted_greedy`.

    Examples
    --------
    Two servers <4 cores, 8 GB> and <8, 8>; user 0 (tasks <2, 4>) may only use server 0; user 1
    (tasks <2, 2>) both; 3 and 5 tasks arrive in slot 0, tasks last one slot. By hand: h = (2 + 2,
    2 + 4) = (4, 6) per slot. Slot 0: shares 0 and 0 tie -> user 0 on server 0; user 1 (0 < 1/4) on
    server 1 (H = 0: <2, 2> has the shape of its free <8, 8>; server 0's free <2, 4> gives H = 0.75);
    user 1 (1/6 < 1/4) on server 1; user 0 (1/4 < 2/6) fills server 0; user 1 (3/6 after) on server 1;
    tie 2/4 = 3/6 -> user 0, frozen (server 0 full); user 1 on server 1 (4 tasks, full), then frozen.
    Slot 1: the pending task of each user starts (shares 2/8 and 4/12).

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 8], [8, 8]], [[2, 4], [2, 2]], arrivals=[[3, 0], [5, 0]],
    ...                             durations=[1, 1], placement=[[1, 0], [1, 1]])
    >>> r = tvtsf_greedy(tv)
    >>> r.tasks[:, :, 0].tolist(), r.tasks[:, :, 1].tolist()
    ([[2, 0], [0, 4]], [[1, 0], [0, 1]])
    """
    return slotted_greedy(instance, policy="tvtsf", server=server)
