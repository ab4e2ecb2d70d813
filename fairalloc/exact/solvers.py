"""The solver layer: backends by name, capability checks, and honest statuses.

Backends
--------
========== ============ ===================== ===========================================
name       problems     interface             notes
========== ============ ===================== ===========================================
highs      LP, MILP     highspy               simplex LPs; HiGHS branch-and-cut for MILPs
cpsat      MILP         ortools (CP-SAT)      integer programs, coefficients scaled exactly to integers
cbc        MILP         PuLP                  bundled with PuLP 3.x; PuLP 4: ``pip install 'pulp[cbc]'``
clarabel   conic        cvxpy                 interior point (default tolerances tightened)
scs        conic        cvxpy                 first-order, low accuracy
gurobi ... MILP         PuLP                  not installed here; statuses from PuLP's sol_status only
========== ============ ===================== ===========================================

**One route per kind of problem.** Every linear program and every MILP of fairalloc is a
:class:`~fairalloc.exact.program.LinearProgram` (arrays) solved by
:func:`fairalloc.exact.backends.solve_program` (MILPs on any MILP backend) or
:func:`~fairalloc.exact.backends.solve_lp` (plain LPs: HiGHS through highspy, its public API). highspy
rather than :func:`scipy.optimize.linprog`: the LP-relaxation bounds of the leximin driver re-solve
one model with a changed objective from the previous basis (``changeColsCost``, a hot start), which
linprog cannot do; highspy is a core dependency; and the MILPs already go through it, so LPs and
MILPs share one model builder, one status table and one incumbent check. cvxpy is used only for
conic programs (CEEI's Eisenberg-Gale program has an exponential cone). The one remaining
:func:`scipy.optimize.linprog` call is ``divisible_tsf(solver="scipy")``, the static TSF baseline's
per-slot LP (:mod:`fairalloc.scheduling.static_slots`), kept until that module moves onto this route.

``solver=None`` picks the first available backend of :data:`DEFAULT_ORDER` for the problem kind.
For MILPs the order is by measurement (``benchmarks/bench_milp.py``, every backend side by side on
the same instances), and its first backend, HiGHS, installs everywhere (highspy wheels for every
Python fairalloc supports); CBC is last: on Python 3.12+ a fresh install has PuLP 4, which ships no
CBC (``pip install 'pulp[cbc]'`` adds it). The order may change between versions.

No HiGHS banner: highspy prints "Running HiGHS ... Copyright ..." on the process's standard output
when the first ``Highs`` object is created, whatever the options say. :func:`quiet_highs` creates
HiGHS objects with that first banner sent to ``/dev/null``, and every HiGHS use of fairalloc goes
through it, so a library call prints nothing unless ``msg=True``.

Honesty rule: a result is ``OPTIMAL`` only when the backend itself reports proven optimality. cvxpy's
``optimal_inaccurate`` and ``user_limit`` become ``FEASIBLE`` (with the backend's words in the message).
MILP statuses are read from each backend's own report (:mod:`fairalloc.exact.backends`), never from
PuLP's ``LpStatus[prob.status]`` (which says "Optimal" for CBC and HiGHS stopped by a time limit).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import SolverUnavailableError
from ..result import Status

__all__ = [
    "Backend",
    "BACKENDS",
    "DEFAULT_ORDER",
    "available_solvers",
    "get_backend",
    "SolveOutcome",
    "solve_cvxpy",
    "quiet_highs",
    "CBC_INSTALL",
]


@dataclass(frozen=True)
class Backend:
    """A solver reachable through fairalloc's LP/MILP route (highspy, OR-Tools, PuLP) or cvxpy (conic).

    The known backends are in :data:`BACKENDS`; :func:`get_backend` picks one by name or by
    :data:`DEFAULT_ORDER`. Frozen.

    Parameters
    ----------
    name : str
        fairalloc's name (``"highs"``, ``"cpsat"``, ``"cbc"``, ``"clarabel"``, ...).
    lp : bool, optional
        Whether :func:`fairalloc.exact.backends.solve_lp` solves plain LPs with it (default False).
    milp : bool, optional
        Whether :func:`fairalloc.exact.backends.solve_program` can solve MILPs with it (default False).
    cvxpy_name : str, optional
        cvxpy's solver constant for conic problems (``None``: not a conic backend).
    pulp_name : str, optional
        PuLP solver class, for MILP backends reached through PuLP only.
    module : str, optional
        Import name whose presence makes it available.
    install : str, optional
        What to install when missing (quoted in :class:`~fairalloc.errors.SolverUnavailableError`).

    Attributes
    ----------
    lp_capable, mip_capable, conic_capable : bool
        ``lp``, ``milp``, ``cvxpy_name`` is set.

    Examples
    --------
    >>> from fairalloc.exact.solvers import BACKENDS
    >>> b = BACKENDS["highs"]
    >>> b.lp_capable, b.mip_capable, b.install
    (True, True, 'pip install highspy')
    >>> BACKENDS["clarabel"].mip_capable, BACKENDS["clarabel"].conic_capable
    (False, True)
    """

    name: str
    lp: bool = False                   # a backend of :func:`fairalloc.exact.backends.solve_lp`
    milp: bool = False                 # a backend of :func:`fairalloc.exact.backends.solve_program`
    cvxpy_name: str | None = None      # cvxpy solver constant for conic problems
    pulp_name: str | None = None       # PuLP solver class, for MILP backends reached through PuLP only
    module: str | None = None          # import name whose presence makes it available
    install: str = ""                  # what to install when missing

    @property
    def lp_capable(self) -> bool:
        return self.lp

    @property
    def mip_capable(self) -> bool:
        return self.milp

    @property
    def conic_capable(self) -> bool:
        return self.cvxpy_name is not None

    def available(self, kind: str = "lp") -> bool:
        if kind == "conic" and self.cvxpy_name:
            try:
                import cvxpy as cp
            except ImportError:  # pragma: no cover - cvxpy is a core dependency
                return False
            return self.cvxpy_name in cp.installed_solvers()
        if kind == "lp" and self.lp:
            return self.module is not None and _is_importable(self.module)
        if kind == "milp" and self.milp:
            if self.name == "cbc":
                return cbc_solver_class() is not None
            if self.pulp_name is not None:
                import pulp

                return self.pulp_name in pulp.listSolvers(onlyAvailable=True)
            return self.module is not None and _is_importable(self.module)
        return False


#: How to get CBC (:class:`SolverUnavailableError` quotes it when ``solver="cbc"`` is missing).
CBC_INSTALL = ("pip install 'pulp[cbc]' (PuLP 4, the default on Python 3.12+, ships CBC as that extra, "
               "the cbcbox wheel; PuLP 3 bundles it), or put a cbc executable on the PATH")

BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in [
        Backend("highs", lp=True, milp=True, module="highspy", install="pip install highspy"),
        Backend("cpsat", milp=True, module="ortools", install="pip install ortools"),
        Backend("clarabel", cvxpy_name="CLARABEL", module="clarabel", install="pip install clarabel"),
        Backend("cbc", milp=True, module="pulp", install=CBC_INSTALL),
        Backend("scs", cvxpy_name="SCS", module="scs", install="pip install scs"),
        Backend("gurobi", milp=True, pulp_name="GUROBI", module="gurobipy",
                install="pip install gurobipy (and a Gurobi licence)"),
        Backend("cplex", milp=True, pulp_name="CPLEX_PY", module="cplex",
                install="pip install cplex (and a CPLEX licence)"),
        Backend("mosek", cvxpy_name="MOSEK", module="mosek", install="pip install mosek (and a licence)"),
    ]
}

#: Default order when ``solver=None``, per problem kind. May change between versions. MILPs: HiGHS
#: first, by measurement (``benchmarks/bench_milp.py``, dense and random TV-TSF instances, every
#: backend in the same run; figures in ``benchmarks/RESULTS.md``), and because it installs everywhere;
#: then CP-SAT (it beat CBC on the 10 x 10 x 20 instances), then CBC (absent from a fresh PuLP 4).
#: Plain LPs: HiGHS only (module docstring). Conic programs: Clarabel, SCS, MOSEK.
DEFAULT_ORDER: dict[str, tuple[str, ...]] = {
    "lp": ("highs",),
    "milp": ("highs", "cpsat", "cbc"),
    "conic": ("clarabel", "scs", "mosek"),
}

_KINDS = ("lp", "milp", "conic")


def available_solvers(kind: str | None = None) -> list[str]:
    """Names of the installed backends that can solve ``kind``.

    Parameters
    ----------
    kind : {"lp", "milp", "conic"} or None, optional
        The problem kind; ``None`` (default) lists backends installed for any.

    Returns
    -------
    list of str
        In :data:`BACKENDS` order; depends on what is installed.

    Examples
    --------
    HiGHS (``highspy``) and CP-SAT (``ortools``) are core dependencies of fairalloc:

    >>> "highs" in available_solvers("lp") and "cpsat" in available_solvers("milp")
    True
    >>> available_solvers("lp")                       # plain LPs: HiGHS only (module docstring)
    ['highs']
    """
    kinds = _KINDS if kind is None else (kind,)
    for k in kinds:
        if k not in _KINDS:
            raise ValueError(f"kind={kind!r} must be one of {_KINDS} or None")
    return [name for name, b in BACKENDS.items() if any(b.available(k) for k in kinds)]


def get_backend(solver: str | None, kind: str) -> Backend:
    """Resolve ``solver`` (a name or None) to an installed :class:`Backend` able to solve ``kind``.

    Parameters
    ----------
    solver : str or None
        A name of :data:`BACKENDS` (case-insensitive), or ``None`` for the first installed backend of
        :data:`DEFAULT_ORDER` ``[kind]`` (this order may change between versions).
    kind : {"lp", "milp", "conic"}
        The problem kind.

    Returns
    -------
    Backend

    Raises
    ------
    SolverUnavailableError
        Unknown name (the message lists the options), a backend that cannot solve ``kind`` (a MILP on
        an LP-only backend), or one that is not installed (the message says what to install).
    ValueError
        ``kind`` is not ``"lp"``, ``"milp"`` or ``"conic"``.

    Examples
    --------
    >>> get_backend("HiGHS", "milp").name
    'highs'
    >>> try:
    ...     get_backend("clarabel", "milp")                # an LP/conic-only backend
    ... except Exception as e:
    ...     print(type(e).__name__, str(e).split(";")[0])
    SolverUnavailableError solver 'clarabel' cannot solve MILP problems (it handles: conic)
    """
    if kind not in _KINDS:
        raise ValueError(f"kind={kind!r} must be one of {_KINDS}")
    if solver is None:
        for name in DEFAULT_ORDER[kind]:
            if BACKENDS[name].available(kind):
                return BACKENDS[name]
        first = BACKENDS[DEFAULT_ORDER[kind][0]]
        raise SolverUnavailableError(f"no {kind} solver is installed; {first.install}")
    if not isinstance(solver, str):
        raise SolverUnavailableError(f"solver={solver!r} must be a backend name (str) or None")
    name = solver.lower()
    if name not in BACKENDS:
        raise SolverUnavailableError(
            f"unknown solver {solver!r}; possible options are: {', '.join(BACKENDS)} "
            f"(installed for {kind}: {', '.join(available_solvers(kind)) or 'none'})")
    b = BACKENDS[name]
    if not _capable(b, kind):
        can = [k for k in _KINDS if _capable(b, k)]
        raise SolverUnavailableError(
            f"solver {solver!r} cannot solve {kind.upper()} problems (it handles: {', '.join(can)}); "
            f"installed {kind} solvers: {', '.join(available_solvers(kind))}")
    if not b.available(kind):
        raise SolverUnavailableError(f"solver {solver!r} is not installed: {b.install}")
    return b


def _capable(b: Backend, kind: str) -> bool:
    return {"lp": b.lp_capable, "milp": b.mip_capable, "conic": b.conic_capable}[kind]


@dataclass(frozen=True)
class SolveOutcome:
    """What one backend call produced, with the status already mapped honestly.

    ``OPTIMAL`` only when the backend proved optimality; a solution without that proof is
    ``FEASIBLE``, a stop without one ``NOT_SOLVED``.

    Parameters
    ----------
    status : Status
        The mapped status.
    message : str
        Human-readable explanation (the backend's raw status when not proven optimal).
    solver : str
        The backend's name.
    objective : float, optional
        The objective value when a solution is present.
    stats : Mapping, optional
        ``runtime_s``, ``raw_status``, ``solve_time_s``, ``nit``, ... (backend-dependent).

    Attributes
    ----------
    status, message, solver, objective, stats
        As the parameters.

    Examples
    --------
    See :func:`solve_cvxpy`.
    """

    status: Status
    message: str
    solver: str
    objective: float | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)


#: cvxpy status string -> (Status, whether the backend proved it)
_CVXPY_STATUS = {
    "optimal": Status.OPTIMAL,
    "optimal_inaccurate": Status.FEASIBLE,
    "user_limit": Status.FEASIBLE,
    "infeasible": Status.INFEASIBLE,
    "infeasible_inaccurate": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "unbounded_inaccurate": Status.UNBOUNDED,
    "solver_error": Status.ERROR,
}

#: Tighter defaults for interior-point backends so that LP cross-checks agree to ~1e-9.
_CVXPY_DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "clarabel": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
    "scs": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}


def solve_cvxpy(problem: Any, backend: Backend, *, options: Mapping[str, Any] | None = None,
                msg: bool = False) -> SolveOutcome:
    """Solve a conic cvxpy ``problem`` with ``backend``; never raises for solver failures.

    The conic route only (CEEI's Eisenberg-Gale program); plain LPs go through
    :func:`fairalloc.exact.backends.solve_lp`. The cvxpy status is mapped to :class:`~fairalloc.result.Status` (``optimal`` → OPTIMAL,
    ``optimal_inaccurate`` → FEASIBLE, ``infeasible`` → INFEASIBLE, ...); a solver exception becomes
    ``ERROR`` with its text in ``message``. The problem is solved in place (cvxpy's variables hold the
    solution afterwards).

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem to solve.
    backend : Backend
        A conic backend (:func:`get_backend` with ``kind="conic"``).
    options : Mapping, optional
        Passed to ``problem.solve`` untouched (cvxpy passes them to the backend); when None, the
        tighter defaults of :data:`_CVXPY_DEFAULT_OPTIONS` apply.
    msg : bool, optional
        Show the backend's log (default False).

    Returns
    -------
    SolveOutcome

    Examples
    --------
    Maximise log x subject to x <= 2 (optimum log 2 by inspection); with x >= 3 instead it is infeasible:

    >>> import cvxpy as cp, math
    >>> x = cp.Variable()
    >>> out = solve_cvxpy(cp.Problem(cp.Maximize(cp.log(x)), [x <= 2]), get_backend("clarabel", "conic"))
    >>> out.status.value, abs(out.objective - math.log(2)) < 1e-6, out.message
    ('optimal', True, 'proven optimal')
    >>> out = solve_cvxpy(cp.Problem(cp.Maximize(cp.log(x)), [x >= 3, x <= 2]), get_backend("clarabel", "conic"))
    >>> out.status.value, out.objective
    ('infeasible', None)
    """
    import cvxpy as cp

    opts = dict(_CVXPY_DEFAULT_OPTIONS.get(backend.name, {})) if options is None else dict(options)
    t0 = time.perf_counter()
    try:
        problem.solve(solver=getattr(cp, backend.cvxpy_name), verbose=msg, **opts)
    except cp.error.SolverError as exc:
        return SolveOutcome(Status.ERROR, f"{backend.name}: {exc}", backend.name,
                            stats={"runtime_s": time.perf_counter() - t0})
    raw = problem.status
    status = _CVXPY_STATUS.get(raw, Status.ERROR)
    if status is Status.FEASIBLE and problem.value is None:
        status = Status.NOT_SOLVED
    stats = {"runtime_s": time.perf_counter() - t0, "raw_status": raw}
    st = problem.solver_stats
    if st is not None:
        if st.solve_time is not None:
            stats["solve_time_s"] = st.solve_time
        if st.num_iters is not None:
            stats["nit"] = st.num_iters
    message = "proven optimal" if status is Status.OPTIMAL else f"{backend.name} returned {raw!r}"
    value = problem.value
    objective = float(value) if status in (Status.OPTIMAL, Status.FEASIBLE) and value is not None else None
    return SolveOutcome(status, message, backend.name, objective=objective, stats=stats)


def cbc_solver_class() -> Any:
    """PuLP's CBC: the bundled ``PULP_CBC_CMD`` where PuLP still ships it (3.x), else ``COIN_CMD``
    (PuLP 4: ``pip install 'pulp[cbc]'``, the cbcbox wheel, or a ``cbc`` executable on the PATH). None
    when neither is available (:data:`CBC_INSTALL` says how to get it)."""
    import pulp

    avail = pulp.listSolvers(onlyAvailable=True)
    for name in ("PULP_CBC_CMD", "COIN_CMD"):
        if name in avail:
            return getattr(pulp, name)
    return None


def _is_importable(module: str) -> bool:  # used by tests to skip missing optional backends
    return importlib.util.find_spec(module) is not None


_BANNER_DONE = False


def quiet_highs():
    """A new ``highspy.Highs`` with output off, without highspy's start-up banner.

    The process's first one is created with the C-level standard output sent to ``/dev/null``, so
    highspy's one-time banner ("Running HiGHS ... Copyright ...") is not printed by a library call.

    Returns
    -------
    highspy.Highs
        With ``output_flag`` False.

    Examples
    --------
    Nothing is printed:

    >>> h = quiet_highs()
    >>> type(h).__name__
    'Highs'
    """
    global _BANNER_DONE
    import highspy

    if _BANNER_DONE:
        h = highspy.Highs()
    else:
        h = _silently(highspy.Highs)
        _BANNER_DONE = True
    h.setOptionValue("output_flag", False)
    return h


_HIGHS_THREADS: list = []         # the thread setting HiGHS's global scheduler was started with


def highs_threads(h, threads: int | None) -> None:
    """Set ``threads`` on ``h``, restarting HiGHS's process-wide scheduler when the setting changes.

    HiGHS starts one global thread scheduler with the first run's ``threads``; a later run asking
    for another count fails before solving (model status "Not Set"), so a second call with a
    different ``threads`` in the same process gave status ERROR. ``Highs.resetGlobalScheduler``
    (public highspy API) lets the next run start it afresh.
    """
    import highspy

    if threads is not None:
        h.setOptionValue("threads", int(threads))
    key = None if threads is None else int(threads)
    if _HIGHS_THREADS and _HIGHS_THREADS[0] != key:
        highspy.Highs.resetGlobalScheduler(True)
    _HIGHS_THREADS[:] = [key]


def _silently(make):
    """``make()`` with file descriptor 1 pointed at /dev/null (C code writes there, not to sys.stdout)."""
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed or odd stdout must not stop the solve
        pass
    try:
        saved = os.dup(1)
    except OSError:                        # no file descriptor 1 (embedded interpreters)
        return make()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                return make()
            finally:
                os.dup2(saved, 1)
    finally:
        os.close(saved)
