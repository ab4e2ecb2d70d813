r"""Indivisible tasks on servers with placement constraints: exact leximin MILPs for DRF, SDRF, TSF, CDRF.

The allocation model (one-shot)
-------------------------------
Integer variables :math:`x_{im} \ge 0`: tasks of user *i* on server *m*, only where user *i* may run
on *m* and one task fits there (:mod:`fairalloc.exact.placement`), bounded by
:math:`\min(K_i, f_{im})` (:math:`K_i` tasks wanted, :math:`f_{im}` tasks that fit alone). Per-server
capacities :math:`\sum_i d_{ir} x_{im} \le C_{mr}` (rows that cannot bind are dropped); user totals
:math:`X_i = \sum_m x_{im} \le K_i`; optional reservations :math:`X_i \ge` ``min_tasks``\ :sub:`i`.

What is maximised lexicographically (all from :mod:`fairalloc.shares`, weights divide):

========= ============================================================ ==============================
mechanism user value :math:`v_i(X_i)`                                  shares.py
========= ============================================================ ==============================
``drf``   dominant share :math:`X_i \mu_i / w_i`,                      ``dominant_share_of_tasks``
          :math:`\mu_i = \max_r d_{ir}/\sum_m C_{mr}`
``sdrf``  SDRF level :math:`(\tilde c_i + X_i\mu_i)/w_i` (Eq. 5)       ``sdrf_levels``
``tsf``   task share :math:`X_i / (w_i h_i)` (TSF; h_i: TV-TSF Eq. 4)   ``task_shares``
``cdrf``  :math:`(X_i + 1)\mu_i / w_i` (see below)                     ``next_task_dominant_shares``
========= ============================================================ ==============================

**CDRF, our reading.** The TV-TSF paper's baseline "CDRF" cites Parkes, Procaccia and Shah [2]_ and
describes it as minimising the users' maximum dominant share. Their indivisible mechanism,
*SequentialMinMax*, gives the next task to the user whose dominant share **after** receiving it,
:math:`(X_i+1)\mu_i`, is smallest (among users whose next task still fits). Its exact counterpart,
implemented here, is the leximin of that key :math:`(X_i+1)\mu_i/w_i` over all feasible integer
allocations (on servers, with placement). It differs from ``drf`` (leximin of :math:`X_i\mu_i/w_i`)
exactly by the +1 task: a user with large tasks is not pushed as far ahead. A user whose tasks are
all served counts at its final key. The greedy SequentialMinMax itself is a scheduler (another
branch); this is the optimum it approximates.

Every mechanism is leximin over integer allocations, so the result is Pareto-efficient in task
counts (any allocation giving every user at least as many tasks and one user more would be
leximin-better).

Formulation improvements (all exact; defaults chosen by measurement)
--------------------------------------------------------------------
* ``decompose=True``: components of the placement graph are solved separately and merged (exact,
  see :mod:`fairalloc.exact.placement`).
* ``aggregate=True``: where all users eligible on a group of *k* identical servers (same capacities,
  same eligible users) have the same task demand, the group becomes one variable per user with
  capacity :math:`k f` tasks (exact: any split of the total into servers of :math:`f` tasks works).
* ``warm_start=None``: each MILP of the leximin sequence starts from the previous solution (HiGHS;
  off for CBC, which it slows down).
* ``symmetry=False``: when on, identical servers' loads :math:`\sum_i \mu_{im} x_{im}` are ordered and
  identical users' totals are ordered (valid: any optimum can be permuted into that order, and every
  constraint the leximin sequence adds is symmetric). Off by default because it measured *slower*
  (``benchmarks/bench_milp.py --ablation``): HiGHS detects and exploits the symmetry itself, and
  the ordering rows get in its way.

References
----------
.. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types",
   NSDI 2011.
.. [2] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions,
   Limitations, and Indivisibilities", ACM TEAC 3(1), 2015.
.. [3] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016 (TSF).
.. [4] H. Sadok, M. Campista, L. Costa, "Stateful DRF", SBRC 2018 / IEEE TC 2021 (SDRF levels).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .. import shares
from ..validation import (as_array, check_solver_options, require_choice, require_integral, require_nonnegative,
                          require_shape)
from ..errors import InvalidInstanceError
from ..model import TaskInstance
from ..result import AllocationResult, Status
from .components import solve_by_components
from .leximin import Valuation, check_leximin_options
from .milp import MilpModel, add_var
from .values import value_function
from .placement import edges, flow_check, maxmin_flow_bound, placement_components
from .solvers import get_backend

logger = logging.getLogger(__name__)

__all__ = ["MECHANISMS", "OBJECTIVES", "tasks_leximin", "tasks_model", "task_valuation"]

MECHANISMS = ("drf", "sdrf", "tsf", "cdrf")
OBJECTIVES = ("leximin", "maxmin")


def _value_fn(ti: TaskInstance, mechanism: str):
    return value_function(ti, mechanism)


def task_valuation(ti: TaskInstance, mechanism: str, *, lower: Any = None, upper: Any = None) -> Valuation:
    r"""The affine user values of ``mechanism``, read off :mod:`fairalloc.shares` at 0 and 1 task.

    Every mechanism's value is affine in a user's task total :math:`X_i`: DRF/SDRF's (weighted)
    dominant share :math:`X_i \mu_i` (plus the dominant commitment for SDRF), TSF's task share
    :math:`X_i / h_i`, CDRF's dominant share after one more task :math:`(X_i + 1)\mu_i`. The slope
    and offset are read as :math:`v(1) - v(0)` and :math:`v(0)`.

    Parameters
    ----------
    ti : TaskInstance
        The instance.
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}
        The user value.
    lower, upper : array_like of int, shape (n_agents,), optional
        Bounds on the task totals (default: 0, and the tasks wanted capped by the sum over eligible
        servers of the tasks that fit on each alone).

    Returns
    -------
    Valuation

    Examples
    --------
    DRF paper (A <1, 4>, B <3, 1> on <9, 18>): dominant share per task 4/18 and 3/9; TSF's per task
    1/h with h = 4 and 3; CDRF adds one task's share as offset:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> v = task_valuation(ti, "drf")
    >>> v.slope.round(4).tolist(), v.offset.tolist(), v.upper.tolist()
    ([0.2222, 0.3333], [0.0, 0.0], [4, 3])
    >>> task_valuation(ti, "tsf").slope.round(4).tolist()
    [0.25, 0.3333]
    >>> task_valuation(ti, "cdrf").offset.round(4).tolist()
    [0.2222, 0.3333]
    """
    f = _value_fn(ti, mechanism)
    n = ti.n_agents
    b = f(np.zeros(n))
    a = f(np.ones(n)) - b
    up = _upper(ti) if upper is None else np.asarray(upper)
    lo = np.zeros(n, dtype=np.int64) if lower is None else np.asarray(lower)
    return Valuation(a, b, lo, up)


def _upper(ti: TaskInstance) -> np.ndarray:
    fit = np.where(edges(ti), ti.fits, 0.0)
    return np.minimum(ti.tasks, fit.sum(axis=1)).astype(np.int64)


@dataclass
class _Built:
    problem: Any
    totals: list
    x: dict                    # (i_local, col) -> var ; col = server index or ("agg", group)
    groups: list               # aggregated groups: (servers (array), per-server fit f)
    n_rows_dropped: int


def _identical_rows(*arrays: np.ndarray) -> list[np.ndarray]:
    """Groups (size >= 2) of row indices whose rows are equal in every array."""
    key = np.concatenate([np.asarray(a, dtype=float).reshape(a.shape[0], -1) for a in arrays], axis=1)
    _, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    return [np.flatnonzero(inv == g) for g in range(inv.max() + 1) if np.sum(inv == g) >= 2]


def _build(ti: TaskInstance, users: np.ndarray, servers: np.ndarray, mechanism: str, *,
           min_tasks: np.ndarray | None, symmetry: bool, aggregate: bool, label: str = "") -> _Built:
    import pulp

    d = ti.task_demands[users]
    want = ti.tasks[users]
    caps = ti.cluster.capacities[servers]
    e = edges(ti)[np.ix_(users, servers)]
    fit = np.where(e, ti.fits[np.ix_(users, servers)], 0).astype(np.int64)
    n, m = fit.shape
    prob = pulp.LpProblem(f"{label}tasks_{mechanism}", pulp.LpMaximize)
    x: dict = {}
    cols_of_user: list[list] = [[] for _ in range(n)]
    groups: list = []
    covered = np.zeros(m, dtype=bool)
    dropped = 0
    if aggregate or symmetry:
        server_groups = _identical_rows(caps, e.T)
    else:
        server_groups = []
    if aggregate:
        for g in server_groups:
            elig = np.flatnonzero(e[:, g[0]])
            if elig.size and np.all(d[elig] == d[elig[0]]):
                f = int(fit[elig[0], g[0]])
                gid = len(groups)
                groups.append((g, f))
                covered[g] = True
                vs = []
                for i in elig:
                    v = add_var(prob, f"{label}xa_{i}_{gid}", 0, int(min(want[i], f * g.size)), integer=True)
                    x[(i, ("agg", gid))] = v
                    cols_of_user[i].append(v)
                    vs.append(v)
                if sum(min(want[i], f * g.size) for i in elig) > f * g.size:
                    prob.addConstraint(pulp.lpSum(vs) <= f * g.size, f"{label}aggcap_{gid}")
                else:
                    dropped += 1
    for k in range(m):
        if covered[k]:
            continue
        vs = []
        for i in np.flatnonzero(e[:, k]):
            v = add_var(prob, f"{label}x_{i}_{k}", 0, int(min(want[i], fit[i, k])), integer=True)
            x[(i, k)] = v
            cols_of_user[i].append(v)
            vs.append((i, v))
        for r in range(caps.shape[1]):
            terms = [(float(d[i, r]), v) for i, v in vs if d[i, r] > 0]
            if not terms:
                continue
            worst = sum(c * v.upBound for c, v in terms)
            if worst <= caps[k, r] * (1 + 1e-12):
                dropped += 1                       # cannot bind: every eligible user at its bound fits
                continue
            prob.addConstraint(pulp.lpSum(c * v for c, v in terms) <= float(caps[k, r]), f"{label}cap_{k}_{r}")
    totals = [pulp.lpSum(cols_of_user[i]) for i in range(n)]
    for i in range(n):
        ub = sum(v.upBound for v in cols_of_user[i])
        if ub > want[i]:
            prob.addConstraint(totals[i] <= int(want[i]), f"{label}want_{i}")
        if min_tasks is not None and min_tasks[i] > 0:
            prob.addConstraint(totals[i] >= int(min_tasks[i]), f"{label}min_{i}")
    if symmetry:
        # identical servers not aggregated: order their loads
        mu = shares.dominant_shares(d[:, None, :], caps[None, :, :]) if m else np.zeros((n, 0))
        for g in server_groups:
            if covered[g[0]]:
                continue
            loads = [pulp.lpSum(float(mu[i, k]) * x[(i, k)] for i in range(n) if (i, k) in x) for k in g]
            for j, (a_, b_) in enumerate(zip(loads[:-1], loads[1:])):
                prob.addConstraint(a_ - b_ >= 0, f"{label}symsrv_{g[0]}_{j}")
        # identical users: order their totals
        comm = ti.commitments[users]
        for g in _identical_rows(d, want[:, None], ti.weights[users][:, None], comm, e,
                                 (min_tasks if min_tasks is not None else np.zeros(n))[:, None]):
            for a_, b_ in zip(g[:-1], g[1:]):
                prob.addConstraint(totals[a_] - totals[b_] >= 0, f"{label}symusr_{a_}_{b_}")
    return _Built(prob, totals, x, groups, dropped)


def _extract(built: _Built, solution: Mapping[str, float], n: int, m: int) -> np.ndarray:
    t = np.zeros((n, m), dtype=np.int64)
    agg: dict[int, dict[int, int]] = {}
    for (i, col), v in built.x.items():
        val = int(round(solution.get(v.name, 0.0)))
        if isinstance(col, tuple):
            agg.setdefault(col[1], {})[i] = val
        else:
            t[i, col] = val
    for gid, per_user in agg.items():
        servers, f = built.groups[gid]
        room = np.full(servers.size, f, dtype=np.int64)
        k = 0
        for i in sorted(per_user):
            left = per_user[i]
            while left > 0:
                take = min(left, room[k])
                t[i, servers[k]] += take
                room[k] -= take
                left -= take
                if room[k] == 0:
                    k += 1
    return t


def _check_common(ti: Any, mechanism: str, objective: str, cls: type = TaskInstance) -> tuple[str, str]:
    if not isinstance(ti, cls):
        raise TypeError(f"instance must be a fairalloc.{cls.__name__}, got {type(ti).__name__}")
    return (require_choice("mechanism", mechanism, MECHANISMS) if mechanism is not None else None,
            require_choice("objective", objective, OBJECTIVES))


def _min_tasks(ti: TaskInstance, min_tasks: Any) -> np.ndarray | None:
    if min_tasks is None:
        return None
    k = as_array("min_tasks", min_tasks, ndim=1)
    require_shape("min_tasks", k, (ti.n_agents,), names=["n_agents"])
    require_nonnegative("min_tasks", k)
    k = require_integral("min_tasks", k)
    over = k > ti.tasks
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise InvalidInstanceError(f"min_tasks[{i}]={int(k[i])} exceeds the {int(ti.tasks[i])} tasks user {i} wants",
                                   argument="min_tasks", index=(i,), value=int(k[i]))
    return k


def tasks_model(ti: TaskInstance, /, *, mechanism: str = "drf", min_tasks: Any = None,
                symmetry: bool = False, aggregate: bool = True) -> MilpModel:
    """The first MILP of :func:`tasks_leximin` (the max-min) for the whole instance, to export or inspect.

    Variables: ``x`` ((user, server) -> integer tasks; aggregated groups appear as
    ``(user, ("agg", g))``), ``z`` (the level), ``totals`` (user expressions).

    Parameters
    ----------
    ti : TaskInstance
        The instance.
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}, optional
        Which user value the level bounds (default ``"drf"``; :func:`task_valuation`).
    min_tasks : array_like of int, shape (n_agents,), optional
        Tasks each user must receive (reservations).
    symmetry, aggregate : bool, optional
        The exact formulation improvements of :func:`tasks_leximin` (defaults False, True).

    Returns
    -------
    MilpModel
        An unsolved PuLP model with named variables; :meth:`MilpModel.solve` solves it,
        :func:`export_model` writes it.

    Raises
    ------
    InvalidInstanceError
        Unknown ``mechanism``, bad ``min_tasks``.

    Examples
    --------
    The level is scaled to whole numbers: in the DRF paper's example (A <1, 4>, B <3, 1> on
    <9, 18>) each user's dominant share is a multiple of its per-task share, and the max-min gives A 3
    tasks (2/3 = 3 x 2/9), which the scaled level reads as 3:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> model = fa.exact.tasks_model(ti, mechanism="drf")
    >>> model.solve("highs").status.value, round(model.value("z"), 6)
    ('optimal', 3.0)
    """
    mechanism, _ = _check_common(ti, mechanism, "maxmin")
    mt = _min_tasks(ti, min_tasks)
    users, servers = np.arange(ti.n_agents), np.arange(ti.n_servers)
    b = _build(ti, users, servers, mechanism, min_tasks=mt, symmetry=symmetry, aggregate=aggregate)
    val, scale = task_valuation(ti, mechanism, lower=mt, upper=_upper(ti)).scaled()
    z = add_var(b.problem, "z", None, float(val.value(val.upper).max()))
    for i in range(ti.n_agents):
        if val.upper[i] > val.lower[i]:
            b.problem.addConstraint(val.slope[i] * b.totals[i] + val.offset[i] - z >= 0, f"level_{i}")
    b.problem.setObjective(z)
    return MilpModel(b.problem, {"x": b.x, "z": z, "totals": b.totals},
                     f"max-min {mechanism} over integer tasks (values scaled by {scale:.6g})")


def tasks_leximin(ti: TaskInstance, /, *, mechanism: str = "drf", objective: str = "leximin",
                  solver: str | None = None, time_limit: float | None = None, mip_gap: float | None = None,
                  threads: int | None = None, msg: bool = False, options: Mapping[str, Any] | None = None,
                  min_tasks: Any = None, symmetry: bool = False, aggregate: bool = True,
                  decompose: bool = True, warm_start: bool | None = None,
                  export_dir: str | os.PathLike | None = None,
                  leximin_options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""Exact leximin (or max-min) allocation of indivisible tasks on servers (sequential MILPs).

    Parameters
    ----------
    ti : TaskInstance
    mechanism : {"drf", "sdrf", "tsf", "cdrf"}
        Which user value is maximised lexicographically (module docstring); weights divide.
    objective : {"leximin", "maxmin"}
        ``"maxmin"`` stops after the first MILP (any allocation with the best minimum; not
        Pareto-efficient in general).
    solver : str, optional
        MILP backend (``"highs"``, ``"cbc"``; :func:`fairalloc.available_solvers`\ ``("milp")``).
    time_limit : float, optional
        Seconds for the whole sequence (all components and MILPs).
    mip_gap : float, optional
        Relative gap for each MILP (default 0: proven). Positive gaps give FEASIBLE results.
    threads, msg, options
        Passed to the backend (:func:`fairalloc.exact.milp.solve_pulp`).
    min_tasks : array_like of int (n_agents,), optional
        Reservations: tasks each user must receive. Infeasible reservations give status INFEASIBLE,
        with a max-flow explanation in ``message`` when the flow condition already fails.
    symmetry, aggregate, decompose : bool
        Exact formulation improvements (module docstring); turn off to measure them.
    export_dir : path, optional
        Write every MILP solved as an ``.lp`` file there.
    leximin_options : mapping, optional
        Options of the leximin driver (:data:`fairalloc.exact.leximin.LEXIMIN_OPTIONS`: ``driver``,
        ``time_slice``, ``lp_bounds``, ...); checked before any work.

    Returns
    -------
    AllocationResult
        ``tasks`` (n_agents, n_servers) integers; ``shares`` the maximised values; ``level`` and
        ``objective`` the smallest of them (over users that can receive tasks); ``dominant_shares``;
        ``levels`` (SDRF levels); ``utilities`` (tasks per user); ``allocation`` (n_agents,
        n_resources) resources used, raw units. ``details["leximin"]``: the sorted leximin vector as
        (value, multiplicity) pairs. ``stats``: ``n_solves``, ``runtime_s``, ``n_components``,
        per-component rounds, ``resolution`` (the level tolerance's basis, see
        :mod:`fairalloc.exact.leximin`), ``flow_bound`` (max-flow upper bound on the max-min), and
        ``bound`` / ``mip_gap`` when not proven.

    Raises
    ------
    InvalidInstanceError
        Unknown ``mechanism`` / ``objective``, bad ``min_tasks``.
    SolverUnavailableError
        Unknown or missing ``solver`` (the message says what to install).

    Notes
    -----
    Method: see :mod:`fairalloc.exact.leximin` (the position driver by default, today's level
    driver with ``leximin_options={"driver": "levels"}``), per component. Users that can receive no
    task (``tasks[i] == 0``) keep their value at zero tasks and are left out of the max-min. The max-min level of users with
    weights or commitments is the level of Eq. 5 (SDRF) or the weighted share.

    Examples
    --------
    The DRF paper's example as integer tasks: 9 CPUs, 18 GB; A = <1, 4>, B = <3, 1>. A gets 3
    tasks, B 2, both at dominant share 2/3 (Ghodsi et al. [1]_, Section 4):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> r = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")
    >>> r.status.value, r.tasks.tolist(), r.dominant_shares.round(4).tolist()
    ('optimal', [[3], [2]], [0.6667, 0.6667])
    """
    mechanism, objective = _check_common(ti, mechanism, objective)
    check_solver_options("tasks_leximin", solver=solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads,
                         msg=msg, options=options, symmetry=symmetry, aggregate=aggregate, decompose=decompose,
                         warm_start=warm_start)
    mt = _min_tasks(ti, min_tasks)
    driver_opts = check_leximin_options(leximin_options)
    backend = get_backend(solver, "milp")
    t0 = time.perf_counter()
    n, m = ti.n_agents, ti.n_servers
    upper = _upper(ti)
    full_val = task_valuation(ti, mechanism, lower=mt, upper=upper)
    if decompose:
        comps = placement_components(ti)
    else:
        comps = [(np.arange(n), np.flatnonzero(edges(ti).any(axis=0)))]
    tasks = np.zeros((n, m), dtype=np.int64)
    sizes = [float(edges(ti)[np.ix_(u, s)].sum()) for u, s in comps]
    counts = {"dropped": 0, "aggregated": 0}

    def build(users: np.ndarray, servers: np.ndarray, label: str) -> _Built:
        built = _build(ti, users, servers, mechanism, min_tasks=None if mt is None else mt[users],
                       symmetry=symmetry, aggregate=aggregate, label=label)
        counts["dropped"] += built.n_rows_dropped
        counts["aggregated"] += sum(int(g[0].size) for g in built.groups)
        return built

    def place(built: _Built, users: np.ndarray, servers: np.ndarray, solution: Mapping[str, float]) -> None:
        tasks[np.ix_(users, servers)] = _extract(built, solution, users.size, servers.size)

    def flow(users: np.ndarray) -> Any:
        def check(required: np.ndarray) -> bool:       # the component's users -> the whole instance
            req = np.zeros(n, dtype=np.int64)
            req[users] = required
            return flow_check(ti, req).feasible
        return check

    status, message, stats, leximin = solve_by_components(
        comps, sizes, build, full_val, place, objective=objective, backend=backend, time_limit=time_limit, started=t0,
        mip_gap=mip_gap, threads=threads, msg=msg, options=options, export_dir=export_dir,
        warm_start=warm_start, flow=flow, disposable=not symmetry, **driver_opts)
    stats.update(runtime_s=time.perf_counter() - t0, rows_dropped=counts["dropped"],
                 aggregated_servers=counts["aggregated"], symmetry=symmetry, aggregate=aggregate,
                 decompose=decompose, warm_start=warm_start, mechanism=mechanism, objective=objective,
                 leximin_options=driver_opts)
    if status is Status.INFEASIBLE and mt is not None:
        verdict = flow_check(ti, mt)
        message = (f"min_tasks cannot be met: {verdict.message}" if not verdict.feasible else
                   f"min_tasks cannot be met (the max-flow condition holds, so the integer packing "
                   f"fails): {message}")
    if objective == "maxmin" and n * m <= 10_000:
        try:
            stats["flow_bound"] = maxmin_flow_bound(ti, full_val)
        except Exception as exc:  # noqa: BLE001 - a bound is a bonus, never a failure
            stats["flow_bound_error"] = str(exc)
    common = dict(mechanism=mechanism, method="milp", solver=backend.name, message=message, stats=stats)
    if status not in (Status.OPTIMAL, Status.FEASIBLE):
        return AllocationResult.from_arrays(status=status, **common)
    return _pack(ti, tasks, mechanism, leximin, status, common, full_val)


def _pack(ti: TaskInstance, tasks: np.ndarray, mechanism: str, leximin: list, status: Status,
          common: dict, val: Valuation) -> AllocationResult:
    x = tasks.sum(axis=1)
    d, totals = ti.task_demands, ti.cluster.totals
    dom = shares.dominant_share_of_tasks(x, d, totals)
    values = _value_fn(ti, mechanism)(x)
    movable = val.upper > val.lower
    low = float(values[movable].min()) if movable.any() else float(values.min())
    return AllocationResult.from_arrays(
        status=status, tasks=tasks, shares=values, allocation=x[:, None] * d, dominant_shares=dom,
        levels=shares.sdrf_levels(dom, ti.commitments, ti.weights), utilities=x.astype(float),
        level=low, objective=low,
        details={**({"leximin": np.array(leximin, dtype=float).reshape(-1, 2)} if leximin else {}),
                 "monopoly": ti.monopoly, "upper": val.upper, "usage": np.einsum("im,ir->mr", tasks, d)},
        **common)
