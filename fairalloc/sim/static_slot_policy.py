"""TV-TSF's baselines as Table 1 describes them, as simulator policies ``tsf-static`` and ``cdrf-static``.

:class:`StaticSlotPolicy` is :class:`~fairalloc.sim.task_policies.SlotPolicy` (tasks start only at
slot boundaries, one allocation per slot) driving a
:class:`~fairalloc.scheduling.static_slots.StaticSlotScheduler`: a static mechanism run on the free
capacity of every slot (divisible, placement-aware TSF; indivisible, placement-unaware CDRF; both
duration-unaware). The controlled variants ``tsf`` / ``cdrf`` with ``slot=`` (TV-TSF's own packing
with another key) stay as they are: they measure what the ordering alone is worth.

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

    Raises
    ------
    InvalidInstanceError
        An unknown mechanism or a slot length not finite and > 0.

    Examples
    --------
    Registered as ``policy="tsf-static"`` / ``"cdrf-static"``; built directly, its name is the
    mechanism's:

    >>> StaticSlotPolicy("tsf-static", slot=2.0).name
    'tsf-static'
    """

    def __init__(self, mechanism: str = "cdrf-static", *, slot: float = 1.0, weights: Any = None,
                 server: Any = None, ties: str = "wait") -> None:
        super().__init__("tsf", slot=slot, weights=weights, server=server, ties=ties)
        #: The static mechanism (``self.mechanism`` stays ``"tsf"`` for SlotPolicy's own checks).
        self.static = require_choice("policy", mechanism, STATIC_MECHANISMS)
        self.name = self.static

    def reset(self, sim: Any) -> None:
        super().reset(sim)          # checks the workload, sizes the users; then swap the scheduler
        s = self.scheduler
        self.scheduler = StaticSlotScheduler(s.cluster, weights=s.weights, placement=s.placement,
                                             mechanism=self.static, server=self.server, ties=self.ties)

    def run_stats(self) -> dict[str, Any]:
        out = super().run_stats()
        out["unrealised"] = self.scheduler.unrealised
        out["lp_not_optimal"] = self.scheduler.lp_not_optimal
        return out


for _name in STATIC_MECHANISMS:
    register_policy(_name, lambda _n=_name, **kw: StaticSlotPolicy(_n, **kw))
