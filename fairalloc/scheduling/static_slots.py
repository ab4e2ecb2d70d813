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
    not fit is done for the slot. This is TV-TSF's Algorithm 2 loop with CDRF's key on a single
    server, the pool (:func:`~fairalloc.scheduling.tvtsf.fill_slot_arrays`, the one compiled
    implementation, with the grants from 0 as the usage and the cluster's totals). Realisation: the granted tasks, in grant order, go to the first
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

from typing import Any

import numpy as np

from .. import shares
from .._jit import jit
from ..exact.tsf_lp import divisible_tsf
from ..result import SOLUTION_PRESENT, Status
from ..validation import require_choice
from ..errors import InvalidInstanceError, SolverError
from ._base import Start
from .online_slots import OnlineSlotScheduler
from .servers import FreeCapacity, find_server
from .tvtsf import _EPS, DOMINANT_AFTER, SlotFill, fill_slot_arrays

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
        return self._last_started == 0 and not self._n_running.any() and self.has_pending

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
        self._task_server[task] = m
        return Start(task, i, m, float(slot))

    def step(self, slot: int) -> list[Start]:
        """One static allocation of the free capacity at ``slot``, realised as task starts."""
        task, user, server = self.step_arrays(slot)
        t = float(self.slot)
        return [Start(a, i, m, t) for a, i, m in zip(task.tolist(), user.tolist(), server.tolist())]

    def step_arrays(self, slot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`step`, the starts as arrays ``(task, user, server)`` in order."""
        slot, active = self._begin_slot(slot)
        if self.mechanism == "tsf-static":
            task, user, server = self._tsf(active, slot)
        else:
            task, user, server = self._cdrf(active, slot)
        self._last_started = task.size
        return task, user, server

    def _cdrf(self, active: list[int], slot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        empty = np.zeros(0, dtype=np.int64)
        if not active:
            return empty, empty, empty
        # the grants: Algorithm 2's loop (fill_slot_arrays) on one pool, the sum of the free
        # capacities, each user asking for its head job's tasks, keyed by the weighted dominant share
        # of its slot's grants after the next task (grants from 0; shares of the cluster's totals)
        k = self.totals.size
        pool = FreeCapacity(self.servers.free.sum(axis=0)[None, :], np.ones((self.n_users, 1), dtype=bool),
                            "first_fit")
        jobs = {i: [(self._pending[i][0][0], self._pending[i][0][1], 1.0, self._tie(i))] for i in active}
        f = fill_slot_arrays(pool, jobs, kind=DOMINANT_AFTER, usage=np.zeros((self.n_users, k)),
                             weights=self.weights, totals=self.totals)
        self.rounds += f.rounds
        order = f.user
        self.granted += order.size
        if self.realise == "blind" or self.servers.rule_id < 0:
            out = []
            for i in order.tolist():
                m = self._blind_server(i) if self.realise == "blind" else self.servers.find(i, self._pending[i][0][0])
                if m < 0:
                    self.unrealised += 1
                    continue
                out.append(self._start(i, m, slot))
            self._decisions += len(out)
            return (np.array([st.task for st in out], dtype=np.int64), np.array([st.user for st in out], dtype=np.int64),
                    np.array([st.server for st in out], dtype=np.int64))
        # realisation: each grant, in grant order, on the server the rule picks among the eligible ones
        # where it fits (compiled: FreeCapacity.find's rule, one task taken at a time)
        demand = np.zeros((self.n_users, k))
        pos = np.zeros(self.n_users, dtype=np.int64)      # each user's head job among the active users' jobs
        p = 0
        for i in active:
            demand[i] = self._pending[i][0][0]
            pos[i] = p
            p += len(self._pending[i])
        free = np.array(self.servers.free, dtype=float)
        usage = self.usage.copy()
        ms = np.empty(order.size, dtype=np.int64)
        _realise(order, demand, free, self.placement, self.servers.rule_id, self.servers.totals, _EPS,
                 np.zeros(k), usage, ms)
        self.servers.assign(free)
        ok = ms >= 0
        self.unrealised += int(order.size - ok.sum())
        user = order[ok]
        return self._record(SlotFill(0, user, ms[ok], pos[user], None, usage), dict.fromkeys(active))

    def _blind_server(self, i: int) -> int:
        """``realise="blind"``: the first server where user ``i``'s head task fits, placement ignored;
        -1 when there is none or the user may not run there (the grant fails)."""
        ok = shares.task_fits_rows(self.servers.free, np.asarray(self._pending[i][0][0], dtype=float))
        if not ok.any():
            return -1
        m = int(np.argmax(ok))
        return m if self.placement[i, m] else -1

    def _tsf(self, active: list[int], slot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not active:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
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
        base = np.floor(x + 1e-9)
        frac = x - base
        if self.rounding == "floor_user":
            out = []
            for a, i in enumerate(active):
                for m in np.flatnonzero(base[a] > 0):
                    for _ in range(int(base[a, m])):
                        if not self._n_pending[i] or shares.tasks_that_fit_one(self.servers.free[m], D[a]) < 1:
                            break
                        out.append(self._start(i, int(m), slot))
            out = out + self._floor_user(active, x, base, frac, D, slot, out)
            self._decisions += len(out)
            return (np.array([st.task for st in out], dtype=np.int64), np.array([st.user for st in out], dtype=np.int64),
                    np.array([st.server for st in out], dtype=np.int64))
        # per active user: its head job's position among the active users' pending jobs, and the tasks
        # that can start with the head's demand: the head's, then those of the following jobs of the
        # same demand (a start takes the head task; a remainder starts only while the head's demand
        # is the one the LP divided)
        n_act = len(active)
        pos = np.zeros(n_act, dtype=np.int64)
        avail = np.zeros(n_act, dtype=np.int64)
        head = np.zeros(n_act, dtype=np.int64)
        p = 0
        for a, i in enumerate(active):
            q = self._pending[i]
            pos[a] = p
            head[a] = q[0][1]
            p += len(q)
            c = 0
            for job in q:
                if c and not np.array_equal(job[0], D[a]):
                    break
                c += job[1]
            avail[a] = c
        # the floors first, users in order, servers ascending; then (largest remainder) one more task on
        # the pairs by decreasing fractional part, equal parts by the tie rule, the user, the server
        if self.rounding == "largest_remainder":
            pa, pm = np.nonzero(frac > 1e-9)
            tie = np.array([self._tie(i) for i in active], dtype=float)
            act = np.asarray(active, dtype=np.int64)
            o = np.lexsort((pm, act[pa], tie[pa], -frac[pa, pm]))
            pa, pm = pa[o], pm[o]
        else:
            pa = pm = np.zeros(0, dtype=np.int64)
        free = np.array(self.servers.free, dtype=float)
        usage = self.usage.copy()
        out_a = np.empty(int(avail.sum()), dtype=np.int64)
        out_m = np.empty_like(out_a)
        n = _round(base.astype(np.int64), D, avail, pa, pm, np.asarray(active, dtype=np.int64), free, usage, _EPS,
                   out_a, out_m)
        self.servers.assign(free)
        out_a, out_m = out_a[:n], out_m[:n]
        # each start's job position: the head's, past it for the starts beyond the head's tasks
        job = pos[out_a]
        for a in np.flatnonzero(np.bincount(out_a, minlength=n_act) > head).tolist():
            q = self._pending[active[a]]
            idx = np.flatnonzero(out_a == a)
            job[idx] = pos[a] + np.searchsorted(np.cumsum([jb[1] for jb in q]), np.arange(idx.size), side="right")
        user = np.asarray(active, dtype=np.int64)[out_a]
        return self._record(SlotFill(0, user, out_m, job, None, usage), dict.fromkeys(active))

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


@jit(_nrt=False)
def _realise(users, demand, free, placement, rule, totals, eps, scratch, usage, out_server):
    """Per grant in order: the server of ``rule`` for one task of ``demand[i]`` (:func:`find_server`;
    -1: none), its capacity taken and the user's usage grown there."""
    for a in range(users.shape[0]):
        i = users[a]
        m = find_server(free, demand[i], placement[i], rule, totals, eps, scratch)
        out_server[a] = m
        if m >= 0:
            for r in range(free.shape[1]):
                free[m, r] -= demand[i, r]
                usage[i, r] += demand[i, r]


_fits = jit(shares.task_fits_row)


@jit(_nrt=False)
def _round(base, demand, avail, pa, pm, users, free, usage, eps, out_a, out_m):
    """The static TSF's realisation: per active user ``a`` (in order) and server ``m`` (ascending),
    ``base[a, m]`` tasks while the user has tasks (``avail``) and one fits (:func:`fairalloc.shares.task_fits_row`);
    then one task on each pair ``(pa, pm)`` in that order under the same conditions. Each start takes its
    capacity and grows the user's usage; returns the number of starts (``out_a``, ``out_m``)."""
    n = 0
    for a in range(base.shape[0]):
        for m in range(base.shape[1]):
            for _ in range(base[a, m]):
                if avail[a] == 0 or not _fits(free[m], demand[a], eps):
                    break
                n = _take(a, m, demand, avail, users, free, usage, out_a, out_m, n)
    for p in range(pa.shape[0]):
        a = pa[p]
        m = pm[p]
        if avail[a] > 0 and _fits(free[m], demand[a], eps):
            n = _take(a, m, demand, avail, users, free, usage, out_a, out_m, n)
    return n


@jit(_nrt=False)
def _take(a, m, demand, avail, users, free, usage, out_a, out_m, n):
    """One start of active user ``a`` on server ``m`` (:func:`_round`); the new number of starts."""
    i = users[a]
    for r in range(free.shape[1]):
        free[m, r] -= demand[a, r]
        usage[i, r] += demand[a, r]
    avail[a] -= 1
    out_a[n] = a
    out_m[n] = m
    return n + 1
