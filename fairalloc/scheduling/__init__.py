"""Greedy online schedulers: pick what to start next given the cluster state.

Job-queue policies (rigid parallel jobs on identical processors) live in :mod:`.queue`; multi-resource
task schedulers (DRF / SDRF Algorithm 1, TSF, CDRF, TV-TSF Algorithms 1-5) in their own modules.
"""

from .policy import Policy
from .queue import (BUC, F1, F2, FCFS, QUEUE_POLICIES, SJF, UNICEF, WFP3, PriorityPolicy, QueuePolicy,
                    QueueView, ema_update, make_queue_policy)

__all__: list[str] = ["Policy", "QueuePolicy", "FCFS", "SJF", "WFP3", "UNICEF", "F1", "F2", "BUC",
                      "PriorityPolicy", "QueueView", "ema_update", "make_queue_policy",
                      "QUEUE_POLICIES"]
