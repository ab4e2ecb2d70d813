r"""A MILP as arrays: what the backends solve, read from a PuLP model through its public API.

The formulations (:mod:`fairalloc.exact.tasks`, :mod:`fairalloc.exact.tvtsf`, ...) are written with
PuLP. :func:`from_pulp` reads such a model once through PuLP's public accessors only (``variables()``,
``constraints()``, each constraint's ``items()`` / ``constant`` / ``sense``, ``objective``,
``sense``), which PuLP 3.x and 4.x both document, into a :class:`LinearProgram`: column bounds and
integrality, a row-wise sparse matrix with row bounds, and a linear objective. The backends
(:mod:`fairalloc.exact.backends`) take that program; the leximin driver builds each round's program
anew from the base arrays plus the rows and columns of that round (:meth:`LinearProgram.extended`),
instead of adding and deleting rows in a PuLP model.

A row is ``row_lo <= A x <= row_hi`` (``-inf`` / ``inf`` for a missing side); PuLP's
``expr + constant (sense) 0`` becomes ``A x (sense) -constant``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["LinearProgram", "from_pulp", "pulp_constraints", "linear_terms", "add_var"]


@dataclass(frozen=True)
class LinearProgram:
    """``max`` (or ``min``) ``cost @ x + offset`` s.t. ``row_lo <= A x <= row_hi``, ``lb <= x <= ub``.

    A MILP (or LP) as arrays, the form the backends of :mod:`fairalloc.exact.backends` solve; built
    from a PuLP model by :func:`from_pulp`. Frozen; :meth:`extended` returns a new program with
    columns and rows added.

    Parameters
    ----------
    names, lb, ub, integer, A, row_lo, row_hi, row_names, cost, offset, maximize
        As the attributes below.
    index : dict, optional
        Column name -> position (built from ``names`` when empty).

    Attributes
    ----------
    names : tuple of str
        Column names (the PuLP variable names).
    lb, ub : numpy.ndarray (n_cols,)
        Column bounds, ``-inf`` / ``inf`` when absent.
    integer : numpy.ndarray of bool (n_cols,)
    A : scipy.sparse.csr_matrix (n_rows, n_cols)
    row_lo, row_hi : numpy.ndarray (n_rows,)
    row_names : tuple of str
    cost : numpy.ndarray (n_cols,)
    offset : float
    maximize : bool
    n_cols, n_rows : int
    is_mip : bool
        Some column is integer.

    Examples
    --------
    Read from PuLP, then checked: x = 1, y = 2 uses 3 + 4 = 7 <= 7.5 and scores 3; y = 3 would use
    9 > 7.5:

    >>> import pulp
    >>> p = pulp.LpProblem("k", pulp.LpMaximize)
    >>> x = add_var(p, "x", 0, 10, integer=True); y = add_var(p, "y", 0, 10, integer=True)
    >>> _ = p.addConstraint(3 * x + 2 * y <= 7.5, "cap"); p.setObjective(x + y)
    >>> lp = from_pulp(p)
    >>> lp.n_cols, lp.n_rows, lp.is_mip, lp.objective_value([1, 2])
    (2, 1, True, 3.0)
    >>> lp.violation([1, 2]) is None, lp.violation([1, 3])
    (True, 'constraint cap violated by 1.5')
    """

    names: tuple
    lb: np.ndarray
    ub: np.ndarray
    integer: np.ndarray
    A: sp.csr_matrix
    row_lo: np.ndarray
    row_hi: np.ndarray
    row_names: tuple
    cost: np.ndarray
    offset: float = 0.0
    maximize: bool = True
    index: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.index:
            object.__setattr__(self, "index", {n: k for k, n in enumerate(self.names)})

    @property
    def n_cols(self) -> int:
        return len(self.names)

    @property
    def n_rows(self) -> int:
        return int(self.A.shape[0])

    @property
    def is_mip(self) -> bool:
        return bool(self.integer.any())

    def extended(self, *, cols: Sequence[tuple[str, float, float, bool]] = (),
                 rows: Sequence[tuple[dict, float, float, str]] = (), cost: dict | None = None,
                 offset: float = 0.0, maximize: bool | None = None) -> "LinearProgram":
        """A new program: these columns ``(name, lb, ub, integer)`` and rows ``({col: coef}, lo, hi, name)``
        added, and (when given) the objective replaced by ``cost`` ({col: coef}; col a name or index).

        The program itself is not changed (each leximin round is built anew from the base).
        """
        names = self.names + tuple(c[0] for c in cols)
        index = dict(self.index)
        for k, c in enumerate(cols):
            index[c[0]] = self.n_cols + k
        n = len(names)
        lb = np.concatenate([self.lb, [_bound(c[1], -math.inf) for c in cols]])
        ub = np.concatenate([self.ub, [_bound(c[2], math.inf) for c in cols]])
        integer = np.concatenate([self.integer, np.array([bool(c[3]) for c in cols], dtype=bool)])
        A = self.A
        if A.shape[1] != n:
            A = sp.csr_matrix((A.data, A.indices, A.indptr), shape=(A.shape[0], n))
        row_lo, row_hi, row_names = self.row_lo, self.row_hi, self.row_names
        if rows:
            data, ind, ptr = [], [], [0]
            for terms, _, _, _ in rows:
                for col, coef in terms.items():
                    ind.append(col if isinstance(col, (int, np.integer)) else index[col])
                    data.append(float(coef))
                ptr.append(len(ind))
            extra = sp.csr_matrix((np.array(data, dtype=float), np.array(ind, dtype=np.int64), np.array(ptr)),
                                  shape=(len(rows), n))
            A = sp.vstack([A, extra], format="csr")
            row_lo = np.concatenate([row_lo, [_bound(r[1], -math.inf) for r in rows]])
            row_hi = np.concatenate([row_hi, [_bound(r[2], math.inf) for r in rows]])
            row_names = row_names + tuple(r[3] for r in rows)
        if cost is None:
            c = np.concatenate([self.cost, np.zeros(len(cols))])
            off = self.offset
        else:
            c = np.zeros(n)
            for col, coef in cost.items():
                c[col if isinstance(col, (int, np.integer)) else index[col]] += float(coef)
            off = float(offset)
        return LinearProgram(names, lb, ub, integer, A, row_lo, row_hi, row_names, c, off,
                             self.maximize if maximize is None else maximize, index)

    def objective_value(self, x: np.ndarray) -> float:
        return float(self.cost @ x + self.offset)

    def violation(self, x: np.ndarray, *, tol: float = 1e-6) -> str | None:
        """None when ``x`` satisfies bounds, integrality and rows (relative ``tol``), else why not."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_cols,) or not np.isfinite(x).all():
            return "the solution has missing or non-finite values"
        slack = tol * np.maximum(1.0, np.abs(x))
        bad = np.flatnonzero((x < self.lb - slack) | (x > self.ub + slack))
        if bad.size:
            k = int(bad[0])
            return f"variable {self.names[k]}={x[k]!r} outside its bounds [{self.lb[k]}, {self.ub[k]}]"
        frac = np.abs(x - np.round(x))
        bad = np.flatnonzero(self.integer & (frac > slack))
        if bad.size:
            k = int(bad[0])
            return f"variable {self.names[k]}={x[k]!r} is not integral"
        if self.n_rows:
            ax = self.A @ x
            big = abs(self.A).dot(np.abs(x))
            s = tol * np.maximum(1.0, np.maximum(big, np.abs(np.where(np.isfinite(self.row_hi), self.row_hi, 0))))
            bad = np.flatnonzero((ax > self.row_hi + s) | (ax < self.row_lo - s))
            if bad.size:
                k = int(bad[0])
                over = max(ax[k] - self.row_hi[k], self.row_lo[k] - ax[k])
                return f"constraint {self.row_names[k]} violated by {over:.3g}"
        return None


def _bound(v: float | None, default: float) -> float:
    return default if v is None else float(v)


def add_var(problem: Any, name: str, low: float | None = None, up: float | None = None,
            integer: bool = False) -> Any:
    """A new variable of ``problem`` (``add_variable``: PuLP >= 3.3 and 4.x; ``LpVariable`` before).

    Parameters
    ----------
    problem : pulp.LpProblem
    name : str
        The variable's name (unique in the model).
    low, up : float, optional
        Bounds (default: none).
    integer : bool, optional
        Integer (default False: continuous).

    Returns
    -------
    pulp.LpVariable

    Examples
    --------
    >>> import pulp
    >>> p = pulp.LpProblem("k", pulp.LpMaximize)
    >>> v = add_var(p, "n", 0, 5, integer=True)
    >>> v.name, float(v.lowBound), float(v.upBound), v.cat
    ('n', 0.0, 5.0, 'Integer')
    """
    import pulp

    cat = pulp.LpInteger if integer else pulp.LpContinuous
    make = getattr(problem, "add_variable", None)
    if make is not None:
        return make(name, low, up, cat=cat)
    return pulp.LpVariable(name, low, up, cat)  # pragma: no cover - PuLP < 3.3


def pulp_constraints(problem: Any) -> list:
    """The model's constraints in insertion order.

    ``problem.constraints()`` (PuLP >= 3.3, 4.x), or the values of the ``constraints`` mapping (older
    PuLP).

    Parameters
    ----------
    problem : pulp.LpProblem

    Returns
    -------
    list of pulp.LpConstraint

    Examples
    --------
    >>> import pulp
    >>> p = pulp.LpProblem("k", pulp.LpMaximize)
    >>> x = add_var(p, "x", 0, 10, integer=True); y = add_var(p, "y", 0, 10, integer=True)
    >>> _ = p.addConstraint(3 * x + 2 * y <= 7.5, "cap"); p.setObjective(x + y)
    >>> [str(c) for c in pulp_constraints(p)]
    ['3*x + 2*y <= 7.5']
    """
    cons = problem.constraints
    if callable(cons):
        return list(cons())
    return list(cons.values())  # pragma: no cover - PuLP < 3.3


def linear_terms(expr: Any) -> list[tuple[Any, float]]:
    """(variable, coefficient) pairs of a PuLP expression (its public ``items()``).

    Parameters
    ----------
    expr : pulp.LpAffineExpression or pulp.LpConstraint

    Returns
    -------
    list of (pulp.LpVariable, float)

    Examples
    --------
    >>> import pulp
    >>> p = pulp.LpProblem("k", pulp.LpMaximize)
    >>> x = add_var(p, "x", 0, 10, integer=True); y = add_var(p, "y", 0, 10, integer=True)
    >>> _ = p.addConstraint(3 * x + 2 * y <= 7.5, "cap"); p.setObjective(x + y)
    >>> [(v.name, c) for v, c in linear_terms(3 * x + 2 * y)]
    [('x', 3.0), ('y', 2.0)]
    """
    return [(v, float(c)) for v, c in expr.items()]


def from_pulp(problem: Any, also: Iterable[Any] = ()) -> LinearProgram:
    """Read a ``pulp.LpProblem`` into a :class:`LinearProgram` (public PuLP API only).

    Unnamed constraints get PuLP's own names (``_C1``, ``_C2``, ...), so diagnostics name the rows an
    exported ``.lp`` file shows.

    Parameters
    ----------
    problem : pulp.LpProblem
        The model.
    also : iterable of PuLP expressions, optional
        Expressions whose variables become columns even when no row or objective uses them (PuLP 3
        lists only the variables in use).

    Returns
    -------
    LinearProgram

    Examples
    --------
    One row 3x + 2y <= 7.5, objective x + y:

    >>> import pulp
    >>> p = pulp.LpProblem("k", pulp.LpMaximize)
    >>> x = add_var(p, "x", 0, 10, integer=True); y = add_var(p, "y", 0, 10, integer=True)
    >>> _ = p.addConstraint(3 * x + 2 * y <= 7.5, "cap"); p.setObjective(x + y)
    >>> lp = from_pulp(p)
    >>> lp.names, lp.A.toarray().tolist(), lp.row_hi.tolist(), lp.cost.tolist()
    (('x', 'y'), [[3.0, 2.0]], [7.5], [1.0, 1.0])
    """
    import pulp

    variables = list(problem.variables())
    cons = pulp_constraints(problem)
    seen = {v.name for v in variables}
    for c in list(cons) + list(also):     # PuLP 3 lists only the variables in use; be thorough
        for v, _ in c.items():
            if v.name not in seen:
                variables.append(v)
                seen.add(v.name)
    names = tuple(v.name for v in variables)
    index = {n: k for k, n in enumerate(names)}
    lb = np.array([_bound(v.lowBound, -math.inf) for v in variables], dtype=float)
    ub = np.array([_bound(v.upBound, math.inf) for v in variables], dtype=float)
    integer = np.array([v.cat in ("Integer", "Binary") for v in variables], dtype=bool)
    data, ind, ptr = [], [], [0]
    lo, hi, rnames = [], [], []
    unnamed = 0
    for c in cons:
        for v, coef in c.items():
            ind.append(index[v.name])
            data.append(float(coef))
        ptr.append(len(ind))
        rhs = -float(c.constant)
        if c.sense == pulp.LpConstraintLE:
            lo.append(-math.inf), hi.append(rhs)
        elif c.sense == pulp.LpConstraintGE:
            lo.append(rhs), hi.append(math.inf)
        else:
            lo.append(rhs), hi.append(rhs)
        if c.name is None:                 # PuLP's own default name: unnamed rows _C1, _C2, ...
            unnamed += 1
        rnames.append(c.name if c.name is not None else f"_C{unnamed}")
    A = sp.csr_matrix((np.array(data, dtype=float), np.array(ind, dtype=np.int64), np.array(ptr)),
                      shape=(len(cons), len(names)))
    cost = np.zeros(len(names))
    offset = 0.0
    obj = problem.objective
    if obj is not None:
        for v, coef in obj.items():
            cost[index[v.name]] += float(coef)
        offset = float(obj.constant)
    return LinearProgram(names, lb, ub, integer, A, np.array(lo, dtype=float), np.array(hi, dtype=float),
                         tuple(rnames), cost, offset, problem.sense == pulp.LpMaximize, index)


def terms_of(expr: Any, index: dict) -> dict[int, float]:
    """{column index: coefficient} of a PuLP expression, for rows built by the leximin driver."""
    out: dict[int, float] = {}
    for v, c in expr.items():
        k = index[v.name]
        out[k] = out.get(k, 0.0) + float(c)
    return out


def combine(parts: Iterable[tuple[dict, float]]) -> dict:
    """Sum of ``coef * terms`` over (terms, coef) pairs."""
    out: dict = {}
    for terms, a in parts:
        for k, c in terms.items():
            out[k] = out.get(k, 0.0) + a * c
    return out
