"""Seeded random instances for the exact programs (tests, benchmarks, examples).

Clusters mimic the TV-TSF paper's Table 3 (CPU cores, memory GB; a few server types in several
copies). Placement constraints are drawn per (user, server *type*), the way real constraints work
(a kernel version, a GPU, an architecture are properties of a machine type), so identical servers
stay interchangeable. Every user gets at least one eligible type on which its task fits. Demands
and capacities are integers, so every share is an exact rational.

These generators serve the exact programs; workload generators for simulations (Lublin-Feitelson,
Google-like, Alibaba-like) live in :mod:`fairalloc.workloads`.
"""

from __future__ import annotations

import numpy as np

from ..rng import as_generator
from ..model import Cluster, TaskInstance, TimeVaryingInstance

__all__ = ["SERVER_TYPES", "random_cluster", "random_task_instance", "random_time_varying_instance",
           "dense_time_varying_instance"]

#: (cores, GB) of the ten server types of the TV-TSF paper's Table 3.
SERVER_TYPES = np.array([[2, 8], [4, 16], [8, 32], [12, 48], [16, 64], [24, 96], [32, 128], [52, 192],
                         [64, 256], [104, 384]], dtype=float)


def random_cluster(n_servers: int, *, rng=None, n_types: int | None = None,
                   types: np.ndarray | None = None) -> tuple[Cluster, np.ndarray]:
    """``n_servers`` servers drawn from ``n_types`` of the TV-TSF Table 3 server types.

    Parameters
    ----------
    n_servers : int
        Number of servers.
    rng : int, numpy.random.Generator or None, optional
        Seed or generator (:func:`fairalloc.rng.as_generator`).
    n_types : int, optional
        How many distinct types to draw from (default about a third of ``n_servers``, at least 1;
        capped by the pool's size).
    types : ndarray, shape (k, 2), optional
        The pool of types (default Table 3's types 2-6: 4 to 24 cores, 16 to 96 GB).

    Returns
    -------
    cluster : Cluster
        Servers sorted by type index.
    kind : ndarray of int, shape (n_servers,)
        Each server's type index (among the types drawn).

    Examples
    --------
    6 servers of at most (6 + 2) // 3 = 2 types, all from Table 3; the same seed gives the same cluster:

    >>> cl, kind = random_cluster(6, rng=0)
    >>> cl.n_servers, len(set(kind.tolist())) <= 2
    (6, True)
    >>> {tuple(c) for c in cl.capacities.tolist()} <= {(4, 16), (8, 32), (12, 48), (16, 64), (24, 96)}
    True
    >>> random_cluster(6, rng=0)[0] == cl
    True
    """
    g = as_generator(rng)
    pool = SERVER_TYPES[1:6] if types is None else np.asarray(types, dtype=float)
    k = min(n_types or max(1, (n_servers + 2) // 3), pool.shape[0])
    chosen = g.choice(pool.shape[0], size=k, replace=False)
    kind = np.sort(g.integers(0, k, size=n_servers))
    return Cluster(pool[chosen][kind]), kind


def _placement(g: np.random.Generator, fits: np.ndarray, kind: np.ndarray, density: float) -> np.ndarray:
    n, m = fits.shape
    n_types = kind.max() + 1
    ok_type = g.random((n, n_types)) < density
    p = ok_type[:, kind] & fits
    for i in range(n):
        if not p[i].any():                          # guarantee one eligible type where the task fits
            t = kind[g.choice(np.flatnonzero(fits[i]))]
            p[i] |= (kind == t) & fits[i]
    return p


def _demands(g: np.random.Generator, n: int, caps: np.ndarray, size: str) -> np.ndarray:
    small = caps.min(axis=0)
    if size == "small":
        cores = g.integers(1, max(2, int(small[0] // 2)) + 1, size=n)
    else:
        cores = g.integers(1, max(2, int(small[0])) + 1, size=n)
    ratio = g.choice([1, 2, 4, 6, 8], size=n)              # GB per core
    mem = np.maximum(1, cores * ratio // g.integers(1, 3, size=n))
    return np.column_stack([cores, np.minimum(mem, caps[:, 1].max())]).astype(float)


def random_task_instance(n_agents: int, n_servers: int, *, rng=None, max_tasks: int = 20,
                         placement_density: float = 0.7, weights: bool = False,
                         commitments: bool = False) -> TaskInstance:
    """A random one-shot :class:`TaskInstance` on a Table 3-like cluster (two resources).

    Task demands are whole cores and GB (1 to the smallest server's cores, at least 2; 0.5 to 8 GB
    per core, rounded down, at least 1), each fitting on some server; placement is per server type
    with probability ``placement_density``, and every user has at least one eligible server where
    its task fits.

    Parameters
    ----------
    n_agents, n_servers : int
        Sizes.
    rng : int, numpy.random.Generator or None, optional
        Seed or generator.
    max_tasks : int, optional
        Tasks wanted are uniform in 1..``max_tasks`` (default 20).
    placement_density : float, optional
        Probability that a user may use a server type (default 0.7).
    weights : bool, optional
        Draw weights from {1, 2, 3} (default False: unit weights).
    commitments : bool, optional
        Draw commitments from {0, 0.1, 0.2, 0.3} (default False: zeros).

    Returns
    -------
    TaskInstance

    Examples
    --------
    >>> ti = random_task_instance(3, 2, rng=0)
    >>> ti.n_agents, ti.n_servers, ti.n_resources
    (3, 2, 2)
    >>> ti.to_dict() == random_task_instance(3, 2, rng=0).to_dict()       # same seed, same instance
    True
    >>> bool(((1 <= ti.tasks) & (ti.tasks <= 20)).all()), bool((ti.fits.sum(axis=1) >= 1).all())
    (True, True)
    """
    g = as_generator(rng)
    cl, kind = random_cluster(n_servers, rng=g)
    d = _demands(g, n_agents, cl.capacities, "any")
    from .. import shares

    fits = shares.tasks_that_fit(cl.capacities, d[:, None, :]) >= 1
    for i in range(n_agents):                           # make sure the task fits somewhere
        if not fits[i].any():
            d[i] = np.minimum(d[i], cl.capacities.min(axis=0))
            fits[i] = shares.tasks_that_fit(cl.capacities, d[i][None, :]) >= 1
    p = _placement(g, fits, kind, placement_density)
    tasks = g.integers(1, max_tasks + 1, size=n_agents)
    w = g.choice([1.0, 2.0, 3.0], size=n_agents) if weights else None
    c = (g.integers(0, 4, size=(n_agents, 2)) / 10.0) if commitments else None
    return TaskInstance(cl, d, tasks, placement=p, weights=w, commitments=c)


def random_time_varying_instance(n_agents: int, n_servers: int, n_slots: int, *, rng=None,
                                 load: float = 1.5, max_duration: int = 4, placement_density: float = 0.7,
                                 activity: float = 0.6, task_size: str = "any",
                                 n_server_types: int | None = None) -> TimeVaryingInstance:
    """A random :class:`TimeVaryingInstance`: Table 3-like servers, per-type placement, bursty arrivals.

    Each user is active in a random window of slots and, in each active slot (probability
    ``activity``), submits a Poisson number of tasks. Rates are set so that the tasks submitted would
    keep about ``load`` times the cluster busy (in dominant share) while users are active: ``load`` >
    1 means contention, which is what makes fairness (and the MILPs) non-trivial. Durations are
    ``1..max_duration`` slots; demands are constant in time (integers: cores and GB). Servers come
    in ``n_server_types`` types (default about a third of the servers).

    Parameters
    ----------
    n_agents, n_servers, n_slots : int
        Sizes.
    rng : int, numpy.random.Generator or None, optional
        Seed or generator.
    load : float, optional
        Offered load while users are active, in multiples of the cluster (default 1.5).
    max_duration : int, optional
        Longest task, in slots (default 4).
    placement_density : float, optional
        Probability that a user may use a server type (default 0.7).
    activity : float, optional
        Probability of submitting in an active slot (default 0.6).
    task_size : {"any", "small"}, optional
        ``"small"`` keeps tasks to at most half the smallest server's cores, at least 2 (default
        ``"any"``: up to all of them).
    n_server_types : int, optional
        Distinct server types (default about a third of the servers).

    Returns
    -------
    TimeVaryingInstance

    Examples
    --------
    >>> tv = random_time_varying_instance(3, 2, 4, rng=1)
    >>> tv.n_agents, tv.n_servers, tv.n_slots
    (3, 2, 4)
    >>> bool(((1 <= tv.durations) & (tv.durations <= 4)).all())
    True
    """
    g = as_generator(rng)
    cl, kind = random_cluster(n_servers, rng=g, n_types=n_server_types)
    d = _demands(g, n_agents, cl.capacities, task_size)
    from .. import shares

    fits = shares.tasks_that_fit(cl.capacities, d[:, None, :]) >= 1
    for i in range(n_agents):
        if not fits[i].any():
            d[i] = np.minimum(d[i], cl.capacities.min(axis=0))
            fits[i] = shares.tasks_that_fit(cl.capacities, d[i][None, :]) >= 1
    p = _placement(g, fits, kind, placement_density)
    durations = g.integers(1, max_duration + 1, size=n_agents)
    mu = shares.dominant_shares(d, cl.totals)                  # one task's share of the cluster
    arrivals = np.zeros((n_agents, n_slots), dtype=np.int64)
    for i in range(n_agents):
        start = int(g.integers(0, max(1, n_slots // 2)))
        end = int(g.integers(start, n_slots)) + 1
        rate = (load / n_agents) / (mu[i] * durations[i] * activity)
        on = g.random(end - start) < activity
        on[0] = True
        arrivals[i, start:end] = np.where(on, np.maximum(g.poisson(rate, size=end - start), 1), 0)
    return TimeVaryingInstance(cl, d, arrivals, durations, placement=p)


def dense_time_varying_instance(n_agents: int, n_servers: int, n_slots: int, *, rng=None,
                                placement_density: float = 0.7, tasks_per_slot: tuple[int, int] = (5, 10),
                                max_duration: int = 3, activity: float = 0.55,
                                n_server_types: int | None = None) -> TimeVaryingInstance:
    """A dense :class:`TimeVaryingInstance` (issue 14): the loads the papers' clusters see.

    Table 3-like servers and per-type placement as :func:`random_time_varying_instance` (density
    ``placement_density``); each user is active in each slot with probability ``activity`` and
    then submits ``tasks_per_slot`` (uniform, inclusive) tasks; durations ``1..max_duration``.

    Parameters
    ----------
    n_agents, n_servers, n_slots : int
        Sizes.
    rng : int, numpy.random.Generator or None, optional
        Seed or generator.
    placement_density : float, optional
        Probability that a user may use a server type (default 0.7).
    tasks_per_slot : (int, int), optional
        Inclusive range of tasks submitted in an active slot (default (5, 10)).
    max_duration : int, optional
        Longest task, in slots (default 3).
    activity : float, optional
        Probability that a user submits in a slot (default 0.55).
    n_server_types : int, optional
        Distinct server types (default about a third of the servers).

    Returns
    -------
    TimeVaryingInstance

    Examples
    --------
    At 10 x 10 x 20 the expected number of tasks is 10 users x 20 slots x 0.55 x 7.5 = 825:

    >>> tv = dense_time_varying_instance(10, 10, 20, rng=0)
    >>> tv.n_agents, tv.n_servers, tv.n_slots, 600 < int(tv.arrivals.sum()) < 1000
    (10, 10, 20, True)
    """
    g = as_generator(rng)
    cl, kind = random_cluster(n_servers, rng=g, n_types=n_server_types)
    d = _demands(g, n_agents, cl.capacities, "any")
    from .. import shares

    fits = shares.tasks_that_fit(cl.capacities, d[:, None, :]) >= 1
    for i in range(n_agents):
        if not fits[i].any():
            d[i] = np.minimum(d[i], cl.capacities.min(axis=0))
            fits[i] = shares.tasks_that_fit(cl.capacities, d[i][None, :]) >= 1
    p = _placement(g, fits, kind, placement_density)
    durations = g.integers(1, max_duration + 1, size=n_agents)
    lo, hi = tasks_per_slot
    on = g.random((n_agents, n_slots)) < activity
    arrivals = np.where(on, g.integers(lo, hi + 1, size=(n_agents, n_slots)), 0).astype(np.int64)
    return TimeVaryingInstance(cl, d, arrivals, durations, placement=p)
