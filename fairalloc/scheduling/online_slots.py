r"""Slot-by-slot greedy scheduling of a *stream* of tasks: TV-TSF Algorithms 1-5 and the slotted TSF / CDRF baselines online.

:class:`~fairalloc.scheduling.SlotScheduler` runs the TV-TSF heuristic on a
:class:`~fairalloc.TimeVaryingInstance`, whose per-slot demands :math:`d_i(t)`, arrivals and
durations are known in advance. A simulator knows neither: tasks arrive as jobs (each with its own
demand vector and run time) and end when the simulator says so. :class:`OnlineSlotScheduler` is the
same rule in that setting, driven by :meth:`~OnlineSlotScheduler.submit`,
:meth:`~OnlineSlotScheduler.finish` and one :meth:`~OnlineSlotScheduler.step` per slot:

* Every user keeps its pending tasks first in, first out; a task keeps the demand of its job for its
  whole run (in the instance model a task started in slot *t* uses :math:`d_i(t)`; the two coincide
  when a user's demand is constant, which the tests check).
* In a slot, Algorithm 2: users with pending tasks are active; the active user with the smallest
  key gets its head task on the server chosen by the server rule (default Algorithm 4,
  ``"tvtsf"``); a user whose head task fits on no eligible server is frozen for the slot
  (Algorithm 5 as a dry-run test, applied lazily; only the head of its queue is tried): the one
  implementation, :func:`fairalloc.scheduling.tvtsf.fill_slot`. Ties (equal keys): ``ties="wait"``
  (default) serves the user whose oldest pending task was submitted for the earliest slot, then the
  lower index; ``ties="index"`` the lower index only.
* Keys, as in :mod:`fairalloc.scheduling.tvtsf`: ``"tvtsf"`` the cumulative task share (TV-TSF
  Eq. 3) :math:`s_i(t) = X_i / \sum_{\tau \le t} \omega_i h_i(\tau)` with :math:`X_i` the tasks
  started so far and :math:`h_i(\tau)` the monopoly count (Eq. 4,
  :func:`fairalloc.shares.monopoly_tasks`) of the demand of the user's latest submitted job as of
  slot :math:`\tau`; before its first job, the first job's demand (so a user with one demand has
  :math:`(t + 1)\,\omega_i h_i`, every slot from 0 counting, as in the instance model). ``"tsf"``:
  :math:`\sum_{\text{running}} 1/h(d) / \omega_i` (the task share of what runs now; TSF's
  :math:`n_i / (\omega_i h_i)` for one demand). ``"cdrf"``: the weighted dominant share after the head
  task, :math:`\max_r (o_{ir} + d_r)/C_r / \omega_i`.
* Weights :math:`\omega_i` are constant per user here.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Eq. 3-4,
   Algorithms 1-5.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from .. import shares
from ..validation import require_choice
from ..errors import InvalidInstanceError
from .._jit import jit
from ..model import Cluster, _placement, _weights
from ._base import Start, check_submission
from .servers import FreeCapacity
from .tvtsf import DOMINANT_AFTER, POLICIES, RATIO, TIES, fill_slot_arrays

__all__ = ["OnlineSlotScheduler"]


class OnlineSlotScheduler:
    """Slotted greedy for a stream of tasks (module docstring).

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
    n_users : int, optional
        Number of users (or give ``weights``).
    weights : array_like (N,), optional
    placement : array_like (N, M) of bool, optional
    policy : {"tvtsf", "tsf", "cdrf"}
    server : str or callable, optional
        Server rule (:mod:`fairalloc.scheduling.servers`); default ``"tvtsf"`` (Algorithm 4).
    ties : {"wait", "index"}, default "wait"
        Among equal keys: the oldest pending task first, then the lower index; or the index only.

    Examples
    --------
    The two-server example of :func:`~fairalloc.scheduling.tvtsf_greedy` (same result, slot 0):

    >>> s = OnlineSlotScheduler([[4, 8], [8, 8]], n_users=2, placement=[[1, 0], [1, 1]])
    >>> _ = s.submit(0, [2, 4], 3, slot=0); _ = s.submit(1, [2, 2], 5, slot=0)
    >>> sorted((st.user, st.server) for st in s.step(0))
    [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1), (1, 1)]
    """

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, policy: str = "tvtsf", server: Any = None,
                 ties: str = "wait") -> None:
        cl = cluster if isinstance(cluster, Cluster) else Cluster(cluster)
        if weights is None and n_users is None:
            raise InvalidInstanceError("give n_users or weights", argument="n_users", value=None)
        n = int(n_users) if weights is None else len(np.atleast_1d(weights))
        if n_users is not None and n != n_users:
            raise InvalidInstanceError(f"weights has {n} entries but n_users={n_users}",
                                       argument="weights", value=n)
        self.cluster = cl
        self.n_users = n
        self.weights = _weights(weights, n)
        self.placement = _placement(placement, n, cl.n_servers)
        self.policy = require_choice("policy", policy, POLICIES)
        self.ties = require_choice("ties", ties, TIES)
        self.servers = FreeCapacity(cl.capacities, self.placement, "tvtsf" if server is None else server)
        self.totals = self.servers.totals
        self.slot = -1                                     # last slot stepped
        self.usage = np.zeros((n, cl.n_resources))
        self._pending: list[deque] = [deque() for _ in range(n)]
        self._n_pending = np.zeros(n, dtype=np.int64)
        self._started = np.zeros(n, dtype=np.int64)        # X_i
        self._inv_h_running = np.zeros(n)                  # sum over running tasks of 1 / h(d)
        self._n_running = np.zeros(n, dtype=np.int64)
        # running tasks: per task id its server (-1: not running) and its job (submission); per job
        # its user, demand and 1 / h(d) (a finish subtracts the same values a start added)
        self._task_server = np.full(0, -1, dtype=np.int64)
        self._task_job = np.zeros(0, dtype=np.int64)
        self._job_user = np.zeros(0, dtype=np.int64)
        self._job_demand = np.zeros((0, cl.n_resources))
        self._job_h = np.zeros(0)
        self._n_jobs = 0
        self._h = np.full(n, np.nan)                       # monopoly count of the latest job's demand
        self._den = np.zeros(n)                            # sum_{tau <= _den_slot} w h(tau)
        self._den_slot = np.full(n, -1, dtype=np.int64)
        self._next_id = 0
        self._decisions = 0
        self.rounds = 0

    @property
    def decisions(self) -> int:
        """Tasks started so far."""
        return self._decisions

    @property
    def n_pending(self) -> np.ndarray:
        return self._n_pending.copy()

    @property
    def has_pending(self) -> bool:
        return bool(self._n_pending.any())

    def _bring_denominator(self, i: int, slot: int) -> None:
        """Add w h_i for the slots (_den_slot, slot] with the current h_i."""
        if slot > self._den_slot[i]:
            self._den[i] += (slot - self._den_slot[i]) * self.weights[i] * self._h[i]
            self._den_slot[i] = slot

    def cumulative_shares(self, slot: int | None = None) -> np.ndarray:
        r"""(N,) :math:`s_i` (Eq. 3) after ``slot`` (default the last stepped); NaN for users never seen."""
        slot = self.slot if slot is None else int(slot)
        out = np.full(self.n_users, np.nan)
        for i in np.flatnonzero(~np.isnan(self._h)):
            den = self._den[i] + max(slot - self._den_slot[i], 0) * self.weights[i] * self._h[i]
            out[i] = self._started[i] / den
        return out

    def submit(self, user: int, demand: Any, count: int = 1, *, slot: int) -> range:
        """Add ``count`` pending tasks of ``demand`` (raw units) for ``user``, submitted for ``slot``.

        ``slot`` is the first slot in which they may start (>= the last stepped slot + 1, or the
        current one when submitting before its :meth:`step`). Returns the task ids.
        """
        i = int(user)
        if not 0 <= i < self.n_users or i != user:
            raise InvalidInstanceError(f"user={user!r} must be an index in [0, {self.n_users})",
                                       argument="user", value=user)
        d, count = check_submission(i, demand, count, self.cluster.n_resources)
        slot = int(slot)
        if slot <= self.slot:
            raise InvalidInstanceError(f"slot={slot} has already been stepped (last: {self.slot})",
                                       argument="slot", value=slot)
        if not self.servers.fits_capacity(i, d):
            raise InvalidInstanceError(f"demand={d.tolist()!r} of user {i} fits on none of its eligible "
                                       f"servers", argument="demand", index=(i,), value=d.tolist())
        h = float(shares.monopoly_tasks(d, self.cluster.capacities))
        if np.isnan(self._h[i]):                            # first job: it stands for every earlier slot
            self._h[i] = h
        else:
            self._bring_denominator(i, slot - 1)
            self._h[i] = h
        ids = range(self._next_id, self._next_id + int(count))
        self._next_id += int(count)
        self._register(i, d, h, ids)
        self._pending[i].append([d, int(count), ids.start, h, slot])     # demand, count, next id, h, slot
        self._n_pending[i] += int(count)
        return ids

    def _register(self, i: int, d: np.ndarray, h: float, ids: range) -> int:
        """Record a job (user ``i``, demand ``d``, monopoly count ``h``, task ids ``ids``); its index."""
        job = self._n_jobs
        if job == self._job_user.size:                      # grow by doubling
            size = max(16, 2 * job)
            self._job_user = np.resize(self._job_user, size)
            self._job_demand = np.resize(self._job_demand, (size, self._job_demand.shape[1]))
            self._job_h = np.resize(self._job_h, size)
        self._job_user[job] = i
        self._job_demand[job] = d
        self._job_h[job] = h
        self._n_jobs += 1
        if ids.stop > self._task_server.size:
            size = max(ids.stop, 2 * self._task_server.size)
            grown = np.full(size, -1, dtype=np.int64)
            grown[:self._task_server.size] = self._task_server
            self._task_server = grown
            self._task_job = np.resize(self._task_job, size)
        self._task_job[ids.start:ids.stop] = job
        return job

    def running_tasks(self) -> np.ndarray:
        """Ids of the tasks running now (started and not finished), ascending."""
        return np.flatnonzero(self._task_server >= 0)

    def finish(self, task: int) -> None:
        """Task ``task`` ended: free its capacity."""
        self.finish_many([task])

    def finish_many(self, tasks: Any) -> None:
        """Tasks ``tasks`` ended, in this order: free their capacity (as :meth:`finish` one by one)."""
        t = np.asarray(tasks, dtype=np.int64).ravel()
        if t.size == 0:
            return
        bad = (t < 0) | (t >= self._task_server.size)
        if not bad.any():
            bad = self._task_server[t] < 0
        if bad.any() or np.unique(t).size < t.size:
            st = np.sort(t)
            which = t[bad][0] if bad.any() else st[np.flatnonzero(np.diff(st) == 0)[0]]
            raise InvalidInstanceError(f"task={int(which)!r} is not running", argument="task", value=int(which))
        free = np.array(self.servers.free, dtype=float)
        _finish(t, self._task_server, self._task_job, self._job_user, self._job_demand, self._job_h, free,
                self.usage, self._inv_h_running, self._n_running)
        self.servers.assign(free)

    def _begin_slot(self, slot: int) -> tuple[int, list[int]]:
        """Enter ``slot`` (> the last stepped slot): the slot as an int and the users with pending tasks,
        their denominators brought up to it."""
        slot = int(slot)
        if slot <= self.slot:
            raise InvalidInstanceError(f"slot={slot} must be after the last stepped slot {self.slot}",
                                       argument="slot", value=slot)
        self.slot = slot
        active = np.flatnonzero(self._n_pending > 0).tolist()
        for i in active:
            self._bring_denominator(i, slot)
        return slot, active

    def step(self, slot: int) -> list[Start]:
        """Run Algorithm 2 for ``slot`` (> the last stepped slot): start tasks; return them in order."""
        task, user, server = self.step_arrays(slot)
        t = float(self.slot)
        return [Start(a, i, m, t) for a, i, m in zip(task.tolist(), user.tolist(), server.tolist())]

    def step_arrays(self, slot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`step`, the starts as arrays ``(task, user, server)`` in order."""
        slot, active = self._begin_slot(slot)
        pending = self._pending
        by_wait = self.ties == "wait"
        # each active user's pending jobs: demand, tasks left, the key's increment per start, tie
        tsf = self.policy == "tsf"
        jobs = {i: [(job[0], job[1], 1.0 / job[3] if tsf else 1.0, job[4] if by_wait else 0.0) for job in pending[i]]
                for i in active}
        if self.policy == "cdrf":
            f = fill_slot_arrays(self.servers, jobs, kind=DOMINANT_AFTER, usage=self.usage, weights=self.weights)
        else:      # tvtsf: X_i / den_i, + 1 per start; tsf: sum of 1/h over running tasks / w_i
            num, den = (self._inv_h_running, self.weights) if tsf else (self._started, self._den)
            f = fill_slot_arrays(self.servers, jobs, kind=RATIO, num=num, den=den, usage=self.usage)
        self.rounds += f.rounds
        return self._record(f, jobs)

    def _record(self, f: Any, jobs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bookkeeping of the starts of a :class:`~fairalloc.scheduling.tvtsf.SlotFill` over ``jobs``
        (the pending jobs of the active users, in the order of ``self._pending``): task ids, queues,
        counters; returns ``(task, user, server)``."""
        user, server, pos = f.user, f.server, f.job
        n = user.size
        self._decisions += n
        if n == 0:
            return np.zeros(0, dtype=np.int64), user, server
        # the job records of the fill's job positions, and each start's task id: the job's next id
        # plus the number of earlier starts of the same job in this slot
        first, rec = [], []
        for i in jobs:
            for job in self._pending[i]:
                first.append(job[2])
                rec.append(job)
        first = np.asarray(first, dtype=np.int64)
        order = np.argsort(pos, kind="stable")
        sp = pos[order]
        brk = np.r_[0, np.flatnonzero(sp[1:] != sp[:-1]) + 1]
        rank = np.arange(n) - np.repeat(brk, np.diff(np.r_[brk, n]))
        task = np.empty(n, dtype=np.int64)
        task[order] = first[sp] + rank
        # queues: each started job's next id and count; finished jobs leave their user's queue
        counts = np.bincount(pos, minlength=len(rec))
        for p in np.flatnonzero(counts).tolist():
            job = rec[p]
            job[1] -= int(counts[p])
            job[2] += int(counts[p])
        for i in set(user.tolist()):
            q = self._pending[i]
            while q and q[0][1] == 0:
                q.popleft()
        per_user = np.bincount(user, minlength=self.n_users)
        self._n_pending -= per_user
        self._started += per_user
        self._n_running += per_user
        self._task_server[task] = server
        _add_inv_h(user, self._task_job[task], self._job_h, self._inv_h_running)
        self.usage[...] = f.usage
        return task, user, server


@jit(_nrt=False)
def _add_inv_h(user, job, job_h, inv_h):
    """Per start in order, ``inv_h[user] += 1 / h`` of its job (the same additions as one at a time)."""
    for a in range(user.shape[0]):
        inv_h[user[a]] += 1.0 / job_h[job[a]]


@jit(_nrt=False)
def _finish(tasks, task_server, task_job, job_user, job_demand, job_h, free, usage, inv_h, n_running):
    """Per finished task in order: its capacity back on its server, its user's usage, 1 / h and
    running count down (usage and 1 / h reset to 0 when the user runs nothing: no round-off residue)."""
    for a in range(tasks.shape[0]):
        t = tasks[a]
        m = task_server[t]
        job = task_job[t]
        i = job_user[job]
        for r in range(free.shape[1]):
            free[m, r] += job_demand[job, r]
            usage[i, r] -= job_demand[job, r]
        inv_h[i] -= 1.0 / job_h[job]
        n_running[i] -= 1
        if n_running[i] == 0:
            for r in range(free.shape[1]):
                usage[i, r] = 0.0
            inv_h[i] = 0.0
        task_server[t] = -1
