"""Test oracles for the schedulers: independent references and validators of whole schedules.

* :func:`validate_task_schedule` replays a simulated task schedule from the workload alone and checks
  every decision against the rule, with keys recomputed from :mod:`fairalloc.shares` and
  :mod:`fairalloc.commitments` (like networkx's ``validate_flows``: it checks a result, it does not
  produce one);
* :class:`ReferenceScheduler` is the rule decision by decision in plain Python (``sorted()`` per
  decision): it lives in :mod:`fairalloc.scheduling.reference` because a callable ``server=`` rule
  runs through it, and is re-exported here as the tests' oracle.
"""

from fairalloc.scheduling.reference import ReferenceScheduler

from .validate import ScheduleViolation, validate_task_schedule

__all__ = ["ReferenceScheduler", "ScheduleViolation", "validate_task_schedule"]
