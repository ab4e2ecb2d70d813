r"""Exact leximin (and max-min) over integer task totals: one entry point, two drivers.

The engine behind :func:`fairalloc.exact.tasks_leximin` and :func:`fairalloc.exact.tvtsf_milp`. A
formulation hands over a PuLP model (feasible allocations), one integer expression :math:`X_i` per
user (its total tasks) and a :class:`Valuation`: user *i*'s value is affine in its tasks,
:math:`v_i = a_i X_i + b_i` with :math:`a_i > 0` (dominant share, SDRF level, task share, cumulative
task share, CDRF key: all are affine, with coefficients taken from :mod:`fairalloc.shares`).
:func:`solve_leximin` maximises the users' sorted value vector lexicographically (or only its
minimum) and returns one :class:`LeximinOutcome`.

Drivers (``driver=``)
---------------------
``"positions"`` (the default)
    :mod:`fairalloc.exact.positions`: fixes one leximin *position* per solve, with exact deductions
    between solves (users fixed without a solver call), a search over the finitely many
    achievable values when a solve's time slice ends unproven (refutations from the top, then a
    bisection), and today's count MILP as the fallback
    for a stalled tie question. It needs values that scale exactly to integers
    (:func:`integer_scale`: TSF, TV-TSF, DRF, SDRF and CDRF values of rational instances do); when
    they do not, the level driver runs instead and ``stats["driver"]`` says so.
``"levels"``
    :mod:`fairalloc.exact.levels`: today's level MILPs and count MILPs, with its LP-relaxation and
    max-flow bounds; kept selectable so that one run can compare the two.

Both return the same leximin vector (the leximin optimum is unique as a sorted vector): tested
against brute-force enumeration, against each other on ``fairalloc compare``'s programs and on
dense instances with forced ties (``tests/unit/exact/test_positions.py``).

Options
-------
Every switch of the drivers is a keyword of :func:`solve_leximin`, with its default in
:data:`LEXIMIN_OPTIONS`; the formulations take them as ``leximin_options={...}``
(:func:`check_leximin_options` checks the keys and values):

======================= =============== ===================================================================
option                  default         meaning
======================= =============== ===================================================================
``driver``              ``"positions"`` ``"positions"`` or ``"levels"`` (above)
``time_slice``          2.0             positions: CPU seconds a position MILP runs before the value search
                                        starts (doubled after each stalled query); None: no slice
``strengthen``          True            positions: feasibility queries on the formulation's strengthened
                                        copy (extra valid rows), when it provides one
``count_fallback``      True            positions: a stalled tie query is settled by a count MILP
``after_stall``         ``"double"``    positions: after a stalled query the position MILP runs with twice
                                        the slice (``"double"``) or without a slice (``"unsliced"``)
``first_slice``         None            positions: CPU seconds of the first position (the max-min
                                        program) before its value search; None: no slice, no search
``query_solver``        None            positions: a second MILP backend (``"cpsat"``, ``"highs"``,
                                        ``"cbc"``) asked a feasibility query the first one left open
``refute_solver``       ``"auto"``      positions: the backend that tries, top down, to refute the highest
                                        values left in a value search before its bisection (``"auto"``:
                                        CP-SAT when OR-Tools is installed, else the sequence's backend;
                                        None: no refutation)
``refute_slice``        2.0             positions: CPU seconds of each refutation attempt
``split_matchings``     2               positions: a position whose MILP stalls in its slice, with at
                                        most this many *live* matchings of its open values, is solved as
                                        one program per matching instead of by the value search
                                        (:mod:`fairalloc.exact.positions`, "By matching"); 0: off
``threshold_solver``    None            positions: ``"patterns"``: a refutation or feasibility query that
                                        is a *threshold question* (bounds on every user's total; or,
                                        with open values, one such question per matching, at most
                                        ``max_matchings`` = 8 of them) is first asked of the formulation's
                                        threshold backend (TV-TSF with demands constant in time:
                                        :func:`fairalloc.exact.patterns.threshold_schedule`), in the
                                        question's slice; undecided, the MILP backends are asked as before
``free_disposal``       False           positions: when the formulation has free disposal (``disposable``),
                                        ask fixed and matched users for *at least* their counts (True) or
                                        for their exact counts (False: measured faster on the dense
                                        10 x 10 x 20 TV-TSF instances, ``benchmarks/RESULTS.md``)
``lp_bounds``           True            both: LP-relaxation bounds skip MILPs (positions: the position
                                        program's relaxation, its big-M's from its own bound)
``flow_bounds``         True            levels: the max-flow check skips MILPs (with ``lp_bounds``)
``level_by_count``      ``"ties"``      levels: which levels are found by count MILPs
                                        (``"ties"``, ``"always"``, ``"never"``)
``secondary``           ``"after-first"`` levels: which level MILPs carry the secondary objective term
                                        (``"after-first"``, ``"always"``, ``"never"``)
``integer_first_level`` False           levels: the first level MILP with an integer level (HiGHS, CBC)
======================= =============== ===================================================================

Statuses are honest: OPTIMAL only when every question of the sequence was proven (by the backend,
or by an exact deduction or bound whose proof is in the driver's docstring); a time limit leaves a
FEASIBLE allocation that satisfies every proven entry, with ``stats["levels_proven"]``.

References
----------
.. [1] W. Ogryczak, T. Śliwiński, "On direct methods for lexicographic min-max optimization", ICCSA 2006
   (sequential max-min with level fixing; counting formulations).
.. [2] D. Kurokawa, A. Procaccia, N. Shah, "Leximin allocations in the real world", ACM TEAC 2018.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import FairallocWarning, InvalidInstanceError
from ..result import Status
from .program import LinearProgram, from_pulp, terms_of
from .solvers import Backend

__all__ = ["Valuation", "LeximinOutcome", "solve_leximin", "value_resolution", "integer_scale",
           "WARM_START_DEFAULT", "LEXIMIN_OPTIONS", "check_leximin_options"]

#: MIP starts between the MILPs of a sequence, per backend (``warm_start=None``), chosen by
#: measurement (``benchmarks/bench_milp.py --warm``; figures in ``benchmarks/RESULTS.md``): on for
#: HiGHS and CP-SAT, off for CBC (it slowed CBC down). The first solve never gets a start (there is
#: no previous solution; starting it from the empty allocation made the first level ten times slower).
WARM_START_DEFAULT = {"highs": True, "cpsat": True, "cbc": False}

#: The driver options of :func:`solve_leximin` and their defaults (module docstring, "Options").
LEXIMIN_OPTIONS: dict[str, Any] = {
    "driver": "positions",
    "time_slice": 2.0,
    "strengthen": True,
    "count_fallback": True,
    "after_stall": "double",
    "first_slice": None,
    "query_solver": None,
    "refute_solver": "auto",
    "refute_slice": 2.0,
    "split_matchings": 2,
    "threshold_solver": None,
    "free_disposal": False,
    "lp_bounds": True,
    "flow_bounds": True,
    "level_by_count": "ties",
    "secondary": "after-first",
    "integer_first_level": False,
}

_CHOICES = {"driver": ("positions", "levels"), "after_stall": ("unsliced", "double"),
            "query_solver": (None, "highs", "cpsat", "cbc"),
            "refute_solver": (None, "auto", "highs", "cpsat", "cbc"), "level_by_count": ("ties", "always", "never"),
            "threshold_solver": (None, "patterns"),
            "secondary": ("after-first", "always", "never")}
_BOOLS = ("strengthen", "count_fallback", "free_disposal", "lp_bounds", "flow_bounds", "integer_first_level")


def check_leximin_options(options: Mapping[str, Any] | None, argument: str = "leximin_options") -> dict[str, Any]:
    """The driver options with ``options`` applied over :data:`LEXIMIN_OPTIONS`, checked.

    Parameters
    ----------
    options : mapping or None
        Some of :data:`LEXIMIN_OPTIONS`' keys.
    argument : str, optional
        The argument's name in error messages.

    Returns
    -------
    dict
        Every option, defaults filled in.

    Raises
    ------
    InvalidInstanceError
        An unknown key, or a value of the wrong kind, named as ``argument[key]``.

    Examples
    --------
    >>> check_leximin_options({"driver": "levels"})["driver"], check_leximin_options(None)["time_slice"]
    ('levels', 2.0)
    >>> try:
    ...     check_leximin_options({"drivr": "levels"})
    ... except Exception as e:
    ...     print(str(e).split(";")[0])
    leximin_options['drivr'] is not an option
    """
    out = dict(LEXIMIN_OPTIONS)
    if options is None:
        return out
    if not isinstance(options, Mapping):
        raise InvalidInstanceError(f"{argument}={options!r} must be a mapping of option names to values",
                                   argument=argument, value=options)
    for key, value in options.items():
        name = f"{argument}[{key!r}]"
        if key not in LEXIMIN_OPTIONS:
            raise InvalidInstanceError(f"{name} is not an option; the options are: {', '.join(LEXIMIN_OPTIONS)}",
                                       argument=argument, value=key)
        if key in _CHOICES and value not in _CHOICES[key]:
            raise InvalidInstanceError(f"{name}={value!r} must be one of {', '.join(map(repr, _CHOICES[key]))}",
                                       argument=argument, value=value)
        if key in _BOOLS and not isinstance(value, (bool, np.bool_)):
            raise InvalidInstanceError(f"{name}={value!r} must be True or False", argument=argument, value=value)
        if key in ("time_slice", "first_slice", "refute_slice") and value is not None and not (
                isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0):
            raise InvalidInstanceError(f"{name}={value!r} must be a positive number of seconds or None",
                                       argument=argument, value=value)
        if key == "split_matchings" and not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                                             and value >= 0):
            raise InvalidInstanceError(f"{name}={value!r} must be a nonnegative integer (0: off)",
                                       argument=argument, value=value)
        out[key] = value
    return out

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



def solve_leximin(problem: Any, totals: Sequence[Any], valuation: Valuation, *, objective: str,
                  backend: Backend, time_limit: float | None = None, mip_gap: float | None = None,
                  threads: int | None = None, msg: bool = False, options: Mapping[str, Any] | None = None,
                  export_dir: Any = None, label: str = "", warm_start: bool | None = None,
                  started: float | None = None, flow: Callable | None = None, strong: Any = None,
                  disposable: bool = False, driver: str = "positions", time_slice: float | None = 2.0, strengthen: bool = True,
                  count_fallback: bool = True, after_stall: str = "double", first_slice: float | None = None,
                  query_solver: str | None = None, refute_solver: str | None = "auto",
                  refute_slice: float | None = 2.0, split_matchings: int = 2, free_disposal: bool = False,
                  lp_bounds: bool = True,
                  flow_bounds: bool = True, threshold_solver: str | None = None, threshold: Callable | None = None,
                  level_by_count: str = "ties", secondary: str = "after-first",
                  integer_first_level: bool = False) -> LeximinOutcome:
    """Maximise ``valuation`` over ``problem`` lexicographically (or just its minimum).

    Parameters
    ----------
    problem : pulp.LpProblem (sense maximise) or LinearProgram
        The feasible allocations. It is read once (:func:`fairalloc.exact.program.from_pulp`) and
        never changed: every MILP of the sequence is built anew from those arrays plus that round's
        rows and columns.
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
    label : str, optional
        Prefix of the rounds' column names, files and log lines.
    warm_start : bool or None
        Start every MILP from the previous solution. None (the default) means
        :data:`WARM_START_DEFAULT` of the backend.
    started : float, optional
        ``time.perf_counter()`` at the public call (the clock of ``time_limit``).
    flow : callable, optional
        ``flow(required) -> bool``, a necessary condition for an allocation with at least
        ``required[i]`` tasks of every user (False: proven impossible), e.g. a max-flow check
        (:func:`fairalloc.exact.placement.flow_check`, :func:`~fairalloc.exact.placement.tv_flow_check`);
        used by the level driver (``flow_bounds``).
    threshold : callable, optional
        ``threshold(lower, upper, cpu_limit) -> (answer, solution)``: whether an allocation gives every
        user lower[i] <= X_i <= upper[i] (True with ``{column name: value}``, False when proven
        impossible, None when undecided within ``cpu_limit`` CPU seconds); the position driver's
        threshold backend when ``threshold_solver`` names it (TV-TSF: ``"patterns"``).
    strong : pulp.LpProblem or LinearProgram, optional
        The same feasible set with extra valid rows (the same columns, by name): the position
        driver's feasibility queries run on it (``strengthen``).
    disposable : bool, optional
        The formulation has *free disposal*: lowering any user's task columns keeps an allocation
        feasible (every row holding them is a "<=" row with nonnegative coefficients, or a lower bound
        on the user's total). The position driver then asks for "at least" a fixed user's count and
        trims its solutions back (:mod:`fairalloc.exact.positions`, "Free disposal") when the option
        ``free_disposal`` is also True (it is False by default). Default False.
    driver, time_slice, strengthen, count_fallback, after_stall, first_slice, query_solver, refute_solver
        The driver options (module docstring, "Options"; defaults in :data:`LEXIMIN_OPTIONS`).
    refute_slice, free_disposal, lp_bounds, flow_bounds, level_by_count, secondary, integer_first_level
    threshold_solver, split_matchings
        The driver options (module docstring, "Options"; defaults in :data:`LEXIMIN_OPTIONS`).

    Returns
    -------
    LeximinOutcome

    Raises
    ------
    InvalidInstanceError
        A driver option of the wrong kind (:func:`check_leximin_options`).

    Examples
    --------
    Two users share 5 units, user 0 can take at most 1: the leximin optimum is (1, 4) (user 0 at its
    cap, user 1 takes the rest); ``objective="maxmin"`` proves only the minimum, 1, and may keep any
    allocation that reaches it, e.g. (1, 1), which is not Pareto-efficient. Both drivers agree:

    >>> import pulp
    >>> from fairalloc.exact.program import add_var
    >>> from fairalloc.exact.solvers import get_backend
    >>> p = pulp.LpProblem("two", pulp.LpMaximize)
    >>> x0 = add_var(p, "x0", 0, 1, integer=True); x1 = add_var(p, "x1", 0, 5, integer=True)
    >>> _ = p.addConstraint(x0 + x1 <= 5, "cap")
    >>> val = Valuation([1, 1], [0, 0], [0, 0], [1, 5])            # value = tasks
    >>> totals = [pulp.lpSum([x0]), pulp.lpSum([x1])]
    >>> highs = get_backend("highs", "milp")
    >>> out = solve_leximin(p, totals, val, objective="leximin", backend=highs)
    >>> out.status.value, out.totals.tolist(), out.leximin, out.stats["driver"]
    ('optimal', [1, 4], [(1.0, 1), (4.0, 1)], 'positions')
    >>> solve_leximin(p, totals, val, objective="leximin", backend=highs, driver="levels").leximin
    [(1.0, 1), (4.0, 1)]
    >>> solve_leximin(p, totals, val, objective="maxmin", backend=highs).objective
    1.0
    """
    opts = check_leximin_options(dict(driver=driver, time_slice=time_slice, strengthen=strengthen,
                                      count_fallback=count_fallback, after_stall=after_stall,
                                      first_slice=first_slice, query_solver=query_solver,
                                      refute_solver=refute_solver, refute_slice=refute_slice,
                                      split_matchings=split_matchings, free_disposal=free_disposal, lp_bounds=lp_bounds,
                                      flow_bounds=flow_bounds, threshold_solver=threshold_solver,
                                      level_by_count=level_by_count, secondary=secondary,
                                      integer_first_level=integer_first_level), "solve_leximin option")
    from .levels import LevelDriver
    from .positions import PositionDriver
    from .solvers import get_backend
    from .rounds import Rounds

    t0 = time.perf_counter() if started is None else float(started)
    if warm_start is None:
        warm_start = WARM_START_DEFAULT.get(backend.name, False)
    base, tot = _as_program(problem, totals)
    rounds = Rounds(base, tot, backend=backend, started=t0, time_limit=time_limit, threads=threads, msg=msg,
                    options=options, mip_gap=mip_gap, warm_start=warm_start, export_dir=export_dir, label=label)
    why = None
    scale = integer_scale(valuation) if opts["driver"] == "positions" else None
    if opts["driver"] == "positions" and scale is None:
        why = "the values do not scale exactly to integers (integer_scale), so the level driver ran"
    if opts["driver"] == "positions" and scale is not None:
        strong_prog = None
        if strong is not None and opts["strengthen"]:
            strong_prog = _same_columns(_as_program(strong, [])[0], base)
        out = PositionDriver(rounds, valuation, scale, objective=objective, time_slice=opts["time_slice"],
                             strong=strong_prog, count_fallback=opts["count_fallback"],
                             disposable=disposable and opts["free_disposal"], lp_bounds=opts["lp_bounds"],
                             after_stall=opts["after_stall"], first_slice=opts["first_slice"],
                             query_backend=None if opts["query_solver"] is None
                             else get_backend(opts["query_solver"], "milp"),
                             refute_backend=_refute_backend(opts["refute_solver"], backend),
                             refute_slice=opts["refute_slice"], split_matchings=opts["split_matchings"],
                             threshold=threshold if opts["threshold_solver"] is not None else None).run()
    else:
        out = LevelDriver(rounds, valuation, objective=objective, lp_bounds=opts["lp_bounds"],
                          flow_bounds=opts["flow_bounds"], flow=flow, level_by_count=opts["level_by_count"],
                          secondary=opts["secondary"], integer_first_level=opts["integer_first_level"]).run()
    out.stats["driver"] = "positions" if (opts["driver"] == "positions" and why is None) else "levels"
    if why is not None:
        out.stats["driver_note"] = why
    return out


def _refute_backend(name: str | None, backend: Backend) -> Backend | None:
    """The backend of the position driver's refutations: ``"auto"`` is CP-SAT when OR-Tools is
    installed (it refuted "every user >= 77/1240" on the dense 10 x 10 x 20 instance of seed 0 in about
    a second of CPU where HiGHS took tens: ``benchmarks/RESULTS.md``), else the sequence's backend."""
    from .solvers import available_solvers, get_backend

    if name is None:
        return None
    if name == "auto":
        name = "cpsat" if "cpsat" in available_solvers("milp") else backend.name
    return backend if name == backend.name else get_backend(name, "milp")


def _same_columns(strong: LinearProgram, base: LinearProgram) -> LinearProgram:
    """``strong``'s rows over ``base``'s columns, in ``base``'s order (every column of ``strong`` must be
    one of ``base``'s, by name; the bounds, integrality and objective are ``base``'s)."""
    import scipy.sparse as sp

    extra = [nm for nm in strong.names if nm not in base.index]
    if extra:
        raise ValueError(f"strong: columns that the problem does not have (e.g. {extra[:3]})")
    where = np.array([base.index[nm] for nm in strong.names], dtype=np.int64)
    A = strong.A.tocoo()
    A = sp.csr_matrix((A.data, (A.row, where[A.col])), shape=(strong.n_rows, base.n_cols))
    return LinearProgram(base.names, base.lb, base.ub, base.integer, A, strong.row_lo, strong.row_hi,
                         strong.row_names, base.cost, base.offset, base.maximize, base.index)
