"""Instance files for the exact programs: ``kind: tasks`` and ``kind: time-varying`` (JSON or YAML).

Registered in :data:`fairalloc.io.INSTANCE_KINDS`, so :func:`fairalloc.io.load_instance` and
``fairalloc solve FILE`` read them. Two forms each.

*Per-user form* (names everywhere; servers may come in types with a count)::

    kind: tasks                      # or: time-varying (alias: tvtsf)
    resources: [cpu, mem]            # optional names
    servers:
      - {name: s0, capacity: [4, 16]}
      - {type: big, capacity: [8, 32], count: 2}      # becomes big0, big1
    slots: 3                         # time-varying only (optional: the length of arrivals; more slots
                                     # extend the horizon with no arrivals)
    users:
      - name: A
        demand: [1, 4]               # per task; time-varying: also a list of one vector per slot
        tasks: 10                    # tasks kind: tasks wanted
        arrivals: [2, 1, 0]          # time-varying kind: tasks submitted per slot (same length for all)
        duration: 2                  # time-varying kind: slots per task
        weight: 1                    # optional (time-varying: also one per slot)
        commitment: [0.1, 0.0]       # tasks kind, optional: SDRF commitments (fractions of totals, each at most 1)
        servers: [s0, big0]          # optional placement by server name (default: every server)

*Matrix form*: the fields of :meth:`fairalloc.TaskInstance.to_dict` /
:meth:`fairalloc.TimeVaryingInstance.to_dict` (``cluster``, ``task_demands``, ``tasks`` or
``arrivals`` and ``durations``, ``placement``, ``weights``, ...) plus ``kind``.

Both forms may carry ``name`` and ``description`` (ignored). Errors name the field and the user.
"""

from __future__ import annotations

from types import SimpleNamespace

from typing import Any, Mapping

import numpy as np

from ..errors import InvalidInstanceError
from ..model import Cluster, TaskInstance, TimeVaryingInstance

__all__ = ["parse_tasks", "parse_time_varying", "register_kinds"]

_META = {"kind", "name", "description"}


def _servers(data: Mapping[str, Any], where: str) -> tuple[Cluster, list[str]]:
    rows = data.get("servers")
    if not isinstance(rows, list) or not rows:
        raise InvalidInstanceError(f"{where}: 'servers' must be a non-empty list of {{name, capacity}} "
                                   f"or {{type, capacity, count}}", argument="servers")
    caps, names = [], []
    for k, row in enumerate(rows):
        if not isinstance(row, Mapping) or "capacity" not in row:
            raise InvalidInstanceError(f"{where}: servers[{k}] needs a 'capacity'", argument="servers",
                                       index=(k,), value=row)
        unknown = set(row) - {"name", "type", "capacity", "count"}
        if unknown:
            raise InvalidInstanceError(f"{where}: servers[{k}] has unknown field(s) {sorted(unknown)}",
                                       argument="servers", index=(k,), value=sorted(unknown))
        count = row.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise InvalidInstanceError(f"{where}: servers[{k}].count={count!r} must be a positive integer",
                                       argument="servers", index=(k,), value=count)
        base = str(row.get("name", row.get("type", f"s{k}")))
        for j in range(count):
            caps.append(row["capacity"])
            names.append(base if count == 1 and "type" not in row else f"{base}{j}")
    res = data.get("resources")
    return Cluster(caps, server_names=names, resource_names=res), names


def _placement(users: list, names: list[str], where: str) -> np.ndarray | None:
    if not any(isinstance(u, Mapping) and "servers" in u for u in users):
        return None
    index = {n: k for k, n in enumerate(names)}
    p = np.zeros((len(users), len(names)), dtype=bool)
    for i, u in enumerate(users):
        allowed = u.get("servers")
        if allowed is None:
            p[i] = True
            continue
        for s in allowed:
            if str(s) not in index:
                raise InvalidInstanceError(f"{where}: users[{i}].servers names unknown server {s!r}; servers: "
                                           f"{names}", argument="placement", index=(i,), value=s)
            p[i, index[str(s)]] = True
    return p


def _users(data: Mapping[str, Any], where: str, required: tuple[str, ...], allowed: set[str]) -> list:
    users = data.get("users")
    if not isinstance(users, list) or not users:
        raise InvalidInstanceError(f"{where}: 'users' must be a non-empty list", argument="users")
    for i, u in enumerate(users):
        if not isinstance(u, Mapping):
            raise InvalidInstanceError(f"{where}: users[{i}] must be a mapping", argument="users", index=(i,))
        missing = [f for f in required if f not in u]
        if missing:
            raise InvalidInstanceError(f"{where}: users[{i}] ({u.get('name', f'user{i}')}) lacks {missing}",
                                       argument=missing[0], index=(i,))
        unknown = set(u) - allowed
        if unknown:
            raise InvalidInstanceError(f"{where}: users[{i}] has unknown field(s) {sorted(unknown)}; allowed: "
                                       f"{sorted(allowed)}", argument=sorted(unknown)[0], index=(i,))
    return users


def parse_tasks(data: Mapping[str, Any], where: str = "<data>"):
    """A :class:`~fairalloc.TaskInstance` from a ``kind: tasks`` mapping, in either form.

    Parameters
    ----------
    data : Mapping
        The file's content, in the per-user or the matrix form (module docstring).
    where : str, optional
        The source, for error messages and ``InstanceSpec.source`` (default ``"<data>"``).

    Returns
    -------
    fairalloc.io.InstanceSpec
        ``kind`` ``"tasks"``; ``commitments`` None (they live on the instance).

    Raises
    ------
    InvalidInstanceError
        A missing or unknown field (named, with the user), an unknown server name in ``servers``, or
        anything :class:`~fairalloc.TaskInstance` refuses.

    Examples
    --------
    A server ``s0`` and two servers of type ``big``; user A may use ``s0`` and ``big0`` only. A's task
    <1, 4> fits 4 times on <4, 16> and 8 times on each <8, 32>, so its monopoly count is 4 + 8 + 8:

    >>> spec = parse_tasks({"kind": "tasks",
    ...     "servers": [{"name": "s0", "capacity": [4, 16]}, {"type": "big", "capacity": [8, 32], "count": 2}],
    ...     "users": [{"name": "A", "demand": [1, 4], "tasks": 10, "servers": ["s0", "big0"]},
    ...               {"name": "B", "demand": [2, 2], "tasks": 3}]})
    >>> ti = spec.instance
    >>> ti.cluster.server_names, ti.placement.astype(int).tolist(), ti.monopoly.tolist()
    (('s0', 'big0', 'big1'), [[1, 1, 0], [1, 1, 1]], [20.0, 10.0])
    >>> parse_tasks({"servers": [{"capacity": [4, 16]}], "users": [{"name": "A", "demand": [1, 4]}]})
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: <data>: users[0] (A) lacks ['tasks']
    """
    from ..io import InstanceSpec, _commitments_in_range

    if "users" not in data:
        return InstanceSpec(TaskInstance.from_dict({k: v for k, v in data.items() if k not in _META}), None,
                            where, "tasks")
    extra = set(data) - _META - {"resources", "servers", "users"}
    if extra:
        raise InvalidInstanceError(f"{where}: unknown field(s) {sorted(extra)} for kind 'tasks'",
                                   argument=sorted(extra)[0])
    cl, names = _servers(data, where)
    users = _users(data, where, ("demand", "tasks"),
                   {"name", "demand", "tasks", "weight", "commitment", "servers"})
    n = len(users)
    w = [u.get("weight", 1) for u in users]
    has_c = any("commitment" in u for u in users)
    c = [u.get("commitment", [0.0] * cl.n_resources) for u in users] if has_c else None
    ti = TaskInstance(cl, [u["demand"] for u in users], [u["tasks"] for u in users],
                      placement=_placement(users, names, where), weights=w, commitments=c,
                      agent_names=[str(u.get("name", f"user{i}")) for i, u in enumerate(users)])
    assert ti.n_agents == n
    if has_c:
        _commitments_in_range(ti.commitments, SimpleNamespace(n_agents=n, n_resources=cl.n_resources,   # pooled files' rule
                                                              resource_names=cl.resource_names), where)
    return InstanceSpec(ti, None, where, "tasks")


def parse_time_varying(data: Mapping[str, Any], where: str = "<data>"):
    """A :class:`~fairalloc.TimeVaryingInstance` from a ``kind: time-varying`` mapping, in either form.

    Parameters
    ----------
    data : Mapping
        The file's content, in the per-user or the matrix form (module docstring).
    where : str, optional
        The source, for error messages and ``InstanceSpec.source`` (default ``"<data>"``).

    Returns
    -------
    fairalloc.io.InstanceSpec
        ``kind`` ``"time_varying"``.

    Raises
    ------
    InvalidInstanceError
        A missing or unknown field, arrivals of different lengths (never padded), fractional arrivals,
        ``slots`` shorter than the arrivals, or anything :class:`~fairalloc.TimeVaryingInstance`
        refuses.

    Examples
    --------
    :func:`fairalloc.exact.tvtsf_milp`'s instance as a file; each task fits twice on <4, 4>, so
    :math:`h_i(t) = 2`:

    >>> spec = parse_time_varying({"servers": [{"name": "s0", "capacity": [4, 4]}], "users": [
    ...     {"name": "A", "demand": [1, 2], "arrivals": [2, 0, 1], "duration": 1},
    ...     {"name": "B", "demand": [2, 1], "arrivals": [1, 1, 0], "duration": 2}]})
    >>> spec.instance.n_slots, spec.instance.monopoly.tolist()
    (3, [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
    """
    from ..io import InstanceSpec, _commitments_in_range

    if "users" not in data:
        return InstanceSpec(TimeVaryingInstance.from_dict({k: v for k, v in data.items() if k not in _META}),
                            None, where, "time_varying")
    extra = set(data) - _META - {"resources", "servers", "users", "slots"}
    if extra:
        raise InvalidInstanceError(f"{where}: unknown field(s) {sorted(extra)} for kind 'time-varying'",
                                   argument=sorted(extra)[0])
    cl, names = _servers(data, where)
    users = _users(data, where, ("demand", "arrivals", "duration"),
                   {"name", "demand", "arrivals", "duration", "weight", "servers"})
    lengths = [len(u["arrivals"]) if isinstance(u["arrivals"], (list, tuple)) else 1 for u in users]
    slots = data.get("slots", lengths[0])
    arr = np.zeros((len(users), slots), dtype=np.int64)
    for i, u in enumerate(users):
        a = list(u["arrivals"]) if isinstance(u["arrivals"], (list, tuple)) else [u["arrivals"]]
        if len(a) != lengths[0]:                    # users are not padded with zeros (fairalloc.io rules)
            raise InvalidInstanceError(f"{where}: users[{i}].arrivals lists {len(a)} slots, users[0].arrivals "
                                       f"{lengths[0]}; list every slot (zeros included)", argument="arrivals",
                                       index=(i,), value=len(a))
        if len(a) > slots:
            raise InvalidInstanceError(f"{where}: users[{i}].arrivals has {len(a)} slots, more than slots={slots}",
                                       argument="arrivals", index=(i,), value=len(a))
        try:
            arr[i, :len(a)] = a
        except (TypeError, ValueError):
            raise InvalidInstanceError(f"{where}: users[{i}].arrivals={a!r} must be whole numbers",
                                       argument="arrivals", index=(i,), value=a) from None
    demands = []
    for i, u in enumerate(users):
        d = np.asarray(u["demand"], dtype=float)
        demands.append(np.repeat(d[None, :], slots, axis=0) if d.ndim == 1 else d)
    w = [u.get("weight", 1) for u in users]
    w = [np.full(slots, float(x)) if np.ndim(x) == 0 else x for x in w]
    tv = TimeVaryingInstance(cl, np.stack(demands) if len({np.shape(x) for x in demands}) == 1 else demands,
                             arr, [u["duration"] for u in users], placement=_placement(users, names, where),
                             weights=w, agent_names=[str(u.get("name", f"user{i}")) for i, u in enumerate(users)])
    return InstanceSpec(tv, None, where, "time_varying")


def register_kinds() -> None:
    """Add ``tasks``, ``time-varying`` (and the aliases ``time_varying``, ``tvtsf``) to :data:`fairalloc.io.INSTANCE_KINDS`.

    Called when :mod:`fairalloc.exact` is imported, so that :func:`fairalloc.io.load_instance` and
    ``fairalloc solve FILE`` read these kinds; calling it again changes nothing.

    Examples
    --------
    >>> import fairalloc.io
    >>> register_kinds()
    >>> sorted(fairalloc.io.INSTANCE_KINDS)
    ['pooled', 'tasks', 'time-varying', 'time_varying', 'tvtsf']
    """
    from .. import io

    io.INSTANCE_KINDS.setdefault("tasks", parse_tasks)
    io.INSTANCE_KINDS.setdefault("time-varying", parse_time_varying)
    io.INSTANCE_KINDS.setdefault("time_varying", parse_time_varying)
    io.INSTANCE_KINDS.setdefault("tvtsf", parse_time_varying)
