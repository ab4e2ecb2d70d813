r"""Divisible TSF on servers with placement constraints: progressive filling by LPs.

Task Share Fairness (Wang et al. [1]_) with divisible (fractional) tasks: :math:`x_{im} \ge 0` tasks of
user *i* on server *m*, only where :math:`p_{im} = 1`; per-server capacities
:math:`\sum_i d_{ir} x_{im} \le C_{mr}`; :math:`X_i = \sum_m x_{im} \le K_i`. The task shares
:math:`s_i = X_i / (w_i h_i)` (:func:`fairalloc.shares.task_shares`; :math:`h_i` the monopoly count of
TV-TSF Eq. 4, the same definition as the integer mechanisms, so divisible and integer results are
comparable) are maximised lexicographically.

Round *k* (free users *F*, frozen users at their levels :math:`\ell_j`):

.. math::

   t^\ast = \max t \quad\text{s.t.}\quad s_i \ge t\ (i\in F),\quad s_j \ge \ell_j\ (j \notin F),
   \quad\text{capacities, } X \le K.

Which free users must stay at :math:`t^\ast`? Those that cannot exceed it while all others keep
their levels. One LP finds several at once: maximise :math:`\sum_{i \in C}\epsilon_i` with
:math:`s_i \ge t^\ast + \epsilon_i`, :math:`0 \le \epsilon_i \le 1` over the undecided candidates *C*;
users with :math:`\epsilon_i > 0` can rise and leave *C*; when the optimum is 0, every user left in
*C* is frozen (if any one could rise alone the sum would be positive). The feasible set is convex,
so the users that can rise can do so *together* (average the witnesses). Each round freezes at
least one user; the number of LPs is at most about two per freezing round plus one per user
found able to rise.

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from .. import shares
from ..model import TaskInstance
from ..result import AllocationResult, Status
from .solvers import get_backend, solve_cvxpy

__all__ = ["tsf_lp"]


def tsf_lp(ti: TaskInstance, /, *, solver: str | None = None, options: Mapping[str, Any] | None = None,
           rise_tol: float = 1e-7) -> AllocationResult:
    """Divisible TSF on servers (fractional tasks) by LP progressive filling; see the module docstring.

    ``rise_tol``: an :math:`\\epsilon_i` above this (in units of the level) means user *i* can rise;
    it must exceed the LP backend's accuracy.
    """
    import cvxpy as cp

    if not isinstance(ti, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(ti).__name__}")
    backend = get_backend(solver, "lp")
    t0 = time.perf_counter()
    n, m = ti.n_agents, ti.n_servers
    d, caps, p = ti.task_demands, ti.cluster.capacities, ti.placement
    h = ti.monopoly
    coef = shares.task_shares(np.ones(n), h, ti.weights)            # s_i = coef_i * X_i
    want = ti.tasks.astype(float)
    mask = p.astype(float)
    x = cp.Variable((n, m), nonneg=True)
    X = cp.sum(cp.multiply(mask, x), axis=1)
    base = [cp.multiply(1 - mask, x) == 0, X <= want]
    for r in range(caps.shape[1]):
        base.append(d[:, r] @ cp.multiply(mask, x) <= caps[:, r])
    s = cp.multiply(coef, X)
    free = np.flatnonzero(want > 0)
    levels = np.zeros(n)
    frozen = np.zeros(n, dtype=bool)
    frozen[want <= 0] = True
    n_solves, worst, notes = 0, Status.OPTIMAL, []
    first = None

    def solve(obj: Any, cons: list) -> tuple[Any, Any]:
        nonlocal n_solves, worst
        prob = cp.Problem(cp.Maximize(obj), base + cons)
        out = solve_cvxpy(prob, backend, options=options)
        n_solves += 1
        if out.status is Status.FEASIBLE:
            worst = Status.FEASIBLE
            notes.append(out.message)
        return prob, out

    while free.size:
        t = cp.Variable()
        fixed = np.flatnonzero(frozen)
        cons = [s[free] >= t] + ([s[fixed] >= levels[fixed] - 1e-12] if fixed.size else [])
        _, out = solve(t, cons)
        if out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            return AllocationResult.from_arrays(status=out.status, mechanism="tsf", method="lp", solver=backend.name,
                                           message=f"LP {n_solves}: {out.message}",
                                           stats={"n_solves": n_solves, "runtime_s": time.perf_counter() - t0})
        t_star = float(t.value)
        first = t_star if first is None else first
        cand = free.copy()
        rising: list[int] = []
        while cand.size:
            eps = cp.Variable(cand.size)
            others = np.setdiff1d(free, cand)
            c2 = [s[cand] >= t_star + eps, eps >= 0, eps <= 1]
            if others.size:
                c2.append(s[others] >= t_star)
            if fixed.size:
                c2.append(s[fixed] >= levels[fixed] - 1e-12)
            _, out = solve(cp.sum(eps), c2)
            if out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                return AllocationResult.from_arrays(status=Status.ERROR, mechanism="tsf", method="lp",
                                               solver=backend.name, message=f"LP {n_solves}: {out.message}",
                                               stats={"n_solves": n_solves})
            up = eps.value > rise_tol * max(1.0, abs(t_star))
            if not up.any():
                break
            rising += cand[up].tolist()
            cand = cand[~up]
        stuck = cand
        if stuck.size == 0:      # numerically everybody rises: freeze the lowest (cannot happen exactly)
            stuck = free[:1]
            worst = Status.FEASIBLE
            notes.append("no user found frozen at a level (LP accuracy); froze one")
        levels[stuck] = t_star
        frozen[stuck] = True
        free = np.setdiff1d(free, stuck)
    # final allocation: every user at its level, solved once more to read x
    fixed = np.flatnonzero(frozen & (want > 0))
    prob, out = solve(cp.Constant(0), [s[fixed] >= levels[fixed] - 1e-12] if fixed.size else [])
    if out.status not in (Status.OPTIMAL, Status.FEASIBLE):
        return AllocationResult.from_arrays(status=Status.ERROR, mechanism="tsf", method="lp", solver=backend.name,
                                       message=f"final LP: {out.message}", stats={"n_solves": n_solves})
    xv = np.where(p, np.maximum(x.value, 0.0), 0.0)
    tot = xv.sum(axis=1)
    sh = shares.task_shares(tot, h, ti.weights)
    dom = shares.dominant_share_of_tasks(tot, d, ti.cluster.totals)
    msg = "; ".join(notes) if notes else f"{n_solves} LPs, each proven optimal by {backend.name}"
    return AllocationResult.from_arrays(
        status=worst, mechanism="tsf", method="lp", solver=backend.name, message=msg,
        tasks=xv, allocation=tot[:, None] * d, shares=sh, dominant_shares=dom,
        levels=shares.sdrf_levels(dom, ti.commitments, ti.weights), utilities=tot,
        level=first if first is not None else 0.0, objective=float(sh[want > 0].min()) if (want > 0).any() else 0.0,
        stats={"n_solves": n_solves, "runtime_s": time.perf_counter() - t0},
        details={"monopoly": h, "frozen_levels": levels})
