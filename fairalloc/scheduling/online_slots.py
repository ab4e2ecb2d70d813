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
from ..validation import as_array, require_choice, require_nonnegative, require_shape
from ..errors import InvalidInstanceError
from ..model import Cluster, _placement, _weights
from ._base import Start
from .servers import FreeCapacity
from .tvtsf import DOMINANT_AFTER, POLICIES, RATIO, TIES, fill_slot

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
        self._running: dict[int, tuple[int, int, np.ndarray, float]] = {}
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
        if int(count) != count or count < 1:
            raise InvalidInstanceError(f"count={count!r} must be a positive integer", argument="count",
                                       value=count)
        slot = int(slot)
        if slot <= self.slot:
            raise InvalidInstanceError(f"slot={slot} has already been stepped (last: {self.slot})",
                                       argument="slot", value=slot)
        d = as_array("demand", demand, ndim=1)
        require_shape("demand", d, (self.cluster.n_resources,), names=["n_resources"])
        require_nonnegative("demand", d)
        if not (d > 0).any():
            raise InvalidInstanceError(f"demand={d.tolist()!r} of user {i} is all zero",
                                       argument="demand", index=(i,), value=d.tolist())
        if not self.servers.fits_capacity(i, d):
            raise InvalidInstanceError(f"demand={d.tolist()!r} of user {i} fits on none of its eligible "
                                       f"servers", argument="demand", index=(i,), value=d.tolist())
        d.setflags(write=False)
        h = float(shares.monopoly_tasks(d, self.cluster.capacities))
        if np.isnan(self._h[i]):                            # first job: it stands for every earlier slot
            self._h[i] = h
        else:
            self._bring_denominator(i, slot - 1)
            self._h[i] = h
        ids = range(self._next_id, self._next_id + int(count))
        self._next_id += int(count)
        self._pending[i].append([d, int(count), ids.start, h, slot])     # demand, count, next id, h, slot
        self._n_pending[i] += int(count)
        return ids

    def finish(self, task: int) -> None:
        """Task ``task`` ended: free its capacity."""
        try:
            i, m, d, h = self._running.pop(task)
        except KeyError:
            raise InvalidInstanceError(f"task={task!r} is not running", argument="task", value=task) from None
        self.servers.release(m, d)
        self.usage[i] -= d
        self._inv_h_running[i] -= 1.0 / h
        self._n_running[i] -= 1
        if self._n_running[i] == 0:                         # no round-off residue once nothing runs
            self.usage[i] = 0.0
            self._inv_h_running[i] = 0.0

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
        slot, active = self._begin_slot(slot)
        out: list[Start] = []
        pending = self._pending
        by_wait = self.ties == "wait"

        def start(i: int, m: int) -> None:
            head = pending[i][0]
            d = head[0]
            task = head[2]
            head[2] += 1
            head[1] -= 1
            if head[1] == 0:
                pending[i].popleft()
            self._n_pending[i] -= 1
            self.usage[i] += d
            self._started[i] += 1
            self._inv_h_running[i] += 1.0 / head[3]
            self._n_running[i] += 1
            self._running[task] = (i, m, d, head[3])
            out.append(Start(task, i, m, float(slot)))

        # each active user's pending jobs: demand, tasks left, the key's increment per start, tie
        tsf = self.policy == "tsf"
        jobs = {i: [(job[0], job[1], 1.0 / job[3] if tsf else 1.0, job[4] if by_wait else 0.0) for job in pending[i]]
                for i in active}
        if self.policy == "cdrf":
            self.rounds += fill_slot(self.servers, jobs, kind=DOMINANT_AFTER, usage=self.usage,
                                     weights=self.weights, start=start)
        else:      # tvtsf: X_i / den_i, + 1 per start; tsf: sum of 1/h over running tasks / w_i
            num, den = (self._inv_h_running, self.weights) if tsf else (self._started, self._den)
            self.rounds += fill_slot(self.servers, jobs, kind=RATIO, num=num, den=den, start=start)
        self._decisions += len(out)
        return out
