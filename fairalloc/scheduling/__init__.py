"""Greedy online schedulers: pick what to start next given the cluster state.

Job-queue policies (rigid parallel jobs on identical processors) live in :mod:`.queue`; multi-resource
task schedulers (DRF / SDRF Algorithm 1, TSF, CDRF, TV-TSF Algorithms 1-5) in their own modules.
Each task scheduler is a class holding an incremental state (``submit`` / ``finish`` / ``advance`` /
``schedule`` in continuous time, ``step`` per slot for TV-TSF), meant to be driven by a simulator, and
a one-shot function over a :class:`~fairalloc.TaskInstance` (a :class:`~fairalloc.TimeVaryingInstance`
for the slotted ones) returning an :class:`~fairalloc.AllocationResult` with ``method="greedy"`` and
status FEASIBLE. Users call those through the mechanisms' front doors (``fa.drf(ti, method="greedy")``
is :func:`drf_greedy` with its keywords checked first; likewise ``fa.sdrf``, ``fa.tsf``, ``fa.cdrf``,
``fa.tvtsf``).
"""

from .policy import Policy
from .queue import (BUC, F1, F2, FCFS, QUEUE_POLICIES, SJF, UNICEF, WFP3, PriorityPolicy, QueuePolicy,
                    QueueView, ema_update, make_queue_policy, threshold_update)

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
    # job-queue policies (rigid jobs)
    "Policy", "QueuePolicy", "FCFS", "SJF", "WFP3", "UNICEF", "F1", "F2", "BUC", "PriorityPolicy",
    "QueueView", "ema_update", "threshold_update", "make_queue_policy", "QUEUE_POLICIES",
    # task schedulers
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
