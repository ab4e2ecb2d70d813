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
    """One component's outcome, with the indices it covers."""

    users: np.ndarray
    servers: np.ndarray
    outcome: LeximinOutcome
    extra: Any = None


def merge_runs(runs: Sequence[ComponentRun], objective: str) -> tuple[Status, str, dict[str, Any], list]:
    """Combine per-component outcomes: worst status, summed counts, the union of leximin levels.

    Exact: the leximin order is separable, so per-component optima merge into a global optimum; for
    max-min the global value is the smallest component value and its bound the smallest bound.
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
                        time_limit: float | None, started: float | None = None,
                        **kw: Any) -> tuple[Status, str, dict[str, Any], list]:
    """The one component -> leximin -> merge driver of :mod:`~fairalloc.exact.tasks` and
    :mod:`~fairalloc.exact.tvtsf`.

    For component ``k`` with ``(users, servers)``: ``build(users, servers, label)`` returns a built
    model (``.problem``, ``.totals``); :func:`solve_leximin` runs on it within the component's share
    of ``time_limit`` (:func:`component_budget`); ``place(built, users, servers, solution)`` writes its
    allocation into the caller's arrays. Returns :func:`merge_runs`' (status, message, stats,
    leximin) with ``build_s``, ``n_variables`` and ``n_constraints`` added to ``stats``.
    ``time_limit`` counts from ``started`` (``time.perf_counter()`` at the public call; default now):
    the caller's preparation and every model build are inside the budget.
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
                            time_limit=component_budget(time_limit, t0, sizes, k), started=tk, label=label, **kw)
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
    """
    if time_limit is None:
        return None
    left = time_limit - (time.perf_counter() - t0)
    share = float(sizes[k]) / max(float(sum(sizes[k:])), 1e-12)
    return max(left * share, 1e-3)


def empty_fallback(out: LeximinOutcome, valuation: Valuation) -> LeximinOutcome:
    """A component that found no incumbent in its time gets the empty allocation when that is feasible.

    Honest: status FEASIBLE, the message says its users got no tasks because of the time limit.
    """
    if out.solution is not None or out.status is not Status.NOT_SOLVED or (valuation.lower > 0).any():
        return out
    out.status = Status.FEASIBLE
    out.message = (f"{out.message}; no incumbent within this component's share of the time limit, so its "
                   f"users get no tasks (the empty allocation is feasible; not proven optimal)")
    out.solution = {}
    return out
