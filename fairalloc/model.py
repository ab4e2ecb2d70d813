"""Validated, immutable problem instances.

* :class:`Instance`: users with total demands on pooled, divisible resources (SDRF, DRF, max-min).
* :class:`Cluster`: servers with per-server capacities (TSF, TV-TSF, DRFH settings).
* :class:`TaskInstance`: users with indivisible tasks of one demand vector each, a task count, and
  per-user placement constraints on a :class:`Cluster`.
* :class:`TimeVaryingInstance`: the TV-TSF setting: tasks submitted per time slot, with durations.

"Agent" in these models is "user" in the papers and "job owner" in the simulator: a simulator job
belongs to one agent (its user); every job of that user shares the agent's fairness state.

Each class validates its input once, on construction, and raises
:class:`~fairalloc.errors.InvalidInstanceError` naming the argument, index and value. Arrays are
stored as read-only copies; use ``replace(...)`` to derive a modified instance.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from . import shares
from .commitments import as_commitments
from .validation import (as_array, frozen, require_finite, require_integral, require_nonnegative,
                          require_positive, require_ratio_representable, require_shape, require_units)
from .errors import InvalidInstanceError

__all__ = ["Instance", "Cluster", "TaskInstance", "TimeVaryingInstance"]


def _names(argument: str, names: Sequence[str] | None, count: int, prefix: str) -> tuple[str, ...]:
    if names is None:
        return tuple(f"{prefix}{k}" for k in range(count))
    names = tuple(str(s) for s in names)
    if len(names) != count:
        raise InvalidInstanceError(f"{argument} has {len(names)} names, expected {count}",
                                   argument=argument, value=names)
    if len(set(names)) != len(names):
        dup = next(s for s in names if names.count(s) > 1)
        raise InvalidInstanceError(f"{argument} contains {dup!r} twice", argument=argument, value=dup)
    return names


def _units(units: Any, k: int) -> tuple[str | None, ...] | None:
    if units is None:
        return None
    return require_units("resource_units", units, k)


def _check_rows_not_zero(argument: str, arr: np.ndarray, what: str) -> None:
    zero = ~(arr > 0).any(axis=-1)
    if zero.any():
        idx = tuple(int(i) for i in np.argwhere(zero)[0])
        raise InvalidInstanceError(
            f"{argument}[{', '.join(map(str, idx))}]={arr[idx].tolist()!r} is all zero: {what}",
            argument=argument, index=idx, value=arr[idx].tolist())


def _weights(weights: Any, n: int, argument: str = "weights") -> np.ndarray:
    if weights is None:
        return frozen(np.ones(n))
    w = as_array(argument, weights, ndim=1)
    require_shape(argument, w, (n,), names=["n_agents"])
    require_positive(argument, w)
    _check_weight_inverse(argument, w)
    return frozen(w)


def _check_weight_inverse(argument: str, w: np.ndarray) -> None:
    """A level is divided by its weight (SDRF Eq. 5): 1 / w must be finite."""
    with np.errstate(divide="ignore", over="ignore"):
        bad = ~np.isfinite(1.0 / w)
    if bad.any():
        idx = tuple(int(v) for v in np.argwhere(bad)[0])
        raise InvalidInstanceError(f"{argument}{list(idx)}={w[idx].item()!r} is so small that 1 / weight overflows "
                                   "(levels are divided by weights); rescale the weights",
                                   argument=argument, index=idx, value=w[idx].item())


def _placement(placement: Any, n: int, m: int) -> np.ndarray:
    if placement is None:
        return frozen(np.ones((n, m), dtype=bool))
    p = as_array("placement", placement, ndim=2)
    require_shape("placement", p, (n, m), names=["n_agents", "n_servers"])
    require_finite("placement", p)
    bad = (p != 0) & (p != 1)
    if bad.any():
        i, k = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInstanceError(f"placement[{i}, {k}]={p[i, k].item()!r} must be 0/1 (or bool)",
                                   argument="placement", index=(i, k), value=p[i, k])
    p = p.astype(bool)
    empty = ~p.any(axis=1)
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise InvalidInstanceError(
            f"placement[{i}] is all False: user {i} has no eligible server",
            argument="placement", index=(i,), value=p[i].tolist())
    return frozen(p)


class _Frozen:
    """Blocks attribute assignment after ``__init__`` (instances are immutable)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_sealed", False):
            raise AttributeError(f"{type(self).__name__} is immutable; use .replace(...)")
        object.__setattr__(self, name, value)


class Instance(_Frozen):
    r"""Users with Leontief demands on pooled, divisible resources.

    Parameters
    ----------
    demands : array_like, shape (n_agents, n_resources)
        Total demand of each user for each resource, in capacity units (user *i* is satisfied by
        ``demands[i]``). Zero entries mean the user does not need that resource; every user needs at
        least one. A 1-D array is read as one resource, shape (n_agents, 1).
    capacities : array_like, shape (n_resources,), optional
        Resource totals (default: ones, i.e. demands already normalised). A scalar applies to every
        resource.
    weights : array_like, shape (n_agents,), optional
        Positive weights (default: ones).
    agent_names, resource_names : sequence of str, optional
        Labels for tables and files.

    Raises
    ------
    InvalidInstanceError
        NaN / infinite / negative demands, a user with all-zero demand, wrong shapes, capacities
        <= 0, weights <= 0; the message names the argument, index and value.

    Examples
    --------
    The DRF paper's example [1]_ with 100 tasks per user (enough to be unbounded):

    >>> inst = Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18],
    ...                            agent_names=["A", "B"], resource_names=["cpu", "mem"])
    >>> inst.n_agents, inst.n_resources
    (2, 2)
    >>> inst.demands.tolist()
    [[100.0, 400.0], [300.0, 100.0]]

    References
    ----------
    .. [1] A. Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource
       Types", NSDI 2011.
    """

    __slots__ = ("_demands", "_capacities", "_weights", "_agent_names", "_resource_names", "_sealed")

    def __init__(self, demands: Any, capacities: Any = None, weights: Any = None, *,
                 agent_names: Sequence[str] | None = None,
                 resource_names: Sequence[str] | None = None) -> None:
        d = as_array("demands", demands, ndim=(1, 2))
        if d.ndim == 1:
            d = d[:, None]
        n, m = d.shape
        if n == 0 or m == 0:
            raise InvalidInstanceError(f"demands must have at least one user and one resource, got shape {d.shape}",
                                       argument="demands", value=d.shape)
        require_nonnegative("demands", d)
        _check_rows_not_zero("demands", d, "every user must need some resource")
        if capacities is None:
            c = np.ones(m)
        else:
            c = as_array("capacities", capacities, ndim=(0, 1))
            if c.ndim == 0:
                c = np.full(m, float(c))
            require_shape("capacities", c, (m,), names=["n_resources"])
            require_positive("capacities", c)
        # the numeric check after normalisation: finite, positive inputs whose quotient overflows
        require_ratio_representable("demands", d, "capacities", c, result="the normalised demand")
        self._demands = frozen(d)
        self._capacities = frozen(c)
        self._weights = _weights(weights, n)
        self._agent_names = _names("agent_names", agent_names, n, "user")
        self._resource_names = _names("resource_names", resource_names, m, "r")
        self._sealed = True

    @classmethod
    def from_tasks(cls, task_demands: Any, tasks: Any, capacities: Any = None, weights: Any = None,
                   **names: Any) -> "Instance":
        """Build from per-task demands and task counts: ``demands[i] = tasks[i] * task_demands[i]``."""
        td = as_array("task_demands", task_demands, ndim=2)
        k = as_array("tasks", tasks, ndim=1)
        require_shape("tasks", k, (td.shape[0],), names=["n_agents"])
        require_positive("tasks", k)
        require_nonnegative("task_demands", td)
        return cls(td * k[:, None], capacities, weights, **names)

    # --- read-only views -------------------------------------------------------------------
    @property
    def demands(self) -> np.ndarray:
        """(n_agents, n_resources) total demands in capacity units (read-only)."""
        return self._demands

    @property
    def capacities(self) -> np.ndarray:
        """(n_resources,) resource totals (read-only)."""
        return self._capacities

    @property
    def weights(self) -> np.ndarray:
        """(n_agents,) positive weights (read-only)."""
        return self._weights

    @property
    def agent_names(self) -> tuple[str, ...]:
        return self._agent_names

    @property
    def resource_names(self) -> tuple[str, ...]:
        return self._resource_names

    @property
    def n_agents(self) -> int:
        return self._demands.shape[0]

    @property
    def n_resources(self) -> int:
        return self._demands.shape[1]

    @property
    def normalized_demands(self) -> np.ndarray:
        """Demands as fractions of capacity (:func:`fairalloc.shares.normalized_demands`)."""
        return shares.normalized_demands(self._demands, self._capacities)

    # --- derivation, comparison, serialisation ---------------------------------------------
    def replace(self, **changes: Any) -> "Instance":
        """A new, validated instance with some fields replaced (``demands=``, ``weights=``, ...)."""
        kw = self.to_dict(arrays=True)
        unknown = set(changes) - set(kw)
        if unknown:
            raise TypeError(f"replace() got unexpected field(s) {sorted(unknown)}; fields: {sorted(kw)}")
        kw.update(changes)
        if "demands" in changes and "agent_names" not in changes:
            n_new = np.shape(changes["demands"])[0] if np.ndim(changes["demands"]) else 0
            if n_new != self.n_agents:
                kw["agent_names"] = None
        return type(self)(**kw)

    def to_dict(self, *, arrays: bool = False) -> dict[str, Any]:
        """Plain-Python (JSON-ready) description; ``Instance.from_dict`` inverts it."""
        conv = (lambda a: a.copy()) if arrays else (lambda a: a.tolist())
        return {"demands": conv(self._demands), "capacities": conv(self._capacities),
                "weights": conv(self._weights), "agent_names": list(self._agent_names),
                "resource_names": list(self._resource_names)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Instance":
        allowed = {"demands", "capacities", "weights", "agent_names", "resource_names"}
        unknown = set(data) - allowed
        if unknown:
            raise InvalidInstanceError(f"unknown instance field(s) {sorted(unknown)}; allowed: {sorted(allowed)}",
                                       argument=sorted(unknown)[0])
        return cls(**dict(data))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Instance):
            return NotImplemented
        return (np.array_equal(self._demands, other._demands)
                and np.array_equal(self._capacities, other._capacities)
                and np.array_equal(self._weights, other._weights))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        w = "" if np.all(self._weights == 1) else f", weights={self._weights.tolist()}"
        return (f"Instance(n_agents={self.n_agents}, n_resources={self.n_resources}, "
                f"capacities={self._capacities.tolist()}{w})")


class Cluster(_Frozen):
    """Servers with per-server capacities.

    Parameters
    ----------
    capacities : array_like, shape (n_servers, n_resources)
        Capacity of each server for each resource in raw units (cores, GB, ...). Entries may be zero
        (a server without GPUs) but every server has some capacity and every resource exists
        somewhere. Normalised views (TV-TSF Eq. 1) come from :func:`fairalloc.shares.normalized_capacities`.
    server_names, resource_names : sequence of str, optional
        Labels (default ``s0, s1, ...`` and ``r0, r1, ...``).
    resource_units : sequence of str or None, optional
        The unit of each resource (``"cores"``, ``"GB"``, ...; default: not declared).
        :func:`fairalloc.simulate` refuses a workload declared in other units
        (:mod:`fairalloc.workloads.units`).

    Examples
    --------
    >>> c = Cluster.from_types([2, 1], [[4, 16], [8, 32]])
    >>> c.n_servers, c.totals.tolist()
    (3, [16.0, 64.0])
    """

    __slots__ = ("_capacities", "_server_names", "_resource_names", "_resource_units", "_sealed")

    def __init__(self, capacities: Any, *, server_names: Sequence[str] | None = None,
                 resource_names: Sequence[str] | None = None,
                 resource_units: Sequence[str | None] | None = None) -> None:
        c = as_array("capacities", capacities, ndim=2)
        if c.shape[0] == 0 or c.shape[1] == 0:
            raise InvalidInstanceError(f"capacities must have at least one server and one resource, got {c.shape}",
                                       argument="capacities", value=c.shape)
        require_nonnegative("capacities", c)
        _check_rows_not_zero("capacities", c, "every server must have some capacity")
        empty = ~(c > 0).any(axis=0)
        if empty.any():
            r = int(np.flatnonzero(empty)[0])
            raise InvalidInstanceError(f"capacities[:, {r}] is zero on every server: resource {r} does not exist",
                                       argument="capacities", index=(r,), value=0.0)
        self._capacities = frozen(c)
        self._server_names = _names("server_names", server_names, c.shape[0], "s")
        self._resource_names = _names("resource_names", resource_names, c.shape[1], "r")
        self._resource_units = _units(resource_units, c.shape[1])
        self._sealed = True

    @classmethod
    def from_types(cls, counts: Sequence[int], capacities: Any, **kw: Any) -> "Cluster":
        """Build ``counts[k]`` identical servers of capacity ``capacities[k]`` for each type k."""
        k = require_integral("counts", as_array("counts", counts, ndim=1))
        c = as_array("capacities", capacities, ndim=2)
        require_shape("capacities", c, (k.shape[0], None), names=["n_types", "n_resources"])
        require_nonnegative("counts", k.astype(float))
        return cls(np.repeat(c, k, axis=0), **kw)

    @classmethod
    def identical(cls, n_servers: int, capacity: Any, **kw: Any) -> "Cluster":
        """``n_servers`` identical servers of capacity vector ``capacity``."""
        return cls.from_types([n_servers], [capacity], **kw)

    @property
    def capacities(self) -> np.ndarray:
        """(n_servers, n_resources) raw capacities (read-only)."""
        return self._capacities

    @property
    def totals(self) -> np.ndarray:
        """(n_resources,) cluster-wide totals."""
        return self._capacities.sum(axis=0)

    @property
    def normalized(self) -> np.ndarray:
        """Capacities as fractions of the totals (TV-TSF Eq. 1: columns sum to 1)."""
        return shares.normalized_capacities(self._capacities)

    @property
    def n_servers(self) -> int:
        return self._capacities.shape[0]

    @property
    def n_resources(self) -> int:
        return self._capacities.shape[1]

    @property
    def server_names(self) -> tuple[str, ...]:
        return self._server_names

    @property
    def resource_names(self) -> tuple[str, ...]:
        return self._resource_names

    @property
    def resource_units(self) -> tuple[str | None, ...] | None:
        """The unit of each resource, or None when not declared."""
        return self._resource_units

    def server_types(self) -> tuple[np.ndarray, np.ndarray]:
        """Group identical servers: ``(type_capacities (T, K), type_of_server (M,))``."""
        uniq, inverse = np.unique(self._capacities, axis=0, return_inverse=True)
        return uniq, inverse.reshape(-1)

    def to_dict(self) -> dict[str, Any]:
        out = {"capacities": self._capacities.tolist(), "server_names": list(self._server_names),
               "resource_names": list(self._resource_names)}
        if self._resource_units is not None:
            out["resource_units"] = list(self._resource_units)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cluster):
            return NotImplemented
        return np.array_equal(self._capacities, other._capacities)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Cluster(n_servers={self.n_servers}, n_resources={self.n_resources}, totals={self.totals.tolist()})"


def _as_cluster(cluster: Any) -> Cluster:
    return cluster if isinstance(cluster, Cluster) else Cluster(cluster)


def _task_demands(argument: str, value: Any, n_resources: int, n_slots: int | None = None) -> np.ndarray:
    d = as_array(argument, value, ndim=(2, 3) if n_slots is not None else 2)
    require_shape(argument, d, (d.shape[0],) + ((None,) if d.ndim == 3 else ()) + (n_resources,),
                  names=["n_agents"] + (["n_slots"] if d.ndim == 3 else []) + ["n_resources"])
    require_nonnegative(argument, d)
    _check_rows_not_zero(argument, d, "every task must need some resource")
    return d


def _check_fits(d: np.ndarray, caps: np.ndarray, placement: np.ndarray, argument: str) -> None:
    """Each user's task must fit, alone, on at least one eligible server (d is (N, K) or (N, T, K)); the
    normalised demand (over the cluster totals) and the count of tasks that fit must be representable."""
    require_ratio_representable(argument, d, "the cluster totals", caps.sum(axis=0), result="the task's share")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = np.where(d > 0, caps.max(axis=0) / np.where(d > 0, d, 1.0), 0.0)
    if not np.isfinite(ratio).all():
        idx = tuple(int(v) for v in np.argwhere(~np.isfinite(ratio))[0])
        raise InvalidInstanceError(f"{argument}[{', '.join(map(str, idx))}]={d[idx].item()!r} is so small next to the "
                                   f"server capacities that the count of tasks that fit overflows; rescale the units",
                                   argument=argument, index=idx, value=d[idx].item())
    fit = shares.tasks_that_fit(caps, d[..., None, :]) >= 1          # (N, [T,] M)
    if d.ndim == 3:
        fit_any = fit.any(axis=-1)                                     # (N, T)
        eligible = (fit & placement[:, None, :]).any(axis=-1)
    else:
        fit_any = fit.any(axis=-1)
        eligible = (fit & placement).any(axis=-1)
    if not fit_any.all():
        idx = tuple(int(v) for v in np.argwhere(~fit_any)[0])
        raise InvalidInstanceError(
            f"{argument}[{', '.join(map(str, idx))}]={d[idx].tolist()!r} fits on no server "
            f"(user {idx[0]} could never run a task: h_i = 0)", argument=argument, index=idx,
            value=d[idx].tolist())
    if not eligible.all():
        idx = tuple(int(v) for v in np.argwhere(~eligible)[0])
        servers = np.flatnonzero(placement[idx[0]]).tolist()
        raise InvalidInstanceError(
            f"{argument}[{', '.join(map(str, idx))}]={d[idx].tolist()!r} fits on none of user "
            f"{idx[0]}'s eligible servers {servers}", argument=argument, index=idx, value=d[idx].tolist())


def _from_dict(cls: type, data: Mapping[str, Any], allowed: set[str]) -> Any:
    """Shared ``from_dict`` of the server-based instances: unknown or missing fields are named."""
    if not isinstance(data, Mapping):
        raise InvalidInstanceError(f"{cls.__name__} data must be a mapping, got {type(data).__name__}",
                                   argument="data", value=type(data).__name__)
    data = dict(data)
    unknown = set(data) - allowed - {"cluster"}
    if unknown:
        raise InvalidInstanceError(f"unknown {cls.__name__} field(s) {sorted(unknown)}; allowed: "
                                   f"{sorted(allowed | {'cluster'})}", argument=sorted(unknown)[0])
    if "cluster" not in data:
        raise InvalidInstanceError(f"{cls.__name__} data needs a 'cluster' (capacities per server)",
                                   argument="cluster")
    cl = data.pop("cluster")
    if isinstance(cl, Mapping):
        extra = set(cl) - {"capacities", "server_names", "resource_names", "resource_units"}
        if extra:
            raise InvalidInstanceError(f"unknown cluster field(s) {sorted(extra)}; allowed: "
                                       f"['capacities', 'resource_names', 'resource_units', 'server_names']",
                                       argument="cluster")
        if "capacities" not in cl:
            raise InvalidInstanceError("cluster needs 'capacities' (n_servers x n_resources)", argument="cluster")
        cl = Cluster(**cl)
    return cls(cl, **data)


class TaskInstance(_Frozen):
    """Users with indivisible tasks on a :class:`Cluster`, with placement constraints.

    The input of the task mechanisms (TSF, CDRF, SDRF on servers; :func:`fairalloc.tsf`,
    :mod:`fairalloc.exact`). Every array is validated, copied and read-only.

    Parameters
    ----------
    cluster : Cluster or array_like, shape (n_servers, n_resources)
        The servers; an array is read as ``Cluster(cluster)``.
    task_demands : array_like, shape (n_agents, n_resources)
        Demand of one task of each user, in the cluster's raw units.
    tasks : array_like of int, shape (n_agents,)
        How many tasks each user wants (>= 0, whole numbers). Use a large count for "unbounded".
    placement : array_like of bool, shape (n_agents, n_servers), optional
        ``placement[i, m]`` is True when user *i*'s tasks may run on server *m* (default: everywhere).
    weights : array_like, shape (n_agents,), optional
        Positive weights (default: ones).
    commitments : array_like, shape (n_agents, n_resources), optional
        SDRF commitments as fractions of the cluster totals (default zeros).
    agent_names : sequence of str, optional
        Labels for tables and files (default ``user0``, ``user1``, ...).

    Attributes
    ----------
    cluster : Cluster
    task_demands, tasks, placement, weights, commitments : ndarray
        The validated inputs (read-only; ``tasks`` int64, ``placement`` bool).
    monopoly : ndarray, shape (n_agents,)
        Monopoly counts :math:`h_i` (TV-TSF Eq. 4, :func:`fairalloc.shares.monopoly_tasks`; placement
        ignored).
    fits : ndarray, shape (n_agents, n_servers)
        Tasks of each user that fit alone on each server, 0 where not eligible.
    n_agents, n_servers, n_resources : int

    Raises
    ------
    InvalidInstanceError
        Bad values or shapes; a placement row with no server; a user whose task fits on no server
        (its monopoly count h_i would be 0) or on none of its eligible servers.

    See Also
    --------
    Instance : pooled, divisible demands.
    Cluster : the servers.

    Examples
    --------
    The DRF paper's example as one server <9 CPU, 18 GB>: user A (<1, 4>) alone fits
    floor(min(9/1, 18/4)) = 4 tasks, B (<3, 1>) floor(min(9/3, 18/1)) = 3:

    >>> ti = TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> ti.monopoly.tolist()
    [4.0, 3.0]

    Two servers and a task <2, 1> allowed on server 0 only: :math:`h` still counts both servers
    (2 + 1), ``fits`` only the eligible one. A task <10, 1> fits on no server:

    >>> ti = TaskInstance([[4, 4], [3, 8]], [[2, 1]], tasks=[5], placement=[[True, False]])
    >>> ti.monopoly.tolist(), ti.fits.tolist()
    ([3.0], [[2.0, 0.0]])
    >>> TaskInstance([[9, 18]], [[10, 1]], tasks=[1])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: task_demands[0]=[10.0, 1.0] fits on no server (user 0 could never run a task: h_i = 0)
    """

    __slots__ = ("_cluster", "_task_demands", "_tasks", "_placement", "_weights", "_commitments",
                 "_agent_names", "_sealed")

    def __init__(self, cluster: Any, task_demands: Any, tasks: Any, placement: Any = None,
                 weights: Any = None, commitments: Any = None, *,
                 agent_names: Sequence[str] | None = None) -> None:
        cl = _as_cluster(cluster)
        d = _task_demands("task_demands", task_demands, cl.n_resources)
        n = d.shape[0]
        k = as_array("tasks", tasks, ndim=1)
        require_shape("tasks", k, (n,), names=["n_agents"])
        require_nonnegative("tasks", k)
        k = require_integral("tasks", k)
        p = _placement(placement, n, cl.n_servers)
        _check_fits(d, cl.capacities, p, "task_demands")
        c = as_commitments(commitments, n, cl.n_resources, resource_names=cl.resource_names)   # the one rule
        self._cluster = cl
        self._task_demands = frozen(d)
        self._tasks = frozen(k)
        self._placement = p
        self._weights = _weights(weights, n)
        self._commitments = frozen(c)
        self._agent_names = _names("agent_names", agent_names, n, "user")
        self._sealed = True

    cluster = property(lambda self: self._cluster, doc="The :class:`Cluster`.")
    task_demands = property(lambda self: self._task_demands, doc="(n_agents, n_resources) per-task demands.")
    tasks = property(lambda self: self._tasks, doc="(n_agents,) tasks wanted (int64).")
    placement = property(lambda self: self._placement, doc="(n_agents, n_servers) eligibility (bool).")
    weights = property(lambda self: self._weights, doc="(n_agents,) weights.")
    commitments = property(lambda self: self._commitments, doc="(n_agents, n_resources) commitments.")
    agent_names = property(lambda self: self._agent_names)

    @property
    def n_agents(self) -> int:
        return self._task_demands.shape[0]

    @property
    def n_servers(self) -> int:
        return self._cluster.n_servers

    @property
    def n_resources(self) -> int:
        return self._cluster.n_resources

    @property
    def monopoly(self) -> np.ndarray:
        """(n_agents,) monopoly counts h_i (:func:`fairalloc.shares.monopoly_tasks`, placement ignored)."""
        return shares.monopoly_tasks(self._task_demands, self._cluster.capacities)

    @property
    def fits(self) -> np.ndarray:
        """(n_agents, n_servers) tasks of each user that fit alone on each eligible server (0 where not eligible)."""
        f = shares.tasks_that_fit(self._cluster.capacities, self._task_demands[:, None, :])
        return np.where(self._placement, f, 0.0)

    def replace(self, **changes: Any) -> "TaskInstance":
        kw = dict(cluster=self._cluster, task_demands=self._task_demands, tasks=self._tasks,
                  placement=self._placement, weights=self._weights, commitments=self._commitments,
                  agent_names=self._agent_names)
        unknown = set(changes) - set(kw)
        if unknown:
            raise TypeError(f"replace() got unexpected field(s) {sorted(unknown)}")
        kw.update(changes)
        return type(self)(**kw)

    def to_dict(self) -> dict[str, Any]:
        return {"cluster": self._cluster.to_dict(), "task_demands": self._task_demands.tolist(),
                "tasks": self._tasks.tolist(), "placement": self._placement.astype(int).tolist(),
                "weights": self._weights.tolist(), "commitments": self._commitments.tolist(),
                "agent_names": list(self._agent_names)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TaskInstance":
        """Inverse of :meth:`to_dict`; ``cluster`` may be a mapping or a capacity matrix."""
        return _from_dict(cls, data, {"task_demands", "tasks", "placement", "weights", "commitments",
                                      "agent_names"})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskInstance):
            return NotImplemented
        return (self._cluster == other._cluster and np.array_equal(self._task_demands, other._task_demands)
                and np.array_equal(self._tasks, other._tasks)
                and np.array_equal(self._placement, other._placement)
                and np.array_equal(self._weights, other._weights)
                and np.array_equal(self._commitments, other._commitments))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"TaskInstance(n_agents={self.n_agents}, n_servers={self.n_servers}, "
                f"n_resources={self.n_resources}, tasks={self._tasks.tolist() if self.n_agents <= 8 else '...'})")


class TimeVaryingInstance(_Frozen):
    """The TV-TSF setting: tasks submitted per time slot, run for a fixed number of slots.

    Parameters
    ----------
    cluster : Cluster or array_like (n_servers, n_resources)
    task_demands : array_like, shape (n_agents, n_resources) or (n_agents, n_slots, n_resources)
        Per-task demand d_i(t) (constant over time when 2-D). A task started in slot t uses d_i(t).
    arrivals : array_like of int, shape (n_agents, n_slots)
        B_i(t), tasks submitted in each slot (>= 0). Tasks not started stay pending.
    durations : array_like of int, shape (n_agents,)
        e_i, slots each task runs (>= 1).
    placement : array_like of bool, shape (n_agents, n_servers), optional
    weights : array_like, shape (n_agents,) or (n_agents, n_slots), optional
        omega_i(t) (default ones).

    Examples
    --------
    >>> tv = TimeVaryingInstance([[4, 4]], [[1, 2], [2, 1]], arrivals=[[2, 0, 1], [1, 1, 0]], durations=[1, 2])
    >>> tv.n_slots, tv.monopoly.tolist()
    (3, [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
    """

    __slots__ = ("_cluster", "_task_demands", "_arrivals", "_durations", "_placement", "_weights",
                 "_agent_names", "_sealed")

    def __init__(self, cluster: Any, task_demands: Any, arrivals: Any, durations: Any,
                 placement: Any = None, weights: Any = None, *,
                 agent_names: Sequence[str] | None = None) -> None:
        cl = _as_cluster(cluster)
        a = as_array("arrivals", arrivals, ndim=2)
        n, t = a.shape
        if n == 0 or t == 0:
            raise InvalidInstanceError(f"arrivals must have at least one user and one slot, got {a.shape}",
                                       argument="arrivals", value=a.shape)
        require_nonnegative("arrivals", a)
        a = require_integral("arrivals", a)
        d = _task_demands("task_demands", task_demands, cl.n_resources, n_slots=t)
        if d.shape[0] != n or (d.ndim == 3 and d.shape[1] != t):
            raise InvalidInstanceError(
                f"task_demands must have shape ({n}, {cl.n_resources}) or ({n}, {t}, {cl.n_resources}) "
                f"to match arrivals {a.shape}, got {d.shape}", argument="task_demands", value=d.shape)
        if d.ndim == 2:
            d = np.repeat(d[:, None, :], t, axis=1)
        e = as_array("durations", durations, ndim=1)
        require_shape("durations", e, (n,), names=["n_agents"])
        require_finite("durations", e)
        if (e < 1).any():
            i = int(np.flatnonzero(e < 1)[0])
            raise InvalidInstanceError(f"durations[{i}]={e[i].item()!r} must be >= 1 slot",
                                       argument="durations", index=(i,), value=e[i].item())
        e = require_integral("durations", e)
        p = _placement(placement, n, cl.n_servers)
        _check_fits(d, cl.capacities, p, "task_demands")
        if weights is None:
            w = np.ones((n, t))
        else:
            w = as_array("weights", weights, ndim=(1, 2))
            if w.ndim == 1:
                require_shape("weights", w, (n,), names=["n_agents"])
                w = np.repeat(w[:, None], t, axis=1)
            require_shape("weights", w, (n, t), names=["n_agents", "n_slots"])
            require_positive("weights", w)
            _check_weight_inverse("weights", w)
        self._cluster = cl
        self._task_demands = frozen(d)
        self._arrivals = frozen(a)
        self._durations = frozen(e)
        self._placement = p
        self._weights = frozen(w)
        self._agent_names = _names("agent_names", agent_names, n, "user")
        self._sealed = True

    cluster = property(lambda self: self._cluster)
    task_demands = property(lambda self: self._task_demands, doc="(n_agents, n_slots, n_resources) d_i(t).")
    arrivals = property(lambda self: self._arrivals, doc="(n_agents, n_slots) B_i(t) (int64).")
    durations = property(lambda self: self._durations, doc="(n_agents,) e_i in slots (int64).")
    placement = property(lambda self: self._placement)
    weights = property(lambda self: self._weights, doc="(n_agents, n_slots) omega_i(t).")
    agent_names = property(lambda self: self._agent_names)

    @property
    def n_agents(self) -> int:
        return self._arrivals.shape[0]

    @property
    def n_slots(self) -> int:
        return self._arrivals.shape[1]

    @property
    def n_servers(self) -> int:
        return self._cluster.n_servers

    @property
    def n_resources(self) -> int:
        return self._cluster.n_resources

    @property
    def monopoly(self) -> np.ndarray:
        """(n_agents, n_slots) h_i(t) (TV-TSF Eq. 4, full capacities, placement ignored)."""
        return shares.monopoly_tasks(self._task_demands, self._cluster.capacities)

    def replace(self, **changes: Any) -> "TimeVaryingInstance":
        kw = dict(cluster=self._cluster, task_demands=self._task_demands, arrivals=self._arrivals,
                  durations=self._durations, placement=self._placement, weights=self._weights,
                  agent_names=self._agent_names)
        unknown = set(changes) - set(kw)
        if unknown:
            raise TypeError(f"replace() got unexpected field(s) {sorted(unknown)}")
        kw.update(changes)
        return type(self)(**kw)

    def to_dict(self) -> dict[str, Any]:
        return {"cluster": self._cluster.to_dict(), "task_demands": self._task_demands.tolist(),
                "arrivals": self._arrivals.tolist(), "durations": self._durations.tolist(),
                "placement": self._placement.astype(int).tolist(), "weights": self._weights.tolist(),
                "agent_names": list(self._agent_names)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TimeVaryingInstance":
        """Inverse of :meth:`to_dict`; ``cluster`` may be a mapping or a capacity matrix."""
        return _from_dict(cls, data, {"task_demands", "arrivals", "durations", "placement", "weights",
                                      "agent_names"})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimeVaryingInstance):
            return NotImplemented
        return (self._cluster == other._cluster
                and all(np.array_equal(getattr(self, f), getattr(other, f))
                        for f in ("_task_demands", "_arrivals", "_durations", "_placement", "_weights")))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"TimeVaryingInstance(n_agents={self.n_agents}, n_servers={self.n_servers}, "
                f"n_slots={self.n_slots}, n_resources={self.n_resources})")
