"""Greedy task schedulers: pick which user's task starts next, and where, given the cluster state.

The multi-resource task schedulers (DRF / SDRF Algorithm 1, TSF, CDRF, TV-TSF Algorithms 1-5). The
simulator's job-queue policies (FCFS, EASY, SJF, WFP3, ...) are in :mod:`fairalloc.sim`; their old
names here still resolve, with a :class:`DeprecationWarning`.
Each task scheduler is a class holding an incremental state (``submit`` / ``finish`` / ``advance`` /
``schedule`` in continuous time, ``step`` per slot for TV-TSF), meant to be driven by a simulator, and
a one-shot function over a :class:`~fairalloc.TaskInstance` (a :class:`~fairalloc.TimeVaryingInstance`
for the slotted ones) returning an :class:`~fairalloc.AllocationResult` with ``method="greedy"`` and
status FEASIBLE. Users call those through the mechanisms' front doors (``fa.drf(ti, method="greedy")``
is :func:`drf_greedy` with its keywords checked first; likewise ``fa.sdrf``, ``fa.tsf``, ``fa.cdrf``,
``fa.tvtsf``).
"""

import importlib as _importlib
import warnings as _warnings

from ._base import STRUCTURES, TIES, Start, TaskScheduler
from .cdrf import CDRFScheduler, cdrf_greedy
from .progressive import DRFScheduler, SDRFScheduler, drf_greedy, sdrf_greedy
from .servers import SERVER_RULES, FreeCapacity
from .tsf import TSFScheduler, tsf_greedy
from .tvtsf import SlotScheduler, SlotStart, slotted_greedy, tvtsf_greedy
from .online_slots import OnlineSlotScheduler

#: One-shot greedy schedulers by mechanism name (TaskInstance -> AllocationResult).
GREEDY = {"drf": drf_greedy, "sdrf": sdrf_greedy, "tsf": tsf_greedy, "cdrf": cdrf_greedy}

__all__ = [
    "Start",
    "TaskScheduler",
    "STRUCTURES",
    "TIES",
    "FreeCapacity",
    "SERVER_RULES",
    "DRFScheduler",
    "SDRFScheduler",
    "TSFScheduler",
    "CDRFScheduler",
    "SlotScheduler",
    "SlotStart",
    "OnlineSlotScheduler",
    "drf_greedy",
    "sdrf_greedy",
    "tsf_greedy",
    "cdrf_greedy",
    "slotted_greedy",
    "tvtsf_greedy",
    "GREEDY",
]

#: Names that moved to :mod:`fairalloc.sim` (the simulator's job-queue policies): still resolved here,
#: with a DeprecationWarning; resolved at first use (scheduling never imports the simulator).
_MOVED = {name: "fairalloc.sim.policies" for name in (
    "Policy", "QueuePolicy", "FCFS", "SJF", "WFP3", "UNICEF", "F1", "F2", "BUC", "PriorityPolicy", "QueueView",
    "ema_update", "threshold_update", "make_queue_policy", "QUEUE_POLICIES")}


def __getattr__(name: str):
    if name in _MOVED:
        _warnings.warn(f"fairalloc.scheduling.{name} moved to fairalloc.sim.{name}; the old name will be removed",
                       DeprecationWarning, stacklevel=2)
        return getattr(_importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'fairalloc.scheduling' has no attribute {name!r}")
