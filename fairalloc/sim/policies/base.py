"""The base class of simulator policies (the interface is documented in :mod:`fairalloc.sim.engine`)."""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["Policy"]


class Policy:
    """No-op hooks; subclasses implement :meth:`schedule` (see :mod:`fairalloc.sim.engine`).

    The simulator calls :meth:`reset` once, then :meth:`on_submit` / :meth:`on_finish` as events
    happen and :meth:`schedule` after each instant's events; :meth:`next_wakeup` asks for an extra
    call at a later time.

    Attributes
    ----------
    name : str
        The policy's name in results (class attribute; default ``"policy"``).
    sim : Simulation
        The simulation, set by :meth:`reset`.

    Examples
    --------
    A policy that starts every job at once on server 0, whatever the capacity says (a sketch: a
    launch that does not fit makes the simulation raise
    :class:`~fairalloc.sim.cluster_state.SimulationError`):

    >>> class Greedy(Policy):
    ...     name = "greedy"
    ...     def on_submit(self, job, now):
    ...         self.new = getattr(self, "new", []) + [job]
    ...     def schedule(self, now):
    ...         out, self.new = [(j, 1, 0) for j in getattr(self, "new", [])], []
    ...         return out
    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 1], run_time=[5, 5], processors=[1, 1])
    >>> fa.simulate(wl, 2, policy=Greedy()).jobs["start"].tolist()
    [0.0, 1.0]
    >>> Greedy(), Policy().next_wakeup(0.0)
    (Greedy(name='greedy'), None)
    """

    name = "policy"

    def reset(self, sim: Any) -> None:
        """Called once before the first event; keeps ``sim`` as ``self.sim``."""
        self.sim = sim

    def on_submit(self, job: int, now: float) -> None:
        """Job ``job`` (a workload row) arrived at ``now``."""

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        """A launch of ``tasks`` tasks of ``job`` on ``server`` ended (resources already freed)."""

    def on_finish_many(self, launches: Any, now: float, killed: Any) -> None:
        """Launches returned as a :class:`~fairalloc.sim.launches.Launches` that ended at ``now``, in the
        order of their ends (all their resources already freed; ``killed`` a bool array per launch).
        By default :meth:`on_finish` for each in turn."""
        for j, k, s, kl in zip(launches.job.tolist(), launches.tasks.tolist(), launches.server.tolist(),
                               killed.tolist()):
            self.on_finish(j, k, s, now, kl)

    def schedule(self, now: float) -> Iterable[tuple[int, int, int]]:
        """Launches ``(job, tasks, server)`` to start at ``now``, in order (a list of tuples, or a
        :class:`~fairalloc.sim.launches.Launches` of arrays)."""
        raise NotImplementedError

    def next_wakeup(self, now: float) -> float | None:
        """A reschedule point after ``now``, or None."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
