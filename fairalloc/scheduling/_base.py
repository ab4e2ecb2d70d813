r"""The task schedulers' checked facade over the decision core.

A scheduler object holds, at its current time: each user's queue of pending tasks (first in, first
out), the running tasks and where they run, the free capacity of every server, and the users with
pending tasks in the order of the mechanism's key. A simulator drives it with four calls; a one-shot
:class:`~fairalloc.model.TaskInstance` is one :meth:`~TaskScheduler.submit` per user and one
:meth:`~TaskScheduler.schedule`:

* :meth:`~TaskScheduler.advance` ``(t)``: move the clock (SDRF commitments decay by Eq. 6 meanwhile);
* :meth:`~TaskScheduler.submit` ``(user, demand, count)``: new pending tasks, returns their task ids;
* :meth:`~TaskScheduler.finish` ``(task)``: a running task ended; its resources are free again;
* :meth:`~TaskScheduler.schedule` ``()``: start tasks now, by the mechanism's rule, until it stops;
  returns the :class:`Start` records (task, user, server, time).

Everything is decided by the compiled core (:mod:`fairalloc.scheduling.core`): this module checks the
arguments, keeps the task ids, and builds the records. With a callable ``server=`` rule the slim
Python reference (:mod:`fairalloc.scheduling.reference`) decides instead.

Blocking (the chosen user's next task fits on no server it may use): ``"stop"`` ends the pass (SDRF
Algorithm 1 as printed: "the system is full"); ``"skip"`` sets that user aside until the next
:meth:`~TaskScheduler.schedule` call and tries the next user in order (TSF's and CDRF's progressive
filling: a user who cannot grow is frozen). Only the *head* task of a user's queue is considered (no
reordering within a user).

Ties (``ties=``), the same rule for every key: among users whose keys are equal now (and stay equal
just after now: with decaying SDRF commitments the user whose key decreases faster comes first, the
live tree's right-limit order),

``"wait"`` (default)
    the user whose *oldest pending task has waited longest* goes first (the earliest submission time
    of the head of its queue), then the lower user index;
``"index"``
    the lower user index only (the order of systems that break ties by position).

Index order alone favours low indices whenever many users sit at the same key (at share 0 in a
crowded pool, every user whose tasks have all ended); ``benchmarks/bench_ties.py`` measures the
waits by index under both rules. In a one-shot run every task is submitted at the same time, so both
rules give the same order.
"""

from __future__ import annotations

import logging
import math
import time as _time
from array import array
from bisect import bisect_right
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np

from .. import shares
from ..errors import InvalidInstanceError
from ..model import Cluster, TaskInstance, _placement, _weights
from ..result import AllocationResult, Status
from ..validation import as_array, require_choice, require_nonnegative, require_shape
from .core import Core
from .keys import KEYS
from .servers import SERVER_RULES

__all__ = ["Start", "TaskScheduler", "BLOCKING", "STRUCTURES", "TIES"]

logger = logging.getLogger(__name__)

BLOCKING = ("stop", "skip")
#: How users are kept in order: the live tree (exact, the default; an indexed heap for keys that do
#: not move with time), a re-sort at every decision (exact baseline), a lazy heap (inexact baseline).
STRUCTURES = ("live_tree", "resort", "heap")
#: Tie-break rules among equal keys (module docstring).
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


def check_submission(user: int, demand: Any, count: Any, n_resources: int) -> tuple[np.ndarray, int]:
    """The checks of one submission of ``count`` tasks of ``demand`` by user ``user`` (an index already
    checked), shared by every online scheduler: ``count`` a positive integer, ``demand`` a finite (K,)
    vector >= 0 that is not all zero. Returns the demand (a read-only copy) and the count.

    Whether the task fits on one of the user's servers is the scheduler's check (its servers).

    Examples
    --------
    >>> check_submission(1, [0, 0], 2, 2)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: demand=[0.0, 0.0] of user 1 is all zero
    """
    if int(count) != count or count < 1:
        raise InvalidInstanceError(f"count={count!r} must be a positive integer", argument="count",
                                   value=count)
    d = as_array("demand", demand, ndim=1)
    require_shape("demand", d, (n_resources,), names=["n_resources"])
    require_nonnegative("demand", d)
    if not (d > 0).any():
        raise InvalidInstanceError(f"demand={d.tolist()!r} of user {user} is all zero",
                                   argument="demand", index=(user,), value=d.tolist())
    d.setflags(write=False)
    return d, int(count)


def _order_name(structure: str, moves: bool) -> str:
    if structure == "live_tree":
        return "live_tree" if moves else "heap"
    if structure == "heap":
        return "lazy" if moves else "heap"
    return "resort"


class TaskScheduler:
    """Base class of the continuous-time greedy task schedulers (DRF, SDRF, TSF, CDRF); not used directly.

    A subclass names its key (:data:`fairalloc.scheduling.keys.KEYS`) in :attr:`mechanism`; the
    state and every decision are the decision core's (:mod:`fairalloc.scheduling.core`).

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
        Which server receives a task among those where it fits (:mod:`fairalloc.scheduling.servers`);
        a callable ``f(free, demand, eligible) -> int`` runs through the Python reference
        (:mod:`fairalloc.scheduling.reference`).
    blocking : {"stop", "skip"}, optional
        When the chosen user's next task fits nowhere: ``"stop"`` ends the pass, ``"skip"`` sets the
        user aside until the next :meth:`schedule` (module docstring). Default: the mechanism's.
    structure : {"live_tree", "resort", "heap"}
        How users are kept in order (:data:`STRUCTURES`; the baselines give the same schedule
        for keys that do not move, and ``"heap"`` may serve another user for SDRF).
    ties : {"wait", "index"}
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
        key = KEYS[self.mechanism]
        self.cluster = cl
        self.n_users = n
        self.weights = _weights(weights, n)
        self.placement = _placement(placement, n, cl.n_servers)
        self.blocking = require_choice("blocking", key.blocking if blocking is None else blocking, BLOCKING)
        self.structure = require_choice("structure", structure, STRUCTURES)
        self.ties = require_choice("ties", ties, TIES)
        if callable(server):
            self.server = getattr(server, "__name__", "callable")
        else:
            self.server = require_choice("server", server, SERVER_RULES)
        self.totals = cl.totals
        t = float(time)
        if not np.isfinite(t):
            raise InvalidInstanceError(f"time={time!r} must be finite", argument="time", value=time)
        self._now = t
        self._key = key
        self._core = self._make_core(server, _order_name(self.structure, key.moves), t)
        self._run_ids: list[int] = []              # first task id of every run, ascending
        self._task_server = array("q")             # per task id: its server once started, else -1
        self._task_state = bytearray()             # per task id: 0 pending, 1 running, 2 ended

    def _core_options(self) -> dict:
        """The key's own options of the core (SDRF: commitments, fair shares, tau, reading)."""
        return {}

    def _make_core(self, server: Any, order: str, time: float) -> Any:
        opts = dict(ties=self.ties, blocking=self.blocking, time=time, **self._core_options())
        if callable(server):
            from .reference import ReferenceScheduler

            return ReferenceScheduler(self.cluster.capacities, self.totals, self.placement, self.weights,
                                      mechanism=self.mechanism, server=server, **opts)
        return Core(self.cluster.capacities, self.totals, self.placement, self.weights, key=self._key.id,
                    order=order, rule=SERVER_RULES.index(self.server), **opts)

    # --- read-only state ---------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self._now

    @property
    def free(self) -> np.ndarray:
        """(M, K) free capacity per server (raw units; a copy)."""
        return self._core.free.copy()

    @property
    def usage(self) -> np.ndarray:
        """(N, K) raw resources held by each user's running tasks (a copy)."""
        return self._core.usage.copy()

    @property
    def n_running(self) -> np.ndarray:
        return self._core.n_running.copy()

    @property
    def n_pending(self) -> np.ndarray:
        return self._core.n_pending.copy()

    @property
    def swaps(self) -> int:
        """Swap events processed by the live tree (0 for the other structures and constant keys)."""
        return self._core.swaps

    @property
    def next_change(self) -> float:
        """When the order of the users with pending tasks can change next without a submit or a
        finish (``inf``: not before): :attr:`next_min_change`."""
        return self._core.next_min_change

    @property
    def next_min_change(self) -> float:
        """The earliest time the user served first can change (``inf``: not before the next submit
        or finish): the live tree's next swap event anywhere in the order. Only a change of the first
        user can unblock a scheduler stopped on it (``blocking="stop"``), but a user further back
        reaches the front through swaps lower in the order first, so a blocked caller advances to this
        time, reads :attr:`first_user` and asks again (:class:`~fairalloc.sim.TaskPolicy`). ``inf`` for
        keys that do not move and for ``structure="heap"``, which does not know."""
        return self._core.next_min_change

    @property
    def first_user(self) -> int | None:
        """The user :meth:`schedule` would serve first now (None: no pending task)."""
        u = self._core.first()
        return None if u < 0 else u

    @property
    def decisions(self) -> int:
        """Tasks started so far."""
        return self._core.decisions

    @property
    def blocked_by(self) -> int | None:
        """With ``blocking="stop"``: the user whose task did not fit in the last :meth:`schedule`."""
        return self._core.blocked

    def order(self) -> list[int]:
        """Users with pending tasks, in the order the scheduler would serve them now."""
        return self._core.order()

    def normalized_usage(self) -> np.ndarray:
        """(N, K) usage as fractions of the cluster totals (:func:`fairalloc.shares.normalized_demands`)."""
        return shares.normalized_demands(self.usage, self.totals)

    def queue_priority(self, user: int) -> float:
        """The key the order holds for a ``user`` with pending tasks now (``KeyError`` otherwise)."""
        return self._core.priority(user)

    # --- driving --------------------------------------------------------------------------------------
    def advance(self, t: float) -> int:
        """Move the clock to ``t`` (>= now); return the live tree's swap events processed."""
        t = float(t)
        if not math.isfinite(t) or t < self._now:
            raise InvalidInstanceError(f"t={t!r} must be finite and >= the current time {self._now!r}",
                                       argument="t", value=t)
        n = self._core.advance(t)
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
        d, count = check_submission(i, demand, count, self.cluster.n_resources)
        fits = shares.tasks_that_fit(self.cluster.capacities, d) >= 1
        if not (fits & self.placement[i]).any():
            servers = np.flatnonzero(self.placement[i]).tolist()
            raise InvalidInstanceError(
                f"demand={d.tolist()!r} of user {i} fits on none of its eligible servers {servers} "
                f"(capacities {self.cluster.capacities[servers].tolist()})",
                argument="demand", index=(i,), value=d.tolist())
        return self.submit_trusted(i, d, count)

    def _run_extra(self, demand: np.ndarray) -> float:
        """Per-run data computed once at submission (TSF: the demand's monopoly count)."""
        return 0.0

    def submit_trusted(self, user: int, demand: np.ndarray, count: int) -> range:
        """:meth:`submit` without the checks, for callers that validated a whole workload at once
        (the simulator's task policies): ``user`` an int index, ``demand`` a (K,) float array with a
        positive entry that fits on some server ``user`` may run, ``count`` an int >= 1. Nothing is
        checked: a bad argument corrupts the state."""
        core = self._core
        ids = range(core.next_id, core.next_id + count)
        core.submit(user, demand, count, self._run_extra(demand))
        self._run_ids.append(ids.start)
        self._task_state.extend(bytes(count))
        self._task_server.extend(repeat(-1, count))
        return ids

    def _run_of(self, task: Any) -> int:
        """The run of a running ``task``, marked ended."""
        state = self._task_state
        if isinstance(task, (int, np.integer)) and 0 <= task < len(state) and state[task] == 1:
            state[task] = 2
            return bisect_right(self._run_ids, task) - 1
        raise InvalidInstanceError(f"task={task!r} is not running", argument="task", value=task)

    def finish(self, task: int) -> None:
        """Task ``task`` ended now: free its server capacity and update its user's state."""
        core = self._core
        r = self._run_of(task)
        u = core.run_user(r)
        core.release(u, r, 1, self._task_server[task])
        core.changed(u)

    def finish_all(self, tasks: Any) -> None:
        """:meth:`finish` of every task in ``tasks`` (ending at the same instant), in that order; each
        user's key is brought up to date once, after its last task (the same state: the changes are at
        one instant)."""
        core = self._core
        users: dict[int, None] = {}
        servers = self._task_server
        last, last_m, k = -1, -1, 0
        for task in tasks:                    # consecutive tasks of one run and server: one call
            r = self._run_of(task)
            m = servers[task]
            if r != last or m != last_m:
                if k:
                    core.release(core.run_user(last), last, k, last_m)
                last, last_m, k = r, m, 0
                users[core.run_user(r)] = None
            k += 1
        if k:
            core.release(core.run_user(last), last, k, last_m)
        for u in users:
            core.changed(u)

    def schedule(self, *, max_starts: int | None = None) -> list[Start]:
        """Start tasks now until the rule stops (or ``max_starts``); return what started, in order."""
        core = self._core
        launches = core.schedule(max_starts).tolist()
        now, state, servers, run_user = self._now, self._task_state, self._task_server, core.runs.user
        starts = []
        for r, k, first, m in launches:
            u = int(run_user[r])
            for task in range(first, first + k):
                state[task] = 1
                servers[task] = m
                starts.append(Start(task, u, m, now))
        return starts

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
             "blocking": scheduler.blocking, "server": scheduler.server,
             "blocked_by": blocked, "unplaced": int(unmet.sum())}
    if extra_stats:
        stats.update(extra_stats)
    logger.debug("%s greedy: %d tasks started; %s", scheduler.mechanism, len(starts), why)
    return AllocationResult.from_arrays(
        status=Status.FEASIBLE, mechanism=scheduler.mechanism, method="greedy",
        allocation=np.asarray(allocation, dtype=float), dominant_shares=dom, levels=levels,
        utilities=per_user.astype(float), tasks=tasks, shares=np.asarray(shares_fn(per_user), dtype=float),
        message=f"greedy {scheduler.mechanism} ({scheduler.blocking}, {scheduler.server}): {why}",
        stats=stats, details={"order": np.array([s.user for s in starts], dtype=np.int64),
                              "usage": np.einsum("im,ir->mr", tasks, instance.task_demands)})


def check_task_instance(instance: Any) -> None:
    if not isinstance(instance, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(instance).__name__}")
