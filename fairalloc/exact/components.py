"""Several independent components: solve each (leximin or max-min) and merge, exactly.

The placement graph's components (:func:`fairalloc.exact.placement.placement_components`) never
compete for a server, and the leximin order is separable, so per-component optima merge into a
global optimum (:func:`merge_runs`). :func:`solve_by_components` is the one driver of
:mod:`~fairalloc.exact.tasks` and :mod:`~fairalloc.exact.tvtsf`: build -> :func:`solve_leximin`
-> place, per component, within a share of the time limit (:func:`component_budget`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..result import Status
from .leximin import LeximinOutcome, Valuation, _as_program, solve_leximin
from .solvers import Backend

__all__ = ["ComponentRun", "merge_runs", "solve_by_components", "component_budget", "empty_fallback"]


_SEVERITY = {Status.OPTIMAL: 0, Status.FEASIBLE: 1, Status.UNBOUNDED: 2, Status.NOT_SOLVED: 3,
             Status.INFEASIBLE: 4, Status.ERROR: 5}


@dataclass
class ComponentRun:
    """One component's outcome, with the indices it covers.

    Parameters
    ----------
    users, servers : ndarray of int
        The component's user and server indices in the whole instance.
    outcome : LeximinOutcome
        What :func:`~fairalloc.exact.leximin.solve_leximin` returned for it.
    extra : object, optional
        The built model (kept for placing the solution).

    Attributes
    ----------
    users, servers, outcome, extra
        As the parameters.

    Examples
    --------
    See :func:`merge_runs`.
    """

    users: np.ndarray
    servers: np.ndarray
    outcome: LeximinOutcome
    extra: Any = None


def merge_runs(runs: Sequence[ComponentRun], objective: str) -> tuple[Status, str, dict[str, Any], list]:
    """Combine per-component outcomes: worst status, summed counts, the union of leximin levels.

    Exact: the leximin order is separable, so per-component optima merge into a global optimum; for
    max-min the global value is the smallest component value and its bound the smallest bound.

    Parameters
    ----------
    runs : sequence of ComponentRun
        At least one.
    objective : {"leximin", "maxmin"}

    Returns
    -------
    status : Status
        The worst of the components' (OPTIMAL < FEASIBLE < UNBOUNDED < NOT_SOLVED < INFEASIBLE < ERROR).
    message : str
        Why each component that is not OPTIMAL is not.
    stats : dict
        ``n_components``, ``n_solves`` (summed), ``components`` (per component), ``levels_proven``,
        ``resolution``, ``mip_gap`` and (max-min) ``bound`` where they apply.
    leximin : list of (float, int)
        The merged leximin vector.

    Examples
    --------
    A proven component at level 2 and one stopped by its time limit at level 1 (bound 1.5): the merge
    is FEASIBLE, its leximin vector has both levels, and the max-min bound is min(2, 1.5):

    >>> import numpy as np
    >>> from fairalloc.result import Status
    >>> from fairalloc.exact.leximin import LeximinOutcome
    >>> a = ComponentRun(np.array([0]), np.array([0]),
    ...                  LeximinOutcome(Status.OPTIMAL, "proven", {}, np.array([2]), [(2.0, 1)], 2.0, stats={"n_solves": 2}))
    >>> b = ComponentRun(np.array([1]), np.array([1]),
    ...                  LeximinOutcome(Status.FEASIBLE, "time limit", {}, np.array([1]), [(1.0, 1)], 1.0, bound=1.5,
    ...                                 stats={"n_solves": 1}))
    >>> status, message, stats, leximin = merge_runs([a, b], "leximin")
    >>> status.value, message, stats["n_solves"], leximin
    ('feasible', 'component 1 (users [1]): time limit', 3, [(1.0, 1), (2.0, 1)])
    >>> merge_runs([a, b], "maxmin")[2]["bound"]
    1.5
    """
    worst = max(runs, key=lambda r: _SEVERITY[r.outcome.status]).outcome.status
    msgs = [f"component {k} (users {r.users.tolist()}): {r.outcome.message}"
            for k, r in enumerate(runs) if r.outcome.status is not Status.OPTIMAL]
    if len(runs) == 1:
        message = runs[0].outcome.message
    elif not msgs:
        message = f"{len(runs)} independent components, each proven optimal"
    else:
        message = "; ".join(msgs)
    stats: dict[str, Any] = {
        "n_components": len(runs),
        "n_solves": sum(r.outcome.stats.get("n_solves", 0) for r in runs),
        "solver_runtime_s": sum(r.outcome.stats.get("runtime_s", 0.0) for r in runs),
        "components": [{"users": r.users.tolist(), "servers": r.servers.tolist(),
                        "status": r.outcome.status.value, **{k: v for k, v in r.outcome.stats.items()
                                                             if k != "rounds"},
                        "rounds": r.outcome.stats.get("rounds", [])} for r in runs],
    }
    stats["levels_proven"] = sum(int(r.outcome.stats.get("levels_proven", 0)) for r in runs)
    res = [r.outcome.stats.get("resolution") for r in runs if r.outcome.stats.get("resolution") is not None]
    if res:
        stats["resolution"] = min(res)
    levels: dict[float, int] = {}
    for r in runs:
        for lv, cnt in r.outcome.leximin:
            levels[lv] = levels.get(lv, 0) + (cnt or 0)
    leximin = sorted(levels.items())
    if worst is not Status.OPTIMAL:
        gaps = [r.outcome.stats.get("mip_gap") for r in runs if r.outcome.stats.get("mip_gap") is not None]
        if gaps:
            stats["mip_gap"] = max(gaps)
    if objective == "maxmin":
        bounds = [r.outcome.bound if r.outcome.bound is not None else r.outcome.objective for r in runs]
        if all(b is not None for b in bounds):
            stats["bound"] = min(bounds)
    return worst, message, stats, leximin


def solve_by_components(comps: Sequence[tuple[np.ndarray, np.ndarray]], sizes: Sequence[float],
                        build: Any, valuation: Valuation, place: Any, *, objective: str, backend: Backend,
                        time_limit: float | None, started: float | None = None, flow: Any = None,
                        **kw: Any) -> tuple[Status, str, dict[str, Any], list]:
    """The one component -> leximin -> merge driver of :mod:`~fairalloc.exact.tasks` and
    :mod:`~fairalloc.exact.tvtsf`.

    For component ``k`` with ``(users, servers)``: ``build(users, servers, label)`` returns a built
    model (``.problem``, ``.totals``); :func:`solve_leximin` runs on it within the component's share
    of ``time_limit`` (:func:`component_budget`); ``place(built, users, servers, solution)`` writes its
    allocation into the caller's arrays.

    Parameters
    ----------
    comps : sequence of (ndarray, ndarray)
        ``(users, servers)`` per component (:func:`fairalloc.exact.placement.placement_components`).
    sizes : sequence of float
        A size per component, to share the time limit.
    build : callable
        ``build(users, servers, label)`` -> object with ``.problem`` and ``.totals`` (and optionally
        ``.strong``, the same columns with extra valid rows: :func:`solve_leximin`'s ``strong``).
    valuation : Valuation
        The whole instance's valuation (restricted to each component's users).
    place : callable
        ``place(built, users, servers, solution)``, called for every component with a solution.
    objective : {"leximin", "maxmin"}
    backend : Backend
    time_limit : float or None
        Seconds for all components together, counted from ``started``.
    flow : callable, optional
        ``flow(users)`` -> the component's ``flow`` check for :func:`solve_leximin` (a necessary
        condition on the component users' task counts), or None.
    started : float, optional
        ``time.perf_counter()`` at the public call (default: now): the caller's preparation and
        every model build are inside the budget.
    **kw
        Passed to :func:`solve_leximin` (``mip_gap``, ``threads``, ``msg``, ``options``, ...).

    Returns
    -------
    tuple
        :func:`merge_runs`' (status, message, stats, leximin) with ``build_s``, ``n_variables`` and
        ``n_constraints`` added to ``stats``.

    Examples
    --------
    Two independent users, each with its own 3-unit server and its own model; the leximin of the
    whole is the union of the parts (3 each):

    >>> import numpy as np, pulp
    >>> from types import SimpleNamespace
    >>> from fairalloc.exact.leximin import Valuation
    >>> from fairalloc.exact.program import add_var
    >>> from fairalloc.exact.solvers import get_backend
    >>> def build(users, servers, label):
    ...     p = pulp.LpProblem(label + "c", pulp.LpMaximize)
    ...     xs = [add_var(p, f"{label}x{i}", 0, 3, integer=True) for i in users]
    ...     return SimpleNamespace(problem=p, totals=[pulp.lpSum([x]) for x in xs])
    >>> got = np.zeros(2)
    >>> def place(built, users, servers, solution):
    ...     got[users] = [solution[v.name] for t in built.totals for v, _ in t.items()]
    >>> comps = [(np.array([0]), np.array([0])), (np.array([1]), np.array([1]))]
    >>> val = Valuation([1, 1], [0, 0], [0, 0], [3, 3])
    >>> status, message, stats, leximin = solve_by_components(
    ...     comps, [1, 1], build, val, place, objective="leximin", backend=get_backend("highs", "milp"),
    ...     time_limit=None)
    >>> status.value, stats["n_components"], leximin, got.tolist()
    ('optimal', 2, [(3.0, 2)], [3.0, 3.0])
    """
    t0 = time.perf_counter() if started is None else float(started)
    runs: list[ComponentRun] = []
    build_s, n_vars, n_rows = 0.0, 0, 0
    for k, (users, servers) in enumerate(comps):
        label = f"c{k}_" if len(comps) > 1 else ""
        tb = time.perf_counter()
        built = build(users, servers, label)
        prog, tot = _as_program(built.problem, built.totals)
        build_s += time.perf_counter() - tb
        n_vars += prog.n_cols
        n_rows += prog.n_rows
        sub = Valuation(valuation.slope[users], valuation.offset[users], valuation.lower[users],
                        valuation.upper[users])
        tk = time.perf_counter()
        out = solve_leximin(prog, tot, sub, objective=objective, backend=backend,
                            time_limit=component_budget(time_limit, t0, sizes, k), started=tk, label=label,
                            flow=None if flow is None else flow(users), strong=getattr(built, "strong", None),
                            threshold=getattr(built, "threshold", None),
                            **kw)
        out = empty_fallback(out, sub)
        runs.append(ComponentRun(users, servers, out, built))
        if out.solution is not None:
            place(built, users, servers, out.solution)
    status, message, stats, leximin = merge_runs(runs, objective)
    stats.update(build_s=build_s, n_variables=n_vars, n_constraints=n_rows)
    return status, message, stats, leximin


def component_budget(time_limit: float | None, t0: float, sizes: Sequence[float], k: int) -> float | None:
    """Seconds for component ``k``: what is left of ``time_limit``, shared in proportion to size.

    Time a component does not use flows to the later ones.

    Parameters
    ----------
    time_limit : float or None
        Seconds for all components (None: no limit).
    t0 : float
        ``time.perf_counter()`` when the run started.
    sizes : sequence of float
        A size per component.
    k : int
        The component about to run.

    Returns
    -------
    float or None
        ``left * sizes[k] / sum(sizes[k:])``, at least 1 ms; None without a limit.

    Examples
    --------
    Sizes 1 and 3 with 100 s: the first gets 1/4 of what is left, the last all of what is left:

    >>> import time
    >>> t0 = time.perf_counter()
    >>> component_budget(None, t0, [1, 3], 0) is None
    True
    >>> round(component_budget(100.0, t0, [1, 3], 0)), round(component_budget(100.0, t0, [1, 3], 1))
    (25, 100)
    """
    if time_limit is None:
        return None
    left = time_limit - (time.perf_counter() - t0)
    share = float(sizes[k]) / max(float(sum(sizes[k:])), 1e-12)
    return max(left * share, 1e-3)


def empty_fallback(out: LeximinOutcome, valuation: Valuation) -> LeximinOutcome:
    """A component that found no incumbent in its time gets the empty allocation when that is feasible.

    Honest: status FEASIBLE, the message says its users got no tasks because of the time limit. Only
    for a NOT_SOLVED outcome whose users have no reserved tasks (``valuation.lower == 0``); any other
    outcome is returned unchanged.

    Parameters
    ----------
    out : LeximinOutcome
        The component's outcome (changed in place when the fallback applies).
    valuation : Valuation
        The component's valuation.

    Returns
    -------
    LeximinOutcome
        ``out``.

    Examples
    --------
    >>> from fairalloc.result import Status
    >>> from fairalloc.exact.leximin import LeximinOutcome, Valuation
    >>> out = empty_fallback(LeximinOutcome(Status.NOT_SOLVED, "time limit", None, None),
    ...                      Valuation([1], [0], [0], [3]))
    >>> out.status.value, out.solution
    ('feasible', {})
    """
    if out.solution is not None or out.status is not Status.NOT_SOLVED or (valuation.lower > 0).any():
        return out
    out.status = Status.FEASIBLE
    out.message = (f"{out.message}; no incumbent within this component's share of the time limit, so its "
                   f"users get no tasks (the empty allocation is feasible; not proven optimal)")
    out.solution = {}
    return out
