r"""Is an allocation of indivisible tasks Pareto-dominated? One MILP per question.

An allocation giving user *i* :math:`g_i` tasks (in total over its servers, and over the slots for a
time-varying instance) is **Pareto-dominated in task counts** when another feasible allocation gives
every user at least :math:`g_i` tasks and some user more. With values increasing in the task count
(every mechanism of :mod:`fairalloc.exact.tasks` and TV-TSF's cumulative task share), that is the
Pareto criterion of the TV-TSF paper (Eqs. 7-9) and of TSF. The test is one MILP over the same
feasible set as the exact programs (placement, per-server capacities, tasks wanted; for TV-TSF the
tasks running in every slot, and no more starts than submissions so far):

.. math:: \max \sum_i X_i \quad \text{s.t.} \quad X_i \ge g_i \ \forall i,

dominated exactly when the optimum exceeds :math:`\sum_i g_i`. The verdict is honest: ``True`` with a
witness (any incumbent with a larger total proves it, even one found before a time limit), ``False``
only when the backend *proved* the optimum equals :math:`\sum_i g_i`, ``None`` otherwise.

The programs are written once, here, on arrays: :func:`dominating_servers` (tasks on servers with
placement, integer or divisible, strong or weak) and :func:`dominating_schedule` (start schedules
over slots, TV-TSF Eqs. 7-9). :func:`pareto_improvement` and the axiom checkers of
``proofs_check`` both use them. The weak variant asks for an allocation giving *every* unsatisfied
user more (integer: one more task each, a feasibility program; divisible: maximise the smallest
increase *t*).

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Eqs. 7-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import shares
from ..model import TaskInstance, TimeVaryingInstance
from ..validation import check_solver_options
from ..result import Status
from .backends import solve_program
from .program import LinearProgram
from .solvers import get_backend

__all__ = ["ParetoVerdict", "Dominating", "pareto_improvement", "dominating_servers", "dominating_schedule"]


@dataclass(frozen=True)
class ParetoVerdict:
    """Outcome of :func:`pareto_improvement`.

    Attributes
    ----------
    dominated : bool or None
        True: a feasible allocation gives everyone at least as many tasks and ``extra`` more in total;
        False: proven that none exists; None: the solver stopped without deciding.
    extra : int or None
        How many more tasks in total the best allocation found gives (0 when not dominated).
    tasks : numpy.ndarray or None
        Per-user task totals of that allocation (the witness when dominated).
    status : Status
        The backend's status for the MILP.
    message : str
        Explanation of the verdict.
    stats : dict
        Backend figures (``runtime_s``, ...).

    Examples
    --------
    See :func:`pareto_improvement`.
    """

    dominated: bool | None
    extra: int | None
    tasks: np.ndarray | None
    status: Status
    message: str
    stats: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Dominating:
    """Outcome of :func:`dominating_servers` / :func:`dominating_schedule`.

    Attributes
    ----------
    status : Status
        The backend's (honest) status; INFEASIBLE when no improvement exists (weak form).
    value : float or None
        The optimum: strong, the largest total of tasks; weak integer, 1.0 when feasible; weak
        divisible, the largest common increase *t*.
    x : ndarray or None
        The allocation (N, M) or schedule (N, M, T).
    message : str
    stats : dict

    Examples
    --------
    See :func:`dominating_servers`.
    """

    status: Status
    value: float | None = None
    x: np.ndarray | None = None
    message: str = ""
    stats: dict = field(default_factory=dict)


def _program(n_cols: int, lb, ub, integer: bool, rows: list, row_lo: list, row_hi: list, cost) -> LinearProgram:
    A = sp.csr_matrix(np.array(rows, dtype=float).reshape(len(rows), n_cols))
    names = tuple(f"y{k}" for k in range(n_cols))
    return LinearProgram(names, np.asarray(lb, float), np.asarray(ub, float), np.full(n_cols, integer),
                         A, np.asarray(row_lo, float), np.asarray(row_hi, float),
                         tuple(f"r{k}" for k in range(len(rows))), np.asarray(cost, float), 0.0, True)


def _solve(prog: LinearProgram, solver: str | None, time_limit: float | None, proven: float | None):
    backend = get_backend(solver, "milp" if prog.is_mip else "lp")
    if not prog.is_mip and backend.name != "highs":
        backend = get_backend("highs", "lp")          # the divisible programs are LPs
    return solve_program(prog, backend, time_limit=time_limit, proven_gap=proven)


def dominating_servers(task_demands: Any, capacities: Any, placement: Any, totals: Any, caps: Any, *,
                       integer: bool = True, weak: bool = False, solver: str | None = None,
                       time_limit: float | None = None) -> Dominating:
    r"""Best Pareto improvement of task totals on servers.

    Variables :math:`y_{il} \ge 0` for eligible (i, l) (integer when ``integer``). Strong: maximise
    :math:`\sum y` s.t. :math:`X_i \le \sum_l y_{il} \le K_i` and per-server capacities. Weak: maximise
    *t* with :math:`\sum_l y_{il} \ge X_i + t` for every unsatisfied user (integer: feasibility of
    t = 1). ``x`` is the (n, M) matrix y.

    Parameters
    ----------
    task_demands : array_like, shape (n, K)
        One task's demand per user.
    capacities : array_like, shape (M, K)
        Server capacities, same units.
    placement : array_like of bool, shape (n, M)
        Eligibility.
    totals : array_like, shape (n,)
        :math:`X_i`, the task totals to improve on.
    caps : array_like, shape (n,)
        :math:`K_i`, the tasks each user wants at most.
    integer : bool, optional
        Integer tasks (default True) or divisible ones.
    weak : bool, optional
        Weak domination (every unsatisfied user strictly better) instead of strong (default False).
    solver : str, optional
        Backend (MILP when ``integer``, else LP).
    time_limit : float, optional
        Seconds.

    Returns
    -------
    Dominating

    Examples
    --------
    One server of 10 units; tasks of 6 and 5 units; from nothing, at most 2 tasks fit (user 1's
    5 + 5; 6 + 5 = 11 does not fit). Both users at once (weak, integer) is impossible; divisible, both
    can get :math:`t` with :math:`6t + 5t = 10`, :math:`t = 10/11`:

    >>> dominating_servers([[6], [5]], [[10]], [[1], [1]], [0, 0], [2, 2]).value
    2.0
    >>> dominating_servers([[6], [5]], [[10]], [[1], [1]], [0, 0], [2, 2], weak=True).status.value
    'infeasible'
    >>> round(dominating_servers([[6], [5]], [[10]], [[1], [1]], [0, 0], [2, 2], weak=True, integer=False).value, 6)
    0.909091
    """
    check_solver_options("dominating_servers", solver=solver, time_limit=time_limit)
    d = np.asarray(task_demands, float)
    c = np.asarray(capacities, float)
    p = np.asarray(placement, bool)
    X = np.asarray(totals, float)
    K = np.asarray(caps, float)
    n, M = p.shape
    R = d.shape[1]
    pairs = [(i, l) for i in range(n) for l in range(M) if p[i, l]]
    nv = len(pairs)
    unsat = X < K - 1e-9
    extra = 1 if (weak and not integer) else 0
    width = nv + extra
    rows, lo, hi = [], [], []
    for l in range(M):
        for r in range(R):
            row = np.zeros(width)
            for k, (i, ll) in enumerate(pairs):
                if ll == l:
                    row[k] = d[i, r]
            if row.any():
                rows.append(row), lo.append(-math.inf), hi.append(c[l, r])
    for i in range(n):
        row = np.zeros(width)
        for k, (ii, _) in enumerate(pairs):
            if ii == i:
                row[k] = 1.0
        if weak and unsat[i] and not integer:
            r2 = row.copy()
            r2[nv] = -1.0
            rows.append(r2), lo.append(X[i]), hi.append(math.inf)          # sum_l y_il - t >= X_i
            rows.append(row), lo.append(-math.inf), hi.append(K[i])
        else:
            need = X[i] + (1.0 if weak and unsat[i] else 0.0)
            rows.append(row), lo.append(need), hi.append(K[i])
    lb = [0.0] * nv + ([-math.inf] if extra else [])
    ub = [float(K[i]) for (i, _) in pairs] + ([math.inf] if extra else [])
    if weak and integer:
        cost = np.zeros(width)
    elif weak:
        cost = np.zeros(width)
        cost[nv] = 1.0
    else:
        cost = np.ones(width)
    if nv == 0:
        ok = bool(np.all(np.asarray(lo) <= 1e-9)) if lo else True
        return Dominating(Status.OPTIMAL if ok else Status.INFEASIBLE, 0.0 if ok else None,
                          np.zeros((n, M)) if ok else None)
    prog = _program(width, lb, ub, integer, rows, lo, hi, cost)
    out, x = _solve(prog, solver, time_limit, 0.5 if integer and not weak else None)
    if x is None:
        return Dominating(out.status, None, None, out.message, dict(out.stats))
    y = np.zeros((n, M))
    for k, (i, l) in enumerate(pairs):
        y[i, l] = x[k]
    value = 1.0 if (weak and integer) else float(out.objective)
    return Dominating(out.status, value, y, out.message, dict(out.stats))


def dominating_schedule(task_demands: Any, capacities: Any, placement: Any, arrivals: Any, durations: Any,
                        totals: Any, *, weak: bool = False, solver: str | None = None,
                        time_limit: float | None = None) -> Dominating:
    r"""Best Pareto improvement of the task totals of a start schedule (TV-TSF Eqs. 7-9), an MILP.

    Variables :math:`y_{imt} \in \mathbb{N}` (tasks of *i* started on *m* in *t*) where *i* may use *m*,
    one task of :math:`d_i(t)` fits there and *i* has submitted something by *t*. Constraints: for every
    server, resource and slot, the tasks running hold at most the capacity,
    :math:`\sum_i\sum_{\tau=t-e_i+1}^{t} d_{ir}(\tau) y_{im\tau} \le C_{mr}` (Eq. 10b); for every user
    and slot, :math:`\sum_{m,\tau\le t} y_{im\tau} \le \sum_{\tau\le t} B_i(\tau)`; totals
    :math:`\sum_{m,t} y_{imt} \ge X_i` (weak: :math:`\ge X_i + 1` for every unsatisfied user).
    Strong: maximise the sum of the totals (``value``); weak: feasibility (``value`` 1). ``x`` is
    the (N, M, T) schedule.

    Parameters
    ----------
    task_demands : array_like, shape (N, T, K)
        :math:`d_{ir}(t)`, one task's demand per user and slot.
    capacities : array_like, shape (M, K)
        :math:`C_{mr}`.
    placement : array_like of bool, shape (N, M)
        :math:`p_{im}`.
    arrivals : array_like, shape (N, T)
        :math:`B_i(t)`, tasks submitted per slot.
    durations : array_like of int, shape (N,)
        :math:`e_i`, slots a task runs.
    totals : array_like, shape (N,)
        :math:`X_i`, the totals to improve on.
    weak : bool, optional
        Weak instead of strong domination (default False).
    solver : str, optional
        MILP backend.
    time_limit : float, optional
        Seconds.

    Returns
    -------
    Dominating

    Examples
    --------
    One server of 2 units, 2 slots, unit tasks; user 0 submits 2 tasks lasting 2 slots in slot 0, user
    1 one task of 1 slot in each slot. By hand the most that can start is 3: user 0's two tasks
    started together fill both slots (total 2); one of each in slot 0 leaves one unit in slot 1 for a
    third task. Totals (1, 1) cannot both rise (4 would be needed):

    >>> d = [[[1], [1]], [[1], [1]]]
    >>> dominating_schedule(d, [[2]], [[1], [1]], [[2, 0], [1, 1]], [2, 1], [0, 0]).value
    3.0
    >>> dominating_schedule(d, [[2]], [[1], [1]], [[2, 0], [1, 1]], [2, 1], [1, 1], weak=True).status.value
    'infeasible'
    """
    check_solver_options("dominating_schedule", solver=solver, time_limit=time_limit)
    d = np.asarray(task_demands, float)              # (N, T, K)
    c = np.asarray(capacities, float)                # (M, K)
    p = np.asarray(placement, bool)
    B = np.asarray(arrivals, float)
    e = np.asarray(durations, int)
    X = np.asarray(totals, float)
    n, T, R = d.shape
    M = c.shape[0]
    cumB = np.cumsum(B, axis=1)
    K = cumB[:, -1]
    fits = shares.tasks_that_fit(c[None, None, :, :], d[:, :, None, :])          # (N, T, M)
    idx = {}
    for i in range(n):
        for m in range(M):
            for t in range(T):
                if p[i, m] and fits[i, t, m] >= 1 and cumB[i, t] > 0:
                    idx[i, m, t] = len(idx)
    nv = len(idx)
    unsat = X < K - 1e-9
    if nv == 0:
        ok = bool(np.all(X + (unsat if weak else 0) <= 0))
        return (Dominating(Status.OPTIMAL, 0.0, np.zeros((n, M, T))) if ok
                else Dominating(Status.INFEASIBLE, message="no start is possible"))
    rows, lo, hi = [], [], []
    for m in range(M):
        for r in range(R):
            for t in range(T):
                row = np.zeros(nv)
                for (i, mm, tau), k in idx.items():
                    if mm == m and tau <= t < tau + e[i]:
                        row[k] = d[i, tau, r]
                if row.any():
                    rows.append(row), lo.append(-math.inf), hi.append(c[m, r])
    for i in range(n):
        for t in range(T):
            row = np.zeros(nv)
            for (ii, _, tau), k in idx.items():
                if ii == i and tau <= t:
                    row[k] = 1.0
            if row.any():
                rows.append(row), lo.append(-math.inf), hi.append(cumB[i, t])
        row = np.zeros(nv)
        for (ii, _, _), k in idx.items():
            if ii == i:
                row[k] = 1.0
        rows.append(row), lo.append(X[i] + (1.0 if weak and unsat[i] else 0.0)), hi.append(math.inf)
    ub = [float(min(K[i], fits[i, t, m])) for (i, m, t) in idx]
    prog = _program(nv, np.zeros(nv), ub, True, rows, lo, hi, np.zeros(nv) if weak else np.ones(nv))
    out, x = _solve(prog, solver, time_limit, None if weak else 0.5)
    if x is None:
        return Dominating(out.status, None, None, out.message, dict(out.stats))
    y = np.zeros((n, M, T))
    for (i, m, t), k in idx.items():
        y[i, m, t] = x[k]
    return Dominating(out.status, 1.0 if weak else float(out.objective), np.round(y), out.message,
                      dict(out.stats))


def _per_user(instance: Any, tasks: Any) -> np.ndarray:
    t = np.asarray(tasks)
    n = instance.n_agents
    if t.ndim == 1 and t.shape[0] == n:
        g = t
    elif t.ndim >= 2 and t.shape[0] == n:
        g = t.reshape(n, -1).sum(axis=1)
    else:
        from ..errors import InvalidInstanceError
        raise InvalidInstanceError(f"tasks has shape {t.shape}; expected ({n},) per user or ({n}, ...) "
                                   "per user and server (and slot)", argument="tasks", value=t.shape)
    return np.rint(g).astype(np.int64)


def pareto_improvement(instance: TaskInstance | TimeVaryingInstance, tasks: Any, /, *,
                       solver: str | None = None, time_limit: float | None = None) -> ParetoVerdict:
    r"""Decide whether the allocation ``tasks`` of ``instance`` is Pareto-dominated in task counts.

    Parameters
    ----------
    instance : TaskInstance or TimeVaryingInstance
    tasks : array_like
        Tasks per user (N,), or per user and server (N, M), or starts per user, server and slot
        (N, M, T) for a time-varying instance (e.g. a greedy result's ``tasks``).
    solver : str, optional
        MILP backend (:func:`fairalloc.available_solvers` ``("milp")``).
    time_limit : float, optional

    Returns
    -------
    ParetoVerdict

    Examples
    --------
    One server of 10 units; users want 2 tasks of 6 and 2 tasks of 5 units. Giving user 0 one task
    is not dominated (6 + 5 > 10); giving nobody anything is (user 1 can get 2 tasks):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[10]], [[6], [5]], tasks=[2, 2])
    >>> pareto_improvement(ti, [1, 0], solver="highs").dominated
    False
    >>> v = pareto_improvement(ti, [0, 0], solver="highs")
    >>> v.dominated, v.extra, v.tasks.tolist()
    (True, 2, [0, 2])
    """
    check_solver_options("pareto_improvement", solver=solver, time_limit=time_limit)
    g = _per_user(instance, tasks)
    if isinstance(instance, TimeVaryingInstance):
        out = dominating_schedule(instance.task_demands, instance.cluster.capacities, instance.placement,
                                  instance.arrivals, instance.durations, g, solver=solver, time_limit=time_limit)
        found = None if out.x is None else np.rint(out.x.sum(axis=(1, 2))).astype(np.int64)
    elif isinstance(instance, TaskInstance):
        out = dominating_servers(instance.task_demands, instance.cluster.capacities, instance.placement,
                                 np.minimum(g, instance.tasks), instance.tasks, solver=solver,
                                 time_limit=time_limit)
        found = None if out.x is None else np.rint(out.x.sum(axis=1)).astype(np.int64)
    else:
        raise TypeError(f"instance must be a TaskInstance or TimeVaryingInstance, got {type(instance).__name__}")
    base = int(g.sum())
    best = None if found is None else int(found.sum())
    if best is not None and best > base:
        return ParetoVerdict(True, best - base, found, out.status,
                             f"dominated: {best - base} more task(s) with nobody worse off", dict(out.stats))
    if out.status is Status.OPTIMAL:
        return ParetoVerdict(False, 0, found, out.status, "not dominated (proven)", dict(out.stats))
    return ParetoVerdict(None, None, found, out.status, f"undecided: {out.message}", dict(out.stats))
