"""The linear and mixed-integer programs the checkers solve (HiGHS, through fairalloc's one route).

* :func:`dominating_pooled`: Pareto LP for pooled Leontief users (``axioms.md``: maximise
  :math:`\\sum_i y_i` s.t. :math:`\\sum_i y_i \\theta_{ir} \\le C_r`, :math:`u_i \\le y_i \\le 1`), and its
  weak variant (maximise *t* with :math:`y_i \\ge u_i + t` for every unsatisfied user).
* :func:`dominating_servers`: the same on servers with placement, LP (divisible) or MILP (integer);
  the program is :func:`fairalloc.exact.pareto.dominating_servers` (one implementation).
* :func:`dominating_schedule`: the same over the whole horizon of a time-varying instance (TV-TSF
  Eqs. 7-9), :func:`fairalloc.exact.pareto.dominating_schedule`.
* :func:`envy_free_placement`: is there a placement of given task totals under which nobody envies?
  The utility :math:`\\sum_l \\min_r(\\cdot)` is concave in the bundle, so "u_i(A_j) <= X_i" is a
  disjunction (one LP per choice of the minimising resource on every server); it is encoded exactly
  with binary selectors and big-M bounds and solved as one MILP.

Every program is a :class:`fairalloc.exact.program.LinearProgram` solved by HiGHS through
:func:`fairalloc.exact.backends.solve_lp` (LPs) or :func:`~fairalloc.exact.backends.solve_program`
(MILPs): fairalloc's one route, with its status table (OPTIMAL only when HiGHS proved it) and its
check of every returned point. Every function returns an :class:`Outcome` whose ``status`` is that
status; callers turn a non-optimal status into an undecided verdict (``holds=None``), never into a
violation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from fairalloc import Status
from fairalloc.exact import pareto
from fairalloc.exact.backends import solve_lp, solve_program
from fairalloc.exact.program import LinearProgram
from fairalloc.exact.solvers import get_backend

__all__ = ["Outcome", "dominating_pooled", "dominating_servers", "dominating_schedule", "envy_free_placement"]


@dataclass(frozen=True)
class Outcome:
    """What one program gave: ``status`` (:class:`fairalloc.Status`), the optimum, the solution."""

    status: Status              # OPTIMAL only when HiGHS proved it
    value: float | None = None  # objective at the optimum
    x: np.ndarray | None = None
    info: Any = None
    message: str = ""           # the solver's words when not optimal

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))

    @property
    def ok(self) -> bool:
        return self.status is Status.OPTIMAL


def _not_optimal(out: Any, what: str) -> Outcome:
    """An :class:`Outcome` for a program that was not proven optimal: the backend's status and words."""
    return Outcome(out.status, message=f"{what}: {out.message}")


def _program(c, A, row_lo, row_hi, lo, hi, integer) -> LinearProgram:
    """minimise c @ x subject to row_lo <= A x <= row_hi, lo <= x <= hi (integer where ``integer``)."""
    c = np.asarray(c, dtype=float)
    A = sp.csr_matrix(np.asarray(A, dtype=float).reshape(-1, c.size))
    return LinearProgram(tuple(f"x{k}" for k in range(c.size)), np.asarray(lo, dtype=float),
                         np.asarray(hi, dtype=float), np.asarray(integer, dtype=bool), A,
                         np.asarray(row_lo, dtype=float), np.asarray(row_hi, dtype=float),
                         tuple(f"r{k}" for k in range(A.shape[0])), c, 0.0, False)


def _solve(prog: LinearProgram, time_limit: float | None) -> tuple[Any, Any]:
    if prog.is_mip:
        return solve_program(prog, get_backend("highs", "milp"), time_limit=time_limit)
    return solve_lp(prog, time_limit=time_limit)


def _lp(c, A_ub, b_ub, bounds, *, integrality=None, time_limit=None) -> Outcome:
    """minimise c @ x subject to A_ub x <= b_ub and bounds ((lo, hi) pairs, None: unbounded), by HiGHS."""
    c = np.asarray(c, dtype=float)
    lo = [-np.inf if a is None else a for a, _ in bounds]
    hi = [np.inf if b is None else b for _, b in bounds]
    integer = np.zeros(c.size, bool) if integrality is None else np.asarray(integrality, bool)
    b_ub = np.asarray(b_ub, dtype=float)
    A = np.asarray(A_ub, dtype=float).reshape(b_ub.size, c.size)
    out, x = _solve(_program(c, A, np.full(b_ub.size, -np.inf), b_ub, lo, hi, integer), time_limit)
    if out.status is Status.OPTIMAL:
        return Outcome("optimal", float(out.objective), np.asarray(x))
    return _not_optimal(out, "milp" if integer.any() else "lp")


def dominating_pooled(a, u, *, weak: bool = False, satisfied=None) -> Outcome:
    r"""Best Pareto improvement of utilities ``u`` (fractions) for normalised demands ``a`` (n, m).

    Strong: maximise :math:`\sum y` with :math:`u \le y \le 1`, :math:`\sum_i y_i a_{ir} \le 1`; returns
    ``value`` = the maximum of :math:`\sum y` and ``x`` = y. Weak: maximise *t* with
    :math:`y_i \ge u_i + t` for unsatisfied users, :math:`y_i \ge u_i` for the others; ``value`` = t*,
    ``x`` = y.
    """
    a = np.asarray(a, dtype=float)
    u = np.minimum(np.asarray(u, dtype=float), 1.0)
    n, m = a.shape
    if not weak:
        out = _lp(-np.ones(n), a.T, np.ones(m), list(zip(u, np.ones(n))))
        return Outcome(out.status, None if out.value is None else -out.value, out.x, message=out.message)
    sat = np.zeros(n, bool) if satisfied is None else np.asarray(satisfied, bool)
    # variables (y_1..y_n, t): maximise t; -y_i + t <= -u_i for unsatisfied i
    rows = [np.concatenate([a[:, r], [0.0]]) for r in range(m)]
    rhs = [1.0] * m
    for i in np.flatnonzero(~sat):
        row = np.zeros(n + 1)
        row[i], row[n] = -1.0, 1.0
        rows.append(row)
        rhs.append(-u[i])
    c = np.zeros(n + 1)
    c[n] = -1.0
    out = _lp(c, np.array(rows), np.array(rhs), list(zip(u, np.ones(n))) + [(None, 1.0)])
    return Outcome(out.status, None if out.value is None else -out.value,
                   None if out.x is None else out.x[:n], message=out.message)


def _from_dominating(out: Any) -> Outcome:
    """fairalloc's :class:`~fairalloc.exact.pareto.Dominating` as an :class:`Outcome`: its status
    (OPTIMAL only when the backend proved it), value, solution and, when not optimal, its message."""
    if out.status is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, out.value, out.x, out.stats)
    return Outcome(out.status, message=out.message)


def dominating_servers(task_demands, capacities, placement, totals, caps, *, integer: bool,
                       weak: bool = False, time_limit: float | None = None) -> Outcome:
    """Best Pareto improvement of task totals on servers: the one program,
    :func:`fairalloc.exact.pareto.dominating_servers` (see there), solved with HiGHS."""
    return _from_dominating(pareto.dominating_servers(task_demands, capacities, placement, totals, caps,
                                                      integer=integer, weak=weak, solver="highs",
                                                      time_limit=time_limit))


def dominating_schedule(task_demands, capacities, placement, arrivals, durations, totals, *,
                        weak: bool = False, time_limit: float | None = None) -> Outcome:
    """Best Pareto improvement of a start schedule (TV-TSF Eqs. 7-9): the one program,
    :func:`fairalloc.exact.pareto.dominating_schedule` (see there), solved with HiGHS."""
    return _from_dominating(pareto.dominating_schedule(task_demands, capacities, placement, arrivals, durations,
                                                       totals, weak=weak, solver="highs", time_limit=time_limit))


def envy_free_placement(task_demands, capacities, placement, totals, caps, weights=None, *,
                        integer: bool, weighted: bool = False,
                        time_limit: float | None = None) -> Outcome:
    r"""Is there a placement :math:`y` of the task totals :math:`X` under which nobody envies anybody?

    For every ordered pair (i, j), i unsatisfied, every server l eligible for both and every resource
    r that i needs, a binary :math:`z_{ijlr}` selects the resource attaining
    :math:`\min_r y_{jl} d_{jr}/d_{ir}`; :math:`t_{ijl}` bounds it from above on that resource only
    (integer tasks: :math:`\lfloor\cdot\rfloor \le t_{ijl}`, :math:`t` integer), and
    :math:`\sum_l t_{ijl} \le X_i` (weighted: :math:`\le X_i w_j / w_i`). The floor is encoded as
    :math:`v \le t + 1 - \epsilon` with :math:`\epsilon = 10^{-4}`: it must exceed the solver's
    integrality tolerance (1e-6) times the big-M, or a selector at :math:`1 - 10^{-6}` slips through
    (CBC then calls an infeasible instance feasible, HiGHS reports a solve error); task ratios in
    fairalloc's instances are far coarser than 1e-4. Returns ``"optimal"`` with
    ``x`` = an envy-free placement, or ``"infeasible"`` when none exists (the disjunction of LPs is
    empty).
    """
    d = np.asarray(task_demands, float)
    c = np.asarray(capacities, float)
    p = np.asarray(placement, bool)
    X = np.asarray(totals, float)
    K = np.asarray(caps, float)
    w = np.ones(len(X)) if weights is None else np.asarray(weights, float)
    n, M = p.shape
    R = d.shape[1]
    names: list[tuple] = []
    lo: list[float] = []
    hi: list[float] = []
    integ: list[int] = []

    def var(name, low, high, is_int):
        names.append(name); lo.append(low); hi.append(high); integ.append(int(is_int))
        return len(names) - 1

    y = {}
    for j in range(n):
        for l in range(M):
            if p[j, l]:
                y[j, l] = var(("y", j, l), 0.0, X[j], integer)
    rows: list[dict[int, float]] = []
    rhs_lo: list[float] = []
    rhs_hi: list[float] = []
    for j in range(n):                                             # totals kept
        rows.append({y[j, l]: 1.0 for l in range(M) if p[j, l]}); rhs_lo.append(X[j]); rhs_hi.append(X[j])
    for l in range(M):                                             # capacities
        for r in range(R):
            row = {y[j, l]: d[j, r] for j in range(n) if p[j, l] and d[j, r] > 0}
            if row:
                rows.append(row); rhs_lo.append(-np.inf); rhs_hi.append(c[l, r])
    eps = 1e-4                 # well above HiGHS' integrality tolerance times big (see the docstring)
    for i in range(n):
        if X[i] >= K[i] - 1e-9:
            continue                                               # satisfied users envy nobody
        need = np.flatnonzero(d[i] > 0)
        for j in range(n):
            if j == i:
                continue
            ts = []
            for l in range(M):
                if not (p[i, l] and p[j, l]):
                    continue
                big = X[j] * float(np.max(d[j, need] / d[i, need])) + 2.0
                t = var(("t", i, j, l), 0.0, big, integer)
                ts.append(t)
                zs = [var(("z", i, j, l, r), 0.0, 1.0, True) for r in need]
                rows.append({z: 1.0 for z in zs}); rhs_lo.append(1.0); rhs_hi.append(1.0)
                for z, r in zip(zs, need):
                    # y_jl d_jr / d_ir - t - (1 - eps if integer) <= big (1 - z)
                    shift = (1.0 - eps) if integer else 0.0
                    rows.append({y[j, l]: d[j, r] / d[i, r], t: -1.0, z: big})
                    rhs_lo.append(-np.inf); rhs_hi.append(big + shift)
            if ts:
                bound = X[i] * (w[j] / w[i] if weighted else 1.0)
                rows.append({t: 1.0 for t in ts}); rhs_lo.append(-np.inf); rhs_hi.append(bound)
    nv = len(names)
    A = np.zeros((len(rows), nv))
    for k, row in enumerate(rows):
        for v, coef in row.items():
            A[k, v] += coef
    out, x = _solve(_program(np.zeros(nv), A, rhs_lo, rhs_hi, lo, hi, integ), time_limit)
    if out.status is not Status.OPTIMAL:
        return _not_optimal(out, "milp" if any(integ) else "lp")
    place = np.zeros((n, M))
    for (j, l), k in y.items():
        place[j, l] = x[k]
    return Outcome("optimal", 0.0, place)
