"""Validation and conversion of the allocations handed to the checkers.

An allocation of the wrong shape, with negative entries, above capacity, outside a user's eligible
servers or with more tasks than the user submitted is *invalid*: the checkers raise
:class:`~fairalloc.InvalidInstanceError` naming ``allocation``, the index and the value, instead of
calling it "unfair".
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from fairalloc import AllocationResult, Instance, TaskInstance, TimeVaryingInstance
from fairalloc.tolerance import ATOL
from fairalloc.errors import InvalidInstanceError

__all__ = ["ATOL", "exact_array", "pooled_allocation", "server_tasks", "slot_schedule", "running_usage",
           "as_float"]


def exact_array(value: Any) -> np.ndarray:
    """Object array of ``Fraction`` (floats converted exactly, strings like ``"1/3"`` parsed)."""
    arr = np.asarray(value, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = arr.reshape(-1)
    res = out.reshape(-1)
    for k, v in enumerate(flat):
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        if isinstance(v, float) and not np.isfinite(v):
            raise InvalidInstanceError(f"value {v!r} cannot be made an exact rational", value=v)
        res[k] = Fraction(v)
    return out


def as_float(value: Any) -> np.ndarray:
    """Float copy of a (possibly exact) array."""
    arr = np.asarray(value)
    if arr.dtype == object:
        return np.array([float(v) for v in arr.reshape(-1)], dtype=float).reshape(arr.shape)
    return np.asarray(arr, dtype=float)


def _unwrap(allocation: Any, attr: str) -> Any:
    if isinstance(allocation, AllocationResult):
        v = getattr(allocation, attr)
        if v is None:
            raise InvalidInstanceError(
                f"the result carries no {attr} (status {allocation.status.value!r}: {allocation.message})",
                argument="allocation", value=allocation.status.value)
        return v
    return allocation


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(v) for v in np.argwhere(mask)[0])


def pooled_allocation(instance: Instance, allocation: Any, *, atol: float = ATOL,
                      exact: bool = False) -> np.ndarray:
    """Validated (n, m) allocation in capacity units (float, or exact rationals with ``exact=True``).

    Raises
    ------
    InvalidInstanceError
        Wrong shape, NaN/inf, an entry below ``-atol`` (relative to the capacity), or a resource whose
        total exceeds its capacity by more than ``atol`` (relative).
    """
    if not isinstance(instance, Instance):
        raise TypeError(f"instance must be a fairalloc.Instance, got {type(instance).__name__}")
    raw = _unwrap(allocation, "allocation")
    arr = exact_array(raw) if exact else np.array(raw, dtype=float)
    n, m = instance.n_agents, instance.n_resources
    if arr.ndim == 1 and m == 1:
        arr = arr[:, None]
    if arr.shape != (n, m):
        raise InvalidInstanceError(f"allocation must have shape (n_agents, n_resources) = ({n}, {m}), got {arr.shape}",
                                   argument="allocation", value=arr.shape)
    f = np.asarray(arr, dtype=float)
    if not np.isfinite(f).all():
        idx = _first(~np.isfinite(f))
        raise InvalidInstanceError(f"allocation[{idx[0]}, {idx[1]}]={f[idx]!r} must be finite",
                                   argument="allocation", index=idx, value=f[idx].item())
    cap = instance.capacities
    neg = f < -atol * cap
    if neg.any():
        idx = _first(neg)
        raise InvalidInstanceError(f"allocation[{idx[0]}, {idx[1]}]={f[idx]!r} must be >= 0",
                                   argument="allocation", index=idx, value=f[idx].item())
    total = arr.sum(axis=0)
    over = np.asarray(total, dtype=float) > cap * (1.0 + atol)
    if exact and not over.any():
        over = np.array([t > Fraction(c.item()) * (1 + Fraction(atol)) for t, c in zip(total, cap)])
    if over.any():
        r = int(np.flatnonzero(over)[0])
        raise InvalidInstanceError(
            f"allocation[:, {r}] sums to {float(total[r])!r} > capacity {cap[r]!r}: the allocation is "
            "infeasible (invalid, not unfair)", argument="allocation", index=(r,), value=float(total[r]))
    return arr


def server_tasks(instance: TaskInstance, tasks: Any, *, divisible: bool = False,
                 atol: float = ATOL) -> np.ndarray:
    """Validated (n_agents, n_servers) task counts of a :class:`~fairalloc.TaskInstance` allocation.

    Accepts an :class:`~fairalloc.AllocationResult` (its ``tasks``). Integer allocations must hold
    whole numbers; every allocation must respect placement, the task counts submitted and every
    server's capacity.
    """
    if not isinstance(instance, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(instance).__name__}")
    raw = _unwrap(tasks, "tasks")
    x = np.array(raw, dtype=float)
    n, M = instance.n_agents, instance.n_servers
    if x.shape != (n, M):
        raise InvalidInstanceError(f"allocation must have shape (n_agents, n_servers) = ({n}, {M}), got {x.shape}",
                                   argument="allocation", value=x.shape)
    bad = ~np.isfinite(x) | (x < -atol)
    if bad.any():
        i, l = _first(bad)
        raise InvalidInstanceError(f"allocation[{i}, {l}]={x[i, l]!r} must be finite and >= 0",
                                   argument="allocation", index=(i, l), value=x[i, l].item())
    if not divisible:
        frac = np.abs(x - np.round(x)) > atol
        if frac.any():
            i, l = _first(frac)
            raise InvalidInstanceError(
                f"allocation[{i}, {l}]={x[i, l]!r} is not a whole number of tasks (pass divisible=True "
                "for divisible tasks)", argument="allocation", index=(i, l), value=x[i, l].item())
        x = np.round(x)
    outside = (x > atol) & ~instance.placement
    if outside.any():
        i, l = _first(outside)
        raise InvalidInstanceError(f"allocation[{i}, {l}]={x[i, l]!r}: user {i} may not run on server {l} (placement)",
                                   argument="allocation", index=(i, l), value=x[i, l].item())
    total = x.sum(axis=1)
    more = total > instance.tasks + atol
    if more.any():
        i = int(np.flatnonzero(more)[0])
        raise InvalidInstanceError(f"allocation[{i}] runs {total[i]!r} tasks but user {i} submitted {instance.tasks[i]}",
                                   argument="allocation", index=(i,), value=float(total[i]))
    caps = instance.cluster.capacities
    usage = x.T @ instance.task_demands                         # (M, K)
    over = usage > caps * (1.0 + atol) + atol
    if over.any():
        l, r = _first(over)
        raise InvalidInstanceError(
            f"server {l} resource {r}: usage {usage[l, r]!r} > capacity {caps[l, r]!r}: the allocation is "
            "infeasible (invalid, not unfair)", argument="allocation", index=(l, r), value=usage[l, r].item())
    return x


def running_usage(tv: TimeVaryingInstance, starts: np.ndarray) -> np.ndarray:
    r"""(M, K, T) resources held on each server in each slot by the tasks of ``starts`` (N, M, T).

    A task of user *i* started in slot :math:`\tau` holds :math:`d_i(\tau)` in slots
    :math:`\tau .. \tau + e_i - 1` (TV-TSF Eq. 10b; slots past the horizon are not counted).
    """
    x = np.asarray(starts, float)
    n, m, T = x.shape
    usage = np.zeros((m, tv.n_resources, T))
    for i in range(n):
        e = int(tv.durations[i])
        held = np.einsum("mt,tr->mrt", x[i], tv.task_demands[i])        # (M, K, T) started in t
        for lag in range(min(e, T)):
            usage[:, :, lag:] += held[:, :, : T - lag]
    return usage


def slot_schedule(instance: TimeVaryingInstance, tasks: Any, *, atol: float = ATOL) -> np.ndarray:
    """Validated (n_agents, n_servers, n_slots) integer start schedule of a :class:`~fairalloc.TimeVaryingInstance`.

    Accepts an :class:`~fairalloc.AllocationResult` (its ``tasks``). Every entry must be a whole
    number of tasks started on an eligible server; a user never starts more tasks by slot *t* than it
    submitted by slot *t*; the tasks running in every slot fit every server (TV-TSF Eq. 10b).
    """
    if not isinstance(instance, TimeVaryingInstance):
        raise TypeError(f"instance must be a fairalloc.TimeVaryingInstance, got {type(instance).__name__}")
    raw = _unwrap(tasks, "tasks")
    x = np.array(raw, dtype=float)
    n, M, T = instance.n_agents, instance.n_servers, instance.n_slots
    if x.shape != (n, M, T):
        raise InvalidInstanceError(f"allocation must have shape (n_agents, n_servers, n_slots) = ({n}, {M}, {T}), "
                                   f"got {x.shape}", argument="allocation", value=x.shape)
    bad = ~np.isfinite(x) | (x < -atol) | (np.abs(x - np.round(x)) > atol)
    if bad.any():
        i, l, t = _first(bad)
        raise InvalidInstanceError(f"allocation[{i}, {l}, {t}]={x[i, l, t]!r} must be a whole number of tasks >= 0",
                                   argument="allocation", index=(i, l, t), value=x[i, l, t].item())
    x = np.round(x)
    outside = (x > 0) & ~instance.placement[:, :, None]
    if outside.any():
        i, l, t = _first(outside)
        raise InvalidInstanceError(f"allocation[{i}, {l}, {t}]={x[i, l, t]!r}: user {i} may not run on server {l} "
                                   "(placement)", argument="allocation", index=(i, l, t), value=x[i, l, t].item())
    early = np.cumsum(x.sum(axis=1), axis=1) > np.cumsum(instance.arrivals, axis=1)
    if early.any():
        i, t = _first(early)
        raise InvalidInstanceError(f"allocation[{i}, :, :{t + 1}] starts more tasks by slot {t} than user {i} "
                                   "submitted by then", argument="allocation", index=(i, t),
                                   value=float(x[i, :, : t + 1].sum()))
    usage = running_usage(instance, x)
    caps = instance.cluster.capacities[:, :, None]
    over = usage > caps * (1.0 + atol) + atol
    if over.any():
        l, r, t = _first(over)
        raise InvalidInstanceError(
            f"server {l} resource {r} slot {t}: usage {usage[l, r, t]!r} > capacity {caps[l, r, 0]!r}: the schedule "
            "is infeasible (invalid, not unfair)", argument="allocation", index=(l, r, t), value=usage[l, r, t].item())
    return x
