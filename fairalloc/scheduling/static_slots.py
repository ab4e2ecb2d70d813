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
    (the one implementation of divisible TSF, also behind ``fa.tsf(method="lp")``), through
    :func:`scipy.optimize.linprog` (``solver="scipy"``) or on fairalloc's LP route (HiGHS through
    highspy, primal simplex without presolve; with ``point="canonical"``). The leximin shares are unique but the
    fractional tasks reaching them are not, and what is rounded is a point of that optimal face
    (``point=``): by default the vertex ``linprog`` returned (its bundled HiGHS; the stored cells were
    computed so, with HiGHS 1.12; another build may return another vertex, hence another schedule), or
    the **canonical point** (:func:`canonical_point`: the lexicographic maximum of a fixed
    pseudo-random weighting of the pairs, then of the pairs in order; unique, so the schedule does not
    depend on the HiGHS build or the LP method), the LPs then on fairalloc's HiGHS route.
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

__all__ = ["StaticSlotScheduler", "STATIC_MECHANISMS", "TSF_ROUNDINGS", "CDRF_REALISATIONS", "TSF_POINTS",
           "canonical_point", "canonical_weights"]

#: ``mechanism=`` names of :class:`StaticSlotScheduler`.
STATIC_MECHANISMS = ("tsf-static", "cdrf-static")
#: ``rounding=`` readings of the static TSF's realisation (module docstring); the first is the default.
TSF_ROUNDINGS = ("largest_remainder", "floor_server", "floor_user")
#: ``realise=`` readings of the static CDRF's realisation (module docstring); the first is the default.
CDRF_REALISATIONS = ("eligible", "blind")
#: ``point=`` readings of the static TSF: which point of the divisible TSF's optimal face is rounded
#: (:func:`canonical_point`); the first is the default.
TSF_POINTS = ("solver", "canonical")


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
    point : {"solver", "canonical"}, default "solver"
        Which point of the divisible TSF's optimal face is rounded: the vertex
        :func:`scipy.optimize.linprog` returned (its bundled HiGHS; the rule of the stored cells; another
        HiGHS build may return another vertex) or the canonical point (:func:`canonical_point`: one
        point whichever HiGHS solved the LPs, the LPs on fairalloc's HiGHS route). Not the default:
        rounding it starts fewer tasks per slot than rounding linprog's vertex (the static TSF's mean
        completion 0.4-0.9 slots longer on sample 0 of the paper scale, ``benchmarks/RESULTS.md``,
        TV-TSF, fifth pass), a change of the baseline that is the reproduction's to decide; TSF only.

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism, rounding, realisation or point, or a non-default reading of the other
        mechanism (``rounding=`` or ``point=`` with CDRF, ``realise=`` with TSF).

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
                 ties: str = "wait", rounding: str = "largest_remainder", realise: str = "eligible",
                 point: str = "solver") -> None:
        self.mechanism = require_choice("mechanism", mechanism, STATIC_MECHANISMS)
        #: Which point of the divisible TSF's optimal face is rounded (:func:`canonical_point`).
        self.point = require_choice("point", point, TSF_POINTS)
        #: The static TSF's realisation (module docstring).
        self.rounding = require_choice("rounding", rounding, TSF_ROUNDINGS)
        #: The static CDRF's realisation (module docstring).
        self.realise = require_choice("realise", realise, CDRF_REALISATIONS)
        if self.mechanism == "cdrf-static" and self.rounding != TSF_ROUNDINGS[0]:
            raise InvalidInstanceError(f"rounding={rounding!r} applies to tsf-static, not {mechanism!r}",
                                       argument="rounding", value=rounding)
        if self.mechanism == "cdrf-static" and self.point != TSF_POINTS[0]:
            raise InvalidInstanceError(f"point={point!r} applies to tsf-static, not {mechanism!r}",
                                       argument="point", value=point)
        if self.mechanism == "tsf-static" and self.realise != CDRF_REALISATIONS[0]:
            raise InvalidInstanceError(f"realise={realise!r} applies to cdrf-static, not {mechanism!r}",
                                       argument="realise", value=realise)
        super().__init__(cluster, n_users=n_users, weights=weights, placement=placement,
                         policy="tsf", server="first_fit" if server is None else server, ties=ties)
        #: Grants that could not be realised (CDRF: no eligible server; TSF: none, by construction).
        self.unrealised = 0
        #: TSF slots whose LPs were not all proven optimal (the allocation found was used).
        self.lp_not_optimal = 0
        #: TSF slots whose canonical point was not found (an LP not optimal): the LP's own point was rounded.
        self.canonical_failed = 0
        #: The canonical points' LPs and the slots that needed more than one (:func:`canonical_point`).
        self.canonical_lps = 0
        self.canonical_multi = 0
        self.canonical_banded = 0
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
        # point="solver" rounds the LP's own vertex: linprog's, as the stored cells were computed
        route, opts = (_LP_ROUTE, _LP_OPTIONS) if self.point == "canonical" else ("scipy", None)
        r = divisible_tsf(free, D, K, h, self.placement[active], w, solver=route, options=opts)
        if r.status not in SOLUTION_PRESENT:
            raise SolverError(f"slot {slot}: divisible TSF found no allocation ({r.status}): {r.message}")
        if r.status is not Status.OPTIMAL:
            self.lp_not_optimal += 1
        x = r.tasks
        if self.point == "canonical":
            xc, st = canonical_point(free, D, K, h, self.placement[active], w, r.levels, active)
            self.canonical_lps += st["lps"]
            self.canonical_multi += st["lps"] > 1
            self.canonical_banded += st["banded"]
            if xc is None:
                self.canonical_failed += 1
            else:
                x = xc
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


#: The LP route of the static TSF's :func:`~fairalloc.exact.tsf_lp.divisible_tsf` (module docstring);
#: with the canonical point the rounded point does not depend on it (``benchmarks/bench_tsf_lp1.py --cells``).
_LP_ROUTE = "highs"
#: Its HiGHS options: primal simplex without presolve, about 2.6x faster than ``linprog``'s defaults on
#: the paper scale's LP 1s (``benchmarks/RESULTS.md``, TV-TSF, fifth pass).
_LP_OPTIONS = {"presolve": "off", "simplex_strategy": 4}
#: Relative slack of the canonical LP's share rows around the levels (:func:`canonical_point`).
_CANON_SLACK = 1e-8
#: A canonical :math:`x_{im}` this close to an integer is that integer (:func:`canonical_point`).
_CANON_SNAP = 1e-6
#: HiGHS options of the canonical LPs (any HiGHS and any options give the same point: it is unique).
_CANON_OPTIONS = {"presolve": "off", "simplex_strategy": 4}
#: A reduced cost or row dual at most this counts as zero in the uniqueness certificate.
_CANON_TOL = 1e-9


def canonical_weights(users: Any, n_servers: int) -> np.ndarray:
    r"""The canonical point's weights (:func:`canonical_point`): :math:`c_{um} = 1 + z / 2^{64}`, :math:`z` the
    SplitMix64 output (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014)
    of the pair's number :math:`m + M u` (:math:`u` the scheduler's user index, :math:`m` the server,
    :math:`M` the number of servers), its top 53 bits.

    Fixed pseudo-random weights in :math:`[1, 2)`: a pair's weight does not depend on which other users
    are in the slot, and no small integer relation holds among them (weights additive in the user and
    the server, such as a Weyl sequence of :math:`m + M u`, would tie every exchange of two users between
    two servers: :math:`c_{um} - c_{um'} - c_{u'm} + c_{u'm'} = 0`).

    Examples
    --------
    >>> canonical_weights([0, 1], 2).round(6).tolist()
    [[1.883311, 1.566562], [1.59119, 1.11345]]
    """
    z = (np.asarray(users, dtype=np.uint64)[:, None] * np.uint64(n_servers)
         + np.arange(n_servers, dtype=np.uint64)[None, :])
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return 1.0 + (z >> np.uint64(11)).astype(float) * 2.0 ** -53


def canonical_point(capacities: Any, demands: Any, pending: Any, monopoly: Any, eligible: Any, weights: Any,
                    levels: Any, users: Any = None, *, cost: Any = None) -> tuple[np.ndarray | None, dict]:
    r"""The one point of the divisible TSF's optimal face that the static TSF rounds.

    :func:`fairalloc.exact.tsf_lp.divisible_tsf` finds the leximin task shares :math:`\ell_i`; they are
    unique (the leximin of a convex set is), but the fractional tasks :math:`x_{im}` that reach them
    are not: the optimal face

    .. math::

       P = \{x \ge 0 \text{ on the eligible pairs}:\ \textstyle\sum_i d_{ir} x_{im} \le F_{mr}(1 + \delta),\
       X_i = \sum_m x_{im} \le K_i,\ X_i = \ell_i \omega_i h_i\}

    is in general a polytope with many vertices (a user with room on two servers, two users
    exchanging servers), and an LP solver returns one of them, which one depending on its version
    and its start. The static TSF rounds :math:`x`, so without a rule its schedule depends on the
    HiGHS build. **The rule**: the canonical point is the lexicographic maximum over *P* of

    .. math::

       \bigl(\textstyle\sum_{i,m} c_{im} x_{im},\ x_{p_1},\ x_{p_2},\ \dots,\ x_{p_n}\bigr)

    with :math:`c` the fixed weights of :func:`canonical_weights` and :math:`p_1, \dots, p_n` the
    eligible pairs in order (users as given, servers ascending).

    **It is unique.** *P* is compact and nonempty (the divisible TSF's own solution is in it), so each
    stage's maximum over the previous stage's maximisers is attained on a nonempty compact face; after
    the stage of :math:`x_{p_k}` every maximiser has the same :math:`x_{p_k}`, so after the last stage
    all coordinates are fixed: one point.

    **How it is found, and why usually one LP.** Stage 0 maximises :math:`c \cdot x` over *P* (HiGHS
    through highspy). Let :math:`y` be the optimal row duals and :math:`r` the reduced costs of the
    optimal basis. Every feasible *x* has :math:`c\cdot x = z^\ast - \sum_{j \notin B} |r_j|\,
    |x_j - \beta_j|` (:math:`\beta_j` the bound a nonbasic column or row activity sits at), so when every
    nonbasic column and row that is not fixed has :math:`|r_j| > 0` (dual nondegeneracy), every
    maximiser has the nonbasic values at their bounds, hence the same basic values: the maximiser is
    unique, and it is the lexicographic maximum (the later stages have one point to choose from).
    With the weights generic this certificate holds almost always. When it does not, the face of
    maximisers is restricted exactly by complementary slackness (columns with :math:`r_j \ne 0` fixed at
    their bound, rows with :math:`y_i \ne 0` made equalities: a feasible point satisfying complementary
    slackness with an optimal dual is optimal, and every optimal point does), and the next stage
    maximises the next pair's :math:`x_{p_k}` on it, from the previous basis, until a stage is
    certified or the pairs run out.

    Numerically, "zero" is :data:`_CANON_TOL`; the share rows are equalities
    :math:`X_i = \min(K_i, \ell_i \omega_i h_i)` and the capacities are relaxed by
    :math:`\delta` = :data:`_CANON_SLACK` relative. The levels are LP optima, each round's computed
    with the earlier rounds' levels relaxed by :math:`10^{-9}` relative, so all of them at once can
    exceed the capacities by about that much (measured: the exact capacities made about half of the
    reduced large50 cell's faces infeasible to HiGHS); the rounding checks that each task fits.
    Equalities, not a band around the levels, so that the weights cannot trade one user's tasks for
    another's inside the band: users tied in the LP stay tied, and the rounding's tie rule decides
    between them. Should HiGHS still find the face infeasible, the share rows become the band
    :math:`\pm\delta` (counted: ``banded``). The relaxed capacities let a user's tasks drift by about
    :math:`\delta` times a server's capacity in tasks from one server to another (1 task and
    0.99999998 instead of 2 and 1), so the point is returned with every :math:`x_{im}` within
    :data:`_CANON_SNAP` of an integer set to it. Two HiGHS builds give the same point to the solver's
    tolerances, where their LP 1 vertices can differ by whole tasks.

    Parameters
    ----------
    capacities, demands, pending, monopoly, eligible, weights
        As :func:`~fairalloc.exact.tsf_lp.divisible_tsf` (already validated by it).
    levels : array_like (N,)
        Its ``levels``.
    users : array_like (N,), optional
        The scheduler's index of each row (for the weights; default ``0..N-1``).
    cost : array_like (N, M), optional
        Other stage-0 weights than :func:`canonical_weights` (tests: equal weights exercise the later
        stages).

    Returns
    -------
    x : ndarray (N, M) or None
        The canonical point (zero off the eligible pairs); None when an LP was not solved to
        optimality (the caller keeps the divisible TSF's own point and counts it).
    stats : dict
        ``lps`` (LPs solved, 1 when stage 0 is certified), ``stages`` (of the last attempt), ``banded``
        (the equalities were infeasible to HiGHS: the band was used).

    Examples
    --------
    Two equal servers <2, 2> and one user <1, 1> asking for 2 tasks, :math:`h = 4` (the full cluster's):
    its level 2/4 is reached by any :math:`x_{00} + x_{01} = 2`. The weights are
    :math:`c_{00} = 1.883 > c_{01} = 1.567` (:func:`canonical_weights`): both tasks on server 0.

    >>> x, st = canonical_point([[2, 2], [2, 2]], [[1, 1]], [2], [4], [[1, 1]], [1], [0.5])
    >>> x.round(9).tolist(), st["lps"]
    ([[2.0, 0.0]], 1)
    """
    import scipy.sparse as sp

    F = np.asarray(capacities, dtype=float)
    D = np.asarray(demands, dtype=float)
    n, m = D.shape[0], F.shape[0]
    k = F.shape[1]
    K = np.asarray(pending, dtype=float)
    wh = np.asarray(weights, dtype=float) * np.asarray(monopoly, dtype=float)
    lv = np.asarray(levels, dtype=float)
    E = np.asarray(eligible, dtype=bool) & (F > 0).all(axis=1)[None, :]
    ui, si = np.nonzero(E)
    nv = ui.size
    x = np.zeros((n, m))
    if nv == 0:
        return x, {"lps": 0, "stages": 0, "banded": False}
    c = canonical_weights(np.arange(n) if users is None else users, m) if cost is None else np.asarray(cost, float)
    target = np.minimum(K, lv * wh)
    rows = np.concatenate([(si[:, None] * k + np.arange(k)).ravel(), m * k + ui])
    cols = np.concatenate([np.repeat(np.arange(nv), k), np.arange(nv)])
    vals = np.concatenate([D[ui].ravel(), np.ones(nv)])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(m * k + n, nv))
    lps = 0
    banded = False
    cap = F.ravel() * (1 + _CANON_SLACK)
    for band in (0.0, _CANON_SLACK):
        xs, st = _canonical_lps(A, np.concatenate([np.full(m * k, -np.inf), target * (1 - band)]),
                                np.concatenate([cap, np.maximum(target * (1 - band), np.minimum(K, target * (1 + band)))]),
                                -c[ui, si])
        lps += st["lps"]
        if xs is not None:
            break
        banded = True
    if xs is None:
        return None, {"lps": lps, "stages": st["stages"], "banded": banded}
    xs = np.maximum(xs, 0.0)
    near = np.rint(xs)
    x[ui, si] = np.where(np.abs(xs - near) <= _CANON_SNAP, near, xs)
    return x, {"lps": lps, "stages": st["stages"], "banded": banded}


def _canonical_lps(A: Any, row_lo: np.ndarray, row_hi: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray | None, dict]:
    """The stages of :func:`canonical_point` on ``row_lo <= A x <= row_hi``, ``x >= 0``, stage 0 minimising
    ``cost @ x``: the point (None when a stage is not solved to optimality) and the LPs solved."""
    import highspy

    from ..exact.backends import highs_arrays
    from ..exact.solvers import highs_threads, quiet_highs

    nv = A.shape[1]
    h = quiet_highs()
    highs_threads(h, None)
    for key, value in _CANON_OPTIONS.items():
        h.setOptionValue(key, value)
    h.passModel(highs_arrays(cost, np.zeros(nv), np.full(nv, np.inf), A, row_lo, row_hi))
    basic = highspy.HighsBasisStatus.kBasic.value
    col_fixed = np.zeros(nv, dtype=bool)
    row_fixed = row_lo == row_hi           # equality rows: any dual is fine
    lps = 0
    stage, pair = 0, -1
    while True:
        if stage:                          # the next pair's x on the face of the previous stages' maximisers
            pair += 1
            while pair < nv and col_fixed[pair]:
                pair += 1
            if pair == nv:
                break
            cost_now = np.zeros(nv)
            cost_now[pair] = -1.0
            h.changeColsCost(nv, np.arange(nv, dtype=np.int32), cost_now)
        stage += 1
        h.run()
        lps += 1
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None, {"lps": lps, "stages": stage}
        sol, basis = h.getSolution(), h.getBasis()
        xs = np.asarray(sol.col_value)
        rc, y = np.asarray(sol.col_dual), np.asarray(sol.row_dual)
        cnb = np.array([s.value != basic for s in basis.col_status])
        rnb = np.array([s.value != basic for s in basis.row_status])
        # dual nondegeneracy: every nonbasic column and row that is not fixed has a nonzero reduced cost
        if not ((cnb & ~col_fixed & (np.abs(rc) <= _CANON_TOL)).any()
                or (rnb & ~row_fixed & (np.abs(y) <= _CANON_TOL)).any()):
            break
        # the face of this stage's maximisers, by complementary slackness with (y, r)
        fix_c = np.flatnonzero(~col_fixed & (np.abs(rc) > _CANON_TOL))
        if fix_c.size:
            h.changeColsBounds(fix_c.size, fix_c.astype(np.int32), np.zeros(fix_c.size), np.zeros(fix_c.size))
            col_fixed[fix_c] = True
        fix_r = np.flatnonzero(~row_fixed & (np.abs(y) > _CANON_TOL))
        if fix_r.size:
            act = np.asarray(sol.row_value)[fix_r]
            at = np.where(np.abs(act - row_hi[fix_r]) <= np.abs(act - row_lo[fix_r]), row_hi[fix_r], row_lo[fix_r])
            h.changeRowsBounds(fix_r.size, fix_r.astype(np.int32), at, at)
            row_fixed[fix_r] = True
    return xs, {"lps": lps, "stages": stage}


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
