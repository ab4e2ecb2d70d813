r"""Competitive equilibrium from equal incomes (CEEI) for Leontief users, by the Eisenberg-Gale program.

With Leontief preferences a user's bundle is :math:`u_i\theta_i` (fraction :math:`u_i` of its demand
:math:`\theta_i`), and the CEEI allocation with budgets :math:`b_i` maximises the budget-weighted Nash
welfare (Eisenberg-Gale [2]_), in normalised units :math:`a_{ir} = \theta_{ir}/C_r`:

.. math::

   \max_u \sum_i b_i \log u_i \quad\text{s.t.}\quad \sum_i u_i a_{ir} \le 1\ \ \forall r,
   \qquad 0 \le u_i \le 1.

The multipliers of the capacity constraints are the equilibrium prices :math:`p_r`; an unsatisfied
user spends its whole budget, :math:`u_i \sum_r p_r a_{ir} = b_i`. The cap :math:`u_i \le 1` (users
want no more than their demand) is an extension of the textbook market: a satisfied user may spend
less than its budget. CEEI is sharing-incentive, envy-free and Pareto efficient but **not**
strategy-proof (Ghodsi et al. [1]_ Section 4.2), which is why ``proofs_check`` uses it as a foil.

References
----------
.. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant Resource
   Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011.
.. [2] E. Eisenberg, D. Gale, "Consensus of subjective probabilities: the pari-mutuel method",
   Annals of Mathematical Statistics 30(1), 1959.
.. [3] H. Varian, "Equity, envy, and efficiency", Journal of Economic Theory 9, 1974 (CEEI).
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

from .. import shares
from ..errors import SolverUnavailableError
from ..exact.solvers import get_backend, solve_cvxpy
from ..model import Instance
from ..result import SOLUTION_PRESENT, AllocationResult, Status
from ._front_door import options_named
from ._pooled import check_instance

__all__ = ["ceei"]

#: Backends that handle the exponential cone of ``log``; the first installed one is the default.
CONIC_SOLVERS = ("clarabel", "scs", "mosek")

_CACHE_SIZE = 16
_cache: "OrderedDict[tuple[int, int], tuple[Any, ...]]" = OrderedDict()
_lock = threading.Lock()


def _problem(n: int, m: int):
    """A compiled, parametrised Eisenberg-Gale program for n users and m resources (cached by shape).

    Demands and budgets are cvxpy Parameters (DPP), so repeated solves of the same shape skip
    cvxpy's canonicalisation; the cache only saves time and never changes a result.
    """
    import cvxpy as cp

    key = (n, m)
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    u = cp.Variable(n, nonneg=True)
    a_t = cp.Parameter((m, n), nonneg=True)        # a_t[r, i] = a_ir
    b = cp.Parameter(n, nonneg=True)
    cap = a_t @ u <= 1.0
    prob = cp.Problem(cp.Maximize(b @ cp.log(u)), [cap, u <= 1.0])
    entry = (prob, u, a_t, b, cap)
    _cache[key] = entry
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return entry


def _conic_backend(solver: str | None):
    """The conic backend (CEEI's program has an exponential cone: cvxpy, fairalloc's conic route)."""
    if solver is None:
        for name in CONIC_SOLVERS:
            try:
                return get_backend(name, "conic")
            except SolverUnavailableError:
                continue
        raise SolverUnavailableError("ceei needs an exponential-cone solver: pip install clarabel")
    if not isinstance(solver, str) or solver.lower() not in CONIC_SOLVERS:
        raise SolverUnavailableError(
            f"solver {solver!r} cannot solve the Eisenberg-Gale program (it needs the exponential cone); "
            f"use one of {', '.join(CONIC_SOLVERS)}")
    return get_backend(solver, "conic")


def _polish(a: np.ndarray, w: np.ndarray, u: np.ndarray, p: np.ndarray | None,
            tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray] | None:
    r"""Refine an interior-point solution by Newton's method on its KKT system; None if that fails.

    With the active set read from the approximate solution (priced resources S, satisfied users),
    the prices solve :math:`\sum_{i\,\text{unsat}} a_{ir} w_i / (a_i \cdot p) + \sum_{i\,\text{sat}} a_{ir} = 1`
    for :math:`r \in S` (the gradient of the convex dual), and :math:`u_i = w_i / (a_i\cdot p)`.
    The refined point is returned only if it satisfies every KKT condition to ``tol`` (so it is
    optimal for the convex program); otherwise the caller keeps the solver's point.
    """
    if p is None:
        return None
    n, m = a.shape
    sat = u > 1.0 - 1e-5
    S = np.flatnonzero(p > 1e-7 * max(1.0, float(p.max(initial=0.0))))
    unsat = ~sat
    if S.size == 0:
        return None
    q = np.array(p[S], dtype=float)
    aS = a[:, S]
    base = a[sat][:, S].sum(axis=0)
    for _ in range(50):
        spend = aS[unsat] @ q                               # a_i . p for unsatisfied users
        if np.any(spend <= 0):
            return None
        F = (aS[unsat] * (w[unsat] / spend)[:, None]).sum(axis=0) + base - 1.0
        if np.max(np.abs(F)) < 1e-15:
            break
        J = -(aS[unsat].T * (w[unsat] / spend**2)) @ aS[unsat]
        step = np.linalg.lstsq(J, -F, rcond=None)[0]          # J may be singular (identical users)
        t = 1.0
        while np.any(q + t * step <= 0) and t > 1e-8:
            t /= 2
        q = q + t * step
    prices = np.zeros(m)
    prices[S] = q
    unew = np.ones(n)
    unew[unsat] = w[unsat] / (aS[unsat] @ q)
    # verify the KKT conditions of max sum w log u s.t. a^T u <= 1, u <= 1
    use = unew @ a
    if np.any(unew > 1.0 + tol) or np.any(unew <= 0) or np.any(use > 1.0 + tol):
        return None
    if np.any(np.abs(use[S] - 1.0) > tol):
        return None
    if np.any(a[sat] @ prices > w[sat] * (1.0 + 1e-9) + tol):   # satisfied users: spend <= budget
        return None
    return np.minimum(unew, 1.0), prices


def ceei(instance: Instance, /, *, solver: str | None = None,
         options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""CEEI allocation (budgets = the instance's weights; equal weights = equal incomes).

    Parameters
    ----------
    instance : Instance
    solver : {"clarabel", "scs", "mosek"}, optional
        Conic backend (default: the first installed of :data:`CONIC_SOLVERS`).
    options : mapping, optional
        Passed to the backend untouched.

    Returns
    -------
    AllocationResult
        ``allocation`` (bundles :math:`u_i\theta_i` in capacity units), ``utilities`` (:math:`u_i`),
        ``dominant_shares``, ``objective`` (the budget-weighted Nash welfare),
        ``details["prices"]`` (price of each resource's whole capacity, budgets summing to
        :math:`\sum_i b_i`), ``details["polished"]``. ``status`` is OPTIMAL only when the backend
        proved it.

    Notes
    -----
    Interior-point solutions of this program are accurate to about 1e-6 in :math:`u` on degenerate
    instances (identical users), too coarse for axiom checks. The solver's point is therefore
    refined by Newton's method on the KKT system of its active set (``_polish``) and the refined point
    is kept only when it satisfies every KKT condition to 1e-12 (``details["polished"]`` says
    whether it was); otherwise the solver's point is returned as is.

    Raises
    ------
    SolverUnavailableError
        If ``solver`` cannot handle the exponential cone or is not installed.

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; A = <1, 4>, B = <3, 1> per task). By hand: with both
    resources full, :math:`x_A + 3x_B = 9` and :math:`4x_A + x_B = 18` give :math:`x_A = 45/11`,
    :math:`x_B = 18/11`; the KKT conditions :math:`1/x_A = p_1 + 4p_2`, :math:`1/x_B = 3p_1 + p_2`
    hold with prices per unit :math:`p_1 = 1/5`, :math:`p_2 = 1/90` (both >= 0), so this is the optimum:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> r = fa.ceei(inst)
    >>> (r.allocation / [[1, 4], [3, 1]])[:, 0].round(6).tolist()       # 45/11, 18/11 tasks
    [4.090909, 1.636364]
    """
    check_instance(instance)
    backend = _conic_backend(solver)
    n, m = instance.n_agents, instance.n_resources
    a = shares.normalized_demands(instance.demands, instance.capacities)
    budgets = instance.weights
    t0 = time.perf_counter()
    with _lock:
        prob, u, a_t, b, cap = _problem(n, m)
        a_t.value = np.ascontiguousarray(a.T)
        b.value = np.asarray(budgets, dtype=float)
        with warnings.catch_warnings():          # cvxpy's "may be inaccurate" is reported as the status
            warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
            with options_named("ceei", options):
                out = solve_cvxpy(prob, backend, options=options)
        uval = None if u.value is None else np.array(u.value, dtype=float)
        prices = None if cap.dual_value is None else np.array(cap.dual_value, dtype=float).reshape(-1)
    stats = dict(out.stats)
    stats["runtime_s"] = time.perf_counter() - t0
    if out.status not in SOLUTION_PRESENT or uval is None:
        status = out.status if out.status not in SOLUTION_PRESENT else Status.ERROR
        return AllocationResult(status=status, mechanism="ceei", method="eisenberg-gale",
                                solver=backend.name, message=out.message, stats=stats)
    uval = np.clip(uval, 0.0, 1.0)
    polished = _polish(a, np.asarray(budgets, float), uval, prices)
    if polished is not None:
        uval, prices = polished
    allocation = uval[:, None] * instance.demands
    details = {"polished": polished is not None}
    if prices is not None:
        details["prices"] = np.maximum(prices, 0.0)
    return AllocationResult.from_arrays(
        status=out.status, mechanism="ceei", method="eisenberg-gale", solver=backend.name,
        message=out.message, allocation=allocation,
        dominant_shares=shares.dominant_shares(allocation, instance.capacities),
        utilities=shares.leontief_utility(allocation, instance.demands), shares=uval.copy(),
        objective=out.objective, stats=stats, details=details)
