"""TV-TSF's baselines as Table 1 describes them, as simulator policies ``tsf-static`` and ``cdrf-static``.

:class:`StaticSlotPolicy` is :class:`~fairalloc.sim.task_policies.SlotPolicy` (tasks start only at
slot boundaries, one allocation per slot) driving a
:class:`~fairalloc.scheduling.static_slots.StaticSlotScheduler`: a static mechanism run on the free
capacity of every slot (divisible, placement-aware TSF; indivisible, placement-unaware CDRF; both
duration-unaware). The controlled variants ``tsf`` / ``cdrf`` with ``slot=`` (TV-TSF's own packing
with another key) stay as they are: they measure what the ordering alone is worth.

``rounding=`` (TSF) and ``realise=`` (CDRF) choose how the static allocation becomes tasks
(:mod:`fairalloc.scheduling.static_slots`); the defaults are the readings the reproduction uses. The
wasteful readings can deadlock: once the last job has arrived, a slot that starts nothing while no
task runs (:attr:`~fairalloc.scheduling.static_slots.StaticSlotScheduler.stalled`) would repeat
forever, so the policy asks for no further slot and the run ends with those jobs unfinished
(``run_stats()["deadlocked"]``).

>>> import fairalloc as fa
>>> wl = fa.workloads.alibaba_like(20, large_fraction=0.25, rng=0)
>>> r = fa.simulate(wl, fa.clusters.tvtsf_table3(), policy="cdrf-static")
>>> r.policy, int(r.jobs["finished"].sum())
('cdrf-static', 20)
"""

from __future__ import annotations

from typing import Any

from ..validation import require_choice
from ..scheduling.static_slots import STATIC_MECHANISMS, StaticSlotScheduler
from .simulate import register_policy
from .task_policies import SlotPolicy

__all__ = ["StaticSlotPolicy"]


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

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism, rounding or realisation, a reading of the other mechanism, or a slot
        length not finite and > 0.

    Examples
    --------
    Registered as ``policy="tsf-static"`` / ``"cdrf-static"``; built directly, its name is the
    mechanism's:

    >>> StaticSlotPolicy("tsf-static", slot=2.0).name
    'tsf-static'
    """

    def __init__(self, mechanism: str = "cdrf-static", *, slot: float = 1.0, weights: Any = None,
                 server: Any = None, ties: str = "wait", rounding: str = "largest_remainder",
                 realise: str = "eligible") -> None:
        super().__init__("tsf", slot=slot, weights=weights, server=server, ties=ties)
        #: The static mechanism (``self.mechanism`` stays ``"tsf"`` for SlotPolicy's own checks).
        self.static = require_choice("policy", mechanism, STATIC_MECHANISMS)
        self.name = self.static
        self.rounding, self.realise = rounding, realise
        self._deadlocked = False
        # refuse a bad reading now, not at the first run
        StaticSlotScheduler([[1.0]], n_users=1, mechanism=self.static, rounding=rounding, realise=realise)

    def reset(self, sim: Any) -> None:
        super().reset(sim)          # checks the workload, sizes the users; then swap the scheduler
        s = self.scheduler
        self.scheduler = StaticSlotScheduler(s.cluster, weights=s.weights, placement=s.placement,
                                             mechanism=self.static, server=self.server, ties=self.ties,
                                             rounding=self.rounding, realise=self.realise)
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
        if self._deadlocked:
            out["deadlocked"] = True
        return out


for _name in STATIC_MECHANISMS:
    register_policy(_name, lambda _n=_name, **kw: StaticSlotPolicy(_n, **kw))
