r"""TSF and CDRF as TV-TSF's Table 1 describes them, run slot by slot: the paper's baselines.

TV-TSF's Table 1 classifies its two baselines by what they model:

==========  ====================  =========  ===========  ==================
mechanism   placement constraints  model      tasks        task duration
==========  ====================  =========  ===========  ==================
TSF [2]_    considered             static     divisible    not considered
CDRF [3]_   not considered         static     indivisible  not considered
==========  ====================  =========  ===========  ==================

A *static* mechanism divides one pool of resources among users with given demands, once. Run
**slot by slot** in a simulator (:class:`StaticSlotScheduler`, driven like
:class:`~fairalloc.scheduling.online_slots.OnlineSlotScheduler`: ``submit`` / ``finish`` / ``step``):

* at each slot boundary with pending tasks, the mechanism divides the capacity that is **free** at
  that moment (tasks started earlier keep theirs: the cluster cannot take them back) among the users
  with pending tasks, each asking for the pending tasks of its oldest job (its *head* job; with
  one user per job, as in :func:`fairalloc.workloads.alibaba_like`, that is all its tasks);
* **duration-unaware**: the fairness rule sees only the slot's own allocation, not what runs from
  earlier slots, nor how long the tasks will run (no memory: what a static mechanism cannot know);
* the allocation is then *realised* as whole tasks on servers; what the mechanism's model cannot
  express is lost for the slot (the task stays pending):

``"tsf-static"`` (placement-aware, divisible, duration-unaware)
    Divisible TSF [2]_ on the free capacities, with placement: the leximin of the task shares
    :math:`X_i / (\omega_i h_i)` over fractional :math:`x_{im} \ge 0` with
    :math:`\sum_i d_{ir} x_{im} \le F_{mr}` (free capacity), :math:`x_{im} = 0` where
    :math:`p_{im} = 0`, :math:`X_i = \sum_m x_{im} \le K_i` (pending tasks of the head job);
    :math:`h_i` the monopoly count (TV-TSF Eq. 4, :func:`fairalloc.shares.monopoly_tasks`) on the
    *full* capacities, as the cluster defines it. Progressive filling by LPs, the algorithm of
    :func:`fairalloc.exact.tsf_lp.tsf_lp` (one LP for the level, then LPs that find which users can
    still rise), solved with :func:`scipy.optimize.linprog` (HiGHS) because the cvxpy compile of
    ``tsf_lp`` costs seconds per slot; the tests check both give the same task totals.
    Realisation: :math:`\lfloor x_{im} \rfloor` tasks of *i* on *m*, then one more task on the
    pairs with the largest fractional parts (largest remainder, ties by user then server index)
    while it fits: the rounding that keeps a slot from starting nothing when every
    :math:`x_{im} < 1`.
``"cdrf-static"`` (placement-unaware, indivisible, duration-unaware)
    CDRF [3]_ (sequential min-max of dominant shares for indivisible tasks) on **one pool**: the
    sum of the free capacities of all servers, placement and server boundaries ignored. Repeatedly
    the user with pending tasks whose dominant share of the slot's allocation *after* its next
    task, :math:`\max_r (a_{ir} + d_{ir}) / C_r / \omega_i` (:math:`C_r` cluster totals), is
    smallest (ties: lowest index) gets a task if it fits in the pool; a user whose next task does
    not fit is done for the slot. Realisation: the granted tasks, in grant order, go to the first
    eligible server where they fit (``server=`` rule, default first fit); a grant that fits on no
    eligible server does not start (the pool said it fits; the servers and placement disagree).

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Table 1, Section 3.
.. [2] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
.. [3] D. Parkes, A. Procaccia, N. Shah, "Beyond dominant resource fairness: extensions,
   limitations, and indivisibilities", ACM TEAC 3(1), 2015.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linprog
import scipy.sparse as sp
from scipy.sparse import coo_matrix

from .. import shares
from ..validation import require_choice
from ..errors import InvalidInstanceError, SolverError
from ._base import Start
from .online_slots import OnlineSlotScheduler

__all__ = ["StaticSlotScheduler", "STATIC_MECHANISMS", "divisible_tsf"]

#: ``mechanism=`` names of :class:`StaticSlotScheduler`.
STATIC_MECHANISMS = ("tsf-static", "cdrf-static")

_RISE_TOL = 1e-7


def _lp(c: np.ndarray, a: Any, b: np.ndarray, bounds: list) -> np.ndarray:
    res = linprog(c, A_ub=a, b_ub=b, bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(f"divisible TSF LP failed: {res.message}")
    return res.x


def divisible_tsf(free: Any, demands: Any, pending: Any, monopoly: Any, eligible: Any,
                  weights: Any = None) -> np.ndarray:
    r"""Leximin task shares over fractional tasks on servers (module docstring, ``"tsf-static"``).

    Parameters
    ----------
    free : (M, K) capacities to divide
    demands : (N, K) per-task demand of each user
    pending : (N,) tasks each user asks for (:math:`K_i`)
    monopoly : (N,) :math:`h_i`
    eligible : (N, M) bool placement
    weights : (N,), optional

    Returns
    -------
    ndarray (N, M)
        Fractional tasks :math:`x_{im}`.

    Examples
    --------
    One server (4 CPU, 4 GB), A = <1, 1> and B = <2, 1> asking for 10 each, h = (4, 2): TSF equalises
    X_A/4 = X_B/2 under X_A + 2 X_B <= 4 (CPU): X_A = 2, X_B = 1.

    >>> divisible_tsf([[4, 4]], [[1, 1], [2, 1]], [10, 10], [4, 2], [[1], [1]]).round(6).tolist()
    [[2.0], [1.0]]
    """
    F = np.asarray(free, dtype=float)
    D = np.asarray(demands, dtype=float)
    K = np.asarray(pending, dtype=float)
    h = np.asarray(monopoly, dtype=float)
    n, m = D.shape[0], F.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    E = np.asarray(eligible, dtype=bool) & (F > 0).all(axis=1)[None, :]
    ui, si = np.nonzero(E)
    nv = ui.size
    x = np.zeros((n, m))
    if nv == 0:
        return x
    # capacity rows (server, resource) and demand rows (user): fixed for every LP
    k = F.shape[1]
    cap = coo_matrix((D[ui].ravel(), ((si[:, None] * k + np.arange(k)).ravel(), np.repeat(np.arange(nv), k))),
                     shape=(m * k, nv)).tocsr()
    dem = coo_matrix((np.ones(nv), (ui, np.arange(nv))), shape=(n, nv)).tocsr()
    share = coo_matrix((1.0 / (w[ui] * h[ui]), (ui, np.arange(nv))), shape=(n, nv)).tocsr()
    base_a = [cap, dem]
    base_b = [F.ravel(), K]
    level = np.full(n, np.nan)                       # frozen users' levels
    free_users = [i for i in range(n) if E[i].any() and K[i] > 0]
    level[[i for i in range(n) if i not in set(free_users)]] = 0.0
    xs = np.zeros(nv)
    while free_users:
        frozen = np.flatnonzero(~np.isnan(level))
        # LP 1: max t, s_i >= t (free), s_j >= level_j (frozen)
        rows = [sp.hstack([c, coo_matrix((c.shape[0], 1))]) for c in base_a]
        b = list(base_b)
        fu = np.array(free_users)
        rows.append(sp.hstack([-share[fu], np.ones((fu.size, 1))]))
        b.append(np.zeros(fu.size))
        if frozen.size:
            rows.append(sp.hstack([-share[frozen], coo_matrix((frozen.size, 1))]))
            b.append(-level[frozen] * (1 - 1e-9))
        c = np.zeros(nv + 1)
        c[-1] = -1.0
        sol = _lp(c, sp.vstack(rows).tocsr(), np.concatenate(b), [(0, None)] * nv + [(0, None)])
        t = sol[-1]
        xs = sol[:nv]
        # LP 2 (repeated): which free users can rise above t while everyone keeps its level
        cand = list(free_users)
        rise: list[int] = []
        while cand:
            ca, ri = np.array(cand), np.array(rise, dtype=np.int64)
            rows = [sp.hstack([cc, coo_matrix((cc.shape[0], ca.size))]) for cc in base_a]
            b = list(base_b)
            rows.append(sp.hstack([-share[ca], sp.identity(ca.size)]))
            b.append(np.full(ca.size, -t * (1 - 1e-9)))
            others = np.concatenate([ri, frozen]).astype(np.int64)
            if others.size:
                lv = np.concatenate([np.full(ri.size, t), level[frozen]])
                rows.append(sp.hstack([-share[others], coo_matrix((others.size, ca.size))]))
                b.append(-lv * (1 - 1e-9))
            c2 = np.concatenate([np.zeros(nv), -np.ones(ca.size)])
            sol2 = _lp(c2, sp.vstack(rows).tocsr(), np.concatenate(b),
                       [(0, None)] * nv + [(0, 1)] * ca.size)
            eps = sol2[nv:]
            up = [i for i, e in zip(cand, eps) if e > _RISE_TOL * max(1.0, t)]
            if not up:
                break
            rise.extend(up)
            cand = [i for i in cand if i not in set(up)]
        for i in cand:
            level[i] = t
        free_users = [i for i in free_users if i not in set(cand)]
    if np.isnan(level).any():  # pragma: no cover - every free user is frozen by the loop
        raise SolverError("divisible TSF: a user was left without a level")
    x[ui, si] = np.maximum(xs, 0.0)
    return x


class StaticSlotScheduler(OnlineSlotScheduler):
    """TSF / CDRF as TV-TSF Table 1 describes them, one static allocation per slot (module docstring).

    Parameters
    ----------
    cluster, n_users, weights, placement
        As :class:`~fairalloc.scheduling.online_slots.OnlineSlotScheduler`.
    mechanism : {"tsf-static", "cdrf-static"}
    server : str or callable, optional
        Server rule realising CDRF's pooled grants (default ``"first_fit"``); unused by TSF.

    Examples
    --------
    Two servers <2, 2>; user 0 = <1, 1> may use server 0 only, user 1 = <1, 1> both, 4 tasks each.
    CDRF on the pool <4, 4> grants 0, 1, 0, 1 (equal keys go to the lower index). First fit puts
    the first two on server 0, which is then full: user 0's second grant has no eligible server
    and does not start (placement-unaware); user 1's second goes to server 1:

    >>> s = StaticSlotScheduler([[2, 2], [2, 2]], n_users=2, placement=[[1, 0], [1, 1]],
    ...                         mechanism="cdrf-static")
    >>> _ = s.submit(0, [1, 1], 4, slot=0); _ = s.submit(1, [1, 1], 4, slot=0)
    >>> [(st.user, st.server) for st in s.step(0)], s.unrealised
    ([(0, 0), (1, 0), (1, 1)], 1)
    """

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, mechanism: str = "cdrf-static", server: Any = None) -> None:
        self.mechanism = require_choice("mechanism", mechanism, STATIC_MECHANISMS)
        super().__init__(cluster, n_users=n_users, weights=weights, placement=placement,
                         policy="tsf", server="first_fit" if server is None else server)
        self.h_full = None
        #: Grants that could not be realised (CDRF: no eligible server; TSF: none, by construction).
        self.unrealised = 0

    def _start(self, i: int, m: int, slot: int) -> Start:
        head = self._pending[i][0]
        d = head[0]
        task = head[2]
        head[2] += 1
        head[1] -= 1
        if head[1] == 0:
            self._pending[i].popleft()
        self._n_pending[i] -= 1
        self.servers.take(m, d)
        self.usage[i] += d
        self._started[i] += 1
        self._inv_h_running[i] += 1.0 / head[3]
        self._n_running[i] += 1
        self._running[task] = (i, m, d, head[3])
        return Start(task, i, m, float(slot))

    def step(self, slot: int) -> list[Start]:
        """One static allocation of the free capacity at ``slot``, realised as task starts."""
        slot, active = self._begin_slot(slot)
        out = self._tsf(active, slot) if self.mechanism == "tsf-static" else self._cdrf(active, slot)
        self._decisions += len(out)
        return out

    def _cdrf(self, active: list[int], slot: int) -> list[Start]:
        pool = self.servers.free.sum(axis=0).copy()
        grant = {i: np.zeros(self.cluster.n_resources) for i in active}
        left = {i: self._pending[i][0][1] for i in active}     # head job's pending tasks
        cand = set(active)
        order: list[int] = []
        while cand:
            keys = []
            for i in cand:
                d = self._pending[i][0][0]
                keys.append((float(shares.dominant_shares_after(grant[i], d, self.totals, self.weights[i])), i))
            _, i = min(keys)
            self.rounds += 1
            d = self._pending[i][0][0]
            if shares.tasks_that_fit(pool, d) >= 1:
                pool -= d
                grant[i] += d
                order.append(i)
                left[i] -= 1
                if left[i] == 0:
                    cand.discard(i)
            else:
                cand.discard(i)
        out = []
        for i in order:
            m = self.servers.find(i, self._pending[i][0][0])
            if m < 0:
                self.unrealised += 1
                continue
            out.append(self._start(i, m, slot))
        return out

    def _tsf(self, active: list[int], slot: int) -> list[Start]:
        if not active:
            return []
        D = np.array([self._pending[i][0][0] for i in active])
        K = np.array([self._pending[i][0][1] for i in active], dtype=float)
        h = np.array([self._pending[i][0][3] for i in active])
        w = self.weights[active]
        x = divisible_tsf(self.servers.free, D, K, h, self.placement[active], w)
        self.rounds += 1
        out = []
        base = np.floor(x + 1e-9)
        frac = x - base
        for a, i in enumerate(active):
            for m in np.flatnonzero(base[a] > 0):
                for _ in range(int(base[a, m])):
                    if not self._n_pending[i] or shares.tasks_that_fit(self.servers.free[m], D[a]) < 1:
                        break
                    out.append(self._start(i, int(m), slot))
        # largest remainder: one more task on the pairs with the largest fractional parts
        pairs = [(-frac[a, m], i, int(m), a) for a, i in enumerate(active)
                 for m in np.flatnonzero(frac[a] > 1e-9)]
        for _, i, m, a in sorted(pairs):
            if self._n_pending[i] and np.array_equal(self._pending[i][0][0], D[a]) \
                    and shares.tasks_that_fit(self.servers.free[m], D[a]) >= 1:
                out.append(self._start(i, m, slot))
        return out
