"""One result type for every mechanism, exact or heuristic.

:class:`AllocationResult` is a frozen dataclass. What is always there: ``status``, ``mechanism``,
``method``; what a mechanism fills depends on its setting (pooled allocations, integer tasks on
servers, time slots): fields that do not apply are ``None``. ``stats`` holds figures that depend on the
backend (``runtime_s``, ``rounds``, ``n_solves``, ``mip_gap``, ``bound``, ...), like scipy's extra keys.

Status vocabulary (cvxpy-like): a result is ``OPTIMAL`` only when the algorithm is exact by
construction (the water-filling sweep) or the backend *proved* optimality; ``FEASIBLE`` is a valid
allocation without that proof (a time or gap limit, an inaccurate solve, a greedy heuristic).
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Mapping

import numpy as np

from .errors import InfeasibleError, SolverError

__all__ = ["Status", "SOLUTION_PRESENT", "AllocationResult"]


class Status(str, enum.Enum):
    """Outcome of a solve (a ``str`` enum: ``Status.OPTIMAL == "optimal"``).

    A result is ``OPTIMAL`` only when the algorithm is exact by construction (the water-filling sweep)
    or the backend *proved* optimality; a valid allocation without that proof (time or gap limit,
    inaccurate solve, greedy heuristic) is ``FEASIBLE``. :data:`SOLUTION_PRESENT` holds the two
    statuses that carry an allocation.

    Attributes
    ----------
    OPTIMAL : str
        ``"optimal"``: exact by construction, or proven optimal by the backend.
    FEASIBLE : str
        ``"feasible"``: a valid allocation, optimality not proven.
    INFEASIBLE : str
        ``"infeasible"``: the backend proved no feasible solution exists.
    UNBOUNDED : str
        ``"unbounded"``.
    NOT_SOLVED : str
        ``"not_solved"``: stopped (time limit) before any feasible solution was found.
    ERROR : str
        ``"error"``: the backend failed; see the result's ``message``.

    Examples
    --------
    >>> Status("optimal") is Status.OPTIMAL, Status.FEASIBLE == "feasible", str(Status.NOT_SOLVED)
    (True, True, 'not_solved')
    >>> sorted(s.value for s in SOLUTION_PRESENT)
    ['feasible', 'optimal']
    """

    OPTIMAL = "optimal"          #: exact by construction, or proven optimal by the backend
    FEASIBLE = "feasible"        #: a valid allocation, optimality not proven (limit, heuristic, inaccurate)
    INFEASIBLE = "infeasible"    #: the backend proved no feasible solution exists
    UNBOUNDED = "unbounded"
    NOT_SOLVED = "not_solved"    #: stopped (time limit) before any feasible solution was found
    ERROR = "error"              #: the backend failed; see ``message``

    def __str__(self) -> str:
        return self.value


#: Statuses that carry a usable allocation.
SOLUTION_PRESENT = frozenset({Status.OPTIMAL, Status.FEASIBLE})


def _ro(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.setflags(write=False)
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        # through the list branch below, so that an infinity inside an array is written as "inf" like
        # a scalar one (json.dumps would write the non-standard token Infinity)
        return _jsonable(value.tolist())
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


#: Per-user vector field -> its column in :meth:`AllocationResult.to_frame` (singular nouns).
_FRAME_COLUMNS = {"dominant_shares": "dominant_share", "levels": "level", "utilities": "utility",
                  "shares": "share"}


@dataclass(frozen=True, eq=False)
class AllocationResult:
    """What a mechanism returns: a frozen record of status, allocation and figures.

    Every mechanism, exact or heuristic, returns one. Fields that do not apply to a setting are
    ``None``; array fields are read-only copies. Build one with the constructor (arrays are copied) or
    :meth:`from_arrays` (arrays adopted); mechanisms do this, users rarely need to.

    Parameters
    ----------
    status : Status or str
        The outcome (converted to :class:`Status`; an unknown string raises ``ValueError``).
    mechanism, method : str
        As the attributes below.
    allocation, level, levels, dominant_shares, utilities, tasks, shares, objective, solver, message, stats, details : optional
        As the attributes below (default ``None``, ``""`` or an empty mapping).

    Attributes
    ----------
    status : Status
    mechanism : str
        ``"drf"``, ``"sdrf"``, ``"max_min"``, ``"tsf"``, ``"tvtsf"``, ...
    method : str
        ``"waterfill"``, ``"lp"``, ``"milp"``, ``"greedy"``, ...
    allocation : ndarray (n_agents, n_resources) or None
        Resources each user receives, in capacity units (pooled total over servers, where servers apply).
    level : float or None
        The water level x of SDRF Eq. 4/5 (normalised units): the level of the first freezing round,
        i.e. Eq. 5's optimum, or, when no resource saturates, the level at which the last user was
        satisfied.
    levels : ndarray (n_agents,) or None
        Each user's own level, (dominant commitment + dominant share) / weight.
    dominant_shares : ndarray (n_agents,) or None
    utilities : ndarray (n_agents,) or None
        Leontief utilities (SDRF Eq. 1): fraction of each user's demand served; tasks for integer results.
    tasks : ndarray or None
        Tasks per user and server: (n_agents, n_servers) one-shot, (n_agents, n_servers, n_slots)
        starts over time. One dtype per method, as each front door's table says: int64 for the
        integer methods ("milp", "milp-online", "greedy"), float64 for divisible tasks
        (``fa.tsf(..., method="lp")``); None for pooled mechanisms.
    shares : ndarray or None
        The vector the mechanism equalises (dominant shares, levels, task shares, cumulative task shares).
    objective : float or None
        The optimised value (e.g. the max-min share) where a solver optimised one.
    solver : str or None
        Backend used (``"highs"``, ``"cbc"``, ``"clarabel"``) or None for closed-form algorithms.
    message : str
        Human-readable explanation of the status (backend message on errors).
    stats : Mapping
        Backend-dependent figures: ``runtime_s``, ``rounds``, ``n_solves``, ``mip_gap``, ``bound``, ...
    details : Mapping
        Further named arrays a mechanism provides (per-slot usage, cumulative shares, ...).
    success : bool
        True when the status is ``OPTIMAL`` or ``FEASIBLE``.

    See Also
    --------
    Status, fairalloc.errors.SolverError

    Examples
    --------
    DRF on the DRF paper's example (9 CPUs, 18 GB; tasks <1, 4> and <3, 1>, 100 tasks each so that
    nobody is satisfied): A gets 3 tasks' worth <3, 12> and B 2 tasks' worth <6, 2>, dominant shares
    2/3 each (Ghodsi et al. 2011, Section 4):

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> r = fa.drf(inst)
    >>> r.status, r.success
    (<Status.OPTIMAL: 'optimal'>, True)
    >>> r.allocation.round(9).tolist(), r.dominant_shares.round(4).tolist()
    ([[3.0, 12.0], [6.0, 2.0]], [0.6667, 0.6667])
    >>> r.allocation.flags.writeable
    False
    """

    status: Status
    mechanism: str
    method: str
    allocation: np.ndarray | None = None
    level: float | None = None
    levels: np.ndarray | None = None
    dominant_shares: np.ndarray | None = None
    utilities: np.ndarray | None = None
    tasks: np.ndarray | None = None
    shares: np.ndarray | None = None
    objective: float | None = None
    solver: str | None = None
    message: str = ""
    stats: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                object.__setattr__(self, f.name, _ro(v))
        object.__setattr__(self, "stats", dict(self.stats))
        object.__setattr__(self, "details", {k: _ro(v) for k, v in dict(self.details).items()})

    @classmethod
    def from_arrays(cls, **kw: Any) -> "AllocationResult":
        """Build a result from arrays the caller has just made and will not touch again.

        The same fields as the constructor, but arrays are *adopted*: marked read-only in place
        instead of copied (the constructor copies them, so a caller's later writes cannot change
        the result). For mechanisms returning large arrays; the caller hands them over.

        Raises
        ------
        TypeError
            A keyword that is not a field.

        Examples
        --------
        >>> import numpy as np
        >>> a = np.zeros((2, 1))
        >>> r = AllocationResult.from_arrays(status="optimal", mechanism="drf", method="waterfill", allocation=a)
        >>> r.allocation is a, a.flags.writeable
        (True, False)
        """
        obj = cls.__new__(cls)
        for f in fields(cls):
            v = kw.pop(f.name) if f.name in kw else (f.default_factory() if callable(f.default_factory)
                                                      else f.default)
            if isinstance(v, np.ndarray):
                v.setflags(write=False)
            object.__setattr__(obj, f.name, v)
        if kw:
            raise TypeError(f"unknown AllocationResult field(s): {sorted(kw)}")
        object.__setattr__(obj, "status", Status(obj.status))
        object.__setattr__(obj, "stats", dict(obj.stats))
        object.__setattr__(obj, "details", dict(obj.details))
        return obj

    @property
    def success(self) -> bool:
        """True when the result carries a usable allocation (status OPTIMAL or FEASIBLE)."""
        return self.status in SOLUTION_PRESENT

    def raise_for_status(self) -> "AllocationResult":
        """Return self if ``success``; otherwise raise :class:`InfeasibleError` or :class:`SolverError`."""
        if self.success:
            return self
        if self.status is Status.INFEASIBLE:
            raise InfeasibleError(f"{self.mechanism}/{self.method}: infeasible: {self.message}")
        raise SolverError(f"{self.mechanism}/{self.method}: {self.status.value}: {self.message}")

    def replace(self, **changes: Any) -> "AllocationResult":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (arrays as nested lists, infinities as strings)."""
        return {k: _jsonable(v) for k, v in asdict(self).items()}

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    def to_frame(self, agent_names=None, resource_names=None):
        """Per-user table (pandas), one row per user.

        Columns, where the result has them: ``alloc[<resource>]`` per resource, ``dominant_share``,
        ``level``, ``utility``, ``share`` and ``tasks`` (summed over servers and slots).
        """
        import pandas as pd

        cols: dict[str, Any] = {}
        n = None
        if self.allocation is not None:
            n, m = self.allocation.shape
            names = resource_names or [f"r{r}" for r in range(m)]
            for r, name in enumerate(names):
                cols[f"alloc[{name}]"] = self.allocation[:, r]
        for key, column in _FRAME_COLUMNS.items():
            v = getattr(self, key)
            if v is not None and v.ndim == 1:
                cols[column] = v
                n = len(v)
        if self.tasks is not None:
            t = self.tasks
            cols["tasks"] = t if t.ndim == 1 else t.reshape(t.shape[0], -1).sum(axis=1)
            n = t.shape[0]
        index = list(agent_names) if agent_names is not None else (list(range(n)) if n else None)
        return pd.DataFrame(cols, index=index)

    def __repr__(self) -> str:
        parts = [f"status={self.status.value!r}", f"success={self.success}"]
        if self.message:
            parts.append(f"message={self.message!r}")
        parts += [f"mechanism={self.mechanism!r}", f"method={self.method!r}"]
        if self.solver:
            parts.append(f"solver={self.solver!r}")
        if self.level is not None:
            parts.append(f"level={self.level:.6g}")
        if self.objective is not None:
            parts.append(f"objective={self.objective:.6g}")
        for key in ("allocation", "tasks", "dominant_shares"):
            v = getattr(self, key)
            if v is not None:
                parts.append(f"{key}=<array {v.shape}>")
        return "AllocationResult(" + ", ".join(parts) + ")"
