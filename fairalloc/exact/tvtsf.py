r"""The TV-TSF integer program (Li and Wang 2024, Eq. 10) with the errata fixed, offline and per slot.

Variables :math:`x_{imt} \in \mathbb{N}`: tasks of user *i* **started** on server *m* in slot *t*
(created only where :math:`p_{im} = 1`, a task of :math:`d_i(t)` fits on *m*, and user *i* has
submitted something by *t*; so :math:`x_{im}(t) = 0` where :math:`p_{im} = 0`, as the errata ask).

.. math::

   \max\ \operatorname{lex}\ \big(s_i(T)\big)_i, \qquad
   s_i(T) = \frac{\sum_{t\le T}\sum_m x_{imt}}{\sum_{t \le T} \omega_i(t) h_i(t)}
   \quad\text{(Eq. 3)}

subject to

* (10b) every task still running holds its resources: for all *m, r, t*,
  :math:`\sum_i \sum_{\tau = t-e_i+1}^{t} d_{ir}(\tau)\, x_{im\tau} \le C_{mr}` (tasks started late in
  the horizon count for the slots they run inside it; the paper's :math:`e_r` read as :math:`e_i`);
* (errata) tasks started never exceed tasks submitted so far:
  :math:`\sum_m \sum_{\tau\le t} x_{im\tau} \le \sum_{\tau\le t} B_i(\tau)` for all *i, t*;
* (10c) integrality.

``objective="maxmin"`` is the paper's single max-min (maximise *s* with :math:`s_i(T) \ge s`; not
Pareto-efficient in general, the optimum is not unique); ``objective="leximin"`` is the sequential
max-min of :mod:`fairalloc.exact.leximin`, which is what Theorem 3 (Pareto optimality) needs.

**The share in the objective.** (10a) as printed sums :math:`x_i(\tau) / (h_i(\tau)\omega_i(\tau))`
slot by slot, while the paper defines the cumulative task share by Eq. 3 as a ratio of sums. With
:math:`h_i` and :math:`\omega_i` constant in time both give the same optimum (they differ by the
common factor *T*); when they vary, fairalloc maximises Eq. 3, the definition the paper's fairness
properties and :func:`fairalloc.shares.cumulative_task_shares` use.

Rows that cannot bind are not generated: capacity rows at slots where no task can start on that
server (the running set only shrinks), rows whose every variable at its bound still fits, and
demand rows at slots followed by no new submission (implied by the next one).

``method="milp-online"`` (:func:`tvtsf_online`) solves slot by slot with the past fixed, which is what
an online system can do: at slot *t* it maximises (lexicographically) the cumulative shares
:math:`s_i(t)` using only the starts of slot *t*; tasks already running keep their resources.

Formulation improvements (exact; measured with ``benchmarks/bench_milp.py --ablation``): per-component
solves (:mod:`fairalloc.exact.placement`, ``decompose=True``); aggregation of a group of *k* identical
servers into one "k f task slots" resource when every user eligible there has the same task demand in
every slot (``aggregate=True``; exact: tasks are intervals of slots, and intervals whose overlap never
exceeds *kf* can be given *kf* positions, interval graphs being perfect; :func:`_disaggregate` does it
greedily by start); MIP starts between the leximin MILPs (``warm_start``, HiGHS). Two more are
available but off by default because they measured slower on random instances: ``symmetry=True``
(identical servers' schedules ordered by load, identical users' totals ordered) and ``tighten=True``
(per user and server, the tasks running at once never exceed what fits of them alone; per user, the
starts never exceed the window bound of :func:`_upper_offline`). A third, ``cuts=True``, adds
Chvatal-Gomory roundings of every per-server capacity row (:func:`rounded_rows`, issue 14): in the
max-min and level MILPs they changed no time consistently, but they let HiGHS refute a fixed level at
the root node (figures in ``benchmarks/RESULTS.md``). Off by default in the model; the position
driver's feasibility queries use them, with the identical servers' loads ordered, on a strengthened
copy (``leximin_options={"strengthen": ...}``, :mod:`fairalloc.exact.positions`).
Off by default.

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024 (Eqs. 3, 4, 10).
.. [2] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016 (TSF).
"""

from __future__ import annotations

import heapq
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .. import shares
from ..model import TimeVaryingInstance
from ..validation import check_solver_options
from ..result import AllocationResult, Status
from .components import solve_by_components
from .leximin import LeximinOutcome, Valuation, check_leximin_options, solve_leximin
from .milp import MilpModel, add_var
from .placement import edges, placement_components, tv_flow_check
from .solvers import get_backend
from .tasks import OBJECTIVES, _identical_rows

logger = logging.getLogger(__name__)

__all__ = ["tvtsf_milp", "tvtsf_online", "tvtsf_model", "tvtsf_valuation", "schedule_details", "rounded_rows"]


def _check(tv: Any, objective: str) -> str:
    from ..validation import require_choice

    if not isinstance(tv, TimeVaryingInstance):
        raise TypeError(f"instance must be a fairalloc.TimeVaryingInstance, got {type(tv).__name__}")
    return require_choice("objective", objective, OBJECTIVES)


def _denominators(tv: TimeVaryingInstance) -> np.ndarray:
    """(N, T) Eq. 3 denominators after each slot (via shares.cumulative_task_shares with one task)."""
    one = np.zeros((tv.n_agents, tv.n_slots))
    one[:, 0] = 1.0
    return 1.0 / shares.cumulative_task_shares(one, tv.monopoly, tv.weights)


def tvtsf_valuation(tv: TimeVaryingInstance, *, upper: Any, lower: Any = None, slot: int | None = None,
                    started: Any = None) -> Valuation:
    r"""Cumulative task share after ``slot`` as an affine function of the tasks started.

    Read off :func:`fairalloc.shares.cumulative_task_shares` at 0 and 1 extra task: the slope is
    :math:`1 / \sum_{t \le slot} w_i(t) h_i(t)`, the offset the share of the ``started`` tasks.

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance.
    upper : array_like of int, shape (N,)
        Upper bounds on the task totals.
    lower : array_like of int, shape (N,), optional
        Lower bounds (default 0).
    slot : int, optional
        The slot after which the share is taken (default: the last).
    started : array_like, shape (N,), optional
        Tasks started before (default 0).

    Returns
    -------
    Valuation

    Examples
    --------
    :func:`tvtsf_milp`'s instance has :math:`h_i(t) = 2`: the slope is 1/6 after the last slot and 1/2
    after slot 0:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]],
    ...                             durations=[1, 2])
    >>> tvtsf_valuation(tv, upper=[3, 2]).slope.round(4).tolist()
    [0.1667, 0.1667]
    >>> tvtsf_valuation(tv, upper=[3, 2], slot=0).slope.tolist()
    [0.5, 0.5]
    """
    n, t_last = tv.n_agents, (tv.n_slots - 1 if slot is None else slot)
    prev = np.zeros(n) if started is None else np.asarray(started, dtype=float)

    def share(x: np.ndarray) -> np.ndarray:
        starts = np.zeros((n, t_last + 1))
        starts[:, 0] = prev + x
        return shares.cumulative_task_shares(starts, tv.monopoly[:, :t_last + 1],
                                             tv.weights[:, :t_last + 1])[:, -1]

    b = share(np.zeros(n))
    a = share(np.ones(n)) - b
    lo = np.zeros(n, dtype=np.int64) if lower is None else np.asarray(lower, dtype=np.int64)
    return Valuation(a, b, lo, np.asarray(upper, dtype=np.int64))


def _fits(tv: TimeVaryingInstance) -> np.ndarray:
    """(N, M, T) tasks of d_i(t) that fit alone on server m (0 where not eligible)."""
    f = shares.tasks_that_fit(tv.cluster.capacities, tv.task_demands[:, :, None, :])      # (N, T, M)
    f = np.where(tv.placement[:, None, :], f, 0.0)
    return np.transpose(f, (0, 2, 1)).astype(np.int64)


def _upper_offline(tv: TimeVaryingInstance, fits: np.ndarray) -> np.ndarray:
    r"""Valid upper bound on each user's starts over the horizon.

    At most the tasks submitted; and the starts in any window of :math:`e_i` consecutive slots all run
    together at the window's last slot, so (whatever mix of the window's demand vectors they have)
    each eligible server holds at most :math:`\lfloor \min_r C_{mr} / \underline d_{ir} \rfloor` of
    them, :math:`\underline d_i` the element-wise smallest demand in the window.
    """
    caps = tv.cluster.capacities
    total = tv.arrivals.sum(axis=1)
    out = np.empty(tv.n_agents, dtype=np.int64)
    for i in range(tv.n_agents):
        e = int(tv.durations[i])
        eligible = tv.placement[i]
        cap = 0
        for s in range(0, tv.n_slots, e):
            dmin = tv.task_demands[i, s:s + e].min(axis=0)
            f = shares.tasks_that_fit(caps[eligible], dmin[None, :])
            cap += int(f.sum()) if np.isfinite(f).all() else int(total[i])
            if cap >= total[i]:
                break
        out[i] = min(int(total[i]), cap)
    return out


@dataclass
class _BuiltTV:
    problem: Any
    totals: list
    x: dict                 # (i_local, col, t) -> var; col = server index or ("agg", gid)
    groups: list            # (servers, f, users eligible)
    rows_dropped: int
    strong: Any = None      # the same columns with extra valid rows (the position driver's queries)
    threshold: Any = None   # the position driver's threshold backend (``_PatternOracle``), or None


def rounded_rows(coefs: Any, cap: float) -> list[tuple[np.ndarray, int]]:
    r"""Chvatal-Gomory roundings of one capacity row :math:`\sum_j c_j n_j \le C` over integers :math:`n_j \ge 0`.

    For each distinct :math:`q \in \{c_j\}` with :math:`q \le C`: :math:`\sum_j \lfloor c_j / q
    \rfloor n_j \le \lfloor C / q \rfloor`. Valid: the left side is at most
    :math:`\sum_j (c_j / q) n_j \le C / q` and an integer, so at most :math:`\lfloor C/q \rfloor`.
    Rows equal to the original divided by *q* (nothing rounded), with fewer than two terms, or
    repeated are left out.

    Parameters
    ----------
    coefs : array_like, shape (J,)
        :math:`c_j > 0`.
    cap : float
        :math:`C`.

    Returns
    -------
    list of (ndarray of int, int)
        ``(a, b)``: the row :math:`\sum_j a_j n_j \le b`.

    Examples
    --------
    Tasks of 5 and 7 CPUs and two of 4 on an 8-CPU server: q = 5 gives "one of the 5- and 7-CPU
    tasks at most" (the 4-CPU ones round to 0), q = 4 "two tasks at most":

    >>> [(a.tolist(), b) for a, b in rounded_rows([5, 7, 4, 4], 8)]
    [([1, 1, 1, 1], 2), ([1, 1, 0, 0], 1)]
    """
    c = np.asarray(coefs, dtype=float)
    out: list[tuple[np.ndarray, int]] = []
    seen: set = set()
    for q in np.unique(c):
        if q <= 0 or q > cap * (1 + 1e-12):
            continue
        a = np.floor(c / q + 1e-9).astype(np.int64)
        b = int(np.floor(cap / q + 1e-9))
        exact = np.allclose(a, c / q, rtol=0, atol=1e-9) and abs(b - cap / q) <= 1e-9
        key = (tuple(a.tolist()), b)
        if exact or np.count_nonzero(a) < 2 or key in seen:
            continue
        seen.add(key)
        out.append((a, b))
    return out


def _build_tv(tv: TimeVaryingInstance, users: np.ndarray, servers: np.ndarray, *, symmetry: bool | str,
              aggregate: bool, tighten: bool = False, upper: np.ndarray | None = None,
              label: str = "", cuts: bool = False) -> _BuiltTV:
    import pulp

    d = tv.task_demands[users]                                  # (n, T, K)
    e = tv.durations[users]
    cum = np.cumsum(tv.arrivals[users], axis=1)                 # A_i(t)
    caps = tv.cluster.capacities[servers]
    fits = _fits(tv)[np.ix_(users, servers)]                    # (n, m, T)
    elig = edges(tv)[np.ix_(users, servers)]
    n, m, T = fits.shape
    prob = pulp.LpProblem(f"{label}tvtsf", pulp.LpMaximize)
    x: dict = {}
    per_user: list[list] = [[] for _ in range(n)]
    per_user_t: list[list[list]] = [[[] for _ in range(T)] for _ in range(n)]
    groups: list = []
    covered = np.zeros(m, dtype=bool)
    dropped = 0
    server_groups = _identical_rows(caps, elig.T) if (aggregate or symmetry) else []

    def new_var(i: int, col: Any, t: int, ub: int) -> Any:
        name = f"{label}x_{i}_{col if not isinstance(col, tuple) else 'a' + str(col[1])}_{t}"
        v = add_var(prob, name, 0, ub, integer=True)
        x[(i, col, t)] = v
        per_user[i].append(v)
        per_user_t[i][t].append(v)
        return v

    if aggregate:
        for g in server_groups:
            us = np.flatnonzero(elig[:, g[0]])
            if not us.size or not np.all(d[us] == d[us[0]][None, :, :]) or not np.all(d[us[0]] == d[us[0], 0]):
                continue
            f = int(fits[us[0], g[0], 0])
            slots = f * g.size
            gid = len(groups)
            groups.append((g, f, us))
            covered[g] = True
            for t in range(T):
                vs = []
                for i in us:
                    if cum[i, t] > 0 and f > 0:
                        vs.append(new_var(i, ("agg", gid), t, int(min(slots, cum[i, t]))))
            # running tasks (count) <= k f at every slot where something can start
            for t in range(T):
                if not any((i, ("agg", gid), t) in x for i in us):
                    continue
                run = [x[(i, ("agg", gid), tau)] for i in us for tau in range(max(0, t - int(e[i]) + 1), t + 1)
                       if (i, ("agg", gid), tau) in x]
                if sum(v.upBound for v in run) > slots:
                    prob.addConstraint(pulp.lpSum(run) <= slots, f"{label}aggcap_{gid}_{t}")
                else:
                    dropped += 1
    for k in range(m):
        if covered[k]:
            continue
        for t in range(T):
            for i in np.flatnonzero(elig[:, k]):
                if fits[i, k, t] >= 1 and cum[i, t] > 0:
                    new_var(i, k, t, int(min(fits[i, k, t], cum[i, t])))
        for t in range(T):
            if not any((i, k, t) in x for i in range(n)):
                continue                                        # nothing starts: running set shrinks
            for r in range(caps.shape[1]):
                terms = [(float(d[i, tau, r]), x[(i, k, tau)]) for i in range(n)
                         for tau in range(max(0, t - int(e[i]) + 1), t + 1)
                         if (i, k, tau) in x and d[i, tau, r] > 0]
                if not terms:
                    continue
                if sum(c * v.upBound for c, v in terms) <= caps[k, r] * (1 + 1e-12):
                    dropped += 1
                    continue
                prob.addConstraint(pulp.lpSum(c * v for c, v in terms) <= float(caps[k, r]),
                                   f"{label}cap_{k}_{r}_{t}")
                if cuts:
                    coefs = np.array([c for c, _ in terms])
                    for j, (a, rhs) in enumerate(rounded_rows(coefs, float(caps[k, r]))):
                        vs = [(int(a_), v) for a_, (_, v) in zip(a, terms) if a_ > 0]
                        if sum(a_ * v.upBound for a_, v in vs) > rhs:
                            prob.addConstraint(pulp.lpSum(a_ * v for a_, v in vs) <= rhs,
                                               f"{label}cg_{k}_{r}_{t}_{j}")
    totals = [pulp.lpSum(per_user[i]) for i in range(n)]
    for i in range(n):
        started: list = []
        for t in range(T):
            started += per_user_t[i][t]
            binding = t == T - 1 or tv.arrivals[users[i], t + 1] > 0
            if not started or not binding:
                continue
            if sum(v.upBound for v in started) <= cum[i, t]:
                dropped += 1
                continue
            prob.addConstraint(pulp.lpSum(started) <= int(cum[i, t]), f"{label}dem_{i}_{t}")
    if tighten:
        # own-fit rows: user i's running tasks on server k never exceed what fits of them alone
        for i in range(n):
            ei = int(e[i])
            for k in range(m):
                if covered[k]:
                    continue
                for t in range(T):
                    if (i, k, t) not in x:
                        continue
                    win = [tau for tau in range(max(0, t - ei + 1), t + 1) if (i, k, tau) in x]
                    if len(win) < 2:
                        continue
                    f = shares.tasks_that_fit(caps[k], d[i, win].min(axis=0))
                    run = [x[(i, k, tau)] for tau in win]
                    if np.isfinite(f) and sum(v.upBound for v in run) > f:
                        prob.addConstraint(pulp.lpSum(run) <= int(f), f"{label}own_{i}_{k}_{t}")
        if upper is not None:
            for i in range(n):
                if sum(v.upBound for v in per_user[i]) > upper[i] and upper[i] < cum[i, T - 1]:
                    prob.addConstraint(totals[i] <= int(upper[i]), f"{label}upper_{i}")
    if symmetry:
        mu = shares.dominant_shares(d[:, :, None, :], caps[None, None, :, :])      # (n, T, m)
        for g in server_groups:
            if covered[g[0]]:
                continue
            loads = [pulp.lpSum(float(mu[i, t, k]) * x[(i, k, t)] for i in range(n) for t in range(T)
                                if (i, k, t) in x) for k in g]
            for j, (a_, b_) in enumerate(zip(loads[:-1], loads[1:])):
                prob.addConstraint(a_ - b_ >= 0, f"{label}symsrv_{g[0]}_{j}")
    if symmetry is True:
        # identical users' totals ordered (symmetry=True; "servers" orders the servers only): any
        # allocation can be permuted into this order with the same sorted values
        tvu = tv.weights[users]
        for g in _identical_rows(d.reshape(n, -1), tv.arrivals[users], e[:, None], tvu, elig):
            for a_, b_ in zip(g[:-1], g[1:]):
                prob.addConstraint(totals[a_] - totals[b_] >= 0, f"{label}symusr_{a_}_{b_}")
    return _BuiltTV(prob, totals, x, groups, dropped)


class _PatternOracle:
    r"""The position driver's threshold backend for one component (``leximin_options={"threshold_solver":
    "patterns"}``): ``oracle(lower, upper, cpu_limit)`` asks :func:`fairalloc.exact.patterns.threshold_schedule`
    whether a schedule gives every user of the component :math:`\ell_i \le X_i \le u_i` tasks, and returns
    (True, {column name: value} of the component's model), (False, None) (proven) or (None, None)
    (undecided), with the answer's stats. The schedule is mapped onto the model's columns (aggregated
    servers summed); the driver re-checks it against its program."""

    def __init__(self, tv: TimeVaryingInstance, users: np.ndarray, servers: np.ndarray, built: _BuiltTV) -> None:
        self.sub = tv.replace(cluster=tv.cluster.capacities[servers], task_demands=tv.task_demands[users],
                              arrivals=tv.arrivals[users], durations=tv.durations[users],
                              placement=tv.placement[np.ix_(users, servers)], weights=tv.weights[users],
                              agent_names=[tv.agent_names[i] for i in users])
        self.built = built
        self.types: Any = None
        self.last: dict = {}
        self.available = True              # False once the transition tables proved too large
        self.max_configs = 5_000_000       # beyond it the transition tables are not built (undecided)

    def __call__(self, lower: np.ndarray, upper: np.ndarray, cpu_limit: float | None,
                 time_limit: float | None = None, max_nodes: int = 2000) -> tuple[bool | None, dict[str, float] | None]:
        from .patterns import TooManyConfigurations, server_types, threshold_schedule

        if self.types is None:
            try:
                self.types = server_types(self.sub, max_configs=self.max_configs)
            except TooManyConfigurations:
                self.types = False         # the pattern model is too large here: never asked again
        self.available = self.types is not False
        if self.types is False:
            self.last = {"unavailable": f"more than {self.max_configs} table entries on a server"}
            return None, None
        ans = threshold_schedule(self.sub, lower, upper, types=self.types, cpu_limit=cpu_limit,
                                 time_limit=time_limit, max_nodes=max_nodes)
        self.last = ans.stats
        if not ans.feasible:
            return ans.feasible, None
        st = ans.starts
        sol: dict[str, float] = {}
        placed = np.zeros_like(st)
        for (i, col, t), v in self.built.x.items():
            if isinstance(col, tuple):
                g = self.built.groups[col[1]][0]
                sol[v.name] = float(st[i, g, t].sum())
                placed[i, g, t] = st[i, g, t]
            else:
                sol[v.name] = float(st[i, col, t])
                placed[i, col, t] = st[i, col, t]
        if not np.array_equal(placed, st):          # a start the model has no column for: a bug, raised
            i, m_, t = (int(v) for v in np.argwhere(placed != st)[0])
            raise RuntimeError(f"patterns: user {i} starts on server {m_} in slot {t}, which the model forbids")
        return True, sol


def _disaggregate(built: _BuiltTV, solution: Mapping[str, float], durations: np.ndarray,
                  out: np.ndarray) -> None:
    """Place aggregated starts on the group's servers: greedy interval colouring by start slot."""
    for gid, (servers, f, us) in enumerate(built.groups):
        starts = []
        for (i, col, t), v in built.x.items():
            if isinstance(col, tuple) and col[1] == gid:
                starts += [(t, int(i))] * int(round(solution.get(v.name, 0.0)))
        starts.sort()
        free = [(-1, p) for p in range(servers.size * f)]    # (slot the position frees up, position)
        heapq.heapify(free)
        busy: list = []
        for t, i in starts:
            while busy and busy[0][0] <= t:
                heapq.heappush(free, (0, heapq.heappop(busy)[1]))
            _, pos = heapq.heappop(free)                      # max overlap <= k f: always one free
            heapq.heappush(busy, (t + int(durations[i]), pos))
            out[i, servers[pos // f], t] += 1


def _extract_tv(built: _BuiltTV, solution: Mapping[str, float], n: int, m: int, T: int,
                durations: np.ndarray) -> np.ndarray:
    out = np.zeros((n, m, T), dtype=np.int64)
    for (i, col, t), v in built.x.items():
        if not isinstance(col, tuple):
            out[i, col, t] = int(round(solution.get(v.name, 0.0)))
    _disaggregate(built, solution, durations, out)
    return out


def schedule_details(tv: TimeVaryingInstance, starts: np.ndarray) -> dict[str, np.ndarray]:
    r"""Per-slot figures of a start schedule: running tasks, usage, shares, pending.

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance.
    starts : ndarray of int, shape (N, M, T)
        Tasks of user *i* started on server *m* in slot *t* (a result's ``tasks``).

    Returns
    -------
    dict of str to ndarray
        ``running`` (N, M, T) tasks running in each slot; ``usage`` (M, K, T) resources held (raw
        units); ``started`` (N, T); ``pending`` (N, T) submitted but not yet started after each slot;
        ``cumulative_shares`` (N, T) TV-TSF Eq. 3 after each slot.

    Examples
    --------
    :func:`tvtsf_milp`'s schedule worked by hand: user 1's slot-0 task (2 slots long) still runs in
    slot 1, so every slot holds <3, 3>; user 0 leaves 1 task pending after slot 0, user 1 after slot 1;
    shares are tasks started over :math:`\sum h = 2, 4, 6`:

    >>> import numpy as np
    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]],
    ...                             durations=[1, 2])
    >>> d = schedule_details(tv, np.array([[[1, 1, 1]], [[1, 0, 1]]]))
    >>> d["running"][:, 0, :].tolist(), d["usage"][0].tolist()
    ([[1, 1, 1], [1, 1, 1]], [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]])
    >>> d["pending"].tolist(), d["cumulative_shares"].round(4).tolist()
    ([[1, 0, 0], [0, 1, 0]], [[0.5, 0.5, 0.5], [0.5, 0.25, 0.3333]])
    """
    n, m, T = starts.shape
    running = np.zeros_like(starts)
    for i in range(n):
        c = np.cumsum(starts[i], axis=1)
        e = min(int(tv.durations[i]), T)                 # a task longer than the horizon runs to its end
        running[i] = c - np.concatenate([np.zeros((m, e), dtype=c.dtype), c], axis=1)[:, :T]
    usage = np.zeros((m, tv.n_resources, T))
    for i in range(n):
        for t in range(T):
            if starts[i, :, t].any():
                e = int(tv.durations[i])
                usage[:, :, t:t + e] += starts[i, :, t][:, None, None] * tv.task_demands[i, t][None, :, None]
    started = starts.sum(axis=1)
    return {"running": running, "usage": usage, "started": started,
            "pending": np.cumsum(tv.arrivals, axis=1) - np.cumsum(started, axis=1),
            "cumulative_shares": shares.cumulative_task_shares(started, tv.monopoly, tv.weights)}


def _pack_tv(tv: TimeVaryingInstance, starts: np.ndarray, status: Status, method: str, leximin: list,
             val_upper: np.ndarray, common: dict) -> AllocationResult:
    det = schedule_details(tv, starts)
    final = det["cumulative_shares"][:, -1]
    movable = val_upper > 0
    low = float(final[movable].min()) if movable.any() else float(final.min())
    details = {**det, "monopoly": tv.monopoly, "upper": val_upper}
    if leximin:
        details["leximin"] = np.array(leximin, dtype=float).reshape(-1, 2)
    return AllocationResult.from_arrays(status=status, mechanism="tvtsf", method=method, tasks=starts,
                                   shares=final, utilities=det["started"].sum(axis=1).astype(float),
                                   level=low, objective=low, details=details, **common)


def tvtsf_model(tv: TimeVaryingInstance, /, *, symmetry: bool = False, aggregate: bool = True,
                tighten: bool = False, cuts: bool = False) -> MilpModel:
    """Eq. 10 (errata fixed) as one max-min MILP, to export or inspect (``x``: (i, m, t) -> var, ``z``).

    The level is in scaled units (shares divided by the smallest per-task share step).

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance.
    symmetry, aggregate, tighten, cuts : bool, optional
        Formulation options of :func:`tvtsf_milp` (defaults False, True, False, False).

    Returns
    -------
    MilpModel
        Unsolved.

    Examples
    --------
    One server of <2, 2>, one user submitting 2 then 1 tasks <1, 1> of one slot: 2 fit per slot, so
    all 3 can start:

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1]], arrivals=[[2, 1]], durations=[1])
    >>> model = fa.exact.tvtsf_model(tv)
    >>> model.solve("highs").status.value
    'optimal'
    >>> sum(v.value() for v in model.variables["x"].values())
    3.0
    """
    _check(tv, "maxmin")
    n = tv.n_agents
    upper = _upper_offline(tv, _fits(tv))
    b = _build_tv(tv, np.arange(n), np.arange(tv.n_servers), symmetry=symmetry, aggregate=aggregate,
                  tighten=tighten, upper=upper, cuts=cuts)
    val, scale = tvtsf_valuation(tv, upper=upper).scaled()
    z = add_var(b.problem, "z", None, float(val.value(val.upper).max()))
    for i in range(n):
        if val.upper[i] > 0:
            b.problem.addConstraint(val.slope[i] * b.totals[i] + val.offset[i] - z >= 0, f"level_{i}")
    b.problem.setObjective(z)
    return MilpModel(b.problem, {"x": b.x, "z": z, "totals": b.totals},
                     f"TV-TSF Eq. 10 max-min (shares scaled by {scale:.6g})")


def tvtsf_milp(tv: TimeVaryingInstance, /, *, objective: str = "leximin", solver: str | None = None,
               time_limit: float | None = None, mip_gap: float | None = None, threads: int | None = None,
               msg: bool = False, options: Mapping[str, Any] | None = None, symmetry: bool = False,
               aggregate: bool = True, decompose: bool = True, tighten: bool = False, cuts: bool = False,
               warm_start: bool | None = None, export_dir: str | os.PathLike | None = None,
               leximin_options: Mapping[str, Any] | None = None) -> AllocationResult:
    """TV-TSF over the whole horizon: Eq. 10 with the errata fixed (see the module docstring).

    The implementation of :func:`fairalloc.tvtsf` with ``method="milp"`` (the front door checks the
    keywords first).

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance (servers, per-slot task demands, arrivals, durations, placement, weights).
    objective : {"leximin", "maxmin"}, optional
        ``"leximin"`` (default): the sequential max-min of :mod:`fairalloc.exact.leximin` (Pareto
        optimal, Theorem 3); ``"maxmin"``: the paper's single max-min (not unique, not Pareto-efficient
        in general).
    solver : str, optional
        MILP backend (``"highs"``, ``"cpsat"``, ``"cbc"``; default: the first installed of
        :data:`fairalloc.exact.solvers.DEFAULT_ORDER`).
    time_limit : float, optional
        Seconds for the whole run; at the limit the result is FEASIBLE with the incumbent (or
        NOT_SOLVED without one), never OPTIMAL.
    mip_gap : float, optional
        Relative gap of each MILP (default 0: proven). A positive gap gives FEASIBLE results.
    threads, msg, options
        Passed to the backend (:func:`fairalloc.exact.milp.solve_pulp`).
    symmetry : bool, optional
        Symmetry-breaking rows (module docstring; default False).
    aggregate, decompose, tighten : bool, optional
        Exact formulation improvements (module docstring; defaults True, True, False).
    cuts : bool, optional
        Chvatal-Gomory rows on the capacity rows (:func:`rounded_rows`; module docstring; default False).
    warm_start : bool or None, optional
        MIP starts between the leximin MILPs (None: the backend's measured default).
    export_dir : path, optional
        Write every MILP solved as an ``.lp`` file there.
    leximin_options : mapping, optional
        Options of the leximin driver (:data:`fairalloc.exact.leximin.LEXIMIN_OPTIONS`: ``driver``,
        ``time_slice``, ...); checked before any work. The position driver's feasibility queries run
        on a strengthened copy of Eq. 10 (identical servers' loads ordered, :func:`rounded_rows` on
        every capacity row) unless ``strengthen`` is False.

    Returns
    -------
    AllocationResult
        ``tasks`` (N, M, T) int64 starts; ``shares`` the cumulative task shares after the last slot
        (Eq. 3); ``details`` with ``cumulative_shares`` (N, T), ``usage`` (M, K, T), ``running``
        (N, M, T), ``started`` and ``pending`` (N, T), ``leximin`` (value, multiplicity); ``stats``
        with ``n_solves``, ``runtime_s`` and, when not proven, ``bound`` / ``mip_gap``.

    Raises
    ------
    InvalidInstanceError
        Unknown ``objective``.
    SolverUnavailableError
        Unknown or missing ``solver``.

    See Also
    --------
    tvtsf_online : slot by slot, past fixed.
    tvtsf_model : the first max-min MILP, to export.

    Examples
    --------
    One server <4, 4>; user 0 submits tasks <1, 2> lasting 1 slot (2, 0, 1 in slots 0-2), user 1 tasks
    <2, 1> lasting 2 slots (1, 1, 0). Each fits 2 tasks alone, so :math:`h_i(t) = 2` and
    :math:`s_i = X_i / 6`. Starting one task of each in slot 0, user 0's in slot 1 and one of each in
    slot 2 uses at most <3, 3> per slot and starts every task submitted (3 and 2), the most possible,
    so the leximin optimum is (3/6, 2/6):

    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]],
    ...                             durations=[1, 2])
    >>> r = fa.exact.tvtsf_milp(tv, solver="highs")
    >>> r.status.value, r.tasks.sum(axis=(1, 2)).tolist(), r.shares.round(4).tolist()
    ('optimal', [3, 2], [0.5, 0.3333])
    """
    objective = _check(tv, objective)
    check_solver_options("tvtsf_milp", solver=solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads, msg=msg,
                         options=options, symmetry=symmetry, aggregate=aggregate, decompose=decompose,
                         tighten=tighten, cuts=cuts, warm_start=warm_start)
    driver_opts = check_leximin_options(leximin_options)
    backend = get_backend(solver, "milp")
    t0 = time.perf_counter()
    n, m, T = tv.n_agents, tv.n_servers, tv.n_slots
    upper = _upper_offline(tv, _fits(tv))
    full = tvtsf_valuation(tv, upper=upper)
    strengthen = driver_opts["driver"] == "positions" and driver_opts["strengthen"]
    strengthen_patterns = driver_opts["driver"] == "positions" and driver_opts["threshold_solver"] == "patterns"
    comps = placement_components(tv) if decompose else [(np.arange(n), np.flatnonzero(edges(tv).any(axis=0)))]
    starts = np.zeros((n, m, T), dtype=np.int64)
    sizes = [float(edges(tv)[np.ix_(u, s)].sum()) * T for u, s in comps]
    counts = {"dropped": 0, "aggregated": 0}

    def build(users: np.ndarray, servers: np.ndarray, label: str) -> _BuiltTV:
        built = _build_tv(tv, users, servers, symmetry=symmetry, aggregate=aggregate, tighten=tighten,
                          upper=upper[users], label=label, cuts=cuts)
        if strengthen:
            # the same columns with extra valid rows, for the position driver's feasibility queries
            built.strong = _build_tv(tv, users, servers, symmetry=symmetry or "servers", aggregate=aggregate,
                                     tighten=tighten, upper=upper[users], label=label, cuts=True).problem
        if strengthen_patterns:
            from .patterns import supports

            if supports(tv):       # demands constant in time: the pattern model applies
                built.threshold = _PatternOracle(tv, users, servers, built)
        counts["dropped"] += built.rows_dropped
        counts["aggregated"] += sum(int(g[0].size) for g in built.groups)
        return built

    def place(built: _BuiltTV, users: np.ndarray, servers: np.ndarray, solution: Mapping[str, float]) -> None:
        starts[np.ix_(users, servers, np.arange(T))] = _extract_tv(built, solution, users.size, servers.size, T,
                                                                   tv.durations[users])

    def flow(users: np.ndarray) -> Any:
        def check(required: np.ndarray) -> bool:       # the component's users -> the whole instance
            req = np.zeros(n, dtype=np.int64)
            req[users] = required
            return tv_flow_check(tv, req)
        return check

    status, message, stats, leximin = solve_by_components(
        comps, sizes, build, full, place, objective=objective, backend=backend, time_limit=time_limit, started=t0,
        mip_gap=mip_gap, threads=threads, msg=msg, options=options, export_dir=export_dir,
        warm_start=warm_start, flow=flow, disposable=not symmetry, **driver_opts)
    stats.update(runtime_s=time.perf_counter() - t0, rows_dropped=counts["dropped"],
                 aggregated_servers=counts["aggregated"], symmetry=symmetry, aggregate=aggregate,
                 decompose=decompose, tighten=tighten, cuts=cuts, warm_start=warm_start, objective=objective,
                 leximin_options=driver_opts)
    common = dict(solver=backend.name, message=message, stats=stats)
    if status not in (Status.OPTIMAL, Status.FEASIBLE):
        return AllocationResult.from_arrays(status=status, mechanism="tvtsf", method="milp", **common)
    return _pack_tv(tv, starts, status, "milp", leximin, upper, common)


def tvtsf_online(tv: TimeVaryingInstance, /, *, objective: str = "leximin", solver: str | None = None,
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int | None = None,
                 msg: bool = False, options: Mapping[str, Any] | None = None, symmetry: bool = False,
                 decompose: bool = True, progress: bool = False,
                 leximin_options: Mapping[str, Any] | None = None) -> AllocationResult:
    """Slot-by-slot TV-TSF: at each slot, the exact leximin (or max-min) of the cumulative shares
    :math:`s_i(t)` over the starts of that slot, with every earlier start fixed.

    This is what an online system can compute (it never revises the past nor looks ahead); it is
    not optimal for Eq. 10 in general, and the gap to :func:`tvtsf_milp` measures the price of being
    online. The implementation of :func:`fairalloc.tvtsf` with ``method="milp-online"``.

    Parameters
    ----------
    tv : TimeVaryingInstance
        The instance.
    objective : {"leximin", "maxmin"}, optional
        ``"leximin"`` (default): the sequential max-min of :mod:`fairalloc.exact.leximin` (Pareto
        optimal, Theorem 3); ``"maxmin"``: the paper's single max-min (not unique, not Pareto-efficient
        in general).
    solver : str, optional
        MILP backend (``"highs"``, ``"cpsat"``, ``"cbc"``; default: the first installed of
        :data:`fairalloc.exact.solvers.DEFAULT_ORDER`).
    time_limit : float, optional
        Seconds for the whole run; a slot that runs out of time keeps its best incumbent and
        later slots start nothing (FEASIBLE, said in ``message``); at the limit the result is
        FEASIBLE with the incumbent (or NOT_SOLVED without one), never OPTIMAL.
    mip_gap : float, optional
        Relative gap of each MILP (default 0: proven). A positive gap gives FEASIBLE results.
    threads, msg, options
        Passed to the backend (:func:`fairalloc.exact.milp.solve_pulp`).
    symmetry : bool, optional
        Symmetry-breaking rows (module docstring; default False).
    decompose : bool, optional
        Solve the placement graph's components apart (default True).
    progress : bool, optional
        Show a progress bar over the slots (default False).
    leximin_options : mapping, optional
        Options of the leximin driver (:data:`fairalloc.exact.leximin.LEXIMIN_OPTIONS`).

    Returns
    -------
    AllocationResult
        As :func:`tvtsf_milp`.

    Raises
    ------
    InvalidInstanceError
        Unknown ``objective``.
    SolverUnavailableError
        Unknown or missing ``solver``.

    Examples
    --------
    :func:`tvtsf_milp`'s instance. Slot 0: one task of each gives shares (1/2, 1/2), better than two of
    user 0 (1, 0). Slot 1: user 1's task still holds <2, 1>, so only one of the two pending tasks fits;
    the leximin of (2/4, 1/4) is the same either way. Here the online schedule also starts every task:


    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]],
    ...                             durations=[1, 2])
    >>> r = fa.exact.tvtsf_online(tv, solver="highs")
    >>> r.status.value, r.tasks.sum(axis=(1, 2)).tolist(), r.shares.round(4).tolist()
    ('optimal', [3, 2], [0.5, 0.3333])
    >>> r.tasks[:, 0, 0].tolist()                       # slot 0: one each
    [1, 1]
    """
    objective = _check(tv, objective)
    check_solver_options("tvtsf_online", solver=solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads,
                         msg=msg, options=options, symmetry=symmetry, decompose=decompose)
    driver_opts = check_leximin_options(leximin_options)
    backend = get_backend(solver, "milp")
    t0 = time.perf_counter()
    n, m, T = tv.n_agents, tv.n_servers, tv.n_slots
    fits = _fits(tv)
    elig = edges(tv)
    d, e, caps = tv.task_demands, tv.durations, tv.cluster.capacities
    cum = np.cumsum(tv.arrivals, axis=1)
    starts = np.zeros((n, m, T), dtype=np.int64)
    usage = np.zeros((m, tv.n_resources, T))
    comps = placement_components(tv) if decompose else [(np.arange(n), np.flatnonzero(elig.any(axis=0)))]
    worst, messages, n_solves, per_slot = Status.OPTIMAL, [], 0, []
    severity = {Status.OPTIMAL: 0, Status.FEASIBLE: 1, Status.ERROR: 2}

    def worsen(st: Status) -> None:
        nonlocal worst
        if severity[st] > severity[worst]:
            worst = st

    import pulp

    out_of_time = False
    from tqdm.auto import tqdm

    for t in tqdm(range(T), desc="TV-TSF online", unit="slot", disable=not progress):
        if out_of_time:
            break
        started = starts.sum(axis=(1, 2))
        pending = cum[:, t] - started
        for k, (users, servers) in enumerate(comps):
            us = users[pending[users] > 0]
            if us.size == 0:
                continue
            left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
            if left is not None and left <= 0:
                worsen(Status.FEASIBLE)
                messages.append(f"time limit reached at slot {t}; later starts left empty")
                out_of_time = True
                break
            prob = pulp.LpProblem(f"tvtsf_online_t{t}_c{k}", pulp.LpMaximize)
            xs: dict = {}
            per_u = {int(i): [] for i in us}
            for i in us:
                for s in servers:
                    f = int(fits[i, s, t])
                    if elig[i, s] and f >= 1:
                        v = add_var(prob, f"x_{i}_{s}", 0, int(min(f, pending[i])), integer=True)
                        xs[(int(i), int(s))] = v
                        per_u[int(i)].append(v)
            for s in servers:
                for r in range(tv.n_resources):
                    terms = [(float(d[i, t, r]), xs[(int(i), int(s))]) for i in us
                             if (int(i), int(s)) in xs and d[i, t, r] > 0]
                    room = float(caps[s, r] - usage[s, r, t])
                    if terms and sum(c * v.upBound for c, v in terms) > room * (1 + 1e-12) + 1e-12:
                        prob.addConstraint(pulp.lpSum(c * v for c, v in terms) <= room, f"cap_{s}_{r}")
            totals = [pulp.lpSum(per_u[int(i)]) for i in us]
            for j, i in enumerate(us):
                if sum(v.upBound for v in per_u[int(i)]) > pending[i]:
                    prob.addConstraint(totals[j] <= int(pending[i]), f"dem_{i}")
            if symmetry:
                for g in _identical_rows(d[us, t], pending[us][:, None], e[us][:, None],
                                         tv.weights[us][:, : t + 1], elig[us], started[us][:, None]):
                    for a_, b_ in zip(g[:-1], g[1:]):
                        prob.addConstraint(totals[a_] - totals[b_] >= 0, f"symusr_{a_}_{b_}")
            upper = np.array([min(int(pending[i]), int(sum(v.upBound for v in per_u[int(i)]))) for i in us])
            full = tvtsf_valuation(tv, upper=np.zeros(n, dtype=np.int64), slot=t, started=started)
            val = Valuation(full.slope[us], full.offset[us], np.zeros(us.size, dtype=np.int64), upper)
            if not (upper > 0).any():
                continue
            out: LeximinOutcome = solve_leximin(prob, totals, val, objective=objective, backend=backend,
                                                time_limit=time_limit, started=t0, mip_gap=mip_gap,
                                                threads=threads, msg=msg, options=options, label=f"t{t}c{k}_",
                                                disposable=not symmetry, **driver_opts)
            n_solves += out.stats.get("n_solves", 0)
            per_slot.append({"slot": t, "component": k, "status": out.status.value,
                             "n_solves": out.stats.get("n_solves", 0)})
            if out.status not in (Status.OPTIMAL, Status.FEASIBLE) or out.solution is None:
                messages.append(f"slot {t}, component {k}: {out.message}; nothing started there")
                worsen(Status.FEASIBLE if out.status is Status.NOT_SOLVED else Status.ERROR)
                continue
            if out.status is Status.FEASIBLE:
                worsen(Status.FEASIBLE)
                messages.append(f"slot {t}, component {k}: {out.message}")
            for (i, s), v in xs.items():
                c = int(round(out.solution.get(v.name, 0.0)))
                if c:
                    starts[i, s, t] += c
                    usage[s, :, t:t + int(e[i])] += c * d[i, t][:, None]
    status = worst
    message = "; ".join(messages) if messages else (
        f"every slot's {objective} proven optimal by {backend.name} (online: the past fixed, no look-ahead)")
    stats = {"runtime_s": time.perf_counter() - t0, "n_solves": n_solves, "slots": per_slot,
             "objective": objective, "n_components": len(comps), "symmetry": symmetry, "decompose": decompose}
    common = dict(solver=backend.name, message=message, stats=stats)
    if status is Status.ERROR:
        return AllocationResult.from_arrays(status=status, mechanism="tvtsf", method="milp-online", **common)
    return _pack_tv(tv, starts, status, "milp-online", [], _upper_offline(tv, fits), common)
