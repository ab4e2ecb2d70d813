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
"""

from __future__ import annotations

import logging
import time as _time
from collections import deque
from typing import Any, NamedTuple

import numpy as np

from .. import shares
from .._validation import as_array, require_choice, require_nonnegative, require_shape
from ..errors import InvalidInstanceError
from ..kinetic import LiveTree, ResortQueue
from ..model import Cluster, TaskInstance, _placement, _weights
from ..result import AllocationResult, Status
from .servers import Servers

__all__ = ["Start", "TaskScheduler", "BLOCKING", "STRUCTURES"]

logger = logging.getLogger(__name__)

BLOCKING = ("stop", "skip")
STRUCTURES = ("live_tree", "resort")


class Start(NamedTuple):
    """A task started by :meth:`TaskScheduler.schedule`."""

    task: int
    user: int
    server: int
    time: float


class _Pending:
    """A run of identical pending tasks of one user: ``count`` tasks, ids ``first, first + 1, ...``."""

    __slots__ = ("demand", "count", "first", "extra")

    def __init__(self, demand: np.ndarray, count: int, first: int, extra: Any = None) -> None:
        self.demand = demand
        self.count = count
        self.first = first
        self.extra = extra


class TaskScheduler:
    """Base class: see the module docstring. Not used directly."""

    mechanism = ""
    default_blocking = "stop"
    #: whether priorities move with time (only SDRF with a finite tau)
    _tau: float | None = None

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, server: Any = "first_fit", blocking: str | None = None,
                 structure: str = "live_tree", time: float = 0.0) -> None:
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
        self.servers = Servers(cl.capacities, self.placement, server)
        self.totals = self.servers.totals
        t = float(time)
        if not np.isfinite(t):
            raise InvalidInstanceError(f"time={time!r} must be finite", argument="time", value=time)
        self._now = t
        k = cl.n_resources
        self.usage = np.zeros((n, k))                 # raw units held by running tasks
        self._n_running = np.zeros(n, dtype=np.int64)
        self._pending: list[deque[_Pending]] = [deque() for _ in range(n)]
        self._n_pending = np.zeros(n, dtype=np.int64)
        self._running: dict[int, tuple[int, int, np.ndarray, Any]] = {}
        self._next_id = 0
        self._decisions = 0
        self._blocked: int | None = None
        qcls = LiveTree if self.structure == "live_tree" else ResortQueue
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
    def n_running(self) -> np.ndarray:
        return self._n_running.copy()

    @property
    def n_pending(self) -> np.ndarray:
        return self._n_pending.copy()

    @property
    def swaps(self) -> int:
        """Swap events processed by the live tree (0 for ``structure="resort"``)."""
        return self._queue.swaps

    @property
    def next_change(self) -> float:
        """When the priority order of the users with pending tasks changes next (``inf``: not before
        the next submit or finish). A simulator that is blocked (``blocking="stop"``) can reschedule
        then: SDRF's decaying commitments may bring a user whose task fits to the front."""
        return self._queue.next_event_time

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
        return list(self._queue)

    def normalized_usage(self) -> np.ndarray:
        """(N, K) usage as fractions of the cluster totals (:func:`fairalloc.shares.normalized_demands`)."""
        return shares.normalized_demands(self.usage, self.totals)

    def queue_priority(self, user: int) -> float:
        """The priority the queue holds for an active ``user`` now (for checks against :meth:`priorities`)."""
        return self._queue.priority(user)

    # --- driving --------------------------------------------------------------------------------------
    def advance(self, t: float) -> int:
        """Move the clock to ``t`` (>= now); return the live tree's swap events processed."""
        t = float(t)
        if not np.isfinite(t) or t < self._now:
            raise InvalidInstanceError(f"t={t!r} must be finite and >= the current time {self._now!r}",
                                       argument="t", value=t)
        n = self._queue.advance(t)
        self._now = t
        return n

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
        ids = range(self._next_id, self._next_id + count)
        self._next_id += count
        was_idle = self._n_pending[i] == 0
        self._pending[i].append(_Pending(d, count, ids.start, self._pending_extra(i, d)))
        self._n_pending[i] += count
        if was_idle:
            a, b, t0 = self._trajectory(i)
            self._queue.insert(i, a, b, t0=t0)
        return ids

    def finish(self, task: int) -> None:
        """Task ``task`` ended now: free its server capacity and update its user's state."""
        try:
            i, m, d, extra = self._running.pop(task)
        except KeyError:
            raise InvalidInstanceError(f"task={task!r} is not running", argument="task", value=task) from None
        self.servers.release(m, d)
        self.usage[i] -= d
        self._n_running[i] -= 1
        if self._n_running[i] == 0:
            self.usage[i] = 0.0                       # no round-off residue once nothing runs
        self._changed(i, d, extra, started=False)
        if self._n_pending[i]:
            a, b, t0 = self._trajectory(i)
            self._queue.update(i, a, b, t0=t0)

    def schedule(self, *, max_starts: int | None = None) -> list[Start]:
        """Start tasks now until the rule stops (or ``max_starts``); return what started, in order."""
        starts: list[Start] = []
        queue = self._queue
        skipped: set[int] = set()
        stop = self.blocking == "stop"
        self._blocked = None
        limit = np.inf if max_starts is None else int(max_starts)
        while len(queue) and len(starts) < limit:
            if stop:
                i = queue.min()
            else:
                i = next((u for u in queue if u not in skipped), None)
                if i is None:
                    break
            head = self._pending[i][0]
            m = self.servers.find(i, head.demand)
            if m < 0:
                if stop:
                    self._blocked = i
                    break
                skipped.add(i)
                continue
            task = head.first
            head.first += 1
            head.count -= 1
            if head.count == 0:
                self._pending[i].popleft()
            self._n_pending[i] -= 1
            d = head.demand
            self.servers.take(m, d)
            self.usage[i] += d
            self._n_running[i] += 1
            self._running[task] = (i, m, d, head.extra)
            self._changed(i, d, head.extra, started=True)
            if self._n_pending[i]:
                a, b, t0 = self._trajectory(i)
                queue.update(i, a, b, t0=t0)
            else:
                queue.remove(i)
            starts.append(Start(task, i, m, self._now))
        self._decisions += len(starts)
        return starts

    # --- hooks ------------------------------------------------------------------------------------------
    def _pending_extra(self, user: int, demand: np.ndarray) -> Any:
        """Per-run data computed once at submission (e.g. TSF's monopoly count)."""
        return None

    def _changed(self, user: int, demand: np.ndarray, extra: Any, *, started: bool) -> None:
        """A task of ``user`` started or finished now (usage already updated)."""

    def _trajectory(self, user: int) -> tuple:
        """(intercepts, slopes, t0) of the user's priority for the queue (t0 None: now)."""
        raise NotImplementedError

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
    return AllocationResult._adopt(
        status=Status.FEASIBLE, mechanism=scheduler.mechanism, method="greedy",
        allocation=np.asarray(allocation, dtype=float), dominant_shares=dom, levels=levels,
        utilities=per_user.astype(float), tasks=tasks, shares=np.asarray(shares_fn(per_user), dtype=float),
        message=f"greedy {scheduler.mechanism} ({scheduler.blocking}, {scheduler.servers.rule_name}): {why}",
        stats=stats, details={"order": np.array([s.user for s in starts], dtype=np.int64),
                              "usage": np.einsum("im,ir->mr", tasks, instance.task_demands)})


def check_task_instance(instance: Any) -> None:
    if not isinstance(instance, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(instance).__name__}")
