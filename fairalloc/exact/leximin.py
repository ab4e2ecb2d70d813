r"""Exact leximin (and max-min) over integer task totals: sequential MILPs with level fixing.

The engine behind :func:`fairalloc.exact.tasks_leximin` and :func:`fairalloc.exact.tvtsf_milp`. A
formulation hands over a PuLP model (feasible allocations), one integer expression :math:`X_i` per
user (its total tasks) and a :class:`Valuation`: user *i*'s value is affine in its tasks,
:math:`v_i = a_i X_i + b_i` with :math:`a_i > 0` (dominant share, SDRF level, task share, cumulative
task share, CDRF key: all are affine, with coefficients taken from :mod:`fairalloc.shares`).

Algorithm
---------
Let :math:`\lambda_1 \le \dots \le \lambda_n` be the leximin-optimal sorted values. The engine finds
them level by level. It keeps a group *G* of users that may still rise and the number *c* of
leximin entries not yet determined (at the start *G* = every user, *c* = n).

1. **Level MILP**: maximise *z* subject to "at least *c* users of *G* have :math:`v_i \ge z`" and every
   constraint fixed so far. With *c* = |G| this is the plain max-min :math:`v_i \ge z\ \forall i \in G`;
   otherwise each user of *G* gets a binary :math:`y_i` and :math:`v_i \ge z - M_i(1-y_i)`,
   :math:`\sum y_i \ge c`. The level :math:`\ell` is recomputed from the integer solution (the *c*-th
   largest :math:`v_i` over *G*), not read from the solver's *z*.
2. **Count MILP**: maximise the number of users of *G* *strictly above* :math:`\ell` (binary
   :math:`y'_i`, :math:`X_i \ge L'_i y'_i`), subject to everything so far plus "at least *c* users of *G*
   at or above :math:`\ell`". If the maximum is *c'*, exactly *c - c'* leximin entries equal
   :math:`\ell`. The constraint "at least *c'* users of *G* strictly above :math:`\ell`" is kept.
3. *G* := users of *G* that can still exceed :math:`\ell`; *c* := *c'*; repeat until *c* = 0.

**Why a count and not "fix the users forced to the level"**: with integer tasks, users that can each
exceed :math:`\ell` on their own may be unable to do so *together* (two identical users and one spare
task: either may take it, not both). Fixing any particular one would be arbitrary and can lose the
leximin optimum downstream; counting does not choose. When the users that can still exceed
:math:`\ell` all do so in the count solution (*c'* = |G'|, the usual case without ties), the count
constraint is just the bounds :math:`X_i \ge L'_i` and no binaries are carried forward.

All thresholds are integers: ":math:`v_i \ge \ell`" is :math:`X_i \ge L_i(\ell) = \lceil (\ell - b_i)/a_i
- \epsilon_i \rceil` and ":math:`v_i > \ell`" is :math:`X_i \ge L'_i(\ell) = \lfloor (\ell - b_i)/a_i +
\epsilon_i \rfloor + 1`, so levels are fixed exactly, not with a float ``>=``.

Tolerance
---------
Every level is an *achievable value* :math:`a_k x + b_k` (*x* integer in user *k*'s range). Let
:math:`\delta` be the smallest positive difference between two achievable values (of the same or of
two users), ignoring differences below the float noise :math:`\eta = 64\,\varepsilon_{mach}\max|v|` of
the computed values. Then no achievable value lies strictly between :math:`\ell - \delta` and
:math:`\ell`, so the rounding slack :math:`\epsilon_i a_i = \tau = \delta/4` makes
:math:`L_i, L'_i` exact: it is larger than the float noise and smaller than any true difference.
:math:`\delta` is computed per instance by sorting all achievable values (for TSF with unit weights it
is at least :math:`1/(h_i h_j)`, since :math:`x/h_i - y/h_j = (x h_j - y h_i)/(h_i h_j)`). Values are
scaled by :math:`1/\min_i a_i` first (one task of any user moves its value by at least 1). The level
MILP is solved with absolute gap :math:`\delta/2` and relative gap 0: a bound within :math:`\delta/2` of
the incumbent proves that no better achievable level exists. If :math:`\delta` falls below 1e-6 (in
those scaled units), the solvers' own feasibility tolerances (about 1e-7) approach it and a
:class:`~fairalloc.errors.FairallocWarning` says so.

Two savings, both exact. (a) The level MILP's objective is :math:`z + \epsilon \sum_{i\in G} v_i`
with :math:`\epsilon \sum_i (v_i(U_i) - v_i(L_i)) \le \delta/4`: the secondary term can never trade
off any amount of *z* (levels differ by at least :math:`\delta`), and among max-min optima it prefers
users above the level. (b) If in the level solution every user of *G* that could exceed
:math:`\ell` at all (:math:`L'_i \le U_i`) already does, the count MILP's optimum (at most that
many) is attained and the count MILP is skipped.

Cost
----
At most two MILPs per distinct value of the leximin vector (so at most 2n; fewer with the skip),
each the allocation model plus at most |G| binaries per level whose users tie. Max-min
(``objective="maxmin"``) is the first level MILP alone. ``stats`` reports ``n_solves``,
``tie_levels`` (levels that needed binaries) and ``count_skipped``.

References
----------
.. [1] W. Ogryczak, T. Śliwiński, "On direct methods for lexicographic min-max optimization", ICCSA 2006
   (sequential max-min with level fixing; counting formulations).
.. [2] D. Kurokawa, A. Procaccia, N. Shah, "Leximin allocations in the real world", ACM TEAC 2018.
"""

from __future__ import annotations

import logging
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import FairallocWarning
from ..result import Status
from .milp import add_var, export_model, solve_pulp
from .solvers import Backend

logger = logging.getLogger(__name__)

__all__ = ["Valuation", "LeximinOutcome", "solve_leximin", "value_resolution"]

_NOISE = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class Valuation:
    """User values affine in integer task totals: ``v_i = slope[i] * X_i + offset[i]``.

    ``lower[i] <= X_i <= upper[i]`` are the task totals a user can reach at all (the formulation
    guarantees them; ``upper`` is a valid upper bound, not necessarily attained).
    """

    slope: np.ndarray
    offset: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def __post_init__(self) -> None:
        for f in ("slope", "offset"):
            object.__setattr__(self, f, np.asarray(getattr(self, f), dtype=float))
        for f in ("lower", "upper"):
            object.__setattr__(self, f, np.asarray(getattr(self, f), dtype=np.int64))
        if (self.slope <= 0).any() or not np.isfinite(self.slope).all():
            raise ValueError("slopes must be finite and > 0")

    @property
    def n(self) -> int:
        return self.slope.shape[0]

    def value(self, x: np.ndarray) -> np.ndarray:
        return self.slope * np.asarray(x, dtype=float) + self.offset

    def scaled(self) -> tuple["Valuation", float]:
        """The same order with slopes >= 1: (scaled valuation, scale)."""
        s = 1.0 / float(self.slope.min())
        return Valuation(self.slope * s, self.offset * s, self.lower, self.upper), s


def value_resolution(val: Valuation, *, max_values: int = 5_000_000) -> tuple[float, float]:
    """(delta, eta): smallest positive difference between achievable values, and the float noise.

    ``delta`` ignores differences below ``eta``; it is ``inf`` when all achievable values coincide.
    With more than ``max_values`` achievable values in total, the same-user spacing ``min a_i`` and a
    sampled pairwise minimum are used (a warning says so).
    """
    counts = np.maximum(val.upper - val.lower + 1, 0)
    vmax = float(np.abs(val.value(val.upper)).max(initial=1.0))
    vmax = max(vmax, float(np.abs(val.offset).max(initial=0.0)), 1.0)
    eta = _NOISE * vmax
    if counts.sum() > max_values:
        warnings.warn(f"{int(counts.sum())} achievable values: the level resolution is estimated from "
                      f"the first {max_values}", FairallocWarning, stacklevel=3)
    vals = []
    budget = max_values
    for i in range(val.n):
        k = int(min(counts[i], budget))
        if k <= 0:
            continue
        budget -= k
        vals.append(val.slope[i] * np.arange(val.lower[i], val.lower[i] + k, dtype=float) + val.offset[i])
    if not vals:
        return math.inf, eta
    v = np.sort(np.concatenate(vals))
    d = np.diff(v)
    d = d[d > eta]
    delta = float(d.min()) if d.size else math.inf
    return delta, eta


@dataclass
class LeximinOutcome:
    """What :func:`solve_leximin` returns (the values of every model variable of the kept solution)."""

    status: Status
    message: str
    solution: dict[str, float] | None
    totals: np.ndarray | None
    leximin: list[tuple[float, int]] = field(default_factory=list)   # (level, multiplicity), unscaled
    objective: float | None = None
    bound: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)


class _Temp:
    """Constraints and variables added for one round, removed afterwards."""

    def __init__(self, problem: Any) -> None:
        self.problem = problem
        self.names: list[str] = []
        self.vars: list[Any] = []

    def add(self, constraint: Any, name: str) -> None:
        self.problem.addConstraint(constraint, name)
        self.names.append(name)

    def var(self, *args: Any, **kw: Any) -> Any:
        v = add_var(self.problem, *args, **kw)
        self.vars.append(v)
        return v

    def drop(self) -> None:
        p = self.problem
        for n in self.names:
            p._constraints.pop(n, None)
        if self.vars:
            gone = {v.hash for v in self.vars}
            p._variables[:] = [v for v in p._variables if v.hash not in gone]
            for h in gone:
                p._variable_ids.pop(h, None)
        self.names.clear()
        self.vars.clear()


def _snapshot(problem: Any) -> dict[str, float]:
    return {v.name: (v.varValue if v.varValue is not None else 0.0) for v in problem.variables()}


def _read_totals(totals: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(totals), dtype=np.int64)
    for i, e in enumerate(totals):
        val = e.value() if hasattr(e, "value") else float(e)
        out[i] = int(round(val if val is not None else 0.0))
    return out


def solve_leximin(problem: Any, totals: Sequence[Any], valuation: Valuation, *, objective: str,
                  backend: Backend, time_limit: float | None = None, mip_gap: float | None = None,
                  threads: int | None = None, msg: bool = False, options: Mapping[str, Any] | None = None,
                  export_dir: str | os.PathLike | None = None, label: str = "",
                  warm_start: bool | None = None) -> LeximinOutcome:
    """Maximise ``valuation`` over ``problem`` lexicographically (or just its minimum).

    Parameters
    ----------
    problem : pulp.LpProblem (sense maximise)
        The feasible allocations; the engine adds and removes its own rows and solves in place.
    totals : sequence of PuLP expressions
        :math:`X_i`, integer-valued.
    valuation : Valuation
    objective : {"leximin", "maxmin"}
    backend, time_limit, mip_gap, threads, msg, options
        ``time_limit`` is the budget of the whole sequence. A ``mip_gap`` > 0 lets each MILP stop
        early; the result is then FEASIBLE (not proven).
    export_dir : path, optional
        Write every MILP of the sequence there as ``{label}round{k:02d}-{kind}.lp``.
    warm_start : bool or None
        Start every MILP from the previous solution (it is feasible for the next one: every
        constraint added is satisfied by it), completed with consistent values of the new level and
        indicator variables; the first from the empty allocation when that is feasible. None (the
        default) means on for HiGHS and off for CBC: measured by ``benchmarks/bench_milp.py
        --ablation``, MIP starts speed HiGHS up about 1.5-2x on the TV-TSF leximin and slow CBC down.

    Returns
    -------
    LeximinOutcome
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    if warm_start is None:
        warm_start = backend.name == "highs"
    n = valuation.n
    val, scale = valuation.scaled()
    delta, eta = value_resolution(val)
    if math.isfinite(delta) and delta < 1e-6:
        warnings.warn(f"achievable values differ by as little as {delta:.3g} (scaled units; solver "
                      f"feasibility tolerances are about 1e-7): leximin levels may be misjudged",
                      FairallocWarning, stacklevel=3)
    tau = delta / 4 if math.isfinite(delta) else 0.25
    eps_x = np.minimum(tau / val.slope, 0.25)          # rounding slack in task units, < 1/4 task

    def thr_ge(level: float) -> np.ndarray:          # smallest X with v >= level
        return np.ceil((level - val.offset) / val.slope - eps_x).astype(np.int64)

    def thr_gt(level: float) -> np.ndarray:          # smallest X with v > level
        return (np.floor((level - val.offset) / val.slope + eps_x) + 1).astype(np.int64)

    gap_kw = dict(threads=threads, msg=msg, options=options)
    user_gap = mip_gap if mip_gap is not None and mip_gap > 0 else None
    rounds: list[dict[str, Any]] = []
    state = {"solution": None, "totals": None, "start": None}
    if warm_start and (val.lower == 0).all():
        # the empty allocation is feasible (no reservations): the first MILP starts from it, so a
        # time limit always leaves an incumbent
        for v in problem.variables():
            v.varValue = 0.0
        state["start"] = np.zeros(n, dtype=np.int64)
    leximin: list[tuple[float, int]] = []
    export = Path(export_dir) if export_dir is not None else None
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)

    # Users that can never rise (upper == lower) are fixed at their value from the start: exact.
    movable = val.upper > val.lower
    group = np.flatnonzero(movable)
    c = int(group.size)
    if c < n:
        fixed_vals = val.value(val.lower)[~movable] / scale
        for v in np.unique(fixed_vals):
            leximin.append((float(v), int(np.sum(fixed_vals == v))))
    vmax = float(val.value(val.upper).max(initial=0.0))
    tie_levels = 0            # levels whose MILP needed "at least c of G" binaries (undetermined ties)
    skipped = 0               # count MILPs skipped because the level solution attained |can|

    def hint(y: Any, i: int, threshold: int) -> None:
        """Warm-start value of an indicator ``X_i >= threshold * y`` from the current solution."""
        cur = state["totals"] if state["totals"] is not None else state["start"]
        y.varValue = 1.0 if cur is not None and cur[i] >= threshold else 0.0

    def remaining() -> float | None:
        if deadline is None:
            return None
        return deadline - time.perf_counter()

    def run(kind: str, obj: Any, proven: float) -> Any:
        k = len(rounds)
        left = remaining()
        if left is not None and left <= 0:
            return None
        problem.setObjective(obj)
        if export is not None:
            export_model(problem, export / f"{label}round{k:02d}-{kind}.lp")
        warm = warm_start and (state["totals"] is not None or state["start"] is not None)
        out = solve_pulp(problem, backend, time_limit=left, mip_gap=user_gap or 0.0,
                         abs_gap=None if user_gap else proven * 0.999, proven_gap=proven, warm_start=warm,
                         **gap_kw)
        rounds.append({"round": k, "kind": kind, "status": out.status.value, "objective": out.objective,
                       "bound": out.stats.get("bound"), "mip_gap": out.stats.get("mip_gap"),
                       "runtime_s": out.stats.get("runtime_s"), "raw_status": out.stats.get("raw_status")})
        logger.info("%sround %d (%s): %s obj=%s", label, k, kind, out.status.value, out.objective)
        if out.status in (Status.OPTIMAL, Status.FEASIBLE):
            state["solution"] = _snapshot(problem)
            state["totals"] = _read_totals(totals)
        return out

    def finish(status: Status, message: str, bound: float | None = None) -> LeximinOutcome:
        stats = {"n_solves": len(rounds), "rounds": rounds, "tie_levels": tie_levels,
                 "count_skipped": skipped,
                 "runtime_s": time.perf_counter() - t0,
                 "resolution": delta / scale if math.isfinite(delta) else None, "scale": scale,
                 "levels_proven": len(leximin)}
        last = rounds[-1] if rounds else {}
        if status is not Status.OPTIMAL and last:
            stats["mip_gap"] = last.get("mip_gap")
            stats["stopped_round"] = last.get("round")
        tot = state["totals"]
        obj = None
        if tot is not None:
            obj = float(valuation.value(tot)[movable].min()) if movable.any() else float(valuation.value(tot).min())
        return LeximinOutcome(status, message, state["solution"], tot,
                              sorted(leximin) if objective == "leximin" else [], obj, bound, stats)

    if c == 0:       # nobody can move: the lower bounds are the allocation; still check feasibility
        tmp = _Temp(problem)
        z = tmp.var(f"{label}lexz", 0, 0)
        tmp.add(z <= 0, f"{label}feas")
        out = run("feasibility", z, 0.5)
        tmp.drop()
        if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            st = Status.NOT_SOLVED if out is None else out.status
            return finish(st, "time limit before the first solve" if out is None else out.message)
        return finish(Status.OPTIMAL, "every user is at its only possible task count")

    level_rows = 0
    while c > 0:
        # ---- level MILP ------------------------------------------------------------------
        tmp = _Temp(problem)
        z = tmp.var(f"{label}lexz{level_rows}", None, vmax)     # a column only while it is used
        gi = group
        cur = state["totals"] if state["totals"] is not None else state["start"]
        if cur is not None:
            cur_v = val.slope[gi] * cur[gi] + val.offset[gi]
            order = np.argsort(-cur_v, kind="stable")
            z.varValue = float(cur_v[order[c - 1]])
            top = set(gi[order[:c]].tolist())
        else:
            top = set()
        if c == gi.size:
            for i in gi:
                tmp.add(val.slope[i] * totals[i] + val.offset[i] - z >= 0, f"{label}lv{level_rows}_{i}")
        else:
            tie_levels += 1
            ys = []
            for i in gi:
                y = tmp.var(f"{label}lvy{level_rows}_{i}", 0, 1, integer=True)
                y.varValue = 1.0 if i in top else 0.0
                big = vmax - float(val.slope[i] * val.lower[i] + val.offset[i])
                tmp.add(val.slope[i] * totals[i] + val.offset[i] - z + big * (1 - y) >= 0,
                        f"{label}lv{level_rows}_{i}")
                ys.append(y)
            tmp.add(sum(ys) >= c, f"{label}lvcount{level_rows}")
        step = delta if math.isfinite(delta) else 1.0
        obj = z
        if objective == "leximin":
            # secondary term: among max-min optima prefer users above the level (lets the count
            # MILP be skipped); its whole range is <= step/4, so it can never trade off z
            span = float(np.sum(val.slope[gi] * (val.upper[gi] - val.lower[gi])))
            if span > 0:
                eps = step / (4 * span)
                obj = z + sum(float(eps * val.slope[i]) * totals[i] for i in gi)
        out = run("level", obj, step / 4 if objective == "leximin" else step / 2)
        tmp.drop()
        if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            return _stopped(finish, out, leximin, "level")
        if out.status is Status.FEASIBLE:
            b = out.stats.get("bound")
            return finish(Status.FEASIBLE, _partial(out, leximin), None if b is None else b / scale)
        xs = state["totals"]
        vg = val.slope[gi] * xs[gi] + val.offset[gi]
        level = float(np.sort(vg)[::-1][c - 1])                  # c-th largest over the group
        if objective == "maxmin":          # only the first level; its multiplicity is not computed
            return finish(Status.OPTIMAL, f"max-min level proven optimal by {backend.name}",
                          out.stats.get("bound") / scale if out.stats.get("bound") is not None else None)
        lge = thr_ge(level)
        lgt = thr_gt(level)
        # permanent: at least c users of the group at or above the level
        if c == gi.size:
            for i in gi:
                problem.addConstraint(totals[i] >= int(max(lge[i], val.lower[i])), f"{label}ge{level_rows}_{i}")
        else:
            ys = []
            for i in gi:
                y = add_var(problem, f"{label}gey{level_rows}_{i}", 0, 1, integer=True)
                hint(y, i, int(lge[i]))
                problem.addConstraint(totals[i] - int(lge[i]) * y >= 0, f"{label}ge{level_rows}_{i}")
                ys.append(y)
            problem.addConstraint(sum(ys) >= c, f"{label}gecount{level_rows}")
        # ---- count MILP ------------------------------------------------------------------
        can = gi[lgt[gi] <= val.upper[gi]]                       # users that could exceed the level
        if can.size == 0:
            leximin.append((level / scale, c))
            c = 0
            break
        above_now = can[xs[can] >= lgt[can]]
        if above_now.size == can.size:
            # the level solution already has every user that could exceed the level above it: the
            # count MILP's optimum (at most |can|) is attained, so it is skipped (exact)
            skipped += 1
            leximin.append((level / scale, c - int(can.size)))
            for i in can:
                problem.addConstraint(totals[i] >= int(lgt[i]), f"{label}gtfix{level_rows}_{i}")
            group = can
            c = int(can.size)
            level_rows += 1
            continue
        tmp = _Temp(problem)
        ys = {}
        for i in can:
            y = tmp.var(f"{label}gty{level_rows}_{i}", 0, 1, integer=True)
            hint(y, i, int(lgt[i]))
            tmp.add(totals[i] - int(lgt[i]) * y >= 0, f"{label}gt{level_rows}_{i}")
            ys[i] = y
        out = run("count", sum(ys.values()), 0.5)
        if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            tmp.drop()
            return _stopped(finish, out, leximin, "count")
        if out.status is Status.FEASIBLE:
            tmp.drop()
            return finish(Status.FEASIBLE, _partial(out, leximin) + f" (next level {level / scale:.10g} "
                          f"proven, its multiplicity not)")
        above = [i for i in can if (ys[i].varValue or 0) > 0.5]
        c_new = int(round(out.objective))
        tmp.drop()
        leximin.append((level / scale, c - c_new))
        if c_new > 0:
            if c_new == len(can):
                for i in can:
                    problem.addConstraint(totals[i] >= int(lgt[i]), f"{label}gtfix{level_rows}_{i}")
            else:
                ys2 = []
                for i in can:
                    y = add_var(problem, f"{label}gtk{level_rows}_{i}", 0, 1, integer=True)
                    hint(y, i, int(lgt[i]))
                    problem.addConstraint(totals[i] - int(lgt[i]) * y >= 0, f"{label}gtk{level_rows}_{i}")
                    ys2.append(y)
                problem.addConstraint(sum(ys2) >= c_new, f"{label}gtcount{level_rows}")
        logger.debug("%slevel %.6g: %d at level, %d above (%s)", label, level / scale, c - c_new, c_new, above)
        group = can
        c = c_new
        level_rows += 1
    return finish(Status.OPTIMAL, f"leximin proven optimal by {backend.name} "
                                  f"({len(rounds)} MILPs, {len(leximin)} distinct levels)")


def _partial(out: Any, leximin: list) -> str:
    return (f"leximin stopped after {len(leximin)} proven level(s): {out.message}; the allocation "
            f"satisfies every proven level but the rest is not proven optimal")


def _stopped(finish: Any, out: Any, leximin: list, kind: str) -> LeximinOutcome:
    if out is None:
        msg = f"time limit reached before the {kind} MILP could start"
        st = Status.NOT_SOLVED
    else:
        msg = f"{kind} MILP: {out.message}"
        st = out.status
    res = finish(st, msg)
    if res.solution is not None and st not in (Status.OPTIMAL, Status.FEASIBLE):
        # an earlier round left a feasible allocation: return it, honestly unproven
        res.status = Status.FEASIBLE
        res.message = (f"{msg}; returning the allocation of the last solved MILP ({len(leximin)} level(s) "
                       f"proven, the rest not proven optimal)")
    return res


# ---- several independent components ---------------------------------------------------------------

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
                   f"users get no tasks (the empty allocation is feasible)")
    out.solution = {}
    return out
