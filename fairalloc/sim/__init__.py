"""Discrete-event simulation of job queues and task schedulers, with metrics and Parquet output.

:func:`simulate` runs a policy named in the table :data:`~fairalloc.sim.policies.POLICIES` (or a policy
object) on a workload. Built-in policies run on one compiled loop (:mod:`.kernels`) where it applies;
the readable event engine :class:`Simulation` (:mod:`.engine`) runs everything, including the
policies you write (the interface is documented in :mod:`.engine`; subclass :class:`Policy`).
"""

from .cluster_state import ClusterState, ProcessorPool, ResourcePool, Servers, SimulationError
from .engine import ARRIVAL, COMPLETION, WAKEUP, Simulation
from .metrics import SimulationResult, ave_bsld, bounded_slowdown, utilization_over_time
from .policies import (BUC, F1, F2, FCFS, POLICIES, QUEUE_POLICIES, SJF, UNICEF, WFP3, Policy, PriorityPolicy,
                       QueuePolicy, QueueView, SlotPolicy, StaticSlotPolicy, TaskPolicy, ema_update,
                       make_policy, make_queue_policy, policy_names, register_policy, threshold_update)
from .simulate import make_state, simulate
# production fair-share policies (issue 27)
from .policies.fairshare import HTCondorPolicy, SlurmPolicy

__all__ = ["simulate", "Simulation", "SimulationResult", "Policy", "POLICIES", "make_policy", "register_policy",
           "policy_names", "make_state", "ClusterState", "ProcessorPool", "ResourcePool", "Servers",
           "SimulationError", "bounded_slowdown", "ave_bsld", "utilization_over_time", "COMPLETION", "ARRIVAL",
           "WAKEUP", "TaskPolicy", "SlotPolicy", "StaticSlotPolicy",
           # job-queue policies (rigid jobs)
           "QueuePolicy", "FCFS", "SJF", "WFP3", "UNICEF", "F1", "F2", "BUC", "PriorityPolicy", "QueueView",
           "ema_update", "threshold_update", "make_queue_policy", "QUEUE_POLICIES",
           # production fair-share policies (issue 27)
           "SlurmPolicy", "HTCondorPolicy"]
