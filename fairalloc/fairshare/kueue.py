r"""Kueue's fair sharing: dominant resource share of borrowing, the admission tournament, preemption, and AFS.

Sources (read at kubernetes-sigs/kueue ``ff69552e79``, 2026-08-22): ``pkg/cache/scheduler/fair_sharing.go``
(``dominantResourceShare``, ``CompareDRS``, ``calculateLendable``), ``pkg/cache/scheduler/resource_node.go``
(``localQuota``, ``available``, ``potentialAvailable``, ``addUsage``, ``removeUsage``,
``accumulateFromChild``), ``pkg/scheduler/fair_sharing_iterator.go`` (``runTournament``,
``entryComparer.less``, ``computeDRS``), ``pkg/scheduler/preemption/preemption.go`` (``fairPreemptions``,
``runFirstFsStrategy``, ``runSecondFsStrategy``, ``fillBackWorkloads``, ``findCandidates``),
``pkg/scheduler/preemption/fairsharing/{strategy,ordering,target,least_common_ancestor}.go``,
``pkg/scheduler/preemption/common/{ordering,preemption_policy}.go``,
``pkg/util/admissionfairsharing/admission_fair_sharing.go``, ``pkg/cache/queue/cluster_queue.go``, the
controllers' ``reconcileConsumedUsage`` / ``updateAfsConsumedUsage``, KEP 1714 (fair sharing) and KEP 4136
(admission fair sharing), and the concept pages ``site/content/en/docs/concepts/{fair_sharing,preemption,
admission_fair_sharing}.md``. Feature gates at their defaults of that version:
``FairSharingPrioritizeNonBorrowing``, ``PrioritySortingWithinCohort``, ``FairSharingPreemptWithinNominal``
on, ``PrioritizePreemptorWorkloads`` off.

**The tree.** Kueue's cohorts and ClusterQueues are the *accounts* of an
:class:`~fairalloc.accounts.AccountTree`; its LocalQueues are the *users* (leaves, the holders of
workloads). An account with account children is a cohort, an account with users (or with nothing) a
ClusterQueue; an account directly under ``root`` has no parent in Kueue's sense (a root cohort, or a
ClusterQueue without a cohort). Per node and per resource column: ``nominal_quota`` :math:`N` (default
0), ``lending_limit`` :math:`L` and ``borrowing_limit`` :math:`B` (unset = none); ``weight`` :math:`w`
(``fairSharing.weight``, default 1; on a user, the LocalQueue's AFS weight).

* local quota (kept from the parent by the lending limit) :math:`LQ = \max(0, SQ - L)`, 0 without
  :math:`L`;
* subtree quota, bottom-up, :math:`SQ_v = N_v + \sum_{c} (SQ_c - LQ_c)`;
* usage, bottom-up, :math:`U_v = \text{own}_v + \sum_c \max(0, U_c - LQ_c)` (a LocalQueue's own usage is
  its admitted workloads'; :func:`add_usage_into` / :func:`remove_usage_into` move one workload);
* potential available, top-down, :math:`PA_{top} = SQ`, :math:`PA_v = \min(LQ_v + PA_{parent},\ SQ_v + B_v)`;
* available (what fits now) :math:`A_v = \max(0, LQ_v - U_v) + \min(SQ_v - LQ_v - \max(0, U_v - LQ_v) + B_v,\
  A_{parent})`, :math:`A_{top} = SQ - U` (:func:`available`).

**Dominant resource share** (``dominantResourceShare``; KEP 1714 "Share value function and weights").
For a node :math:`v` with a parent, resource :math:`r` (the flavour columns of one resource summed):

.. math:: T_r = \sum_{f \in r} \max(0,\ U_{v,f} - SQ_{v,f}),\qquad
          DRS_v = \max_{r:\ \Lambda_r > 0} \frac{1000\,T_r}{\Lambda_r},\qquad
          \Lambda_r = \sum_{f\in r} PA_{parent(v), f},

the borrowing over the *lendable* capacity, per mille (the scale of ``status.fairSharing.weightedShare``),
and the weighted share :math:`DRS_v/w_v` (0 when not borrowing). A node without a parent has 0.
**Weight 0** ("a zero weight implies infinite share value"): a borrowing node of weight 0 compares above
every other node, and such nodes compare among themselves by their unweighted :math:`DRS`
(``CompareDRS``); the status reports :math:`2^{63}-1`. Weights between 0 and :math:`10^{-9}` are invalid.

**Admission** (``runTournament``): every ClusterQueue nominates its head workload; each cohort, bottom-up,
picks among its children's nominees the one whose child node (CQ or cohort) has, *with that workload
added*, first a subtree not borrowing on the workload's resources, then the lowest :math:`DRS/w`, then
the highest priority, then the earliest queue timestamp; the root's pick is admitted (if it fits) and
the tournament runs again (:func:`tournament_winner`).

**Preemption** (``fairPreemptions``; the preemption page's "Fair Sharing"). With the preemptor's usage
added, target ClusterQueues are taken in turn from the root: at each cohort the child with the highest
:math:`DRS` among those still borrowing (cohorts win ties), down to a ClusterQueue
(``TargetClusterQueueOrdering``). A candidate :math:`z` of target :math:`y` may be preempted for
workload :math:`w` of :math:`x` when, with :math:`a_x`, :math:`a_y` the children of the least common
ancestor on the paths to :math:`x` and :math:`y`:

* ``LessThanOrEqualToFinalShare`` (rule S2-a): :math:`DRS(a_x + w) \le DRS(a_y - z)`;
* ``LessThanInitialShare`` (rule S2-b): :math:`DRS(a_x + w) < DRS(a_y)`;

(:func:`less_than_or_equal_to_final_share`, :func:`less_than_initial_share`); the default list is both,
S2-a first. A preemptor within its nominal quota on the contested resources preempts borrowers
unconditionally (``FairSharingPreemptWithinNominal``). Finally targets are given back, last-but-one first,
while the workload still fits (``fillBackWorkloads``). Candidates are ordered by ``CandidatesOrdering``:
already evicted first, other ClusterQueues before the preemptor's own, (AFS) higher LocalQueue usage
first, lower priority first, most recently admitted first, then the workload order (Kueue: the UID).

*As the code runs, not as the KEP says*: KEP 1714 orders candidates by "[C1] values of cohorts/cq on the
way from root ... [C2] priority ... [C3] size of the workload - smallest workloads ... are favored". The
code has no size criterion: within a target ClusterQueue it takes the most recently admitted first
(``CandidatesOrdering``), and a larger workload can be preempted before a smaller one. This module follows
the code; ``tests/unit/fairshare/test_kueue.py`` has the case.

**Admission Fair Sharing** (KEP 4136; the AFS concept page; ``admission_fair_sharing.go``). Per
LocalQueue, every ``usageSamplingInterval`` (default 5 min) the consumed resources decay towards the
admitted usage :math:`u`: :math:`c \leftarrow (1-\alpha)c + \alpha u`, :math:`\alpha = 1 - 0.5^{\Delta/h}`
with :math:`\Delta` the seconds since the last update and :math:`h` = ``usageHalfLifeTime``. This is
**SDRF's Eq. 6** with the excess replaced by the admitted usage (:math:`\alpha = 1 - e^{-\Delta/\tau}`,
:math:`\tau = h/\ln 2`) and it is computed by :func:`fairalloc.commitments.decay_row_into` itself. Each
admission adds an *entry penalty* :math:`\alpha(\text{sampling}, h)\times` the workload's requests,
settled into the consumed resources on admission. Workloads of an AFS ClusterQueue are ordered by the
LocalQueue usage :math:`\sum_r \omega_r (c_r + p_r) / w_{LQ}` (resource weights :math:`\omega`, default 1;
:math:`+\infty` for :math:`w_{LQ} \le 0`), then priority, then timestamp.
``usageHalfLifeTime=0`` makes :math:`\alpha = 0` and turns AFS off without a message (Kueue #11134; PR
#15228 proposes a default); here a half-life of 0 or below is refused.

**Relation to DRF and SDRF.** With one ClusterQueue per user, every nominal quota 0 and the capacity as
the nominal quota of one cohort above them, :math:`\Lambda` is the capacity and :math:`DRS_v/1000` is the
user's dominant share: admitting by the tournament one workload at a time is DRF's progressive filling
(tests check it against :func:`fairalloc.drf`). Quotas shift the origin: only use above the nominal quota
counts, as an SDRF commitment counts only use above the fair share, but Kueue's share has no memory; AFS
adds memory (a decayed usage, like SDRF's commitments, but of the whole use and only to order
LocalQueues within a ClusterQueue).

Examples
--------
Two ClusterQueues in a cohort with 10 CPUs of nominal quota each (``cohort`` has 0): ``a`` uses 15,
``b`` 2; ``a`` borrows 5 of the 20 lendable, 250 per mille:

>>> from fairalloc.accounts import AccountTree
>>> tree = AccountTree([{"account": "cohort"},
...     {"account": "a", "parent": "cohort", "nominal_quota": {"cpu": 10}},
...     {"account": "b", "parent": "cohort", "nominal_quota": {"cpu": 10}},
...     {"user": "lq-a", "account": "a"}, {"user": "lq-b", "account": "b"}], resources=["cpu"])
>>> k = KueueQueues(tree)
>>> u = k.usage([[15.0], [2.0]])
>>> k.weighted_shares(u)[[k.node("a"), k.node("b")]].tolist()
[250.0, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any, Mapping, Sequence

import numpy as np

from .. import commitments
from ..accounts import AccountTree
from ..errors import InvalidInstanceError
from ._checks import no_parent_shares, node_scalar, node_vector, scalar, user_matrix
from ._jit import callee

__all__ = [
    "KueueQueues",
    "KueueFairSharing",
    "AdmissionFairSharing",
    "DRS_SCALE",
    "MAX_WEIGHTED_SHARE",
    "PREEMPTION_STRATEGIES",
    "VALID_STRATEGY_LISTS",
    "PREEMPTION_POLICIES",
    "ROOT",
    "COHORT",
    "CLUSTER_QUEUE",
    "LOCAL_QUEUE",
    "local_quota",
    "subtree_quota_into",
    "node_usage_into",
    "add_usage_into",
    "remove_usage_into",
    "available",
    "potential_available",
    "lendable_into",
    "dominant_resource_share",
    "is_borrowing_on",
    "drs_key",
    "weighted_share",
    "tournament_winner",
    "less_than_or_equal_to_final_share",
    "less_than_initial_share",
    "afs_alpha",
    "afs_usage",
]

#: Scale of Kueue's share (``dominantResourceShare`` multiplies the ratio by 1000).
DRS_SCALE = 1000.0
#: ``status.fairSharing.weightedShare`` of a borrowing node with weight 0 (``math.MaxInt64``).
MAX_WEIGHTED_SHARE = 2**63 - 1
#: Kueue's fair-sharing preemption strategies (``config.PreemptionStrategy``).
PREEMPTION_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
#: The only lists Kueue's configuration validation accepts (``validateFairSharing``).
VALID_STRATEGY_LISTS = (("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",),
                        ("LessThanOrEqualToFinalShare", "LessThanInitialShare"))
#: ClusterQueue ``preemption.withinClusterQueue`` / ``reclaimWithinCohort`` values.
PREEMPTION_POLICIES = ("Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any")
#: Node kinds (:attr:`KueueQueues.kind`).
ROOT, COHORT, CLUSTER_QUEUE, LOCAL_QUEUE = 0, 1, 2, 3
_MIN_WEIGHT = 1e-9                  # "When not 0, Weight must be greater than 10^-9."


# ---- the resource tree (plain loops over arrays; numba compiles them) --------------------------------
@callee
def local_quota(subtree_quota: float, lending_limit: float) -> float:
    r"""Quota a node keeps from its parent: :math:`\max(0, SQ - L)`, 0 without a lending limit (``L = inf``).

    ``resourceNode.localQuota``.

    Parameters
    ----------
    subtree_quota : float
        :math:`SQ` of the node, one column.
    lending_limit : float
        :math:`L`, ``inf`` when unset.

    Returns
    -------
    float

    Examples
    --------
    >>> local_quota(10.0, 4.0), local_quota(10.0, math.inf), local_quota(3.0, 4.0)
    (6.0, 0.0, 0.0)
    """
    x = subtree_quota - lending_limit
    if x > 0.0:
        return x
    return 0.0


@callee
def _accumulate_into(parent, preorder, own, quota_of, lending, out) -> None:
    """``out_v = own_v + sum_c max(0, out_c - LQ(quota_of_c))`` bottom-up (children before parents; row 0 is 0).

    ``quota_of`` may be ``out`` itself: a child's row is final before its parent reads it.
    """
    n, m = out.shape
    for v in range(n):
        for r in range(m):
            out[v, r] = own[v, r] if v > 0 else 0.0
    for k in range(len(preorder) - 1, 0, -1):
        v = preorder[k]
        p = parent[v]
        if p > 0:
            for r in range(m):
                x = out[v, r] - local_quota(quota_of[v, r], lending[v, r])
                if x > 0.0:
                    out[p, r] += x


def subtree_quota_into(parent, preorder, nominal, lending, out) -> None:
    r"""Every node's subtree quota :math:`SQ_v = N_v + \sum_c (SQ_c - LQ_c)` (``updateCohortResourceNode``).

    Parameters
    ----------
    parent, preorder : ndarray of int64
        :attr:`fairalloc.accounts.AccountTree.parent` and ``preorder`` (node 0, the root, is skipped:
        it is not a Kueue node).
    nominal, lending : ndarray of float, shape (n_nodes, n_columns)
        Nominal quotas (0 when unset) and lending limits (``inf`` when unset).
    out : ndarray of float, shape (n_nodes, n_columns)
        Receives :math:`SQ` (row 0 is set to 0).

    Examples
    --------
    A cohort (node 1) with 2 of its own and two children with 3 and 4, the second lending only 1:

    >>> parent = np.array([-1, 0, 1, 1]); pre = np.array([0, 1, 2, 3])
    >>> out = np.empty((4, 1))
    >>> subtree_quota_into(parent, pre, np.array([[0.], [2.], [3.], [4.]]),
    ...                    np.array([[math.inf], [math.inf], [math.inf], [1.]]), out)
    >>> out[:, 0].tolist()
    [0.0, 6.0, 3.0, 4.0]
    """
    _accumulate_into(parent, preorder, nominal, out, lending, out)      # min(SQ_c, L_c) = SQ_c - LQ_c >= 0


def node_usage_into(parent, preorder, own, subtree_quota, lending, out) -> None:
    r"""Every node's usage :math:`U_v = own_v + \sum_c \max(0, U_c - LQ_c)` (``accumulateFromChild``).

    Parameters
    ----------
    parent, preorder : ndarray of int64
    own : ndarray of float, shape (n_nodes, n_columns)
        Usage of the workloads admitted at each node (LocalQueues; 0 elsewhere).
    subtree_quota, lending : ndarray of float, shape (n_nodes, n_columns)
    out : ndarray of float, shape (n_nodes, n_columns)
        Receives :math:`U` (row 0 is 0).

    Examples
    --------
    A ClusterQueue (node 1, no lending limit) with one LocalQueue (node 2) using 5: all of it counts at
    the ClusterQueue:

    >>> out = np.empty((3, 1))
    >>> node_usage_into(np.array([-1, 0, 1]), np.array([0, 1, 2]), np.array([[0.], [0.], [5.]]),
    ...                 np.zeros((3, 1)), np.full((3, 1), math.inf), out)
    >>> out[:, 0].tolist()
    [0.0, 5.0, 5.0]
    """
    _accumulate_into(parent, preorder, own, subtree_quota, lending, out)


@callee
def add_usage_into(v: int, request, parent, subtree_quota, lending, usage) -> None:
    """Add one workload's ``request`` at node ``v`` and bubble past local quotas upwards (``addUsage``).

    Parameters
    ----------
    v : int
        The node receiving the workload (a LocalQueue or ClusterQueue).
    request : ndarray of float, shape (n_columns,)
    parent : ndarray of int64
    subtree_quota, lending : ndarray of float, shape (n_nodes, n_columns)
    usage : ndarray of float, shape (n_nodes, n_columns)
        Modified in place.

    Examples
    --------
    A ClusterQueue (node 1) lending 2 of its 5 (local quota 3) with 2 in use; adding 4: 1 fits its local
    quota, 3 go up to its cohort (node 0 is the root and is never charged):

    >>> parent = np.array([-1, 2, 0]); sq = np.array([[0.], [5.], [5.]]); lend = np.array([[0.], [2.], [math.inf]])
    >>> u = np.array([[0.], [2.], [0.]])
    >>> add_usage_into(1, np.array([4.]), parent, sq, lend, u); u[:, 0].tolist()
    [0.0, 6.0, 3.0]
    """
    for r in range(len(request)):
        val = request[r]
        node = v
        while True:
            lq = local_quota(subtree_quota[node, r], lending[node, r])
            la = lq - usage[node, r]
            if la < 0.0:
                la = 0.0
            usage[node, r] += val
            if parent[node] > 0 and val > la:
                val = val - la
                node = parent[node]
            else:
                break


@callee
def remove_usage_into(v: int, request, parent, subtree_quota, lending, usage) -> None:
    """Remove one workload's ``request`` from node ``v`` and from what it stored upwards (``removeUsage``).

    Parameters
    ----------
    v : int
    request : ndarray of float, shape (n_columns,)
    parent : ndarray of int64
    subtree_quota, lending : ndarray of float, shape (n_nodes, n_columns)
    usage : ndarray of float, shape (n_nodes, n_columns)
        Modified in place.

    Examples
    --------
    Undo the example of :func:`add_usage_into`:

    >>> parent = np.array([-1, 2, 0]); sq = np.array([[0.], [5.], [5.]]); lend = np.array([[0.], [2.], [math.inf]])
    >>> u = np.array([[0.], [6.], [3.]])
    >>> remove_usage_into(1, np.array([4.]), parent, sq, lend, u); u[:, 0].tolist()
    [0.0, 2.0, 0.0]
    """
    for r in range(len(request)):
        val = request[r]
        node = v
        while True:
            stored = usage[node, r] - local_quota(subtree_quota[node, r], lending[node, r])
            usage[node, r] -= val
            if stored <= 0.0 or parent[node] <= 0:
                break
            if stored < val:
                val = stored
            node = parent[node]


@callee
def _depth(v: int, parent) -> int:
    d = 0
    while parent[v] > 0:
        v = parent[v]
        d += 1
    return d


@callee
def _path_from_top(v: int, parent):
    """Nodes from ``v``'s topmost ancestor below the root down to ``v``."""
    d = _depth(v, parent)
    path = np.empty(d + 1, dtype=np.int64)
    node = v
    for k in range(d, -1, -1):
        path[k] = node
        node = parent[node]
    return path


@callee
def _ancestor(v: int, parent, steps: int) -> int:
    """The node ``steps`` levels above ``v``."""
    for _ in range(steps):
        v = parent[v]
    return v


@callee
def available(v: int, r: int, parent, subtree_quota, lending, borrowing, usage) -> float:
    r"""How much of column ``r`` a workload at node ``v`` can still take (``available``; may be negative).

    Top-down from the topmost ancestor :math:`t`: :math:`A_t = SQ_t - U_t`; then
    :math:`A_v = \max(0, LQ_v - U_v) + \min(SQ_v - LQ_v - \max(0, U_v - LQ_v) + B_v,\ A_{parent})`, the
    minimum only with a borrowing limit :math:`B_v` (``inf`` when unset).

    Parameters
    ----------
    v : int
        A ClusterQueue (or any node).
    r : int
        Column.
    parent : ndarray of int64
    subtree_quota, lending, borrowing, usage : ndarray of float, shape (n_nodes, n_columns)

    Returns
    -------
    float

    Examples
    --------
    Cohort (node 2) of 10 using 8; its ClusterQueue (node 1) of nominal 4, using 6, may borrow at most 3:
    min(4 - 0 - 6 + 3, 10 - 8) = 1:

    >>> parent = np.array([-1, 2, 0])
    >>> sq = np.array([[0.], [4.], [10.]]); lend = np.full((3, 1), math.inf); bl = np.array([[0.], [3.], [math.inf]])
    >>> float(available(1, 0, parent, sq, lend, bl, np.array([[0.], [6.], [8.]])))
    1.0
    """
    d = _depth(v, parent)                         # the path from the top down, walked without allocating
    top = _ancestor(v, parent, d)
    a = subtree_quota[top, r] - usage[top, r]
    for k in range(d - 1, -1, -1):
        x = _ancestor(v, parent, k)
        lq = local_quota(subtree_quota[x, r], lending[x, r])
        pa = a
        b = borrowing[x, r]
        if b < math.inf:
            used = usage[x, r] - lq
            if used < 0.0:
                used = 0.0
            w = subtree_quota[x, r] - lq - used + b
            if w < pa:
                pa = w
        la = lq - usage[x, r]
        if la < 0.0:
            la = 0.0
        a = la + pa
    return a


@callee
def potential_available(v: int, r: int, parent, subtree_quota, lending, borrowing) -> float:
    r"""The most of column ``r`` node ``v`` could have with no usage anywhere (``potentialAvailable``).

    :math:`PA_t = SQ_t` at the topmost ancestor; :math:`PA_v = \min(LQ_v + PA_{parent},\ SQ_v + B_v)`.

    Parameters
    ----------
    v, r : int
        Node and column.
    parent : ndarray of int64
    subtree_quota, lending, borrowing : ndarray of float, shape (n_nodes, n_columns)

    Returns
    -------
    float

    Examples
    --------
    >>> parent = np.array([-1, 2, 0])
    >>> sq = np.array([[0.], [4.], [10.]]); lend = np.full((3, 1), math.inf); bl = np.array([[0.], [3.], [math.inf]])
    >>> float(potential_available(1, 0, parent, sq, lend, bl)), float(potential_available(2, 0, parent, sq, lend, bl))
    (7.0, 10.0)
    """
    path = _path_from_top(v, parent)
    a = subtree_quota[path[0], r]
    for k in range(1, len(path)):
        x = path[k]
        a = local_quota(subtree_quota[x, r], lending[x, r]) + a
        cap = subtree_quota[x, r] + borrowing[x, r]
        if cap < a:
            a = cap
    return a


def lendable_into(parent, subtree_quota, lending, borrowing, group_of, out) -> None:
    r"""Per node and resource, the lendable capacity :math:`\Lambda_r = \sum_{f \in r} PA_{parent, f}` (``calculateLendable``).

    Parameters
    ----------
    parent : ndarray of int64
    subtree_quota, lending, borrowing : ndarray of float, shape (n_nodes, n_columns)
    group_of : ndarray of int64, shape (n_columns,)
        Resource of each column (flavours of one resource share a number).
    out : ndarray of float, shape (n_nodes, n_resources)
        Receives :math:`\Lambda` (0 for nodes without a parent).

    Examples
    --------
    >>> parent = np.array([-1, 2, 0]); out = np.empty((3, 1))
    >>> lendable_into(parent, np.array([[0.], [4.], [10.]]), np.full((3, 1), math.inf), np.full((3, 1), math.inf),
    ...               np.array([0]), out)
    >>> out[:, 0].tolist()
    [0.0, 10.0, 0.0]
    """
    n, g = out.shape
    for v in range(n):
        for k in range(g):
            out[v, k] = 0.0
        p = parent[v]
        if v == 0 or p <= 0:
            continue
        for f in range(len(group_of)):
            out[v, group_of[f]] += potential_available(p, f, parent, subtree_quota, lending, borrowing)


@callee
def dominant_resource_share(v: int, parent, subtree_quota, usage, lendable, group_of, work):
    r"""Kueue's :math:`DRS_v` (per mille, unweighted) and whether ``v`` borrows (``dominantResourceShare``).

    Parameters
    ----------
    v : int
    parent : ndarray of int64
    subtree_quota, usage : ndarray of float, shape (n_nodes, n_columns)
    lendable : ndarray of float, shape (n_nodes, n_resources)
        :func:`lendable_into`.
    group_of : ndarray of int64, shape (n_columns,)
    work : ndarray of float, shape (n_resources,)
        Work space.

    Returns
    -------
    ratio : float
        :math:`\max_r 1000\,T_r/\Lambda_r` over resources with :math:`\Lambda_r > 0`; 0 for a node
        without a parent or not borrowing.
    borrowing : bool
        Some column's usage exceeds the subtree quota (False without a parent).

    Examples
    --------
    >>> parent = np.array([-1, 2, 0]); sq = np.array([[0.], [4.], [10.]]); lam = np.array([[0.], [10.], [0.]])
    >>> r, b = dominant_resource_share(1, parent, sq, np.array([[0.], [6.], [6.]]), lam, np.array([0]), np.empty(1))
    >>> float(r), b
    (200.0, True)
    """
    if parent[v] <= 0:
        return 0.0, False
    for k in range(len(work)):
        work[k] = 0.0
    borrowing = False
    for f in range(len(group_of)):
        x = usage[v, f] - subtree_quota[v, f]
        if x > 0.0:
            work[group_of[f]] += x
            borrowing = True
    ratio = 0.0
    if borrowing:
        for k in range(len(work)):
            lam = lendable[v, k]
            if lam > 0.0:
                x = work[k] * 1000.0 / lam
                if x > ratio:
                    ratio = x
    return ratio, borrowing


@callee
def is_borrowing_on(v: int, request, parent, subtree_quota, usage) -> bool:
    """``DRS.IsBorrowingOn``: node ``v`` (with a parent) uses more than its subtree quota in a requested column.

    Parameters
    ----------
    v : int
    request : ndarray of float, shape (n_columns,)
    parent : ndarray of int64
    subtree_quota, usage : ndarray of float, shape (n_nodes, n_columns)

    Returns
    -------
    bool

    Examples
    --------
    >>> is_borrowing_on(1, np.array([1.0, 0.0]), np.array([-1, 2, 0]), np.zeros((3, 2)), np.array([[0, 0], [0, 3.], [0, 0]]))
    False
    """
    if parent[v] <= 0:
        return False
    for f in range(len(request)):
        if request[f] > 0.0 and usage[v, f] - subtree_quota[v, f] > 0.0:
            return True
    return False


@callee
def drs_key(ratio: float, weight: float):
    r"""A sort key equivalent to ``CompareDRS``: ``(tier, value)``, lower is preferred for admission.

    ``tier`` is 1 for a borrowing node of weight 0 (it compares above all others; among them by the
    unweighted ratio, ``value = ratio``), else 0 with ``value`` the weighted share :math:`DRS/w` (0 when
    not borrowing).

    Parameters
    ----------
    ratio : float
        Unweighted :math:`DRS` (:func:`dominant_resource_share`).
    weight : float
        The node's fair-sharing weight.

    Returns
    -------
    tuple of (int, float)

    Examples
    --------
    >>> drs_key(300.0, 2.0), drs_key(0.0, 0.0), drs_key(5.0, 0.0)
    ((0, 150.0), (0, 0.0), (1, 5.0))
    """
    if weight == 0.0 and ratio != 0.0:
        return 1, ratio
    if ratio == 0.0:
        return 0, 0.0
    return 0, ratio / weight


@callee
def weighted_share(ratio: float, weight: float) -> float:
    r"""``PreciseWeightedShare``: :math:`DRS/w`, 0 when not borrowing, :math:`+\infty` for weight 0.

    Parameters
    ----------
    ratio, weight : float
        As :func:`drs_key`.

    Returns
    -------
    float

    Examples
    --------
    >>> weighted_share(300.0, 2.0), weighted_share(0.0, 0.0), weighted_share(5.0, 0.0)
    (150.0, 0.0, inf)
    """
    if ratio == 0.0:
        return 0.0
    if weight == 0.0:
        return math.inf
    return ratio / weight


@callee
def _key_with(x: int, q: int, request, parent, subtree_quota, lending, usage, lendable, group_of, weight, work, save):
    """(borrowing on the request, tier, value) of node ``x`` with ``request`` added at ClusterQueue ``q``."""
    m = usage.shape[1]
    d = _depth(q, parent)
    node = q
    for k in range(d + 1):
        for r in range(m):
            save[k, r] = usage[node, r]
        node = parent[node]
    add_usage_into(q, request, parent, subtree_quota, lending, usage)
    ratio, _ = dominant_resource_share(x, parent, subtree_quota, usage, lendable, group_of, work)
    bor = is_borrowing_on(x, request, parent, subtree_quota, usage)
    node = q
    for k in range(d + 1):
        for r in range(m):
            usage[node, r] = save[k, r]
        node = parent[node]
    tier, value = drs_key(ratio, weight[x])
    return bor, tier, value


def tournament_winner(root: int, kind, child_ptr, children, parent, has_candidate, request, priority, timestamp,
                      subtree_quota, lending, usage, lendable, group_of, weight, prioritize_non_borrowing: bool,
                      priority_sorting: bool) -> int:
    r"""The ClusterQueue whose nominee the tournament at ``root`` picks (``runTournament``), or -1.

    Bottom-up over ``root``'s subtree, each cohort compares its children's nominees (child cohorts'
    winners first, then its ClusterQueues' heads, in child order; ``entryComparer.less``): with the
    nominee added to the usage, (1) the child node not borrowing on the nominee's columns first
    (``prioritize_non_borrowing``), (2) the lower :func:`drs_key` of the child node, (3) the higher
    priority (``priority_sorting``), (4) the earlier timestamp; a full tie keeps the earlier child. With
    ``root = 0`` (the tree's root, which Kueue does not have) the root-level nodes, whose share is 0,
    are ordered by (3)-(4): Kueue gives no order between separate cohorts.

    Parameters
    ----------
    root : int
        A cohort, or 0.
    kind : ndarray of int64, shape (n_nodes,)
        :attr:`KueueQueues.kind`.
    child_ptr, children : ndarray of int64
        Children in CSR form (:attr:`fairalloc.accounts.AccountTree.fs_child_ptr` / ``fs_children``).
    parent : ndarray of int64
    has_candidate : ndarray of bool, shape (n_nodes,)
        ClusterQueues with a head workload.
    request : ndarray of float, shape (n_nodes, n_columns)
        The head workload's requests, by ClusterQueue row.
    priority, timestamp : ndarray of float, shape (n_nodes,)
        The head workload's priority and queue timestamp, by ClusterQueue.
    subtree_quota, lending, usage, lendable, group_of, weight : ndarray
        As in :func:`dominant_resource_share`; ``usage`` is modified during the call and restored.
    prioritize_non_borrowing, priority_sorting : bool
        Kueue's feature gates (both on by default).

    Returns
    -------
    int
        The winning ClusterQueue node, -1 when no ClusterQueue under ``root`` has a candidate.

    Examples
    --------
    Two ClusterQueues (nodes 2, 3) under a cohort (node 1) of 10, each with a head of 1: the one using
    less wins (:meth:`KueueQueues.tournament` does this from names):

    >>> kind = np.array([ROOT, COHORT, CLUSTER_QUEUE, CLUSTER_QUEUE])
    >>> ptr, ch, par = np.array([0, 1, 3, 3, 3]), np.array([1, 2, 3]), np.array([-1, 0, 1, 1])
    >>> sq = np.array([[0.0], [10.0], [0.0], [0.0]]); inf = np.full((4, 1), np.inf)
    >>> lam = np.array([[0.0], [0.0], [10.0], [10.0]]); use = np.array([[0.0], [6.0], [4.0], [2.0]])
    >>> int(tournament_winner(0, kind, ptr, ch, par, np.array([0, 0, 1, 1], bool), np.ones((4, 1)), np.zeros(4),
    ...                       np.zeros(4), sq, inf, use, lam, np.array([0]), np.ones(4), True, True))
    3
    """
    n, m = usage.shape
    return tournament_winner_into(root, kind, child_ptr, children, parent, has_candidate, request, priority, timestamp,
                                  subtree_quota, lending, usage, lendable, group_of, weight, prioritize_non_borrowing,
                                  priority_sorting, np.empty(lendable.shape[1]), np.empty((n, m)),
                                  np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                                  np.empty(n, dtype=np.int64))


@callee
def tournament_winner_into(root: int, kind, child_ptr, children, parent, has_candidate, request, priority, timestamp,
                           subtree_quota, lending, usage, lendable, group_of, weight, prioritize_non_borrowing: bool,
                           priority_sorting: bool, work, save, order, stack, winner) -> int:
    """:func:`tournament_winner` on work arrays given (it allocates nothing): ``work`` (n_resources,), ``save``
    (n_nodes, n_columns), ``order``, ``stack``, ``winner`` (n_nodes,) int64."""
    n = usage.shape[0]
    top = 0
    cnt = 0
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        order[cnt] = v
        cnt += 1
        if kind[v] == ROOT or kind[v] == COHORT:
            for j in range(child_ptr[v], child_ptr[v + 1]):
                stack[top] = children[j]
                top += 1
    for i in range(n):
        winner[i] = -1
    for i in range(cnt - 1, -1, -1):
        c = order[i]
        if kind[c] == CLUSTER_QUEUE:
            if has_candidate[c]:
                winner[c] = c
            continue
        if kind[c] != COHORT and kind[c] != ROOT:
            continue
        best = -1
        b_bor = False
        b_tier = 0
        b_val = 0.0
        for pass_ in range(2):                       # child cohorts first, then ClusterQueues
            for j in range(child_ptr[c], child_ptr[c + 1]):
                x = children[j]
                if pass_ == 0 and kind[x] != COHORT:
                    continue
                if pass_ == 1 and kind[x] != CLUSTER_QUEUE:
                    continue
                q = winner[x]
                if q < 0:
                    continue
                bor, tier, val = _key_with(x, q, request[q], parent, subtree_quota, lending, usage, lendable,
                                           group_of, weight, work, save)
                if best < 0:
                    better = True
                else:
                    better = False
                    decided = False
                    if prioritize_non_borrowing and bor != b_bor:
                        better = not bor
                        decided = True
                    if not decided and (tier != b_tier or val != b_val):
                        better = tier < b_tier or (tier == b_tier and val < b_val)
                        decided = True
                    if not decided and priority_sorting and priority[q] != priority[best]:
                        better = priority[q] > priority[best]
                        decided = True
                    if not decided:
                        better = timestamp[q] < timestamp[best]
                if better:
                    best = q
                    b_bor = bor
                    b_tier = tier
                    b_val = val
        winner[c] = best
    return winner[root]


@callee
def less_than_or_equal_to_final_share(preemptor_new_ratio: float, preemptor_weight: float, target_new_ratio: float,
                                      target_weight: float) -> bool:
    r"""Rule S2-a: :math:`DRS(a_x + w) \le DRS(a_y - z)` in ``CompareDRS`` order (``LessThanOrEqualToFinalShare``).

    Parameters
    ----------
    preemptor_new_ratio, preemptor_weight : float
        Unweighted DRS and weight of the preemptor's almost-LCA with the incoming workload.
    target_new_ratio, target_weight : float
        Those of the target's almost-LCA without the candidate.

    Returns
    -------
    bool

    Examples
    --------
    The concept page's proof: preemption needs :math:`DRS_{A,admitted} \le DRS_{B,pending}`:

    >>> less_than_or_equal_to_final_share(200.0, 1.0, 200.0, 1.0), less_than_or_equal_to_final_share(201.0, 1.0, 200.0, 1.0)
    (True, False)
    """
    return drs_key(preemptor_new_ratio, preemptor_weight) <= drs_key(target_new_ratio, target_weight)


@callee
def less_than_initial_share(preemptor_new_ratio: float, preemptor_weight: float, target_old_ratio: float,
                            target_weight: float) -> bool:
    r"""Rule S2-b: :math:`DRS(a_x + w) < DRS(a_y)` in ``CompareDRS`` order (``LessThanInitialShare``).

    Parameters
    ----------
    preemptor_new_ratio, preemptor_weight : float
        As :func:`less_than_or_equal_to_final_share`.
    target_old_ratio, target_weight : float
        The target's almost-LCA before any removal.

    Returns
    -------
    bool

    Examples
    --------
    >>> less_than_initial_share(200.0, 1.0, 200.0, 1.0), less_than_initial_share(199.0, 1.0, 200.0, 1.0)
    (False, True)
    """
    return drs_key(preemptor_new_ratio, preemptor_weight) < drs_key(target_old_ratio, target_weight)


# ---- fair-sharing preemption over arrays (``fairPreemptions``; :meth:`KueueQueues.preemption_targets`) --------
#: ``preemption_targets``' reasons, by the codes :func:`fair_preemption_into` writes.
REASONS = ("InClusterQueue", "InCohortReclamation", "InCohortFairSharing")
#: :data:`PREEMPTION_STRATEGIES` and :data:`PREEMPTION_POLICIES` as the codes the array functions read.
S2A, S2B = 0, 1
NEVER, LOWER_PRIORITY, LOWER_OR_NEWER, ANY = 0, 1, 2, 3


@callee
def _sign(x, y) -> int:
    if x > y:
        return 1
    if x < y:
        return -1
    return 0


@callee
def candidates_cmp(a: int, b: int, afs: bool, cq: int, wev, wcq, wlq, lq_usage, wpr, wadm) -> int:
    """``CandidatesOrdering`` of admitted workloads ``a``, ``b`` for a preemptor of ClusterQueue ``cq``: negative
    when ``a`` goes first. Evicted first, other ClusterQueues first, (``afs``: same ClusterQueue, other
    LocalQueues ``wlq``) higher LocalQueue usage ``lq_usage`` first, lower priority ``wpr``, more recently
    admitted ``wadm``, then the workload order (Kueue: the UID).

    Examples
    --------
    Two workloads of another ClusterQueue (node 2) admitted at 0 and 5: the later one goes first:

    >>> z = np.zeros(2)
    >>> candidates_cmp(1, 0, False, 1, np.zeros(2, bool), np.array([2, 2]), np.zeros(2, np.int64), z, z,
    ...                np.array([0.0, 5.0]))
    -1
    """
    r = _sign(0 if wev[a] else 1, 0 if wev[b] else 1)
    if r != 0:
        return r
    r = _sign(1 if wcq[a] == cq else 0, 1 if wcq[b] == cq else 0)
    if r != 0:
        return r
    if afs and wcq[a] == wcq[b] and wlq[a] != wlq[b]:
        ua = lq_usage[wlq[a]]
        ub = lq_usage[wlq[b]]
        if ua != ub:
            return _sign(ub, ua)
    r = _sign(wpr[a], wpr[b])
    if r != 0:
        return r
    r = _sign(wadm[b], wadm[a])
    if r != 0:
        return r
    return _sign(a, b)


@callee
def almost_lcas(x: int, y: int, parent):
    """Children of the least common ancestor of ClusterQueues ``x`` and ``y`` on their paths (``getAlmostLCAs``;
    the root, which Kueue does not have, is no ancestor: nodes of two top-level cohorts give their tops).

    Examples
    --------
    Root 0, cohort 1 holding ClusterQueues 2 and 3:

    >>> almost_lcas(2, 3, np.array([-1, 0, 1, 1]))
    (2, 3)
    """
    lca = -1
    a_y = y
    v = parent[y]
    while v > 0:
        w = parent[x]
        while w > 0 and w != v:
            w = parent[w]
        if w == v:
            lca = v
            break
        a_y = v
        v = parent[v]
    a_x = x
    v = parent[x]
    while v > 0 and v != lca:
        a_x = v
        v = parent[v]
    return a_x, a_y


@callee
def _top_of(v: int, parent) -> int:
    while parent[v] > 0:
        v = parent[v]
    return v


@callee
def _satisfies(policy: int, priority: float, timestamp: float, wpr: float, wts: float) -> bool:
    lower = priority > wpr
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER:
        return lower or (priority == wpr and timestamp < wts)
    return policy == ANY


@callee
def mark_candidates_into(cq: int, need, k: int, wcq, wreq, wpr, wts, priority: float, timestamp: float,
                         within_cluster_queue: int, reclaim_within_cohort: int, parent, subtree_quota, usage,
                         out) -> int:
    """``findCandidates``: ``out[i]`` whether admitted workload ``i < k`` may be preempted for a workload of
    ClusterQueue ``cq`` (priority, queue timestamp) needing the columns ``need``: it uses a needed column,
    and either it is of ``cq`` and satisfies ``within_cluster_queue``, or ``cq`` is in a cohort, the workload's
    ClusterQueue is another in the same tree below the root, borrowing on a needed column, and it satisfies
    ``reclaim_within_cohort`` (policies as :data:`NEVER` ... :data:`ANY`). Returns how many."""
    top = _top_of(cq, parent)
    m = usage.shape[1]
    n = 0
    for i in range(k):
        q = wcq[i]
        uses = False
        for r in range(m):
            if need[r] and wreq[i, r] > 0.0:
                uses = True
        ok = False
        if uses:
            if q == cq:
                ok = within_cluster_queue != NEVER and _satisfies(within_cluster_queue, priority, timestamp, wpr[i],
                                                                  wts[i])
            elif parent[cq] > 0 and reclaim_within_cohort != NEVER and _top_of(q, parent) == top and parent[q] > 0:
                bor = False
                for r in range(m):
                    if need[r] and usage[q, r] > subtree_quota[q, r]:
                        bor = True
                ok = bor and _satisfies(reclaim_within_cohort, priority, timestamp, wpr[i], wts[i])
        out[i] = ok
        if ok:
            n += 1
    return n


@callee
def _fits(cq: int, request, parent, subtree_quota, lending, borrowing, usage) -> bool:
    """``workloadFits``: every requested column is at most :func:`available`."""
    for r in range(request.shape[0]):
        if request[r] > 0.0 and request[r] > available(cq, r, parent, subtree_quota, lending, borrowing, usage):
            return False
    return True


@callee
def _group_into(n: int, items, wcq, cnt, seg_cur, seg_end, grouped) -> None:
    """The ``n`` first ``items`` grouped by ClusterQueue, each group in the items' order: ClusterQueue q's are
    ``grouped[seg_cur[q]:seg_end[q]]`` (empty for the others)."""
    for q in range(cnt.shape[0]):
        cnt[q] = 0
        seg_cur[q] = 0
        seg_end[q] = 0
    for j in range(n):
        cnt[wcq[items[j]]] += 1
    pos = 0
    for j in range(n):
        q = wcq[items[j]]
        if cnt[q] > 0:
            seg_cur[q] = pos
            seg_end[q] = pos
            pos += cnt[q]
            cnt[q] = 0
    for j in range(n):
        q = wcq[items[j]]
        grouped[seg_end[q]] = items[j]
        seg_end[q] += 1


@callee
def _next_target(cohort: int, cq: int, kind, child_ptr, children, parent, subtree_quota, usage, lendable, group_of,
                 weight, work, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc, wev, wcq, wpr, wadm) -> int:
    """``nextTarget`` from ``cohort`` down: the child with the highest share (``NegativeDRS`` ties: the
    candidate order of their first candidates), a cohort before a ClusterQueue at equal share; -1 when it only
    pruned."""
    c = cohort
    while True:
        best_q = -1
        bq_t = -1
        bq_v = -1.0
        best_c = -1
        bc_t = -1
        bc_v = -1.0
        for j in range(child_ptr[c], child_ptr[c + 1]):
            q = children[j]
            if kind[q] != CLUSTER_QUEUE or pruned_cq[q]:
                continue
            ratio, bor = dominant_resource_share(q, parent, subtree_quota, usage, lendable, group_of, work)
            t, v = drs_key(ratio, weight[q])
            if (not bor and q != cq) or seg_cur[q] >= seg_end[q]:
                pruned_cq[q] = True
            elif best_q >= 0 and t == bq_t and v == bq_v:
                if candidates_cmp(grouped[seg_cur[q]], grouped[seg_cur[best_q]], False, cq, wev, wcq, wcq, wadm, wpr,
                                  wadm) < 0:
                    best_q = q
            elif t > bq_t or (t == bq_t and v > bq_v):
                best_q = q
                bq_t = t
                bq_v = v
        for j in range(child_ptr[c], child_ptr[c + 1]):
            x = children[j]
            if kind[x] != COHORT or pruned_co[x]:
                continue
            ratio, bor = dominant_resource_share(x, parent, subtree_quota, usage, lendable, group_of, work)
            t, v = drs_key(ratio, weight[x])
            if not bor and not anc[x]:
                pruned_co[x] = True
            elif t > bc_t or (t == bc_t and v >= bc_v):
                best_c = x
                bc_t = t
                bc_v = v
        if best_c < 0 and best_q < 0:
            pruned_co[c] = True
            return -1
        if best_c >= 0 and (bc_t > bq_t or (bc_t == bq_t and bc_v >= bq_v)):
            c = best_c
            continue
        return best_q


@callee
def _next_in_order(cq: int, root: int, kind, child_ptr, children, parent, subtree_quota, usage, lendable, group_of,
                   weight, work, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc, wev, wcq, wpr, wadm) -> int:
    """``TargetClusterQueueOrdering``'s next target ClusterQueue (-1: none left)."""
    if parent[cq] <= 0:
        if not pruned_cq[cq] and seg_cur[cq] < seg_end[cq]:
            return cq
        return -1
    while not pruned_co[root]:
        t = _next_target(root, cq, kind, child_ptr, children, parent, subtree_quota, usage, lendable, group_of, weight,
                         work, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc, wev, wcq, wpr, wadm)
        if t >= 0:
            return t
    return -1


@callee
def _take_target(i: int, reason: int, n_t: int, cq: int, req, wcq, wreq, parent, subtree_quota, lending, borrowing,
                 usage, tgt, why) -> bool:
    """Candidate ``i`` becomes target ``n_t`` (its usage removed); whether the preemptor now fits once its own
    simulated usage is taken out (``workloadFitsForFairSharing``)."""
    remove_usage_into(wcq[i], wreq[i], parent, subtree_quota, lending, usage)
    tgt[n_t] = i
    why[n_t] = reason
    remove_usage_into(cq, req, parent, subtree_quota, lending, usage)
    ok = _fits(cq, req, parent, subtree_quota, lending, borrowing, usage)
    add_usage_into(cq, req, parent, subtree_quota, lending, usage)
    return ok


@callee
def fair_preemption_into(cq: int, req, need, nc: int, cands, wcq, wreq, wev, wpr, wadm, kind, child_ptr, children,
                         parent, subtree_quota, lending, borrowing, lendable, group_of, weight, usage, strategies,
                         preempt_within_nominal: bool, work, cnt, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc,
                         retry, tgt, why) -> int:
    r"""``fairPreemptions`` after ``findCandidates``: the targets among the ``nc`` candidates ``cands`` (workload
    indices in ``CandidatesOrdering``, :func:`candidates_cmp`) whose eviction lets ``req`` fit in ClusterQueue
    ``cq``, into ``tgt`` (workload index) and ``why`` (a code of :data:`REASONS`); returns their number, 0 when no
    set of them makes it fit. :meth:`KueueQueues.preemption_targets` is this with its arguments checked.

    ``strategies``: int64 codes :data:`S2A`, :data:`S2B` (one or both, in order). ``usage`` (n_nodes,
    n_columns) is a working copy: changed. Work arrays: ``work`` (n_resources,); ``cnt``, ``seg_cur``,
    ``seg_end`` int64 and ``pruned_cq``, ``pruned_co``, ``anc`` bool (n_nodes,); ``grouped``, ``retry``, ``tgt``,
    ``why`` int64 (at least ``nc``). The rules (KEP 1714; Kueue's ``preemption/fair``):

    * *Targets* (``TargetClusterQueueOrdering``): from the preemptor's topmost cohort down, at each cohort the
      child with the highest weighted :math:`DRS` among those borrowing (a cohort before a ClusterQueue at
      equal share), a ClusterQueue tried while it has candidates;
    * within its nominal quota on the needed columns (``FairSharingPreemptWithinNominal``), the preemptor
      takes each target's first candidate; otherwise, with :math:`a_x, a_y` the almost-LCAs, strategy S2-a
      admits candidate :math:`z` when :math:`DRS(a_x + w) \le DRS(a_y - z)`, S2-b when
      :math:`DRS(a_x + w) < DRS(a_y)`; the candidates the first strategy refuses are retried with the second,
      once per target ClusterQueue;
    * ``fillBackWorkloads``: from the last-but-one target backwards, a target not needed is given back.
    """
    m = usage.shape[1]
    _group_into(nc, cands, wcq, cnt, seg_cur, seg_end, grouped)
    for q in range(pruned_cq.shape[0]):
        pruned_cq[q] = False
        pruned_co[q] = False
        anc[q] = False
    v = parent[cq]
    while v > 0:
        anc[v] = True
        v = parent[v]
    root = _top_of(cq, parent)
    add_usage_into(cq, req, parent, subtree_quota, lending, usage)     # the shares include the incoming workload
    within = preempt_within_nominal
    for r in range(m):
        if need[r] and usage[cq, r] > subtree_quota[cq, r]:
            within = False
    n_t = 0
    n_retry = 0
    fits = False
    strategy = strategies[0]
    while not fits:                                                    # runFirstFsStrategy
        q = _next_in_order(cq, root, kind, child_ptr, children, parent, subtree_quota, usage, lendable, group_of,
                           weight, work, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc, wev, wcq, wpr, wadm)
        if q < 0:
            break
        if q == cq or within:                                          # priority-based, or reclaiming nominal quota
            i = grouped[seg_cur[q]]
            seg_cur[q] += 1
            fits = _take_target(i, 0 if q == cq else 1, n_t, cq, req, wcq, wreq, parent, subtree_quota, lending,
                                borrowing, usage, tgt, why)
            n_t += 1
            continue
        a_x, a_y = almost_lcas(cq, q, parent)
        p_new = dominant_resource_share(a_x, parent, subtree_quota, usage, lendable, group_of, work)[0]
        t_old = dominant_resource_share(a_y, parent, subtree_quota, usage, lendable, group_of, work)[0]
        wx = weight[a_x]
        wy = weight[a_y]
        if math.isinf(weighted_share(p_new, wx)) and not math.isinf(weighted_share(t_old, wy)):
            while seg_cur[q] < seg_end[q]:                             # fsStrategyUnsatisfiable
                retry[n_retry] = grouped[seg_cur[q]]
                n_retry += 1
                seg_cur[q] += 1
            continue
        while seg_cur[q] < seg_end[q]:
            i = grouped[seg_cur[q]]
            seg_cur[q] += 1
            if strategy == S2A:
                remove_usage_into(wcq[i], wreq[i], parent, subtree_quota, lending, usage)
                t_new = dominant_resource_share(a_y, parent, subtree_quota, usage, lendable, group_of, work)[0]
                add_usage_into(wcq[i], wreq[i], parent, subtree_quota, lending, usage)
                ok = less_than_or_equal_to_final_share(p_new, wx, t_new, wy)
            else:
                ok = less_than_initial_share(p_new, wx, t_old, wy)
            if ok:
                fits = _take_target(i, 2, n_t, cq, req, wcq, wreq, parent, subtree_quota, lending, borrowing, usage,
                                    tgt, why)
                n_t += 1
                break                                                  # shares changed: pick a target again
            retry[n_retry] = i
            n_retry += 1
    if not fits and strategies.shape[0] > 1:                           # runSecondFsStrategy
        _group_into(n_retry, retry, wcq, cnt, seg_cur, seg_end, grouped)
        for q in range(pruned_cq.shape[0]):
            pruned_cq[q] = False
            pruned_co[q] = False
        while not fits:
            q = _next_in_order(cq, root, kind, child_ptr, children, parent, subtree_quota, usage, lendable, group_of,
                               weight, work, seg_cur, seg_end, grouped, pruned_cq, pruned_co, anc, wev, wcq, wpr, wadm)
            if q < 0:
                break
            a_x, a_y = almost_lcas(cq, q, parent)
            p_new = dominant_resource_share(a_x, parent, subtree_quota, usage, lendable, group_of, work)[0]
            t_old = dominant_resource_share(a_y, parent, subtree_quota, usage, lendable, group_of, work)[0]
            ok = less_than_initial_share(p_new, weight[a_x], t_old, weight[a_y])
            i = grouped[seg_cur[q]]
            seg_cur[q] += 1
            if ok:
                fits = _take_target(i, 2, n_t, cq, req, wcq, wreq, parent, subtree_quota, lending, borrowing, usage,
                                    tgt, why)
                n_t += 1
            pruned_cq[q] = True
    remove_usage_into(cq, req, parent, subtree_quota, lending, usage)
    if not fits:
        return 0
    for j in range(n_t - 2, -1, -1):                                   # fillBackWorkloads
        i = tgt[j]
        add_usage_into(wcq[i], wreq[i], parent, subtree_quota, lending, usage)
        if _fits(cq, req, parent, subtree_quota, lending, borrowing, usage):
            tgt[j] = tgt[n_t - 1]
            why[j] = why[n_t - 1]
            n_t -= 1
        else:
            remove_usage_into(wcq[i], wreq[i], parent, subtree_quota, lending, usage)
    return n_t


_COMPILED: dict = {}


def _compiled(fn):
    """``fn`` compiled from its one source (numba; the plain function under ``NUMBA_DISABLE_JIT=1``)."""
    f = _COMPILED.get(fn.__name__)
    if f is None:
        from .._jit import jit
        from . import _jit as _fsjit

        _fsjit.register()
        f = _COMPILED[fn.__name__] = jit(fn)
    return f


# ---- admission fair sharing -------------------------------------------------------------------------
def afs_alpha(elapsed: float, half_life: float) -> float:
    r"""AFS's :math:`\alpha = 1 - 0.5^{\Delta/h}` (``calculateAlphaRate``), computed as :math:`-\mathrm{expm1}(-\Delta/\tau)`.

    Parameters
    ----------
    elapsed : float
        Seconds :math:`\Delta`.
    half_life : float
        Seconds :math:`h`, ``> 0``.

    Returns
    -------
    float

    Examples
    --------
    Sampling every 5 min with a 10 min half-life: :math:`1 - 2^{-1/2}`:

    >>> round(afs_alpha(300.0, 600.0), 6)
    0.292893
    """
    return -math.expm1(-elapsed / commitments.tau_from_half_life(half_life))


@callee
def afs_usage(consumed, penalty, lq_weight: float, resource_weights) -> float:
    r"""A LocalQueue's AFS usage :math:`\sum_r \omega_r (c_r + p_r) / w_{LQ}`, :math:`+\infty` for :math:`w_{LQ} \le 0` (``CalculateUsage``).

    Parameters
    ----------
    consumed, penalty : ndarray of float, shape (n_resources,)
        The LocalQueue's decayed consumed resources and pending entry penalties.
    lq_weight : float
        Its ``fairSharing.weight``.
    resource_weights : ndarray of float, shape (n_resources,)
        :math:`\omega_r`.

    Returns
    -------
    float

    Examples
    --------
    >>> float(afs_usage(np.array([4.0, 8.0]), np.array([0.5, 0.0]), 2.0, np.array([2.0, 1.0])))
    8.5
    >>> afs_usage(np.array([1.0]), np.array([0.0]), 0.0, np.array([1.0]))
    inf
    """
    u = 0.0
    for r in range(len(consumed)):
        u += resource_weights[r] * (consumed[r] + penalty[r])
    if lq_weight <= 0.0:
        return math.inf
    return u / lq_weight


# ---- Python API ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KueueFairSharing:
    """Kueue's fair-sharing configuration (``fairSharing`` and the ClusterQueues' ``preemption``), checked.

    Parameters
    ----------
    preemption_strategies : sequence of str, optional
        One of :data:`VALID_STRATEGY_LISTS`; default both (Kueue's default when the list is empty).
    within_cluster_queue, reclaim_within_cohort : str, optional
        The ClusterQueues' ``preemption.withinClusterQueue`` / ``reclaimWithinCohort``, one of
        :data:`PREEMPTION_POLICIES`. Default ``"Never"`` for both, Kueue's API defaults: **with them no
        workload is ever preempted**; set ``reclaim_within_cohort="Any"`` for fair-sharing preemption.
    prioritize_non_borrowing, priority_sorting_within_cohort, preempt_within_nominal : bool, optional
        Feature gates ``FairSharingPrioritizeNonBorrowing``, ``PrioritySortingWithinCohort``,
        ``FairSharingPreemptWithinNominal`` (default True, as in Kueue 0.17+).

    Raises
    ------
    InvalidInstanceError
        An unknown strategy, a list Kueue refuses, an unknown preemption policy.

    Examples
    --------
    >>> KueueFairSharing().preemption_strategies
    ('LessThanOrEqualToFinalShare', 'LessThanInitialShare')
    >>> KueueFairSharing(preemption_strategies=["LessThanInitialShare", "LessThanOrEqualToFinalShare"])
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: preemption_strategies=['LessThanInitialShare', 'LessThanOrEqualToFinalShare'] is not a list Kueue accepts; use one of [['LessThanOrEqualToFinalShare'], ['LessThanInitialShare'], ['LessThanOrEqualToFinalShare', 'LessThanInitialShare']]
    """

    preemption_strategies: tuple = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
    within_cluster_queue: str = "Never"
    reclaim_within_cohort: str = "Never"
    prioritize_non_borrowing: bool = True
    priority_sorting_within_cohort: bool = True
    preempt_within_nominal: bool = True

    def __post_init__(self) -> None:
        s = self.preemption_strategies
        if isinstance(s, str):
            s = [s]
        s = tuple(s) if s is not None else ()
        if len(s) == 0:
            s = VALID_STRATEGY_LISTS[2]
        for k, x in enumerate(s):
            if x not in PREEMPTION_STRATEGIES:
                raise InvalidInstanceError(f"preemption_strategies[{k}]={x!r} is not a Kueue preemption strategy; "
                                           f"strategies: {list(PREEMPTION_STRATEGIES)}", argument="preemption_strategies",
                                           index=(k,), value=x)
        if s not in VALID_STRATEGY_LISTS:
            raise InvalidInstanceError(f"preemption_strategies={list(s)!r} is not a list Kueue accepts; use one of "
                                       f"{[list(v) for v in VALID_STRATEGY_LISTS]}", argument="preemption_strategies",
                                       value=list(s))
        object.__setattr__(self, "preemption_strategies", s)
        for name in ("within_cluster_queue", "reclaim_within_cohort"):
            v = getattr(self, name)
            if v not in PREEMPTION_POLICIES:
                raise InvalidInstanceError(f"{name}={v!r} must be one of {list(PREEMPTION_POLICIES)}", argument=name,
                                           value=v)


@dataclass(frozen=True)
class AdmissionFairSharing:
    r"""Kueue's ``admissionFairSharing`` configuration, checked.

    Parameters
    ----------
    usage_half_life : float, optional
        ``usageHalfLifeTime`` in seconds, ``> 0``. Kueue has no default (an unset value is 0, which turns
        AFS off: Kueue #11134); the default here is 168 h, the value of Kueue's AFS concept page example.
    sampling_interval : float, optional
        ``usageSamplingInterval`` in seconds, ``> 0``; default 300 (Kueue's).
    resource_weights : mapping of str to float, optional
        ``resourceWeights``, ``>= 0``; unnamed resources weigh 1.

    Raises
    ------
    InvalidInstanceError
        A half-life or interval of 0 or below (naming Kueue's behaviour), a negative resource weight.

    Examples
    --------
    >>> round(AdmissionFairSharing(usage_half_life=600.0).entry_alpha, 6)    # 1 - 0.5^(300/600)
    0.292893
    >>> AdmissionFairSharing(usage_half_life=0)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: usage_half_life=0 must be finite and > 0; Kueue's usageHalfLifeTime=0 makes alpha = 0 and silently turns Admission Fair Sharing off (kueue#11134)
    """

    usage_half_life: float = 168 * 3600.0
    sampling_interval: float = 300.0
    resource_weights: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        hint = ("; Kueue's usageHalfLifeTime=0 makes alpha = 0 and silently turns Admission Fair Sharing off "
                "(kueue#11134)")
        object.__setattr__(self, "usage_half_life", scalar("usage_half_life", self.usage_half_life, what=hint))
        object.__setattr__(self, "sampling_interval", scalar("sampling_interval", self.sampling_interval))
        rw = dict(self.resource_weights or {})
        for k, v in rw.items():
            rw[k] = scalar(f"resource_weights[{k!r}]", v, strict=False)
        object.__setattr__(self, "resource_weights", rw)

    @property
    def tau(self) -> float:
        """:math:`\\tau = h / \\ln 2` (:func:`fairalloc.commitments.tau_from_half_life`)."""
        return commitments.tau_from_half_life(self.usage_half_life)

    @property
    def entry_alpha(self) -> float:
        """The entry penalty's :math:`\\alpha(\\text{sampling}, h)`."""
        return afs_alpha(self.sampling_interval, self.usage_half_life)

    def weights_for(self, resources: Sequence[str]) -> np.ndarray:
        """:math:`\\omega_r` for the named resource columns (1 when not configured)."""
        return np.array([float(self.resource_weights.get(r, 1.0)) for r in resources])

    def decay(self, consumed: Any, admitted: Any, elapsed: float) -> np.ndarray:
        r"""Consumed resources after ``elapsed`` seconds with ``admitted`` in use: :math:`(1-\alpha)c + \alpha u`.

        ``CalculateDecayedConsumed``, computed by :func:`fairalloc.commitments.decay_row_into` (SDRF Eq. 6).

        Parameters
        ----------
        consumed, admitted : array_like, shape (n_local_queues, n_resources)
        elapsed : float
            Seconds since the last update, ``>= 0``.

        Returns
        -------
        ndarray

        Examples
        --------
        One half-life with 8 CPUs in use from nothing: 4; another with nothing in use: 2:

        >>> afs = AdmissionFairSharing(usage_half_life=3600.0)
        >>> c = afs.decay([[0.0]], [[8.0]], 3600.0); c.round(12).tolist()
        [[4.0]]
        >>> afs.decay(c, [[0.0]], 3600.0).round(12).tolist()
        [[2.0]]
        """
        c = np.array(consumed, dtype=float, ndmin=2)
        u = user_matrix("admitted", admitted, c.shape[0], c.shape[1], rows="local_queues")
        c = user_matrix("consumed", c, u.shape[0], u.shape[1], rows="local_queues")
        dt = scalar("elapsed", elapsed, strict=False)
        out = np.empty_like(c)
        for i in range(c.shape[0]):
            commitments.decay_row_into(c[i], u[i], dt, self.tau, out[i])
        return out

    def entry_penalty(self, request: Any) -> np.ndarray:
        """The entry penalty of a workload: :attr:`entry_alpha` times its requests (``CalculateEntryPenalty``)."""
        req = np.asarray(request, dtype=float)
        return self.entry_alpha * req

    def usage(self, consumed: Any, penalty: Any, lq_weight: Any, resources: Sequence[str]) -> np.ndarray:
        """Each LocalQueue's AFS usage (:func:`afs_usage`), shape (n_local_queues,)."""
        c = np.array(consumed, dtype=float, ndmin=2)
        p = np.array(penalty, dtype=float, ndmin=2)
        w = np.broadcast_to(np.asarray(lq_weight, dtype=float), (c.shape[0],))
        om = self.weights_for(resources)
        return np.array([afs_usage(c[i], p[i], float(w[i]), om) for i in range(c.shape[0])])

    @staticmethod
    def order(lq_usage: Any, priority: Any, timestamp: Any) -> np.ndarray:
        """Workloads of one ClusterQueue in AFS order: LocalQueue usage ascending, priority descending, timestamp.

        Parameters
        ----------
        lq_usage, priority, timestamp : array_like, shape (n_workloads,)
            Each workload's LocalQueue usage, priority and queue timestamp.

        Returns
        -------
        ndarray of int64
            Workload indices, first to admit first (ties keep index order).

        Examples
        --------
        >>> AdmissionFairSharing.order([5.0, 1.0, 1.0], [0, 0, 9], [0.0, 1.0, 2.0]).tolist()
        [2, 1, 0]
        """
        u = np.asarray(lq_usage, dtype=float)
        p = np.asarray(priority, dtype=float)
        t = np.asarray(timestamp, dtype=float)
        return np.lexsort((np.arange(len(u)), t, -p, u)).astype(np.int64)


class KueueQueues:
    r"""Kueue's cohort tree over an :class:`~fairalloc.accounts.AccountTree`, with its static quotas computed.

    Parameters
    ----------
    tree : AccountTree
        Accounts are cohorts and ClusterQueues, users are LocalQueues (module docstring); the fields
        ``nominal_quota``, ``borrowing_limit``, ``lending_limit`` and ``weight`` are read.
    resources : sequence of str, optional
        Resource names of the columns (default the tree's, else ``r0, r1, ...``; needs ``n_columns``).
        Columns with the same name are flavours of one resource and add up in the share (e.g.
        ``["cpu", "cpu", "gpu"]`` for on-demand and spot CPUs).
    n_columns : int, optional
        Number of columns when the tree names no resources (default 1).
    capacity : array_like, shape (n_columns,), optional
        The cluster's capacity. If given, root-level subtree quotas summing to more than it are refused
        (Kueue admits against quota, not nodes, so such quotas admit workloads that cannot run).
    allow_overcommit : bool, optional
        Accept quotas larger than ``capacity`` (default False).

    Raises
    ------
    InvalidInstanceError
        ``FairShare=parent`` shares, an account with both LocalQueues and child accounts, a LocalQueue
        directly under root, a weight in (0, 1e-9), quotas larger than ``capacity``.

    Attributes
    ----------
    kind : ndarray of int64
        :data:`ROOT`, :data:`COHORT`, :data:`CLUSTER_QUEUE` or :data:`LOCAL_QUEUE` per node.
    nominal, lending, borrowing : ndarray (n_nodes, n_columns)
        0 / ``inf`` / ``inf`` where unset.
    subtree_quota, lendable : ndarray
        :func:`subtree_quota_into`, :func:`lendable_into`.
    weight : ndarray (n_nodes,)
        ``fairSharing.weight`` (default 1).
    group_of : ndarray of int64 (n_columns,)

    Examples
    --------
    A cohort with 8 CPUs of its own and two ClusterQueues without quota: every CPU is borrowed, over a
    lendable 8:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "co", "nominal_quota": {"cpu": 8}}, {"account": "x", "parent": "co"},
    ...                  {"account": "y", "parent": "co"}, {"user": "lx", "account": "x"}, {"user": "ly", "account": "y"}],
    ...                 resources=["cpu"])
    >>> k = KueueQueues(t, capacity=[8.0])
    >>> k.weighted_shares(k.usage([[2.0], [6.0]]))[[t.node("x"), t.node("y")]].tolist()
    [250.0, 750.0]
    """

    def __init__(self, tree: AccountTree, *, resources: Sequence[str] | None = None, n_columns: int | None = None,
                 capacity: Any = None, allow_overcommit: bool = False) -> None:
        no_parent_shares(tree, "Kueue")
        if resources is None:
            resources = list(tree.resources) or [f"r{k}" for k in range(n_columns or 1)]
        resources = [str(r) for r in resources]
        m = len(resources)
        self.tree = tree
        self.resources = tuple(resources)
        names = list(dict.fromkeys(resources))
        self.resource_names = tuple(names)
        self.group_of = np.array([names.index(r) for r in resources], dtype=np.int64)
        n = tree.n_nodes
        kind = np.full(n, CLUSTER_QUEUE, dtype=np.int64)
        kind[0] = ROOT
        kind[tree.is_user] = LOCAL_QUEUE
        ptr, ch = tree.fs_child_ptr, tree.fs_children
        for v in range(1, n):
            if tree.is_user[v]:
                if tree.parent[v] == 0:
                    raise InvalidInstanceError(f"{tree.where(v)}: LocalQueue (user) {tree.names[v]!r} is directly under root; put it "
                                               "under a ClusterQueue account", argument="account", index=(v,),
                                               value=tree.names[v])
                continue
            kids = ch[ptr[v]:ptr[v + 1]]
            has_users = bool(np.any(tree.is_user[kids]))
            has_accounts = bool(np.any(~tree.is_user[kids]))
            if has_users and has_accounts:
                raise InvalidInstanceError(f"{tree.where(v)}: account {tree.names[v]!r} has both LocalQueues (users) and child accounts; "
                                           "in Kueue a ClusterQueue has no children and a cohort no LocalQueues",
                                           argument="parent", index=(v,), value=tree.names[v])
            if has_accounts:
                kind[v] = COHORT
        self.kind = kind
        self.parent = np.array(tree.parent, dtype=np.int64)
        self.preorder = np.array(tree.preorder, dtype=np.int64)
        self.child_ptr = np.array(ptr, dtype=np.int64)
        self.children = np.array(ch, dtype=np.int64)
        self.nominal = node_vector(tree, "nominal_quota", 0.0, m)
        self.lending = node_vector(tree, "lending_limit", math.inf, m)
        self.borrowing = node_vector(tree, "borrowing_limit", math.inf, m)
        w = node_scalar(tree, "weight", 1.0)
        bad = np.flatnonzero((w > 0) & (w <= _MIN_WEIGHT))
        if bad.size:
            v = int(bad[0])
            raise InvalidInstanceError(f"{tree.where(v)}: weight={float(w[v])!r} of {tree.names[v]!r}: Kueue requires a fair-sharing weight of 0 or "
                                       "greater than 1e-9", argument="weight", index=(v,), value=float(w[v]))
        self.weight = w
        self.subtree_quota = np.empty((n, m))
        subtree_quota_into(self.parent, self.preorder, self.nominal, self.lending, self.subtree_quota)
        self.lendable = np.empty((n, len(names)))
        lendable_into(self.parent, self.subtree_quota, self.lending, self.borrowing, self.group_of, self.lendable)
        if capacity is not None:
            cap = user_matrix("capacity", np.asarray(capacity, dtype=float).reshape(1, -1), 1, m, rows="rows")[0]
            tops = [v for v in range(1, n) if self.parent[v] == 0]
            total = self.subtree_quota[tops].sum(axis=0) if tops else np.zeros(m)
            over = np.flatnonzero(total > cap * (1 + 1e-12))
            if over.size and not allow_overcommit:
                r = int(over[0])
                big = max(tops, key=lambda v: self.subtree_quota[v, r])
                raise InvalidInstanceError(
                    f"quotas of {resources[r]!r} add up to {float(total[r])!r}, more than the cluster's capacity "
                    f"{float(cap[r])!r} (largest: {tree.names[big]!r} with {float(self.subtree_quota[big, r])!r}); "
                    "Kueue would admit workloads "
                    "that cannot run. Pass allow_overcommit=True to keep them", argument="nominal_quota",
                    index=(big, r), value=float(total[r]))

    # ---- views and helpers ----------------------------------------------------------------------
    @property
    def n_columns(self) -> int:
        return len(self.resources)

    def node(self, name: str) -> int:
        """Index of the account (cohort or ClusterQueue) or LocalQueue called ``name``."""
        return self.tree.node(name)

    def usage(self, lq_usage: Any) -> np.ndarray:
        """Per-node usage (n_nodes, n_columns) from each LocalQueue's admitted usage (n_users, n_columns).

        Examples
        --------
        See the module docstring.
        """
        u = user_matrix("lq_usage", lq_usage, self.tree.n_users, self.n_columns, rows="local_queues")
        own = np.zeros((self.tree.n_nodes, self.n_columns))
        own[self.tree.user_nodes] = u
        out = np.empty_like(own)
        node_usage_into(self.parent, self.preorder, own, self.subtree_quota, self.lending, out)
        return out

    def shares(self, usage: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Unweighted :math:`DRS` (per mille) and borrowing flag of every node at ``usage``."""
        n = self.tree.n_nodes
        ratio = np.zeros(n)
        bor = np.zeros(n, dtype=bool)
        work = np.empty(self.lendable.shape[1])
        for v in range(1, n):
            if self.kind[v] == LOCAL_QUEUE:
                continue
            ratio[v], bor[v] = dominant_resource_share(v, self.parent, self.subtree_quota, usage, self.lendable,
                                                       self.group_of, work)
        return ratio, bor

    def weighted_shares(self, usage: np.ndarray) -> np.ndarray:
        """``PreciseWeightedShare`` of every node (0 for LocalQueues and the root; ``inf`` for weight 0 borrowing)."""
        ratio, _ = self.shares(usage)
        return np.array([weighted_share(float(ratio[v]), float(self.weight[v])) for v in range(len(ratio))])

    def status_shares(self, usage: np.ndarray) -> np.ndarray:
        """``status.fairSharing.weightedShare``: the weighted share rounded up, :data:`MAX_WEIGHTED_SHARE` for weight 0."""
        ws = self.weighted_shares(usage)
        return np.array([MAX_WEIGHTED_SHARE if math.isinf(x) else int(math.ceil(x)) for x in ws], dtype=object)

    def available(self, usage: np.ndarray, cq: int) -> np.ndarray:
        """What a workload of ClusterQueue ``cq`` can still take, per column (:func:`available`)."""
        return np.array([available(cq, r, self.parent, self.subtree_quota, self.lending, self.borrowing, usage)
                         for r in range(self.n_columns)])

    def fits(self, usage: np.ndarray, cq: int, request: np.ndarray) -> bool:
        """``workloadFits``: every requested column is at most :meth:`available`."""
        for r in range(self.n_columns):
            if request[r] > 0 and request[r] > available(cq, r, self.parent, self.subtree_quota, self.lending,
                                                         self.borrowing, usage):
                return False
        return True

    def add(self, usage: np.ndarray, node: int, request: Any) -> None:
        """Admit ``request`` at ``node`` (a LocalQueue or ClusterQueue) in place (:func:`add_usage_into`)."""
        add_usage_into(node, np.asarray(request, dtype=float), self.parent, self.subtree_quota, self.lending, usage)

    def remove(self, usage: np.ndarray, node: int, request: Any) -> None:
        """Release ``request`` at ``node`` in place (:func:`remove_usage_into`)."""
        remove_usage_into(node, np.asarray(request, dtype=float), self.parent, self.subtree_quota, self.lending, usage)

    def tournament(self, usage: np.ndarray, heads: Mapping[int, Any], *, priority: Mapping[int, float] | None = None,
                   timestamp: Mapping[int, float] | None = None, root: int = 0,
                   config: KueueFairSharing | None = None) -> int:
        """The ClusterQueue whose head workload Kueue considers next (:func:`tournament_winner`), or -1.

        Parameters
        ----------
        usage : ndarray (n_nodes, n_columns)
            Current usage (:meth:`usage`); not modified.
        heads : mapping of int to array_like
            ClusterQueue node -> its head workload's requests.
        priority, timestamp : mapping of int to float, optional
            The heads' priorities (default 0) and queue timestamps (default 0).
        root : int, optional
            A cohort, or 0 for the whole tree (default).
        config : KueueFairSharing, optional
            Feature gates (default :class:`KueueFairSharing`).

        Examples
        --------
        The DRF paper's example as two ClusterQueues with nominal 0 under a cohort owning <9 CPU, 18 GB>:
        with one task each admitted, A's next task <1, 4> gives A 4/9, B's <3, 1> gives B 6/9 (per mille
        444 and 667): A goes first.

        >>> from fairalloc.accounts import AccountTree
        >>> t = AccountTree([{"account": "all", "nominal_quota": {"cpu": 9, "mem": 18}},
        ...     {"account": "A", "parent": "all"}, {"account": "B", "parent": "all"},
        ...     {"user": "a", "account": "A"}, {"user": "b", "account": "B"}], resources=["cpu", "mem"])
        >>> k = KueueQueues(t)
        >>> u = k.usage([[1.0, 4.0], [3.0, 1.0]])
        >>> k.tree.names[k.tournament(u, {k.node("A"): [1, 4], k.node("B"): [3, 1]})]
        'A'
        """
        cfg = config or KueueFairSharing()
        n, m = self.tree.n_nodes, self.n_columns
        has = np.zeros(n, dtype=bool)
        req = np.zeros((n, m))
        pr = np.zeros(n)
        ts = np.zeros(n)
        for q, r in heads.items():
            q = int(q)
            if self.kind[q] != CLUSTER_QUEUE:
                raise InvalidInstanceError(f"heads[{q}]: {self.tree.names[q]!r} is not a ClusterQueue", argument="heads",
                                           index=(q,), value=self.tree.names[q])
            has[q] = True
            req[q] = user_matrix(f"heads[{q}]", np.asarray(r, dtype=float).reshape(1, -1), 1, m, rows="rows")[0]
            pr[q] = (priority or {}).get(q, 0.0)
            ts[q] = (timestamp or {}).get(q, 0.0)
        work = np.array(usage, dtype=float, copy=True)
        return int(tournament_winner(root, self.kind, self.child_ptr, self.children, self.parent, has, req, pr, ts,
                                     self.subtree_quota, self.lending, work, self.lendable, self.group_of, self.weight,
                                     cfg.prioritize_non_borrowing, cfg.priority_sorting_within_cohort))

    # ---- preemption -----------------------------------------------------------------------------
    def _drs(self, usage: np.ndarray, v: int) -> tuple[float, bool]:
        work = np.empty(self.lendable.shape[1])
        return dominant_resource_share(v, self.parent, self.subtree_quota, usage, self.lendable, self.group_of, work)

    def _path_to_root(self, v: int) -> list[int]:
        out = []
        while v > 0:
            out.append(v)
            v = int(self.parent[v])
        return out

    def _root_of(self, v: int) -> int:
        return self._path_to_root(v)[-1]

    def preemption_targets(self, usage: np.ndarray, cq: int, request: Any, workloads: Mapping[str, Any], *,
                           priority: float = 0.0, timestamp: float = 0.0, need: Any = None,
                           config: KueueFairSharing | None = None, lq_usage: Any = None,
                           preemptor_lq: int | None = None) -> list[tuple[int, str]]:
        r"""Which admitted workloads Kueue's fair sharing evicts so that ``request`` fits in ``cq`` (``fairPreemptions``).

        Parameters
        ----------
        usage : ndarray (n_nodes, n_columns)
            Current usage, including every admitted workload; not modified.
        cq : int
            The preemptor's ClusterQueue.
        request : array_like (n_columns,)
            The preemptor's requests.
        workloads : mapping of str to array_like
            The admitted workloads, each a column of equal length ``k``: ``"cq"`` (ClusterQueue node),
            ``"request"`` (k, n_columns), and optionally ``"priority"`` (default 0), ``"admitted_at"``
            (quota reservation time, default 0), ``"evicted"`` (default False), ``"timestamp"`` (queue
            timestamp, for ``LowerOrNewerEqualPriority``, default ``admitted_at``) and ``"lq"`` (LocalQueue
            node). Their order breaks the last ties (Kueue: the UID).
        priority, timestamp : float, optional
            The preemptor's priority and queue timestamp.
        need : array_like of bool (n_columns,), optional
            Columns needing preemption (Kueue's flavour assigner's ``Preempt`` mode); default: requested
            columns that do not fit now.
        config : KueueFairSharing, optional
        lq_usage, preemptor_lq : optional
            AFS usage per LocalQueue node (mapping or array over nodes) for the candidate order within a
            ClusterQueue; the preemptor's LocalQueue.

        Returns
        -------
        list of (int, str)
            ``(workload index, reason)``, reason one of ``"InClusterQueue"``, ``"InCohortReclamation"``,
            ``"InCohortFairSharing"``; empty when no set of preemptions lets the workload fit.

        Examples
        --------
        Kueue's unit test "reclaim borrowable quota from user using the most" (``preemption_fair_test.go``):
        ClusterQueues a, b, c with 3 CPUs each and ``preemptible`` with 0 in one cohort; a runs 3 unit
        workloads, b 5, c 1; a fourth for a borrows, and preempts b1 by rule S2-a.

        >>> from fairalloc.accounts import AccountTree
        >>> recs = [{"account": "all"}] + [{"account": q, "parent": "all", "nominal_quota": {"cpu": c}}
        ...         for q, c in (("a", 3), ("b", 3), ("c", 3), ("preemptible", 0))]
        >>> recs += [{"user": "lq-" + q, "account": q} for q in ("a", "b", "c", "preemptible")]
        >>> k = KueueQueues(AccountTree(recs, resources=["cpu"]))
        >>> names = ["a1", "a2", "a3", "b1", "b2", "b3", "b4", "b5", "c1"]
        >>> wl = {"cq": [k.node(x[0]) for x in names], "request": [[1.0]] * 9}
        >>> u = k.usage([[3.0], [5.0], [1.0], [0.0]])
        >>> cfg = KueueFairSharing(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
        >>> [(names[i], why) for i, why in k.preemption_targets(u, k.node("a"), [1.0], wl, config=cfg)]
        [('b1', 'InCohortFairSharing')]
        """
        cfg = config or KueueFairSharing()
        m = self.n_columns
        if not 0 < cq < self.tree.n_nodes or self.kind[cq] != CLUSTER_QUEUE:
            raise InvalidInstanceError(f"cq={cq} is not a ClusterQueue node", argument="cq", value=cq)
        req = user_matrix("request", np.asarray(request, dtype=float).reshape(1, -1), 1, m, rows="rows")[0]
        wcq = np.asarray(workloads["cq"], dtype=np.int64)
        k = len(wcq)
        wreq = user_matrix("workloads['request']", np.asarray(workloads["request"], dtype=float).reshape(k, m), k, m,
                           rows="workloads")
        bad = [i for i in range(k) if not 0 < wcq[i] < self.tree.n_nodes or self.kind[wcq[i]] != CLUSTER_QUEUE]
        if bad:
            raise InvalidInstanceError(f"workloads['cq'][{bad[0]}]={int(wcq[bad[0]])} is not a ClusterQueue node",
                                       argument="workloads", index=(bad[0],), value=int(wcq[bad[0]]))
        col = {"priority": 0.0, "admitted_at": 0.0}
        wpr = np.broadcast_to(np.asarray(workloads.get("priority", col["priority"]), dtype=float), (k,))
        wadm = np.broadcast_to(np.asarray(workloads.get("admitted_at", col["admitted_at"]), dtype=float), (k,))
        wev = np.broadcast_to(np.asarray(workloads.get("evicted", False), dtype=bool), (k,))
        wts = np.broadcast_to(np.asarray(workloads.get("timestamp", wadm), dtype=float), (k,))
        wlq = workloads.get("lq")
        afs = wlq is not None and lq_usage is not None
        wlq = np.zeros(k, np.int64) if wlq is None else np.asarray(wlq, dtype=np.int64)
        lqu = np.zeros(self.tree.n_nodes) if lq_usage is None else np.asarray(lq_usage, dtype=float)
        work_usage = np.array(usage, dtype=float, copy=True)
        if need is None:
            need = np.array([req[r] > 0 and req[r] > available(cq, r, self.parent, self.subtree_quota, self.lending,
                                                               self.borrowing, work_usage) for r in range(m)])
        need = np.asarray(need, dtype=bool)
        if not need.any() or k == 0:
            return []
        wpr, wadm, wev, wts = (np.ascontiguousarray(a) for a in (wpr, wadm, wev, wts))
        mark = np.zeros(k, dtype=bool)
        code = {name: i for i, name in enumerate(PREEMPTION_POLICIES)}
        if not _compiled(mark_candidates_into)(cq, need, k, wcq, wreq, wpr, wts, float(priority), float(timestamp),
                                               code[cfg.within_cluster_queue], code[cfg.reclaim_within_cohort],
                                               self.parent, self.subtree_quota, work_usage, mark):
            return []
        # findCandidates' order (the preemptor's ClusterQueue, then the cohort's in tree order), then sorted
        rank = {q: j for j, q in enumerate([cq] + [q for q in self._subtree_cqs(self._root_of(cq)) if q != cq])}
        cands = sorted(np.flatnonzero(mark).tolist(), key=lambda i: rank[int(wcq[i])])
        cands.sort(key=cmp_to_key(lambda a, b: candidates_cmp(a, b, afs, cq, wev, wcq, wlq, lqu, wpr, wadm)))
        n, nc = self.tree.n_nodes, len(cands)
        strategies = np.array([PREEMPTION_STRATEGIES.index(x) for x in cfg.preemption_strategies], dtype=np.int64)
        tgt, why = np.zeros(nc, np.int64), np.zeros(nc, np.int64)
        i64 = [np.zeros(n, np.int64) for _ in range(3)]
        flags = [np.zeros(n, np.bool_) for _ in range(3)]
        n_t = _compiled(fair_preemption_into)(
            cq, req, need, nc, np.array(cands, dtype=np.int64), wcq, wreq, wev, wpr, wadm, self.kind, self.child_ptr,
            self.children, self.parent, self.subtree_quota, self.lending, self.borrowing, self.lendable, self.group_of,
            self.weight, work_usage, strategies, bool(cfg.preempt_within_nominal), np.empty(self.lendable.shape[1]),
            *i64, np.zeros(nc, np.int64), *flags, np.zeros(nc, np.int64), tgt, why)
        return [(int(tgt[j]), REASONS[int(why[j])]) for j in range(n_t)]

    def _subtree_cqs(self, root: int) -> list[int]:
        out, stack = [], [root]
        while stack:
            v = stack.pop()
            if self.kind[v] == CLUSTER_QUEUE:
                out.append(v)
            elif self.kind[v] in (COHORT, ROOT):
                stack.extend(reversed(self.children[self.child_ptr[v]:self.child_ptr[v + 1]].tolist()))
        return out

    def __repr__(self) -> str:
        counts = {name: int(np.sum(self.kind == k)) for name, k in
                  (("cohorts", COHORT), ("cluster_queues", CLUSTER_QUEUE), ("local_queues", LOCAL_QUEUE))}
        return (f"KueueQueues({counts['cohorts']} cohorts, {counts['cluster_queues']} ClusterQueues, "
                f"{counts['local_queues']} LocalQueues, resources={list(self.resources)})")
