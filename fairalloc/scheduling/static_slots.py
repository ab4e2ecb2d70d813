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
    *full* capacities, as the cluster defines it. Solved by :func:`fairalloc.exact.tsf_lp.divisible_tsf`
    (the one implementation of divisible TSF, also behind ``fa.tsf(method="lp")``) with
    ``solver="scipy"`` (:func:`scipy.optimize.linprog` directly: no cvxpy compile in the slot loop).
    A slot whose LPs are not all proven optimal still uses the allocation found (counted in
    :attr:`StaticSlotScheduler.lp_not_optimal`); a slot with no LP solution raises
    :class:`~fairalloc.errors.SolverError`.
    Realisation (``rounding=``; Table 1 does not say how a divisible allocation becomes tasks):

    ``"largest_remainder"`` (default)
        :math:`\lfloor x_{im} \rfloor` tasks of *i* on *m*, then one more task on the pairs with the
        largest fractional parts (largest remainder; equal parts by the tie rule, then the server
        index) while it fits: the rounding that keeps a slot from starting nothing when every
        :math:`x_{im} < 1`.
    ``"floor_server"``
        :math:`\lfloor x_{im} \rfloor` tasks of *i* on *m* and nothing more. When every
        :math:`x_{im} < 1` and no task runs, nothing ever starts again (the slot's LP sees the same
        free capacity and the same users): a **deadlock**, which lasts until the next arrival (see
        :attr:`StaticSlotScheduler.stalled`).
    ``"floor_user"``
        :math:`\lfloor X_i \rfloor` tasks of *i* in all (:math:`X_i = \sum_m x_{im}`): the
        :math:`\lfloor x_{im} \rfloor`, then the user's remaining tasks one at a time on its servers
        by decreasing fractional part (equal parts: the server index) where they fit; no user gets
        more than its floored total.

    The two floors are wasteful readings (capacity the LP allocated stays idle for the slot); they
    exist to measure how much of a margin against TSF is rounding loss.
``"cdrf-static"`` (placement-unaware, indivisible, duration-unaware)
    CDRF [3]_ (sequential min-max of dominant shares for indivisible tasks) on **one pool**: the
    sum of the free capacities of all servers, placement and server boundaries ignored. Repeatedly
    the user with pending tasks whose dominant share of the slot's allocation *after* its next
    task, :math:`\max_r (a_{ir} + d_{ir}) / C_r / \omega_i` (:math:`C_r` cluster totals), is
    smallest (equal keys: the tie rule) gets a task if it fits in the pool; a user whose next task does
    not fit is done for the slot. Realisation: the granted tasks, in grant order, go to the first
    eligible server where they fit (``server=`` rule, default first fit); a grant that fits on no
    eligible server does not start (the pool said it fits; the servers and placement disagree).
    Realisation (``realise=``): ``"eligible"`` (default) as just said; ``"blind"``: the grant goes to
    the first server where it fits, *placement ignored* (the mechanism does not know it), and fails
    when the user may not run there (counted in :attr:`StaticSlotScheduler.unrealised`, the task
    stays pending): a wasteful reading, which can also deadlock (a lone user whose first-fit server
    is forbidden to it never starts).

Ties, as in every slot scheduler (``ties=``, :mod:`fairalloc.scheduling.online_slots`): ``"wait"``
(default) prefers the user whose oldest pending task was submitted for the earliest slot, then the
lower index; ``"index"`` the lower index only.

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

import heapq
from typing import Any

import numpy as np

from .. import shares
from ..exact.tsf_lp import divisible_tsf
from ..result import SOLUTION_PRESENT, Status
from ..validation import require_choice
from ..errors import InvalidInstanceError, SolverError
from ._base import Start
from .online_slots import OnlineSlotScheduler

__all__ = ["StaticSlotScheduler", "STATIC_MECHANISMS", "TSF_ROUNDINGS", "CDRF_REALISATIONS"]

#: ``mechanism=`` names of :class:`StaticSlotScheduler`.
STATIC_MECHANISMS = ("tsf-static", "cdrf-static")
#: ``rounding=`` readings of the static TSF's realisation (module docstring); the first is the default.
TSF_ROUNDINGS = ("largest_remainder", "floor_server", "floor_user")
#: ``realise=`` readings of the static CDRF's realisation (module docstring); the first is the default.
CDRF_REALISATIONS = ("eligible", "blind")


class StaticSlotScheduler(OnlineSlotScheduler):
    """TSF / CDRF as TV-TSF Table 1 describes them, one static allocation per slot (module docstring).

    Parameters
    ----------
    cluster, n_users, weights, placement
        As :class:`~fairalloc.scheduling.online_slots.OnlineSlotScheduler`.
    mechanism : {"tsf-static", "cdrf-static"}
    server : str or callable, optional
        Server rule realising CDRF's pooled grants (default ``"first_fit"``); unused by TSF.
    ties : {"wait", "index"}, default "wait"
        Among equal keys (CDRF) or equal fractional parts (TSF's largest remainders): the user whose
        oldest pending task was submitted for the earliest slot, then the lower index; or the
        index only.
    rounding : {"largest_remainder", "floor_server", "floor_user"}, default "largest_remainder"
        How the static TSF's divisible allocation becomes tasks (module docstring); TSF only.
    realise : {"eligible", "blind"}, default "eligible"
        Where the static CDRF's grants go (module docstring); CDRF only.

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism, rounding or realisation, or a non-default reading of the other
        mechanism (``rounding=`` with CDRF, ``realise=`` with TSF).

    Examples
    --------
    Two servers <2, 2>; user 0 = <1, 1> may use server 0 only, user 1 = <1, 1> both, 4 tasks each.
    CDRF on the pool <4, 4> grants 0, 1, 0, 1 (equal keys, equal submission slots: the lower index). First fit puts
    the first two on server 0, which is then full: user 0's second grant has no eligible server
    and does not start (placement-unaware); user 1's second goes to server 1:

    >>> s = StaticSlotScheduler([[2, 2], [2, 2]], n_users=2, placement=[[1, 0], [1, 1]],
    ...                         mechanism="cdrf-static")
    >>> _ = s.submit(0, [1, 1], 4, slot=0); _ = s.submit(1, [1, 1], 4, slot=0)
    >>> [(st.user, st.server) for st in s.step(0)], s.unrealised
    ([(0, 0), (1, 0), (1, 1)], 1)
    """

    def __init__(self, cluster: Any, /, *, n_users: int | None = None, weights: Any = None,
                 placement: Any = None, mechanism: str = "cdrf-static", server: Any = None,
                 ties: str = "wait", rounding: str = "largest_remainder", realise: str = "eligible") -> None:
        self.mechanism = require_choice("mechanism", mechanism, STATIC_MECHANISMS)
        #: The static TSF's realisation (module docstring).
        self.rounding = require_choice("rounding", rounding, TSF_ROUNDINGS)
        #: The static CDRF's realisation (module docstring).
        self.realise = require_choice("realise", realise, CDRF_REALISATIONS)
        if self.mechanism == "cdrf-static" and self.rounding != TSF_ROUNDINGS[0]:
            raise InvalidInstanceError(f"rounding={rounding!r} applies to tsf-static, not {mechanism!r}",
                                       argument="rounding", value=rounding)
        if self.mechanism == "tsf-static" and self.realise != CDRF_REALISATIONS[0]:
            raise InvalidInstanceError(f"realise={realise!r} applies to cdrf-static, not {mechanism!r}",
                                       argument="realise", value=realise)
        super().__init__(cluster, n_users=n_users, weights=weights, placement=placement,
                         policy="tsf", server="first_fit" if server is None else server, ties=ties)
        #: Grants that could not be realised (CDRF: no eligible server; TSF: none, by construction).
        self.unrealised = 0
        #: TSF slots whose LPs were not all proven optimal (the allocation found was used).
        self.lp_not_optimal = 0
        #: Tasks the CDRF pool granted (started or not: :attr:`unrealised` of them did not start).
        self.granted = 0
        #: Sum over slots of the static TSF's divisible tasks :math:`\sum_{i,m} x_{im}` (what the LP
        #: allocated; against :attr:`decisions`, the tasks started, it measures the rounding).
        self.lp_tasks = 0.0
        self._last_started = -1          # tasks the last step started (-1: no step yet)

    @property
    def stalled(self) -> bool:
        """True when the last slot started nothing, no task runs and tasks are pending: every later slot
        sees the same free capacity and the same users, so a static mechanism starts nothing again
        until a task arrives (a deadlock when none will). The default readings start a task whenever
        one fits on an empty cluster; the floors and the placement-blind CDRF need not."""
        return self._last_started == 0 and not self._running and self.has_pending

    def _tie(self, i: int) -> int:
        """Tie value of user ``i`` (smaller first, then the index): its head job's submission slot."""
        return self._pending[i][0][4] if self.ties == "wait" else 0

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
        self._last_started = len(out)
        return out

    def _cdrf(self, active: list[int], slot: int) -> list[Start]:
        # pool, grants and keys as lists of floats: the same IEEE additions, subtractions and
        # divisions as on arrays, without NumPy's overhead on a K-vector once per grant
        pool = self.servers.free.sum(axis=0).tolist()
        totals = self.totals.tolist()
        heads = {i: self._pending[i][0][0].tolist() for i in active}     # head job's demand
        grant = {i: [0.0] * len(totals) for i in active}
        left = {i: self._pending[i][0][1] for i in active}     # head job's pending tasks
        # only the granted user's key changes: a heap of (key, tie, index), the granted user pushed back
        heap = [(self._cdrf_key(grant[i], heads[i], totals, i), self._tie(i), i) for i in active]
        heapq.heapify(heap)
        order: list[int] = []
        while heap:
            _, tie, i = heapq.heappop(heap)
            self.rounds += 1
            d = heads[i]
            if shares.task_fits(pool, d):
                pool = [p - x for p, x in zip(pool, d)]
                grant[i] = [g + x for g, x in zip(grant[i], d)]
                order.append(i)
                left[i] -= 1
                if left[i]:
                    heapq.heappush(heap, (self._cdrf_key(grant[i], d, totals, i), tie, i))
        out = []
        self.granted += len(order)
        blind = self.realise == "blind"
        for i in order:
            m = self._blind_server(i) if blind else self.servers.find(i, self._pending[i][0][0])
            if m < 0:
                self.unrealised += 1
                continue
            out.append(self._start(i, m, slot))
        return out

    def _blind_server(self, i: int) -> int:
        """``realise="blind"``: the first server where user ``i``'s head task fits, placement ignored;
        -1 when there is none or the user may not run there (the grant fails)."""
        ok = shares.task_fits_rows(self.servers.free, np.asarray(self._pending[i][0][0], dtype=float))
        if not ok.any():
            return -1
        m = int(np.argmax(ok))
        return m if self.placement[i, m] else -1

    def _cdrf_key(self, grant: list, demand: list, totals: list, i: int) -> float:
        """CDRF's key of user ``i``: its weighted dominant share of the slot's grants after its next task."""
        return float(shares.dominant_share_after_one(grant, demand, totals, self.weights[i]))

    def _tsf(self, active: list[int], slot: int) -> list[Start]:
        if not active:
            return []
        D = np.array([self._pending[i][0][0] for i in active])
        K = np.array([self._pending[i][0][1] for i in active], dtype=float)
        h = np.array([self._pending[i][0][3] for i in active])
        w = self.weights[active]
        # free capacity is this scheduler's own bookkeeping: a round-off residue below 0 after take /
        # release is no capacity, as shares.tasks_that_fit reads it
        free = np.maximum(self.servers.free, 0.0)
        r = divisible_tsf(free, D, K, h, self.placement[active], w, solver="scipy")
        if r.status not in SOLUTION_PRESENT:
            raise SolverError(f"slot {slot}: divisible TSF found no allocation ({r.status}): {r.message}")
        if r.status is not Status.OPTIMAL:
            self.lp_not_optimal += 1
        x = r.tasks
        self.lp_tasks += float(x.sum())
        self.rounds += 1
        out = []
        base = np.floor(x + 1e-9)
        frac = x - base
        for a, i in enumerate(active):
            for m in np.flatnonzero(base[a] > 0):
                for _ in range(int(base[a, m])):
                    if not self._n_pending[i] or shares.tasks_that_fit_one(self.servers.free[m], D[a]) < 1:
                        break
                    out.append(self._start(i, int(m), slot))
        if self.rounding == "floor_server":
            return out
        if self.rounding == "floor_user":
            return out + self._floor_user(active, x, base, frac, D, slot, out)
        # largest remainder: one more task on the pairs with the largest fractional parts
        # (a user whose every pending task started on the floors has no remainder to place: the LP's
        # x may exceed its task count by the solver's feasibility tolerance, HiGHS 1e-7)
        pairs = [(-frac[a, m], self._tie(i), i, int(m), a) for a, i in enumerate(active) if self._n_pending[i]
                 for m in np.flatnonzero(frac[a] > 1e-9)]
        for _, _, i, m, a in sorted(pairs):
            if self._n_pending[i] and np.array_equal(self._pending[i][0][0], D[a]) \
                    and shares.tasks_that_fit_one(self.servers.free[m], D[a]) >= 1:
                out.append(self._start(i, m, slot))
        return out

    def _floor_user(self, active: list[int], x: np.ndarray, base: np.ndarray, frac: np.ndarray, D: np.ndarray,
                    slot: int, started: list[Start]) -> list[Start]:
        r"""``rounding="floor_user"``: after the per-server floors, each user's remaining tasks up to
        :math:`\lfloor X_i \rfloor` on its servers by decreasing fractional part (then index)."""
        out = []
        done = {}
        for st in started:
            done[st.user] = done.get(st.user, 0) + 1
        for a, i in enumerate(active):
            left = int(np.floor(x[a].sum() + 1e-9)) - done.get(i, 0)
            for m in sorted(np.flatnonzero(frac[a] > 1e-9).tolist(), key=lambda m: (-frac[a, m], m)):
                if left <= 0 or not self._n_pending[i] or not np.array_equal(self._pending[i][0][0], D[a]):
                    break
                if shares.tasks_that_fit_one(self.servers.free[m], D[a]) >= 1:
                    out.append(self._start(i, m, slot))
                    left -= 1
        return out
