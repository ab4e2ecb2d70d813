r"""The container clusters' fair sharing as task schedulers: Kueue (and its Admission Fair Sharing), YARN's Fair
Scheduler (DRF), Mesos' DRF sorter, Volcano (proportion; with the DRF plugin; hierarchical DRF).

Each is a *key* on the one decision core (:mod:`fairalloc.scheduling.keys`: :func:`~.keys.kueue_key`,
:func:`~.keys.yarn_key`, :func:`~.keys.mesos_key`) read from a queue tree
(:mod:`fairalloc.scheduling.queues`): users are the system's leaf entities (Kueue LocalQueues, YARN
applications, Mesos clients) and each belongs to one *queue* (a ClusterQueue, a leaf queue, a role)
whose state decides the user's place. The rules are those of :mod:`fairalloc.fairshare`, called by the
compiled keys; this module only builds the tree and checks the arguments.

===========  =====================================================  ===================================  ========
policy       the next task goes to the user whose queue has ...     a task may start only if ...         blocking
===========  =====================================================  ===================================  ========
``kueue``    not borrowing on the task's resources with the task    it fits the ClusterQueue's           skip
             added, then the lowest :math:`DRS/w` with the task     available quota (nominal quota,
             added (Kueue's ``entryComparer``, KEP 1714)            borrowing and lending limits)
``yarn``     needy (below its min share) first, then the lowest     the queue and its ancestors stay
             dominant share over its weight (``DominantResource     within their max shares
             FairnessComparator``)                                  (``fitsInMaxShare``)
``mesos``    the lowest dominant share over its weight              (always)
             (``DRFSorter``)
``volcano``  the lowest share of its deserved resources,            the queue's holdings with the task
             :math:`\max_r a_r/d_r`, the deserved resources of     stay within its deserved resources
             the proportion plugin recomputed from the queues'      (``queueAllocatable``)
             requests (held + pending) at each pass after a
             change (``OnSessionOpen``, ``QueueOrderFn``)
===========  =====================================================  ===================================  ========

Within a queue its users are served in submission order (the core's tie: the oldest pending task first),
which is Kueue's BestEffortFIFO order of a ClusterQueue's workloads and the queue timestamp of its
tournament; YARN (within a leaf queue) and Mesos (within a role) order their applications by the same
comparator one level down, which is not modelled. ``blocking="skip"`` by default: a queue whose head task
is refused or fits nowhere is set aside until the next pass and the next queue is tried (Kueue's
BestEffortFIFO; YARN and Mesos offer a node's resources to the next schedulable).

**Relation to DRF and CDRF.** With one queue per user (the default when no ``accounts`` are given),
YARN and Mesos order the users by :math:`\max_r u_{ir}/T_r / w_i`: DRF's key. Kueue's share is taken
*with the task added* and borrowing is measured from a nominal quota of 0 against the cohort's lendable
capacity (here the cluster): :math:`1000 \max_r (u_{ir} + d_r)/T_r / w_i`, the order of CDRF's key
(:func:`~fairalloc.scheduling.keys.cdrf_key`), not DRF's; both give DRF's allocation on divisible
demands (:func:`fairalloc.fairshare.pooled`), and the same schedule when every task has the same demand.
``tests/unit/sim/test_production_policies.py`` checks both reductions.

Volcano's proportion plugin divides each resource separately (weighted max-min of the requests): with
one queue per user on one resource it is weighted max-min of the demands; it is not DRF, and not Pareto
efficient on two resources (:mod:`fairalloc.fairshare.volcano`). Its ``eps`` (``minResource``) defaults
to :math:`10^{-9}` of the smallest total (Volcano's 0.1 is in milli-CPU and bytes).

**Volcano's DRF plugin and HDRF** (``volcano-drf``, ``volcano-hdrf``; :func:`~fairalloc.scheduling.keys.ranked_key`).
The queue order is lexicographic (HDRF: along the queues' paths in the account tree, any depth), so the
queues are sorted after every change and a user's key is :math:`2\rho_q + s_u`: the dense rank of its queue,
then its job's DRF share :math:`\max_r a_{ur}/T_r` (``JobOrderFn``). ``volcano-drf`` ranks queues by the
proportion share and keeps proportion's cap; ``volcano-hdrf`` ranks them by ``compareQueues`` after
``updateHierarchicalShare`` (:func:`fairalloc.fairshare.volcano.hdrf_update_into`, weights ``hdrf_weight``)
and has no cap. Flat HDRF with one job per queue and equal weights orders as DRF (saturated jobs last; they
fit nowhere on a pool), so its schedule is ``drf``'s with ``blocking="skip"``
(``tests/unit/sim/test_volcano_drf_kueue_afs.py``).

**Kueue's Admission Fair Sharing** (``policy="kueue"`` with ``half_life``; KEP 4136,
:func:`~fairalloc.scheduling.keys.kueue_afs_key`): each LocalQueue's consumed resources decay to its admitted
usage with the half-life (SDRF's Eq. 6, :func:`fairalloc.commitments.decay_row_into`) at every sampling
instant and at each admission, which adds the entry penalty; a ClusterQueue's head is its pending LocalQueue
of lowest :math:`\sum_r \omega_r c_r / w` and takes the Kueue key above; the other pending LocalQueues come
after every head, by that usage.

Not modelled (each said where it matters): workload priorities, preemption in this scheduler (Kueue's
fair-sharing preemption is simulated by the simulator's compiled loop, :func:`fairalloc.sim.preemption.step`
after each pass of this core, and YARN's fair-share preemption, :mod:`fairalloc.sim.yarn_preemption`), nested
cohorts and nested queues other
than HDRF's (refused with a clear error).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..accounts import AccountTree, read_accounts
from ..errors import InvalidInstanceError
from ..model import Cluster
from ..validation import require_choice
from ._base import TaskScheduler
from .queues import build_queues, normalize_tree

__all__ = ["QueueScheduler", "QUEUE_POLICIES", "admission_fair_sharing", "cluster_resources"]

#: The production policies that are keys on the core.
QUEUE_POLICIES = ("kueue", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf")


def admission_fair_sharing(policy: str, half_life: Any = None, sampling_interval: Any = None,
                           resource_weights: Any = None, resources: Sequence[str] | None = None) -> Any:
    """Kueue's Admission Fair Sharing from the scheduler's options, checked (None when ``half_life`` is None).

    Raises
    ------
    InvalidInstanceError
        An AFS option on a policy other than ``kueue``, ``sampling_interval`` or ``resource_weights``
        without ``half_life``, a half-life or interval that is not a finite number > 0 (a half-life of 0:
        Kueue's ``usageHalfLifeTime=0`` makes :math:`\alpha = 0` and silently turns AFS off, kueue#11134),
        a resource weight below 0 or not a number, a resource weight on a resource the cluster does not have.
    """
    from ..fairshare.kueue import AdmissionFairSharing

    given = {k: v for k, v in (("half_life", half_life), ("sampling_interval", sampling_interval),
                               ("resource_weights", resource_weights)) if v is not None}
    if not given:
        return None
    if policy != "kueue":
        name = next(iter(given))
        raise InvalidInstanceError(f"{name}={given[name]!r}: Admission Fair Sharing is Kueue's; policy {policy!r} "
                                   "has no usage half-life", argument=name, value=given[name])
    if half_life is None:
        name = next(iter(given))
        raise InvalidInstanceError(f"{name}={given[name]!r} needs half_life (Kueue's usageHalfLifeTime, seconds), "
                                   "which turns Admission Fair Sharing on", argument=name, value=given[name])
    for name, v in (("half_life", half_life), ("sampling_interval", sampling_interval)):
        if v is None:
            continue
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        if not ok or not (0 < float(v) < math.inf):
            why = ("; Kueue's usageHalfLifeTime=0 makes alpha = 0 and silently turns Admission Fair Sharing "
                   "off (kueue#11134)") if name == "half_life" and ok and float(v) == 0 else ""
            raise InvalidInstanceError(f"{name}={v!r} must be a finite number of seconds > 0{why}", argument=name,
                                       value=v)
    rw = {} if resource_weights is None else dict(resource_weights)
    for r, x in rw.items():
        if resources is not None and str(r) not in [str(y) for y in resources]:
            raise InvalidInstanceError(f"resource_weights[{r!r}]: no resource {r!r} in the cluster's "
                                       f"{list(resources)}", argument="resource_weights", index=(r,), value=r)
        ok = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
        if not ok or not (0 <= float(x) < math.inf):
            raise InvalidInstanceError(f"resource_weights[{r!r}]={x!r} must be a finite number >= 0 (0: the "
                                       "resource does not count in the LocalQueue usage)",
                                       argument="resource_weights", index=(r,), value=x)
    return AdmissionFairSharing(usage_half_life=float(half_life),
                                sampling_interval=300.0 if sampling_interval is None else float(sampling_interval),
                                resource_weights={str(r): float(x) for r, x in rw.items()})


def cluster_resources(names: Sequence[str], k: int, accounts: AccountTree | None) -> list[str] | None:
    """The resource names to give :class:`QueueScheduler` for a workload named ``names`` on ``k`` resources:
    ``names``, or None (the tree's own names, in column order) when the workload is unnamed (``r0``, ``r1``, ...,
    or not ``k`` names) and the tree names ``k`` resources that are not all among them.

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "a"}, {"user": "0", "account": "a"}], resources=["cpu"])
    >>> cluster_resources(["r0"], 1, t) is None, cluster_resources(["cpu"], 1, t)
    (True, ['cpu'])
    """
    import re

    names = [str(x) for x in names]
    given = tuple(accounts.resources) if accounts is not None else ()
    if len(names) != k or (given and len(given) == k and not set(given) <= set(names)
                           and all(re.fullmatch(r"r\d+", x) for x in names)):
        return None
    return names


def as_tree(accounts: Any) -> AccountTree | None:
    """``accounts`` as an :class:`~fairalloc.accounts.AccountTree` (None, a tree, or a YAML/CSV file)."""
    if accounts is None or isinstance(accounts, AccountTree):
        return accounts
    if isinstance(accounts, (str, Path)):
        return read_accounts(accounts)
    raise InvalidInstanceError(f"accounts={accounts!r} must be None, an AccountTree or a YAML/CSV file",
                               argument="accounts", value=repr(accounts)[:80])


class QueueScheduler(TaskScheduler):
    """A production fair-share rule (:data:`QUEUE_POLICIES`) as a continuous-time task scheduler.

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
    policy : {"kueue", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf"}
    accounts : AccountTree or path, optional
        The queues: users ``"0", "1", ...`` (the scheduler's user indices) under accounts, with the
        fields the policy reads (:data:`fairalloc.scheduling.queues.POLICY_TREES`); default one queue per
        user (:func:`fairalloc.scheduling.queues.normalize_tree` says how a tree is completed).
    n_users : int, optional
        Number of users (default: the tree's users, or ``len(weights)``).
    weights : array_like (n_users,), optional
        The weight of each user's own queue when it has one (no ``accounts``, or a user directly under
        ``root``); Kueue: 0 is allowed (a borrowing queue of weight 0 goes last), YARN: 0 (served after
        every weighted queue, YARN-6754), Mesos: must be > 0.
    resources : sequence of str, optional
        The cluster's resource names (the tree's per-resource fields use them); default the tree's, or
        ``r0, r1, ...``.
    excluded : sequence of str, optional
        Mesos: resources left out of the shares.
    eps : float, optional
        Volcano's ``minResource`` in the cluster's units (:func:`fairalloc.scheduling.queues.build_queues`).
    half_life, sampling_interval, resource_weights : optional
        Kueue's Admission Fair Sharing (``usageHalfLifeTime``, ``usageSamplingInterval`` default 300 s,
        ``resourceWeights`` by resource name, default 1): ``half_life`` in seconds turns it on
        (:func:`admission_fair_sharing`).
    server, blocking, structure, ties, placement, time
        As :class:`~fairalloc.scheduling.TaskScheduler` (``server`` a named rule).

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; A's tasks <1, 4>, B's <3, 1>) under Mesos' sorter, one role
    per user: DRF's A, B, A, B, A:

    >>> s = QueueScheduler([[9, 18]], policy="mesos", n_users=2)
    >>> _ = s.submit(0, [1, 4], 10), s.submit(1, [3, 1], 10)
    >>> [st.user for st in s.schedule()]
    [0, 1, 0, 1, 0]
    """

    def __init__(self, cluster: Any, /, *, policy: str, accounts: Any = None, n_users: int | None = None,
                 weights: Any = None, resources: Sequence[str] | None = None, excluded: Sequence[str] = (),
                 eps: float | None = None, half_life: Any = None, sampling_interval: Any = None,
                 resource_weights: Any = None, placement: Any = None, server: Any = "first_fit",
                 blocking: str | None = None,
                 structure: str = "live_tree", ties: str = "wait", time: float = 0.0) -> None:
        self.mechanism = require_choice("policy", policy, QUEUE_POLICIES)
        if callable(server):
            raise InvalidInstanceError(f"server={getattr(server, '__name__', server)!r}: policy {policy!r} takes "
                                       "a named server rule (first_fit, best_fit, tvtsf)", argument="server",
                                       value=getattr(server, "__name__", repr(server)))
        cl = cluster if isinstance(cluster, Cluster) else Cluster(cluster)
        tree = as_tree(accounts)
        if n_users is None:
            if weights is not None:
                n_users = len(np.atleast_1d(weights))
            elif tree is not None:
                n_users = tree.n_users
            else:
                raise InvalidInstanceError("give n_users, weights or accounts", argument="n_users", value=None)
        n = int(n_users)
        if resources is None:
            named = tree is not None and tree.resources
            resources = list(tree.resources) if named else [f"r{k}" for k in range(cl.n_resources)]
        if len(resources) != cl.n_resources:
            raise InvalidInstanceError(f"resources has {len(resources)} names for {cl.n_resources} resources",
                                       argument="resources", value=list(resources))
        if weights is not None and len(np.atleast_1d(weights)) != n:
            raise InvalidInstanceError(f"weights has {len(np.atleast_1d(weights))} entries but n_users={n}",
                                       argument="weights", value=len(np.atleast_1d(weights)))
        self.admission = admission_fair_sharing(self.mechanism, half_life, sampling_interval, resource_weights,
                                                resources)
        if self.admission is not None:
            self.mechanism = "kueue-afs"
        self.tree = normalize_tree(self.mechanism, tree, n, resources, cl.totals, weights)
        self.queues = build_queues(self.mechanism, self.tree, n, cl.totals, excluded=excluded, eps=eps,
                                   admission=self.admission)
        super().__init__(cl, n_users=n, placement=placement, server=server, blocking=blocking,
                         structure=structure, ties=ties, time=time)

    def _core_options(self) -> dict:
        return {"queues": self.queues}

    def queue_usage(self) -> np.ndarray:
        """(n_nodes, K) raw resources held below every node of :attr:`tree` (a copy)."""
        return self._core.st.qs.usage.copy()
