r"""The PuLP side of the solver layer: MILPs on HiGHS and CBC with honest statuses, bounds and gaps.

:func:`solve_pulp` runs one ``pulp.LpProblem`` on a backend of :mod:`fairalloc.exact.solvers` and maps
the outcome to a :class:`~fairalloc.result.Status` the way DESIGN.md requires:

=========================================== ============== ========================================
what the backend says                        status         stats
=========================================== ============== ========================================
optimal, gap within ``proven_gap``           OPTIMAL        ``bound`` = objective, ``mip_gap`` 0
optimal *within a user mip_gap* > 0          FEASIBLE       ``bound``, ``mip_gap`` (not proven)
limit reached with an incumbent              FEASIBLE       ``bound``, ``mip_gap`` (when known)
limit reached without an incumbent           NOT_SOLVED     ``bound`` (HiGHS)
infeasible                                   INFEASIBLE     the backend's words in ``message``
unbounded                                    UNBOUNDED
anything else, or an incumbent that violates ERROR /        the backend's words in ``message``
its own constraints                          NOT_SOLVED
=========================================== ============== ========================================

How each backend is read (PuLP 3.x):

* **HiGHS** (``pulp.HiGHS``, in-process through highspy): PuLP keeps the ``highspy.Highs`` object as
  ``prob.solverModel``; its ``getModelStatus()`` is the backend's own verdict and ``getInfo()`` gives
  ``mip_dual_bound`` (the best bound), ``mip_gap``, ``mip_node_count`` and ``primal_solution_status``
  (2 = a feasible incumbent exists). PuLP builds the HiGHS model as a *minimisation* of ``-objective``
  for maximisation problems, so the bound is negated back. ``prob.sol_status`` is read too and must
  agree.
* **CBC** (``pulp.PULP_CBC_CMD``, the binary bundled with PuLP): ``prob.sol_status`` is 1 (optimal), 2
  (integer feasible, stopped by a limit), 0 (no solution) or -1 (infeasible); the bound is not part
  of the solution file, so the CBC log is written to a temporary file and its summary
  (``Result - ...``, ``Objective value``, ``Lower bound`` / ``Upper bound``, ``Enumerated nodes``) is
  parsed. When that summary is missing (CBC crashed, or an unusual log) ``stats["bound"]`` is absent
  and ``stats["bound_note"]`` says why, rather than inventing a bound.

The gap reported in ``stats["mip_gap"]`` is always fairalloc's own: ``|bound - objective| /
max(|objective|, 1e-10)`` (HiGHS's definition), so both backends are comparable; the backend's own
figure is kept as ``stats["backend_gap"]`` where it prints one.

Every incumbent is checked against the model's own constraints and integrality (relative tolerance
``1e-6``) before it is trusted: old CBC builds stopped "on iterations" have returned points that
violate constraints while PuLP called them optimal (coin-or/pulp#711).
"""

from __future__ import annotations

import io
import logging
import math
import os
import re
import sys
import tempfile
import time
import warnings
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import FairallocWarning, InvalidInstanceError
from ..result import Status
from .solvers import Backend, SolveOutcome, get_backend

logger = logging.getLogger(__name__)

__all__ = ["solve_pulp", "export_model", "MilpModel", "check_solution", "add_var", "PROVEN_GAP"]

#: Relative gap below which a backend's "optimal" is accepted as proven (when the caller gives no
#: absolute ``proven_gap`` of its own). HiGHS's default ``mip_rel_gap`` is 1e-4, which would let it call
#: a 0.01 %-suboptimal point optimal: fairalloc passes ``mip_gap=0`` unless told otherwise.
PROVEN_GAP = 1e-9

#: Relative feasibility tolerance used to check an incumbent against the model's own constraints.
CHECK_TOL = 1e-6


def _pulp():
    import pulp

    return pulp


def add_var(problem: Any, name: str, low: float | None = None, up: float | None = None,
            integer: bool = False) -> Any:
    """A new variable of ``problem`` (PuLP 3.x ``add_variable``; plain ``LpVariable`` on PuLP 2.x)."""
    pulp = _pulp()
    cat = pulp.LpInteger if integer else pulp.LpContinuous
    make = getattr(problem, "add_variable", None)
    if make is not None:
        return make(name, low, up, cat=cat)
    return pulp.LpVariable(name, low, up, cat)  # pragma: no cover - PuLP 2.x


def _constraints(problem: Any) -> list[tuple[str, Any]]:
    return list(problem._constraints.items())   # same attribute on PuLP 2.x and 3.x, no deprecation


def _highs_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options HiGHS accepts; each rejected one gives a :class:`FairallocWarning` and is dropped."""
    import highspy

    probe = highspy.Highs()
    probe.setOptionValue("output_flag", False)
    good = {}
    for key, value in options.items():
        with redirect_stdout(io.StringIO()):
            st = probe.setOptionValue(key, value)
        if st == highspy.HighsStatus.kOk:
            good[key] = value
        else:
            warnings.warn(f"HiGHS rejected option {key}={value!r} (unknown name or bad value); it is ignored",
                          FairallocWarning, stacklevel=4)
    return good


_WARM_HIGHS = None


def _warm_highs_class() -> type:
    """``pulp.HiGHS`` that hands the variables' current values to HiGHS as a MIP start."""
    global _WARM_HIGHS
    if _WARM_HIGHS is None:
        import highspy

        pulp = _pulp()

        class WarmHiGHS(pulp.HiGHS):
            def callSolver(self, lp):  # noqa: N802 - PuLP's name
                cols = sorted(lp.variables(), key=lambda v: v.index)
                sol = highspy.HighsSolution()
                sol.col_value = [float(v.varValue) if v.varValue is not None else 0.0 for v in cols]
                sol.value_valid = True
                with redirect_stdout(io.StringIO()):
                    lp.solverModel.setSolution(sol)
                lp.solverModel.run()

        _WARM_HIGHS = WarmHiGHS
    return _WARM_HIGHS


def _make_solver(backend: Backend, *, time_limit: float | None, mip_gap: float | None,
                 abs_gap: float | None, threads: int | None, msg: bool,
                 options: Mapping[str, Any] | None, log_path: str | None, warm_start: bool = False) -> Any:
    pulp = _pulp()
    opts = dict(options or {})
    if backend.name == "highs":
        good = _highs_options(opts) if opts else {}
        cls = _warm_highs_class() if warm_start else pulp.HiGHS
        return cls(msg=msg, timeLimit=time_limit, gapRel=mip_gap, gapAbs=abs_gap, threads=threads, **good)
    if backend.name == "cbc":
        extra = [f"{k} {v}" if v is not None else str(k) for k, v in opts.items()]
        kw = dict(msg=False, timeLimit=time_limit, gapRel=mip_gap, gapAbs=abs_gap, threads=threads,
                  options=extra, logPath=log_path, warmStart=warm_start)
        try:   # PuLP 3.x marks the bundled CBC deprecated (for 4.0); it is what pulp ships today
            return pulp.PULP_CBC_CMD(**kw, _skip_v4_deprecation=True)
        except TypeError:  # pragma: no cover - PuLP 2.x
            return pulp.PULP_CBC_CMD(**kw)
    # Other PuLP backends (gurobi, cplex): generic keyword mapping, statuses from sol_status only.
    cls = getattr(pulp, backend.pulp_name)
    return cls(msg=msg, timeLimit=time_limit, gapRel=mip_gap, **opts)


def _is_mip(problem: Any) -> bool:
    return any(v.cat == "Integer" for v in problem.variables())


def check_solution(problem: Any, *, tol: float = CHECK_TOL) -> str | None:
    """Return None when the variable values satisfy ``problem`` (bounds, integrality, constraints), else why not.

    Tolerances are relative: a constraint ``a x <= b`` may be violated by ``tol * max(1, |b|, max|a_j x_j|)``.
    """
    for v in problem.variables():
        x = v.varValue
        if x is None:
            return f"variable {v.name} has no value"
        scale = tol * max(1.0, abs(x))
        if v.lowBound is not None and x < v.lowBound - scale:
            return f"variable {v.name}={x!r} below its bound {v.lowBound}"
        if v.upBound is not None and x > v.upBound + scale:
            return f"variable {v.name}={x!r} above its bound {v.upBound}"
        if v.cat == "Integer" and abs(x - round(x)) > tol * max(1.0, abs(x)):
            return f"variable {v.name}={x!r} is not integral"
    for name, c in _constraints(problem):
        lhs = 0.0
        big = abs(c.constant)
        for var, coef in c.items():
            term = coef * (var.varValue or 0.0)
            lhs += term
            big = max(big, abs(term))
        val = lhs + c.constant               # PuLP keeps "expr + constant (sense) 0"
        slack = tol * max(1.0, big)
        if (c.sense == 0 and abs(val) > slack) or (c.sense == -1 and val > slack) or (c.sense == 1 and val < -slack):
            return f"constraint {name} violated by {val:.3g}"
    return None


_CBC_RESULT = re.compile(r"^Result - (.+?)\s*$", re.M)
_CBC_INFEASIBLE = re.compile(r"^Problem is (primal )?infeasible.*$", re.M | re.I)
_CBC_OBJ = re.compile(r"^Objective value:\s+(\S+)", re.M)
_CBC_BOUND = re.compile(r"^(Lower|Upper) bound:\s+(\S+)", re.M)
_CBC_GAP = re.compile(r"^Gap:\s+(\S+)", re.M)
_CBC_NODES = re.compile(r"^Enumerated nodes:\s+(\S+)", re.M)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _parse_cbc_log(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    m = _CBC_RESULT.search(text)
    if m:
        out["result"] = m.group(1)
    else:
        m = _CBC_INFEASIBLE.search(text)
        if m:
            out["result"] = m.group(0).strip()
    m = _CBC_OBJ.search(text)
    if m:
        out["objective"] = _float(m.group(1))
    m = _CBC_BOUND.search(text)
    if m:
        out["bound"] = _float(m.group(2))
    m = _CBC_GAP.search(text)
    if m:
        out["backend_gap"] = _float(m.group(1))
    m = _CBC_NODES.search(text)
    if m:
        n = _float(m.group(1))
        out["nodes"] = int(n) if n is not None else None
    return out


def _gap(objective: float | None, bound: float | None) -> float | None:
    if objective is None or bound is None or not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    return abs(bound - objective) / max(abs(objective), 1e-10)


def _read_highs(problem: Any, maximize: bool, constant: float) -> tuple[dict[str, Any], str, bool]:
    """(stats, backend status string, incumbent exists) from the highspy object PuLP keeps."""
    h = getattr(problem, "solverModel", None)
    stats: dict[str, Any] = {}
    if h is None:
        return stats, "no HiGHS model", False
    status = h.getModelStatus()
    text = h.modelStatusToString(status)
    info = h.getInfo()
    sign = -1.0 if maximize else 1.0
    has_sol = int(getattr(info, "primal_solution_status", 0)) == 2
    stats["raw_status"] = text
    stats["nodes"] = int(getattr(info, "mip_node_count", -1))
    bound = getattr(info, "mip_dual_bound", None)
    if bound is not None and math.isfinite(bound) and _is_mip(problem):
        stats["bound"] = sign * bound + constant
    gap = getattr(info, "mip_gap", None)
    if gap is not None and math.isfinite(gap):
        stats["backend_gap"] = float(gap)
    return stats, text, has_sol


def solve_pulp(problem: Any, backend: Backend | str | None = None, *, time_limit: float | None = None,
               mip_gap: float | None = 0.0, abs_gap: float | None = None, threads: int | None = None,
               msg: bool = False, options: Mapping[str, Any] | None = None,
               proven_gap: float | None = None, warm_start: bool = False) -> SolveOutcome:
    """Solve a ``pulp.LpProblem`` with a MILP backend; never raises for solver outcomes.

    Parameters
    ----------
    problem : pulp.LpProblem
        Solved in place (PuLP writes the values into its variables); the caller owns it.
    backend : Backend, str or None
        A backend from :func:`~fairalloc.exact.solvers.get_backend` or its name (None: default order).
    time_limit : float, optional
        Wall-clock seconds for this solve.
    mip_gap : float, optional
        Relative gap at which the backend may stop (default 0: prove optimality; HiGHS's own default
        would be 1e-4). A solve stopped by a positive gap is reported FEASIBLE unless the gap it
        reached is within ``proven_gap``.
    abs_gap : float, optional
        Absolute gap at which the backend may stop (HiGHS ``mip_abs_gap``, CBC ``allow``).
    threads : int, optional
    msg : bool
        Show the backend's log (CBC: printed after the solve, from its log file).
    options : mapping, optional
        Passed to the backend untouched: HiGHS option names (``{"mip_heuristic_effort": 0.2}``;
        unknown names give a :class:`FairallocWarning`), or CBC command-line options
        (``{"cuts": "off"}`` becomes ``-cuts off``).
    proven_gap : float, optional
        Absolute objective gap that counts as proof: when the objective can only take values at
        least ``proven_gap`` apart beyond the incumbent, a smaller gap proves optimality. Default:
        relative :data:`PROVEN_GAP`.
    warm_start : bool
        Hand the variables' current values to the backend as a MIP start (HiGHS ``setSolution``,
        CBC ``-mips``); the caller makes sure they are feasible, or the backend ignores them.

    Returns
    -------
    SolveOutcome
        ``status`` mapped honestly (see the module docstring), ``objective`` of the incumbent,
        ``stats`` with ``runtime_s``, ``raw_status``, ``sol_status``, ``bound``, ``mip_gap``, ``nodes``.
    """
    pulp = _pulp()
    if not isinstance(backend, Backend):
        backend = get_backend(backend, "milp")
    if time_limit is not None and not (time_limit > 0):
        raise InvalidInstanceError(f"time_limit={time_limit!r} must be > 0 seconds", argument="time_limit",
                                   value=time_limit)
    if mip_gap is not None and not (mip_gap >= 0):
        raise InvalidInstanceError(f"mip_gap={mip_gap!r} must be >= 0", argument="mip_gap", value=mip_gap)
    maximize = problem.sense == pulp.LpMaximize
    constant = float(problem.objective.constant) if problem.objective is not None else 0.0
    log_path = None
    if backend.name == "cbc":
        fd, log_path = tempfile.mkstemp(prefix="fairalloc-cbc-", suffix=".log")
        os.close(fd)
    solver = _make_solver(backend, time_limit=time_limit, mip_gap=mip_gap, abs_gap=abs_gap,
                          threads=threads, msg=msg, options=options, log_path=log_path, warm_start=warm_start)
    t0 = time.perf_counter()
    crash: str | None = None
    try:
        problem.solve(solver)
    except Exception as exc:  # noqa: BLE001 - a backend failure is a status, not a crash
        crash = f"{type(exc).__name__}: {exc}"
    runtime = time.perf_counter() - t0
    stats: dict[str, Any] = {"runtime_s": runtime, "backend": backend.name,
                             "time_limit": time_limit, "mip_gap_requested": mip_gap}
    sol_status = getattr(problem, "sol_status", None)
    stats["sol_status"] = pulp.LpSolution.get(sol_status, str(sol_status))
    try:
        if backend.name == "highs":
            hstats, raw, has_sol = _read_highs(problem, maximize, constant)
            stats.update(hstats)
            status, message = _map_highs(raw, has_sol, crash)
        elif backend.name == "cbc":
            text = Path(log_path).read_text(errors="replace") if log_path and os.path.exists(log_path) else ""
            if msg and text:
                sys.stdout.write(text)
            parsed = _parse_cbc_log(text)
            stats["raw_status"] = parsed.get("result", "no 'Result -' line in the CBC log")
            for k in ("bound", "backend_gap", "nodes"):
                if parsed.get(k) is not None:
                    stats[k] = parsed[k]
            status, message = _map_cbc(sol_status, parsed.get("result"), crash)
            if "bound" not in stats and status is not Status.OPTIMAL:
                stats["bound_note"] = "CBC printed no bound in its log summary"
        else:
            status, message = _map_generic(sol_status, crash)
            stats["bound_note"] = f"{backend.name}: bound not read by fairalloc"
    finally:
        if log_path and os.path.exists(log_path):
            os.remove(log_path)
    objective = None
    if status in (Status.OPTIMAL, Status.FEASIBLE):
        bad = check_solution(problem)
        if bad is not None:
            message = f"{backend.name} returned a point that violates the model ({bad}); not trusted"
            status = Status.NOT_SOLVED
        else:
            objective = float(pulp.value(problem.objective)) if problem.objective is not None else 0.0
    if status is Status.OPTIMAL and "bound" not in stats:
        stats["bound"] = objective
    if objective is not None and stats.get("bound") is not None:
        gap = _gap(objective, stats["bound"])
        stats["mip_gap"] = gap
        if status is Status.OPTIMAL:
            tol = proven_gap if proven_gap is not None else PROVEN_GAP * max(1.0, abs(objective))
            if abs(stats["bound"] - objective) > tol:
                status = Status.FEASIBLE
                message = (f"{backend.name} stopped within the requested gap (bound {stats['bound']:.10g}, "
                           f"incumbent {objective:.10g}, gap {gap:.3g}); optimality not proven")
            else:
                stats["mip_gap"] = 0.0 if gap is not None and abs(stats["bound"] - objective) <= tol else gap
    elif status is Status.FEASIBLE:
        stats.setdefault("bound_note", "no bound available")
    logger.debug("%s: %s (%s) in %.3fs", backend.name, status.value, stats.get("raw_status"), runtime)
    return SolveOutcome(status, message, backend.name, objective=objective, stats=stats)


def _map_highs(raw: str, has_sol: bool, crash: str | None) -> tuple[Status, str]:
    low = raw.lower()
    if low == "optimal":
        return Status.OPTIMAL, "proven optimal by highs"
    if "infeasible" in low and "unbounded" in low:
        return Status.INFEASIBLE, f"highs: {raw} (fairalloc's models are bounded, so infeasible)"
    if "infeasible" in low:
        return Status.INFEASIBLE, f"highs: {raw}"
    if "unbounded" in low:
        return Status.UNBOUNDED, f"highs: {raw}"
    limit = any(w in low for w in ("limit", "interrupt", "bound", "target"))
    if limit:
        if has_sol:
            return Status.FEASIBLE, f"highs: {raw}; incumbent not proven optimal"
        return Status.NOT_SOLVED, f"highs: {raw} before any feasible solution was found"
    return Status.ERROR, f"highs: {raw}" + (f" ({crash})" if crash else "")


def _map_cbc(sol_status: Any, result: str | None, crash: str | None) -> tuple[Status, str]:
    words = f"cbc: {result}" if result else "cbc"
    if crash is not None:
        return Status.ERROR, f"cbc failed: {crash}"
    if sol_status == 1:
        if result is not None and not result.lower().startswith("optimal"):
            return Status.FEASIBLE, f"{words}; PuLP read 'optimal' but CBC's summary does not say so"
        return Status.OPTIMAL, "proven optimal by cbc"
    if sol_status == 2:
        return Status.FEASIBLE, f"{words}; incumbent not proven optimal"
    if sol_status == -1:
        return Status.INFEASIBLE, words if result else "cbc: problem proven infeasible"
    if sol_status == -2:
        return Status.UNBOUNDED, words
    if sol_status == 0:
        if result and "infeasible" in result.lower():
            return Status.INFEASIBLE, words
        if result and ("stopped" in result.lower() or "limit" in result.lower()):
            return Status.NOT_SOLVED, f"{words} before any feasible solution was found"
        return Status.ERROR, f"{words}; no solution"
    return Status.ERROR, f"{words}; unknown sol_status {sol_status!r}"


def _map_generic(sol_status: Any, crash: str | None) -> tuple[Status, str]:
    if crash is not None:
        return Status.ERROR, crash
    return {1: (Status.OPTIMAL, "optimal (backend sol_status)"),
            2: (Status.FEASIBLE, "solution found, not proven optimal"),
            -1: (Status.INFEASIBLE, "no solution exists"),
            -2: (Status.UNBOUNDED, "unbounded"),
            0: (Status.NOT_SOLVED, "no solution found")}.get(sol_status, (Status.ERROR, f"sol_status {sol_status!r}"))


def export_model(problem: Any, path: str | os.PathLike) -> Path:
    """Write ``problem`` as an LP (``.lp``) or MPS (``.mps``) file for another solver; returns the path.

    MPS keeps the objective sense in an ``OBJSENSE`` section; both formats keep integrality.

    Raises
    ------
    InvalidInstanceError
        An extension other than ``.lp`` / ``.mps``.
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

    Attributes
    ----------
    problem : pulp.LpProblem
    variables : dict
        Named groups of PuLP variables (e.g. ``{"x": {(i, m): var}, "z": var}``).
    description : str
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
        return len(_constraints(self.problem))

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
