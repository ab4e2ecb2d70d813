r"""The MILP backends: one :class:`~fairalloc.exact.program.LinearProgram`, three solvers, honest statuses.

=========== ================================================= ============================================
backend      how it is called (public APIs only)               what fairalloc reads
=========== ================================================= ============================================
``highs``    ``highspy.Highs``: ``passModel(HighsLp)``,        ``getModelStatus()``, ``getInfo()``
             ``setOptionValue``, ``setSolution`` (MIP start),  (``mip_dual_bound``, ``mip_gap``,
             ``run``                                           ``mip_node_count``, ``primal_solution_status``)
``cbc``      a PuLP model rebuilt from the arrays               ``sol_status`` and CBC's log summary
             (``add_variable``, ``addConstraint``), solved      (``Result -``, bound, gap, nodes)
             by ``PULP_CBC_CMD`` (PuLP 3) / ``COIN_CMD``
             (PuLP 4, needs a ``cbc`` binary)
``cpsat``    ``ortools.sat.python.cp_model``: every row         ``CpSolver.status_name``,
             scaled exactly to integers (below); ``AddHint``    ``best_objective_bound``, ``objective_value``
             for MIP starts
=========== ================================================= ============================================

Status table (every backend):

=========================================== ============== ========================================
what the backend says                        status         stats
=========================================== ============== ========================================
optimal, gap within ``proven_gap``           OPTIMAL        ``bound`` = objective, ``mip_gap`` 0
optimal *within a user mip_gap* > 0          FEASIBLE       ``bound``, ``mip_gap`` (not proven)
limit reached with an incumbent              FEASIBLE       ``bound``, ``mip_gap`` (when known)
limit reached without an incumbent           NOT_SOLVED     ``bound`` (HiGHS, CP-SAT)
infeasible                                   INFEASIBLE     the backend's words in ``message``
unbounded                                    UNBOUNDED
anything else, or an incumbent that violates ERROR /        the backend's words in ``message``
its own constraints                          NOT_SOLVED
=========================================== ============== ========================================

The gap in ``stats["mip_gap"]`` is fairalloc's own, ``|bound - objective| / max(|objective|, 1e-10)``
(HiGHS's definition), so backends are comparable; a backend's own figure is ``stats["backend_gap"]``.
Every incumbent is checked against the program's rows, bounds and integrality (relative ``1e-6``)
before it is trusted (old CBC builds stopped "on iterations" have returned points that violate
constraints while PuLP called them optimal, coin-or/pulp#711).

**CP-SAT needs integers.** CP-SAT solves programs over integer variables with integer coefficients.
Every column must be integer (a continuous column gives status ERROR naming it). Each row
``lo <= a x <= hi`` is multiplied by the smallest positive integer *s* that makes every
:math:`s a_j` an integer: each float :math:`a_j` is read as the fraction :math:`p_j/q_j` closest to it with
:math:`q_j \le 10^6` (``Fraction.limit_denominator``), accepted only within :math:`10^{-13}|a_j|`, and *s*
is the least common multiple of the :math:`q_j`. When the true coefficient is a fraction with a
denominator up to :math:`10^6` (every decimal with up to six digits, every ratio of such integers as
fairalloc's demands, capacities and weights produce), this recovers it exactly: two distinct
fractions with denominators up to :math:`10^6` differ by at least :math:`10^{-12}`, far more than the
float error of :math:`a_j`. Then :math:`s a x` is an integer for every integer *x*, so
``a x <= hi`` holds exactly when :math:`s a x \le \lfloor s\,hi + \epsilon \rfloor` (and ``>= lo`` when
:math:`s a x \ge \lceil s\,lo - \epsilon \rceil`), with :math:`\epsilon = 10^{-9}\max(1, |s\,hi|)`
absorbing the float error of the right-hand side (the other backends' feasibility tolerance is
about 1e-6, larger). The objective is scaled the same way and divided back. A row or objective
whose coefficients are not such fractions (or whose scaled values exceed :math:`2^{53}`) gives status
ERROR saying so, never a rounded model. The leximin driver chooses its level rows so that they are
exact in this sense (:func:`fairalloc.exact.leximin.integer_scale`).
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import time
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import FairallocWarning
from ..result import Status
from .program import LinearProgram, add_var
from .solvers import Backend, SolveOutcome, cbc_solver_class, highs_threads, quiet_highs

__all__ = ["solve_program", "solve_lp", "integer_row", "PROVEN_GAP", "CHECK_TOL"]

#: Relative gap below which a backend's "optimal" is accepted as proven (when the caller gives no
#: absolute ``proven_gap`` of its own). HiGHS's default ``mip_rel_gap`` is 1e-4, which would let it call
#: a 0.01 %-suboptimal point optimal: fairalloc passes ``mip_gap=0`` unless told otherwise.
PROVEN_GAP = 1e-9

#: Relative feasibility tolerance used to check an incumbent against the program.
CHECK_TOL = 1e-6

_MAX_INT = 2.0 ** 53


def _left(deadline: float | None) -> float | None:
    """Seconds left before ``deadline`` (a ``time.perf_counter()`` value), None without one."""
    return None if deadline is None else deadline - time.perf_counter()


_NO_TIME = "time limit reached while the backend's model was built; not solved"


def _gap(objective: float | None, bound: float | None) -> float | None:
    if objective is None or bound is None or not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    return abs(bound - objective) / max(abs(objective), 1e-10)


def solve_program(prog: LinearProgram, backend: Backend, *, time_limit: float | None = None,
                  mip_gap: float | None = 0.0, abs_gap: float | None = None, threads: int | None = None,
                  msg: bool = False, options: Mapping[str, Any] | None = None,
                  proven_gap: float | None = None, start: np.ndarray | None = None
                  ) -> tuple[SolveOutcome, np.ndarray | None]:
    """Solve ``prog`` with ``backend``; never raises for solver outcomes.

    The one MILP entry of the exact engine (HiGHS through highspy, CP-SAT through OR-Tools, CBC through
    PuLP); the status is mapped as the module's table says (OPTIMAL only when proven).

    Parameters
    ----------
    prog : LinearProgram
        The program (:func:`fairalloc.exact.program.from_pulp`).
    backend : Backend
        A MILP backend (:func:`fairalloc.exact.solvers.get_backend` with ``kind="milp"``).
    time_limit, mip_gap, abs_gap, threads, msg, options, proven_gap
        As in :func:`fairalloc.exact.milp.solve_pulp`. ``time_limit`` counts from this call: building
        the backend's model is part of it (each backend is given what is left when its model is
        built; a HiGHS retry gets what is left after the first run, or none).
    start : ndarray, shape (n_cols,), optional
        A MIP start (column values; the backend ignores it when infeasible).

    Returns
    -------
    outcome : SolveOutcome
        Status per the module's table, objective, stats.
    x : ndarray, shape (n_cols,), or None
        The column values of the incumbent (None without one).

    Examples
    --------
    Maximise x0 + 2 x1 with x0 + x1 <= 5, x0 <= 1, x1 <= 5 (integers): x1 = 5 gives 10, x0 = 1 would
    cost a unit of x1 (9), so 10 is the optimum, proven by HiGHS:

    >>> import pulp
    >>> from fairalloc.exact.program import add_var, from_pulp
    >>> from fairalloc.exact.solvers import get_backend
    >>> p = pulp.LpProblem("two", pulp.LpMaximize)
    >>> x0 = add_var(p, "x0", 0, 1, integer=True); x1 = add_var(p, "x1", 0, 5, integer=True)
    >>> _ = p.addConstraint(x0 + x1 <= 5, "cap"); p.setObjective(x0 + 2 * x1)
    >>> out, x = solve_program(from_pulp(p), get_backend("highs", "milp"))
    >>> out.status.value, round(out.objective, 9), [round(v) for v in x]
    ('optimal', 10.0, [0, 5])
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    stats: dict[str, Any] = {"backend": backend.name, "time_limit": time_limit, "mip_gap_requested": mip_gap}
    run = {"highs": _run_highs, "cbc": _run_cbc, "cpsat": _run_cpsat}.get(backend.name)
    if run is None:
        if backend.pulp_name is None:
            return SolveOutcome(Status.ERROR, f"{backend.name}: not a MILP backend of fairalloc's engine",
                                backend.name, stats=stats), None
        run = _pulp_generic(backend.pulp_name)
    if prog.n_cols == 0:         # nothing to decide (every user fixed): rows are constants
        ok = bool(np.all((prog.row_lo <= 1e-9) & (prog.row_hi >= -1e-9)))
        status, message = (Status.OPTIMAL, "no variables; the constant rows hold") if ok else (
            Status.INFEASIBLE, "no variables and a constant row fails")
        return SolveOutcome(status, message, backend.name, objective=prog.offset if ok else None,
                            stats={**stats, "runtime_s": time.perf_counter() - t0, "bound": prog.offset}), \
            (np.zeros(0) if ok else None)
    try:
        status, message, x, more = run(prog, deadline=deadline, mip_gap=mip_gap, abs_gap=abs_gap,
                                       threads=threads, msg=msg, options=dict(options or {}), start=start)
    except Exception as exc:  # noqa: BLE001 - a backend failure is a status, not a crash
        status, message, x, more = Status.ERROR, f"{backend.name} failed: {type(exc).__name__}: {exc}", None, {}
    stats.update(more)
    stats["runtime_s"] = time.perf_counter() - t0
    objective = None
    if status in (Status.OPTIMAL, Status.FEASIBLE):
        bad = None if x is None else prog.violation(x, tol=CHECK_TOL)
        if x is None or bad is not None:
            message = f"{backend.name} returned a point that violates the model ({bad}); not trusted"
            status, x = Status.NOT_SOLVED, None
        else:
            objective = prog.objective_value(x)
    else:
        x = None
    if status is Status.OPTIMAL and stats.get("bound") is None:
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
                stats["mip_gap"] = 0.0
    elif status is Status.FEASIBLE:
        stats.setdefault("bound_note", "no bound available")
    return SolveOutcome(status, message, backend.name, objective=objective, stats=stats), x


def solve_lp(prog: LinearProgram, *, time_limit: float | None = None, threads: int | None = None,
             msg: bool = False, options: Mapping[str, Any] | None = None) -> tuple[SolveOutcome, np.ndarray | None]:
    """Solve a plain LP with HiGHS (highspy): fairalloc's one route for linear programs.

    :func:`solve_program` with the HiGHS backend (the same model builder, status table and check of
    the returned point), after checking ``options`` strictly: an option HiGHS rejects raises here,
    before any work, instead of being dropped with a warning (a caller passing options to an LP
    wants them applied).

    Parameters
    ----------
    prog : LinearProgram
        No integer columns.
    time_limit, threads, msg
        As in :func:`solve_program`.
    options : mapping, optional
        HiGHS options (``setOptionValue`` names).

    Returns
    -------
    outcome : SolveOutcome
        OPTIMAL only when HiGHS proved it.
    x : ndarray or None
        The solution's column values.

    Raises
    ------
    ValueError
        ``prog`` has integer columns, or HiGHS rejects an option.

    Examples
    --------
    Maximise x + y with x + 2 y <= 4, 3 x + y <= 6, x, y >= 0: the vertex (8/5, 6/5), value 14/5:

    >>> import numpy as np, scipy.sparse as sp
    >>> from fairalloc.exact.program import LinearProgram
    >>> prog = LinearProgram(("x", "y"), np.zeros(2), np.full(2, np.inf), np.zeros(2, bool),
    ...                      sp.csr_matrix([[1.0, 2.0], [3.0, 1.0]]), np.full(2, -np.inf), np.array([4.0, 6.0]),
    ...                      ("a", "b"), np.ones(2))
    >>> out, x = solve_lp(prog)
    >>> out.status.value, round(out.objective, 9), np.round(x, 9).tolist()
    ('optimal', 2.8, [1.6, 1.2])
    """
    from .solvers import get_backend

    if prog.is_mip:
        raise ValueError("solve_lp: the program has integer columns (use solve_program)")
    opts = highs_options(dict(options or {}), strict=True)
    return solve_program(prog, get_backend("highs", "lp"), time_limit=time_limit, threads=threads, msg=msg,
                         options=opts)


# ---- HiGHS (highspy) ---------------------------------------------------------------------------

def _highs_model(prog: LinearProgram) -> Any:
    return highs_arrays(prog.cost, prog.lb, prog.ub, prog.A, prog.row_lo, prog.row_hi, offset=prog.offset,
                        maximize=prog.maximize, integer=prog.integer if prog.is_mip else None)


def highs_arrays(cost: np.ndarray, lb: np.ndarray, ub: np.ndarray, A: Any, row_lo: np.ndarray, row_hi: np.ndarray,
                 *, offset: float = 0.0, maximize: bool = False, integer: np.ndarray | None = None) -> Any:
    """A ``highspy.HighsLp`` of ``cost @ x + offset`` over ``row_lo <= A x <= row_hi``, ``lb <= x <= ub``
    (``A`` a CSR matrix; infinite bounds as HiGHS's infinity; ``integer``: which columns are integer):
    the model every HiGHS solve of fairalloc passes (:class:`~fairalloc.exact.program.LinearProgram`'s
    arrays, or a caller's own, without column names)."""
    import highspy

    lp = highspy.HighsLp()
    n_cols, n_rows = int(A.shape[1]), int(A.shape[0])
    lp.num_col_ = n_cols
    lp.num_row_ = n_rows
    inf = highspy.kHighsInf
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.where(np.isfinite(lb), lb, -inf)
    lp.col_upper_ = np.where(np.isfinite(ub), ub, inf)
    lp.row_lower_ = np.where(np.isfinite(row_lo), row_lo, -inf)
    lp.row_upper_ = np.where(np.isfinite(row_hi), row_hi, inf)
    lp.offset_ = float(offset)
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = n_cols
    lp.a_matrix_.num_row_ = n_rows
    lp.a_matrix_.start_ = np.asarray(A.indptr, dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(A.indices, dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(A.data, dtype=float)
    if integer is not None:
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in integer]
    return lp


def highs_options(options: Mapping[str, Any], *, strict: bool = False) -> dict[str, Any]:
    """The options HiGHS accepts; each rejected one gives a :class:`FairallocWarning` and is dropped
    (``strict``: a ``ValueError`` naming it instead)."""
    import highspy

    probe = quiet_highs()
    good = {}
    for key, value in options.items():
        try:
            ok = probe.setOptionValue(key, value) == highspy.HighsStatus.kOk
        except (TypeError, ValueError):
            ok = False
        if ok:
            good[key] = value
        elif strict:
            raise ValueError(f"HiGHS rejected option {key}={value!r} (unknown name or bad value)")
        else:
            warnings.warn(f"HiGHS rejected option {key}={value!r} (unknown name or bad value); it is ignored",
                          FairallocWarning, stacklevel=5)
    return good


def _run_highs(prog: LinearProgram, *, deadline, mip_gap, abs_gap, threads, msg, options, start):
    import highspy

    h = quiet_highs()
    h.setOptionValue("output_flag", bool(msg))
    if mip_gap is not None:
        h.setOptionValue("mip_rel_gap", float(mip_gap))
    if abs_gap is not None:
        h.setOptionValue("mip_abs_gap", float(abs_gap))
    highs_threads(h, threads)
    for k, v in highs_options(options).items():
        h.setOptionValue(k, v)
    h.passModel(_highs_model(prog))
    left = _left(deadline)
    if left is not None:
        if left <= 0:
            return Status.NOT_SOLVED, _NO_TIME, None, {"raw_status": "not run"}
        h.setOptionValue("time_limit", float(left))
    if start is not None and prog.is_mip:
        sol = highspy.HighsSolution()
        sol.col_value = [float(v) for v in start]
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    status = h.getModelStatus()
    raw = h.modelStatusToString(status)
    info = h.getInfo()
    retried = None
    x_obj = None
    if prog.is_mip and int(getattr(info, "primal_solution_status", 0)) == 2:
        x_obj = prog.objective_value(np.array(h.getSolution().col_value, dtype=float))
    left = _left(deadline)
    if prog.is_mip and "presolve" not in (options or {}) and _highs_suspect(raw, info, mip_gap, abs_gap, x_obj) \
            and (left is None or left > 0):
        # HiGHS 1.16's MIP presolve ends some small, feasible count MILPs with "Solve error" (repair LP
        # infeasible) or "Infeasible", or calls an incumbent "Optimal" at a gap its own bound
        # contradicts, or reports "Optimal" with an objective its returned solution does not have
        # (the MIP start handed back, objective 1, while HiGHS says 2 = bound; the optimum is 1),
        # where scipy's HiGHS, CBC and CP-SAT prove the optimum (seen on fairalloc compare's
        # random-tasks-34): solve once more with presolve off, and say so in the stats
        retried = f"presolve off, no MIP start, after {raw!r}"
        h.clearSolver()
        h.setOptionValue("presolve", "off")
        h.passModel(_highs_model(prog))               # afresh, without the MIP start (only a speed-up)
        left = _left(deadline)
        if left is not None:
            h.setOptionValue("time_limit", float(max(left, 1e-3)))
        h.run()
        status = h.getModelStatus()
        raw = h.modelStatusToString(status)
        info = h.getInfo()
    has_sol = int(getattr(info, "primal_solution_status", 0)) == 2
    more: dict[str, Any] = {"raw_status": raw, "nodes": int(getattr(info, "mip_node_count", -1))}
    if retried:
        more["retried"] = retried
    bound = getattr(info, "mip_dual_bound", None)
    if prog.is_mip and bound is not None and math.isfinite(bound):
        more["bound"] = float(bound)
    gap = getattr(info, "mip_gap", None)
    if gap is not None and math.isfinite(gap):
        more["backend_gap"] = float(gap)
    st, message = _map_highs(raw, has_sol, None)
    x = np.array(h.getSolution().col_value, dtype=float) if has_sol else None
    return st, message, x, more


def _highs_suspect(raw: str, info: Any, mip_gap: float | None, abs_gap: float | None,
                   x_obj: float | None = None) -> bool:
    """A MIP run worth a second solve without presolve: "Solve error"; "Infeasible" (checked again: a
    truly infeasible program stays so); or "Optimal" while either the objective of the solution HiGHS
    returns (``x_obj``, computed by fairalloc from its column values) differs from the objective HiGHS
    reports, or the gap between HiGHS's own bound and incumbent exceeds both stopping gaps asked for
    (HiGHS's default relative gap 1e-4 when none was)."""
    if raw in ("Solve error", "Infeasible"):
        return True
    if raw != "Optimal":
        return False
    bound, obj = getattr(info, "mip_dual_bound", None), getattr(info, "objective_function_value", None)
    if bound is None or obj is None or not (math.isfinite(bound) and math.isfinite(obj)):
        return False
    if x_obj is not None and abs(x_obj - obj) > 1e-6 * max(1.0, abs(obj)):
        return True
    diff = abs(bound - obj)
    rel = diff / max(abs(obj), 1e-9)
    tol_rel = (1e-4 if mip_gap is None else float(mip_gap)) + 1e-9
    tol_abs = (1e-6 if abs_gap is None else float(abs_gap)) + 1e-9
    return rel > tol_rel and diff > tol_abs


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
    if any(w in low for w in ("limit", "interrupt", "bound", "target")):
        if has_sol:
            return Status.FEASIBLE, f"highs: {raw}; incumbent not proven optimal"
        return Status.NOT_SOLVED, f"highs: {raw} before any feasible solution was found"
    return Status.ERROR, f"highs: {raw}" + (f" ({crash})" if crash else "")


# ---- CBC (through PuLP) ------------------------------------------------------------------------

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


def _to_pulp(prog: LinearProgram, start: np.ndarray | None) -> tuple[Any, list]:
    """A fresh ``pulp.LpProblem`` of ``prog`` (public API: ``add_variable``, ``addConstraint``)."""
    import pulp

    p = pulp.LpProblem("fairalloc", pulp.LpMaximize if prog.maximize else pulp.LpMinimize)
    cols = [add_var(p, f"c{k}", None if not math.isfinite(prog.lb[k]) else float(prog.lb[k]),
                    None if not math.isfinite(prog.ub[k]) else float(prog.ub[k]), integer=bool(prog.integer[k]))
            for k in range(prog.n_cols)]
    A = prog.A
    for r in range(prog.n_rows):
        lo, hi = A.indptr[r], A.indptr[r + 1]
        expr = pulp.lpSum(float(c) * cols[j] for j, c in zip(A.indices[lo:hi], A.data[lo:hi]))
        if prog.row_lo[r] == prog.row_hi[r]:
            p.addConstraint(expr == float(prog.row_hi[r]), f"r{r}")
            continue
        if math.isfinite(prog.row_hi[r]):
            p.addConstraint(expr <= float(prog.row_hi[r]), f"r{r}u")
        if math.isfinite(prog.row_lo[r]):
            p.addConstraint(expr >= float(prog.row_lo[r]), f"r{r}l")
    p.setObjective(pulp.lpSum(float(c) * cols[j] for j, c in enumerate(prog.cost) if c) + float(prog.offset))
    if start is not None:
        for v, s in zip(cols, start):
            v.setInitialValue(float(s), check=False)
    return p, cols


def _run_cbc(prog: LinearProgram, *, deadline, mip_gap, abs_gap, threads, msg, options, start):
    import pulp

    cls = cbc_solver_class()
    if cls is None:
        from .solvers import CBC_INSTALL

        return Status.ERROR, f"cbc: no CBC available to PuLP; {CBC_INSTALL}", None, {}
    p, cols = _to_pulp(prog, start)
    time_limit = _left(deadline)           # what is left once the model is built
    if time_limit is not None and time_limit <= 0:
        return Status.NOT_SOLVED, _NO_TIME, None, {"raw_status": "not run"}
    fd, log_path = tempfile.mkstemp(prefix="fairalloc-cbc-", suffix=".log")
    os.close(fd)
    extra = [f"{k} {v}" if v is not None else str(k) for k, v in options.items()]
    crash = None
    try:
        with warnings.catch_warnings():
            # PuLP 3.x announces that PULP_CBC_CMD moves out of PuLP 4; fairalloc handles both
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", FutureWarning)
            solver = cls(msg=False, timeLimit=time_limit, gapRel=mip_gap, gapAbs=abs_gap, threads=threads,
                         options=extra, logPath=log_path, warmStart=start is not None)
            try:
                p.solve(solver)
            except Exception as exc:  # noqa: BLE001
                crash = f"{type(exc).__name__}: {exc}"
        text = Path(log_path).read_text(errors="replace") if os.path.exists(log_path) else ""
    finally:
        if os.path.exists(log_path):
            os.remove(log_path)
    if msg and text:
        sys.stdout.write(text)
    sol_status = getattr(p, "sol_status", None)
    parsed = _parse_cbc_log(text)
    more: dict[str, Any] = {"sol_status": pulp.LpSolution.get(sol_status, str(sol_status)),
                            "raw_status": parsed.get("result", "no 'Result -' line in the CBC log")}
    for k in ("bound", "backend_gap", "nodes"):
        if parsed.get(k) is not None:
            more[k] = parsed[k]
    status, message = _map_cbc(sol_status, parsed.get("result"), crash)
    if "bound" not in more and status is not Status.OPTIMAL:
        more["bound_note"] = "CBC printed no bound in its log summary"
    x = None
    if status in (Status.OPTIMAL, Status.FEASIBLE):
        x = _pulp_values(prog, cols)
    return status, message, x, more


def _pulp_values(prog: LinearProgram, cols: list) -> np.ndarray:
    """Column values after a PuLP solve; a column no row or objective uses gets no value from the
    backend, so it takes 0 clipped to its bounds (any value in them is as good; the check re-verifies)."""
    x = np.array([v.varValue if v.varValue is not None else np.nan for v in cols], dtype=float)
    miss = np.isnan(x)
    x[miss] = np.clip(0.0, prog.lb[miss], prog.ub[miss])
    return x


def _pulp_generic(class_name: str):
    """Other PuLP backends (Gurobi, CPLEX): keyword mapping only; status from ``sol_status``, no bound."""

    def run(prog: LinearProgram, *, deadline, mip_gap, abs_gap, threads, msg, options, start):
        import pulp

        p, cols = _to_pulp(prog, start)
        left = _left(deadline)
        if left is not None and left <= 0:
            return Status.NOT_SOLVED, _NO_TIME, None, {"raw_status": "not run"}
        crash = None
        try:
            p.solve(getattr(pulp, class_name)(msg=msg, timeLimit=left, gapRel=mip_gap, **options))
        except Exception as exc:  # noqa: BLE001
            crash = f"{type(exc).__name__}: {exc}"
        sol_status = getattr(p, "sol_status", None)
        if crash is not None:
            st, message = Status.ERROR, crash
        else:
            st, message = {1: (Status.OPTIMAL, "optimal (backend sol_status)"),
                           2: (Status.FEASIBLE, "solution found, not proven optimal"),
                           -1: (Status.INFEASIBLE, "no solution exists"),
                           -2: (Status.UNBOUNDED, "unbounded"),
                           0: (Status.NOT_SOLVED, "no solution found")}.get(
                               sol_status, (Status.ERROR, f"sol_status {sol_status!r}"))
        x = None
        if st in (Status.OPTIMAL, Status.FEASIBLE):
            x = _pulp_values(prog, cols)
        return st, message, x, {"raw_status": str(sol_status), "bound_note": f"{class_name}: bound not read"}

    return run


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


# ---- CP-SAT (OR-Tools) -------------------------------------------------------------------------

def _fraction(a: float) -> Fraction | None:
    f = Fraction(a).limit_denominator(10 ** 6)
    if abs(float(f) - a) > 1e-13 * max(1.0, abs(a)):
        return None
    return f


def integer_row(coefs: np.ndarray) -> int | None:
    """Smallest positive integer *s* with every ``s * coefs[j]`` an integer (module docstring), or None.

    Each coefficient is read as the closest fraction with a bounded denominator, accepted only when
    it is within a relative 1e-13 of it; *s* is the least common multiple of the denominators.

    Parameters
    ----------
    coefs : array_like of float

    Returns
    -------
    int or None
        None when a coefficient is no such fraction, or *s* grows past the exact-integer range.

    Examples
    --------
    1/2, 1/4 and 1/3 need lcm(2, 4, 3) = 12; the square root of 2 is irrational:

    >>> import math
    >>> integer_row([0.5, 0.25, 1 / 3]), integer_row([math.sqrt(2)])
    (12, None)
    """
    s = 1
    for a in np.asarray(coefs, dtype=float):
        if a == 0:
            continue
        f = _fraction(float(a))
        if f is None:
            return None
        s = s * f.denominator // math.gcd(s, f.denominator)
        if s > _MAX_INT:
            return None
    return s


def _run_cpsat(prog: LinearProgram, *, deadline, mip_gap, abs_gap, threads, msg, options, start):
    from ortools.sat.python import cp_model

    cont = np.flatnonzero(~prog.integer)
    if cont.size:
        return (Status.ERROR, f"cpsat solves integer programs only; continuous column "
                f"{prog.names[int(cont[0])]!r} (use solver='highs')", None, {})
    if not (np.isfinite(prog.lb).all() and np.isfinite(prog.ub).all()):
        k = int(np.flatnonzero(~(np.isfinite(prog.lb) & np.isfinite(prog.ub)))[0])
        return Status.ERROR, f"cpsat needs bounded columns; {prog.names[k]!r} is unbounded", None, {}
    m = cp_model.CpModel()
    xs = [m.new_int_var(int(math.ceil(prog.lb[k] - 1e-9)), int(math.floor(prog.ub[k] + 1e-9)), f"x{k}")
          for k in range(prog.n_cols)]
    A = prog.A
    for r in range(prog.n_rows):
        lo, hi = A.indptr[r], A.indptr[r + 1]
        idx, val = A.indices[lo:hi], A.data[lo:hi]
        s = integer_row(val)
        if s is None:
            return (Status.ERROR, f"cpsat: row {prog.row_names[r]!r} has coefficients that are not fractions "
                    f"with denominators up to 1e6 (cannot be scaled exactly to integers)", None, {})
        terms = [int(round(s * c)) * xs[j] for j, c in zip(idx, val)]
        expr = sum(terms) if terms else 0
        if math.isfinite(prog.row_hi[r]):
            b = s * prog.row_hi[r]
            m.add(expr <= int(math.floor(b + 1e-9 * max(1.0, abs(b)))))
        if math.isfinite(prog.row_lo[r]):
            b = s * prog.row_lo[r]
            m.add(expr >= int(math.ceil(b - 1e-9 * max(1.0, abs(b)))))
    nz = np.flatnonzero(prog.cost)
    so = integer_row(prog.cost[nz]) if nz.size else 1
    if so is None:
        return (Status.ERROR, "cpsat: the objective's coefficients cannot be scaled exactly to integers", None, {})
    obj = sum(int(round(so * prog.cost[j])) * xs[j] for j in nz) if nz.size else 0
    (m.maximize if prog.maximize else m.minimize)(obj)
    if start is not None:
        for v, val in zip(xs, start):
            m.add_hint(v, int(round(val)))
    solver = cp_model.CpSolver()
    p = solver.parameters
    left = _left(deadline)                 # what is left once the model is built
    if left is not None:
        if left <= 0:
            return Status.NOT_SOLVED, _NO_TIME, None, {"raw_status": "not run"}
        p.max_time_in_seconds = float(left)
    if threads is not None:
        p.num_workers = int(threads)
    if mip_gap:
        p.relative_gap_limit = float(mip_gap)
    if abs_gap is not None:
        p.absolute_gap_limit = float(abs_gap) * so
    p.log_search_progress = bool(msg)
    for k, v in options.items():
        setattr(p, k, v)
    code = solver.solve(m)
    raw = solver.status_name(code)
    more: dict[str, Any] = {"raw_status": raw, "nodes": int(solver.num_branches), "scale": so}
    has_sol = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if nz.size and code != cp_model.INFEASIBLE and code != cp_model.MODEL_INVALID:
        b = solver.best_objective_bound
        if math.isfinite(b):
            more["bound"] = b / so + prog.offset
    x = np.array([solver.value(v) for v in xs], dtype=float) if has_sol else None
    if code == cp_model.OPTIMAL:
        st, message = Status.OPTIMAL, "proven optimal by cpsat"
    elif code == cp_model.FEASIBLE:
        st, message = Status.FEASIBLE, "cpsat: FEASIBLE (stopped by a limit); incumbent not proven optimal"
    elif code == cp_model.INFEASIBLE:
        st, message = Status.INFEASIBLE, "cpsat: INFEASIBLE (proven)"
    elif code == cp_model.UNKNOWN:
        st, message = Status.NOT_SOLVED, "cpsat: UNKNOWN (a limit was reached before any feasible solution)"
    else:
        st, message = Status.ERROR, f"cpsat: {raw} {solver.solution_info()}"
    return st, message, x, more
