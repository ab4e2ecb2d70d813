r"""Water-filling by iterated LPs (progressive filling), the LP cross-check of the sweep engine.

Same problem as :mod:`fairalloc.mechanisms._waterfill`: user *i* (direction :math:`v_i`, cap
:math:`\mu_i`, start :math:`b_i`, rate :math:`w_i`) holds :math:`s_i(x)=\min\{\mu_i,\max\{0,w_i(x-b_i)\}\}`.
Round *k*, with the set *A* of users still growing and the usage ``base`` of the others:

.. math::

   \max_{t,\ s}\ t \quad \text{s.t.}\quad s_i \ge w_i (t - b_i),\ 0 \le s_i \le \mu_i\ (i \in A),
   \qquad \text{base}_r + \sum_{i\in A} v_{ir} s_i \le 1\ \ (r \text{ needed by } A).

A user above the water (:math:`b_i > t`) is unconstrained (its lower bound is negative); a user that
cannot reach *t* (:math:`e_i = b_i + \mu_i/w_i < t`) makes the LP infeasible beyond :math:`e_i`, so
:math:`t^\ast \le \min_A e_i`. At :math:`t^\ast` the *minimal* allocation
:math:`s_i = \min\{\mu_i, \max\{0, w_i(t^\ast-b_i)\}\}` is feasible, and at least one resource is full
under it or some user is satisfied (otherwise *t* could grow). Users who are satisfied, and users
who need a full resource, cannot grow: they are frozen at the minimal allocation, the others go on
to the next LP. Each round freezes at least one user.

This is deliberately the textbook algorithm (one LP per freezing event, each a
:class:`~fairalloc.exact.program.LinearProgram` solved by HiGHS through
:func:`fairalloc.exact.backends.solve_lp`, fairalloc's one LP route) so that it checks the sweep
independently; it is much slower. Fullness is judged with ``sat_tol`` (relative),
which must exceed the backend's feasibility tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

import scipy.sparse as sp

from ..result import Status
from .backends import solve_lp
from .program import LinearProgram
from .solvers import get_backend

__all__ = ["ProgressiveOutcome", "progressive_filling_lp"]


@dataclass(frozen=True)
class ProgressiveOutcome:
    """What :func:`progressive_filling_lp` returns.

    Attributes
    ----------
    shares : ndarray, shape (n,), or None
        :math:`s_i`, each user's share; None when an LP failed.
    level : float or None
        The water level at which a resource first became full (Eq. 4/5's x), or, when none did,
        the level at which the last user was satisfied.
    status : Status
        OPTIMAL when every LP was proven optimal; FEASIBLE when one was not proven, or when no
        resource was within ``sat_tol`` of full and the fullest one was frozen; otherwise the
        status of the LP that failed (then ``shares`` and ``level`` are None).
    message : str
    solver : str
        The LP backend used.
    stats : Mapping
        ``n_solves``, ``rounds``.

    Examples
    --------
    See :func:`progressive_filling_lp`.
    """
    shares: np.ndarray | None
    level: float | None
    status: Status
    message: str
    solver: str
    stats: Mapping[str, Any] = field(default_factory=dict)


def progressive_filling_lp(directions, caps, starts, rates, *, solver: str | None = None,
                           options: Mapping[str, Any] | None = None,
                           sat_tol: float = 1e-7) -> ProgressiveOutcome:
    r"""Lexicographic progressive filling as a sequence of LPs (see the module docstring).

    The LP cross-check of the water-filling sweep (:func:`fairalloc.mechanisms._waterfill.waterfill`),
    used by the pooled mechanisms' ``method="lp"``: one LP per freezing event.

    Parameters
    ----------
    directions : array_like, shape (n, m)
        :math:`v_{ir} \ge 0`, normalised resource use per unit of share; every row has a positive entry.
    caps : array_like, shape (n,)
        :math:`\mu_i > 0`, the most share user *i* can use.
    starts : array_like, shape (n,)
        :math:`b_i`, the level at which user *i* starts receiving.
    rates : array_like, shape (n,)
        :math:`w_i > 0`, share per unit of level.
    solver : str, optional
        LP backend: ``"highs"`` (the default, and the only LP backend: :mod:`fairalloc.exact.solvers`).
    options : Mapping, optional
        HiGHS options (:func:`fairalloc.exact.backends.solve_lp`; one HiGHS rejects raises ``ValueError``).
    sat_tol : float, optional
        Relative tolerance for a resource to count as full (default 1e-7; must exceed the backend's
        feasibility tolerance).

    Returns
    -------
    ProgressiveOutcome

    Raises
    ------
    SolverUnavailableError
        Unknown ``solver``, or one that solves no plain LPs.
    ValueError
        An option HiGHS rejects.

    Examples
    --------
    Single-resource max-min, capacity 1, demands 0.2, 0.26, 0.4, 0.5: the first two are satisfied and
    the other two split the remaining 0.54, 0.27 each (three LPs: two satisfaction events, one full
    resource):

    >>> import numpy as np
    >>> out = progressive_filling_lp(np.ones((4, 1)), [0.2, 0.26, 0.4, 0.5], np.zeros(4), np.ones(4), solver="highs")
    >>> out.status.value, out.shares.round(6).tolist(), round(out.level, 6)
    ('optimal', [0.2, 0.26, 0.27, 0.27], 0.27)
    """
    backend = get_backend(solver, "lp")
    v = np.asarray(directions, dtype=float)
    mu = np.asarray(caps, dtype=float)
    b = np.asarray(starts, dtype=float)
    w = np.asarray(rates, dtype=float)
    n, m = v.shape
    e = b + mu / w
    s = np.zeros(n)
    active = np.arange(n)
    base = np.zeros(m)
    first_level: float | None = None
    last_level = 0.0
    n_solves = 0
    worst = Status.OPTIMAL
    messages: list[str] = []
    while active.size:
        va, mua, ba, wa, ea = v[active], mu[active], b[active], w[active], e[active]
        cols = np.flatnonzero((va > 0).any(axis=0))
        out, x = solve_lp(_round_lp(va[:, cols], mua, ba, wa, 1.0 - base[cols]), options=options)
        n_solves += 1
        if out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            return ProgressiveOutcome(None, None, out.status, f"LP {n_solves}: {out.message}",
                                      backend.name, {"n_solves": n_solves, "rounds": n_solves})
        if out.status is Status.FEASIBLE:
            worst = Status.FEASIBLE
            messages.append(f"LP {n_solves}: {out.message}")
        t_star = float(x[-1])
        smin = np.minimum(np.maximum(wa * (t_star - ba), 0.0), mua)
        satisfied = ea <= t_star + sat_tol * max(1.0, abs(t_star))
        smin = np.where(satisfied, mua, smin)
        usage = base + smin @ va
        full = np.zeros(m, dtype=bool)
        full[cols] = usage[cols] >= 1.0 - sat_tol
        if full.any() and first_level is None:
            first_level = t_star                 # Eq. 4/5's x: the first saturation
        blocked = (va[:, full] > 0).any(axis=1)
        done = satisfied | blocked
        if not done.any():                       # solver inaccuracy: freeze the fullest resource's users
            r = cols[np.argmax(usage[cols])]
            full[r] = True
            done = va[:, r] > 0
            worst = Status.FEASIBLE
            messages.append(f"LP {n_solves}: no resource within sat_tol={sat_tol} of full; froze the fullest")
        s[active[done]] = smin[done]
        base = base + smin[done] @ va[done]
        active = active[~done]
        last_level = t_star
    if first_level is None:                      # nothing saturated: the last satisfaction level
        first_level = last_level
    msg = "; ".join(messages) if messages else f"{n_solves} LPs, each proven optimal by {backend.name}"
    return ProgressiveOutcome(s, first_level, worst, msg, backend.name,
                              {"n_solves": n_solves, "rounds": n_solves})


def _round_lp(va: np.ndarray, mu: np.ndarray, b: np.ndarray, w: np.ndarray, room: np.ndarray) -> LinearProgram:
    r"""One round's LP over columns :math:`(s_1..s_k, t)`: max *t*, :math:`w_i t - s_i \le w_i b_i`,
    :math:`0 \le s_i \le \mu_i`, :math:`\sum_i v_{ir} s_i \le` ``room``\ :sub:`r`."""
    k, m = va.shape
    eye = sp.hstack([-sp.identity(k, format="csr"), sp.csr_matrix(w.reshape(-1, 1))])
    res = sp.hstack([sp.csr_matrix(va.T), sp.csr_matrix((m, 1))])
    A = sp.vstack([eye, res], format="csr")
    names = tuple(f"s{i}" for i in range(k)) + ("t",)
    cost = np.zeros(k + 1)
    cost[k] = 1.0
    return LinearProgram(names, np.r_[np.zeros(k), -np.inf], np.r_[mu, np.inf], np.zeros(k + 1, dtype=bool), A,
                         np.full(k + m, -np.inf), np.r_[w * b, room], tuple(f"r{j}" for j in range(k + m)), cost)
