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
