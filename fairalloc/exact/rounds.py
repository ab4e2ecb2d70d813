r"""The MILP rounds of a leximin sequence: one program, one backend, one clock, one record.

Both leximin drivers (:mod:`fairalloc.exact.levels`, today's level and count loop, and
:mod:`fairalloc.exact.positions`, the value-aware position driver) ask a backend a sequence of
questions about the same feasible set. :class:`Rounds` holds what they share:

* the **base program** (a :class:`~fairalloc.exact.program.LinearProgram`, read once from the
  formulation's PuLP model and never changed) and the users' totals :math:`X_i` as
  ``{column: coefficient}``; every round is the base plus that round's own rows and columns
  (:meth:`~fairalloc.exact.program.LinearProgram.extended`): nothing is deleted from a model;
* the **clock**: ``time_limit`` is the budget of the whole sequence, counted from ``started``
  (the public call), so that building models is part of it; a round gets what is left (or less, a
  driver's time slice) once its model is built, and no round starts after the deadline;
* the **backend call** (:func:`fairalloc.exact.backends.solve_program`, OPTIMAL only when the
  backend proved it) and the **record**: one entry per round in ``stats["rounds"]`` (kind, status,
  objective, bound, gap, seconds, the backend's raw status);
* the **kept solution**: the last solution of a round whose rows every later round keeps (it
  satisfies them, so it is the next rounds' MIP start and the allocation returned if time runs out).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..result import Status
from .backends import solve_program
from .program import LinearProgram
from .solvers import Backend, SolveOutcome

logger = logging.getLogger(__name__)

__all__ = ["Rounds"]


class Rounds:
    """The shared state of one leximin sequence (module docstring).

    Parameters
    ----------
    base : LinearProgram
        The feasible allocations.
    totals : list of dict
        :math:`X_i` as ``{column index: coefficient}`` over ``base``'s columns.
    backend : Backend
        A MILP backend.
    started : float
        ``time.perf_counter()`` when the public call started.
    time_limit : float or None
        Seconds for the whole sequence, counted from ``started``.
    threads, msg, options
        Passed to every backend call.
    mip_gap : float or None
        A user's relative gap (> 0 makes every round stop early: results are FEASIBLE).
    warm_start : bool
        Start rounds from the kept solution.
    export_dir : path or None
        Write every round there as ``{label}round{k:02d}-{kind}.lp``.
    label : str
        Prefix of exported files and log lines.

    Attributes
    ----------
    rounds : list of dict
        One record per backend call, in order (``stats["rounds"]``).
    x : ndarray or None
        The kept solution (base columns first; a driver may keep more columns after them).
    totals : ndarray of int or None
        :math:`X_i` of the kept solution.
    """

    def __init__(self, base: LinearProgram, totals: list[dict[int, float]], *, backend: Backend, started: float,
                 time_limit: float | None, threads: int | None, msg: bool, options: Mapping[str, Any] | None,
                 mip_gap: float | None, warm_start: bool, export_dir: Any, label: str) -> None:
        self.base = base
        self.tot = totals
        self.backend = backend
        self.t0 = float(started)
        self.deadline = None if time_limit is None else self.t0 + float(time_limit)
        self.kw = dict(threads=threads, msg=msg, options=options)
        self.user_gap = mip_gap if mip_gap is not None and mip_gap > 0 else None
        self.warm_start = bool(warm_start)
        self.export = Path(export_dir) if export_dir is not None else None
        if self.export is not None:
            self.export.mkdir(parents=True, exist_ok=True)
        self.label = label
        self.rounds: list[dict[str, Any]] = []
        self.cpu_s = 0.0                       # this process's CPU seconds in backend calls
        self.wall_s = 0.0                      # wall seconds of those calls
        self.x: np.ndarray | None = None
        self.totals: np.ndarray | None = None

    # ---- the clock ---------------------------------------------------------------------------
    def remaining(self) -> float | None:
        """Seconds left of the sequence's budget (None without a limit)."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def out_of_time(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def wall_for(self, cpu_seconds: float | None) -> float | None:
        """Wall seconds expected to give the backend ``cpu_seconds`` of this process's CPU: divided by
        the CPU / wall ratio of the calls so far (1 before a second of them; kept in [0.1, 4]). A
        driver's time slice so means work done, whatever else the machine runs."""
        if cpu_seconds is None:
            return None
        ratio = self.cpu_s / self.wall_s if self.wall_s >= 1.0 else 1.0
        return cpu_seconds / min(max(ratio, 0.1), 4.0)

    # ---- the kept solution -------------------------------------------------------------------
    def totals_of(self, x: np.ndarray) -> np.ndarray:
        """:math:`X_i` of a solution (rounded to the integers they are)."""
        return np.array([int(round(sum(cf * x[j] for j, cf in t.items()))) for t in self.tot], dtype=np.int64)

    def keep(self, x: np.ndarray, n_cols: int | None = None) -> None:
        """Keep ``x[:n_cols]`` (default: the base columns) as the sequence's solution."""
        self.x = np.array(x[:self.base.n_cols if n_cols is None else n_cols], dtype=float)
        self.totals = self.totals_of(self.x)

    def start(self, prog: LinearProgram, extra: Mapping[str, float] | None = None,
              x: np.ndarray | None = None) -> np.ndarray | None:
        """A MIP start for ``prog``: ``x`` (default: the kept solution) then ``extra`` {column name: value};
        None when warm starts are off or there is nothing to start from."""
        x = self.x if x is None else x
        if not self.warm_start or x is None:
            return None
        x0 = np.zeros(prog.n_cols)
        x0[:x.size] = x
        for name, v in (extra or {}).items():
            x0[prog.index[name]] = v
        return x0

    # ---- one round ---------------------------------------------------------------------------
    def solve(self, kind: str, prog: LinearProgram, *, proven: float | None, start: np.ndarray | None = None,
              time_slice: float | None = None, backend: Backend | None = None
              ) -> tuple[SolveOutcome | None, np.ndarray | None]:
        """Solve one round; record it. None (no outcome) when the budget was spent before it could start.

        ``proven`` is the absolute gap that proves optimality (the backend stops there and the
        outcome is OPTIMAL only within it; None: the backend's relative :data:`PROVEN_GAP`);
        ``time_slice`` caps this round's seconds below what is left of the budget; ``backend`` (default:
        the sequence's) answers this round only.
        """
        k = len(self.rounds)
        if self.out_of_time():
            return None, None
        if self.export is not None:
            _write_lp(prog, self.export / f"{self.label}round{k:02d}-{kind}.lp")
        left = self.remaining()                       # the model build counts against the budget
        if left is not None and left <= 0:
            return None, None
        limit = left if time_slice is None else (time_slice if left is None else min(left, time_slice))
        gap = None if proven is None else proven * 0.999
        c0 = time.process_time()
        w0 = time.perf_counter()
        out, x = solve_program(prog, self.backend if backend is None else backend, time_limit=limit,
                               mip_gap=self.user_gap or 0.0, abs_gap=None if self.user_gap else gap, proven_gap=proven, start=start, **self.kw)
        self.cpu_s += time.process_time() - c0
        self.wall_s += time.perf_counter() - w0
        rec = {"round": k, "kind": kind, "status": out.status.value, "objective": out.objective,
               "bound": out.stats.get("bound"), "mip_gap": out.stats.get("mip_gap"),
               "runtime_s": out.stats.get("runtime_s"), "cpu_s": time.process_time() - c0,
               "raw_status": out.stats.get("raw_status")}
        if time_slice is not None:
            rec["time_slice"] = time_slice
        if backend is not None:
            rec["backend"] = backend.name
        if out.stats.get("retried"):
            rec["retried"] = out.stats["retried"]
        self.rounds.append(rec)
        logger.info("%sround %d (%s): %s obj=%s in %.3fs", self.label, k, kind, out.status.value, out.objective,
                    out.stats.get("runtime_s", 0.0))
        if out.status not in (Status.OPTIMAL, Status.FEASIBLE):
            x = None
        return out, x

    def record(self, kind: str, status: Status, **more: Any) -> None:
        """Record a round answered without a MILP backend (e.g. another oracle), in the same list."""
        self.rounds.append({"round": len(self.rounds), "kind": kind, "status": status.value, **more})

    def outcome(self, status: Status, message: str, valuation: Any, movable: np.ndarray, leximin: list,
                bound: float | None, stats: dict[str, Any]) -> Any:
        """The sequence's :class:`~fairalloc.exact.leximin.LeximinOutcome`: the kept solution, its
        max-min value over the movable users, ``stats`` with this record's figures added (and, when
        not proven, the gap and index of the round that stopped)."""
        from .leximin import LeximinOutcome

        stats = {**self.base_stats(), **stats}
        last = self.rounds[-1] if self.rounds else {}
        if status is not Status.OPTIMAL and last:
            stats["mip_gap"] = last.get("mip_gap")
            stats["stopped_round"] = last.get("round")
        obj = None
        if self.totals is not None:
            v = valuation.value(self.totals)
            obj = float(v[movable].min()) if movable.any() else float(v.min())
        return LeximinOutcome(status, message, self.solution(), self.totals, leximin, obj, bound, stats)

    def base_stats(self) -> dict[str, Any]:
        return {"n_solves": len(self.rounds), "rounds": self.rounds, "warm_start": self.warm_start,
                "runtime_s": time.perf_counter() - self.t0}

    def solution(self) -> dict[str, float] | None:
        """{column name: value} of the kept solution over the base columns (None without one)."""
        if self.x is None:
            return None
        return {nm: float(v) for nm, v in zip(self.base.names, self.x[:self.base.n_cols])}


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
