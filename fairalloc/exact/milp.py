r"""PuLP models in, honest outcomes out: :func:`solve_pulp`, :func:`export_model`, :class:`MilpModel`.

fairalloc writes its integer programs with PuLP (its public, documented API only, so that PuLP 3.x
and 4.x both work). :func:`solve_pulp` reads a ``pulp.LpProblem`` into arrays
(:func:`fairalloc.exact.program.from_pulp`), solves them with a backend of
:mod:`fairalloc.exact.backends` (HiGHS through ``highspy``, CP-SAT through ``ortools``, CBC through
PuLP) and writes the incumbent back into the model's variables (``assignVarsVals``). The status
table, the bound and gap conventions and the incumbent check are those of
:mod:`fairalloc.exact.backends`.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InvalidInstanceError
from .backends import (CHECK_TOL, PROVEN_GAP, _map_cbc, _map_highs, _parse_cbc_log,  # noqa: F401 - re-exported
                       solve_program)
from .program import add_var, from_pulp, pulp_constraints  # noqa: F401 - add_var re-exported
from .solvers import Backend, SolveOutcome, get_backend

logger = logging.getLogger(__name__)

__all__ = ["solve_pulp", "export_model", "MilpModel", "check_solution", "add_var", "PROVEN_GAP"]


def _values(problem: Any, names: Sequence[str]) -> np.ndarray:
    by_name = {v.name: v for v in problem.variables()}
    out = np.empty(len(names))
    for k, n in enumerate(names):
        v = by_name.get(n)
        out[k] = np.nan if v is None or v.varValue is None else float(v.varValue)
    return out


def check_solution(problem: Any, *, tol: float = CHECK_TOL) -> str | None:
    """Check the variables' current values against ``problem``: None when feasible, else why not.

    Bounds, integrality and every constraint are checked. Tolerances are relative (see
    :meth:`fairalloc.exact.program.LinearProgram.violation`).

    Parameters
    ----------
    problem : pulp.LpProblem
        The model, with values in its variables (after a solve, or set by hand).
    tol : float, optional
        Relative tolerance (default :data:`CHECK_TOL`).

    Returns
    -------
    str or None
        ``None``, or the first violation found (a variable without a value, out of bounds, not
        integral, or the constraint violated and by how much).

    Examples
    --------
    In :func:`solve_pulp`'s toy model, x = 3, y = 2 breaks x + y <= 4 (PuLP's ``_C1``) by 1:

    >>> import pulp
    >>> p = pulp.LpProblem("toy", pulp.LpMaximize)
    >>> x = p.add_variable("x", 0, None, cat="Integer"); y = p.add_variable("y", 0, None, cat="Integer")
    >>> p.setObjective(3 * x + 2 * y)
    >>> _ = p.addConstraint(x + y <= 4); _ = p.addConstraint(x + 3 * y <= 6); _ = p.addConstraint(x <= 3)
    >>> _ = x.setInitialValue(3); _ = y.setInitialValue(2)
    >>> check_solution(p)
    'constraint _C1 violated by 1'
    >>> _ = y.setInitialValue(1)
    >>> check_solution(p) is None
    True
    """
    prog = from_pulp(problem)
    x = _values(problem, prog.names)
    missing = np.flatnonzero(np.isnan(x))
    if missing.size:
        return f"variable {prog.names[int(missing[0])]} has no value"
    return prog.violation(x, tol=tol)


def solve_pulp(problem: Any, backend: Backend | str | None = None, *, time_limit: float | None = None,
               mip_gap: float | None = 0.0, abs_gap: float | None = None, threads: int | None = None,
               msg: bool = False, options: Mapping[str, Any] | None = None,
               proven_gap: float | None = None, warm_start: bool = False) -> SolveOutcome:
    """Solve a ``pulp.LpProblem`` with a MILP backend; never raises for solver outcomes.

    Parameters
    ----------
    problem : pulp.LpProblem
        Read through PuLP's public API; the incumbent's values are written back into its variables.
    backend : Backend, str or None
        ``"highs"``, ``"cpsat"``, ``"cbc"`` (:func:`~fairalloc.exact.solvers.get_backend`; None: the
        default order).
    time_limit : float, optional
        Wall-clock seconds for this solve.
    mip_gap : float, optional
        Relative gap at which the backend may stop (default 0: prove optimality). A solve stopped by a
        positive gap is reported FEASIBLE unless the gap it reached is within ``proven_gap``.
    abs_gap : float, optional
        Absolute gap at which the backend may stop.
    threads : int, optional
        HiGHS ``threads``, CP-SAT ``num_workers``, CBC ``threads``.
    msg : bool
        Show the backend's log.
    options : mapping, optional
        Passed to the backend untouched: HiGHS option names (unknown names give a
        :class:`~fairalloc.errors.FairallocWarning`), CP-SAT ``SatParameters`` fields, or CBC
        command-line options (``{"cuts": "off"}`` becomes ``-cuts off``).
    proven_gap : float, optional
        Absolute objective gap that counts as proof (when the objective can only take values at least
        that far apart). Default: relative :data:`PROVEN_GAP`.
    warm_start : bool
        Hand the variables' current values to the backend as a MIP start.

    Returns
    -------
    SolveOutcome
        ``status`` mapped honestly, ``objective`` of the incumbent, ``stats`` with ``runtime_s``,
        ``raw_status``, ``bound``, ``mip_gap``, ``nodes``.

    Raises
    ------
    SolverUnavailableError
        Unknown or missing ``backend``.

    See Also
    --------
    check_solution : verify the values written back.

    Examples
    --------
    Maximise 3x + 2y over integers with x + y <= 4, x + 3y <= 6, x <= 3. By hand: x = 3 leaves y <= 1
    (both rows), giving 11; x <= 2 gives at most 6 + 2·(4/3) < 11 with y <= 4/3, so 11 is optimal:

    >>> import pulp
    >>> p = pulp.LpProblem("toy", pulp.LpMaximize)
    >>> x = p.add_variable("x", 0, None, cat="Integer"); y = p.add_variable("y", 0, None, cat="Integer")
    >>> p.setObjective(3 * x + 2 * y)
    >>> _ = p.addConstraint(x + y <= 4); _ = p.addConstraint(x + 3 * y <= 6); _ = p.addConstraint(x <= 3)
    >>> out = solve_pulp(p, "highs")
    >>> out.status.value, round(out.objective, 9), x.value(), y.value()
    ('optimal', 11.0, 3.0, 1.0)
    """
    if not isinstance(backend, Backend):
        backend = get_backend(backend, "milp")
    if time_limit is not None and not (time_limit > 0):
        raise InvalidInstanceError(f"time_limit={time_limit!r} must be > 0 seconds", argument="time_limit",
                                   value=time_limit)
    if mip_gap is not None and not (mip_gap >= 0):
        raise InvalidInstanceError(f"mip_gap={mip_gap!r} must be >= 0", argument="mip_gap", value=mip_gap)
    prog = from_pulp(problem)
    start = None
    if warm_start:
        start = _values(problem, prog.names)
        start = np.where(np.isnan(start), 0.0, start)
    out, x = solve_program(prog, backend, time_limit=time_limit, mip_gap=mip_gap, abs_gap=abs_gap,
                           threads=threads, msg=msg, options=options, proven_gap=proven_gap, start=start)
    if x is not None:
        problem.assignVarsVals(dict(zip(prog.names, (float(v) for v in x))))
    logger.debug("%s: %s (%s) in %.3fs", backend.name, out.status.value, out.stats.get("raw_status"),
                 out.stats.get("runtime_s", 0.0))
    return out


def export_model(problem: Any, path: str | os.PathLike) -> Path:
    """Write ``problem`` as an LP (``.lp``) or MPS (``.mps``) file for another solver; returns the path.

    MPS keeps the objective sense in an ``OBJSENSE`` section; both formats keep integrality.

    Parameters
    ----------
    problem : pulp.LpProblem
        The model (for example ``MilpModel.problem``).
    path : str or os.PathLike
        The file to write; its extension picks the format.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InvalidInstanceError
        An extension other than ``.lp`` / ``.mps``.

    Examples
    --------
    :func:`solve_pulp`'s toy model, written to a temporary directory removed afterwards; PuLP names the
    unnamed rows ``_C1``, ``_C2``, ...:

    >>> import pulp
    >>> p = pulp.LpProblem("toy", pulp.LpMaximize)
    >>> x = p.add_variable("x", 0, None, cat="Integer"); y = p.add_variable("y", 0, None, cat="Integer")
    >>> p.setObjective(3 * x + 2 * y)
    >>> _ = p.addConstraint(x + y <= 4); _ = p.addConstraint(x + 3 * y <= 6); _ = p.addConstraint(x <= 3)
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     text = export_model(p, pathlib.Path(d) / "toy.lp").read_text()
    >>> [line for line in text.splitlines() if line.startswith(("OBJ", "_C"))]
    ['OBJ: 3 x + 2 y', '_C1: x + y <= 4', '_C2: x + 3 y <= 6', '_C3: x <= 3']
    """
    path = Path(path)
    ext = path.suffix.lower()
    if ext == ".lp":
        problem.writeLP(str(path))
    elif ext == ".mps":
        try:
            problem.writeMPS(str(path), with_objsense=True)
        except TypeError:  # pragma: no cover - PuLP 2.x
            problem.writeMPS(str(path), mpsSense=problem.sense)
    else:
        raise InvalidInstanceError(f"path={str(path)!r}: the model can be written as .lp or .mps, not {ext!r}",
                                   argument="path", value=str(path))
    return path


class MilpModel:
    """A built MILP with its variables, ready to solve or export.

    Returned by the ``*_model`` builders (:func:`fairalloc.exact.tasks_model`,
    :func:`fairalloc.exact.tvtsf_model`) for users who want the raw program: hand it to another
    solver with :meth:`export_model`, or solve it here with :meth:`solve`.

    Parameters
    ----------
    problem : pulp.LpProblem
        The model.
    variables : Mapping
        Named groups of its PuLP variables.
    description : str, optional
        One line saying what the model is (shown by ``repr``).

    Attributes
    ----------
    problem : pulp.LpProblem
    variables : dict
        Named groups of PuLP variables (e.g. ``{"x": {(i, m): var}, "z": var}``).
    description : str
    n_variables, n_constraints : int
        Sizes of the model.

    Examples
    --------
    The DRF paper's example (one server <9, 18>, tasks <1, 4> and <3, 1>): one ``x`` per user and
    server, the level ``z``, and the max-min gives 3 and 2 tasks (dominant shares 2/3 each):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> model = fa.exact.tasks_model(ti, mechanism="drf")
    >>> model.n_variables, list(model.variables)
    (3, ['x', 'z', 'totals'])
    >>> model.solve("highs").status.value, sorted(model.value("x").values())
    ('optimal', [2.0, 3.0])
    """

    def __init__(self, problem: Any, variables: Mapping[str, Any], description: str = "") -> None:
        self.problem = problem
        self.variables = dict(variables)
        self.description = description

    @property
    def n_variables(self) -> int:
        return len(self.problem.variables())

    @property
    def n_constraints(self) -> int:
        return len(pulp_constraints(self.problem))

    def export_model(self, path: str | os.PathLike) -> Path:
        """Write the model as ``.lp`` or ``.mps`` (see :func:`export_model`)."""
        return export_model(self.problem, path)

    def solve(self, solver: str | None = None, **kw: Any) -> SolveOutcome:
        """Solve with :func:`solve_pulp` (keywords: ``time_limit``, ``mip_gap``, ``threads``, ``msg``, ``options``)."""
        return solve_pulp(self.problem, solver, **kw)

    def value(self, group: str) -> Any:
        """Values of a variable group: a dict key -> float for dicts, a float for a single variable."""
        g = self.variables[group]
        if isinstance(g, Mapping):
            return {k: v.varValue for k, v in g.items()}
        if isinstance(g, Sequence):
            return [v.varValue for v in g]
        return g.varValue

    def __repr__(self) -> str:
        return (f"MilpModel({self.description!r}, n_variables={self.n_variables}, "
                f"n_constraints={self.n_constraints})")
