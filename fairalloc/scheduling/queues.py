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
  :func:`fairalloc.fairshare.volcano.deserved_into`), as Volcano does when a scheduling session opens.

The key of a user depends on its queue's usage, so when one member of a queue starts or ends a task
every member with pending tasks is placed again (:func:`fairalloc.scheduling.core.regroup`).

:func:`build_queues` makes the state from an :class:`~fairalloc.accounts.AccountTree` whose users are
the simulator's users (named ``str(u)``); :func:`empty_queues` is the one-node placeholder every other
key carries.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from ..accounts import NODE_ATTRIBUTES, AccountTree
from ..errors import InvalidInstanceError
from ..fairshare import _jit as _fsjit
from ..fairshare.kueue import add_usage_into as _add_kueue
from ..fairshare.kueue import available as _available
from ..fairshare.kueue import remove_usage_into as _remove_kueue
from ..fairshare.volcano import deserved_into as _deserved
from ..fairshare.volcano import queue_allocatable as _allocatable
from ..fairshare.yarn import fits_in_max_share as _fits_max
from .._jit import jit

__all__ = ["QueueState", "empty_queues", "build_queues", "normalize_tree", "queue_take", "queue_release",
           "queue_admits", "queue_submit", "volcano_session", "POLICY_TREES"]

#: Key kinds that read a :class:`QueueState` (the ids of :mod:`fairalloc.scheduling.keys`).
_KUEUE, _YARN, _MESOS, _VOLCANO = 4, 5, 6, 7


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
    flags: np.ndarray       #: (1,) int64 Volcano: 1 when the requests changed since the last session
    eps: np.ndarray         #: (1,) Volcano: ``minResource``


def empty_queues(k: int) -> QueueState:
    """A one-node placeholder for the keys that read no queues (every array the right type).

    Registers the :mod:`fairalloc.fairshare` rules with numba (:func:`fairalloc.fairshare._jit.register`):
    the core's compiled functions call them, whichever key a state has."""
    _fsjit.register()
    z = np.zeros((1, k))
    i1 = np.zeros(1, np.int64)
    return QueueState(i1, i1.copy(), np.zeros(2, np.int64), i1.copy(), np.full(1, -1, np.int64), z, i1.copy(),
                      z.copy(), z.copy(), z.copy(), z.copy(), np.arange(k, dtype=np.int64), np.ones(1),
                      np.zeros(k, np.bool_), np.zeros(k), np.zeros((1, k)), np.zeros(k, np.int64),
                      i1.copy(), np.full(1, -1, np.int64), np.ones(1), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(),
                      np.zeros(1, np.int64), np.zeros(1))


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
    v = qs.node[u]
    if kind == _KUEUE:
        _add_kueue(v, d, qs.parent, qs.quota, qs.limit, qs.usage)
        node = v
        while node >= 0:
            qs.nrun[node] += 1
            node = qs.parent[node]
    else:
        _path_add(qs, v, d, np.int64(1))
        if kind == _VOLCANO:                   # pending -> allocated: the request is unchanged
            p = qs.qpos[qs.queue[u]]
            for r in range(d.shape[0]):
                qs.pend[p, r] = qs.pend[p, r] - d[r]


@jit(_nrt=False)
def queue_submit(qs, kind, u, d, count):
    """User u submits ``count`` tasks of demand d (Volcano: its queue's request grows)."""
    if kind == _VOLCANO:
        p = qs.qpos[qs.queue[u]]
        for r in range(d.shape[0]):
            qs.pend[p, r] = qs.pend[p, r] + count * d[r]
        qs.flags[0] = 1


@jit
def volcano_session(qs, totals):
    """Volcano: the proportion plugin's deserved resources from the queues' requests now (held + pending,
    :func:`fairalloc.fairshare.volcano.deserved_into`), as at the opening of a scheduling session; clears the
    stale flag. Returns whether it recomputed."""
    if qs.flags[0] == 0:
        return False
    for p in range(qs.qlist.shape[0]):
        v = qs.qlist[p]
        for r in range(totals.shape[0]):
            qs.req[p, r] = qs.usage[v, r] + qs.pend[p, r]
    _deserved(qs.qw, qs.req, qs.guar, qs.rcap, totals, qs.eps[0], qs.deserved)
    qs.flags[0] = 0
    return True


@jit(_nrt=False)
def queue_release(qs, kind, u, d, k):
    """k running tasks of demand d of user u end: the usage taken back (module docstring)."""
    v = qs.node[u]
    if kind == _KUEUE:
        for _ in range(k):
            _remove_kueue(v, d, qs.parent, qs.quota, qs.limit, qs.usage)
        node = v
        while node >= 0:
            qs.nrun[node] -= k
            node = qs.parent[node]
        _snap(qs, v)
    else:
        _path_add(qs, v, d, -k)
        if kind == _VOLCANO:
            qs.flags[0] = 1                    # the request shrank: deserved again at the next pass


@jit(_nrt=False)
def queue_admits(qs, kind, u, d):
    """Whether the rule admits user u's head task of demand d now (module docstring)."""
    if kind == _KUEUE:
        q = qs.queue[u]
        for r in range(d.shape[0]):
            if d[r] > 0.0 and d[r] > _available(q, r, qs.parent, qs.quota, qs.limit, qs.borrow, qs.usage):
                return False
        return True
    if kind == _YARN:
        return _fits_max(qs.queue[u], d, qs.parent, qs.usage, qs.limit)
    if kind == _VOLCANO:
        q = qs.queue[u]
        return _allocatable(qs.usage[q], d, qs.deserved[qs.qpos[q]], qs.eps[0])
    return True


# ---- the Python side ----------------------------------------------------------------------------------
#: How each policy reads an account tree: the fields it uses (``weight`` everywhere).
POLICY_TREES = {"kueue": ("nominal_quota", "borrowing_limit", "lending_limit", "weight"),
                "yarn": ("min_share", "max_share", "weight"),
                "mesos": ("weight",),
                "volcano": ("weight", "guarantee", "capability")}


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
    policy : {"kueue", "yarn", "mesos", "volcano"}
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
        queues the simulator does not model (YARN, Mesos, Volcano: a queue with child queues; Kueue: a
        cohort inside a cohort), a weight that is not positive where the system refuses it.
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
    if policy == "kueue" and quotas and loose:
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
            r["account"] = q
    parent = {r["account"]: r["parent"] for r in accounts}
    has_child = {p for p in parent.values()}
    if policy in ("yarn", "mesos", "volcano"):
        nested = [a for a, p in parent.items() if p != "root"]
        if nested:
            raise InvalidInstanceError(f"accounts: {policy} queue {nested[0]!r} is inside queue {parent[nested[0]]!r}; "
                                       "the simulator ranks one level of queues (flatten the tree)",
                                       argument="accounts", value=nested[0])
    if policy == "kueue":
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
                 excluded: Sequence[str] = (), eps: float | None = None) -> QueueState:
    """The :class:`QueueState` of ``policy`` on a tree from :func:`normalize_tree`.

    Parameters
    ----------
    policy : {"kueue", "yarn", "mesos", "volcano"}
    tree : AccountTree
        Users ``"0" .. str(n_users - 1)`` each under an account (their queue).
    n_users : int
    totals : ndarray (K,)
        The cluster's totals (Kueue: quotas above them are refused unless the tree says so).
    excluded : sequence of str
        Mesos: resource names left out of the shares (``--fair_sharing_excluded_resource_names``).
    eps : float, optional
        Volcano's ``minResource`` in the cluster's units (default :math:`10^{-9}` of the smallest total).
    """
    if eps is None:
        eps = 1e-9 * float(np.min(totals))
    _fsjit.register()                              # the fairshare rules the compiled keys call
    k = len(totals)
    g = tree.n_nodes
    idx = tree.user_index([str(u) for u in range(n_users)])
    node = np.array(tree.user_nodes, dtype=np.int64)[idx]
    parent = np.array(tree.parent, dtype=np.int64)
    queue = parent[node].copy()
    order = np.argsort(queue, kind="stable")
    counts = np.bincount(queue, minlength=g)
    mptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    members = order.astype(np.int64)
    quota, limit, borrow, lam = (np.zeros((g, k)) for _ in range(4))
    w = np.ones(g)
    excl = np.zeros(k, np.bool_)
    vol = None
    depth = 1
    for v in range(g):
        d, x = 0, v
        while parent[x] >= 0:
            d, x = d + 1, parent[x]
        depth = max(depth, d + 1)
    if policy == "kueue":
        from ..fairshare.kueue import KueueQueues

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
        elif policy == "volcano":
            from ..fairshare.volcano import VolcanoQueues

            vq = VolcanoQueues(tree, totals, resources=tree.resources, eps=eps)
            vol = vq
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
                      iwork=np.zeros(k, np.int64), **_volcano_arrays(vol, g, k, eps))


def _volcano_arrays(vol: Any, g: int, k: int, eps: float) -> dict:
    """The Volcano fields of :class:`QueueState` (placeholders for the other policies)."""
    if vol is None:
        z = np.zeros((1, k))
        return dict(qlist=np.zeros(1, np.int64), qpos=np.full(g, -1, np.int64), qw=np.ones(1), guar=z, rcap=z.copy(),
                    pend=z.copy(), req=z.copy(), deserved=z.copy(), flags=np.zeros(1, np.int64), eps=np.zeros(1))
    q = len(vol.queues)
    qpos = np.full(g, -1, np.int64)
    qpos[vol.queues] = np.arange(q)
    return dict(qlist=np.array(vol.queues, dtype=np.int64), qpos=qpos, qw=np.array(vol.weight, dtype=float),
                guar=np.array(vol.guarantee, dtype=float), rcap=np.array(vol.real_capability, dtype=float),
                pend=np.zeros((q, k)), req=np.zeros((q, k)), deserved=np.zeros((q, k)), flags=np.ones(1, np.int64),
                eps=np.array([float(eps)]))
