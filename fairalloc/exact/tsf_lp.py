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
found able to rise. Level constraints are relaxed by a relative :math:`10^{-9}` so that an LP
backend's round-off in one round cannot make the next infeasible.

**LP 2 only where its answer is unknown.** LP 2 only classifies: the allocation is LP 1's solution,
and the next round's LP 1 depends only on which users were frozen and at which level (LP 1's
:math:`t^\ast`). Before the first LP 2 of a round, free users whose answer is known are left out of
*C* (as users that keep :math:`s_i \ge t^\ast`, their constraint in LP 2 anyway):

* *cannot rise*: :math:`s_i \le c_i = K_i / (\omega_i h_i)` at every feasible point, so LP 2's
  :math:`\epsilon_i \le c_i - t^\ast(1 - 10^{-9})`; when that is at most half the rise tolerance,
  no LP 2 can report the user able to rise: it is frozen at :math:`t^\ast`, as LP 2 would have
  decided. The last free user cannot rise either: LP 1 has just maximised its share under the
  constraints LP 2 would keep.
* *can rise*: LP 1's own solution satisfies LP 2's constraints with
  :math:`\epsilon_i = s_i - t^\ast(1 - 10^{-9})`; when that is more than 10 rise tolerances the user
  can rise, which the repeated LP 2 would find.
* *cannot rise, by LP 1's duals* (``solver="scipy"``, whose :func:`~scipy.optimize.linprog` returns
  the row marginals): LP 1 is :math:`\max t` over the rows :math:`t - s_i \le 0` (free users) and
  the rest; let :math:`y_i \ge 0` be the optimal duals of those rows. By complementary slackness,
  :math:`y_i (t^\ast - s_i) = 0` at *every* primal optimum for this (any) optimal dual, so
  :math:`y_i > 0` forces :math:`s_i = t^\ast` at every point where all free users keep
  :math:`s \ge t^\ast` and the frozen ones their levels, which is LP 2's feasible set (up to the
  relative :math:`10^{-9}` relaxation, far below the rise tolerance): LP 2 would give
  :math:`\epsilon_i = 0`. A dual above :data:`_DUAL_MARGIN` (the duals of those rows sum to 1, the
  objective's coefficient of *t*) freezes the user without LP 2. The converse needs some optimal
  dual, not the one the solver returns (Goldman-Tucker), so a zero dual decides nothing: LP 2 is
  asked as before (figures: ``benchmarks/RESULTS.md``, TV-TSF).

**LP 2's rises bounded by a small cap.** LP 2 maximises :math:`\sum_{i \in C} \epsilon_i` with
:math:`\epsilon_i \le u`; a user counts as able to rise when :math:`\epsilon_i >` the rise
tolerance, and LP 2 is repeated on the rest until no one rises. With :math:`u = 1` an optimal vertex
tends to give one user all the room (the users compete for the same capacity), so LP 2 finds the
risers one or two at a time. With :math:`u` = :data:`_RISE_CAP` rise tolerances (1000, so still far
above the tolerance and the LP's accuracy), every user that can rise by :math:`u` does so at the
optimum when the room allows it for all together (the feasible set is convex), and most rounds need
one LP 2. What is decided is the same: a user rises by more than the tolerance at some point of the
round's feasible set exactly when it can rise by :math:`\min(u, \cdot)` more than the tolerance,
which does not depend on :math:`u > ` the tolerance; only the number of LP 2s changes.

**LP 2 on one warm model.** Every LP 1 is solved cold by the named route (its optimal vertex is the
allocation, and the static TSF rounds it: another solver, another HiGHS or a warm start may return
another optimal vertex of the same LP, hence another schedule; scipy's HiGHS and highspy's differ on
about half of the paper-scale LP 1s), and its level :math:`t^\ast` enters the later LPs' right-hand
sides bit for bit as that route returned it. LP 2 only classifies: which users can rise is a property
of the round's feasible set, not of the vertex. So every LP 2 of a call goes to one HiGHS model held
by highspy (:class:`_WarmLp2`, built at the call's first LP 2), whose rows are those of LP 2 with a
:math:`t` column fixed at the round's relaxed level and one :math:`\epsilon` column per user (fixed at 0
outside the candidates); between two LP 2s only bounds, costs and the frozen users' rows change, and
HiGHS starts from the previous optimal basis. The frozen users, the levels and the allocation are
those of the cold LP 2s (``benchmarks/bench_tvtsf_cell.py``: the same tables; figures in
``benchmarks/RESULTS.md``, TV-TSF).

The users that can rise are a property of the round's feasible set, not of the order in which LP 2
finds them, so the frozen users, the levels and every LP 1 (hence the allocation) are those of
asking LP 2 about every user; the margins keep both shortcuts clear of the rise tolerance's
boundary, where an LP's round-off could decide. When no user stays in *C* and none is known to stay
frozen, LP 2 asks about everyone as before. Measured on the static TSF baseline of the TV-TSF
reproduction (about 10 LPs per slot at the paper scale): 1449 -> 1054 LPs in the reduced large80
cell of seed 0, the same allocations bit for bit (``tests/unit/exact/test_divisible_tsf.py`` compares
the two on random instances; ``benchmarks/bench_tvtsf_cell.py`` whole cells against the commit
before: 0 of 65 differ).

One implementation, two entry points: :func:`tsf_lp` (a :class:`~fairalloc.TaskInstance`, an
:class:`~fairalloc.AllocationResult`) and :func:`divisible_tsf` (arrays: any capacities, e.g. the
free capacity of one slot, and monopoly counts given by the caller), which the slot-by-slot static
TSF baseline (:mod:`fairalloc.scheduling.static_slots`) calls once per slot. The programs are
written as sparse matrices over the eligible pairs only. Every LP 1 is solved by HiGHS through
:func:`fairalloc.exact.backends.solve_lp`, fairalloc's one LP route (``solver="highs"``, the
default); ``solver="scipy"`` hands the same matrices to :func:`scipy.optimize.linprog` (scipy's own
HiGHS build) instead: the static TSF baseline (:mod:`fairalloc.scheduling.static_slots`) calls it that
way, and its stored results were computed so; it moves onto the one route with that module. Every
LP 2 goes to one highspy model per call (above), with either route.

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from .. import shares
from ..model import TaskInstance
from ..result import AllocationResult, SOLUTION_PRESENT, Status
from ..validation import as_array, require_nonnegative, require_positive, require_shape
from .backends import solve_lp
from .program import LinearProgram
from .solvers import get_backend

__all__ = ["tsf_lp", "divisible_tsf", "DivisibleTsf"]

#: Relative slack of the level constraints (module docstring).
_LEVEL_SLACK = 1e-9
#: Leave out of LP 2 the users whose answer is known without it (module docstring); False: ask LP 2
#: about every free user (the tests compare the two).
_SKIP_DECIDED = True
#: Freeze without LP 2 the free users whose row :math:`s_i \ge t` has a positive dual in LP 1's
#: optimum (module docstring; only where the LP route gives duals: ``solver="scipy"``).
_DUAL_STUCK = True
#: LP 2's bound on each rise epsilon_i, in rise tolerances (None: 1, as the level's units)
_RISE_CAP = 1000.0
#: A dual above this (the duals of the rows :math:`s_i \ge t` sum to 1) counts as positive.
_DUAL_MARGIN = 1e-6
#: A free user cannot rise when its ceiling is at most this many rise tolerances above the level.
_CEILING_MARGIN = 0.5
#: A free user can rise when LP 1's own solution puts it this many rise tolerances above the level.
_WITNESS_MARGIN = 10.0
#: scipy.optimize.linprog status -> Status (0 is HiGHS's proven optimum).
_LINPROG_STATUS = {0: Status.OPTIMAL, 1: Status.NOT_SOLVED, 2: Status.INFEASIBLE, 3: Status.UNBOUNDED,
                   4: Status.ERROR}


@dataclass(frozen=True)
class DivisibleTsf:
    """What :func:`divisible_tsf` found.

    Attributes
    ----------
    tasks : ndarray (N, M)
        Fractional tasks :math:`x_{im}` (zero where not eligible); all zero when no LP solution.
    levels : ndarray (N,)
        Task share at which each user was frozen (0 for users asking for nothing or with no
        eligible server with room).
    status : Status
        OPTIMAL when every LP was proven optimal by the backend; FEASIBLE when one was not (the
        message says which); otherwise the failing LP's status, with ``tasks`` all zero.
    message : str
    n_solves : int
        LPs solved.
    first_level : float
        :math:`t^\\ast` of the first round (the max-min task share).
    solver : str
    """

    tasks: np.ndarray
    levels: np.ndarray
    status: Status
    message: str
    n_solves: int
    first_level: float
    solver: str
    stats: dict = field(default_factory=dict)


class _LpBackend:
    """min c x s.t. A x <= b, 0 <= x <= hi: HiGHS through :func:`fairalloc.exact.backends.solve_lp` (the
    one LP route), or :func:`scipy.optimize.linprog` directly for ``solver="scipy"`` (module docstring)."""

    def __init__(self, solver: str | None, options: Mapping[str, Any] | None) -> None:
        from .backends import highs_options

        self.direct = isinstance(solver, str) and solver.lower() == "scipy"
        self.backend = None if self.direct else get_backend(solver, "lp")
        self.name = "scipy" if self.direct else self.backend.name
        self.options = options
        #: HiGHS options of LP 2's model (:class:`_WarmLp2`): the route's own for ``highs``; none for
        #: ``scipy``, whose options are :func:`~scipy.optimize.linprog`'s (they apply to every LP 1)
        self.warm_options = {} if self.direct else highs_options(dict(options or {}), strict=True)

    def solve(self, c: np.ndarray, a: Any, b: np.ndarray, hi: np.ndarray) -> tuple[Status, Any, str, Any]:
        """Status, solution (None without one), message and the row duals :math:`y \\ge 0` of
        ``A x <= b`` (``-`` linprog's marginals; None where the route gives none: the highs route)."""
        if self.direct:
            from scipy.optimize import OptimizeWarning, linprog

            bounds = np.c_[np.zeros(c.size), hi]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", OptimizeWarning)
                res = linprog(c, A_ub=a, b_ub=b, bounds=bounds, method="highs",
                              options=dict(self.options) if self.options else None)
            for w in caught:
                if issubclass(w.category, OptimizeWarning) and "option" in str(w.message).lower():
                    raise ValueError(f"scipy.optimize.linprog: {w.message}")
            status = _LINPROG_STATUS.get(res.status, Status.ERROR)
            msg = "proven optimal" if status is Status.OPTIMAL else f"linprog: {res.message}"
            if status is not Status.OPTIMAL:
                return status, None, msg, None
            duals = getattr(getattr(res, "ineqlin", None), "marginals", None)
            return status, res.x, msg, None if duals is None else -np.asarray(duals, dtype=float)
        A = sp.csr_matrix(a)
        prog = LinearProgram(tuple(f"x{j}" for j in range(c.size)), np.zeros(c.size), np.asarray(hi, dtype=float),
                             np.zeros(c.size, dtype=bool), A, np.full(A.shape[0], -np.inf),
                             np.asarray(b, dtype=float), tuple(f"r{j}" for j in range(A.shape[0])),
                             np.asarray(c, dtype=float), 0.0, False)
        out, x = solve_lp(prog, options=self.options)
        return out.status, x if out.status in SOLUTION_PRESENT else None, out.message, None


class _WarmLp2:
    r"""Every LP 2 of one :func:`divisible_tsf` call on one HiGHS model, each started from the previous
    one's optimal basis (module docstring, *LP 2 on one warm model*).

    Columns :math:`x` (the eligible pairs), :math:`t` and :math:`\epsilon_i` (one per user); rows: the
    capacity and demand rows (``A x <= b``, as in every LP), then one row per user,
    :math:`-s_i + a_i t + \epsilon_i \le -L_i`: a free user has :math:`a_i = 1, L_i = 0`, a frozen one
    :math:`a_i = 0` and :math:`L_i` its level times :math:`1 - 10^{-9}`. An LP 2 fixes :math:`t` at
    :math:`t^\ast(1 - 10^{-9})`, bounds the candidates' :math:`\epsilon` by the rise cap (the other
    users' at 0) and minimises :math:`-\sum \epsilon`: the rows of the LP 2 :func:`divisible_tsf` wrote
    out before, the others' :math:`\epsilon` columns fixed at 0 instead of absent. Between two LP 2s only
    bounds, costs and the coefficients :math:`a_i` of newly frozen users change, so HiGHS keeps its basis
    (a hot start: a few simplex iterations instead of a solve from scratch). HiGHS through highspy's
    public API, the model built by the exact engine's builder (:func:`fairalloc.exact.backends.highs_arrays`).
    """

    def __init__(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, b: np.ndarray, nv: int, n: int,
                 free: np.ndarray, floor: np.ndarray, options: Mapping[str, Any]) -> None:
        """``rows``/``cols``/``vals``: the triplets of the capacity and demand rows (right-hand side ``b``)
        and of the user rows' :math:`-s_i` (rows ``b.size + i``); ``free``: the free users; ``floor``:
        :math:`L_i` of every user (0 for the free ones)."""
        from .backends import highs_arrays
        from .solvers import highs_threads, quiet_highs

        self.nv, self.t_col, self.n_top = nv, nv, b.size
        n_cols = nv + 1 + n
        user_row = np.arange(n) + self.n_top
        a = sp.csr_matrix((np.concatenate([vals, np.ones(free.size), np.ones(n)]),
                           (np.concatenate([rows, user_row[free], user_row]),
                            np.concatenate([cols, np.full(free.size, nv), nv + 1 + np.arange(n)]))),
                          shape=(self.n_top + n, n_cols))
        hi = np.full(n_cols, np.inf)
        hi[nv + 1:] = 0.0
        self.h = h = quiet_highs()
        highs_threads(h, None)
        for key, value in options.items():
            h.setOptionValue(key, value)
        h.passModel(highs_arrays(np.zeros(n_cols), np.zeros(n_cols), hi, a, np.full(a.shape[0], -np.inf),
                                 np.concatenate([b, -floor])))
        self.eps = np.arange(n, dtype=np.int32) + nv + 1
        self.inf = h.getInfinity()
        self.n_solves = 0

    def lp2(self, cand: np.ndarray, t_low: float, cap: float) -> tuple[Status, Any, str]:
        r"""LP 2 over the candidates ``cand`` with :math:`t` fixed at ``t_low``, their rises bounded by
        ``cap``: status, every user's :math:`\epsilon` (None without a solution), message."""
        from .backends import _map_highs

        h, nc = self.h, cand.size
        h.changeColBounds(self.t_col, t_low, t_low)
        idx = self.eps[cand]
        h.changeColsBounds(nc, idx, np.zeros(nc), np.full(nc, cap))
        h.changeColsCost(nc, idx, np.full(nc, -1.0))
        h.run()
        self.n_solves += 1
        raw = h.modelStatusToString(h.getModelStatus())
        status, msg = _map_highs(raw, int(h.getInfo().primal_solution_status) == 2, None)
        eps = np.asarray(h.getSolution().col_value[self.nv + 1:]) if status in SOLUTION_PRESENT else None
        h.changeColsBounds(nc, idx, np.zeros(nc), np.zeros(nc))
        h.changeColsCost(nc, idx, np.zeros(nc))
        return status, eps, msg

    def freeze(self, users: np.ndarray, level: float) -> None:
        r"""Users ``users`` frozen at ``level``: :math:`a_i = 0`, :math:`L_i` = the relaxed level."""
        for i in users.tolist():
            self.h.changeCoeff(self.n_top + i, self.t_col, 0.0)
        rows = (users + self.n_top).astype(np.int32)
        self.h.changeRowsBounds(users.size, rows, np.full(users.size, -self.inf),
                                np.full(users.size, -level * (1 - _LEVEL_SLACK)))


def divisible_tsf(capacities: Any, demands: Any, pending: Any, monopoly: Any, eligible: Any,
                  weights: Any = None, *, solver: str | None = None, options: Mapping[str, Any] | None = None,
                  rise_tol: float = 1e-7) -> DivisibleTsf:
    r"""Leximin task shares over fractional tasks on servers (module docstring), from arrays.

    Parameters
    ----------
    capacities : array_like (M, K)
        Capacities to divide (a cluster's, or the free capacity of one slot).
    demands : array_like (N, K)
        Per-task demand of each user, positive.
    pending : array_like (N,)
        Tasks each user asks for (:math:`K_i`).
    monopoly : array_like (N,)
        :math:`h_i` (TV-TSF Eq. 4, :func:`fairalloc.shares.monopoly_tasks`), positive: the caller's
        (a slot uses the full cluster's, not the free capacity's).
    eligible : array_like (N, M) of bool
        Placement :math:`p_{im}`.
    weights : array_like (N,), optional
    solver : str, optional
        ``"highs"`` (default: :func:`fairalloc.exact.backends.solve_lp`) or ``"scipy"``
        (:func:`scipy.optimize.linprog` directly; module docstring).
    options : mapping, optional
        HiGHS options (``linprog``'s ``options`` for ``"scipy"``); one the backend rejects raises.
    rise_tol : float
        An :math:`\epsilon_i` above this (in units of the level) means user *i* can rise; it must
        exceed the LP backend's accuracy.

    Returns
    -------
    DivisibleTsf

    Examples
    --------
    One server (4 CPU, 4 GB), A = <1, 1> and B = <2, 1> asking for 10 each, h = (4, 2): TSF equalises
    X_A/4 = X_B/2 under X_A + 2 X_B <= 4 (CPU): X_A = 2, X_B = 1.

    >>> r = divisible_tsf([[4, 4]], [[1, 1], [2, 1]], [10, 10], [4, 2], [[1], [1]], solver="scipy")
    >>> r.tasks.round(6).tolist(), r.status
    ([[2.0], [1.0]], <Status.OPTIMAL: 'optimal'>)
    """
    t0 = time.perf_counter()
    F = as_array("capacities", capacities, ndim=2)
    D = as_array("demands", demands, ndim=2)
    n, m, k = D.shape[0], F.shape[0], F.shape[1]
    require_shape("demands", D, (n, k), names=["n_users", "n_resources"])
    require_nonnegative("capacities", F)
    K = as_array("pending", pending, ndim=1)
    require_shape("pending", K, (n,), names=["n_users"])
    require_nonnegative("pending", K)
    h = as_array("monopoly", monopoly, ndim=1)
    require_shape("monopoly", h, (n,), names=["n_users"])
    require_positive("monopoly", h)
    w = np.ones(n) if weights is None else as_array("weights", weights, ndim=1)
    require_shape("weights", w, (n,), names=["n_users"])
    E = np.asarray(eligible, dtype=bool)
    require_shape("eligible", E, (n, m), names=["n_users", "n_servers"])
    lp = _LpBackend(solver, options)
    E = E & (F > 0).all(axis=1)[None, :]
    ui, si = np.nonzero(E)
    nv = ui.size
    x = np.zeros((n, m))
    levels = np.zeros(n)

    def done(status: Status, msg: str, n_solves: int, first: float, xs: Any = None) -> DivisibleTsf:
        if xs is not None:
            x[ui, si] = np.maximum(xs, 0.0)
        return DivisibleTsf(x, levels, status, msg, n_solves, first, lp.name,
                            {"runtime_s": time.perf_counter() - t0})

    free = np.array([i for i in range(n) if E[i].any() and K[i] > 0], dtype=np.int64)
    if free.size == 0:
        return done(Status.OPTIMAL, "nothing to divide", 0, 0.0)
    inv = 1.0 / (w[ui] * h[ui])          # s_i = sum of inv[j] x_j over user i's variables j
    ceiling = K / (w * h)                 # s_i <= ceiling_i, from X_i <= K_i
    base_b = np.concatenate([F.ravel(), K])
    frozen = np.zeros(n, dtype=bool)
    frozen[np.setdiff1d(np.arange(n), free)] = True
    n_solves, worst, notes, first, xs = 0, Status.OPTIMAL, [], None, None

    # the LPs' matrices are assembled from (row, column, value) triplets: the same entries as stacking
    # the blocks with scipy.sparse, without its per-block overhead (many LPs per call)
    # capacity rows (server, resource) and demand rows (user): the same in every LP
    top_row = np.concatenate([(si[:, None] * k + np.arange(k)).ravel(), m * k + ui])
    top_col = np.concatenate([np.repeat(np.arange(nv), k), np.arange(nv)])
    top_data = np.concatenate([D[ui].ravel(), np.ones(nv)])
    n_top = m * k + n
    row_start = np.searchsorted(ui, np.arange(n + 1))    # user u's variables: row_start[u]:row_start[u + 1]

    def share_rows(users: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Triplets of the rows -s_i, i in ``users`` (row a of the block is user users[a])."""
        cnt = row_start[users + 1] - row_start[users]
        rows = np.repeat(np.arange(users.size), cnt)
        cols = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(row_start[users], cnt)
        return rows, cols, -inv[cols]

    def solve(c: np.ndarray, extra_a: list, extra_b: list, n_extra: int, hi_extra: float) -> tuple[Status, Any, str, Any]:
        nonlocal n_solves, worst
        rs, cs, vs, r0 = [top_row], [top_col], [top_data], n_top
        for rows, cols, vals, n_rows in extra_a:
            rs.append(rows + r0)
            cs.append(cols)
            vs.append(vals)
            r0 += n_rows
        a = sp.csr_matrix((np.concatenate(vs), (np.concatenate(rs), np.concatenate(cs))), shape=(r0, nv + n_extra))
        hi = np.concatenate([np.full(nv, np.inf), np.full(n_extra, hi_extra)])
        status, sol, msg, duals = lp.solve(c, a, np.concatenate([base_b] + extra_b), hi)
        n_solves += 1
        if status is Status.FEASIBLE:
            worst = Status.FEASIBLE
            notes.append(f"LP {n_solves}: {msg}")
        return status, sol, msg, duals

    def with_columns(users: np.ndarray, extra: Any) -> tuple:
        """Block of the rows -s_i, i in ``users``, and a 1 in column ``extra[a]`` of the extra columns (None: none)."""
        rows, cols, vals = share_rows(users)
        if extra is not None:
            rows = np.concatenate([rows, np.arange(users.size)])
            cols = np.concatenate([cols, nv + extra])
            vals = np.concatenate([vals, np.ones(users.size)])
        return rows, cols, vals, users.size

    def floors(users: np.ndarray, lv: np.ndarray, n_extra: int) -> tuple[list, list]:
        """s_j >= lv_j (relaxed) for ``users``."""
        if not users.size:
            return [], []
        return [with_columns(users, None)], [-lv * (1 - _LEVEL_SLACK)]

    def lp1(free: np.ndarray, fixed: np.ndarray) -> tuple[Status, Any, str, Any]:
        """LP 1 on the named route: max t, s_i >= t (``free``), s_j >= level_j (``fixed``); the duals of
        the free users' rows indexed by user (None without them)."""
        fa, fb = floors(fixed, levels[fixed], 1)
        c = np.zeros(nv + 1)
        c[-1] = -1.0
        status, sol, msg, y = solve(c, [with_columns(free, np.zeros(free.size, dtype=np.int64))] + fa,
                                    [np.zeros(free.size)] + fb, 1, np.inf)
        if y is not None:
            yy = np.zeros(n)
            yy[free] = y[n_top:n_top + free.size]
            y = yy
        return status, sol, msg, y

    warm = None           # LP 2's HiGHS model (module docstring), built at the call's first LP 2
    while True:
        status, sol, msg, y = lp1(free, np.flatnonzero(frozen))
        if status not in SOLUTION_PRESENT:
            k = n_solves + (warm.n_solves if warm is not None else 0)
            return done(status, f"LP {k}: {msg}", k, first or 0.0)
        t = float(sol[-1])
        xs = sol[:nv]
        first = t if first is None else first
        # LP 2 (repeated): which free users can rise above t while everyone keeps its level
        tol = rise_tol * max(1.0, abs(t))
        cand, known = free, free[:0]
        if _SKIP_DECIDED:      # users whose answer is known without LP 2 (module docstring)
            low = t * (1 - _LEVEL_SLACK)
            stays = ceiling[free] - low <= _CEILING_MARGIN * tol
            if free.size == 1:
                stays[:] = True
            rises = np.bincount(ui, weights=inv * xs, minlength=n)[free] - low > _WITNESS_MARGIN * tol
            if _DUAL_STUCK and y is not None:      # LP 1's duals of the free users' rows s_i >= t
                stays |= (y[free] > _DUAL_MARGIN) & ~rises
            if stays.any() or not rises.all():
                cand, known = free[~stays & ~rises], free[stays]
        while cand.size:
            if warm is None:
                floor = np.where(frozen, levels * (1 - _LEVEL_SLACK), 0.0)
                ur, uc, uv = share_rows(np.arange(n))
                warm = _WarmLp2(np.concatenate([top_row, ur + n_top]), np.concatenate([top_col, uc]),
                                np.concatenate([top_data, uv]), base_b, nv, n, free, floor, lp.warm_options)
            status, eps, msg = warm.lp2(cand, t * (1 - _LEVEL_SLACK), 1.0 if _RISE_CAP is None else _RISE_CAP * tol)
            if status not in SOLUTION_PRESENT:
                k = n_solves + warm.n_solves
                return done(status, f"LP {k}: {msg}", k, first)
            if status is Status.FEASIBLE:
                worst = Status.FEASIBLE
                notes.append(f"LP 2 ({warm.n_solves} on its model): {msg}")
            up = eps[cand] > tol
            if not up.any():
                break
            cand = cand[~up]
        stuck = np.union1d(cand, known) if known.size else cand
        if stuck.size == 0:      # numerically everybody rises: freeze the lowest (cannot happen exactly)
            stuck = free[:1]
            worst = Status.FEASIBLE
            notes.append("no user found frozen at a level (LP accuracy); froze one")
        levels[stuck] = t
        if stuck.size == free.size:
            break
        frozen[stuck] = True
        if warm is not None:
            warm.freeze(stuck, t)
        free = np.setdiff1d(free, stuck)
    n_all = n_solves + (warm.n_solves if warm is not None else 0)
    msg = "; ".join(notes) if notes else (f"{n_all} LPs, each proven optimal by HiGHS (LP 1s through {lp.name}, "
                                          f"LP 2s through highspy)")
    # the last LP 1 solution keeps every user at or above its level: it is the allocation
    return done(worst, msg, n_all, first, xs)


def tsf_lp(ti: TaskInstance, /, *, solver: str | None = None, options: Mapping[str, Any] | None = None,
           rise_tol: float = 1e-7) -> AllocationResult:
    """Divisible TSF on servers (fractional tasks) by LP progressive filling; see the module docstring.

    Parameters
    ----------
    ti : TaskInstance
        Servers, task demands, pending tasks, placement and weights.
    solver : str, optional
        ``"highs"`` (default: :func:`fairalloc.exact.backends.solve_lp`) or ``"scipy"`` for
        :func:`scipy.optimize.linprog` directly.
    options : mapping, optional
        HiGHS options (for ``"scipy"``, ``linprog``'s ``options``); one the backend rejects raises.
    rise_tol : float, default 1e-7
        An :math:`\\epsilon_i` above this (in units of the level) means user *i* can rise; it must
        exceed the LP backend's accuracy.

    Returns
    -------
    AllocationResult
        ``method="lp"``, fractional ``tasks`` (n_users, n_servers), task ``shares``, the first level
        as ``level``; ``status`` OPTIMAL only when every LP was proven optimal, else the failing
        LP's status with no allocation.

    Raises
    ------
    TypeError
        ``ti`` is not a :class:`~fairalloc.TaskInstance`.

    See Also
    --------
    divisible_tsf : the algorithm on arrays (what this function calls).
    fairalloc.tsf : the front door (``method="lp"`` is this function).

    Examples
    --------
    The DRF paper's example as TSF: one server <9, 18>, tasks <1, 4> and <3, 1>. Alone, A could run
    h_A = floor(min(9/1, 18/4)) = 4 whole tasks and B h_B = min(9/3, 18/1) = 3 (the monopoly counts,
    TV-TSF Eq. 4), so equal task shares s give 4 s and 3 s tasks; CPU binds first (4 s + 9 s = 9 at
    s = 9/13, while memory 19 s <= 18 allows s up to 18/19): A runs 36/13 = 2.769231 tasks and B
    27/13 = 2.076923, after which no one can rise:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    >>> r = tsf_lp(ti, solver="scipy")
    >>> r.status.name, r.tasks.sum(axis=1).round(6).tolist(), r.shares.round(6).tolist()
    ('OPTIMAL', [2.769231, 2.076923], [0.692308, 0.692308])
    """
    if not isinstance(ti, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(ti).__name__}")
    t0 = time.perf_counter()
    d, h, want = ti.task_demands, ti.monopoly, ti.tasks.astype(float)
    r = divisible_tsf(ti.cluster.capacities, d, want, h, ti.placement, ti.weights, solver=solver,
                      options=options, rise_tol=rise_tol)
    stats = {"n_solves": r.n_solves, "runtime_s": time.perf_counter() - t0}
    if r.status not in SOLUTION_PRESENT:
        return AllocationResult.from_arrays(status=r.status, mechanism="tsf", method="lp", solver=r.solver,
                                            message=r.message, stats=stats)
    xv = r.tasks
    tot = xv.sum(axis=1)
    sh = shares.task_shares(tot, h, ti.weights)
    dom = shares.dominant_share_of_tasks(tot, d, ti.cluster.totals)
    return AllocationResult.from_arrays(
        status=r.status, mechanism="tsf", method="lp", solver=r.solver, message=r.message,
        tasks=xv, allocation=tot[:, None] * d, shares=sh, dominant_shares=dom,
        levels=shares.sdrf_levels(dom, ti.commitments, ti.weights), utilities=tot,
        level=r.first_level, objective=float(sh[want > 0].min()) if (want > 0).any() else 0.0,
        stats=stats, details={"monopoly": h, "frozen_levels": r.levels})
