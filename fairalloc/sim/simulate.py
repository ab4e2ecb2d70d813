"""``fa.simulate``: one call from a workload, a capacity and a policy name to a SimulationResult."""

from __future__ import annotations

import logging
from typing import Any, Callable

import numpy as np

from ..errors import InvalidInstanceError
from ..model import Cluster
from ..workloads import Workload
from ..workloads.units import check_units
from .cluster_state import ClusterState, ProcessorPool, ResourcePool, Servers
from .engine import Simulation
from .kernels import rigid_run
from .metrics import SimulationResult
from .policies import FCFS, Policy, make_policy

__all__ = ["simulate", "make_state"]

logger = logging.getLogger(__name__)

def make_state(workload: Workload, capacity: Any, placement: Any = None) -> ClusterState:
    """The cluster state for ``capacity``: processors (int), a pool (vector) or servers (Cluster).

    Parameters
    ----------
    workload : Workload
        Gives the resource names, and ``meta["MaxProcs"]`` / ``["MaxNodes"]`` when ``capacity`` is None.
    capacity : int, array_like, Cluster, ClusterState or None
        An int: a :class:`~fairalloc.sim.ProcessorPool`; a (K,) vector: a
        :class:`~fairalloc.sim.ResourcePool`; a :class:`~fairalloc.Cluster` or an (M, K) array: a
        :class:`~fairalloc.sim.Servers`; a state: itself; None: the workload's processor count.
    placement : array_like of bool (n_users, M), optional
        For servers.

    Returns
    -------
    ClusterState

    Raises
    ------
    InvalidInstanceError
        A capacity of none of these forms, or None without a processor count in the metadata.

    Examples
    --------
    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0], run_time=[1], processors=[2], resources=[[1.0]])
    >>> [type(make_state(wl, c)).__name__ for c in (4, [1.0], fa.Cluster([[1.0], [2.0]]))]
    ['ProcessorPool', 'ResourcePool', 'Servers']
    """
    if isinstance(capacity, ClusterState):
        return capacity
    if capacity is None:
        meta = workload.meta
        for key in ("MaxProcs", "MaxNodes"):
            v = meta.get(key)
            if isinstance(v, (int, float)) and v > 0:
                return ProcessorPool(int(v))
        raise InvalidInstanceError("capacity is required: the workload's metadata gives no MaxProcs "
                                   "or MaxNodes", argument="capacity", value=None)
    if isinstance(capacity, Cluster):
        return Servers(capacity, placement)
    if isinstance(capacity, (int, np.integer)) and not isinstance(capacity, bool):
        return ProcessorPool(int(capacity))
    try:
        arr = np.asarray(capacity, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInstanceError(f"capacity={capacity!r} must be a processor count, a resource vector "
                                   "or a Cluster", argument="capacity", value=capacity) from None
    names = (workload.resource_names
             if arr.ndim >= 1 and len(workload.resource_names) == arr.shape[-1] else None)
    if arr.ndim == 2:      # a bare array: the resources are the workload's columns, named as there
        return Servers(Cluster(arr, resource_names=names), placement)
    if arr.ndim == 1:
        return ResourcePool(arr, resource_names=names)
    if arr.ndim == 0 and float(arr).is_integer():
        return ProcessorPool(int(arr))
    raise InvalidInstanceError(f"capacity={capacity!r} must be a processor count, a resource vector "
                               "or a Cluster", argument="capacity", value=capacity)


def _policy(policy: Any, options: dict[str, Any]) -> Policy:
    if not isinstance(policy, str):
        if options:
            raise InvalidInstanceError(f"options {sorted(options)} apply only to a policy given by name",
                                       argument="options", value=sorted(options))
        return policy
    return make_policy(policy, **options)


def simulate(workload: Workload, capacity: Any = None, *, policy: Any = "fcfs",
             enforce_walltime: bool = False, placement: Any = None, progress: bool = False,
             engine: str = "auto", **options: Any) -> SimulationResult:
    """Simulate ``policy`` on ``workload`` and return its :class:`SimulationResult`.

    Parameters
    ----------
    workload : Workload
    capacity : int, array_like, Cluster or ClusterState, optional
        Processors for rigid jobs (default: the workload's ``MaxProcs``/``MaxNodes``), a resource
        vector for a pool, or a :class:`~fairalloc.Cluster` of servers.
    policy : str or Policy
        ``"fcfs"``, ``"easy"`` (FCFS + EASY), ``"sjf"``, ``"wfp3"``, ``"unicef"``, ``"f1"``,
        ``"f2"``, ``"buc"``, any of them with ``"+easy"``, ``"drf"``, ``"sdrf"``, ``"tsf"``,
        ``"cdrf"``, ``"tvtsf"``, ``"tsf-static"``, ``"cdrf-static"`` (the table
        :data:`fairalloc.sim.policies.POLICIES`), a name registered with
        :func:`~fairalloc.sim.register_policy`, ``"learned:FILE"`` (a learned priority function's
        JSON file; ``"learned:FILE+easy"`` with EASY; on the compiled loop), or a policy object (see
        :mod:`fairalloc.sim.engine`).
    enforce_walltime : bool
        Kill jobs at their requested time (True) or let them run to completion (False, default).
    placement : array_like of bool (n_users, n_servers), optional
        With a Cluster: where each user's tasks may run.
    progress : bool
        tqdm progress bar.
    engine : {"auto", "events", "kernel"}
        ``"auto"`` uses the compiled loop (:mod:`fairalloc.sim.kernels`, the same schedule) for
        ``"fcfs"`` and ``"easy"`` on processors with one-task jobs (EASY: not with
        ``progress=True``), and for ``"drf"``, ``"sdrf"``, ``"tsf"`` and ``"cdrf"`` named by string
        with a built-in server rule, not with ``progress=True``, and for ``"slurm"``,
        ``"slurm+easy"`` and ``"htcondor"`` named by string on processors with one-task jobs (not with
        ``progress=True``, ``watch=``, Slurm's ``decay="continuous"``, HTCondor's accounting groups: those
        run on the engine, logged at INFO level with the reason); the event engine otherwise;
        ``"events"`` forces the engine;
        ``"kernel"`` forces the loop (a Slurm or HTCondor policy object too: it holds the run's usage,
        factors or priorities after it) and raises :class:`InvalidInstanceError` naming what it does not support;
        ``"reference"``: ``policy="kueue"`` (with or without ``preemption=``) or ``policy="yarn"`` on the
        plain-Python reference loop (:func:`fairalloc.sim.preemption.reference_kueue_run`,
        :func:`fairalloc.sim.yarn_preemption.reference_yarn_run`), the oracles of the compiled one.
    **options
        Passed to the policy (e.g. ``k_p=1440`` for BUC).

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> from fairalloc.workloads import Workload
    >>> wl = Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> r = simulate(wl, 4, policy="fcfs")
    >>> r.jobs["start"].tolist(), r.enforce_walltime
    ([0.0, 10.0, 10.0], False)
    >>> simulate(wl, 4, policy="easy").jobs["start"].tolist()   # job 2 backfills: ends by 10
    [0.0, 10.0, 1.0]
    """
    if not isinstance(workload, Workload):
        raise InvalidInstanceError(f"workload must be a Workload, got {type(workload).__name__}",
                                   argument="workload", value=type(workload).__name__)
    if engine not in ("auto", "events", "kernel", "reference"):
        raise InvalidInstanceError(f"engine={engine!r} is not one of 'auto', 'events', 'kernel', 'reference'",
                                   argument="engine", value=engine)
    check_units(workload, capacity)      # declared resource units must meet (fairalloc.workloads.units)
    state = make_state(workload, capacity, placement)
    pol = _policy(policy, dict(options))
    rigid = isinstance(state, ProcessorPool) and bool(np.all(workload.tasks == 1))
    fcfs = type(pol) is FCFS
    fast = fcfs and not pol.backfill and rigid
    easy = fcfs and pol.backfill and rigid and not progress
    sim = Simulation(workload, state, pol, enforce_walltime=enforce_walltime, progress=progress)
    applies = getattr(pol, "kernel_applies", None)
    # the task schedulers on the compiled loop, for a policy named by string (an object passed in may be
    # inspected afterwards: its scheduler holds the event engine's state)
    # (a policy that leaves the engine's state after its compiled run, as Slurm's, also as an object with
    # engine='kernel'); a policy that says why its compiled loop does not apply is routed to the engine
    keeps = engine == "kernel" and getattr(pol, "kernel_keeps_state", False)
    pool = (isinstance(policy, str) or keeps) and applies is not None and applies(sim)
    refusal = getattr(pol, "kernel_refusal", None)
    why_not = refusal(sim) if refusal is not None and not pool and (isinstance(policy, str) or keeps) else None
    if why_not is not None and engine == "auto":
        logger.info("policy %r runs on the event engine: the compiled loop does not support %s", pol.name, why_not)
    if engine == "kernel" and not (fast or easy or pool):
        why = ("progress=True (the compiled loop shows no progress bar)" if fcfs and rigid
               else f"{why_not} for policy {pol.name!r}" if why_not is not None
               else "this policy/capacity: the compiled loop runs FCFS with or without EASY "
                    "backfilling ('fcfs', 'easy') on processors with one-task jobs, 'drf', 'sdrf', "
                    "'tsf', 'cdrf' named by string with a built-in server rule, and 'slurm', 'slurm+easy', "
                    "'htcondor' on processors, without a progress bar")
        raise InvalidInstanceError(f"engine='kernel' does not support {why}; use engine='auto' "
                                   "or 'events'", argument="engine", value=engine)
    if engine == "reference":
        if not hasattr(pol, "run_reference"):
            raise InvalidInstanceError("engine='reference' runs policies 'kueue' and 'yarn' on their reference "
                                       "loops (fairalloc.sim.preemption, fairalloc.sim.yarn_preemption) only",
                                       argument="engine", value=engine)
        return pol.run_reference(sim)
    if engine != "events":
        if pool:
            return pol.run_kernel(sim)
        if fast:
            return _run_fcfs_kernel(sim)
        if easy:
            return _run_fcfs_kernel(sim, easy=True, keep=not isinstance(policy, str))
    return sim.run()


def rigid_setup(sim: Simulation) -> tuple:
    """What a compiled run of rigid jobs starts from, as :meth:`Simulation.run` decides it: ``(ok, rejected,
    kill, dur, order, expected)``: the admitted jobs and the rejected (row, reason); which end killed at their
    requested time (``enforce_walltime``) and how long each runs; the admitted rows in arrival order (submit
    time, then row); what a reservation may assume (the requested time, else the run time)."""
    wl = sim.workload
    sim.state.bind(wl)
    ok, rejected = sim.admissible()
    run, req = wl.run_time, wl.requested_time
    kill = ok & ~np.isnan(req) & (run > req) if sim.enforce_walltime else np.zeros(len(wl), dtype=bool)
    dur = np.where(kill, req, run)
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(wl.submit[idx], kind="stable")]
    return ok, rejected, kill, dur, order, np.where(np.isnan(req), run, req)


def _run_fcfs_kernel(sim: Simulation, *, easy: bool = False, keep: bool = False, key: Any = None) -> SimulationResult:
    """FCFS (``easy=False``) or FCFS + EASY on the compiled loop (:func:`.kernels.rigid_run`); ``keep``:
    fill the policy's ``reservations`` as the event engine would (a policy object the caller may inspect);
    ``key`` (n,): a static priority per job, lowest first, ties in arrival order, instead of arrival
    order (a learned function, :class:`~.policies.learned.LearnedPolicy`)."""
    wl, state = sim.workload, sim.state
    ok, rejected, kill, dur, order, expected = rigid_setup(sim)
    n = len(wl)
    start = np.full(n, np.nan)
    rank = None
    if key is not None:                            # each position's place in the key's order (stable: arrival)
        rank = np.empty(len(order), dtype=np.int64)
        rank[np.argsort(np.asarray(key, dtype=float)[order], kind="stable")] = np.arange(len(order))
    start[order], resv = rigid_run(wl.submit[order], wl.processors[order], dur[order], expected[order],
                                   state.capacity, rank=rank, backfill=easy)
    if easy and keep:
        sim.policy.reset(sim)
        for k in np.flatnonzero(~np.isnan(resv)).tolist():
            sim.policy.reservations.setdefault(int(order[k]), float(resv[k]))
    end = start + dur
    return SimulationResult.from_run(wl, start=start, end=end, killed=kill, rejected=rejected,
                                     launches=None, policy=sim.policy.name, state=state,
                                     enforce_walltime=sim.enforce_walltime,
                                     stats={"events": 2 * int(ok.sum()), "engine": "kernel"})
