r"""Queues above the users, for the production fair-share keys of the decision core (Kueue, YARN, Mesos, Volcano).

Container clusters rank *queues*, not users: Kueue's ClusterQueues in cohorts, YARN's leaf queues,
Mesos' roles, Volcano's queues. :class:`QueueState` holds, beside the decision core's per-user state
(:class:`~fairalloc.scheduling.core.CoreState`), the account tree those rules read as arrays: every
user's own node (a Kueue LocalQueue, a YARN application, a Mesos client, a Volcano job) and the *queue*
whose key it takes (its parent account: a ClusterQueue, a leaf queue, a role, a queue), the usage of every node (the raw
resources its subtree's running tasks hold), and the rule's static parameters per node. The keys
themselves are :mod:`fairalloc.scheduling.keys`' (one function each, calling the rules of
:mod:`fairalloc.fairshare`); the core calls the operations below at each submission, start and end of a
task:

* :func:`queue_take` / :func:`queue_release`: one task's demand added to (taken from) the user's node
  and up its path (Kueue: :func:`fairalloc.fairshare.kueue.add_usage_into`, which stops at local quotas;
  the others: every ancestor). A node with nothing running below it is set to exactly 0 (no round-off
  residue decides a tie);
* :func:`queue_admits`: whether the rule lets the user's head task start now (Kueue: it fits the
  ClusterQueue's available quota, :func:`fairalloc.fairshare.kueue.available`; YARN: the queue and its
  ancestors stay within their max shares, :func:`fairalloc.fairshare.yarn.fits_in_max_share`; Volcano:
  the queue stays within its deserved resources, :func:`fairalloc.fairshare.volcano.queue_allocatable`;
  Mesos: always). A task refused here is treated as one that fits on no server (the core's ``blocking``
  rule);
* Volcano: :func:`queue_submit` adds a submission to its queue's pending demand, and
  :func:`volcano_session`, at the start of a pass after a submission or an end, computes the proportion
  plugin's deserved resources from every queue's request (held + pending;
  :func:`fairalloc.fairshare.volcano.deserved_into`), as Volcano does when a scheduling session opens;
  every key is computed anew (:func:`fairalloc.scheduling.core.rekey_all`) only when what the keys read
  moved: a queue's deserved resources (``volcano``) or a queue's rank (``volcano-drf``, ``volcano-hdrf``).

The key of a user depends on its queue's usage, so when one member of a queue starts or ends a task
every member with pending tasks is placed again (:func:`fairalloc.scheduling.core.regroup`); for the ranked
keys (one group: every user) only when a queue's rank moved (:func:`queue_group`).

:func:`build_queues` makes the state from an :class:`~fairalloc.accounts.AccountTree` whose users are
the simulator's users (named ``str(u)``); :func:`empty_queues` a one-node tree (for examples). Every other
key's core state carries None instead: each operation the core calls here (and
:func:`fairalloc.scheduling.keys.queue_key`) starts with ``if qs is None: return``, which numba decides
at compile time (a branch on an argument that is None), so the core compiled for those keys holds no
queue code and its calls pass no queue arrays.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from .._jit import jit
from .._merge_sort import sorter
from ..accounts import NODE_ATTRIBUTES, AccountTree
from ..commitments import decay_row_into as _decay
from ..errors import InvalidInstanceError
from ..fairshare import _jit as _fsjit
from ..fairshare.kueue import add_usage_into as _add_kueue
from ..fairshare.kueue import afs_usage as _afs_usage
from ..fairshare.kueue import available as _available
from ..fairshare.kueue import remove_usage_into as _remove_kueue
from ..fairshare.volcano import _dominant_share as _vshare
from ..fairshare.volcano import deserved_into as _deserved
from ..fairshare.volcano import hdrf_compare as _hdrf_compare
from ..fairshare.volcano import hdrf_update_into as _hdrf_update
from ..fairshare.volcano import queue_allocatable as _allocatable
from ..fairshare.yarn import fits_in_max_share as _fits_max

__all__ = ["QueueState", "empty_queues", "build_queues", "normalize_tree", "queue_take", "queue_release",
           "queue_admits", "queue_submit", "queue_group", "queue_member", "volcano_session", "queue_session", "rank_queues", "afs_heads",
           "POLICY_TREES"]

#: Key kinds that read a :class:`QueueState` (the ids of :mod:`fairalloc.scheduling.keys`).
_KUEUE, _YARN, _MESOS, _VOLCANO, _VOLCANO_DRF, _HDRF, _AFS = 4, 5, 6, 7, 8, 9, 10


class QueueState(NamedTuple):
    """The queue tree of the production keys (module docstring); N users, G nodes, K resources."""

    node: np.ndarray        #: (N,) each user's own node (LocalQueue, application, client)
    queue: np.ndarray       #: (N,) the node whose key the user takes (ClusterQueue, leaf queue, role)
    mptr: np.ndarray        #: (G + 1,) users of queue node v: members[mptr[v]:mptr[v + 1]]
    members: np.ndarray     #: (N,)
    parent: np.ndarray      #: (G,) parent node (-1: the root)
    usage: np.ndarray       #: (G, K) raw resources held below each node
    nrun: np.ndarray        #: (G,) running tasks below each node
    quota: np.ndarray       #: (G, K) Kueue subtree quota; YARN min share
    limit: np.ndarray       #: (G, K) Kueue lending limit; YARN max share
    borrow: np.ndarray      #: (G, K) Kueue borrowing limit
    lam: np.ndarray         #: (G, K) Kueue lendable capacity of each node's parent
    group_of: np.ndarray    #: (K,) resource of each column (Kueue flavours; here one column per resource)
    w: np.ndarray           #: (G,) weight of each node
    excluded: np.ndarray    #: (K,) Mesos: resources left out of the share
    work: np.ndarray        #: (K,) scratch
    save: np.ndarray        #: (D, K) scratch (Kueue: the usage of a path while a request is tried)
    iwork: np.ndarray       #: (K,) int scratch
    qlist: np.ndarray       #: (Q,) Volcano: the queue nodes, in tree order
    qpos: np.ndarray        #: (G,) Volcano: each node's place in qlist (-1: not a queue)
    qw: np.ndarray          #: (Q,) Volcano: queue weights
    guar: np.ndarray        #: (Q, K) Volcano: guarantees
    rcap: np.ndarray        #: (Q, K) Volcano: real capabilities
    pend: np.ndarray        #: (Q, K) Volcano: pending demand of each queue
    req: np.ndarray         #: (Q, K) Volcano: scratch, each queue's request (held + pending)
    deserved: np.ndarray    #: (Q, K) Volcano: deserved resources at the last session
    flags: np.ndarray       #: (2,) int64 [0] Volcano, HDRF, AFS: 1 when the requests changed since the last session;
    #:                         [1] ranked keys: 1 when the last change moved no queue's rank (:func:`queue_group`)
    eps: np.ndarray         #: (1,) Volcano: ``minResource``
    home: np.ndarray        #: (N,) ranked keys: the user's queue (``queue`` is then the root: one group)
    rank: np.ndarray        #: (Q,) ranked keys: dense rank of each queue of qlist in the queue order
    order: np.ndarray       #: (Q,) int64 scratch: qlist positions sorted
    tmp: np.ndarray         #: (Q,) int64 scratch of the merge sort
    qval: np.ndarray        #: (Q,) volcano-drf: each queue's proportion share
    hptr: np.ndarray        #: (G + 1,) HDRF: children of node v are hch[hptr[v]:hptr[v + 1]]
    hch: np.ndarray         #: HDRF: the children
    hpre: np.ndarray        #: (G,) HDRF: preorder
    hleaf: np.ndarray       #: (G,) bool HDRF: jobs (the users' nodes)
    hw: np.ndarray          #: (G,) HDRF: ``hdrf_weight`` (jobs 1)
    hpend: np.ndarray       #: (G, K) HDRF: pending demand of each job
    hreq: np.ndarray        #: (G, K) HDRF scratch: each job's request (held + pending)
    halloc: np.ndarray      #: (G, K) HDRF: rescaled allocations
    hshare: np.ndarray      #: (G,) HDRF: shares
    hsat: np.ndarray        #: (G,) bool HDRF: saturation
    paths: np.ndarray       #: (Q, D) HDRF: node path from the root of each queue
    plen: np.ndarray        #: (Q,) HDRF: path lengths
    afs_c: np.ndarray       #: (G, K) AFS: consumed resources of each LocalQueue (user node)
    afs_t: np.ndarray       #: (G,) AFS: time of each LocalQueue's last update
    afs_rel: np.ndarray     #: (G, K) AFS: released since the last session (the usage before this instant's ends)
    afs_zero: np.ndarray    #: (K,) AFS: zeros (no pending penalty: it is settled on admission)
    omega: np.ndarray       #: (K,) AFS: resource weights
    afs_par: np.ndarray     #: (4,) AFS: tau, entry alpha, sampling interval, time of the last sample
    afs_now: np.ndarray     #: (1,) AFS: the time of the current pass
    npend: np.ndarray       #: (N,) int64 AFS: pending tasks of each user
    since: np.ndarray       #: (N,) int64 AFS: sequence number of the user's last move from 0 pending tasks
    seq: np.ndarray         #: (1,) int64 AFS: the sequence counter
    head: np.ndarray        #: (G,) int64 AFS: each ClusterQueue's head LocalQueue (user; -1: none)
    tot: np.ndarray         #: (K,) the cluster's totals (HDRF's shares)
    dprev: np.ndarray       #: (Q, K) Volcano scratch: the deserved resources before a session


def empty_queues(k: int) -> QueueState:
    """A one-node queue tree (every array the right type), for examples and tests.

    Registers the :mod:`fairalloc.fairshare` rules with numba (:func:`fairalloc.fairshare._jit.register`),
    which the compiled queue operations call."""
    _fsjit.register()
    z = np.zeros((1, k))
    i1 = np.zeros(1, np.int64)
    return QueueState(i1, i1.copy(), np.zeros(2, np.int64), i1.copy(), np.full(1, -1, np.int64), z, i1.copy(),
                      z.copy(), z.copy(), z.copy(), z.copy(), np.arange(k, dtype=np.int64), np.ones(1),
                      np.zeros(k, np.bool_), np.zeros(k), np.zeros((1, k)), np.zeros(k, np.int64),
                      i1.copy(), np.zeros(1, np.int64), np.ones(1), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(),
                      np.zeros(2, np.int64), np.zeros(1), **_rank_arrays(None, i1.copy(), 1, k, 1),
                      **_afs_arrays(None, 1, 1, k), tot=np.ones(k), dprev=np.zeros((1, k)))


# ---- the compiled operations ---------------------------------------------------------------------------
@jit(_nrt=False)
def _path_add(qs, v, d, k):
    """k tasks of demand d added (k > 0) or taken (k < 0) at node v and every ancestor."""
    node = v
    while node >= 0:
        qs.nrun[node] += k
        if qs.nrun[node] == 0:
            for r in range(d.shape[0]):
                qs.usage[node, r] = 0.0
        else:
            for r in range(d.shape[0]):
                qs.usage[node, r] = qs.usage[node, r] + k * d[r]
        node = qs.parent[node]


@jit(_nrt=False)
def _snap(qs, v):
    """Nodes on v's path with nothing running below them: usage exactly 0."""
    node = v
    while node >= 0:
        if qs.nrun[node] == 0:
            for r in range(qs.usage.shape[1]):
                qs.usage[node, r] = 0.0
        node = qs.parent[node]


@jit(_nrt=False)
def queue_take(qs, kind, u, d):
    """User u starts one task of demand d: its node's usage and its ancestors' (module docstring)."""
    if qs is None:
        return
    v = qs.node[u]
    if kind == _KUEUE or kind == _AFS:
        _add_kueue(v, d, qs.parent, qs.quota, qs.limit, qs.usage)
        node = v
        while node >= 0:
            qs.nrun[node] += 1
            node = qs.parent[node]
        if kind == _AFS:
            _afs_admit(qs, u, d)
    else:
        _path_add(qs, v, d, np.int64(1))
        if kind == _VOLCANO or kind == _VOLCANO_DRF:   # pending -> allocated: the request is unchanged
            p = qs.qpos[qs.home[u]]
            for r in range(d.shape[0]):
                qs.pend[p, r] = qs.pend[p, r] - d[r]
        elif kind == _HDRF:
            for r in range(d.shape[0]):
                qs.hpend[v, r] = qs.hpend[v, r] - d[r]
        if kind == _VOLCANO_DRF or kind == _HDRF:      # the shares moved: every queue's place anew
            rank_queues(qs, kind, qs.qpos[qs.home[u]])


@jit(_nrt=False)
def queue_submit(qs, kind, u, d, count):
    """User u submits ``count`` tasks of demand d (Volcano: its queue's request grows)."""
    if qs is None:
        return
    if kind == _VOLCANO or kind == _VOLCANO_DRF:
        p = qs.qpos[qs.home[u]]
        for r in range(d.shape[0]):
            qs.pend[p, r] = qs.pend[p, r] + count * d[r]
        qs.flags[0] = 1
    elif kind == _HDRF:
        v = qs.node[u]
        for r in range(d.shape[0]):
            qs.hpend[v, r] = qs.hpend[v, r] + count * d[r]
        qs.flags[0] = 1
    elif kind == _AFS:
        if qs.npend[u] == 0:
            qs.seq[0] += 1
            qs.since[u] = qs.seq[0]
        qs.npend[u] += count
        afs_heads(qs, qs.queue[u])
        qs.flags[0] = 1                        # the head may have changed: every member re-keyed at the pass


@jit
def volcano_session(qs, totals):
    """Volcano: the proportion plugin's deserved resources from the queues' requests now (held + pending,
    :func:`fairalloc.fairshare.volcano.deserved_into`), as at the opening of a scheduling session; clears the
    stale flag. Returns -1 when nothing was recomputed (no change since the last session), else whether any
    queue's deserved resources differ from the last session's (the proportion keys read nothing else that a
    session changes)."""
    if qs.flags[0] == 0:
        return -1
    for p in range(qs.qlist.shape[0]):
        v = qs.qlist[p]
        for r in range(totals.shape[0]):
            qs.req[p, r] = qs.usage[v, r] + qs.pend[p, r]
            qs.dprev[p, r] = qs.deserved[p, r]
    _deserved(qs.qw, qs.req, qs.guar, qs.rcap, totals, qs.eps[0], qs.deserved)
    qs.flags[0] = 0
    for p in range(qs.qlist.shape[0]):
        for r in range(totals.shape[0]):
            if qs.dprev[p, r] != qs.deserved[p, r]:
                return 1
    return 0


@jit(_nrt=False)
def queue_release(qs, kind, u, d, k):
    """k running tasks of demand d of user u end: the usage taken back (module docstring)."""
    if qs is None:
        return
    v = qs.node[u]
    if kind == _KUEUE or kind == _AFS:
        for _ in range(k):
            _remove_kueue(v, d, qs.parent, qs.quota, qs.limit, qs.usage)
        node = v
        while node >= 0:
            qs.nrun[node] -= k
            node = qs.parent[node]
        _snap(qs, v)
        if kind == _AFS:                       # the samples before this instant saw the usage with these tasks
            for r in range(d.shape[0]):
                qs.afs_rel[v, r] = qs.afs_rel[v, r] + k * d[r]
    else:
        _path_add(qs, v, d, -k)
        if kind == _VOLCANO or kind == _VOLCANO_DRF or kind == _HDRF:
            qs.flags[0] = 1                    # the request shrank: deserved (ranks) again at the next pass
        if kind == _VOLCANO_DRF or kind == _HDRF:
            qs.flags[1] = 1                    # the ranks move at that session only: the others keep their keys


@jit(_nrt=False)
def queue_admits(qs, kind, u, d):
    """Whether the rule admits user u's head task of demand d now (module docstring)."""
    if qs is None:
        return True
    if kind == _KUEUE or kind == _AFS:
        q = qs.queue[u]
        for r in range(d.shape[0]):
            if d[r] > 0.0 and d[r] > _available(q, r, qs.parent, qs.quota, qs.limit, qs.borrow, qs.usage):
                return False
        return True
    if kind == _YARN:
        return _fits_max(qs.queue[u], d, qs.parent, qs.usage, qs.limit)
    if kind == _VOLCANO or kind == _VOLCANO_DRF:
        q = qs.home[u]
        return _allocatable(qs.usage[q], d, qs.deserved[qs.qpos[q]], qs.eps[0])
    return True


@jit(_nrt=False)
def queue_group(qs, u):
    """The members of user u's queue: the span ``lo, hi`` of ``qs.members`` (0, 0 without queues, and for the
    ranked keys when the change that calls for it moved no queue's rank, ``flags[1]``: a ranked key is the
    rank of the user's queue and the user's own share, so only u's own key moved, which the caller re-places)."""
    if qs is None or qs.flags[1] != 0:         # (np.int64: a literal return would type its callers' calls as literals)
        return np.int64(0), np.int64(0)
    q = qs.queue[u]
    return qs.mptr[q], qs.mptr[q + 1]


@jit(_nrt=False)
def queue_member(qs, j):
    """The j-th user of ``qs.members`` (:func:`queue_group`)."""
    if qs is None:
        return np.int64(-1)
    return qs.members[j]


# ---- ranked keys (Volcano with the DRF plugin): the queue order, recomputed at each change ---------------
@jit(_nrt=False)
def _qcmp(qs, kind, a, b):
    """Queue order of qlist positions a, b: negative when a goes first (proportion's share, or HDRF's
    :func:`~fairalloc.fairshare.volcano.hdrf_compare`)."""
    if kind == _HDRF:
        return _hdrf_compare(qs.paths[a, :qs.plen[a]], qs.paths[b, :qs.plen[b]], qs.hshare, qs.hw, qs.hsat)
    return qs.qval[a] - qs.qval[b]


@jit(_nrt=False)
def _qbefore(ctx, a, b):
    """Whether qlist position ``a`` goes before ``b`` in the queue order (``ctx = (qs, kind)``, :func:`_qcmp`)."""
    return _qcmp(ctx[0], ctx[1], a, b) < 0


#: qs.order[:n] sorted by :func:`_qbefore`, stable (ties keep qlist order): :func:`fairalloc._merge_sort.merge_sort`
_sort_queues = sorter(_qbefore, "queues")


@jit(_nrt=False)
def _insertion_sort(qs, kind, n):
    """qs.order[:n] sorted by :func:`_qcmp` from its previous order: :math:`O(n)` plus the number of pairs out
    of order, i.e. linear after a change that moves a few queues (a start)."""
    a = qs.order
    for x in range(1, n):
        y = a[x]
        j = x - 1
        while j >= 0 and _qcmp(qs, kind, y, a[j]) < 0:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = y


@jit
def rank_queues(qs, kind, moved=-1):
    r"""The dense rank of every queue of ``qlist`` in the queue order, into ``qs.rank`` (equal queues, equal
    ranks): Volcano's proportion share :math:`\max_r a_{qr}/d_{qr}` of the deserved resources
    (``volcano-drf``), or HDRF's ``compareQueues`` after :func:`~fairalloc.fairshare.volcano.hdrf_update_into`
    on the jobs' holdings and requests (held + pending) (``volcano-hdrf``).

    ``moved``: after a start, the qlist position of the queue that started it: ``volcano-drf`` recomputes
    that queue's share only (the others' holdings and deserved resources did not change) and both re-sort
    from the previous order by insertion (linear when few queues move); -1 (a session): every value, and a
    merge sort from the tree order. The ranks do not depend on the order among equal queues. Returns whether
    any queue's rank changed, also kept in ``flags[1]`` (0: changed)."""
    n = qs.qlist.shape[0]
    if kind == _HDRF:
        for v in range(qs.hleaf.shape[0]):
            if qs.hleaf[v]:
                for r in range(qs.usage.shape[1]):
                    qs.hreq[v, r] = qs.usage[v, r] + qs.hpend[v, r]
        _hdrf_update(qs.hptr, qs.hch, qs.hpre, qs.hleaf, qs.usage, qs.hreq, qs.tot, qs.eps[0], qs.halloc,
                     qs.hshare, qs.hsat)
    elif moved >= 0:
        qs.qval[moved] = _vshare(qs.usage[qs.qlist[moved]], qs.deserved[moved], qs.eps[0])
    else:
        for p in range(n):
            qs.qval[p] = _vshare(qs.usage[qs.qlist[p]], qs.deserved[p], qs.eps[0])
    if moved >= 0:
        _insertion_sort(qs, kind, n)
    else:
        for p in range(n):
            qs.order[p] = p
        _sort_queues(qs.order, qs.tmp, 0, n, (qs, kind))
    rank = 0.0
    moved_any = qs.rank[qs.order[0]] != 0.0
    qs.rank[qs.order[0]] = 0.0
    for x in range(1, n):
        if _qcmp(qs, kind, qs.order[x - 1], qs.order[x]) != 0.0:
            rank += 1.0
        if qs.rank[qs.order[x]] != rank:
            moved_any = True
        qs.rank[qs.order[x]] = rank
    qs.flags[1] = 0 if moved_any else 1
    return moved_any


# ---- Kueue's Admission Fair Sharing: LocalQueue usage with a half-life ---------------------------------------
@jit(_nrt=False)
def _afs_value(qs, u):
    v = qs.node[u]
    return _afs_usage(qs.afs_c[v], qs.afs_zero, qs.w[v], qs.omega)


@jit(_nrt=False)
def afs_heads(qs, q):
    """ClusterQueue node q's head: its pending LocalQueue of lowest AFS usage (ties: pending longest, then
    the lower index), into ``qs.head[q]`` (-1: none pending)."""
    best = -1
    bval = 0.0
    for j in range(qs.mptr[q], qs.mptr[q + 1]):
        u = qs.members[j]
        if qs.npend[u] <= 0:
            continue
        a = _afs_value(qs, u)
        if best < 0 or a < bval or (a == bval and (qs.since[u] < qs.since[best]
                                                   or (qs.since[u] == qs.since[best] and u < best))):
            best = u
            bval = a
    qs.head[q] = best


@jit(_nrt=False)
def _afs_admit(qs, u, d):
    r"""A workload of LocalQueue u admitted now (``updateAfsConsumedUsage`` on admission): its consumed
    resources decay to the admitted usage over the time since its last update, plus the entry penalty
    :math:`\alpha(\text{interval}, h)\,d`; then its ClusterQueue's head again."""
    v = qs.node[u]
    now = qs.afs_now[0]
    dt = now - qs.afs_t[v]
    if dt < 0.0:
        dt = 0.0
    _decay(qs.afs_c[v], qs.usage[v], dt, qs.afs_par[0], qs.afs_c[v])
    for r in range(d.shape[0]):
        qs.afs_c[v, r] = qs.afs_c[v, r] + qs.afs_par[1] * d[r]
    qs.afs_t[v] = now
    qs.npend[u] -= 1
    afs_heads(qs, qs.queue[u])


@jit(_nrt=False)
def _afs_session(qs, now):
    """AFS at the start of a pass at ``now``: the samples every interval up to now, in one step per
    LocalQueue (the usage was constant since the previous pass, and Eq. 6 with a constant usage composes),
    each sample seeing the usage held just before the events of its instant (the ends at ``now`` added
    back); returns whether the order may have changed."""
    qs.afs_now[0] = now
    step = qs.afs_par[2]
    s = math.floor(now / step) * step
    changed = qs.flags[0] != 0
    g, k = qs.afs_c.shape
    if s > qs.afs_par[3]:
        for u in range(qs.node.shape[0]):
            v = qs.node[u]
            dt = s - qs.afs_t[v]
            if dt < 0.0:
                dt = 0.0
            for r in range(k):
                qs.work[r] = qs.usage[v, r] + qs.afs_rel[v, r]
            _decay(qs.afs_c[v], qs.work, dt, qs.afs_par[0], qs.afs_c[v])
            qs.afs_t[v] = s
        qs.afs_par[3] = s
        changed = True
    for v in range(g):
        for r in range(k):
            qs.afs_rel[v, r] = 0.0
    if changed:
        for q in range(g):
            if qs.mptr[q + 1] > qs.mptr[q]:
                afs_heads(qs, q)
        qs.flags[0] = 0
    return changed


@jit
def queue_session(qs, kind, totals, now):
    """At the start of a pass at ``now``: Volcano's deserved resources (:func:`volcano_session`), the ranked
    keys' queue order (:func:`rank_queues`) after a submission or an end, Kueue AFS's samples
    (:func:`_afs_session`). Returns whether every key must be recomputed."""
    if qs is None:
        return False
    if kind == _VOLCANO:                       # the keys read the deserved resources: anew when they moved
        return volcano_session(qs, totals) == 1
    if kind == _VOLCANO_DRF:                   # the keys read the ranks only: anew when a rank moved
        if volcano_session(qs, totals) >= 0:
            return rank_queues(qs, kind, np.int64(-1))      # (not the default: one compiled signature)
        return False
    if kind == _HDRF:
        if qs.flags[0] == 0:
            return False
        qs.flags[0] = 0
        return rank_queues(qs, kind, np.int64(-1))
    if kind == _AFS:
        return _afs_session(qs, now)
    return False


# ---- the Python side ----------------------------------------------------------------------------------
#: How each policy reads an account tree: the fields it uses (``weight`` everywhere).
POLICY_TREES = {"kueue": ("nominal_quota", "borrowing_limit", "lending_limit", "weight"),
                "yarn": ("min_share", "max_share", "weight"),
                "mesos": ("weight",),
                "volcano": ("weight", "guarantee", "capability"),
                "volcano-drf": ("weight", "guarantee", "capability"),
                "volcano-hdrf": ("hdrf_weight",),
                "kueue-afs": ("nominal_quota", "borrowing_limit", "lending_limit", "weight")}


def _records(tree: AccountTree) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tree back as records (accounts, users), fields included."""
    res = tree.resources
    accounts, users = [], []
    for v in range(1, tree.n_nodes):
        rec: dict[str, Any] = {}
        if tree.is_user[v]:
            rec["user"] = tree.names[v]
            rec["account"] = tree.names[tree.parent[v]]
        else:
            rec["account"] = tree.names[v]
            rec["parent"] = tree.names[tree.parent[v]]
        rec["shares"] = "parent" if tree.use_parent[v] else float(tree.raw_shares[v])
        for name, (_, shape, _) in NODE_ATTRIBUTES.items():
            a = tree.attribute(name)
            if shape == "per_resource":
                row = a[v]
                vals = {res[k]: float(row[k]) for k in range(len(res)) if not np.isnan(row[k])}
                if vals:
                    rec[name] = vals
            elif shape == "bool":
                if a[v] >= 0:
                    rec[name] = bool(a[v])
            elif not np.isnan(a[v]):
                rec[name] = float(a[v])
        (users if tree.is_user[v] else accounts).append(rec)
    return accounts, users


def normalize_tree(policy: str, tree: AccountTree | None, n_users: int, resources: Sequence[str],
                   totals: np.ndarray, weights: Any = None) -> AccountTree:
    """The account tree a policy runs on, with users ``"0" .. str(n_users - 1)``.

    * No tree (or users directly under ``root``): each such user is a queue of its own (an account
      ``q<name>`` holding it, weight ``weights[u]``, default 1).
    * An account's weight is its ``weight`` field, else its ``shares`` (a Slurm-style tree's shares
      become the queues' weights).
    * Kueue: a tree with no ``nominal_quota`` anywhere gets one cohort ``cluster`` holding the cluster's
      capacity as its nominal quota, above every top-level account (the ClusterQueues then borrow all
      they use from it; one ClusterQueue per user is DRF).

    Parameters
    ----------
    policy : {"kueue", "kueue-afs", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf"}
    tree : AccountTree or None
    n_users : int
    resources : sequence of str
        The cluster's resource names (the tree's per-resource fields must use these names).
    totals : ndarray (K,)
    weights : array_like (n_users,), optional

    Raises
    ------
    InvalidInstanceError
        A user of the workload missing from the tree, per-resource fields on other resources, nested
        queues the simulator does not model (YARN, Mesos, Volcano's proportion: a queue with child queues;
        Kueue: a cohort inside a cohort; ``volcano-hdrf`` takes any depth), a weight that is not positive
        where the system refuses it.
    """
    w = np.ones(n_users) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n_users,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = int(np.argmax(~np.isfinite(w) | (w < 0))) if w.shape == (n_users,) else 0
        raise InvalidInstanceError(f"weights[{bad}]={w.ravel()[bad] if w.size else None!r}: weights must be "
                                   f"{n_users} finite numbers >= 0", argument="weights", index=(bad,),
                                   value=float(w.ravel()[bad]) if w.size else None)
    res = [str(r) for r in resources]
    if tree is None:
        accounts: list[dict[str, Any]] = []
        users = [{"user": str(u), "account": "root"} for u in range(n_users)]
    else:
        if tree.resources and list(tree.resources) != res:
            extra = [r for r in tree.resources if r not in res]
            if extra:
                raise InvalidInstanceError(f"accounts: the tree's resources {list(tree.resources)} are not the "
                                           f"cluster's {res} ({extra[0]!r} unknown)", argument="accounts",
                                           value=extra[0])
        accounts, users = _records(tree)
        known = {r["user"] for r in users}
        missing = [u for u in range(n_users) if str(u) not in known]
        if missing:
            raise InvalidInstanceError(f"accounts: user {missing[0]!r} of the workload is not in the account tree "
                                       f"({len(missing)} missing); its users are named by the workload's user ids",
                                       argument="accounts", index=(missing[0],), value=str(missing[0]))
    names = {r["account"] for r in accounts}
    quotas = any("nominal_quota" in r for r in accounts)
    loose = [r["user"] for r in users if r["account"] == "root"]
    if policy in ("kueue", "kueue-afs") and quotas and loose:
        raise InvalidInstanceError(f"accounts: LocalQueue (user) {loose[0]!r} is directly under root in a tree with "
                                   "quotas; put it under a ClusterQueue account (a ClusterQueue of its own would have "
                                   "no quota and admit nothing)", argument="accounts", value=loose[0])
    for r in accounts:
        if "weight" not in r and r["shares"] != "parent":
            r["weight"] = r["shares"]
    for r in users:
        if r["account"] == "root":
            q = f"q{r['user']}"
            while q in names:
                q = "_" + q
            names.add(q)
            u = int(r["user"]) if r["user"].isdigit() and int(r["user"]) < n_users else None
            accounts.append({"account": q, "parent": "root", "weight": float(w[u]) if u is not None else 1.0})
            if policy == "volcano-hdrf":
                accounts[-1]["hdrf_weight"] = accounts[-1]["weight"]
            r["account"] = q
    parent = {r["account"]: r["parent"] for r in accounts}
    has_child = {p for p in parent.values()}
    if policy in ("yarn", "mesos", "volcano", "volcano-drf"):
        nested = [a for a, p in parent.items() if p != "root"]
        if nested:
            raise InvalidInstanceError(f"accounts: {policy} queue {nested[0]!r} is inside queue {parent[nested[0]]!r}; "
                                       "the simulator ranks one level of queues (flatten the tree)",
                                       argument="accounts", value=nested[0])
    if policy in ("kueue", "kueue-afs"):
        if not quotas:
            c = "cluster"
            while c in names:
                c = "_" + c
            for r in accounts:
                if r["parent"] == "root":
                    r["parent"] = c
            accounts.insert(0, {"account": c, "parent": "root",
                                "nominal_quota": {res[k]: float(totals[k]) for k in range(len(res))}})
            parent = {r["account"]: r["parent"] for r in accounts}
            has_child = set(parent.values())
        for a, p in parent.items():
            if a in has_child and p != "root":
                raise InvalidInstanceError(f"accounts: cohort {a!r} is inside cohort {p!r}; the simulator ranks "
                                           "ClusterQueues within one level of cohorts", argument="accounts", value=a)
    return AccountTree(accounts + users, resources=res, source=getattr(tree, "_source", "<accounts>"))


def build_queues(policy: str, tree: AccountTree, n_users: int, totals: np.ndarray, *,
                 excluded: Sequence[str] = (), eps: float | None = None, admission: Any = None) -> QueueState:
    """The :class:`QueueState` of ``policy`` on a tree from :func:`normalize_tree`.

    Parameters
    ----------
    policy : {"kueue", "kueue-afs", "yarn", "mesos", "volcano", "volcano-drf", "volcano-hdrf"}
    tree : AccountTree
        Users ``"0" .. str(n_users - 1)`` each under an account (their queue).
    n_users : int
    totals : ndarray (K,)
        The cluster's totals (Kueue: quotas above them are refused unless the tree says so).
    excluded : sequence of str
        Mesos: resource names left out of the shares (``--fair_sharing_excluded_resource_names``).
    eps : float, optional
        Volcano's ``minResource`` in the cluster's units (default :math:`10^{-9}` of the smallest total).
    admission : AdmissionFairSharing, optional
        ``kueue-afs``: the half-life, sampling interval and resource weights (default
        :class:`~fairalloc.fairshare.kueue.AdmissionFairSharing`'s).
    """
    if eps is None:
        eps = 1e-9 * float(np.min(totals))
    _fsjit.register()                              # the fairshare rules the compiled keys call
    k = len(totals)
    g = tree.n_nodes
    idx = tree.user_index([str(u) for u in range(n_users)])
    node = np.array(tree.user_nodes, dtype=np.int64)[idx]
    parent = np.array(tree.parent, dtype=np.int64)
    home = parent[node].copy()
    ranked = policy in ("volcano-drf", "volcano-hdrf")
    queue = np.zeros(n_users, np.int64) if ranked else home      # ranked keys: one group, every key moves
    order = np.argsort(queue, kind="stable")
    counts = np.bincount(queue, minlength=g)
    mptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    members = order.astype(np.int64)
    quota, limit, borrow, lam = (np.zeros((g, k)) for _ in range(4))
    w = np.ones(g)
    excl = np.zeros(k, np.bool_)
    vol = hdrf = afs = None
    depth = 1
    for v in range(g):
        d, x = 0, v
        while parent[x] >= 0:
            d, x = d + 1, parent[x]
        depth = max(depth, d + 1)
    if policy in ("kueue", "kueue-afs"):
        from ..fairshare.kueue import AdmissionFairSharing, KueueQueues

        if policy == "kueue-afs":
            afs = admission if admission is not None else AdmissionFairSharing()

        kq = KueueQueues(tree, capacity=totals)
        quota, limit, borrow = kq.subtree_quota, kq.lending, kq.borrowing
        lam, w = kq.lendable, kq.weight
        group_of = kq.group_of
    else:
        group_of = np.arange(k, dtype=np.int64)
        if policy == "yarn":
            from ..fairshare.yarn import YarnQueues

            yq = YarnQueues(tree)
            quota, limit, w = yq.min_share, yq.max_share, yq.weight
        elif policy in ("volcano", "volcano-drf"):
            from ..fairshare.volcano import VolcanoQueues

            vq = VolcanoQueues(tree, totals, resources=tree.resources, eps=eps)
            vol = vq
        elif policy == "volcano-hdrf":
            from ..fairshare.volcano import VolcanoHDRF

            hdrf = VolcanoHDRF(tree, totals, resources=tree.resources, eps=eps)
        else:
            from ..fairshare.mesos import MesosSorter

            ms = MesosSorter(tree, totals, resources=tree.resources, excluded=list(excluded))
            w = ms.weight
            excl = np.asarray(ms.excluded, dtype=np.bool_)
    return QueueState(node=node, queue=queue, mptr=mptr, members=members, parent=parent, usage=np.zeros((g, k)),
                      nrun=np.zeros(g, np.int64), quota=np.array(quota, dtype=float),
                      limit=np.array(limit, dtype=float), borrow=np.array(borrow, dtype=float),
                      lam=np.array(lam, dtype=float), group_of=np.asarray(group_of, dtype=np.int64),
                      w=np.array(w, dtype=float), excluded=excl, work=np.zeros(k), save=np.zeros((depth + 1, k)),
                      iwork=np.zeros(k, np.int64), **_volcano_arrays(vol, g, k, eps, hdrf, home),
                      **_rank_arrays(hdrf, home, g, k, n_users), **_afs_arrays(afs, g, n_users, k, tree.resources),
                      tot=np.array(totals, dtype=float),
                      dprev=np.zeros((len(vol.queues) if vol is not None else 1, k)))


def _volcano_arrays(vol: Any, g: int, k: int, eps: float, hdrf: Any = None, home: Any = None) -> dict:
    """The Volcano fields of :class:`QueueState` (placeholders for the other policies; HDRF: its queues)."""
    if vol is None:
        z = np.zeros((1, k))
        qlist, qpos = np.zeros(1, np.int64), np.full(g, -1, np.int64)
        if hdrf is not None:                   # HDRF's queues: the accounts holding jobs, in node order
            qlist = np.unique(home).astype(np.int64)
            qpos[qlist] = np.arange(len(qlist))
        return dict(qlist=qlist, qpos=qpos, qw=np.ones(1), guar=z, rcap=z.copy(),
                    pend=z.copy(), req=z.copy(), deserved=z.copy(), flags=np.array([1, 0], np.int64),
                    eps=np.array([float(eps)]))
    q = len(vol.queues)
    qpos = np.full(g, -1, np.int64)
    qpos[vol.queues] = np.arange(q)
    return dict(qlist=np.array(vol.queues, dtype=np.int64), qpos=qpos, qw=np.array(vol.weight, dtype=float),
                guar=np.array(vol.guarantee, dtype=float), rcap=np.array(vol.real_capability, dtype=float),
                pend=np.zeros((q, k)), req=np.zeros((q, k)), deserved=np.zeros((q, k)), flags=np.array([1, 0], np.int64),
                eps=np.array([float(eps)]))


def _rank_arrays(hdrf: Any, home: np.ndarray, g: int, k: int, n: int) -> dict:
    """The ranked keys' fields of :class:`QueueState` (``home`` each user's queue; HDRF's tree when given)."""
    qn = max(g, 1)
    out = dict(home=np.asarray(home, dtype=np.int64), rank=np.zeros(qn), order=np.zeros(qn, np.int64),
               tmp=np.zeros(qn, np.int64), qval=np.zeros(qn), hptr=np.zeros(2, np.int64), hch=np.zeros(1, np.int64),
               hpre=np.zeros(1, np.int64), hleaf=np.zeros(1, np.bool_), hw=np.ones(1), hpend=np.zeros((1, k)),
               hreq=np.zeros((1, k)), halloc=np.zeros((1, k)), hshare=np.zeros(1), hsat=np.zeros(1, np.bool_),
               paths=np.zeros((1, 1), np.int64), plen=np.ones(1, np.int64))
    if hdrf is None:
        return out
    t = hdrf.tree
    qlist = np.unique(home).astype(np.int64)
    paths = [hdrf.path(int(v)) for v in qlist]
    depth = max(len(p) for p in paths)
    pa = np.zeros((len(qlist), depth), np.int64)
    for i, p in enumerate(paths):
        pa[i, :len(p)] = p
    out.update(hptr=hdrf.child_ptr, hch=hdrf.children if len(hdrf.children) else np.zeros(1, np.int64),
               hpre=hdrf.preorder, hleaf=np.array(t.is_user, dtype=np.bool_), hw=np.asarray(hdrf.weight, dtype=float),
               hpend=np.zeros((g, k)), hreq=np.zeros((g, k)), halloc=np.zeros((g, k)), hshare=np.zeros(g),
               hsat=np.zeros(g, np.bool_), paths=pa, plen=np.array([len(p) for p in paths], np.int64))
    return out


def _afs_arrays(afs: Any, g: int, n: int, k: int, resources: Sequence[str] = ()) -> dict:
    """Kueue AFS's fields of :class:`QueueState` (an :class:`~fairalloc.fairshare.kueue.AdmissionFairSharing`,
    or placeholders)."""
    par = np.zeros(4)
    omega = np.ones(k)
    if afs is not None:
        par[:3] = afs.tau, afs.entry_alpha, afs.sampling_interval
        omega = afs.weights_for(list(resources))
    return dict(afs_c=np.zeros((g, k)), afs_t=np.zeros(g), afs_rel=np.zeros((g, k)), afs_zero=np.zeros(k),
                omega=np.asarray(omega, dtype=float), afs_par=par, afs_now=np.zeros(1), npend=np.zeros(n, np.int64),
                since=np.zeros(n, np.int64), seq=np.zeros(1, np.int64), head=np.full(g, -1, np.int64))
