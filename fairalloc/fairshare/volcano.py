r"""Volcano's queue sharing: the proportion plugin (deserved shares), the DRF plugin and hierarchical DRF.

Sources (read at volcano-sh/volcano ``ed72c7c815``, 2026-08-20): ``pkg/scheduler/plugins/proportion/
proportion.go`` (``OnSessionOpen``: the deserved loop, ``QueueOrderFn``, ``ReclaimableFn``, ``OverusedFn``,
``queueAllocatable``; ``updateQueueAttrShare``), ``pkg/scheduler/plugins/drf/drf.go`` (``calculateShare``,
``JobOrderFn``, ``PreemptableFn``, and with ``enableHierarchy`` ``updateHierarchicalShare``,
``resourceSaturated``, ``compareQueues``, ``ReclaimableFn``), ``pkg/scheduler/api/resource_info.go``
(``LessEqual``, ``ResourceNames``, ``MinDimensionResource``, ``Diff``, ``ExceededPart``, ``IsEmpty``; the
tolerance ``minResource = 0.1``), ``pkg/scheduler/api/helpers/helpers.go`` (``Share``),
``pkg/webhooks/admission/queues/{mutate,validate}`` and ``docs/design/hdrf.md``.

Units are Volcano's: the tolerance :math:`\epsilon = 0.1` (``minResource``) is in milli-CPU and bytes, so
pass amounts in those units (or scale ``eps``).

**Proportion** (a queue is a child of the tree's root; its request is what its jobs hold and wait for).
With :math:`G` the sum of the guarantees and :math:`T` the cluster, a queue's *real capability* is
:math:`\min(\max(T - G, 0) + g_q,\ c_q)` (capability :math:`c_q` unset = unbounded). Starting from
:math:`d_q = 0` and the remaining :math:`\rho = T`, each round, over the queues not yet *met*, with
:math:`W` their total weight:

.. math:: d_q \leftarrow \max(\min(d_q + \rho\,w_q/W,\ \text{realCap}_q,\ \text{request}_q),\ g_q)

(per resource); a queue is met when its request is at most :math:`d_q` (within :math:`\epsilon` per
resource) or :math:`d_q` did not change; :math:`\rho \leftarrow \max(\rho - \text{increase} + \text{decrease}, 0)`;
stop when every resource of :math:`\rho` is below :math:`\epsilon`, when :math:`\rho` did not change, or
when no unmet queue has weight. Share :math:`s_q = \max_r a_{q,r}/d_{q,r}` (1 for an allocation where
:math:`d = 0`). Queues are ordered by priority (higher first), then share; a queue whose allocation exceeds
:math:`d_q` in some resource lends: its tasks are reclaimable until it does not; it is *overused* when
:math:`d_q \le a_q` in every resource. Single resource, no guarantees or capabilities: this is weighted
max-min fairness with demands (tests check it against :func:`fairalloc.max_min`); several resources: the
same per resource, coupled only through the met condition.

**Weight 0**: Volcano's mutating webhook sets a queue weight of 0 to 1 (``mutate_queue.go``), so a
queue in a cluster never has weight 0; here a weight of 0 is read as 1 with a warning (the plugin itself
would give it nothing beyond its guarantee, volcano#1083).

**DRF plugin**: a job's share :math:`\max_r a_r/T_r`; jobs in increasing share; a running task of job
:math:`y` may be preempted for a task of job :math:`x` when :math:`s(x + t) < s(y - t')` or equal within
:math:`10^{-6}` (``PreemptableFn``, the same rule as Kueue's ``LessThanOrEqualToFinalShare`` on jobs).

**Hierarchical DRF** (``enableHierarchy``; ``docs/design/hdrf.md``, after Bhattacharya et al. 2013). Jobs
are leaves below their queue's path (``root/eng/prod``), path nodes have weights (``hdrf_weight``). A job
is *saturated* when it holds all it requested of some resource, or requests a resource that is fully
allocated (only resources it holds at least :math:`\epsilon` of are checked). Bottom-up, an internal node
takes :math:`M` = the smallest share (start 1) of its children that hold something and are not
saturated, rescales each such child to share :math:`M` (saturated ones unscaled), sums them, and its share
is the dominant share of the sum; it is saturated when all its children are. Queues compare along their
paths from the root: not saturated first, then the lower share/weight, descending while equal.

*As the code runs, not as the page says*: the design page says a node's dominant share is computed
"among the demanding resources" ("HDRF ignores saturated resources when computing the dominant share of
any internal node"); ``updateHierarchicalShare`` calls ``calculateShare`` on every resource of the
cluster, so a fully used resource held by a saturated child still counts (tests have a case where the
queue order flips). Weights below 1 are raised to 1 (``buildHierarchy``: ``if fweight < 1 { fweight =
1 }``), while the validating webhook accepts any positive weight; this module follows the code and warns.

**Relation to DRF and SDRF.** The DRF plugin orders jobs as DRF; HDRF is the hierarchical generalisation
that keeps DRF's properties per level (the rescaling removes the starvation the plain aggregate of
:mod:`fairalloc.fairshare.mesos` shows, tests); proportion divides each resource separately (weighted
max-min), not by dominant share. None has memory of past usage (SDRF with :math:`\delta = 0`).

Examples
--------
The design page's first example in numbers (10 CPUs, 10 GPUs): n1 holds 5 GPUs; under n2, n2,1 holds 5
CPUs and n2,2 2.5 GPUs. HDRF rescales n2,1 to the smaller share 0.25: n2 holds <2.5, 2.5>, share 0.25,
below n1's 0.5 (the plain sum <5, 2.5> would tie at 0.5):

>>> from fairalloc.accounts import AccountTree
>>> t = AccountTree([{"account": "n1"}, {"account": "n2"}, {"account": "n21", "parent": "n2"},
...                  {"account": "n22", "parent": "n2"}, {"user": "j1", "account": "n1"},
...                  {"user": "j21", "account": "n21"}, {"user": "j22", "account": "n22"}], resources=["cpu", "gpu"])
>>> h = VolcanoHDRF(t, [10.0, 10.0])
>>> st = h.update([[0, 5], [5, 0], [0, 2.5]], [[0, 10], [10, 0], [0, 10]])
>>> st.share[[t.node("n1"), t.node("n2")]].tolist(), st.allocated[t.node("n2")].tolist()
([0.5, 0.25], [2.5, 2.5])
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..accounts import AccountTree
from ..errors import FairallocWarning, InvalidInstanceError
from ._checks import no_parent_shares, node_scalar, node_vector, user_matrix
from ._jit import callee

__all__ = [
    "VolcanoQueues",
    "VolcanoHDRF",
    "HDRFState",
    "MIN_RESOURCE",
    "SHARE_DELTA",
    "share_of",
    "real_capability_into",
    "deserved_into",
    "queue_shares_into",
    "drf_preemptable",
    "queue_allocatable",
    "hdrf_update_into",
    "hdrf_compare",
]

#: ``minResource``: the tolerance of Volcano's resource comparisons (milli-CPU, bytes).
MIN_RESOURCE = 0.1
#: ``shareDelta`` of the DRF plugin.
SHARE_DELTA = 0.000001


@callee
def share_of(allocated: float, total: float) -> float:
    """``helpers.Share``: ``allocated/total``, and for a total of 0: 0 if nothing is allocated, else 1.

    Parameters
    ----------
    allocated, total : float

    Returns
    -------
    float

    Examples
    --------
    >>> share_of(2.0, 8.0), share_of(0.0, 0.0), share_of(3.0, 0.0)
    (0.25, 0.0, 1.0)
    """
    if total == 0.0:
        return 0.0 if allocated == 0.0 else 1.0
    return allocated / total


@callee
def _dominant_share(alloc, total, eps: float) -> float:
    """``calculateShare``: the largest ``share_of`` over the resources the cluster has at least ``eps`` of."""
    s = 0.0
    for r in range(len(total)):
        if total[r] < eps:
            continue
        x = share_of(alloc[r], total[r])
        if x > s:
            s = x
    return s


def real_capability_into(total, guarantee, capability, out) -> None:
    r"""Each queue's real capability :math:`\min(\max(T - \sum g, 0) + g_q,\ c_q)` per resource.

    Parameters
    ----------
    total : ndarray of float, shape (m,)
    guarantee, capability : ndarray of float, shape (k, m)
        Guarantees (0 unset) and capabilities (``inf`` unset).
    out : ndarray of float, shape (k, m)

    Examples
    --------
    >>> out = np.empty((2, 1))
    >>> real_capability_into(np.array([10.0]), np.array([[2.0], [3.0]]), np.array([[np.inf], [4.0]]), out)
    >>> out[:, 0].tolist()
    [7.0, 4.0]
    """
    k, m = out.shape
    for r in range(m):
        g = 0.0
        for q in range(k):
            g += guarantee[q, r]
        free = total[r] - g
        if free < 0.0:
            free = 0.0
        for q in range(k):
            x = free + guarantee[q, r]
            out[q, r] = x if x < capability[q, r] else capability[q, r]


@callee
def deserved_into(weight, request, guarantee, real_capability, total, eps: float, out) -> int:
    """The proportion plugin's deserved resources (module docstring); returns the number of rounds.

    Parameters
    ----------
    weight : ndarray of float, shape (k,)
    request, guarantee, real_capability : ndarray of float, shape (k, m)
    total : ndarray of float, shape (m,)
    eps : float
        ``minResource``.
    out : ndarray of float, shape (k, m)
        Receives the deserved resources.

    Examples
    --------
    Two queues of weights 1 and 3 wanting 10 and 100 of 40: round 1 gives 10 and 30 (the first is met),
    round 2 the 0 left: 10, 30:

    >>> out = np.empty((2, 1))
    >>> deserved_into(np.array([1.0, 3.0]), np.array([[10.0], [100.0]]), np.zeros((2, 1)), np.full((2, 1), np.inf),
    ...               np.array([40.0]), 0.1, out)
    1
    >>> out[:, 0].tolist()
    [10.0, 30.0]
    """
    k, m = out.shape
    for q in range(k):
        for r in range(m):
            out[q, r] = 0.0
    remaining = total.copy()
    met = np.zeros(k, dtype=np.bool_)
    old = np.empty(m)
    inc = np.empty(m)
    dec = np.empty(m)
    rounds = 0
    while True:
        w_tot = 0.0
        for q in range(k):
            if not met[q]:
                w_tot += weight[q]
        if w_tot == 0.0:
            break
        rounds += 1
        for r in range(m):
            inc[r] = 0.0
            dec[r] = 0.0
        old_remaining = remaining.copy()
        for q in range(k):
            if met[q]:
                continue
            same = True
            covered = True
            for r in range(m):
                old[r] = out[q, r]
                d = out[q, r] + remaining[r] * (weight[q] / w_tot)
                if real_capability[q, r] < d:
                    d = real_capability[q, r]
                if request[q, r] < d:
                    d = request[q, r]
                if d < guarantee[q, r]:
                    d = guarantee[q, r]
                out[q, r] = d
                if d != old[r]:
                    same = False
                if not (request[q, r] < d or abs(request[q, r] - d) < eps):
                    covered = False
                if d > old[r]:
                    inc[r] += d - old[r]
                else:
                    dec[r] += old[r] - d
            if covered or same:
                met[q] = True
        empty = True
        unchanged = True
        for r in range(m):
            x = remaining[r] + dec[r] - inc[r]
            remaining[r] = x if x > 0.0 else 0.0
            if remaining[r] >= eps:
                empty = False
            if remaining[r] != old_remaining[r]:
                unchanged = False
        if empty or unchanged:
            break
    return rounds


def queue_shares_into(allocated, deserved, eps: float, out) -> None:
    """``updateQueueAttrShare``: per queue, the largest ``share_of(allocated, deserved)`` over resources with deserved >= ``eps``.

    Parameters
    ----------
    allocated, deserved : ndarray of float, shape (k, m)
    eps : float
        ``minResource``.
    out : ndarray of float, shape (k,)

    Examples
    --------
    >>> out = np.empty(1)
    >>> queue_shares_into(np.array([[3.0, 1.0]]), np.array([[6.0, 4.0]]), 0.1, out); out.tolist()
    [0.5]
    """
    for q in range(allocated.shape[0]):          # calculateShare's formula against the deserved resources
        out[q] = _dominant_share(allocated[q], deserved[q], eps)



@callee
def queue_allocatable(allocated, request, deserved, eps: float) -> bool:
    """The proportion plugin's ``queueAllocatable``: may a queue holding ``allocated`` start a task of ``request``?

    ``futureUsed = allocated + request`` must be at most ``deserved`` (within ``eps``) in every resource
    the task requests (``LessEqualWithDimensionAndResourcesName``; proportion.go's ``AllocatableFn``).

    Parameters
    ----------
    allocated, request, deserved : ndarray of float, shape (m,)
    eps : float
        ``minResource``.

    Returns
    -------
    bool

    Examples
    --------
    Deserved <4, 2>, holding <3, 0>: a task <1, 2> fits, a task <2, 0> does not (CPU), a task <0, 3> does
    not (memory):

    >>> d = np.array([4.0, 2.0]); a = np.array([3.0, 0.0])
    >>> [queue_allocatable(a, np.array(t), d, 0.1) for t in ([1.0, 2.0], [2.0, 0.0], [0.0, 3.0])]
    [True, False, False]
    """
    for r in range(len(request)):
        if request[r] <= 0.0:
            continue
        f = allocated[r] + request[r]
        if not (f < deserved[r] or abs(f - deserved[r]) < eps):
            return False
    return True


def drf_preemptable(preemptor_share_after: float, preemptee_share_after: float) -> bool:
    """The DRF plugin's ``PreemptableFn``: the preemptor's job share with the task is below, or within
    :data:`SHARE_DELTA` of, the preemptee's job share without its task.

    Parameters
    ----------
    preemptor_share_after : float
        The preemptor job's dominant share with the new task.
    preemptee_share_after : float
        The preemptee job's dominant share without its task.

    Returns
    -------
    bool

    Examples
    --------
    >>> drf_preemptable(0.3, 0.3000001), drf_preemptable(0.31, 0.3)
    (True, False)
    """
    return preemptor_share_after < preemptee_share_after or abs(preemptor_share_after - preemptee_share_after) <= SHARE_DELTA


@callee
def hdrf_update_into(child_ptr, children, preorder, is_leaf, leaf_alloc, leaf_request, total, eps: float, alloc,
                     share, saturated) -> None:
    r"""HDRF's bottom-up pass (``UpdateHierarchicalShare``): every node's rescaled allocation, share, saturation.

    Parameters
    ----------
    child_ptr, children, preorder : ndarray of int64
        The tree in CSR form (node 0 the root ``root``).
    is_leaf : ndarray of bool, shape (n_nodes,)
        Jobs.
    leaf_alloc, leaf_request : ndarray of float, shape (n_nodes, m)
        Allocation and total request of each job (rows of other nodes ignored).
    total : ndarray of float, shape (m,)
    eps : float
        ``minResource``.
    alloc : ndarray of float, shape (n_nodes, m)
        Receives the (rescaled) allocations.
    share : ndarray of float, shape (n_nodes,)
        Receives the dominant shares.
    saturated : ndarray of bool, shape (n_nodes,)
        Receives saturation.

    Examples
    --------
    A queue (node 1) with two jobs (nodes 2, 3) holding <4, 0> and <0, 2> of <10, 10>: the first is rescaled
    to the smaller share 0.2, the queue holds <2, 2>:

    >>> ptr, ch, pre = np.array([0, 1, 3, 3, 3]), np.array([1, 2, 3]), np.array([0, 1, 2, 3])
    >>> leaf = np.array([False, False, True, True]); la = np.array([[0, 0], [0, 0], [4.0, 0], [0, 2.0]])
    >>> a, s, sat = np.empty((4, 2)), np.empty(4), np.empty(4, bool)
    >>> hdrf_update_into(ptr, ch, pre, leaf, la, la * 10, np.array([10.0, 10.0]), 0.1, a, s, sat)
    >>> a[1].tolist(), float(s[1])
    ([2.0, 2.0], 0.2)
    """
    n, m = alloc.shape
    demanding = np.empty(m, dtype=np.bool_)
    for r in range(m):
        used = 0.0
        for v in range(n):
            if is_leaf[v]:
                used += leaf_alloc[v, r]
        demanding[r] = used < total[r]
    for k in range(n - 1, -1, -1):                 # children before parents
        v = preorder[k]
        if is_leaf[v]:
            sat = False
            for r in range(m):
                alloc[v, r] = leaf_alloc[v, r]
                if leaf_alloc[v, r] < eps:         # ResourceNames(): only what the job holds
                    continue
                if leaf_request[v, r] != 0.0 and leaf_alloc[v, r] >= leaf_request[v, r]:
                    sat = True
                if not demanding[r] and leaf_request[v, r] != 0.0:
                    sat = True
            saturated[v] = sat
            share[v] = _dominant_share(alloc[v], total, eps)
            continue
        mdr = 1.0
        for j in range(child_ptr[v], child_ptr[v + 1]):
            c = children[j]
            if share[c] != 0.0 and not saturated[c] and share[c] < mdr:
                mdr = share[c]
        for r in range(m):
            alloc[v, r] = 0.0
        sat = True
        for j in range(child_ptr[v], child_ptr[v + 1]):
            c = children[j]
            if not saturated[c]:
                sat = False
            if share[c] != 0.0:
                f = 1.0 if saturated[c] else mdr / share[c]
                for r in range(m):
                    alloc[v, r] += alloc[c, r] * f
        saturated[v] = sat
        share[v] = _dominant_share(alloc[v], total, eps)


@callee
def hdrf_compare(path_a, path_b, share, weight, saturated) -> float:
    """``compareQueues``: negative when the queue at the end of ``path_a`` goes first.

    Walks both paths from the root (node 0) while they have nodes: a saturated node loses to one that is
    not (-1 / 1), a lower share/weight wins (the difference is returned), equal values descend. Equal
    on the common length: 0.

    Parameters
    ----------
    path_a, path_b : ndarray of int64
        Node paths from the root (``[0, ..., queue]``).
    share, weight : ndarray of float, shape (n_nodes,)
    saturated : ndarray of bool, shape (n_nodes,)

    Examples
    --------
    >>> float(hdrf_compare(np.array([0, 1]), np.array([0, 2]), np.array([0.0, 0.5, 0.25]), np.ones(3), np.zeros(3, bool)))
    0.25
    """
    depth = min(len(path_a), len(path_b))
    for i in range(depth):
        a, b = path_a[i], path_b[i]
        if not saturated[a] and saturated[b]:
            return -1.0
        if saturated[a] and not saturated[b]:
            return 1.0
        x = share[a] / weight[a]
        y = share[b] / weight[b]
        if x != y:
            return x - y
    return 0.0


def _queue_rows(tree: AccountTree) -> np.ndarray:
    return np.array(tree.fs_children[tree.fs_child_ptr[0]:tree.fs_child_ptr[1]], dtype=np.int64)


class VolcanoQueues:
    r"""Volcano's proportion plugin over the children of an :class:`~fairalloc.accounts.AccountTree`'s root.

    Parameters
    ----------
    tree : AccountTree
        The queues are the root's children (accounts or users); ``weight`` (default 1; 0 read as 1 as
        Volcano's webhook does, with a warning), ``guarantee`` and ``capability`` are read.
    total : array_like (m,)
        The cluster.
    resources : sequence of str, optional
        Column names (default the tree's, else ``cpu``, ``memory``, ...).
    eps : float, optional
        ``minResource`` in your units (default 0.1, Volcano's for milli-CPU and bytes).
    allow_overcommit : bool, optional
        Accept guarantees adding up to more than ``total`` (default False: refused).

    Raises
    ------
    InvalidInstanceError
        Guarantees larger than the cluster, ``FairShare=parent`` shares, negative totals.

    Examples
    --------
    Volcano issue #1486's cluster (100 CPUs, 100 Gi) with queue A capped at <80, 40> and B at <20, 60>, both
    with large requests: A deserves <80, 40>, B <20, 60> (in units of 1, eps 1e-6):

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "A", "capability": {"cpu": 80, "mem": 40}},
    ...                  {"account": "B", "capability": {"cpu": 20, "mem": 60}},
    ...                  {"user": "a", "account": "A"}, {"user": "b", "account": "B"}], resources=["cpu", "mem"])
    >>> q = VolcanoQueues(t, [100.0, 100.0], eps=1e-6)
    >>> q.deserved([[1e6, 1e6], [1e6, 1e6]]).round(3).tolist()
    [[80.0, 40.0], [20.0, 60.0]]
    """

    def __init__(self, tree: AccountTree, total: Any, *, resources: Sequence[str] | None = None, eps: float = MIN_RESOURCE,
                 allow_overcommit: bool = False) -> None:
        no_parent_shares(tree, "Volcano")
        tot = np.asarray(total, dtype=float).reshape(-1)
        if resources is None:
            resources = list(tree.resources) or (["cpu", "memory"] + [f"r{k}" for k in range(2, len(tot))])[:len(tot)]
        self.resources = tuple(str(r) for r in resources)
        m = len(self.resources)
        self.total = user_matrix("total", tot.reshape(1, -1), 1, m, rows="rows")[0]
        self.tree = tree
        self.eps = float(eps)
        self.queues = _queue_rows(tree)
        w = node_scalar(tree, "weight", 1.0)[self.queues]
        if np.any(w == 0):
            names = [tree.names[v] for v in self.queues[w == 0]]
            warnings.warn(f"queues {names} have weight 0; Volcano's webhook sets a weight of 0 to 1 "
                          "(mutate_queue.go), so weight 1 is used", FairallocWarning, stacklevel=2)
            w = np.where(w == 0, 1.0, w)
        self.weight = w
        self.guarantee = node_vector(tree, "guarantee", 0.0, m)[self.queues]
        self.capability = node_vector(tree, "capability", math.inf, m)[self.queues]
        over = np.flatnonzero(self.guarantee.sum(axis=0) > self.total)
        if over.size and not allow_overcommit:
            r = int(over[0])
            big = int(np.argmax(self.guarantee[:, r]))
            raise InvalidInstanceError(
                f"guarantees of {self.resources[r]!r} add up to {float(self.guarantee[:, r].sum())!r}, more than the "
                f"cluster's {float(self.total[r])!r} (largest: {tree.names[self.queues[big]]!r}); pass "
                "allow_overcommit=True to keep them", argument="guarantee", index=(int(self.queues[big]), r),
                value=float(self.guarantee[:, r].sum()))
        self.real_capability = np.empty_like(self.guarantee)
        real_capability_into(self.total, self.guarantee, self.capability, self.real_capability)

    def queue_totals(self, per_user: Any, argument: str = "request") -> np.ndarray:
        """Per queue, the sum over its users of ``per_user`` (n_users, m)."""
        a = user_matrix(argument, per_user, self.tree.n_users, len(self.resources))
        out = np.empty((self.tree.n_nodes, a.shape[1]))
        for r in range(a.shape[1]):
            out[:, r] = self.tree.subtree_sum(a[:, r])
        return out[self.queues]

    def deserved(self, request: Any) -> np.ndarray:
        """Deserved resources per queue (k, m) (:func:`deserved_into`) from each user's request (held + pending)."""
        req = self.queue_totals(request)
        out = np.empty_like(req)
        deserved_into(self.weight, req, self.guarantee, self.real_capability, self.total, self.eps, out)
        return out

    def shares(self, allocated: Any, deserved: np.ndarray) -> np.ndarray:
        """Queue shares (k,) from each user's allocation (:func:`queue_shares_into`)."""
        a = self.queue_totals(allocated, "allocated")
        out = np.empty(len(self.queues))
        queue_shares_into(a, deserved, self.eps, out)
        return out

    def overused(self, allocated: Any, deserved: np.ndarray) -> np.ndarray:
        """``OverusedFn``: deserved <= allocated (within eps) in every resource."""
        a = self.queue_totals(allocated, "allocated")
        return np.all((deserved < a) | (np.abs(deserved - a) < self.eps), axis=1)

    def order(self, allocated: Any, deserved: np.ndarray, priority: Any = None) -> list[int]:
        """Queue node indices in ``QueueOrderFn`` order: higher priority, then lower share (ties keep tree order)."""
        s = self.shares(allocated, deserved)
        p = np.zeros(len(self.queues)) if priority is None else np.asarray(priority, dtype=float)
        idx = np.lexsort((np.arange(len(s)), s, -p))
        return [int(self.queues[i]) for i in idx]


@dataclass(frozen=True)
class HDRFState:
    """HDRF's per-node values (:meth:`VolcanoHDRF.update`).

    Attributes
    ----------
    allocated : ndarray (n_nodes, m)
        Rescaled allocations.
    share : ndarray (n_nodes,)
    saturated : ndarray of bool (n_nodes,)

    Examples
    --------
    >>> HDRFState(np.zeros((1, 2)), np.zeros(1), np.zeros(1, bool)).share.tolist()
    [0.0]
    """

    allocated: np.ndarray
    share: np.ndarray
    saturated: np.ndarray


class VolcanoHDRF:
    r"""Volcano's hierarchical DRF over an :class:`~fairalloc.accounts.AccountTree`: paths are accounts, jobs users.

    Parameters
    ----------
    tree : AccountTree
        ``hdrf_weight`` of the accounts is the hierarchy weight (default 1; below 1 read as 1, as the code
        does, with a warning).
    total : array_like (m,)
    resources : sequence of str, optional
    eps : float, optional
        ``minResource`` (default 0.1).

    Examples
    --------
    Jobs weigh 1; accounts their ``hdrf_weight`` (default 1). See the module docstring for shares.

    >>> from fairalloc.accounts import AccountTree
    >>> VolcanoHDRF(AccountTree([{"account": "q", "hdrf_weight": 3}, {"user": "job", "account": "q"}]),
    ...             [10.0, 10.0]).weight.tolist()
    [1.0, 3.0, 1.0]
    """

    def __init__(self, tree: AccountTree, total: Any, *, resources: Sequence[str] | None = None,
                 eps: float = MIN_RESOURCE) -> None:
        no_parent_shares(tree, "Volcano")
        tot = np.asarray(total, dtype=float).reshape(-1)
        if resources is None:
            resources = list(tree.resources) or (["cpu", "memory"] + [f"r{k}" for k in range(2, len(tot))])[:len(tot)]
        self.resources = tuple(str(r) for r in resources)
        self.total = user_matrix("total", tot.reshape(1, -1), 1, len(self.resources), rows="rows")[0]
        self.tree = tree
        self.eps = float(eps)
        w = node_scalar(tree, "hdrf_weight", 1.0)
        w[tree.is_user] = 1.0                          # jobs: weight 1 (buildHierarchy)
        low = np.flatnonzero(w < 1)
        if low.size:
            warnings.warn(f"hdrf_weight below 1 for {[tree.names[v] for v in low]}: Volcano uses 1 "
                          "(drf.go buildHierarchy: 'if fweight < 1 { fweight = 1 }')", FairallocWarning, stacklevel=2)
            w = np.maximum(w, 1.0)
        self.weight = w
        self.preorder = np.array(tree.preorder, dtype=np.int64)
        self.child_ptr = np.array(tree.fs_child_ptr, dtype=np.int64)
        self.children = np.array(tree.fs_children, dtype=np.int64)

    def update(self, allocated: Any, request: Any) -> HDRFState:
        """Every node's HDRF values (:func:`hdrf_update_into`) from each job's allocation and total request."""
        t = self.tree
        m = len(self.resources)
        a = user_matrix("allocated", allocated, t.n_users, m, rows="jobs")
        q = user_matrix("request", request, t.n_users, m, rows="jobs")
        la = np.zeros((t.n_nodes, m))
        lr = np.zeros((t.n_nodes, m))
        la[t.user_nodes] = a
        lr[t.user_nodes] = q
        alloc = np.empty((t.n_nodes, m))
        share = np.empty(t.n_nodes)
        sat = np.empty(t.n_nodes, dtype=bool)
        hdrf_update_into(self.child_ptr, self.children, self.preorder, np.asarray(t.is_user), la, lr, self.total,
                         self.eps, alloc, share, sat)
        return HDRFState(alloc, share, sat)

    def path(self, v: int) -> np.ndarray:
        """Node path from the root to ``v``."""
        out = [v]
        while self.tree.parent[out[-1]] >= 0:
            out.append(int(self.tree.parent[out[-1]]))
        return np.array(out[::-1], dtype=np.int64)

    def compare(self, state: HDRFState, a: int, b: int) -> float:
        """:func:`hdrf_compare` of the queues (accounts) ``a`` and ``b``."""
        return hdrf_compare(self.path(a), self.path(b), state.share, self.weight, state.saturated)

    def order(self, state: HDRFState, queues: Sequence[int]) -> list[int]:
        """``queues`` (node indices) in HDRF queue order (ties keep the given order)."""
        from functools import cmp_to_key

        def c(x: int, y: int) -> int:
            d = self.compare(state, x, y)
            return -1 if d < 0 else (1 if d > 0 else 0)
        return sorted(queues, key=cmp_to_key(c))
