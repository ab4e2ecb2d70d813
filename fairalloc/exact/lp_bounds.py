r"""LP-relaxation bounds for the leximin driver: cheap upper bounds that let it skip MILPs exactly.

The leximin driver (:mod:`fairalloc.exact.leximin`) asks two kinds of question whose answer a MILP
gives exactly, and a linear program (the same rows with integrality dropped) can sometimes settle:

* **Can user i still exceed the level?** :func:`lp_max_totals` maximises each user's task total
  :math:`X_i` over the LP relaxation of the program with every level fixed so far. Every integer
  solution is a point of the relaxation, so :math:`X_i \le \lfloor \bar X_i \rfloor` in every MILP of
  the rest of the sequence (rows are only ever added). One HiGHS model answers for all the users at
  once: only the objective changes between the solves, and each solve starts from the previous
  optimal basis (HiGHS's hot start after ``changeColsCost``), a handful of simplex iterations each.
* **Can the next level rise above the incumbent's?** :func:`lp_max` gives the LP relaxation's optimum
  of the level program, an upper bound on the level MILP's optimum.

Float safety: a bound is used only when HiGHS reports the LP "Optimal", and it is loosened by
``slack`` (:data:`LP_SLACK`, absolute, plus a relative ``1e-7``) before rounding down, far above HiGHS's
primal and dual feasibility tolerances (1e-7) times the magnitudes involved, so a computed optimum a
little below the true one cannot make a bound wrong. Anything else (time limit, numerical trouble)
gives "no bound", which only means that no MILP is skipped.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .program import LinearProgram

__all__ = ["lp_max_totals", "lp_max", "LP_SLACK"]

#: Absolute slack added to an LP optimum before it is used as a bound (module docstring).
LP_SLACK = 1e-4


def _relaxed_highs(prog: LinearProgram, time_limit: float | None, threads: int | None, *,
                   zero_cost: bool = False):
    import highspy

    from .backends import _highs_model
    from .solvers import highs_threads, quiet_highs

    cost, offset = (np.zeros(prog.n_cols), 0.0) if zero_cost else (prog.cost, prog.offset)
    relaxed = LinearProgram(prog.names, prog.lb, prog.ub, np.zeros(prog.n_cols, dtype=bool), prog.A,
                            prog.row_lo, prog.row_hi, prog.row_names, cost, offset, True, prog.index)
    h = quiet_highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(float(time_limit), 1e-3))
    highs_threads(h, threads)
    h.passModel(_highs_model(relaxed))
    return h, highspy


def _optimum(h, highspy) -> float | None:
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    v = float(h.getInfo().objective_function_value)
    return v if math.isfinite(v) else None


def lp_max(prog: LinearProgram, *, time_limit: float | None = None, threads: int | None = None) -> float | None:
    """Upper bound on ``prog``'s (maximised) optimum from its LP relaxation, slack included; None if unknown."""
    if not prog.maximize:
        raise ValueError("lp_max: prog must be a maximisation")
    if time_limit is not None and time_limit <= 0:
        return None
    h, hs = _relaxed_highs(prog, time_limit, threads)
    h.run()
    v = _optimum(h, hs)
    return None if v is None else v + LP_SLACK + 1e-7 * abs(v)


def lp_max_totals(prog: LinearProgram, totals: Sequence[dict[int, float]], *, time_limit: float | None = None,
                  threads: int | None = None) -> np.ndarray:
    r"""Integer upper bounds on each :math:`X_i = \sum_j t_{ij} x_j` over ``prog``'s LP relaxation.

    Returns an int64 array (one entry per element of ``totals``), :math:`\lfloor \bar X_i + s \rfloor`
    with :math:`\bar X_i` the LP maximum and *s* the slack; ``np.iinfo(np.int64).max`` where no bound
    was obtained (LP not solved to optimality within ``time_limit``, shared by all the solves).
    ``prog``'s own objective is ignored. Valid for integer-valued :math:`X_i` only.
    """
    import time

    t0 = time.perf_counter()
    out = np.full(len(totals), np.iinfo(np.int64).max, dtype=np.int64)
    if not totals:
        return out
    h, hs = _relaxed_highs(prog, time_limit, threads, zero_cost=True)
    current: list[int] = []
    for k, t in enumerate(totals):
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - t0)
            if left <= 0:
                break
            h.setOptionValue("time_limit", float(left))
        idx = sorted(set(current) | set(t))
        if idx:
            h.changeColsCost(len(idx), np.array(idx, dtype=np.int32),
                             np.array([float(t.get(j, 0.0)) for j in idx], dtype=float))
        current = list(t)
        h.run()
        v = _optimum(h, hs)
        if v is None:
            continue
        out[k] = math.floor(v + LP_SLACK + 1e-7 * abs(v))
    return out
