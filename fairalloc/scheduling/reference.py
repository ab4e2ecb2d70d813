r"""The task schedulers' rule in plain Python, one decision at a time: the readable reference.

At every decision every user's key is recomputed from the definitions (:mod:`fairalloc.shares`,
:mod:`fairalloc.commitments`) and the users are sorted with ``sorted()``; the first one (with
``blocking="skip"``: the first not set aside in this pass) gets its oldest pending task on the server
the rule picks among those where it fits (:func:`fairalloc.shares.tasks_that_fit`) and the user may
run. Nothing is kept between decisions but the state itself (queues, running tasks, free capacity,
SDRF's commitments at each user's last change). O(N log N) per decision: a specification and a test
oracle, and the path of a callable ``server=`` rule, which compiled code cannot call.

Keys (``mechanism``; :mod:`fairalloc.scheduling.keys` for the formulas), with :math:`o_i` the
normalised holdings and :math:`c_i(t)` SDRF's commitments by Eq. 6 in closed form:

* ``"drf"``: :func:`~fairalloc.shares.dominant_shares` of :math:`o_i`, over :math:`w_i`;
* ``"sdrf"``: :func:`~fairalloc.shares.sdrf_levels` (or :func:`~fairalloc.shares.sdrf_printed_priorities`)
  at now; equal priorities go first to the one decreasing faster just after now (the right limit:
  the larger :math:`(c_{ir} - \bar o_{ir})/w_i` over the resources *r* that attain the maximum);
* ``"tsf"``: :math:`\sum_{\text{running}} 1/(h(d) w_i)` (:func:`~fairalloc.shares.task_shares` per task);
* ``"cdrf"``: :func:`~fairalloc.shares.dominant_shares_after` with the head task.

Then the tie value (the oldest pending task's submission time with ``ties="wait"``), then the index.

Unlike the compiled core, this reference takes no wake-ups while blocked (:attr:`next_min_change` is
``inf``) and compares keys as computed here (floats; the core compares SDRF's trajectories through the
live tree, which orders keys that differ by rounding by their trend), so the two may differ at
instants where two keys agree to rounding.

Examples
--------
The DRF paper's example: A (tasks <1, 4>) and B (<3, 1>) on <9, 18> alternate A, B, A, B, A:

>>> import numpy as np
>>> ref = ReferenceScheduler(np.array([[9.0, 18.0]]), np.array([9.0, 18.0]), np.ones((2, 1), bool),
...                          np.ones(2), mechanism="drf", server="first_fit", blocking="stop", ties="wait")
>>> ref.submit(0, np.array([1.0, 4.0]), 10), ref.submit(1, np.array([3.0, 1.0]), 10)
(0, 1)
>>> ref.schedule(None)[:, 0].tolist(), ref.blocked
([0, 1, 0, 1, 0], 0)
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

import numpy as np

from .. import commitments as _c
from .. import shares
from ..errors import InvalidInstanceError

__all__ = ["ReferenceScheduler"]


class _Runs:
    def __init__(self) -> None:
        self.user: list[int] = []


class ReferenceScheduler:
    """The rule of every task scheduler, decision by decision in plain Python (module docstring).

    The same operations as :class:`fairalloc.scheduling.core.Core`, which
    :class:`~fairalloc.scheduling.TaskScheduler` drives; arguments are not checked here.

    Parameters
    ----------
    capacities : ndarray (M, K)
    totals : ndarray (K,)
    placement : ndarray (N, M) of bool
    weights : ndarray (N,)
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}
    server : {"first_fit", "best_fit", "tvtsf"} or callable
        A callable is ``f(free, demand, eligible) -> int``: the (M, K) free capacity (read-only), the
        task's demand and the (M,) servers where it fits and the user may run; it returns one of them
        (or -1 for none).
    blocking : {"stop", "skip"}
    ties : {"wait", "index"}
    time : float
    commitments, fair, tau, level, jump
        SDRF's commitments at ``time`` (N, K), fair shares (N,), time constant (None: constant),
        reading (level or printed) and the diagnostic ``jump`` (commitment = new excess at a change).
    """

    def __init__(self, capacities, totals, placement, weights, *, mechanism: str, server: Any, blocking: str,
                 ties: str, time: float = 0.0, commitments=None, fair=None, tau=None, level: bool = True,
                 jump: bool = False) -> None:
        self.free = np.array(capacities, dtype=float)
        self.totals = np.array(totals, dtype=float)
        self.placement = np.asarray(placement, dtype=bool)
        self.w = np.array(weights, dtype=float)
        n, k = len(self.w), self.free.shape[1]
        self.mechanism = mechanism
        self.rule: Callable | str = server
        self.stop = blocking == "stop"
        self.by_wait = ties == "wait"
        self.now = float(time)
        self.queues: list[deque] = [deque() for _ in range(n)]       # runs: [run, demand, left, next id, submitted]
        self.running: list[list[int]] = [[] for _ in range(n)]       # the run of each running task
        self.run_demand: list[np.ndarray] = []
        self.run_h: list[float] = []
        self.runs = _Runs()
        self.next_id = 0
        self.c0 = np.zeros((n, k)) if commitments is None else np.array(commitments, dtype=float).reshape(n, k)
        self.t0 = np.full(n, self.now)
        self.excess = np.zeros((n, k))
        self.fair = np.zeros(n) if fair is None else np.array(fair, dtype=float)
        self.tau = tau
        self.level = level
        self.jump = jump
        self.decisions = 0
        self.blocked: int | None = None
        self.swaps = 0

    # --- state ---------------------------------------------------------------------------------------
    @property
    def usage(self) -> np.ndarray:
        """(N, K) held by the running tasks, summed afresh."""
        out = np.zeros((len(self.w), self.free.shape[1]))
        for u, tasks in enumerate(self.running):
            for r in tasks:
                out[u] += self.run_demand[r]
        return out

    @property
    def n_running(self) -> np.ndarray:
        return np.array([len(t) for t in self.running], dtype=np.int64)

    @property
    def n_pending(self) -> np.ndarray:
        return np.array([sum(run[2] for run in q) for q in self.queues], dtype=np.int64)

    def commitments_at(self, t: float) -> np.ndarray:
        """(N, K) commitments at t by Eq. 6 in closed form (:func:`fairalloc.commitments.decay`)."""
        if self.tau is None:
            return self.c0.copy()
        return _c.decay(self.c0, self.excess, (t - self.t0)[:, None], self.tau)

    def _keys(self, users: list[int]) -> dict[int, tuple]:
        """(key, -rate of decrease, tie, index) of each user: ``sorted()`` of these is the order."""
        usage = self.usage
        o = shares.normalized_demands(usage, self.totals)
        out = {}
        c = self.commitments_at(self.now) if self.mechanism == "sdrf" else None
        for u in users:
            head = self.queues[u][0]
            w = self.w[u]
            rate = 0.0
            if self.mechanism == "drf":
                key = float(shares.dominant_shares(o[u]) / w)
            elif self.mechanism == "tsf":
                key = float(sum(shares.task_shares(1, self.run_h[r], w) for r in self.running[u]))
            elif self.mechanism == "cdrf":
                key = float(shares.dominant_shares_after(usage[u], head[1], self.totals, w))
            else:
                if self.level:
                    key = float(shares.sdrf_levels(shares.dominant_shares(o[u]), c[u][None, :], w)[0])
                    lines = c[u]
                else:
                    key = float(shares.sdrf_printed_priorities(o[u][None, :], c[u][None, :], w)[0])
                    lines = o[u] + c[u]
                if self.tau is not None:
                    top = lines == lines.max()
                    rate = float(((c[u] - self.excess[u])[top]).max()) / w
            tie = head[4] if self.by_wait else 0.0
            out[u] = (key, -rate, tie, u)
        return out

    def order(self) -> list[int]:
        users = [u for u in range(len(self.w)) if self.queues[u]]
        keys = self._keys(users)
        return sorted(users, key=keys.__getitem__)

    def first(self) -> int:
        order = self.order()
        return order[0] if order else -1

    def priority(self, user: int) -> float:
        if not self.queues[user]:
            raise KeyError(user)
        return self._keys([user])[user][0]

    def key(self, user: int) -> float:
        return self._keys([user])[user][0] if self.queues[user] else float(
            sum(shares.task_shares(1, self.run_h[r], self.w[user]) for r in self.running[user]))

    @property
    def next_min_change(self) -> float:
        """Always ``inf``: the reference takes no wake-ups (module docstring)."""
        return math.inf

    def run_user(self, run: int) -> int:
        return self.runs.user[run]

    # --- operations ----------------------------------------------------------------------------------
    def _changed(self, u: int) -> None:
        """SDRF: u's holdings change now: commitments brought to now, the excess from now on."""
        if self.mechanism != "sdrf" or self.tau is None:
            return
        self.c0[u] = self.commitments_at(self.now)[u]
        self.t0[u] = self.now
        o = shares.normalized_demands(self.usage[u], self.totals)
        self.excess[u] = _c.excess_over(o, self.fair[u])
        if self.jump:
            self.c0[u] = self.excess[u]

    def advance(self, t: float) -> int:
        self.now = float(t)
        return 0

    def submit(self, user: int, demand: np.ndarray, count: int, h: float = 0.0) -> int:
        r = len(self.runs.user)
        self.runs.user.append(user)
        self.run_demand.append(np.asarray(demand, dtype=float))
        self.run_h.append(h)
        self.queues[user].append([r, self.run_demand[r], count, self.next_id, self.now])
        self.next_id += count
        return r

    def release(self, user: int, run: int, count: int, server: int) -> None:
        d = self.run_demand[run]
        for _ in range(count):
            self.free[server] += d
            self.running[user].remove(run)

    def changed(self, user: int) -> None:
        self._changed(user)

    def _server(self, u: int, d: np.ndarray) -> int:
        ok = (shares.tasks_that_fit(self.free, d) >= 1) & self.placement[u]
        idx = np.flatnonzero(ok)
        if not idx.size:
            return -1
        if callable(self.rule):
            view = self.free.view()
            view.setflags(write=False)
            m = self.rule(view, d, ok.copy())
            m = -1 if m is None else int(m)
            if m >= 0 and not ok[m]:
                raise InvalidInstanceError(f"server rule returned server {m}, where the task does not fit or "
                                           "the user may not run", argument="server", value=m)
            return m
        if self.rule == "first_fit":
            return int(idx[0])
        free = self.free[idx]
        if self.rule == "best_fit":
            score = shares.normalized_demands(free - d, self.totals).sum(axis=1)
        else:                                  # TV-TSF Algorithm 4: shapes of the task and of the free capacity
            dn = shares.normalized_demands(d, self.totals)
            fn = shares.normalized_demands(free, self.totals)
            k = int(np.argmax(dn > 0))
            score = np.abs(dn / dn[k] - fn / fn[:, k:k + 1]).sum(axis=1)
        return int(idx[np.argmin(score)])

    def schedule(self, limit: int | None) -> np.ndarray:
        """One pass; its launches as rows (run, tasks, first task id, server)."""
        limit = math.inf if limit is None else limit
        rows: list[list[int]] = []
        aside: set[int] = set()
        self.blocked = None
        started = 0
        while started < limit:
            order = [u for u in self.order() if u not in aside]
            if not order:
                break
            u = order[0]
            head = self.queues[u][0]
            r, d = head[0], head[1]
            m = self._server(u, d)
            if m < 0:
                if self.stop:
                    self.blocked = u
                    break
                aside.add(u)
                continue
            task = head[3]
            head[3] += 1
            head[2] -= 1
            if head[2] == 0:
                self.queues[u].popleft()
            self.free[m] -= d
            self.running[u].append(r)
            self._changed(u)
            started += 1
            if rows and rows[-1][0] == r and rows[-1][3] == m:
                rows[-1][1] += 1
            else:
                rows.append([r, 1, task, m])
        self.decisions += started
        return np.array(rows, dtype=np.int64).reshape(-1, 4)
