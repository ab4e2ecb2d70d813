r"""Today's leximin driver: level MILPs and count MILPs (``solve_leximin(driver="levels")``).

The driver of fairalloc up to issue 30, kept selectable (``driver="levels"``) so that the same run can
compare it with the position driver (:mod:`fairalloc.exact.positions`), and used wherever the users'
values do not scale exactly to integers (:func:`fairalloc.exact.leximin.integer_scale` is None). Its
switches are keyword options of :func:`~fairalloc.exact.leximin.solve_leximin`: ``lp_bounds``,
``flow_bounds``, ``level_by_count``, ``secondary`` and ``integer_first_level``.

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

The count MILP is the *batched* saturation test: one MILP decides, for every user of the group at
once, how many can rise above :math:`\ell` together (instead of one MILP per user, which could not
see that two users compete for the same spare capacity). It is skipped, exactly, when the level
solution already has every user of *G* that could exceed :math:`\ell` at all (:math:`L'_i \le U_i`)
above it: the count MILP's optimum (at most that many) is attained. Users whose upper bound
:math:`U_i` cannot exceed the level (:math:`L'_i > U_i`, the bound of the formulation: tasks
submitted, and for TV-TSF the window bound of what fits) leave the group without a solve.

Skipping MILPs with bounds
--------------------------
With ``lp_bounds`` on (the default), linear-programming bounds
(:mod:`fairalloc.exact.lp_bounds`, HiGHS's simplex on the LP relaxation) answer some of the MILPs'
questions. Let :math:`P_k` be the rows fixed after round *k*; rows are only ever added, so every
MILP of the rest of the sequence is feasible only at points of :math:`P_k`'s LP relaxation.

* **Users dropped from the count.** Before the count MILP, each user of the group that the level
  solution does not already have above :math:`\ell` gets :math:`\bar U_i = \lfloor \max X_i \rfloor`
  over the LP relaxation of :math:`P_k` (one HiGHS model, the objective changed per user and
  hot-started: the saturation tests batched). :math:`X_i` is an integer, so :math:`X_i \le \bar U_i`
  in every later MILP; :math:`U_i := \min(U_i, \bar U_i)`. A user with :math:`L'_i > U_i` can
  never exceed :math:`\ell`: its :math:`y'_i` is 0 in every feasible count solution, so leaving it
  out of the count MILP changes neither the count's optimum *c'* nor the group of users that may
  still rise (it could not); and when every remaining candidate is above :math:`\ell` in the
  level solution, the count MILP is skipped exactly as above. Fewer candidates also mean that
  ties (*c'* < |G'|, the binaries of the next level) arise less often.
* **Levels proven without a MILP.** Before a level MILP (not the first), the incumbent *x* (the
  last round's solution; it satisfies every row fixed so far, so it is feasible for the level MILP)
  attains :math:`\ell_{inc}`, the *c*-th largest value over *G*. The level MILP's optimum is the
  *c*-th largest value of some feasible point, an achievable value of a user of *G*; if it exceeds
  :math:`\ell_{inc}` it is at least :math:`\nu = \min_{i \in G,\ L'_i(\ell_{inc}) \le U_i}
  v_i(L'_i(\ell_{inc}))`, the smallest achievable value above :math:`\ell_{inc}` of a user that can
  still reach one. So the level MILP would return :math:`\ell_{inc}` whenever no user of *G* can
  exceed :math:`\ell_{inc}`, or the *c*-th largest :math:`v_i(U_i)` is below :math:`\nu`, or the
  LP relaxation's optimum :math:`\bar z` of the level program is: :math:`\bar z + s < \nu - \tau`,
  with the slack *s* of :mod:`~fairalloc.exact.lp_bounds` (LP and MILP optimum both bound the
  MILP's level; :math:`\tau` absorbs the float noise of :math:`\nu`). The level is then taken
  from *x* and the driver goes on to the count step as after a level MILP: the same level, and
  (the count decides the multiplicity from the rows, not from which optimal *x* was returned)
  the same leximin vector.

A bound that is not available (LP time limit, numerical trouble) only means no MILP is skipped.
``stats``: ``levels_skipped``, ``lp_users_dropped``, ``lp_solves``, ``lp_s``. Figures (LP bounds on against off, compare's programs and the dense instances):
``benchmarks/RESULTS.md``.

Levels by counting
------------------
A level after the first whose users tie (*c* < |G|) is not found by the level MILP (``level_by_count="ties"``, the default). That program's "at least *c* users of *G* have :math:`v_i \ge z`" needs big-M
rows :math:`v_i \ge z - M_i(1 - y_i)` with a continuous *z*: its LP relaxation is weak (a fraction of
every :math:`y_i` lets every user pass), and on the dense 10 x 10 x 20 TV-TSF instance (seed 1) the first
such level stayed at a 0.28% gap for 47 s. Instead the driver asks count MILPs at the incumbent's level
:math:`\ell_{inc}` (the *c*-th largest value over *G* of the last solution, which satisfies every row
so far): :math:`K` = the most users of *G* strictly above :math:`\ell_{inc}`, subject to every row so
far and "at least *c* users of *G* at or above :math:`\ell_{inc}`" (the count MILP of step 2, with
integer thresholds :math:`X_i \ge L'_i y'_i` instead of a big-M on a continuous level).

* :math:`K \ge c`: the solution has *c* users above :math:`\ell_{inc}`, so its *c*-th largest value is
  higher: it is the new incumbent, and the driver counts again at its level.
* :math:`K < c`: no feasible point has *c* users of *G* above :math:`\ell_{inc}`, while every point
  with a larger *c*-th largest value would; so the level MILP's optimum is :math:`\ell_{inc}`. This
  last count MILP is exactly step 2's count MILP at that level (the same rows and objective), so *K*
  is the next *c'* and no separate count MILP is solved.

Each round raises the level by at least one achievable value, so the loop ends; the leximin vector is
the one of the level MILP (the same level, then the same count). "always" uses counting for every
level after the first, "never" the level MILP everywhere. Figures: ``benchmarks/RESULTS.md``.

Max-flow bounds
---------------
A formulation may pass ``flow``: a necessary condition ``flow(required)`` for an allocation with at
least ``required[i]`` tasks of every user (a max-flow per resource through the placement graph:
:func:`fairalloc.exact.placement.flow_check` for task instances,
:func:`~fairalloc.exact.placement.tv_flow_check` for TV-TSF, whose docstrings prove them). The driver
keeps :math:`\underline X_i`, the task counts every later MILP must give user *i* (its lower bound and
the rows fixed for a whole group: :math:`X_i \ge L_i(\ell)` when *c* = |G|, :math:`X_i \ge L'_i(\ell)`
when every candidate rises; rows with tie binaries are left out, which only weakens the condition).
With ``lp_bounds`` and ``flow_bounds`` on (the defaults), before the LP maxima:

* **Users dropped.** If ``flow`` rejects :math:`\underline X` with user *i* raised to :math:`L'_i(\ell)`,
  no later MILP has *i* above :math:`\ell`: :math:`U_i := L'_i - 1`, exactly as an LP maximum below
  :math:`L'_i` (and its LP solve is saved).
* **Levels proven.** Before a level MILP with *c* = |G| (not the first), if ``flow`` rejects
  :math:`\underline X` with every user of *G* raised to :math:`L'_i(\ell_{inc})`, no feasible point has
  the whole group above the incumbent's level, so the level MILP would return :math:`\ell_{inc}`.

Any LP-feasible point gives such a flow, so on users the max-flow never drops one that the LP
maxima keep (up to the LP's slack); its use is to save LP solves. On levels it can prove what the LP
bound does not: it asks for the integer counts :math:`L'_i`, while the LP's level reaches
:math:`\nu` with fractional counts. Figures: ``benchmarks/RESULTS.md``.

**The first level is the max-min program, nothing more.** Its objective is the plain *z* and its
absolute gap :math:`\delta/2`, exactly as ``objective="maxmin"``, so the first level costs what the
max-min costs. Up to fairalloc 0.1 every level's objective also carried a small secondary term,
:math:`z + \epsilon \sum_{i \in G} v_i` with :math:`\epsilon \sum_i (v_i(U_i) - v_i(L_i)) \le \delta/4`
(it can never trade off any amount of *z*, levels differing by at least :math:`\delta`; among max-min
optima it prefers users above the level, so the count MILP is skipped more often), solved to an
absolute gap :math:`\delta/4`. That made the first level a different, sometimes much harder, program
than the max-min (measured: 9.5 s against 0.7 s on one instance). The term is now used on the later
levels only (``secondary="after-first"``, the default; figures in ``benchmarks/RESULTS.md``).

**Every round is built anew.** The formulation (a PuLP model) is read once into arrays
(:func:`fairalloc.exact.program.from_pulp`); each MILP of the sequence is those arrays plus the rows
(and tie binaries) of the levels fixed so far plus the round's own rows and columns
(:meth:`~fairalloc.exact.program.LinearProgram.extended`): nothing is deleted from a model, and no
solver or modelling library is used outside its public API.

**Warm starts.** With ``warm_start`` on, each MILP starts from the previous round's solution (it
satisfies every row added since), completed with consistent values of the new level and indicator
variables (HiGHS ``setSolution``, CP-SAT ``AddHint``, CBC ``-mips``). The default per backend
(:data:`fairalloc.exact.leximin.WARM_START_DEFAULT`) is what measured faster on the dense instances.

**CP-SAT** needs integer coefficients: its level rows are :math:`(S a_i) X_i + S b_i \ge Z` with *Z*
integer and *S* from :func:`integer_scale` (proof there that no level is lost to rounding); every
other row is already in integer task units. The level found is the same achievable value. HiGHS
can solve its first level (the max-min program) in the same integer form (``integer_first_level=True``;
off by default, measured mixed on the dense instances of issue 14); its later levels keep the
continuous level, which the secondary term needs.

Cost
----
At most two MILPs per distinct value of the leximin vector (so at most 2n; fewer with the skips),
each the allocation model plus at most |G| binaries per level whose users tie. Max-min
(``objective="maxmin"``) is the first level MILP alone. ``stats`` reports ``n_solves``,
``tie_levels`` (levels that needed binaries) and ``count_skipped``.


References
----------
----------
.. [1] W. Ogryczak, T. Śliwiński, "On direct methods for lexicographic min-max optimization", ICCSA 2006
   (sequential max-min with level fixing; counting formulations).
.. [2] D. Kurokawa, A. Procaccia, N. Shah, "Leximin allocations in the real world", ACM TEAC 2018."""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any, Callable

import numpy as np

from ..errors import FairallocWarning
from ..result import Status
from .leximin import LeximinOutcome, Valuation, integer_scale, value_resolution
from .lp_bounds import lp_max, lp_max_totals
from .rounds import Rounds

logger = logging.getLogger(__name__)

__all__ = ["LevelDriver"]


class LevelDriver:
    """Today's level and count loop (module docstring): one instance per leximin sequence.

    Parameters
    ----------
    rounds : Rounds
        The program, backend, clock and record.
    valuation : Valuation
        The users' values.
    objective : {"leximin", "maxmin"}
    lp_bounds, flow_bounds : bool
        Skip MILPs by LP-relaxation bounds / by the max-flow check ``flow`` (module docstring).
    flow : callable or None
        ``flow(required) -> bool``, a necessary condition for task counts ``required``.
    level_by_count : {"ties", "always", "never"}
        Which levels after the first are found by count MILPs at the incumbent's level.
    secondary : {"after-first", "always", "never"}
        Which level MILPs carry the secondary objective term.
    integer_first_level : bool
        The first level MILP with the level as an integer (CP-SAT: every level, always).
    """

    def __init__(self, rounds: Rounds, valuation: Valuation, *, objective: str, lp_bounds: bool,
                 flow_bounds: bool, flow: Callable | None, level_by_count: str, secondary: str,
                 integer_first_level: bool) -> None:
        self.r = rounds
        self.valuation = valuation
        self.objective = objective
        self.lp_bounds = bool(lp_bounds) and objective == "leximin"
        self.flow = flow
        self.use_flow = flow is not None and self.lp_bounds and flow_bounds
        self.level_by_count = level_by_count
        self.secondary = secondary
        backend = rounds.backend
        self.n = valuation.n
        self.val, self.scale = valuation.scaled()
        self.delta, _ = value_resolution(self.val)
        if math.isfinite(self.delta) and self.delta < 1e-6:
            warnings.warn(f"achievable values differ by as little as {self.delta:.3g} (scaled units; solver "
                          f"feasibility tolerances are about 1e-7): leximin levels may be misjudged",
                          FairallocWarning, stacklevel=4)
        self.tau = self.delta / 4 if math.isfinite(self.delta) else 0.25
        self.eps_x = np.minimum(self.tau / self.val.slope, 0.25)      # rounding slack in task units, < 1/4 task
        self.iscale = integer_scale(valuation) if backend.name == "cpsat" else None
        self.fscale = integer_scale(valuation) if integer_first_level and backend.name != "cpsat" else None
        self.step = self.delta if math.isfinite(self.delta) else 1.0
        self.perm_cols: list[tuple] = []     # binaries of levels with ties, kept for the rest of the sequence
        self.perm_rows: list[tuple] = []     # the levels fixed so far
        self.leximin: list[tuple[float, int]] = []
        self.level_rows = 0
        # Users that can never rise (upper == lower) are fixed at their value from the start: exact.
        self.movable = self.val.upper > self.val.lower
        self.vmax = float(self.val.value(self.val.upper).max(initial=0.0))
        self.vmin = float(self.val.value(self.val.lower).min(initial=0.0))
        self.ub = self.val.upper.copy()      # upper bounds on X_i, tightened by LP relaxations (valid for the rest)
        self.lo_fix = self.val.lower.copy()  # X_i >= lo_fix[i] in every later MILP (rows fixed for a whole group)
        self.counters = {"tie_levels": 0, "count_skipped": 0, "levels_skipped": 0, "lp_users_dropped": 0,
                         "lp_solves": 0, "lp_s": 0.0, "levels_by_count": 0, "count_rises": 0, "flow_checks": 0,
                         "flow_s": 0.0, "flow_users_dropped": 0, "flow_levels_skipped": 0}

    # ---- thresholds: the smallest X with v >= level, and with v > level ----------------------
    def thr_ge(self, level: float) -> np.ndarray:
        return np.ceil((level - self.val.offset) / self.val.slope - self.eps_x).astype(np.int64)

    def thr_gt(self, level: float) -> np.ndarray:
        return (np.floor((level - self.val.offset) / self.val.slope + self.eps_x) + 1).astype(np.int64)

    def cth_largest(self, gi: np.ndarray, c: int, xs: np.ndarray) -> float:
        return float(np.sort(self.val.slope[gi] * xs[gi] + self.val.offset[gi])[::-1][c - 1])

    # ---- rounds -------------------------------------------------------------------------------
    def run_round(self, kind: str, cols: list, rows: list, cost: dict, proven: float, hint: dict) -> Any:
        """One MILP: the base, the rows fixed so far, and the round's own rows and columns."""
        if self.r.out_of_time():
            return None
        prog = self.r.base.extended(cols=self.perm_cols + cols, rows=self.perm_rows + rows, cost=cost)
        out, x = self.r.solve(kind, prog, proven=proven, start=self.r.start(prog, hint))
        if x is not None:
            self.r.keep(x, self.r.base.n_cols + len(self.perm_cols))
        return out

    def flow_ok(self, required: np.ndarray) -> bool:
        import time

        t_ = time.perf_counter()
        ok = bool(self.flow(np.maximum(required, 0)))
        self.counters["flow_checks"] += 1
        self.counters["flow_s"] += time.perf_counter() - t_
        return ok

    def extend_kept(self, values: list[float]) -> None:
        """Append the values of new permanent binaries to the kept solution (its warm start)."""
        if self.r.x is not None:
            self.r.x = np.concatenate([self.r.x, np.asarray(values, dtype=float)])

    def indicator_rows(self, tag: str, users: np.ndarray, thr: np.ndarray, xs: np.ndarray) -> tuple[list, list, dict, dict]:
        """A binary y per user with X_i >= thr_i y (cols, rows, hint from xs, the y's as count terms)."""
        lab, tot = self.r.label, self.r.tot
        cols_, rows_, hint_, ys_ = [], [], {}, {}
        for i in users:
            y = f"{lab}{tag}y{self.level_rows}_{i}"
            cols_.append((y, 0, 1, True))
            hint_[y] = 1.0 if xs[i] >= thr[i] else 0.0
            terms = dict(tot[i])
            terms[y] = -float(thr[i])
            rows_.append((terms, 0, None, f"{lab}{tag}{self.level_rows}_{i}"))
            ys_[y] = 1.0
        return cols_, rows_, hint_, ys_

    def ge_parts(self, gi: np.ndarray, c: int, lge: np.ndarray, xs: np.ndarray) -> tuple[list, list, dict, list]:
        """Rows "at least c users of gi at or above the level" (cols, rows, hint, values at xs)."""
        lab, tot = self.r.label, self.r.tot
        if c == gi.size:
            return [], [(dict(tot[i]), int(max(lge[i], self.val.lower[i])), None, f"{lab}ge{self.level_rows}_{i}")
                        for i in gi], {}, []
        cols_, rows_, hint_, ys_ = self.indicator_rows("ge", gi, lge, xs)
        rows_.append((ys_, c, None, f"{lab}gecount{self.level_rows}"))
        return cols_, rows_, hint_, list(hint_.values())

    def candidates(self, gi: np.ndarray, lgt: np.ndarray, xs: np.ndarray, extra_cols: list,
                   extra_rows: list) -> np.ndarray:
        """Users of gi that could exceed the level (L'_i <= U_i), U_i tightened by bounds first."""
        import time

        ub = self.ub
        can = gi[lgt[gi] <= ub[gi]]
        rest = can[xs[can] < lgt[can]]
        if self.use_flow and rest.size:
            # max-flow necessary condition (module docstring, "Max-flow bounds"): user i above the level
            # while every user keeps the tasks the rows fixed for whole groups give it
            for i in rest:
                req = self.lo_fix.copy()
                req[i] = max(req[i], lgt[i])
                if not self.flow_ok(req):
                    ub[i] = min(ub[i], lgt[i] - 1)
                    self.counters["flow_users_dropped"] += 1
            can = gi[lgt[gi] <= ub[gi]]
            rest = can[xs[can] < lgt[can]]
        if self.lp_bounds and rest.size:
            # LP relaxation maxima of X_i under every row fixed so far (docstring, "Skipping MILPs"):
            # a user whose maximum stays below L'_i cannot exceed the level in any later MILP
            left = self.r.remaining()
            if left is None or left > 0:
                tl = time.perf_counter()
                prog = self.r.base.extended(cols=self.perm_cols + extra_cols, rows=self.perm_rows + extra_rows)
                bnd = lp_max_totals(prog, [self.r.tot[i] for i in rest], time_limit=left,
                                    threads=self.r.kw["threads"])
                self.counters["lp_solves"] += int(rest.size)
                self.counters["lp_s"] += time.perf_counter() - tl
                ub[rest] = np.minimum(ub[rest], bnd)
                self.counters["lp_users_dropped"] += int(np.sum(lgt[rest] > ub[rest]))
                can = gi[lgt[gi] <= ub[gi]]
        return can

    def count_milp(self, kind: str, can: np.ndarray, lgt: np.ndarray, xs: np.ndarray, extra_cols: list,
                   extra_rows: list, extra_hint: dict) -> Any:
        """Maximise the number of users of ``can`` strictly above the level (binaries y', X_i >= L'_i y')."""
        cols_, rows_, hint_, ys_ = self.indicator_rows("gt", can, lgt, xs)
        return self.run_round(kind, [*extra_cols, *cols_], [*extra_rows, *rows_], ys_, 0.5, {**extra_hint, **hint_})

    # ---- the two ways to find a level ----------------------------------------------------------
    def level_by_counting(self, gi: np.ndarray, c: int) -> tuple[Any, ...]:
        """Count MILPs at the incumbent's level until no c users exceed it (module docstring, "Levels by
        counting"). Returns ("ok", level, lge, lgt, xs, counted) or ("stop", outcome)."""
        self.counters["levels_by_count"] += 1
        xs = self.r.totals
        while True:
            level = self.cth_largest(gi, c, xs)
            lge, lgt = self.thr_ge(level), self.thr_gt(level)
            ge_cols, ge_rows, ge_hint, _ = self.ge_parts(gi, c, lge, xs)
            can = self.candidates(gi, lgt, xs, ge_cols, ge_rows)
            if np.all(xs[can] >= lgt[can]):
                # every user that could exceed the level does at xs: there are fewer than c of
                # them (xs has at most c - 1 users above its c-th largest value), so the level is
                # proven and the count (|can|) attained without a MILP
                self.counters["count_skipped"] += 1
                return "ok", level, lge, lgt, xs, (can, int(can.size))
            out = self.count_milp("level-count", can, lgt, xs, ge_cols, ge_rows, ge_hint)
            if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                return "stop", self.stopped(out, "count")
            if out.status is Status.FEASIBLE:
                return "stop", self.finish(Status.FEASIBLE, self.partial(out) + f" (next level at least "
                                           f"{level / self.scale:.10g}, not proven)")
            xs = self.r.totals
            k_new = int(round(out.objective))
            if k_new < c:          # no c users can exceed the level together: it is the level
                return "ok", level, lge, lgt, xs, (can, k_new)
            self.counters["count_rises"] += 1   # c users above it: xs is a better incumbent, count again

    def level_milp(self, gi: np.ndarray, c: int) -> tuple[Any, ...]:
        """The level MILP: the plain max-min over the group (binaries when ties are undetermined).
        Returns ("ok", level, xs, out) or ("stop", outcome)."""
        val, lab, tot = self.val, self.r.label, self.r.tot
        first = not self.r.rounds
        zname = f"{lab}lexz{self.level_rows}"
        # CP-SAT, and the first level with integer_first_level: Z = S * level, an integer (integer_scale's proof)
        lscale = self.iscale if self.iscale is not None else (self.fscale if first else None)
        if lscale is not None:
            sa, sb = np.rint(self.valuation.slope * lscale), np.rint(self.valuation.offset * lscale)
            zcol = (zname, math.floor(self.vmin / self.scale * lscale) - 1,
                    math.ceil(self.vmax / self.scale * lscale) + 1, True)
            proven = 0.5
        else:
            sa, sb = val.slope, val.offset
            zcol = (zname, None, self.vmax, False)
            proven = self.step / 2
        cols, rows, hint = [zcol], [], {}
        cur = self.r.totals
        top: set = set()
        if cur is not None:
            cur_v = sa[gi] * cur[gi] + sb[gi]
            order = np.argsort(-cur_v, kind="stable")
            hint[zname] = float(cur_v[order[c - 1]])
            top = set(gi[order[:c]].tolist())
        if c == gi.size:
            for i in gi:
                terms = {k: float(sa[i]) * cf for k, cf in tot[i].items()}
                terms[zname] = -1.0
                rows.append((terms, -float(sb[i]), None, f"{lab}lv{self.level_rows}_{i}"))
        else:
            self.counters["tie_levels"] += 1
            zmax = zcol[2]
            ys = {}
            for i in gi:
                y = f"{lab}lvy{self.level_rows}_{i}"
                cols.append((y, 0, 1, True))
                hint[y] = 1.0 if i in top else 0.0
                big = float(zmax - (sa[i] * val.lower[i] + sb[i]))
                terms = {k: float(sa[i]) * cf for k, cf in tot[i].items()}
                terms[zname] = -1.0
                terms[y] = -big
                rows.append((terms, -float(sb[i]) - big, None, f"{lab}lv{self.level_rows}_{i}"))
                ys[y] = 1.0
            rows.append((ys, c, None, f"{lab}lvcount{self.level_rows}"))
        cost = {zname: 1.0}
        n = self.n
        if self.use_flow and cur is not None and c == gi.size and not first and not self.flow_ok(np.where(
                np.isin(np.arange(n), gi), np.maximum(self.lo_fix, self.thr_gt(float(np.sort(
                    val.slope[gi] * cur[gi] + val.offset[gi])[0]))), self.lo_fix)):
            # no allocation has every user of the group above the incumbent's level (max-flow):
            # the level MILP would return the incumbent's level (module docstring, "Max-flow bounds")
            self.counters["flow_levels_skipped"] += 1
            return "ok", self.cth_largest(gi, c, cur), cur, None
        if self.lp_bounds and cur is not None and self.level_proven(
                lambda: self.r.base.extended(cols=self.perm_cols + cols, rows=self.perm_rows + rows,
                                             cost={zname: 1.0}),
                gi, c, cur, self.thr_gt(self.cth_largest(gi, c, cur)),
                1.0 if lscale is None else self.scale / lscale):
            # the incumbent (the last solution, which satisfies every row so far) attains an upper
            # bound on the level: the level MILP would return this level (docstring, "Skipping MILPs")
            self.counters["levels_skipped"] += 1
            return "ok", self.cth_largest(gi, c, cur), cur, None
        if (self.secondary == "always" or (self.secondary == "after-first" and not first)) \
                and self.objective == "leximin" and lscale is None:
            # the secondary term (module docstring): prefer users above the level among max-min optima
            span = float(np.sum(val.slope[gi] * (val.upper[gi] - val.lower[gi])))
            if span > 0:
                eps = self.step / (4 * span)
                for i in gi:
                    for k, cf in tot[i].items():
                        cost[k] = cost.get(k, 0.0) + float(eps * val.slope[i]) * cf
                proven = self.step / 4
        out = self.run_round("level", cols, rows, cost, proven, hint)
        if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            return "stop", self.stopped(out, "level")
        if out.status is Status.FEASIBLE:
            b = out.stats.get("bound")
            bb = None if b is None else (b / lscale if lscale is not None else b / self.scale)
            return "stop", self.finish(Status.FEASIBLE, self.partial(out), bb)
        xs = self.r.totals
        return "ok", self.cth_largest(gi, c, xs), xs, out

    def level_proven(self, build: Callable, gi: np.ndarray, c: int, cur: np.ndarray, lgt_inc: np.ndarray,
                     z_to_value: float) -> bool:
        r"""True when the incumbent ``cur`` provably attains the next level (docstring, "Skipping MILPs").

        The level is the c-th largest value over ``gi``; ``cur`` attains :math:`\ell_{inc}`. Any higher level
        is at least :math:`\nu`, the smallest achievable value above :math:`\ell_{inc}` of a user of ``gi``
        that can still reach it (:math:`L'_i(\ell_{inc}) \le U_i`). Proven when no user can, when the
        c-th largest of the users' upper values is below :math:`\nu`, or when the LP relaxation of the
        level program (``build()``, objective *z*; ``z_to_value`` converts *z* to scaled values) is.
        """
        import time

        val, ub = self.val, self.ub
        cand = gi[lgt_inc[gi] <= ub[gi]]
        if cand.size == 0:
            return True
        nu = float(np.min(val.slope[cand] * lgt_inc[cand] + val.offset[cand]))
        top = np.sort(val.slope[gi] * ub[gi] + val.offset[gi])[::-1][c - 1]
        if top < nu - self.tau:
            return True
        left = self.r.remaining()
        if left is not None and left <= 0:
            return False
        t0 = time.perf_counter()
        z = lp_max(build(), time_limit=left, threads=self.r.kw["threads"])
        self.counters["lp_solves"] += 1
        self.counters["lp_s"] += time.perf_counter() - t0
        return z is not None and z * z_to_value < nu - self.tau

    # ---- the sequence -------------------------------------------------------------------------
    def run(self) -> LeximinOutcome:
        val, n = self.val, self.n
        group = np.flatnonzero(self.movable)
        c = int(group.size)
        if c < n:
            fixed_vals = val.value(val.lower)[~self.movable] / self.scale
            for v in np.unique(fixed_vals):
                self.leximin.append((float(v), int(np.sum(fixed_vals == v))))
        if c == 0:       # nobody can move: the lower bounds are the allocation; still check feasibility
            out = self.run_round("feasibility", [], [], {}, 0.5, {})
            if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                st = Status.NOT_SOLVED if out is None else out.status
                return self.finish(st, "time limit before the first solve" if out is None else out.message)
            return self.finish(Status.OPTIMAL, "every user is at its only possible task count")
        if self.r.backend.name == "cpsat" and self.iscale is None:
            return self.finish(Status.ERROR, "cpsat: the users' values are not fractions that scale exactly to "
                                             "integers below 2^53 (see fairalloc.exact.leximin.integer_scale); "
                                             "use solver='highs'")
        lab, tot = self.r.label, self.r.tot
        while c > 0:
            gi = group
            counted = None            # (candidates, how many of them can exceed the level together)
            if self.objective == "leximin" and self.r.totals is not None and (
                    self.level_by_count == "always" or (self.level_by_count == "ties" and c < gi.size)):
                got = self.level_by_counting(gi, c)
                if got[0] == "stop":
                    return got[1]
                _, level, lge, lgt, xs, counted = got
            else:
                got = self.level_milp(gi, c)
                if got[0] == "stop":
                    return got[1]
                _, level, xs, out = got
                if self.objective == "maxmin":      # only the first level; its multiplicity is not computed
                    b = out.stats.get("bound")
                    lscale = self.iscale if self.iscale is not None else self.fscale
                    bb = None if b is None else (b / lscale if lscale is not None else b / self.scale)
                    return self.finish(Status.OPTIMAL, f"max-min level proven optimal by {self.r.backend.name}", bb)
                lge, lgt = self.thr_ge(level), self.thr_gt(level)
            # permanent: at least c users of the group at or above the level
            ge_cols, ge_rows, _, ge_vals = self.ge_parts(gi, c, lge, xs)
            self.perm_cols += ge_cols
            self.perm_rows += ge_rows
            if c == gi.size:
                self.lo_fix[gi] = np.maximum(self.lo_fix[gi], lge[gi])
            if ge_cols:
                self.extend_kept(ge_vals)
            # ---- count MILP: how many of the group can rise above the level together ---------------
            if counted is not None:
                can, c_new = counted
            else:
                can = self.candidates(gi, lgt, xs, [], [])
                if can.size and np.all(xs[can] >= lgt[can]):
                    # the level solution already has every user that could exceed the level above it: the
                    # count MILP's optimum (at most |can|) is attained, so it is skipped (exact)
                    self.counters["count_skipped"] += 1
                    c_new = int(can.size)
                elif can.size:
                    out = self.count_milp("count", can, lgt, xs, [], [], {})
                    if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                        return self.stopped(out, "count")
                    if out.status is Status.FEASIBLE:
                        return self.finish(Status.FEASIBLE, self.partial(out) + f" (next level "
                                           f"{level / self.scale:.10g} proven, its multiplicity not)")
                    xs = self.r.totals
                    c_new = int(round(out.objective))
            if can.size == 0:
                self.leximin.append((level / self.scale, c))
                c = 0
                break
            self.leximin.append((level / self.scale, c - c_new))
            if c_new > 0:
                if c_new == len(can):
                    for i in can:
                        self.perm_rows.append((dict(tot[i]), int(lgt[i]), None, f"{lab}gtfix{self.level_rows}_{i}"))
                    self.lo_fix[can] = np.maximum(self.lo_fix[can], lgt[can])
                else:
                    ys = {}
                    for i in can:
                        y = f"{lab}gtk{self.level_rows}_{i}"
                        self.perm_cols.append((y, 0, 1, True))
                        terms = dict(tot[i])
                        terms[y] = -float(lgt[i])
                        self.perm_rows.append((terms, 0, None, f"{lab}gtk{self.level_rows}_{i}"))
                        ys[y] = 1.0
                    self.perm_rows.append((ys, c_new, None, f"{lab}gtcount{self.level_rows}"))
                    self.extend_kept([1.0 if xs[i] >= lgt[i] else 0.0 for i in can])
            logger.debug("%slevel %.6g: %d at level, %d above", lab, level / self.scale, c - c_new, c_new)
            group = can
            c = c_new
            self.level_rows += 1
        return self.finish(Status.OPTIMAL, f"leximin proven optimal by {self.r.backend.name} "
                                           f"({len(self.r.rounds)} MILPs, {len(self.leximin)} distinct levels)")

    # ---- the result ---------------------------------------------------------------------------
    def finish(self, status: Status, message: str, bound: float | None = None) -> LeximinOutcome:
        stats = {**self.counters, "lp_bounds": self.lp_bounds,
                 "resolution": self.delta / self.scale if math.isfinite(self.delta) else None, "scale": self.scale,
                 "levels_proven": len(self.leximin)}
        if self.iscale is not None:
            stats["integer_scale"] = self.iscale
        if self.fscale is not None:
            stats["first_level_integer_scale"] = self.fscale
        lex = sorted(self.leximin) if self.objective == "leximin" else []
        return self.r.outcome(status, message, self.valuation, self.movable, lex, bound, stats)

    def partial(self, out: Any) -> str:
        return (f"leximin stopped after {len(self.leximin)} proven level(s): {out.message}; the allocation "
                f"satisfies every proven level but the rest is not proven optimal")

    def stopped(self, out: Any, kind: str) -> LeximinOutcome:
        if out is None:
            msg = f"time limit reached before the {kind} MILP could start"
            st = Status.NOT_SOLVED
        else:
            msg = f"{kind} MILP: {out.message}"
            st = out.status
        res = self.finish(st, msg)
        if res.solution is not None and st not in (Status.OPTIMAL, Status.FEASIBLE):
            # an earlier round left a feasible allocation: return it, honestly unproven
            res.status = Status.FEASIBLE
            res.message = (f"{msg}; returning the allocation of the last solved MILP ({len(self.leximin)} level(s) "
                           f"proven, the rest not proven optimal)")
        return res
