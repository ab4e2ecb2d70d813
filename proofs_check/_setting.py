"""Operations on instances that the mechanism-level checks share (pooled, task and time-varying instances).

Running a mechanism, reading the utilities it gives (fractions of demand for pooled instances, task
counts for task instances, tasks started over the horizon for time-varying instances), removing a
user, scaling a resource, permuting users, replacing one user's report. Nothing here computes a
share: utilities come from :mod:`fairalloc.shares`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fairalloc import AllocationResult, Instance, TaskInstance, TimeVaryingInstance, shares

__all__ = ["call", "utilities", "remove_user", "scale_resource", "permute", "unpermute_result_rows",
           "n_agents", "setting_of", "mechanism_name"]


def setting_of(instance: Any) -> str:
    if isinstance(instance, Instance):
        return "pooled"
    if isinstance(instance, TaskInstance):
        return "servers"
    if isinstance(instance, TimeVaryingInstance):
        return "time-varying"
    raise TypeError("instance must be a fairalloc.Instance, TaskInstance or TimeVaryingInstance, "
                    f"got {type(instance).__name__}")


def mechanism_name(mechanism: Callable) -> str:
    """A callable's name for witnesses (``functools.partial`` objects: the wrapped function's)."""
    return (getattr(mechanism, "__name__", None) or getattr(getattr(mechanism, "func", None), "__name__", None)
            or repr(mechanism))


def n_agents(instance: Any) -> int:
    return instance.n_agents


def call(mechanism: Callable[..., AllocationResult], instance: Any, commitments: Any = None) -> AllocationResult:
    """``mechanism(instance)`` or ``mechanism(instance, commitments=...)`` (pooled stateful mechanisms)."""
    if commitments is None:
        return mechanism(instance)
    return mechanism(instance, commitments=commitments)


def utilities(instance: Any, result: AllocationResult) -> np.ndarray:
    """Each user's utility under ``result``: fraction of demand (pooled), tasks run (task instance) or
    tasks started over the horizon (time-varying instance)."""
    if isinstance(instance, (TaskInstance, TimeVaryingInstance)):
        t = np.asarray(result.tasks, float)
        return t.reshape(t.shape[0], -1).sum(axis=1)
    return shares.leontief_utility(result.allocation, instance.demands)


def _rows(arr: Any, keep) -> Any:
    return None if arr is None else np.asarray(arr, float)[keep]


def remove_user(instance: Any, k: int, commitments: Any = None):
    """(instance without user k, commitments without row k)."""
    n = instance.n_agents
    keep = np.array([i for i in range(n) if i != k])
    if isinstance(instance, TimeVaryingInstance):
        return _tv_rows(instance, keep), None
    if isinstance(instance, TaskInstance):
        new = TaskInstance(instance.cluster, instance.task_demands[keep], instance.tasks[keep],
                           instance.placement[keep], instance.weights[keep], instance.commitments[keep])
        return new, None
    new = Instance(instance.demands[keep], instance.capacities, instance.weights[keep],
                   resource_names=instance.resource_names)
    return new, _rows(commitments, keep)


def scale_resource(instance: Any, r: int, factor: float):
    """The same instance with resource r's capacity multiplied by ``factor`` (every server's, for clusters).

    Commitments stay the same fractions of capacity.
    """
    if isinstance(instance, (TaskInstance, TimeVaryingInstance)):
        caps = np.array(instance.cluster.capacities, float)
        caps[:, r] *= factor
        return instance.replace(cluster=type(instance.cluster)(caps))
    caps = np.array(instance.capacities, float)
    caps[r] *= factor
    return instance.replace(capacities=caps)


def permute(instance: Any, perm, commitments: Any = None):
    """Users reordered: new user k is old user ``perm[k]``."""
    perm = np.asarray(perm)
    if isinstance(instance, TimeVaryingInstance):
        return _tv_rows(instance, perm), None
    if isinstance(instance, TaskInstance):
        new = TaskInstance(instance.cluster, instance.task_demands[perm], instance.tasks[perm],
                           instance.placement[perm], instance.weights[perm], instance.commitments[perm])
        return new, None
    new = Instance(instance.demands[perm], instance.capacities, instance.weights[perm],
                   resource_names=instance.resource_names)
    return new, _rows(commitments, perm)


def _tv_rows(tv: TimeVaryingInstance, rows) -> TimeVaryingInstance:
    """The time-varying instance restricted to (or reordered by) ``rows`` of users."""
    return TimeVaryingInstance(tv.cluster, tv.task_demands[rows], tv.arrivals[rows], tv.durations[rows],
                               tv.placement[rows], tv.weights[rows])


def unpermute_result_rows(values: np.ndarray, perm) -> np.ndarray:
    """Rows of a permuted run back in the original user order."""
    out = np.empty_like(values)
    out[np.asarray(perm)] = values
    return out
