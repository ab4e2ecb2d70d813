r"""Slotted task schedulers as simulator policies: ``tvtsf``, ``tsf``/``cdrf`` with ``slot=``,
``tsf-static`` and ``cdrf-static``.

:class:`SlotPolicy` drives :class:`~fairalloc.scheduling.online_slots.OnlineSlotScheduler`: tasks
start only at slot boundaries ``k * slot`` (a task submitted inside a slot waits for the next
boundary), one TV-TSF Algorithm 2 round per slot; the policy asks for a wake-up at the next boundary
while tasks are pending. Workloads in slots use integer submit and run times (``alibaba_like``).

:class:`StaticSlotPolicy` is TV-TSF's baselines as Table 1 describes them: a static mechanism run on
the free capacity of every slot (divisible, placement-aware TSF; indivisible, placement-unaware CDRF;
both duration-unaware), :class:`~fairalloc.scheduling.static_slots.StaticSlotScheduler`. The
controlled variants ``tsf`` / ``cdrf`` with ``slot=`` (TV-TSF's own packing with another key) measure
what the ordering alone is worth.

``rounding=`` (TSF) and ``realise=`` (CDRF) choose how the static allocation becomes tasks
(:mod:`fairalloc.scheduling.static_slots`); the defaults are the readings the reproduction uses. The
wasteful readings can deadlock: once the last job has arrived, a slot that starts nothing while no
task runs (:attr:`~fairalloc.scheduling.static_slots.StaticSlotScheduler.stalled`) would repeat
forever, so the policy asks for no further slot and the run ends with those jobs unfinished
(``run_stats()["deadlocked"]``).

References
----------
.. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024, Algorithms 1-5,
   Table 1.

Examples
--------
>>> import fairalloc as fa
>>> wl = fa.workloads.alibaba_like(20, large_fraction=0.25, rng=0)
>>> r = fa.simulate(wl, fa.clusters.tvtsf_table3(), policy="cdrf-static")
>>> r.policy, int(r.jobs["finished"].sum())
('cdrf-static', 20)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import InvalidInstanceError
from ...scheduling import TIES
from ...scheduling.online_slots import OnlineSlotScheduler
from ...validation import require_choice
from ..launches import Launches
from .base import Policy
from .tasks import _check_workload, _Launches, _n_users

__all__ = ["SlotPolicy", "StaticSlotPolicy"]


class SlotPolicy(Policy):
    """A slotted task scheduler (``tvtsf``; ``tsf`` / ``cdrf`` baselines) as a simulator policy.

    Parameters
    ----------
    mechanism : {"tvtsf", "tsf", "cdrf"}
    slot : float, default 1.0
        Slot length in the workload's time unit.
    weights, server, ties
        See the module docstring (server default ``"tvtsf"``, Algorithm 4).

    Attributes
    ----------
    name : str
        ``"tvtsf"``, ``"tsf-slotted"`` or ``"cdrf-slotted"``.
    scheduler : OnlineSlotScheduler
        The scheduler of the current run (after :meth:`reset`).

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism or tie rule, or ``slot`` not finite and > 0.

    Examples
    --------
    Slots of length 1 on a pool of 2 units: one 1-unit task submitted at 0.5 waits for the boundary
    at 1, another submitted at 1 starts there too:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0.5, 1], run_time=[2, 2], user=[0, 1], resources=[[1.0], [1.0]])
    >>> r = fa.simulate(wl, [2.0], policy=SlotPolicy("tvtsf"))
    >>> r.policy, r.jobs["start"].tolist()
    ('tvtsf', [1.0, 1.0])
    """

    def __init__(self, mechanism: str = "tvtsf", *, slot: float = 1.0, weights: Any = None,
                 server: Any = None, ties: str = "wait") -> None:
        self.mechanism = require_choice("policy", mechanism, ("tvtsf", "tsf", "cdrf"))
        L = float(slot)
        if not (np.isfinite(L) and L > 0):
            raise InvalidInstanceError(f"slot={slot!r} must be finite and > 0", argument="slot", value=slot)
        self.slot = L
        self.ties = require_choice("ties", ties, TIES)
        self.weights = weights
        self.server = server
        self.name = self.mechanism if self.mechanism == "tvtsf" else f"{self.mechanism}-slotted"
        self.scheduler = None

    def reset(self, sim: Any) -> None:
        super().reset(sim)
        wl, state = _check_workload(sim, self.name)
        n = _n_users(wl, state, self.weights)
        self.scheduler = OnlineSlotScheduler(state.capacities, n_users=n if self.weights is None else None,
                                             weights=self.weights, placement=state.placement,
                                             policy=self.mechanism, server=self.server, ties=self.ties)
        self._user = wl.user.tolist()
        self._tasks = wl.tasks.tolist()
        self._demand = wl.resources
        self._launches = _Launches()          # task id -> job, and the grouping of starts into launches
        # every started task id in start order: a launch's ids are _ids[tag:tag + tasks] (its tag)
        self._ids = np.zeros(int(wl.tasks.sum()), dtype=np.int64)
        self._n_ids = 0
        self._ended: list[np.ndarray] = []

    def _boundary(self, now: float) -> int:
        """Index of the first slot boundary at or after ``now``."""
        k = math.floor(now / self.slot)
        return k if k * self.slot >= now else k + 1

    def on_submit(self, job: int, now: float) -> None:
        ids = self.scheduler.submit(self._user[job], self._demand[job], self._tasks[job],
                                    slot=self._boundary(now))
        self._launches.add(job, ids)

    def on_finish(self, job: int, tasks: int, server: int, now: float, killed: bool) -> None:
        raise NotImplementedError("a slotted policy's launches end through on_finish_many (it launches "
                                  "Launches arrays, whose tags name their tasks)")

    def on_finish_many(self, launches: Launches, now: float, killed: np.ndarray) -> None:
        # the launches' own task ids; the scheduler frees them, in the order of the engine's
        # completions, before the next decision
        k = launches.tasks
        self._ended.append(self._ids[np.repeat(launches.tag - (np.cumsum(k) - k), k) + np.arange(k.sum())])

    def _release(self) -> None:
        if self._ended:
            self.scheduler.finish_many(np.concatenate(self._ended))
            self._ended = []

    def schedule(self, now: float) -> Launches | list:
        self._release()
        k = self._boundary(now)
        if k * self.slot != now or k <= self.scheduler.slot or not self.scheduler.has_pending:
            return []
        task, _, server = self.scheduler.step_arrays(k)
        job, first, count = self._launches.runs(task, server)
        a = self._n_ids
        self._ids[a:a + task.size] = task
        self._n_ids += task.size
        return Launches(job, count, server[first], first + a)

    def next_wakeup(self, now: float) -> float | None:
        if not self.scheduler.has_pending:
            return None
        k = self._boundary(now)
        if k * self.slot <= now:
            k += 1
        return k * self.slot

    def run_stats(self) -> dict[str, Any]:
        s = self.scheduler
        return {"decisions": s.decisions, "rounds": s.rounds, "slot": self.slot, "ties": s.ties,
                "server": s.servers.rule_name}


class StaticSlotPolicy(SlotPolicy):
    """TV-TSF's static baselines as a slotted simulator policy (module docstring).

    Parameters
    ----------
    mechanism : {"tsf-static", "cdrf-static"}, default "cdrf-static"
        The static mechanism run on every slot's free capacity
        (:class:`~fairalloc.scheduling.static_slots.StaticSlotScheduler`).
    slot : float, default 1.0
        Slot length in the workload's time unit.
    weights : array_like (n_users,), optional
    server : str or callable, optional
        As :class:`~fairalloc.sim.SlotPolicy`.
    ties : {"wait", "index"}, default "wait"
        Among equal keys, the user whose oldest pending task was submitted earliest goes first, then
        the lower index (``"wait"``); or the lower index only (``"index"``).
    rounding : {"largest_remainder", "floor_server", "floor_user"}, default "largest_remainder"
        The static TSF's realisation (TSF only).
    realise : {"eligible", "blind"}, default "eligible"
        The static CDRF's realisation (CDRF only).
    point : {"solver", "canonical"}, default "solver"
        Which point of the divisible TSF's optimal face the static TSF rounds: the vertex the LP
        solver returned, or the canonical point
        (:func:`~fairalloc.scheduling.static_slots.canonical_point`, the same whichever HiGHS solved
        the LPs); TSF only.

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism, rounding, realisation or point, a reading of the other mechanism, or a
        slot length not finite and > 0.

    Examples
    --------
    Registered as ``policy="tsf-static"`` / ``"cdrf-static"``; built directly, its name is the
    mechanism's:

    >>> StaticSlotPolicy("tsf-static", slot=2.0).name
    'tsf-static'

    The canonical point is asked for like the other readings (``fa.simulate(..., policy="tsf-static",
    point="canonical")``); it is the static TSF's only:

    >>> StaticSlotPolicy("cdrf-static", point="canonical")
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: point='canonical' applies to tsf-static, not 'cdrf-static'
    """

    def __init__(self, mechanism: str = "cdrf-static", *, slot: float = 1.0, weights: Any = None,
                 server: Any = None, ties: str = "wait", rounding: str = "largest_remainder",
                 realise: str = "eligible", point: str = "solver") -> None:
        from ...scheduling.static_slots import STATIC_MECHANISMS, StaticSlotScheduler   # (scipy's LP solvers)

        super().__init__("tsf", slot=slot, weights=weights, server=server, ties=ties)
        #: The static mechanism (``self.mechanism`` stays ``"tsf"`` for SlotPolicy's own checks).
        self.static = require_choice("policy", mechanism, STATIC_MECHANISMS)
        self.name = self.static
        self.rounding, self.realise, self.point = rounding, realise, point
        self._deadlocked = False
        # refuse a bad reading now, not at the first run
        StaticSlotScheduler([[1.0]], n_users=1, mechanism=self.static, rounding=rounding, realise=realise,
                            point=point)

    def reset(self, sim: Any) -> None:
        from ...scheduling.static_slots import StaticSlotScheduler

        super().reset(sim)          # checks the workload, sizes the users; then swap the scheduler
        s = self.scheduler
        self.scheduler = StaticSlotScheduler(s.cluster, weights=s.weights, placement=s.placement,
                                             mechanism=self.static, server=self.server, ties=self.ties,
                                             rounding=self.rounding, realise=self.realise, point=self.point)
        submit = sim.workload.submit
        self._last_submit = float(submit.max()) if len(submit) else float("-inf")
        self._deadlocked = False

    def next_wakeup(self, now: float) -> float | None:
        if self.scheduler.stalled and now >= self._last_submit:
            self._deadlocked = True           # nothing will arrive: the same slot forever
            return None
        return super().next_wakeup(now)

    def run_stats(self) -> dict[str, Any]:
        out = super().run_stats()
        out["unrealised"] = self.scheduler.unrealised
        out["lp_not_optimal"] = self.scheduler.lp_not_optimal
        out["granted"] = self.scheduler.granted
        out["lp_tasks"] = self.scheduler.lp_tasks
        if self.point != "solver":
            out["point"] = self.point
            out["canonical_failed"] = self.scheduler.canonical_failed
        if self._deadlocked:
            out["deadlocked"] = True
        return out
