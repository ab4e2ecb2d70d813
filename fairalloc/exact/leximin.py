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

The count MILP is the *batched* saturation test: one MILP decides, for every user of the group at
once, how many can rise above :math:`\ell` together (instead of one MILP per user, which could not
see that two users compete for the same spare capacity). It is skipped, exactly, when the level
solution already has every user of *G* that could exceed :math:`\ell` at all (:math:`L'_i \le U_i`)
above it: the count MILP's optimum (at most that many) is attained. Users whose upper bound
:math:`U_i` cannot exceed the level (:math:`L'_i > U_i`, the bound of the formulation: tasks
submitted, and for TV-TSF the window bound of what fits) leave the group without a solve.

Skipping MILPs with bounds
--------------------------
With ``lp_bounds`` on (the default, :data:`_LP_BOUNDS`), linear-programming bounds
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
``stats``: ``levels_skipped``, ``lp_users_dropped``, ``lp_solves``, ``lp_s``. Measured 2026-11-24
(shared 2-core machine, load average 12-22): on the small seeded instances of ``fairalloc compare``
(``python benchmarks/bench_lp_bounds.py --solvers highs,cpsat --repeats 2``; 172 leximin
programs, all proven, the same vectors) HiGHS solved 878 MILPs without the bounds and 502 with them
(297 users dropped, 157 levels proven without a MILP; median time off / on 1.18x), CP-SAT 886
against 538 (1.44x). On the dense 10 x 10 x 20
instances (``benchmarks/bench_milp.py --lp-bounds``) they did nothing: the LP relaxation lets every
user rise fractionally, so no user was dropped and no level proven (the same MILPs, 0.1-0.55 s
spent in LPs per 60 s run); the expensive MILPs there are the tie levels, whose users really
compete for the same servers. (Those figures predate levels by counting; with it the same compare
programs take fewer MILPs either way: ``bench_lp_bounds.py --switch counting``.)

Levels by counting
------------------
A level after the first whose users tie (*c* < |G|) is not found by the level MILP (:data:`_LEVEL_BY_COUNT`
"ties", the default). That program's "at least *c* users of *G* have :math:`v_i \ge z`" needs big-M
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
level after the first, "never" the level MILP everywhere. Measured 2026-11-24 (shared 2-core
machine, load average 11-15, same-run ratios): on compare's 172 leximin programs
(``python benchmarks/bench_lp_bounds.py --switch counting --repeats 1``, all proven, the same vectors)
HiGHS solved 489 MILPs with "never" and 436 with "ties" (22.8 s against 17.8 s), CP-SAT 522 against
478 (18.4 s against 9.1 s); on the dense 10 x 10 x 20 TV-TSF instance, seed 1
(``benchmarks/bench_milp.py --counting``, 60 s), HiGHS proved 4 leximin levels with "ties" and 2
with "never" (stuck in the first tie level's big-M MILP at a 0.28% gap); neither proves the whole
vector, and on seed 0 nothing gets past the first level, which is the max-min program itself.

Max-flow bounds
---------------
A formulation may pass ``flow``: a necessary condition ``flow(required)`` for an allocation with at
least ``required[i]`` tasks of every user (a max-flow per resource through the placement graph:
:func:`fairalloc.exact.placement.flow_check` for task instances,
:func:`~fairalloc.exact.placement.tv_flow_check` for TV-TSF, whose docstrings prove them). The driver
keeps :math:`\underline X_i`, the task counts every later MILP must give user *i* (its lower bound and
the rows fixed for a whole group: :math:`X_i \ge L_i(\ell)` when *c* = |G|, :math:`X_i \ge L'_i(\ell)`
when every candidate rises; rows with tie binaries are left out, which only weakens the condition).
With ``lp_bounds`` on (and :data:`_FLOW_BOUNDS`), before the LP maxima:

* **Users dropped.** If ``flow`` rejects :math:`\underline X` with user *i* raised to :math:`L'_i(\ell)`,
  no later MILP has *i* above :math:`\ell`: :math:`U_i := L'_i - 1`, exactly as an LP maximum below
  :math:`L'_i` (and its LP solve is saved).
* **Levels proven.** Before a level MILP with *c* = |G| (not the first), if ``flow`` rejects
  :math:`\underline X` with every user of *G* raised to :math:`L'_i(\ell_{inc})`, no feasible point has
  the whole group above the incumbent's level, so the level MILP would return :math:`\ell_{inc}`.

Any LP-feasible point gives such a flow, so on users the max-flow never drops one that the LP
maxima keep (up to the LP's slack); its use is to save LP solves. On levels it can prove what the LP
bound does not: it asks for the integer counts :math:`L'_i`, while the LP's level reaches
:math:`\nu` with fractional counts. Measured 2026-11-24 on compare's 172 leximin programs
(``python benchmarks/bench_lp_bounds.py --switch flow --repeats 1``, load average 11-13, all proven,
the same vectors): HiGHS 449 MILPs and 831 LP solves without the flow, 436 and 550 with it; the
LP bounds alone dropped 287 users and proved 127 levels, flow and LP together 286 and 141 (so the
flow proved 14 levels the LP bound did not, and dropped no user the LP maxima would have kept);
CP-SAT 492 / 935 against 477 / 657 (levels 120 against 134). On the dense 10 x 10 x 20 TV-TSF
instances the flow check rejected nothing (``bench_milp.py --flow``: 27 checks, 0.8 s in a 60 s
run): :func:`~fairalloc.exact.placement.tv_flow_check` charges a task only at its start slot.

**The first level is the max-min program, nothing more.** Its objective is the plain *z* and its
absolute gap :math:`\delta/2`, exactly as ``objective="maxmin"``, so the first level costs what the
max-min costs. Up to fairalloc 0.1 every level's objective also carried a small secondary term,
:math:`z + \epsilon \sum_{i \in G} v_i` with :math:`\epsilon \sum_i (v_i(U_i) - v_i(L_i)) \le \delta/4`
(it can never trade off any amount of *z*, levels differing by at least :math:`\delta`; among max-min
optima it prefers users above the level, so the count MILP is skipped more often), solved to an
absolute gap :math:`\delta/4`. That made the first level a different, sometimes much harder, program
than the max-min (measured: 9.5 s against 0.7 s on one instance). The term is now used on the later
levels only (``_SECONDARY = "after-first"``): measured with HiGHS on the random 10 x 10 x 20 TV-TSF
instances, seeds 0-2 (2026-11-24, load average 23 on 2 cores, same run): plain everywhere 23.1 /
14.2 / 32.5 s, after the first level 16.0 / 12.5 / 13.6 s, on every level 13.6 / 21.3 / 13.6 s, the
same leximin vectors in all three.

**Every round is built anew.** The formulation (a PuLP model) is read once into arrays
(:func:`fairalloc.exact.program.from_pulp`); each MILP of the sequence is those arrays plus the rows
(and tie binaries) of the levels fixed so far plus the round's own rows and columns
(:meth:`~fairalloc.exact.program.LinearProgram.extended`): nothing is deleted from a model, and no
solver or modelling library is used outside its public API.

**Warm starts.** With ``warm_start`` on, each MILP starts from the previous round's solution (it
satisfies every row added since), completed with consistent values of the new level and indicator
variables (HiGHS ``setSolution``, CP-SAT ``AddHint``, CBC ``-mips``). The default per backend
(:data:`WARM_START_DEFAULT`) is what measured faster on the dense instances.

**CP-SAT** needs integer coefficients: its level rows are :math:`(S a_i) X_i + S b_i \ge Z` with *Z*
integer and *S* from :func:`integer_scale` (proof there that no level is lost to rounding); every
other row is already in integer task units. The level found is the same achievable value. HiGHS
can solve its first level (the max-min program) in the same integer form (``_INTEGER_FIRST_LEVEL``;
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
from .backends import solve_program
from .lp_bounds import lp_max, lp_max_totals
from .program import LinearProgram, from_pulp, terms_of
from .solvers import Backend

logger = logging.getLogger(__name__)

__all__ = ["Valuation", "LeximinOutcome", "solve_leximin", "value_resolution", "integer_scale",
           "WARM_START_DEFAULT"]

#: MIP starts between the MILPs of a sequence, per backend (``warm_start=None``). Measured on
#: 2026-11-24 on a shared 2-core machine (load average 14-21, so only same-run ratios mean anything):
#: HiGHS, TV-TSF leximin on the random 10 x 10 x 20 instances (seeds 0-2), warm off / on = 1.87, 1.61,
#: 0.78 (on); on the dense 10 x 10 x 20 seed 1, 6 MILPs done in 60 s with it, 5 without. CP-SAT:
#: 0.64 and 0.90 on the random instances, but on the dense one (the load issue 14 is about) gap 0.111
#: at the limit with the hint, 0.25 without: kept on, the issue asks for the previous solution as a
#: hint. CBC: off (it slowed CBC down in the earlier ``--ablation`` runs). The first level never gets
#: a start (there is no previous solution; starting it from the empty allocation is what made the
#: first level ten times slower in issue 14). Measured again with the LP bounds and time budget
#: (``bench_milp.py --sizes 10x10x20 --seeds 2 --warm``, 60 s, 2 threads, load average 13-22):
#: dense seed 1, HiGHS warm on 5 MILPs done, gap 0.0028 at the limit, off 4 MILPs (stopped inside a
#: count MILP); CP-SAT 2 MILPs, gap 0.111 either way; dense seed 0, no level proven by any run
#: (CP-SAT gap 0.081 on, 0.084 off). The defaults stand.
WARM_START_DEFAULT = {"highs": True, "cpsat": True, "cbc": False}

#: The level objective's secondary term (module docstring): "never", "after-first" (every level but
#: the first, which stays the plain max-min program) or "always" (up to fairalloc 0.1);
#: ``benchmarks/bench_milp.py --secondary MODE`` measures them.
_SECONDARY = "after-first"

#: How a level after the first is found (module docstring, "Levels by counting"): "ties" (levels
#: whose users tie, *c* < |G|, by count MILPs at the incumbent's level; the others by the level MILP),
#: "always" (every level after the first by counting) or "never" (every level by the level MILP, as
#: up to this change); ``benchmarks/bench_milp.py --level-by-count MODE`` measures them.
_LEVEL_BY_COUNT = "ties"

#: Use the formulation's max-flow check (``solve_leximin(flow=)``) before the LP bounds (module docstring,
#: "Max-flow bounds"); ``benchmarks/bench_lp_bounds.py`` measures it.
_FLOW_BOUNDS = True

#: Use LP-relaxation bounds to skip MILPs (module docstring, "Skipping MILPs with bounds"); the
#: default of ``solve_leximin(lp_bounds=None)``; ``benchmarks/bench_milp.py --no-lp-bounds`` turns it off.
_LP_BOUNDS = True

#: Backends whose first level MILP (the max-min program) takes the level as an integer,
#: Z = S * level with S from :func:`integer_scale` (module docstring, "CP-SAT"; CP-SAT does so on
#: every level, being integer-only). Off for HiGHS: measured on the dense TV-TSF instances of issue 14
#: (2026-11-24, max-min, 60-90 s, 2 threads, load average 6.5-10, integer and continuous back to
#: back) it is faster on 10 x 10 x 20 (seed 1 1.8 / 1.6 s against 2.3 / 2.1 s, seed 2 0.4 against
#: 0.5 s; seed 0 unproven either way, with the better incumbent 75.29 scaled units in 2 of 3 runs
#: against 75.05 in every continuous run) and on 20 x 20 x 30 seed 0 (4.6 s against 6.2 s), but
#: 3.5 times slower on 20 x 20 x 30 seed 1 (33.2 s against 9.6 s; S = 305877 there, 133 on the
#: 10 x 10 x 20 seed 0). ``benchmarks/bench_lp_bounds.py --switch integer-first`` compares the two:
#: on compare's 172 small leximin programs the same vectors and 436 MILPs, 10.5 s against 10.9 s.
_INTEGER_FIRST_LEVEL: set = set()

_NOISE = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class Valuation:
    """User values affine in integer task totals: ``v_i = slope[i] * X_i + offset[i]``.

    ``lower[i] <= X_i <= upper[i]`` are the task totals a user can reach at all (the formulation
    guarantees them; ``upper`` is a valid upper bound, not necessarily attained). Built for each
    mechanism by :func:`fairalloc.exact.tasks.task_valuation` /
    :func:`fairalloc.exact.tvtsf.tvtsf_valuation`.

    Parameters
    ----------
    slope : array_like, shape (n,)
        :math:`a_i > 0`, finite.
    offset : array_like, shape (n,)
        :math:`b_i`.
    lower, upper : array_like of int, shape (n,)
        Bounds on the task totals.

    Attributes
    ----------
    slope, offset : ndarray of float
    lower, upper : ndarray of int64
    n : int
        Number of users.

    Raises
    ------
    ValueError
        A slope that is not finite and positive.

    Examples
    --------
    >>> v = Valuation([0.5, 2.0], [0.0, 1.0], [0, 0], [4, 4])
    >>> v.n, v.value([2, 3]).tolist()                  # 0.5 * 2 and 2 * 3 + 1
    (2, [1.0, 7.0])
    >>> v.scaled()[1]                                   # slopes divided by the smallest, 0.5
    2.0
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
    r"""(delta, eta): smallest positive difference between achievable values, and the float noise.

    ``delta`` ignores differences below ``eta``; it is ``inf`` when all achievable values coincide.
    With more than ``max_values`` achievable values in total, the same-user spacing ``min a_i`` and a
    sampled pairwise minimum are used (a warning says so).

    Parameters
    ----------
    val : Valuation
        The users' values; achievable values are ``val.value(x)`` for whole ``x`` in
        ``[lower, upper]``.
    max_values : int, optional
        Most achievable values enumerated (default 5,000,000).

    Returns
    -------
    delta : float
        Smallest gap between two distinct achievable values (``inf`` if there is none).
    eta : float
        :math:`64\,\varepsilon_{\mathrm{mach}}` times the largest value magnitude (at least 1).

    Warns
    -----
    FairallocWarning
        More than ``max_values`` achievable values.

    Examples
    --------
    Values k/2 (k = 0..2) and k/3 (k = 0..3): the closest distinct pair is 1/2 and 1/3 (or 2/3), 1/6
    apart; the largest value is 1, so eta = 64 x 2^-52:

    >>> delta, eta = value_resolution(Valuation([0.5, 1 / 3], [0, 0], [0, 0], [2, 3]))
    >>> round(delta, 12), bool(eta == 64 * 2.0 ** -52)
    (0.166666666667, True)
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
    """What :func:`solve_leximin` returns (the values of every model variable of the kept solution).

    Parameters
    ----------
    status, message, solution, totals, leximin, objective, bound, stats
        As the attributes below.

    Attributes
    ----------
    status : Status
        OPTIMAL only when every MILP of the sequence was proven optimal.
    message : str
    solution : dict of str to float, or None
        Column name -> value of the kept solution (None without one).
    totals : ndarray of int, or None
        :math:`X_i` of that solution.
    leximin : list of (float, int)
        The sorted leximin vector as (level, multiplicity), in the valuation's (unscaled) units; empty
        for ``objective="maxmin"``.
    objective : float or None
        The max-min value.
    bound : float or None
        The backend's bound on it when not proven.
    stats : dict
        ``n_solves``, ``rounds``, ``runtime_s``, ``resolution``, ``scale``, ``levels_proven``, ...

    Examples
    --------
    See :func:`solve_leximin`.
    """

    status: Status
    message: str
    solution: dict[str, float] | None
    totals: np.ndarray | None
    leximin: list[tuple[float, int]] = field(default_factory=list)   # (level, multiplicity), unscaled
    objective: float | None = None
    bound: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def integer_scale(val: Valuation) -> int | None:
    r"""Smallest positive integer *S* with :math:`S a_i` and :math:`S b_i` integers for every user, or None.

    Each slope and offset is read as the closest fraction with a denominator of at most
    :math:`10^6`, accepted only within :math:`10^{-13}` (relative) of it
    (:func:`fairalloc.exact.backends.integer_row`; exact for true fractions with such denominators,
    since two of them differ by at least :math:`10^{-12}`); *S* is the least common multiple of those
    denominators. Then every achievable value times *S*,
    :math:`S v_i(x) = (S a_i) x + S b_i`, is an integer, and the order of any two values is the order of
    their scaled integers (multiplication by *S* > 0), so a level MILP over the integer variable
    :math:`Z \le S v_i(X_i)` reaches exactly *S* times the real max-min, and no two distinct levels
    merge: no level is lost to rounding. None when the values are not such fractions or the scaled
    values exceed :math:`2^{53}` (then CP-SAT is not used on this instance; the status says so).

    Parameters
    ----------
    val : Valuation

    Returns
    -------
    int or None

    Examples
    --------
    Slopes 1/2 and 1/3 need S = lcm(2, 3) = 6; pi is no such fraction:

    >>> integer_scale(Valuation([0.5, 1 / 3], [0, 0], [0, 0], [2, 3]))
    6
    >>> import math
    >>> integer_scale(Valuation([math.pi], [0], [0], [1])) is None
    True
    """
    from .backends import integer_row

    s = integer_row(np.concatenate([val.slope, val.offset]))
    if s is None:
        return None
    top = float(np.max(np.abs(val.value(val.upper)), initial=0.0)) * s
    if top > 2.0 ** 53 or float(np.max(np.abs(val.slope * s))) > 2.0 ** 53:
        return None
    return int(s)


def _as_program(problem: Any, totals: Sequence[Any]) -> tuple[LinearProgram, list[dict[int, float]]]:
    if isinstance(problem, LinearProgram):
        return problem, [dict(t) for t in totals]
    base = from_pulp(problem, also=totals)
    return base, [terms_of(t, base.index) for t in totals]


def _write_lp(prog: LinearProgram, path: Path) -> None:
    """Write one round's program as a CPLEX LP file (highspy's ``writeModel``)."""
    from .backends import _highs_model
    from .solvers import quiet_highs

    lp = _highs_model(prog)
    lp.col_names_ = [str(n) for n in prog.names]
    lp.row_names_ = [str(n) for n in prog.row_names]
    h = quiet_highs()
    h.passModel(lp)
    h.writeModel(str(path))


def solve_leximin(problem: Any, totals: Sequence[Any], valuation: Valuation, *, objective: str,
                  backend: Backend, time_limit: float | None = None, mip_gap: float | None = None,
                  threads: int | None = None, msg: bool = False, options: Mapping[str, Any] | None = None,
                  export_dir: str | os.PathLike | None = None, label: str = "",
                  warm_start: bool | None = None, lp_bounds: bool | None = None,
                  started: float | None = None, flow: Any = None) -> LeximinOutcome:
    """Maximise ``valuation`` over ``problem`` lexicographically (or just its minimum).

    Parameters
    ----------
    problem : pulp.LpProblem (sense maximise) or LinearProgram
        The feasible allocations. It is read once (:func:`fairalloc.exact.program.from_pulp`) and
        never changed: every MILP of the sequence is built anew from those arrays plus the rows of
        the levels fixed so far and the round's own rows and columns.
    totals : sequence of PuLP expressions (or {column: coefficient} dicts with a LinearProgram)
        :math:`X_i`, integer-valued.
    valuation : Valuation
    objective : {"leximin", "maxmin"}
    backend, time_limit, mip_gap, threads, msg, options
        ``time_limit`` is the budget of the whole sequence, counted from ``started`` (a
        ``time.perf_counter()`` value; default: this call), so that reading and building the models
        is part of it: each backend solve gets what is left once its model is built, and no MILP
        starts after the deadline. A ``mip_gap`` > 0 lets each MILP stop early; the result is then
        FEASIBLE (not proven).
    export_dir : path, optional
        Write every MILP of the sequence there as ``{label}round{k:02d}-{kind}.lp``.
    warm_start : bool or None
        Start every MILP from the previous solution (feasible for the next one: every row added is
        satisfied by it). None (the default) means :data:`WARM_START_DEFAULT` of the backend, chosen
        by measurement (``benchmarks/bench_milp.py --ablation``).
    lp_bounds : bool or None
        Skip MILPs whose answer LP-relaxation bounds already prove (module docstring, "Skipping MILPs
        with bounds"); the leximin vector is the same either way. None means ``_LP_BOUNDS`` (on).
    flow : callable, optional
        ``flow(required) -> bool``, a necessary condition for an allocation with at least
        ``required[i]`` tasks of every user (False: proven impossible), e.g. a max-flow check
        (:func:`fairalloc.exact.placement.flow_check`, :func:`~fairalloc.exact.placement.tv_flow_check`).
        Used before the LP bounds to drop users and prove levels (module docstring, "Max-flow
        bounds"); only with ``lp_bounds`` on. None: not used.

    Returns
    -------
    LeximinOutcome

    Examples
    --------
    Two users share 5 units, user 0 can take at most 1: the leximin optimum is (1, 4) (user 0 at its
    cap, user 1 takes the rest); ``objective="maxmin"`` proves only the minimum, 1, and may keep any
    allocation that reaches it, e.g. (1, 1), which is not Pareto-efficient:

    >>> import pulp
    >>> from fairalloc.exact.program import add_var
    >>> from fairalloc.exact.solvers import get_backend
    >>> p = pulp.LpProblem("two", pulp.LpMaximize)
    >>> x0 = add_var(p, "x0", 0, 1, integer=True); x1 = add_var(p, "x1", 0, 5, integer=True)
    >>> _ = p.addConstraint(x0 + x1 <= 5, "cap")
    >>> val = Valuation([1, 1], [0, 0], [0, 0], [1, 5])            # value = tasks
    >>> totals = [pulp.lpSum([x0]), pulp.lpSum([x1])]
    >>> out = solve_leximin(p, totals, val, objective="leximin", backend=get_backend("highs", "milp"))
    >>> out.status.value, out.totals.tolist(), out.leximin
    ('optimal', [1, 4], [(1.0, 1), (4.0, 1)])
    >>> solve_leximin(p, totals, val, objective="maxmin", backend=get_backend("highs", "milp")).objective
    1.0
    """
    t0 = time.perf_counter() if started is None else float(started)
    deadline = None if time_limit is None else t0 + float(time_limit)
    if warm_start is None:
        warm_start = WARM_START_DEFAULT.get(backend.name, False)
    if lp_bounds is None:
        lp_bounds = _LP_BOUNDS
    lp_bounds = bool(lp_bounds) and objective == "leximin"
    base, tot = _as_program(problem, totals)
    n = valuation.n
    val, scale = valuation.scaled()
    delta, eta = value_resolution(val)
    if math.isfinite(delta) and delta < 1e-6:
        warnings.warn(f"achievable values differ by as little as {delta:.3g} (scaled units; solver "
                      f"feasibility tolerances are about 1e-7): leximin levels may be misjudged",
                      FairallocWarning, stacklevel=3)
    tau = delta / 4 if math.isfinite(delta) else 0.25
    eps_x = np.minimum(tau / val.slope, 0.25)          # rounding slack in task units, < 1/4 task
    iscale = integer_scale(valuation) if backend.name == "cpsat" else None
    fscale = integer_scale(valuation) if backend.name in _INTEGER_FIRST_LEVEL else None

    def thr_ge(level: float) -> np.ndarray:          # smallest X with v >= level
        return np.ceil((level - val.offset) / val.slope - eps_x).astype(np.int64)

    def thr_gt(level: float) -> np.ndarray:          # smallest X with v > level
        return (np.floor((level - val.offset) / val.slope + eps_x) + 1).astype(np.int64)

    gap_kw = dict(threads=threads, msg=msg, options=options)
    user_gap = mip_gap if mip_gap is not None and mip_gap > 0 else None
    rounds: list[dict[str, Any]] = []
    state: dict[str, Any] = {"x": None, "totals": None}
    perm_cols: list[tuple] = []          # binaries of levels with ties, kept for the rest of the sequence
    perm_rows: list[tuple] = []          # the levels fixed so far
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
    vmin = float(val.value(val.lower).min(initial=0.0))
    tie_levels = 0            # levels whose MILP needed "at least c of G" binaries (undetermined ties)
    skipped = 0               # count MILPs skipped because the level solution attained |can|
    ub = val.upper.copy()     # upper bounds on X_i, tightened by LP relaxations (valid for the rest)
    lp = {"solves": 0, "s": 0.0, "levels_skipped": 0, "users_dropped": 0}
    counting = {"levels": 0, "rises": 0}     # levels found by counting; count MILPs that raised the level
    flows = {"checks": 0, "s": 0.0, "users_dropped": 0, "levels_skipped": 0}
    lo_fix = val.lower.copy()  # X_i >= lo_fix[i] in every later MILP (rows fixed for a whole group)
    use_flow = flow is not None and lp_bounds and _FLOW_BOUNDS

    def flow_ok(required: np.ndarray) -> bool:
        t_ = time.perf_counter()
        ok = bool(flow(np.maximum(required, 0)))
        flows["checks"] += 1
        flows["s"] += time.perf_counter() - t_
        return ok

    def remaining() -> float | None:
        if deadline is None:
            return None
        return deadline - time.perf_counter()

    def start_for(prog: LinearProgram, extra: dict[str, float]) -> np.ndarray | None:
        if not warm_start or state["x"] is None:
            return None
        x0 = np.zeros(prog.n_cols)
        x0[:state["x"].size] = state["x"]
        for name, v in extra.items():
            x0[prog.index[name]] = v
        return x0

    def run(kind: str, cols: list, rows: list, cost: dict, proven: float, hint: dict) -> Any:
        k = len(rounds)
        left = remaining()
        if left is not None and left <= 0:
            return None
        prog = base.extended(cols=perm_cols + cols, rows=perm_rows + rows, cost=cost)
        if export is not None:
            _write_lp(prog, export / f"{label}round{k:02d}-{kind}.lp")
        left = remaining()                 # the model build counts against the budget
        if left is not None and left <= 0:
            return None
        out, x = solve_program(prog, backend, time_limit=left, mip_gap=user_gap or 0.0,
                               abs_gap=None if user_gap else proven * 0.999, proven_gap=proven,
                               start=start_for(prog, hint), **gap_kw)
        rounds.append({"round": k, "kind": kind, "status": out.status.value, "objective": out.objective,
                       "bound": out.stats.get("bound"), "mip_gap": out.stats.get("mip_gap"),
                       "runtime_s": out.stats.get("runtime_s"), "raw_status": out.stats.get("raw_status")})
        if out.stats.get("retried"):
            rounds[-1]["retried"] = out.stats["retried"]
        logger.info("%sround %d (%s): %s obj=%s in %.3fs", label, k, kind, out.status.value, out.objective,
                    out.stats.get("runtime_s", 0.0))
        if x is not None and out.status in (Status.OPTIMAL, Status.FEASIBLE):
            state["x"] = x[:base.n_cols + len(perm_cols)]
            state["totals"] = np.array([int(round(sum(cf * x[j] for j, cf in t.items()))) for t in tot],
                                       dtype=np.int64)
        return out

    def finish(status: Status, message: str, bound: float | None = None) -> LeximinOutcome:
        stats = {"n_solves": len(rounds), "rounds": rounds, "tie_levels": tie_levels,
                 "count_skipped": skipped, "warm_start": bool(warm_start), "lp_bounds": lp_bounds,
                 "levels_skipped": lp["levels_skipped"], "lp_users_dropped": lp["users_dropped"],
                 "lp_solves": lp["solves"], "lp_s": lp["s"],
                 "levels_by_count": counting["levels"], "count_rises": counting["rises"],
                 "flow_checks": flows["checks"], "flow_s": flows["s"], "flow_users_dropped": flows["users_dropped"],
                 "flow_levels_skipped": flows["levels_skipped"],
                 "runtime_s": time.perf_counter() - t0,
                 "resolution": delta / scale if math.isfinite(delta) else None, "scale": scale,
                 "levels_proven": len(leximin)}
        if iscale is not None:
            stats["integer_scale"] = iscale
        if fscale is not None:
            stats["first_level_integer_scale"] = fscale
        last = rounds[-1] if rounds else {}
        if status is not Status.OPTIMAL and last:
            stats["mip_gap"] = last.get("mip_gap")
            stats["stopped_round"] = last.get("round")
        xs = state["x"]
        solution = None if xs is None else {nm: float(v) for nm, v in zip(base.names, xs[:base.n_cols])}
        t_ = state["totals"]
        obj = None
        if t_ is not None:
            obj = float(valuation.value(t_)[movable].min()) if movable.any() else float(valuation.value(t_).min())
        return LeximinOutcome(status, message, solution, t_,
                              sorted(leximin) if objective == "leximin" else [], obj, bound, stats)

    if c == 0:       # nobody can move: the lower bounds are the allocation; still check feasibility
        out = run("feasibility", [], [], {}, 0.5, {})
        if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            st = Status.NOT_SOLVED if out is None else out.status
            return finish(st, "time limit before the first solve" if out is None else out.message)
        return finish(Status.OPTIMAL, "every user is at its only possible task count")

    if backend.name == "cpsat" and iscale is None:
        return finish(Status.ERROR, "cpsat: the users' values are not fractions that scale exactly to "
                                    "integers below 2^53 (see fairalloc.exact.leximin.integer_scale); "
                                    "use solver='highs'")
    step = delta if math.isfinite(delta) else 1.0
    level_rows = 0

    def ge_parts(gi: np.ndarray, c: int, lge: np.ndarray, xs: np.ndarray) -> tuple[list, list, dict, list]:
        """Rows "at least c users of gi at or above the level" (cols, rows, hint, values at xs)."""
        if c == gi.size:
            return [], [(dict(tot[i]), int(max(lge[i], val.lower[i])), None, f"{label}ge{level_rows}_{i}")
                        for i in gi], {}, []
        cols_, rows_, hint_, ys_ = indicator_rows("ge", gi, lge, xs)
        rows_.append((ys_, c, None, f"{label}gecount{level_rows}"))
        return cols_, rows_, hint_, list(hint_.values())

    def indicator_rows(tag: str, users: np.ndarray, thr: np.ndarray, xs: np.ndarray) -> tuple[list, list, dict, dict]:
        """A binary y per user with X_i >= thr_i y (cols, rows, hint from xs, the y's as count terms)."""
        cols_, rows_, hint_, ys_ = [], [], {}, {}
        for i in users:
            y = f"{label}{tag}y{level_rows}_{i}"
            cols_.append((y, 0, 1, True))
            hint_[y] = 1.0 if xs[i] >= thr[i] else 0.0
            terms = dict(tot[i])
            terms[y] = -float(thr[i])
            rows_.append((terms, 0, None, f"{label}{tag}{level_rows}_{i}"))
            ys_[y] = 1.0
        return cols_, rows_, hint_, ys_

    def candidates(gi: np.ndarray, lgt: np.ndarray, xs: np.ndarray, extra_cols: list, extra_rows: list) -> np.ndarray:
        """Users of gi that could exceed the level (L'_i <= U_i), U_i tightened by LP bounds first."""
        can = gi[lgt[gi] <= ub[gi]]
        rest = can[xs[can] < lgt[can]]
        if use_flow and rest.size:
            # max-flow necessary condition (module docstring, "Max-flow bounds"): user i above the level
            # while every user keeps the tasks the rows fixed for whole groups give it
            for i in rest:
                req = lo_fix.copy()
                req[i] = max(req[i], lgt[i])
                if not flow_ok(req):
                    ub[i] = min(ub[i], lgt[i] - 1)
                    flows["users_dropped"] += 1
            can = gi[lgt[gi] <= ub[gi]]
            rest = can[xs[can] < lgt[can]]
        if lp_bounds and rest.size:
            # LP relaxation maxima of X_i under every row fixed so far (docstring, "Skipping MILPs"):
            # a user whose maximum stays below L'_i cannot exceed the level in any later MILP
            left = remaining()
            if left is None or left > 0:
                tl = time.perf_counter()
                bnd = lp_max_totals(base.extended(cols=perm_cols + extra_cols, rows=perm_rows + extra_rows),
                                    [tot[i] for i in rest], time_limit=left, threads=threads)
                lp["solves"] += int(rest.size)
                lp["s"] += time.perf_counter() - tl
                ub[rest] = np.minimum(ub[rest], bnd)
                lp["users_dropped"] += int(np.sum(lgt[rest] > ub[rest]))
                can = gi[lgt[gi] <= ub[gi]]
        return can

    def count_milp(kind: str, can: np.ndarray, lgt: np.ndarray, xs: np.ndarray, extra_cols: list,
                   extra_rows: list, extra_hint: dict) -> Any:
        """Maximise the number of users of ``can`` strictly above the level (binaries y', X_i >= L'_i y')."""
        cols_, rows_, hint_, ys_ = indicator_rows("gt", can, lgt, xs)
        return run(kind, [*extra_cols, *cols_], [*extra_rows, *rows_], ys_, 0.5, {**extra_hint, **hint_})

    while c > 0:
        gi = group
        counted = None            # (candidates, how many of them can exceed the level together)
        if objective == "leximin" and state["totals"] is not None and (
                _LEVEL_BY_COUNT == "always" or (_LEVEL_BY_COUNT == "ties" and c < gi.size)):
            # ---- level by counting (module docstring): count MILPs at the incumbent's level -------
            counting["levels"] += 1
            xs = state["totals"]
            while True:
                level = float(np.sort(val.slope[gi] * xs[gi] + val.offset[gi])[::-1][c - 1])
                lge, lgt = thr_ge(level), thr_gt(level)
                ge_cols, ge_rows, ge_hint, _ = ge_parts(gi, c, lge, xs)
                can = candidates(gi, lgt, xs, ge_cols, ge_rows)
                if np.all(xs[can] >= lgt[can]):
                    # every user that could exceed the level does at xs: there are fewer than c of
                    # them (xs has at most c - 1 users above its c-th largest value), so the level is
                    # proven and the count (|can|) attained without a MILP
                    skipped += 1
                    counted = (can, int(can.size))
                    break
                out = count_milp("level-count", can, lgt, xs, ge_cols, ge_rows, ge_hint)
                if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                    return _stopped(finish, out, leximin, "count")
                if out.status is Status.FEASIBLE:
                    return finish(Status.FEASIBLE, _partial(out, leximin) + f" (next level at least "
                                  f"{level / scale:.10g}, not proven)")
                xs = state["totals"]
                k_new = int(round(out.objective))
                if k_new < c:          # no c users can exceed the level together: it is the level
                    counted = (can, k_new)
                    break
                counting["rises"] += 1  # c users above it: xs is a better incumbent, count again
        else:
            # ---- level MILP: the plain max-min over the group (binaries when ties are undetermined) ----
            zname = f"{label}lexz{level_rows}"
            # CP-SAT, and HiGHS on the first level (_INTEGER_FIRST_LEVEL): Z = S * level, an integer
            # (integer_scale's proof)
            lscale = iscale if iscale is not None else (fscale if not rounds else None)
            if lscale is not None:
                sa, sb = np.rint(valuation.slope * lscale), np.rint(valuation.offset * lscale)
                zcol = (zname, math.floor(vmin / scale * lscale) - 1, math.ceil(vmax / scale * lscale) + 1, True)
                proven = 0.5
            else:
                sa, sb = val.slope, val.offset
                zcol = (zname, None, vmax, False)
                proven = step / 2
            cols, rows, hint = [zcol], [], {}
            cur = state["totals"]
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
                    rows.append((terms, -float(sb[i]), None, f"{label}lv{level_rows}_{i}"))
            else:
                tie_levels += 1
                zmax = zcol[2]
                ys = {}
                for i in gi:
                    y = f"{label}lvy{level_rows}_{i}"
                    cols.append((y, 0, 1, True))
                    hint[y] = 1.0 if i in top else 0.0
                    big = float(zmax - (sa[i] * val.lower[i] + sb[i]))
                    terms = {k: float(sa[i]) * cf for k, cf in tot[i].items()}
                    terms[zname] = -1.0
                    terms[y] = -big
                    rows.append((terms, -float(sb[i]) - big, None, f"{label}lv{level_rows}_{i}"))
                    ys[y] = 1.0
                rows.append((ys, c, None, f"{label}lvcount{level_rows}"))
            cost = {zname: 1.0}
            if use_flow and cur is not None and c == gi.size and rounds and not flow_ok(np.where(
                    np.isin(np.arange(n), gi), np.maximum(lo_fix, thr_gt(float(np.sort(
                        val.slope[gi] * cur[gi] + val.offset[gi])[0]))), lo_fix)):
                # no allocation has every user of the group above the incumbent's level (max-flow):
                # the level MILP would return the incumbent's level (module docstring, "Max-flow bounds")
                flows["levels_skipped"] += 1
                xs = cur
            elif lp_bounds and cur is not None and _level_proven(
                    lambda: base.extended(cols=perm_cols + cols, rows=perm_rows + rows, cost={zname: 1.0}),
                    val, gi, c, cur, ub, thr_gt(float(np.sort(val.slope[gi] * cur[gi] + val.offset[gi])[::-1][c - 1])),
                    tau, lp, remaining(), threads, 1.0 if lscale is None else scale / lscale):
                # the incumbent (the last solution, which satisfies every row so far) attains an upper
                # bound on the level: the level MILP would return this level (docstring, "Skipping MILPs")
                lp["levels_skipped"] += 1
                xs = cur
            else:
                if (_SECONDARY == "always" or (_SECONDARY == "after-first" and rounds)) and objective == "leximin" \
                        and lscale is None:
                    # the secondary term (module docstring): prefer users above the level among max-min optima
                    span = float(np.sum(val.slope[gi] * (val.upper[gi] - val.lower[gi])))
                    if span > 0:
                        eps = step / (4 * span)
                        for i in gi:
                            for k, cf in tot[i].items():
                                cost[k] = cost.get(k, 0.0) + float(eps * val.slope[i]) * cf
                        proven = step / 4
                out = run("level", cols, rows, cost, proven, hint)
                if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                    return _stopped(finish, out, leximin, "level")
                if out.status is Status.FEASIBLE:
                    b = out.stats.get("bound")
                    bb = None if b is None else (b / lscale if lscale is not None else b / scale)
                    return finish(Status.FEASIBLE, _partial(out, leximin), bb)
                xs = state["totals"]
            vg = val.slope[gi] * xs[gi] + val.offset[gi]
            level = float(np.sort(vg)[::-1][c - 1])                  # c-th largest over the group
            if objective == "maxmin":          # only the first level; its multiplicity is not computed
                b = out.stats.get("bound")
                bb = None if b is None else (b / lscale if lscale is not None else b / scale)
                return finish(Status.OPTIMAL, f"max-min level proven optimal by {backend.name}", bb)
            lge, lgt = thr_ge(level), thr_gt(level)
        # permanent: at least c users of the group at or above the level
        ge_cols, ge_rows, _, ge_vals = ge_parts(gi, c, lge, xs)
        perm_cols += ge_cols
        perm_rows += ge_rows
        if c == gi.size:
            lo_fix[gi] = np.maximum(lo_fix[gi], lge[gi])
        if ge_cols:
            _extend_state(state, ge_vals)
        # ---- count MILP: how many of the group can rise above the level together ---------------
        if counted is not None:
            can, c_new = counted
        else:
            can = candidates(gi, lgt, xs, [], [])
            if can.size and np.all(xs[can] >= lgt[can]):
                # the level solution already has every user that could exceed the level above it: the
                # count MILP's optimum (at most |can|) is attained, so it is skipped (exact)
                skipped += 1
                c_new = int(can.size)
            elif can.size:
                out = count_milp("count", can, lgt, xs, [], [], {})
                if out is None or out.status not in (Status.OPTIMAL, Status.FEASIBLE):
                    return _stopped(finish, out, leximin, "count")
                if out.status is Status.FEASIBLE:
                    return finish(Status.FEASIBLE, _partial(out, leximin) + f" (next level {level / scale:.10g} "
                                  f"proven, its multiplicity not)")
                xs = state["totals"]
                c_new = int(round(out.objective))
        if can.size == 0:
            leximin.append((level / scale, c))
            c = 0
            break
        leximin.append((level / scale, c - c_new))
        if c_new > 0:
            if c_new == len(can):
                for i in can:
                    perm_rows.append((dict(tot[i]), int(lgt[i]), None, f"{label}gtfix{level_rows}_{i}"))
                lo_fix[can] = np.maximum(lo_fix[can], lgt[can])
            else:
                ys = {}
                for i in can:
                    y = f"{label}gtk{level_rows}_{i}"
                    perm_cols.append((y, 0, 1, True))
                    terms = dict(tot[i])
                    terms[y] = -float(lgt[i])
                    perm_rows.append((terms, 0, None, f"{label}gtk{level_rows}_{i}"))
                    ys[y] = 1.0
                perm_rows.append((ys, c_new, None, f"{label}gtcount{level_rows}"))
                _extend_state(state, [1.0 if xs[i] >= lgt[i] else 0.0 for i in can])
        logger.debug("%slevel %.6g: %d at level, %d above", label, level / scale, c - c_new, c_new)
        group = can
        c = c_new
        level_rows += 1
    return finish(Status.OPTIMAL, f"leximin proven optimal by {backend.name} "
                                  f"({len(rounds)} MILPs, {len(leximin)} distinct levels)")


def _level_proven(build: Any, val: Valuation, gi: np.ndarray, c: int, cur: np.ndarray, ub: np.ndarray,
                  lgt_inc: np.ndarray, tau: float, lp: dict, left: float | None, threads: int | None,
                  z_to_value: float) -> bool:
    r"""True when the incumbent ``cur`` provably attains the next level (docstring, "Skipping MILPs").

    The level is the c-th largest value over ``gi``; ``cur`` attains :math:`\ell_{inc}`. Any higher level
    is at least :math:`\nu`, the smallest achievable value above :math:`\ell_{inc}` of a user of ``gi``
    that can still reach it (:math:`L'_i(\ell_{inc}) \le U_i`). Proven when no user can, when the
    c-th largest of the users' upper values is below :math:`\nu`, or when the LP relaxation of the
    level program (``build()``, objective *z*; ``z_to_value`` converts *z* to scaled values) is.
    """
    cand = gi[lgt_inc[gi] <= ub[gi]]
    if cand.size == 0:
        return True
    nu = float(np.min(val.slope[cand] * lgt_inc[cand] + val.offset[cand]))
    top = np.sort(val.slope[gi] * ub[gi] + val.offset[gi])[::-1][c - 1]
    if top < nu - tau:
        return True
    if left is not None and left <= 0:
        return False
    t0 = time.perf_counter()
    z = lp_max(build(), time_limit=left, threads=threads)
    lp["solves"] += 1
    lp["s"] += time.perf_counter() - t0
    return z is not None and z * z_to_value < nu - tau


def _extend_state(state: dict, values: list[float]) -> None:
    """Append the values of new permanent binaries to the kept solution (its warm start)."""
    if state["x"] is not None:
        state["x"] = np.concatenate([state["x"], np.asarray(values, dtype=float)])


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

