r"""The container clusters' fair sharing as simulator policies: ``kueue``, ``yarn``, ``mesos``, ``volcano``,
``volcano-drf``, ``volcano-hdrf``.

.. code-block:: python

    fa.simulate(workload, capacity, policy="kueue", accounts=tree)

runs the rule of :class:`fairalloc.scheduling.production.QueueScheduler` (a key on the one decision
core) on a task workload, through the simulator's compiled loop like ``drf``/``sdrf``. The workload's
users are the system's leaf entities (Kueue LocalQueues, YARN applications, Mesos clients, Volcano jobs); the account
tree puts them in queues. Options (beside those of :class:`~fairalloc.sim.TaskPolicy`: ``server``,
``blocking``, ``structure``, ``ties``, ``wakeups``, ``wake_on``):

=============  ===========================================================================================
``accounts``   an :class:`~fairalloc.accounts.AccountTree` (or a YAML/CSV file) whose users are the
               workload's user ids (``"0"``, ``"1"``, ...) under queue accounts, with the fields the policy
               reads (per-resource fields by the workload's resource names, or in column order when
               the workload's are r0, r1, ...): Kueue ``nominal_quota``, ``borrowing_limit``,
               ``lending_limit``, ``weight`` (an account with child accounts is a cohort); YARN
               ``min_share``, ``max_share``, ``weight``; Mesos ``weight``; Volcano (and ``volcano-drf``)
               ``weight``, ``guarantee``, ``capability``; ``volcano-hdrf`` ``hdrf_weight`` at any depth.
               An account without ``weight`` takes its ``shares`` as weight. Default: one queue per user (:func:`fairalloc.scheduling.queues.normalize_tree`;
               Kueue adds a cohort holding the cluster as its nominal quota when the tree has no quota)
``weights``    (n_users,) the weight of each user's own queue (no ``accounts``, or a user directly under
               ``root``): Kueue ``fairSharing.weight`` (0 allowed: a borrowing queue of weight 0 goes last),
               YARN ``weight`` (0: after every weighted queue, YARN-6754), Mesos (> 0)
``excluded``   Mesos: resource names left out of the shares
``eps``        Volcano: ``minResource`` in the workload's units (default 1e-9 of the smallest total)
``half_life``  Kueue: Admission Fair Sharing with this usage half-life in seconds (``usageHalfLifeTime``);
               with ``sampling_interval`` (default 300 s) and ``resource_weights`` (by resource name,
               default 1)
``preemption`` Kueue: fair-sharing preemption (:mod:`fairalloc.sim.preemption`): True (Kueue's default
               strategies), a strategy name or list, or a mapping of ``strategies``, ``min_run_time``,
               ``victim`` (``"requeue"`` or ``"kill"``), ``loop_window``; on a pool. The result carries
               ``preemptions`` (a table), ``stats["preemptions"]``, ``["wasted_work"]``,
               ``["preemption_loops"]``. It runs on the simulator's compiled loop
               (:func:`fairalloc.sim.preemption.step` after each pass); ``fa.simulate(...,
               engine="reference")`` runs the plain-Python reference loop
               (:func:`fairalloc.sim.preemption.reference_kueue_run`) instead.
               YARN: fair-share preemption (:mod:`fairalloc.sim.yarn_preemption`): a timeout in seconds,
               True (the tree's ``fair_share_preemption_timeout`` / ``_threshold``), or a mapping of
               ``timeout``, ``threshold``, ``utilization_threshold``, ``victim``, ``loop_window``; the
               same loop and reporting (reference: :func:`fairalloc.sim.yarn_preemption.reference_yarn_run`)
=============  ===========================================================================================

**Several LocalQueues in one ClusterQueue** (``kueue`` without Admission Fair Sharing). Kueue's ClusterQueue
(BestEffortFIFO) nominates its oldest pending workload, whatever its LocalQueue, to the cohort's tournament
(the ClusterQueue's heap is ordered by priority, then the queue-order timestamp, then the UID:
``queueOrderingFunc`` in Kueue's ``pkg/cache/queue/cluster_queue.go``; the LocalQueue enters that order only with
Admission Fair Sharing, KEP 4136, through its usage); the compiled loop keys each LocalQueue by its
ClusterQueue's share with *its own* head request added, so within a ClusterQueue it may admit a younger, smaller
head first. The two agree with one LocalQueue per ClusterQueue (the default tree). Such a tree is therefore run on the reference loop
(:func:`fairalloc.sim.preemption.reference_kueue_run`, plain Python, with Kueue's scheduling cycle: one nominee per
ClusterQueue per cycle, ``Scheduler.schedule`` in Kueue's ``pkg/scheduler/scheduler.go``, see that function's
Notes), with or without ``preemption`` (a log record at INFO level says so); only where the reference loop
does not apply (several servers, ``enforce_walltime``, ``blocking="stop"``, ``ties="index"``) does the compiled
loop run, with a warning naming the difference. Other trees run the compiled key, one admission per tournament
(a ClusterQueue's next task competes at once, not in the next cycle: ``engine="reference"`` runs that order too,
``cycle=False``); Kueue's cycle on the compiled loop is not built (``docs/policies/kueue.md``).

Refused with an :class:`~fairalloc.InvalidInstanceError` naming the field and value: quotas larger than
the cluster, borrowing or lending limits without a cohort, negative weights (and 0 for Mesos), weights
in (0, 1e-9) for Kueue, nested cohorts or queues (but for ``volcano-hdrf``), a workload user missing from
the tree, a ``half_life`` or ``sampling_interval`` of 0 or below (Kueue's ``usageHalfLifeTime=0`` silently turns
Admission Fair Sharing off), AFS options on another policy, a negative resource weight, and what is not
simulated: ``preemption`` on a policy other than ``kueue`` and ``yarn``, with Admission Fair Sharing, ``blocking="stop"``,
``ties="index"``, on several servers, with ``enforce_walltime``, or with ``engine="events"`` / a progress bar.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from ...errors import InvalidInstanceError
from ...fairshare.kueue import KueueQueues
from ...fairshare.yarn import YarnQueues
from ...scheduling.production import (
    QUEUE_POLICIES,
    QueueScheduler,
    admission_fair_sharing,
    as_tree,
    cluster_resources,
)
from ...validation import require_choice
from ..cluster_state import ResourcePool, Servers
from .. import preemption as _pre
from ..preemption import as_preemption, reference_kueue_run
from ..yarn_preemption import as_yarn_preemption, reference_yarn_run
from .tasks import TaskPolicy

__all__ = ["ContainerPolicy", "QUEUE_POLICIES"]

logger = logging.getLogger(__name__)


class ContainerPolicy(TaskPolicy):
    """A production fair-share rule (:data:`QUEUE_POLICIES`) as a simulator policy (module docstring).

    Examples
    --------
    Two users in one YARN queue ``a`` and one in ``b`` on a pool of 4: ``a``'s first task goes first
    (both queues at share 0, the oldest task first), then ``b``'s (``a`` now holds 1/4):

    >>> import fairalloc as fa
    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "a"}, {"account": "b"}, {"user": "0", "account": "a"},
    ...                  {"user": "1", "account": "a"}, {"user": "2", "account": "b"}])
    >>> wl = fa.workloads.Workload(submit=[0, 0, 0], run_time=[10, 10, 10], tasks=[4, 4, 4], user=[0, 1, 2],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r = fa.simulate(wl, [4.0], policy="yarn", accounts=t)
    >>> r.launches["job"].tolist()[:4], r.launches["tasks"].tolist()[:4]
    ([0, 2, 0, 2], [1, 1, 1, 1])
    """

    def __init__(self, policy: str = "kueue", *, accounts: Any = None, weights: Any = None,
                 excluded: Sequence[str] = (), eps: float | None = None, half_life: Any = None,
                 sampling_interval: Any = None, resource_weights: Any = None, preemption: Any = None,
                 server: Any = "first_fit", blocking: str | None = None, structure: str = "live_tree",
                 ties: str = "wait", wakeups: bool = True, wake_on: str = "first") -> None:
        name = require_choice("policy", policy, QUEUE_POLICIES)
        admission_fair_sharing(name, half_life, sampling_interval, resource_weights)    # checked here, early
        self.preemption = as_yarn_preemption(preemption) if name == "yarn" else (
            as_preemption(preemption) if name == "kueue" or preemption is None or preemption is False else None)
        if self.preemption is None and preemption not in (None, False):
            raise InvalidInstanceError(f"preemption={preemption!r}: policy {name!r} does not preempt in the "
                                       "simulator yet (only 'kueue' and 'yarn' do)", argument="preemption",
                                       value=preemption)
        if self.preemption is not None and half_life is not None:
            raise InvalidInstanceError(f"preemption={preemption!r} with half_life={half_life!r}: Kueue's preemption "
                                       "under Admission Fair Sharing (LocalQueue usage in the candidate order) is not "
                                       "simulated yet", argument="preemption", value=preemption)
        if self.preemption is not None and (blocking not in (None, "skip") or ties != "wait"):
            bad, v = ("blocking", blocking) if blocking not in (None, "skip") else ("ties", ties)
            raise InvalidInstanceError(f"{bad}={v!r} with preemption: the preemptive loop runs Kueue's BestEffortFIFO "
                                       "(blocking='skip') with the oldest task first (ties='wait')", argument=bad,
                                       value=v)
        if eps is not None and not name.startswith("volcano"):
            raise InvalidInstanceError(f"eps={eps!r} applies to the volcano policies only", argument="eps", value=eps)
        if eps is not None and not (isinstance(eps, (int, float)) and eps > 0):
            raise InvalidInstanceError(f"eps={eps!r} must be a number > 0", argument="eps", value=eps)
        if excluded and name != "mesos":
            raise InvalidInstanceError(f"excluded={list(excluded)!r} applies to policy 'mesos' only",
                                       argument="excluded", value=list(excluded))
        if callable(server):
            raise InvalidInstanceError(f"server={getattr(server, '__name__', server)!r}: policy {name!r} takes a "
                                       "named server rule (first_fit, best_fit, tvtsf)", argument="server",
                                       value=getattr(server, "__name__", repr(server)))
        super().__init__("drf", weights=weights, server=server, blocking=blocking, structure=structure, ties=ties,
                         wakeups=wakeups, wake_on=wake_on)
        self.mechanism = self.name = name
        self.accounts = as_tree(accounts)
        self.excluded = tuple(str(x) for x in excluded)
        self.eps = eps
        self.half_life, self.sampling_interval, self.resource_weights = half_life, sampling_interval, resource_weights

    def reset(self, sim: Any) -> None:
        if self.preemption is not None and not getattr(self, "_on_kernel", False):
            raise InvalidInstanceError("preemption runs on the compiled loop (or engine='reference'), not on the "
                                       "event engine: use engine='auto' without a progress bar, on a pool",
                                       argument="preemption", value=repr(self.preemption))
        super().reset(sim)

    def kernel_applies(self, sim: Any) -> bool:
        if self.preemption is not None:
            return isinstance(sim.state, Servers) and not sim.progress
        return super().kernel_applies(sim)

    def _shared_cluster_queue(self, sim: Any) -> str | None:
        """Kueue: the name of a ClusterQueue of the given tree holding several LocalQueues (users), or None (users
        directly under ``root`` each get a ClusterQueue of their own)."""
        if self.accounts is None:
            return None
        t = self.accounts
        parents = np.asarray(t.parent)[np.asarray(t.user_nodes)]
        counts = np.bincount(parents, minlength=t.n_nodes)
        counts[0] = 0
        shared = np.flatnonzero(counts > 1)
        return str(t.names[int(shared[0])]) if len(shared) else None

    def run_kernel(self, sim: Any) -> Any:
        """The compiled loop (with ``preemption``: :func:`fairalloc.sim.preemption.step` after each pass)."""
        if self.preemption is None:
            if self.mechanism == "kueue" and self.half_life is None and self._shared_cluster_queue(sim) is not None:
                if self._reference_applies(sim):
                    logger.info("policy 'kueue': ClusterQueue %r holds several LocalQueues; Kueue nominates the "
                                "ClusterQueue's oldest head: routed to the reference loop (plain Python)",
                                self._shared_cluster_queue(sim))
                    return self.run_reference(sim)
                logger.warning("policy 'kueue': ClusterQueue %r holds several LocalQueues; the compiled loop keys "
                               "each LocalQueue by its ClusterQueue's share with its own head added, Kueue nominates "
                               "the ClusterQueue's oldest head (the reference loop, which runs Kueue's tournament, "
                               "takes one pool, blocking='skip', ties='wait', no enforce_walltime)",
                               self._shared_cluster_queue(sim))
            return super().run_kernel(sim)
        self._check_preemptive(sim)
        if self.mechanism == "kueue" and self._shared_cluster_queue(sim) is not None:
            logger.info("policy 'kueue' with preemption: ClusterQueue %r holds several LocalQueues; Kueue nominates "
                        "the ClusterQueue's oldest head: routed to the reference loop (plain Python)",
                        self._shared_cluster_queue(sim))
            return self.run_reference(sim)
        self._on_kernel = True
        try:
            return super().run_kernel(sim)
        finally:
            self._on_kernel = False

    def _reference_applies(self, sim: Any) -> bool:
        """Whether the reference loop simulates this run as the compiled one would (one pool, Kueue's
        BestEffortFIFO with the oldest task first, no wall-time enforcement)."""
        state = sim.state
        one = isinstance(state, ResourcePool) or state.capacities.shape[0] == 1
        return one and not sim.enforce_walltime and self.blocking in (None, "skip") and self.ties == "wait"

    def _kernel_preemption(self, n_jobs: int) -> Any:
        """A live preemption state with ``preemption``, else one that does nothing (:func:`~fairalloc.sim.preemption.new_state`:
        every queue policy runs the one compiled loop of the queue core)."""
        s = self.scheduler
        if self.preemption is None:
            return _pre.new_state(None, None, len(s._core.st.w), n_jobs, s._core.k)
        if self.mechanism == "yarn":
            yq = YarnQueues(s.tree, resources=list(s.tree.resources))
            return _pre.new_state(self.preemption, (yq, s.totals), len(s._core.st.w), n_jobs, s._core.k)
        kq = KueueQueues(s.tree, resources=list(s.tree.resources))
        return _pre.new_state(self.preemption, kq, len(s._core.st.w), n_jobs, s._core.k)

    def _kernel_preemptions(self, ps: Any, order: Any, wl: Any, launches: dict, stats: dict) -> Any:
        if self.preemption is None:
            return None
        return _pre.kernel_preemptions(ps, order, wl, launches, stats, self.preemption)

    def _check_preemptive(self, sim: Any) -> None:
        """What the preemptive runs do not simulate, refused naming it."""
        state = sim.state
        if not isinstance(state, ResourcePool) and state.capacities.shape[0] != 1:
            raise InvalidInstanceError(f"preemption is simulated on one pool; this cluster has "
                                       f"{state.capacities.shape[0]} servers (give a resource vector as capacity)",
                                       argument="capacity", value=int(state.capacities.shape[0]))
        if sim.enforce_walltime:
            raise InvalidInstanceError("preemption with enforce_walltime=True is not simulated yet",
                                       argument="enforce_walltime", value=True)

    def run_reference(self, sim: Any) -> Any:
        """The plain-Python reference loop of :mod:`fairalloc.sim.preemption` (``engine="reference"``)."""
        if self.mechanism not in ("kueue", "yarn") or (self.mechanism == "kueue" and self.half_life is not None):
            raise InvalidInstanceError(f"engine='reference' runs 'kueue' (without half_life) and 'yarn' on their "
                                       f"reference loops, not {self.name!r}", argument="engine", value="reference")
        self._check_preemptive(sim)
        state = sim.state
        wl = sim.workload
        state.bind(wl)
        pool = state if isinstance(state, ResourcePool) else ResourcePool(state.capacities[0],
                                                                           resource_names=state.resource_names)
        kw = {"admitted": sim.admissible()}
        if self.mechanism == "kueue":                    # Kueue's cycle where the compiled key is not Kueue's order
            kw["cycle"] = self._shared_cluster_queue(sim) is not None
        run = reference_yarn_run if self.mechanism == "yarn" else reference_kueue_run
        return run(wl, pool, accounts=self.accounts, weights=self.weights, preemption=self.preemption,
                   policy_name=self.name, **kw)

    def _new_scheduler(self, state: Servers, n: int, wl: Any) -> QueueScheduler:
        k = state.capacities.shape[1]
        names = cluster_resources(getattr(wl, "resource_names", ()) or (), k, self.accounts)
        return QueueScheduler(state.capacities, policy=self.mechanism, accounts=self.accounts, n_users=n,
                              weights=self.weights, resources=names, excluded=self.excluded, eps=self.eps,
                              half_life=self.half_life, sampling_interval=self.sampling_interval,
                              resource_weights=self.resource_weights,
                              placement=state.placement, server=self.server, blocking=self.blocking,
                              structure=self.structure, ties=self.ties, time=0.0)
