"""A *case*: one input of a campaign cell (an instance with its commitments, or a repeated game).

Cases are what the strategies generate, what the checks consume and what the shrinker reduces; they
serialise to plain JSON so that a witness can be replayed from a file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np

from fairalloc import Instance, TaskInstance, TimeVaryingInstance

from .repeated import RepeatedGame

__all__ = ["Case"]


@dataclass(frozen=True)
class Case:
    """One input: ``instance`` (+ ``commitments``) for stage checks, ``game`` (+ ``delta``, ``gamma``) for the repeated game.

    A time-varying instance (TV-TSF) is its own game: ``gamma`` is the discount of the slot-by-slot
    deviations its repeated-game cells try.

    Parameters
    ----------
    instance : Instance or TaskInstance or TimeVaryingInstance or None, default None
        The stage input (pooled, on servers, or time-varying); None for a repeated game.
    commitments : ndarray of shape (N, R) or None, default None
        Each user's commitment (SDRF Eq. 6) for stateful pooled mechanisms; None elsewhere.
    game : RepeatedGame or None, default None
        The periods of a repeated game (``sp-repeated`` cells); None for a stage input.
    delta : float or None, default None
        SDRF's commitment decay :math:`\\delta \\in [0, 1)` the game is played with.
    gamma : float or None, default None
        Discount of later periods in a player's payoff (:func:`proofs_check.repeated.payoff`).

    Attributes
    ----------
    kind : str
        ``"pooled"``, ``"servers"``, ``"time-varying"`` or ``"game"``: which input the case holds.

    See Also
    --------
    proofs_check.strategies.cases : draws cases of a claim's domain.
    proofs_check.shrink.shrink : reduces a failing case.

    Examples
    --------
    Two users of the ``axioms.md`` example (per-task demands (1, 4) and (3, 1), 3 and 2 tasks, so
    total demands 3·(1, 4) and 2·(3, 1)); the case survives its JSON form:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], [3, 2], [9, 18])
    >>> case = Case(inst)
    >>> case
    Case(pooled: {'n_agents': 2, 'n_resources': 2, 'n_periods': 1})
    >>> Case.from_dict(case.to_dict()).instance.demands.tolist()
    [[3.0, 12.0], [6.0, 2.0]]
    """

    instance: Instance | TaskInstance | TimeVaryingInstance | None = None
    commitments: np.ndarray | None = None
    game: RepeatedGame | None = None
    delta: float | None = None
    gamma: float | None = None

    @property
    def kind(self) -> str:
        if self.game is not None:
            return "game"
        if isinstance(self.instance, TimeVaryingInstance):
            return "time-varying"
        return "servers" if isinstance(self.instance, TaskInstance) else "pooled"

    def size(self) -> dict[str, int]:
        """Users, resources (servers for task instances) and periods (slots for time-varying instances)."""
        if self.game is not None:
            return {"n_agents": self.game.n_agents, "n_resources": self.game.n_resources,
                    "n_periods": self.game.n_periods}
        if isinstance(self.instance, TimeVaryingInstance):
            tv = self.instance
            return {"n_agents": tv.n_agents, "n_resources": tv.n_resources, "n_periods": tv.n_slots,
                    "n_servers": tv.n_servers}
        out = {"n_agents": self.instance.n_agents, "n_resources": self.instance.n_resources, "n_periods": 1}
        if isinstance(self.instance, TaskInstance):
            out["n_servers"] = self.instance.n_servers
        return out

    def replace(self, **kw: Any) -> "Case":
        return replace(self, **kw)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.instance is not None:
            out["instance"] = self.instance.to_dict()
        if self.commitments is not None:
            out["commitments"] = np.asarray(self.commitments, float).tolist()
        if self.game is not None:
            out["game"] = self.game.to_dict()
            out["delta"] = self.delta
            out["gamma"] = self.gamma
        elif self.gamma is not None:
            out["gamma"] = self.gamma
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Case":
        kind = data.get("kind", "pooled")
        inst = None
        if "instance" in data:
            cls_ = {"servers": TaskInstance, "time-varying": TimeVaryingInstance}.get(kind, Instance)
            inst = cls_.from_dict(data["instance"])
        c = data.get("commitments")
        game = RepeatedGame.from_dict(data["game"]) if data.get("game") is not None else None
        return cls(inst, None if c is None else np.asarray(c, float), game, data.get("delta"), data.get("gamma"))

    def __repr__(self) -> str:
        s = self.size()
        extra = "" if self.commitments is None else ", commitments"
        if self.game is not None:
            extra += f", delta={self.delta}, gamma={self.gamma}"
        elif self.gamma is not None:
            extra += f", gamma={self.gamma}"
        return f"Case({self.kind}: {s}{extra})"
