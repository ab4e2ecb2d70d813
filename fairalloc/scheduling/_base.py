r"""The incremental state shared by the continuous-time greedy task schedulers.

A scheduler object holds, at its current time: each user's queue of pending tasks (first in, first
out), the running tasks and where they run, the free capacity of every server, and the users with
pending tasks ordered by the mechanism's priority in a :class:`~fairalloc.kinetic.LiveTree` (or a
:class:`~fairalloc.kinetic.ResortQueue`, the brute-force baseline). A simulator drives it with four
calls; a one-shot :class:`~fairalloc.model.TaskInstance` is one :meth:`submit` per user and one
:meth:`schedule`:

* :meth:`advance` ``(t)``: move the clock (SDRF commitments decay with Eq. 6 meanwhile);
* :meth:`submit` ``(user, demand, count)``: new pending tasks, returns their task ids;
* :meth:`finish` ``(task)``: a running task ended; its resources are free again;
* :meth:`schedule` ``()``: start tasks now, by the mechanism's rule, until it stops; returns the
  :class:`Start` records (task, user, server, time).

Subclasses define the priority (:meth:`_trajectory`, a trajectory for the live tree) and how a start or
finish changes their own state (:meth:`_changed`).

Blocking (what happens when the chosen user's next task does not fit on any server it may use):
``"stop"`` ends the round (SDRF Algorithm 1 as printed: "the system is full"); ``"skip"`` sets that
user aside until the next :meth:`schedule` call and tries the next user in priority order (TSF's and
CDRF's progressive filling: a user who cannot grow is frozen). Only the *head* task of a user's queue
is considered (no reordering within a user).

Ties (``ties=``), the same rule in every scheduler (DRF, SDRF, TSF, CDRF): among users whose priorities
are equal now (and stay equal just after now: with decaying SDRF commitments the user whose priority
decreases faster comes first, the live tree's right-limit order),

``"wait"`` (default)
    the user whose *oldest pending task has waited longest* goes first (the earliest submission time
    of the head of its queue, which is its oldest pending task since each user's queue is first in,
    first out), then the lower user index;
``"index"``
    the lower user index only (the order of systems that break ties by position; kept for
    comparisons with them and with results computed before the fair rule).

Index order alone favours low indices whenever many users sit at the same priority (at share 0 in a
crowded pool, every user whose tasks have all ended): on a 627-user ``google_like`` workload of
5*10^4 tasks over 29 days with the pool at 50% of R, DRF's mean task wait was 0.2 days for the
lowest tenth of the indices and 97 days for the highest (Spearman correlation with the index 0.86);
with the fair rule it is 21 to 33 days in every tenth (correlation 0.00; ``benchmarks/bench_ties.py``,
issue 15). In a one-shot run every task is submitted at the same time, so both rules give the same
order. The scheduler passes the head's submission time to the queue as the element's *tie* value
(:class:`~fairalloc.kinetic.LiveTree`).
"""

from __future__ import annotations

import logging
import math
import time as _time
from collections import deque
from typing import Any, NamedTuple

import numpy as np

from .. import shares
from ..validation import as_array, require_choice, require_nonnegative, require_shape
from ..errors import InvalidInstanceError
from ..kinetic import LazyHeap, LiveTree, ResortQueue
from ..model import Cluster, TaskInstance, _placement, _weights
from ..result import AllocationResult, Status
from .servers import FreeCapacity

__all__ = ["Start", "TaskScheduler", "BLOCKING", "STRUCTURES", "TIES"]

logger = logging.getLogger(__name__)

BLOCKING = ("stop", "skip")
STRUCTURES = ("live_tree", "resort", "heap")
#: Tie-break rules among equal priorities (module docstring).
TIES = ("wait", "index")


class Start(NamedTuple):
    """A task started by :meth:`TaskScheduler.schedule`.

    Attributes
    ----------
    task : int
        The task id :meth:`TaskScheduler.submit` returned (ids count from 0 in submission order).
    user : int
        Its user.
    server : int
        The server it runs on (row of the cluster).
    time : float
        The scheduler's time when it started.

    Examples
    --------
    The first task submitted has id 0; one server, time 0:

    >>> from fairalloc.scheduling import DRFScheduler
    >>> s = DRFScheduler([[4, 4]], n_users=1)
    >>> _ = s.submit(0, [1, 1], 2)
    >>> s.schedule()[0]
    Start(task=0, user=0, server=0, time=0.0)
    """

    task: int
    user: int
    server: int
    time: float


class _Pending:
    """A run of identical pending tasks of one user: ``count`` tasks, ids ``first, first + 1, ...``,
    submitted at time ``submitted``."""

    __slots__ = ("demand", "count", "first", "extra", "dlist", "submitted")

    def __init__(self, demand: np.ndarray, count: int, first: int, extra: Any = None,
                 submitted: float = 0.0) -> None:
        self.demand = demand
        self.count = count
        self.first = first
        self.extra = extra
        self.dlist = demand.tolist()
        self.submitted = submitted


class TaskScheduler:
    """Base class of the continuous-time greedy task schedulers (DRF, SDRF, TSF, CDRF); not used directly.

    Holds, at its current time, each user's queue of pending tasks (first in, first out), the running
    tasks and where they run, the free capacity of every server, and the users with pending tasks
    ordered by the mechanism's priority (a :class:`~fairalloc.kinetic.LiveTree`, or the
    :class:`~fairalloc.kinetic.ResortQueue` baseline). A simulator drives it with four calls; a one-shot
    :class:`~fairalloc.model.TaskInstance` is one :meth:`submit` per user and one :meth:`schedule`:

    * :meth:`advance` ``(t)``: move the clock (SDRF commitments decay by Eq. 6 meanwhile);
    * :meth:`submit` ``(user, demand, count)``: new pending tasks; returns their task ids;
    * :meth:`finish` ``(task)``: a running task ended; its resources are free again;
    * :meth:`schedule` ``()``: start tasks now, by the mechanism's rule, until it stops; returns the
      :class:`Start` records (task, user, server, time).

    A subclass defines the priority (``_trajectory``: the user's key as a trajectory the live tree can
    follow) and how a start or finish changes its own state (``_changed``); see
    :class:`DRFScheduler` for the smallest one.

    Parameters
    ----------
    cluster : Cluster or array_like, shape (n_servers, n_resources)
        The servers and their capacities.
    n_users : int, optional
        Number of users (or give ``weights``).
    weights : array_like, shape (n_users,), optional
        Positive weights (default ones).
    placement : array_like of bool, shape (n_users, n_servers), optional
        Servers each user may use (default all).
    server : {"first_fit", "best_fit", "tvtsf"} or callable
        Which server receives a task among those where it fits.
    blocking : {"stop", "skip"}, optional
        When the chosen user's next task fits nowhere: ``"stop"`` ends the round (SDRF Algorithm 1
        as printed: "the system is full"); ``"skip"`` sets that user aside until the next
        :meth:`schedule` and tries the next user (TSF's and CDRF's progressive filling). Default: the
        mechanism's own (:attr:`default_blocking`).
    structure : {"live_tree", "resort"}
        How users are kept in priority order.
    time : float
        The starting time.

    Examples
    --------
    DRF on the DRF paper's example (9 CPUs, 18 GB; tasks <1, 4> and <3, 1>): A gets 3 tasks, B 2.

    >>> from fairalloc.scheduling import DRFScheduler
    >>> s = DRFScheduler([[9, 18]], n_users=2)
    >>> _ = s.submit(0, [1, 4], 100), s.submit(1, [3, 1], 100)
    >>> starts = s.schedule()
    >>> [sum(st.user == u for st in starts) for u in (0, 1)]
    [3, 2]
    """

    mechanism = ""
    default_blocking = "stop"
    #: whether priorities move with time (only SDRF with a finite tau)
    _tau: float | None = None
    #: Update a finishing user's queue entry lazily (True; see :meth:`_flush`) or at once (False: the
    #: same schedule, kept so the benchmark can measure the difference).
    defer_finish = True
    #: Whether ``_changed`` depends only on the user's state now, not on which task started or ended
    #: (then :meth:`finish_all` updates a user once per instant; SDRF and DRF).
    _changed_by_state = False

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, server: Any = "first_fit", blocking: str | None = None,
                 structure: str = "live_tree", ties: str = "wait", time: float = 0.0) -> None:
        cl = cluster if isinstance(cluster, Cluster) else Cluster(cluster)
        if weights is None and n_users is None:
            raise InvalidInstanceError("give n_users or weights", argument="n_users", value=None)
        if n_users is not None:
            if int(n_users) != n_users or n_users < 1:
                raise InvalidInstanceError(f"n_users={n_users!r} must be a positive integer",
                                           argument="n_users", value=n_users)
            n_users = int(n_users)
        n = n_users if weights is None else len(np.atleast_1d(weights))
        if n_users is not None and n != n_users:
            raise InvalidInstanceError(f"weights has {n} entries but n_users={n_users}",
                                       argument="weights", value=n)
        self.cluster = cl
        self.n_users = n
        self.weights = _weights(weights, n)
        self.placement = _placement(placement, n, cl.n_servers)
        self.blocking = require_choice("blocking", self.default_blocking if blocking is None else blocking,
                                       BLOCKING)
        self.structure = require_choice("structure", structure, STRUCTURES)
        self.ties = require_choice("ties", ties, TIES)
        self._by_wait = self.ties == "wait"
        self.servers = FreeCapacity(cl.capacities, self.placement, server)
        self.totals = self.servers.totals
        t = float(time)
        if not np.isfinite(t):
            raise InvalidInstanceError(f"time={time!r} must be finite", argument="time", value=time)
        self._now = t
        k = cl.n_resources
        # per-user state in Python lists (one decision touches one user's K numbers; NumPy is ten
        # times slower than floats on such short vectors; sums are the same IEEE operations)
        self._usage = [[0.0] * k for _ in range(n)]   # raw units held by running tasks
        self._n_running = [0] * n
        self._pending: list[deque[_Pending]] = [deque() for _ in range(n)]
        self._n_pending = [0] * n
        self._running: dict[int, tuple[int, int, np.ndarray, Any]] = {}
        self._next_id = 0
        self._decisions = 0
        self._blocked: int | None = None
        self._dirty: dict[int, None] = {}             # users whose queue entry is stale (insertion order)
        qcls = {"live_tree": LiveTree, "resort": ResortQueue, "heap": LazyHeap}[self.structure]
        self._queue = qcls(self._tau, time=t)

    # --- read-only state ---------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self._now

    @property
    def free(self) -> np.ndarray:
        """(M, K) free capacity per server (raw units; a copy)."""
        return self.servers.free.copy()

    @property
    def usage(self) -> np.ndarray:
        """(N, K) raw resources held by each user's running tasks (a copy)."""
        return np.array(self._usage, dtype=float).reshape(self.n_users, self.cluster.n_resources)

    @property
    def n_running(self) -> np.ndarray:
        return np.array(self._n_running, dtype=np.int64)

    @property
    def n_pending(self) -> np.ndarray:
        return np.array(self._n_pending, dtype=np.int64)

    @property
    def swaps(self) -> int:
        """Swap events processed by the live tree (0 for ``structure="resort"``)."""
        return self._queue.swaps

    @property
    def next_change(self) -> float:
        """When the priority order of the users with pending tasks changes next (``inf``: not before
        the next submit or finish). A simulator that is blocked (``blocking="stop"``) can reschedule
        then: SDRF's decaying commitments may bring a user whose task fits to the front."""
        self._flush()
        return self._queue.next_event_time

    @property
    def next_min_change(self) -> float:
        """The earliest time the user served first can change (``inf``: not before the next submit
        or finish): the queue's next swap anywhere in the order
        (:attr:`fairalloc.kinetic.LiveTree.next_min_change`). Only a change of the first user can
        unblock a scheduler stopped on it (``blocking="stop"``), but a user further back reaches the
        front through swaps lower in the order first, so a blocked caller advances to this time,
        reads :attr:`first_user` and asks again (:class:`~fairalloc.sim.TaskPolicy`). ``inf`` for
        ``structure="heap"``, which does not know (:class:`~fairalloc.kinetic.LazyHeap`)."""
        self._flush()
        return self._queue.next_min_change

    @property
    def first_user(self) -> int | None:
        """The user :meth:`schedule` would serve first now (None: no pending task)."""
        self._flush()
        return self._queue.min() if len(self._queue) else None

    @property
    def decisions(self) -> int:
        """Tasks started so far."""
        return self._decisions

    @property
    def blocked_by(self) -> int | None:
        """With ``blocking="stop"``: the user whose task did not fit in the last :meth:`schedule`."""
        return self._blocked

    def order(self) -> list[int]:
        """Users with pending tasks, in the order the scheduler would serve them now."""
        self._flush()
        return list(self._queue)

    def normalized_usage(self) -> np.ndarray:
        """(N, K) usage as fractions of the cluster totals (:func:`fairalloc.shares.normalized_demands`)."""
        return shares.normalized_demands(self.usage, self.totals)

    def queue_priority(self, user: int) -> float:
        """The priority the queue holds for an active ``user`` now (for checks against :meth:`priorities`)."""
        self._flush()
        return self._queue.priority(user)

    # --- driving --------------------------------------------------------------------------------------
    def advance(self, t: float) -> int:
        """Move the clock to ``t`` (>= now); return the live tree's swap events processed."""
        t = float(t)
        if not math.isfinite(t) or t < self._now:
            raise InvalidInstanceError(f"t={t!r} must be finite and >= the current time {self._now!r}",
                                       argument="t", value=t)
        self._flush()
        n = self._queue.advance(t)
        self._now = t
        return n

    def _flush(self) -> None:
        """Bring the queue up to date for users whose state changed since (finished tasks).

        :meth:`finish` only marks the user: a simulator finishes tasks and then schedules at the same
        instant, and the user whose task ended is often the next one served, whose priority then
        returns to about where it was. :meth:`schedule` serves such a user without moving it twice
        (``_lead``); every other read of the queue flushes first, so the order is always exact.
        """
        if self._dirty:
            q = self._queue
            for i in self._dirty:
                q.update_trusted(i, *self._trajectory(i), self._tie(i))
            self._dirty.clear()

    def submit(self, user: int, demand: Any, count: int = 1) -> range:
        """Add ``count`` pending tasks of ``demand`` (raw units, shape (K,)) for ``user``; return their ids.

        Raises
        ------
        InvalidInstanceError
            Bad user index, count or demand, or a task that fits on none of the user's servers
            even when the cluster is empty (it could never run).
        """
        i = self._check_user(user)
        if int(count) != count or count < 1:
            raise InvalidInstanceError(f"count={count!r} must be a positive integer", argument="count",
                                       value=count)
        count = int(count)
        d = as_array("demand", demand, ndim=1)
        require_shape("demand", d, (self.cluster.n_resources,), names=["n_resources"])
        require_nonnegative("demand", d)
        if not (d > 0).any():
            raise InvalidInstanceError(f"demand={d.tolist()!r} of user {i} is all zero",
                                       argument="demand", index=(i,), value=d.tolist())
        if not self.servers.fits_capacity(i, d):
            servers = np.flatnonzero(self.placement[i]).tolist()
            raise InvalidInstanceError(
                f"demand={d.tolist()!r} of user {i} fits on none of its eligible servers {servers} "
                f"(capacities {self.cluster.capacities[servers].tolist()})",
                argument="demand", index=(i,), value=d.tolist())
        d.setflags(write=False)
        return self.submit_trusted(i, d, count)

    def submit_trusted(self, user: int, demand: np.ndarray, count: int) -> range:
        """:meth:`submit` without the checks, for callers that validated a whole workload at once
        (the simulator's task policies): ``user`` an int index, ``demand`` a read-only (K,) float
        array with a positive entry that fits on some server ``user`` may run, ``count`` an int >= 1.
        Nothing is checked: a bad argument corrupts the state."""
        i = user
        ids = range(self._next_id, self._next_id + count)
        self._next_id += count
        was_idle = self._n_pending[i] == 0
        self._pending[i].append(_Pending(demand, count, ids.start, self._pending_extra(i, demand), self._now))
        self._n_pending[i] += count
        if was_idle:
            self._queue.insert_trusted(i, *self._trajectory(i), self._tie(i))
        return ids

    def finish(self, task: int) -> None:
        """Task ``task`` ended now: free its server capacity and update its user's state."""
        i, d, run = self._release(task)
        self._changed(i, d, run.extra, started=False)
        if self._n_pending[i]:
            self._dirty[i] = None              # its place in the queue is updated lazily (see _flush)
            if not self.defer_finish:
                self._flush()

    def finish_all(self, tasks: Any) -> None:
        """:meth:`finish` of every task in ``tasks`` (ending at the same instant), in that order.

        When the subclass's ``_changed`` depends only on the user's state now
        (:attr:`_changed_by_state`: SDRF, DRF), a user whose tasks end together is updated once,
        after its last one: the same state as one update per task (the later updates are at the
        same instant, see :meth:`SDRFScheduler._changed`), and its queue entry is marked in the same
        order as :meth:`finish` marks it.
        """
        if not (self._changed_by_state and self.defer_finish):
            for task in tasks:
                self.finish(task)
            return
        last: dict[int, tuple] = {}
        for task in tasks:
            i, d, run = self._release(task)
            last[i] = (d, run.extra)
        for i, (d, extra) in last.items():
            self._changed(i, d, extra, started=False)
            if self._n_pending[i]:
                self._dirty[i] = None

    def _release(self, task: int) -> tuple:
        """Free ``task``'s server capacity and its user's usage; return (user, demand, pending run)."""
        try:
            i, m, d, run = self._running.pop(task)
        except KeyError:
            raise InvalidInstanceError(f"task={task!r} is not running", argument="task", value=task) from None
        self.servers.release(m, run.dlist if self.servers.one_pool else d)
        self._n_running[i] -= 1
        if self._n_running[i] == 0:
            self._usage[i] = [0.0] * len(self._usage[i])   # no round-off residue once nothing runs
        else:
            self._usage[i] = [u - x for u, x in zip(self._usage[i], run.dlist)]
        return i, d, run

    def schedule(self, *, max_starts: int | None = None) -> list[Start]:
        """Start tasks now until the rule stops (or ``max_starts``); return what started, in order."""
        starts: list[Start] = []
        queue = self._queue
        skipped: set[int] = set()
        stop = self.blocking == "stop"
        self._blocked = None
        limit = math.inf if max_starts is None else int(max_starts)
        lead = self._lead()
        # one decision is a few dozen Python operations: bound methods and lists are looked up once
        # per call, not once per task started
        pending, n_pending, usage, n_running = self._pending, self._n_pending, self._usage, self._n_running
        running, find_take = self._running, self.servers.find_take
        changed, trajectory, tie, now = self._changed, self._trajectory, self._tie, self._now
        update, qmin = queue.update_trusted, queue.min
        n_started = 0
        while len(queue) and n_started < limit:
            if lead is not None:
                i = lead
            elif stop:
                i = qmin()
            else:
                i = next((u for u in queue if u not in skipped), None)
                if i is None:
                    break
            head = pending[i][0]
            m = find_take(i, head.demand, head.dlist)      # the server found is already taken
            if m < 0:
                if lead is not None:
                    self._flush()
                    lead = None
                if stop:
                    self._blocked = i
                    break
                skipped.add(i)
                continue
            if lead is not None:
                self._dirty.clear()                # its queue entry is replaced just below
                lead = None
            task = head.first
            head.first += 1
            head.count -= 1
            if head.count == 0:
                pending[i].popleft()
            n_pending[i] -= 1
            d = head.demand
            usage[i] = [u + x for u, x in zip(usage[i], head.dlist)]
            n_running[i] += 1
            running[task] = (i, m, d, head)
            changed(i, d, head.extra, started=True)
            if n_pending[i]:
                update(i, *trajectory(i), tie(i))
            else:
                queue.remove(i)
            starts.append(Start(task, i, m, now))
            n_started += 1
        self._decisions += n_started
        return starts

    def _lead(self) -> int | None:
        """The one user marked by :meth:`finish` if it now comes first (serve it before moving it in
        the queue); otherwise flush and return None. Exact: it is the user ``min()`` would return."""
        if len(self._dirty) != 1:
            self._flush()
            return None
        (i,) = self._dirty
        traj = self._trajectory(i)
        tie = self._tie(i)
        if self._queue.lead_or_update(i, *traj, tie):
            return i
        self._dirty.clear()
        return None

    # --- hooks ------------------------------------------------------------------------------------------
    def _pending_extra(self, user: int, demand: np.ndarray) -> Any:
        """Per-run data computed once at submission (e.g. TSF's monopoly count)."""
        return None

    def _changed(self, user: int, demand: np.ndarray, extra: Any, *, started: bool) -> None:
        """A task of ``user`` started or finished now (usage already updated)."""

    def _trajectory(self, user: int) -> tuple:
        """(intercepts, slopes, t0) of the user's priority for the queue: two equal-length tuples of
        finite floats and a reference time <= now (the queue's ``*_trusted`` methods check nothing)."""
        raise NotImplementedError

    def _tie(self, user: int) -> float:
        """The queue's tie value for ``user`` (module docstring): its oldest pending task's submission
        time with ``ties="wait"`` (smaller: waited longer, first), 0.0 with ``"index"``."""
        return self._pending[user][0].submitted if self._by_wait else 0.0

    def _head_demand(self, user: int) -> np.ndarray:
        return self._pending[user][0].demand

    def _check_user(self, user: Any) -> int:
        if isinstance(user, (bool, np.bool_)) or int(user) != user or not 0 <= user < self.n_users:
            raise InvalidInstanceError(f"user={user!r} must be an index in [0, {self.n_users})",
                                       argument="user", value=user)
        return int(user)


def one_shot(scheduler: TaskScheduler, instance: TaskInstance, *, shares_fn, extra_stats=None,
             levels=None) -> AllocationResult:
    """Run ``scheduler`` once on every task of a :class:`TaskInstance`; pack an :class:`AllocationResult`.

    ``shares_fn(tasks_per_user)`` returns the vector the mechanism equalises.
    """
    t0 = _time.perf_counter()
    for i in range(instance.n_agents):
        if instance.tasks[i] > 0:
            scheduler.submit(i, instance.task_demands[i], int(instance.tasks[i]))
    starts = scheduler.schedule()
    runtime = _time.perf_counter() - t0
    n, m = instance.n_agents, instance.n_servers
    tasks = np.zeros((n, m), dtype=np.int64)
    for s in starts:
        tasks[s.user, s.server] += 1
    per_user = tasks.sum(axis=1)
    allocation = per_user[:, None] * instance.task_demands
    totals = instance.cluster.totals
    dom = shares.dominant_shares(allocation, totals)
    unmet = instance.tasks - per_user
    blocked = scheduler.blocked_by
    if blocked is not None:
        why = f"stopped: user {blocked}'s next task fits on none of its servers (blocking='stop')"
    elif unmet.any():
        why = "every user with pending tasks is blocked"
    else:
        why = "every task placed"
    stats = {"decisions": len(starts), "swaps": scheduler.swaps, "runtime_s": runtime,
             "blocking": scheduler.blocking, "server": scheduler.servers.rule_name,
             "blocked_by": blocked, "unplaced": int(unmet.sum())}
    if extra_stats:
        stats.update(extra_stats)
    logger.debug("%s greedy: %d tasks started; %s", scheduler.mechanism, len(starts), why)
    return AllocationResult.from_arrays(
        status=Status.FEASIBLE, mechanism=scheduler.mechanism, method="greedy",
        allocation=np.asarray(allocation, dtype=float), dominant_shares=dom, levels=levels,
        utilities=per_user.astype(float), tasks=tasks, shares=np.asarray(shares_fn(per_user), dtype=float),
        message=f"greedy {scheduler.mechanism} ({scheduler.blocking}, {scheduler.servers.rule_name}): {why}",
        stats=stats, details={"order": np.array([s.user for s in starts], dtype=np.int64),
                              "usage": np.einsum("im,ir->mr", tasks, instance.task_demands)})


def check_task_instance(instance: Any) -> None:
    if not isinstance(instance, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(instance).__name__}")
