"""What is free right now: identical processors, a pooled resource vector, or servers with placement.

The engine owns one state object and is the only one that changes it (``allocate`` when a launch
starts, ``release`` when it ends); policies read it (``free``, ``fits``) to decide what to start.
Every state answers the same four questions, so one engine serves rigid jobs and task schedulers:

* ``fits(job, tasks, server)``: would ``tasks`` tasks of ``job`` fit on ``server`` now?
* ``never_fits(job)``: can one task of ``job`` not fit even on an empty machine (or nowhere its
  placement allows)? The engine rejects such jobs up front instead of waiting forever.
* ``allocate`` / ``release``: change the free capacity (``allocate`` raises
  :class:`~fairalloc.sim.engine.SimulationError` when a policy over-commits).
* ``usage()``: resources in use, per resource (for utilisation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import shares
from ..errors import FairallocError, InvalidInstanceError
from ..model import Cluster

__all__ = ["ClusterState", "ProcessorPool", "ResourcePool", "Servers", "SimulationError"]


class SimulationError(FairallocError, RuntimeError):
    """A policy asked for something impossible (over-commitment, unknown job, too many tasks).

    Raised by a state's ``allocate`` (and so by :meth:`Simulation.run`); it is a
    :class:`~fairalloc.errors.FairallocError` and a :class:`RuntimeError`. A bug in a policy, not bad
    input: bad input raises :class:`~fairalloc.InvalidInstanceError` before the run.

    Attributes
    ----------
    args : tuple
        ``(message,)``: what was asked and what was free.

    Examples
    --------
    A job of 3 processors on a pool of 4, then one more: only 1 processor is free:

    >>> import fairalloc as fa
    >>> pool = ProcessorPool(4)
    >>> pool.bind(fa.workloads.Workload(submit=[0, 0], run_time=[1, 1], processors=[3, 2]))
    >>> pool.allocate(0, 1, 0)
    >>> pool.allocate(1, 1, 0)
    Traceback (most recent call last):
    ...
    fairalloc.sim.cluster_state.SimulationError: job 1 needs 2 processors on server 0; 1 free on the single pool
    """


class ClusterState:
    """Base class of the simulator's cluster states; see the module docstring for the contract.

    Subclasses implement ``bind``, ``fits``, ``never_fits``, ``allocate``, ``release``, ``usage`` and
    ``totals``: :class:`ProcessorPool` (rigid jobs), :class:`Servers` and :class:`ResourcePool`
    (tasks). :func:`~fairalloc.sim.simulate.make_state` builds the right one from a capacity.

    Attributes
    ----------
    n_servers : int
        Number of servers (1 for a pool).
    resource_names : tuple of str
        Names of the resources of ``usage()`` and ``totals``.

    Examples
    --------
    The contract on a pool of 4 processors: a 3-processor job fits, is allocated (1 free, 3 in
    use), then a 2-processor job no longer fits until the first is released:

    >>> import fairalloc as fa
    >>> state = ProcessorPool(4)
    >>> isinstance(state, ClusterState)
    True
    >>> state.bind(fa.workloads.Workload(submit=[0, 0], run_time=[1, 1], processors=[3, 2]))
    >>> state.fits(0), state.allocate(0, 1, 0), state.fits(1), state.usage().tolist()
    (True, None, False, [3.0])
    >>> state.release(0, 1, 0); state.fits(1)
    True
    """

    n_servers: int = 1
    resource_names: tuple[str, ...] = ()

    def bind(self, workload: Any) -> None:
        """Attach the workload whose jobs will be allocated (called once by the engine)."""
        raise NotImplementedError

    def fits(self, job: int, tasks: int = 1, server: int = 0) -> bool:
        raise NotImplementedError

    def never_fits(self, job: int) -> str | None:
        """Why one task of ``job`` can never run here (a reason string), or None."""
        raise NotImplementedError

    def never_fits_rows(self, rows: np.ndarray) -> list[tuple[int, str]]:
        """``(row, reason)`` for the ``rows`` (ascending) whose :meth:`never_fits` is not None."""
        out = []
        for j in rows.tolist():
            why = self.never_fits(j)
            if why is not None:
                out.append((j, why))
        return out

    def allocate(self, job: int, tasks: int, server: int) -> None:
        raise NotImplementedError

    def release(self, job: int, tasks: int, server: int) -> None:
        raise NotImplementedError

    def allocate_many(self, launches: Any) -> None:
        """:meth:`allocate` of every launch of a :class:`~fairalloc.sim.launches.Launches`, in order
        (raises at the first that does not fit, the ones before it allocated)."""
        for j, k, s in zip(launches.job.tolist(), launches.tasks.tolist(), launches.server.tolist()):
            self.allocate(j, k, s)

    def release_many(self, launches: Any) -> None:
        """:meth:`release` of every launch of a :class:`~fairalloc.sim.launches.Launches`, in order."""
        for j, k, s in zip(launches.job.tolist(), launches.tasks.tolist(), launches.server.tolist()):
            self.release(j, k, s)

    def usage(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def totals(self) -> np.ndarray:
        raise NotImplementedError


class ProcessorPool(ClusterState):
    """``capacity`` identical processors; job *j* needs ``workload.processors[j]`` of them.

    ``free`` is a plain int (policies read it directly; this is the hot path of queue simulations).

    Parameters
    ----------
    capacity : int
        Number of processors, >= 1.

    Attributes
    ----------
    capacity : int
    free : int
        Processors free now.

    Raises
    ------
    InvalidInstanceError
        ``capacity`` not a positive integer.

    Examples
    --------
    >>> pool = ProcessorPool(4)
    >>> pool.free, pool.totals.tolist()
    (4, [4.0])
    >>> ProcessorPool(0)
    Traceback (most recent call last):
    ...
    fairalloc.errors.InvalidInstanceError: capacity=0 must be a positive number of processors
    """

    resource_names = ("processors",)

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or int(capacity) != capacity or capacity < 1:
            raise InvalidInstanceError(f"capacity={capacity!r} must be a positive number of processors",
                                       argument="capacity", value=capacity)
        self.capacity = int(capacity)
        self.free = self.capacity
        self.procs: list[int] = []

    def bind(self, workload: Any) -> None:
        self.procs = workload.processors.tolist()
        self.free = self.capacity

    def fits(self, job: int, tasks: int = 1, server: int = 0) -> bool:
        return self.procs[job] * tasks <= self.free

    def never_fits(self, job: int) -> str | None:
        p = self.procs[job]
        if p < 1:
            return "processors unknown"
        if p > self.capacity:
            return f"wider than the machine ({p} > {self.capacity} processors)"
        return None

    def allocate(self, job: int, tasks: int, server: int) -> None:
        need = self.procs[job] * tasks
        if need > self.free or server != 0:
            raise SimulationError(f"job {job} needs {need} processors on server {server}; "
                                  f"{self.free} free on the single pool")
        self.free -= need

    def release(self, job: int, tasks: int, server: int) -> None:
        self.free += self.procs[job] * tasks

    def usage(self) -> np.ndarray:
        return np.array([self.capacity - self.free], dtype=float)

    @property
    def totals(self) -> np.ndarray:
        return np.array([float(self.capacity)])


class Servers(ClusterState):
    """Servers with per-server capacity vectors (``Cluster``) and optional per-user placement.

    Job *j*'s tasks each need ``workload.resources[j]``; ``placement[u, m]`` (bool, per *user*)
    says whether user *u*'s tasks may run on server *m* (default everywhere). A pool of pooled
    resources is the one-server case, :class:`ResourcePool`.

    This is the engine's *job-level* view of :class:`fairalloc.scheduling.servers.FreeCapacity`, the one
    class that holds free capacity per server and placement, and answers whether tasks fit
    (:func:`fairalloc.shares.tasks_that_fit`, the one definition, with its tolerance for
    floating-point round-off): the engine and the greedy task schedulers therefore agree on what fits.

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
        Per-server capacities, in the same units as the workload's resources.
    placement : array_like of bool, shape (n_users, M), optional
        Whether user *u* may run on server *m* (default everywhere).

    Raises
    ------
    InvalidInstanceError
        ``placement`` not of shape (n_users, M); at :meth:`bind`, a workload whose resource columns
        are not the cluster's or a user beyond the placement's rows.

    Examples
    --------
    Servers <2, 4> and <4, 2>; user 0 may use server 0 only. Job 0 (user 0, tasks <1, 2>): two fit
    on server 0 (2/1 = 4/2 = 2) but it may not use server 1; job 1 (user 1, tasks <2, 1>): two fit on
    server 1. After allocating job 0's two tasks, server 0 is full:

    >>> import fairalloc as fa
    >>> sv = Servers([[2.0, 4.0], [4.0, 2.0]], placement=[[1, 0], [1, 1]])
    >>> sv.bind(fa.workloads.Workload(submit=[0, 0], run_time=[1, 1], tasks=[2, 2], user=[0, 1],
    ...                               resources=[[1, 2], [2, 1]]))
    >>> sv.fits(0, 2, 0), sv.fits(0, 1, 1), sv.fits(1, 2, 1)
    (True, False, True)
    >>> sv.allocate(0, 2, 0); sv.free.tolist(), sv.usage().tolist()
    ([[0.0, 0.0], [4.0, 2.0]], [2.0, 4.0])
    """

    def __init__(self, cluster: Any, placement: Any = None) -> None:
        cl = cluster if isinstance(cluster, Cluster) else Cluster(cluster)
        self.cluster = cl
        self.capacities = np.array(cl.capacities, dtype=float)
        self.n_servers, self.n_resources = self.capacities.shape
        self.resource_names = tuple(cl.resource_names)
        self.placement = None if placement is None else np.asarray(placement, dtype=bool)
        if self.placement is not None and (self.placement.ndim != 2
                                           or self.placement.shape[1] != self.n_servers):
            raise InvalidInstanceError(f"placement must have shape (n_users, {self.n_servers}), "
                                       f"got {self.placement.shape}", argument="placement",
                                       value=self.placement.shape)
        self.demand = np.zeros((0, self.n_resources))
        self._dlist: list | None = None
        self._drows: list | None = None
        self._allowed: list | None = None
        self.user = np.zeros(0, dtype=np.int64)
        self._make_pool(1 if self.placement is None else self.placement.shape[0])

    def _make_pool(self, n_users: int) -> None:
        from ..scheduling.servers import FreeCapacity as _FreeCapacity

        p = np.ones((max(n_users, 1), self.n_servers), dtype=bool) if self.placement is None else self.placement
        self.pool = _FreeCapacity(self.capacities, p)

    @property
    def free(self) -> np.ndarray:
        """(M, K) free capacity per server (read it, do not write it: read-only for one pool, whose
        free capacity is held as floats, see :class:`fairalloc.scheduling.servers.FreeCapacity`)."""
        return self.pool.free

    def bind(self, workload: Any) -> None:
        res = workload.resources
        if res.shape[1] != self.n_resources:
            raise InvalidInstanceError(
                f"the workload has {res.shape[1]} resource column(s) {list(workload.resource_names)}, "
                f"the cluster {self.n_resources}", argument="capacity", value=self.capacities.shape)
        self.demand = res
        # per-job look-ups of the event engine's allocate / release, built at its first launch
        # (:meth:`_index_jobs`): the compiled loops bind a workload and never launch through this object,
        # and a Python object per job (its demand row, its placement row) is about 150 bytes per job,
        # kept as long as the state lives (about 200 MB on the 32M-task month)
        self._dlist = self._drows = self._allowed = None
        self.user = workload.user
        n_users = int(workload.user.max()) + 1 if len(workload) else 1
        if self.placement is not None and len(workload) and n_users > self.placement.shape[0]:
            raise InvalidInstanceError(f"placement has {self.placement.shape[0]} rows but user "
                                       f"{int(workload.user.max())} appears", argument="placement",
                                       value=self.placement.shape)
        self._make_pool(n_users)

    def _index_jobs(self) -> None:
        """The per-job look-ups of :meth:`allocate` and :meth:`release` (built once per :meth:`bind`)."""
        self._dlist = self.demand.tolist()      # per-job demands as floats (allocate / release per launch)
        self._drows = list(self.demand)          # and as rows (a server's free capacity is an array row)
        # each job's placement row as a list of bools (one look-up per launch)
        rows = None if self.placement is None else self.placement.tolist()
        self._allowed = None if rows is None else [rows[u] for u in self.user.tolist()]

    def allowed(self, job: int, server: int) -> bool:
        return self.placement is None or bool(self.placement[self.user[job], server])

    def fits(self, job: int, tasks: int = 1, server: int = 0) -> bool:
        if not self.allowed(job, server):
            return False
        return bool(shares.tasks_that_fit(self.pool.free[server], self.demand[job]) >= tasks)

    def never_fits(self, job: int) -> str | None:
        d = self.demand[job]
        if not np.all(np.isfinite(d)):
            return "resource demand unknown"
        u = int(self.user[job])
        if self.placement is None:
            ok = bool((shares.tasks_that_fit(self.capacities, d) >= 1).any())
        else:
            ok = 0 <= u < self.placement.shape[0] and self.pool.fits_capacity(u, d)
        if not ok:
            return "fits no server its placement allows"
        return None

    def never_fits_rows(self, rows: np.ndarray) -> list[tuple[int, str]]:
        """:meth:`never_fits` of many rows; without placement, the same test on all of them at once
        (:func:`~fairalloc.shares.tasks_that_fit` broadcasts: the same operations per row)."""
        if self.placement is not None:
            return super().never_fits_rows(rows)
        d = self.demand[rows]
        known = np.isfinite(d).all(axis=1)
        fit = np.zeros(len(rows), dtype=bool)
        idx = np.flatnonzero(known)
        step = max(1, 2_000_000 // max(1, self.capacities.size))
        for a in range(0, len(idx), step):
            part = idx[a:a + step]
            fit[part] = (shares.tasks_that_fit(self.capacities[None, :, :], d[part][:, None, :]) >= 1).any(axis=1)
        return [(j, "resource demand unknown" if not k else "fits no server its placement allows")
                for j, k, f in zip(rows.tolist(), known.tolist(), fit.tolist()) if not f]

    def allocate(self, job: int, tasks: int, server: int) -> None:
        if not (0 <= server < self.n_servers):
            raise SimulationError(f"server {server} does not exist ({self.n_servers} servers)")
        if self._dlist is None:
            self._index_jobs()
        if self._allowed is not None and not self._allowed[job][server]:
            raise SimulationError(f"job {job} (user {self.user[job]}) may not run on server {server}")
        d = self._dlist[job]
        row = self.pool.free_row(server)
        if shares.tasks_that_fit_one(row, d) < tasks:
            raise SimulationError(f"{tasks} task(s) of job {job} need {[x * tasks for x in d]} on server "
                                  f"{server}; free {row}")
        self.pool.take(server, d if self.pool.one_pool else self._drows[job], tasks)

    def release(self, job: int, tasks: int, server: int) -> None:
        pool = self.pool
        if self._dlist is None:
            self._index_jobs()
        pool.release(server, self._dlist[job] if pool.one_pool else self._drows[job], tasks)

    def allocate_many(self, launches: Any) -> None:
        """:meth:`allocate` of every launch in order, compiled (:func:`fairalloc.sim.launches.take_many`:
        the same test and subtractions); the first that does not fit raises :meth:`allocate`'s error."""
        from .launches import take_many

        free = np.array(self.pool.free, dtype=float)
        placed = self.placement is not None
        place = self.placement if placed else np.ones((1, 1), dtype=bool)
        bad = take_many(free, self.demand, self.user, place, placed, launches.job, launches.tasks,
                        launches.server, float(shares.FLOOR_EPS))
        self.pool.assign(free)          # the launches before a refused one stay taken, as one at a time
        if bad >= 0:                    # allocate's own refusal and message
            self.allocate(int(launches.job[bad]), int(launches.tasks[bad]), int(launches.server[bad]))
            raise SimulationError(f"launch {bad} of the batch: refused by the compiled test, accepted by "
                                  "allocate (a bug)")

    def release_many(self, launches: Any) -> None:
        """:meth:`release` of every launch in order, compiled (:func:`fairalloc.sim.launches.release_many`)."""
        from .launches import release_many

        free = np.array(self.pool.free, dtype=float)
        release_many(free, self.demand, launches.job, launches.tasks, launches.server)
        self.pool.assign(free)

    def usage(self) -> np.ndarray:
        return (self.capacities - self.pool.free).sum(axis=0)

    @property
    def totals(self) -> np.ndarray:
        return self.capacities.sum(axis=0)


class ResourcePool(Servers):
    """One pool of pooled resources with capacity vector ``capacity`` (K,): SDRF's setting.

    The one-server case of :class:`Servers` (server name ``"pool"``, no placement).

    Parameters
    ----------
    capacity : array_like, shape (K,)
        Total of each resource, in the workload's units.
    resource_names : sequence of str, optional
        Names of the K resources (default those of :class:`~fairalloc.Cluster`).

    Examples
    --------
    >>> ResourcePool([4.0, 8.0], resource_names=["cpu", "mem"]).resource_names
    ('cpu', 'mem')
    >>> ResourcePool([1.0, 1.0]).totals.tolist()
    [1.0, 1.0]
    """

    def __init__(self, capacity: Any, *, resource_names: Any = None) -> None:
        cap = np.atleast_1d(np.asarray(capacity, dtype=float))
        super().__init__(Cluster(cap.reshape(1, -1), server_names=["pool"], resource_names=resource_names),
                         None)

    @classmethod
    def from_workload(cls, workload: Any, fraction: float = 1.0, *, horizon: float | None = None) -> "ResourcePool":
        r"""A pool of ``fraction`` times the workload's mean use *R* of every resource (SDRF Section 7).

        The SDRF paper sizes the pool from 50% to 100% of *R*
        (:func:`fairalloc.workloads.mean_utilization`), so that queues form. Shares are fractions of
        the pool's totals: the resources are normalised to 1, as in the paper.

        >>> from fairalloc.workloads import Workload
        >>> wl = Workload(submit=[0, 100], run_time=[50, 100], tasks=[2, 1], resources=[[0.5, 1], [1, 0.5]])
        >>> ResourcePool.from_workload(wl, 0.5).totals.tolist()     # R = (1.5, 1.5)
        [0.75, 0.75]
        """
        from ..workloads.tasks import mean_utilization

        f = float(fraction)
        if not (np.isfinite(f) and f > 0):
            raise InvalidInstanceError(f"fraction={fraction!r} must be > 0", argument="fraction", value=fraction)
        r = mean_utilization(workload, horizon=horizon)
        zero = np.flatnonzero(r <= 0)
        if zero.size:
            raise InvalidInstanceError(f"resource {int(zero[0])} is never used (R = 0): a pool of 0 cannot "
                                       "hold anything", argument="workload", index=(int(zero[0]),), value=0.0)
        return cls(f * r, resource_names=workload.resource_names or None)
