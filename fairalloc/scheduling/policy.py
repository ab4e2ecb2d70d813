"""The base class of simulator policies (the interface is documented in :mod:`fairalloc.sim.engine`).

It lives here, not in ``sim``, so that schedulers never import the simulator (imports flow
``scheduling <- sim``).
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["Policy"]


class Policy:
    """No-op hooks; subclasses implement :meth:`schedule` (see :mod:`fairalloc.sim.engine`)."""

    name = "policy"

    def reset(self, sim: Any) -> None:
        """Called once before the first event; keeps ``sim`` as ``self.sim``."""
        self.sim = sim

    def on_submit(self, job: int, now: float) -> None:
        """Job ``job`` (a workload row) arrived at ``now``."""

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        """A launch of ``tasks`` tasks of ``job`` on ``server`` ended (resources already freed)."""

    def schedule(self, now: float) -> Iterable[tuple[int, int, int]]:
        """Launches ``(job, tasks, server)`` to start at ``now``, in order."""
        raise NotImplementedError

    def next_wakeup(self, now: float) -> float | None:
        """A reschedule point after ``now``, or None."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
