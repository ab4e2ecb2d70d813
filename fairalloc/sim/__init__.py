"""Discrete-event simulation of job queues and task schedulers (see :mod:`.engine` for the policy
interface), with metrics and Parquet output. The multi-resource task schedulers are registered as
policies ``drf``, ``sdrf``, ``tsf``, ``cdrf`` and ``tvtsf`` (:mod:`.task_policies`)."""

from .cluster_state import ClusterState, ProcessorPool, ResourcePool, Servers, SimulationError
from .engine import ARRIVAL, COMPLETION, WAKEUP, Simulation
from .metrics import SimulationResult, ave_bsld, bounded_slowdown, utilization_over_time
from .simulate import make_state, register_policy, simulate
from .task_policies import SlotPolicy, TaskPolicy
from .static_slot_policy import StaticSlotPolicy
from ..scheduling.policy import Policy

__all__ = ["simulate", "Simulation", "SimulationResult", "Policy", "register_policy", "make_state",
           "ClusterState", "ProcessorPool", "ResourcePool", "Servers", "SimulationError",
           "bounded_slowdown", "ave_bsld", "utilization_over_time", "COMPLETION", "ARRIVAL", "WAKEUP",
           "TaskPolicy", "SlotPolicy", "StaticSlotPolicy"]
