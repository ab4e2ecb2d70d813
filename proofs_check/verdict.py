"""The answer of every checker: :class:`Verdict`, and the JSON conversion of witnesses.

A verdict says whether an axiom holds on one input (``holds``), which variant was tested
(``variant``), a one-line human explanation (``detail``) and, when the axiom fails, a *witness*: a
plain JSON-serialisable dictionary with everything needed to re-check the violation without this
package's state (the instance, the allocation or the lie, the users involved and the numbers
compared). ``holds`` is ``None`` when the checker could not decide (a solver failed or hit a limit);
``status`` then says why in fairalloc's one status vocabulary (:class:`fairalloc.Status`).
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from fairalloc import Status

__all__ = ["Verdict", "Replay", "jsonable"]


def jsonable(value: Any) -> Any:
    """Plain-Python, JSON-ready copy of ``value``.

    Arrays become nested lists, NumPy scalars Python scalars, ``Fraction`` a ``"p/q"`` string (exact),
    infinities the strings ``"inf"``/``"-inf"``, objects with ``to_dict()`` their dictionary.

    Parameters
    ----------
    value : Any
        A scalar, array, ``Fraction``, enum, mapping, sequence or object with ``to_dict()``; nested
        values are converted recursively. NaN becomes None; anything else is returned as is.

    Returns
    -------
    Any
        ``json.dumps`` accepts it.

    Examples
    --------
    >>> jsonable({"a": np.array([1.5, np.inf]), "b": Fraction(1, 3)})
    {'a': [1.5, 'inf'], 'b': '1/3'}
    """
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()] if value.dtype == object else jsonable(value.tolist())
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else value.numerator
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return jsonable(value.to_dict())
    return value


@dataclass(frozen=True)
class Verdict:
    """Outcome of one axiom check.

    Attributes
    ----------
    holds : bool or None
        True: the axiom holds on this input (for searches: no violation found within the budget);
        False: violated, see ``witness``; None: undecided (solver failure or limit, see ``detail``).
    witness : dict or None
        JSON-serialisable description of the violation (None when ``holds`` is True).
    detail : str
        One line for humans.
    variant : str
        Which variant of the axiom was tested (``"plain"``, ``"weighted"``, ``"commitment"``,
        ``"strong"``, ``"remove"``, ...).
    axiom : str
        The axiom's key (``"sharing-incentive"``, ``"envy-free"``, ...).
    margin : float or None
        Signed slack of the tightest comparison: >= 0 when it holds, the size of the violation
        (negative) otherwise, in the units stated in ``detail``.
    stats : dict
        Counters (lies tried, LPs solved, ...).
    status : fairalloc.Status or None
        None when the check was decided (``holds`` True or False). When it was not, the status of the
        computation that left it undecided: the solver's (``NOT_SOLVED`` at a time limit without a
        solution, ``FEASIBLE`` at a limit with one but no proof, ``ERROR``, ...) or the mechanism's
        result status when the mechanism under test failed. An undecided verdict built without one
        gets ``ERROR``.

    ``bool(verdict)`` is True only when ``holds is True``, so ``assert verdict`` fails on a
    violation and on an undecided check alike.

    Raises
    ------
    ValueError
        A decided verdict (``holds`` True or False) given a ``status``.

    Examples
    --------
    A verdict of each kind (the checkers build them; the numbers here are made up for the display):

    >>> ok = Verdict(True, detail="no envy", axiom="envy-free")
    >>> ok, bool(ok)
    (Verdict(envy-free[plain]: holds; no envy), True)
    >>> bad = Verdict(False, witness={"user": 0, "envied": 1}, axiom="envy-free", margin=-0.25)
    >>> bool(bad), bad.violated, bad.to_dict()["witness"]
    (False, True, {'user': 0, 'envied': 1})
    >>> Verdict(None, detail="time limit").status       # undecided without a status: ERROR
    <Status.ERROR: 'error'>
    """

    holds: bool | None
    witness: Mapping[str, Any] | None = None
    detail: str = ""
    variant: str = "plain"
    axiom: str = ""
    margin: float | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)
    status: Status | None = None

    def __post_init__(self) -> None:
        if self.holds is not None:
            if self.status is not None:
                raise ValueError(f"a decided verdict (holds={self.holds}) carries no status, got {self.status!r}")
            return
        object.__setattr__(self, "status", Status.ERROR if self.status is None else Status(self.status))

    def __bool__(self) -> bool:
        return self.holds is True

    @property
    def violated(self) -> bool:
        """True when the axiom is shown to fail (``holds is False``)."""
        return self.holds is False

    def to_dict(self) -> dict[str, Any]:
        return {"axiom": self.axiom, "variant": self.variant, "holds": self.holds, "detail": self.detail,
                "margin": jsonable(self.margin), "witness": jsonable(self.witness),
                "stats": jsonable(dict(self.stats)), "status": jsonable(self.status)}

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    def __repr__(self) -> str:
        state = {True: "holds", False: "VIOLATED", None: f"undecided ({self.status})"}[self.holds]
        return f"Verdict({self.axiom or 'axiom'}[{self.variant}]: {state}; {self.detail})"


@dataclass(frozen=True)
class Replay:
    """Outcome of a replay: ``confirmed`` when the violation is reproduced; ``numbers`` as recomputed.

    Attributes
    ----------
    confirmed : bool
        True when recomputing the witness from its own data shows the violation again.
    detail : str
        One line for humans (what was recomputed, or why it was not confirmed).
    numbers : dict
        The recomputed quantities the witness compares (utilities, shares, margins).

    See Also
    --------
    proofs_check.replay.replay : checks a witness and returns this.

    Examples
    --------
    >>> r = Replay(True, "envy reproduced", {"u_own": 0.5, "u_other": 0.75})
    >>> r.to_dict()
    {'confirmed': True, 'detail': 'envy reproduced', 'numbers': {'u_own': 0.5, 'u_other': 0.75}}
    """

    confirmed: bool
    detail: str
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"confirmed": self.confirmed, "detail": self.detail, "numbers": jsonable(dict(self.numbers))}
