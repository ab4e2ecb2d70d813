r"""Mesos' hierarchical DRF sorter: which role (client) the allocator offers resources to next.

Source (read at apache/mesos ``c1b42f79d1``, 2024-08-23): ``src/master/allocator/mesos/sorter/drf/
sorter.{hpp,cpp}`` (``DRFSorter::sort``, ``calculateShare``, ``getWeight``, ``allocated``,
``Node::compareDRF``), ``src/master/master.cpp`` and ``weights_handler.cpp`` (weights must be positive),
``src/master/flags.cpp`` (``--fair_sharing_excluded_resource_names``); oracles from
``src/tests/sorter_tests.cpp``.

**The tree.** Roles are the *accounts* of an :class:`~fairalloc.accounts.AccountTree` (role ``a/b`` is
account ``b`` under ``a``) and clients the *users* (a client of role ``a`` that also has sub-roles is
Mesos' ``"."`` virtual leaf: a user under ``a``). ``weight`` (default 1, must be > 0) is the role's weight.

**Share** (``calculateShare``): a node's allocation is the sum over the clients below it; its share is

.. math:: s_v = \max_{r:\ T_r > 0,\ r \notin X} \frac{A_{v,r}}{T_r} \Big/ w_v

over the scalar resources of the cluster total :math:`T`, except the names in
``fair_sharing_excluded_resource_names`` :math:`X` (e.g. ``gpus``).

**Order** (``DRFSorter::sort``): at every node the children are sorted by share, then by *allocation
count* (how many allocations were made to the subtree: it equalises clients of equal share), then by
path (string order); inactive clients go last. The clients are listed depth first in that order: all
clients of a role with a lower share come before any client of a sibling role with a higher one.

**Relation to DRF and SDRF.** One level, equal weights: DRF's progressive filling order (the DRF paper's
mechanism, which Mesos implements); allocating to the first client repeatedly is DRF (tests check it
against :func:`fairalloc.drf`). The hierarchy applies DRF at each level to aggregate allocations: not
the HDRF of Bhattacharya et al. (no rescaling of children, compare :mod:`fairalloc.fairshare.volcano`).
No memory of past use (SDRF with :math:`\delta = 0`).

Examples
--------
Mesos' ``DRFSorterTest.DRF`` at its last state: cpus 50, mem 200; b <2, 2>, c <1, 16>, d <3, 1>,
e <1, 5>, f <5, 1>: shares .04, .08, .06, .025, .1, order e, b, d, c, f:

>>> from fairalloc.accounts import AccountTree
>>> t = AccountTree.flat(["b", "c", "d", "e", "f"])
>>> s = MesosSorter(t, [50.0, 200.0], resources=["cpus", "mem"])
>>> [t.user_names[i] for i in s.sort([[2, 2], [1, 16], [3, 1], [1, 5], [5, 1]], counts=[1, 2, 1, 1, 1])]
['e', 'b', 'd', 'c', 'f']
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..accounts import AccountTree, subtree_sum_into
from ..errors import InvalidInstanceError
from ._checks import no_parent_shares, node_scalar, user_matrix
from ._jit import callee

__all__ = ["MesosSorter", "shares_into", "node_share", "sort_clients_into"]


def shares_into(node_alloc, totals, excluded, weight, out) -> None:
    r"""Every node's share :math:`\max_r A_{v,r}/T_r / w_v` (``calculateShare``).

    Parameters
    ----------
    node_alloc : ndarray of float, shape (n_nodes, m)
        Allocation of each node's subtree.
    totals : ndarray of float, shape (m,)
        The cluster's totals (resources with a total <= 0 are skipped).
    excluded : ndarray of bool, shape (m,)
        ``fair_sharing_excluded_resource_names``.
    weight : ndarray of float, shape (n_nodes,)
    out : ndarray of float, shape (n_nodes,)

    Examples
    --------
    >>> out = np.empty(2)
    >>> shares_into(np.array([[5.0, 5.0], [10.0, 20.0]]), np.array([100.0, 100.0]), np.zeros(2, bool),
    ...             np.array([1.0, 10.0]), out); out.tolist()
    [0.05, 0.02]
    """
    for v in range(len(out)):
        out[v] = node_share(v, node_alloc, totals, excluded, weight)


@callee
def node_share(v: int, node_alloc, totals, excluded, weight) -> float:
    r"""Node ``v``'s share :math:`\max_r A_{v,r}/T_r / w_v` (``calculateShare``; :func:`shares_into` of one node).

    Parameters
    ----------
    v : int
        The node.
    node_alloc : ndarray of float, shape (n_nodes, m)
        :math:`A`: what each node's clients hold.
    totals : ndarray of float, shape (m,)
        :math:`T`: the cluster's totals (a resource of total 0 is left out).
    excluded : ndarray of bool, shape (m,)
        Resources left out of the share (the master's ``--fair_sharing_excluded_resource_names``).
    weight : ndarray of float, shape (n_nodes,)
        :math:`w`: the nodes' weights.

    Returns
    -------
    float

    Examples
    --------
    >>> float(node_share(1, np.array([[5.0, 5.0], [10.0, 20.0]]), np.array([100.0, 100.0]), np.zeros(2, bool),
    ...                  np.array([1.0, 10.0])))
    0.02
    """
    s = 0.0
    for r in range(len(totals)):
        if excluded[r] or totals[r] <= 0.0:
            continue
        x = node_alloc[v, r] / totals[r]
        if x > s:
            s = x
    return s / weight[v]


def sort_clients_into(child_ptr, children, is_leaf, active, share, count, path_rank, out) -> int:
    """Active clients in ``DRFSorter::sort`` order; returns how many were written to ``out``.

    Parameters
    ----------
    child_ptr, children : ndarray of int64
        Children in CSR form (node 0 the root).
    is_leaf : ndarray of bool, shape (n_nodes,)
        Clients.
    active : ndarray of bool, shape (n_nodes,)
        Active clients (ignored for roles).
    share : ndarray of float, shape (n_nodes,)
        :func:`shares_into`.
    count : ndarray of int64, shape (n_nodes,)
        Allocations made to each node's subtree.
    path_rank : ndarray of int64, shape (n_nodes,)
        Rank of each node's path in string order.
    out : ndarray of int64, shape (n_nodes,)
        Receives client nodes.

    Examples
    --------
    Root with clients 1 (share .2), 2 (share .1, inactive), 3 (share .1): 3, 1:

    >>> out = np.empty(4, np.int64)
    >>> k = sort_clients_into(np.array([0, 3, 3, 3, 3]), np.array([1, 2, 3]), np.array([False, True, True, True]),
    ...                       np.array([True, True, False, True]), np.array([0, .2, .1, .1]), np.zeros(4, np.int64),
    ...                       np.arange(4), out)
    >>> out[:k].tolist()
    [3, 1]
    """
    n = len(is_leaf)
    stack = np.empty(n, dtype=np.int64)
    top = 1
    stack[0] = 0
    k = 0
    while top > 0:
        top -= 1
        v = stack[top]
        if is_leaf[v]:
            out[k] = v
            k += 1
            continue
        lo, hi = child_ptr[v], child_ptr[v + 1]
        kids = children[lo:hi]
        m = hi - lo
        # keep active clients and roles; sort by (share, count, path), stable passes from the last key
        keep = np.empty(m, dtype=np.int64)
        c = 0
        for j in range(m):
            x = kids[j]
            if not is_leaf[x] or active[x]:
                keep[c] = x
                c += 1
        sel = keep[:c]
        key = np.empty(c)
        for j in range(c):
            key[j] = path_rank[sel[j]]
        o1 = np.argsort(key, kind="mergesort")
        s1 = sel[o1]
        for j in range(c):
            key[j] = count[s1[j]]
        o2 = np.argsort(key, kind="mergesort")
        s2 = s1[o2]
        for j in range(c):
            key[j] = share[s2[j]]
        o3 = np.argsort(key, kind="mergesort")
        s3 = s2[o3]
        for j in range(c - 1, -1, -1):
            stack[top] = s3[j]
            top += 1
    return k


class MesosSorter:
    r"""Mesos' DRF sorter over an :class:`~fairalloc.accounts.AccountTree` of roles and clients.

    Parameters
    ----------
    tree : AccountTree
        Accounts are roles, users are clients (module docstring).
    totals : array_like (m,)
        The cluster's scalar resource totals.
    resources : sequence of str, optional
        Column names (default the tree's, else ``cpus``, ``mem``, ...).
    excluded : sequence of str, optional
        ``--fair_sharing_excluded_resource_names`` (e.g. ``["gpus"]``); must name columns.

    Raises
    ------
    InvalidInstanceError
        A weight that is not > 0 (Mesos: "Weights must be positive"), ``FairShare=parent`` shares, an
        unknown excluded resource, negative totals.

    Examples
    --------
    Mesos' ``DRFSorterTest.HierarchicalAllocation``: a <6, 6>, b/c <4, 4>, b/d <3, 3> of <100, 100>: role b
    (0.07) comes after a (0.06), and in b, d (0.03) before c:

    >>> from fairalloc.accounts import AccountTree
    >>> t = AccountTree([{"account": "b"}, {"user": "a"}, {"user": "c", "account": "b"}, {"user": "d", "account": "b"}])
    >>> s = MesosSorter(t, [100, 100])
    >>> [s.paths[t.user_nodes[i]] for i in s.sort([[6, 6], [4, 4], [3, 3]])]
    ['a', 'b/d', 'b/c']
    """

    def __init__(self, tree: AccountTree, totals: Any, *, resources: Sequence[str] | None = None,
                 excluded: Sequence[str] = ()) -> None:
        no_parent_shares(tree, "Mesos")
        tot = np.asarray(totals, dtype=float).reshape(-1)
        if resources is None:
            resources = list(tree.resources) or (["cpus", "mem", "disk", "gpus"] + [f"r{k}" for k in range(4, len(tot))])[:len(tot)]
        self.resources = tuple(str(r) for r in resources)
        m = len(self.resources)
        self.totals = user_matrix("totals", tot.reshape(1, -1), 1, m, rows="rows")[0]
        unknown = [x for x in excluded if x not in self.resources]
        if unknown:
            raise InvalidInstanceError(f"excluded={list(excluded)!r} names {unknown[0]!r}, not a resource; resources: "
                                       f"{list(self.resources)}", argument="excluded", value=unknown[0])
        self.excluded = np.array([r in set(excluded) for r in self.resources], dtype=bool)
        w = node_scalar(tree, "weight", 1.0)
        bad = np.flatnonzero(w[1:] <= 0)
        if bad.size:
            v = int(bad[0]) + 1
            raise InvalidInstanceError(f"{tree.where(v)}: weight={float(w[v])!r} of {tree.names[v]!r}: Mesos weights must be positive "
                                       "(master.cpp: 'Weights must be positive')", argument="weight", index=(v,),
                                       value=float(w[v]))
        self.tree = tree
        self.weight = w
        paths = [""] * tree.n_nodes
        for v in tree.preorder[1:]:
            p = tree.parent[v]
            paths[v] = tree.names[v] if p == 0 else paths[p] + "/" + tree.names[v]
        self.paths = tuple(paths)
        order = sorted(range(tree.n_nodes), key=lambda v: paths[v])
        self.path_rank = np.empty(tree.n_nodes, dtype=np.int64)
        self.path_rank[order] = np.arange(tree.n_nodes)
        self.child_ptr = np.array(tree.fs_child_ptr, dtype=np.int64)
        self.children = np.array(tree.fs_children, dtype=np.int64)

    def node_allocation(self, allocation: Any) -> np.ndarray:
        """Per node, the allocation of its subtree, from each client's (n_users, m)."""
        a = user_matrix("allocation", allocation, self.tree.n_users, len(self.resources), rows="clients")
        out = np.empty((self.tree.n_nodes, a.shape[1]))
        for r in range(a.shape[1]):
            col = np.empty(self.tree.n_nodes)
            subtree_sum_into(self.tree.parent, self.tree.user_nodes, a[:, r].copy(), col)
            out[:, r] = col
        return out

    def shares(self, allocation: Any) -> np.ndarray:
        """Every node's share (:func:`shares_into`) at the clients' ``allocation``."""
        out = np.empty(self.tree.n_nodes)
        shares_into(self.node_allocation(allocation), self.totals, self.excluded, self.weight, out)
        return out

    def sort(self, allocation: Any, *, counts: Any = None, active: Any = None) -> list[int]:
        """Active clients (user numbers) in the order the allocator offers them resources (:func:`sort_clients_into`).

        Parameters
        ----------
        allocation : array_like (n_users, m)
        counts : array_like of int (n_users,), optional
            Allocations made to each client so far (default 0); a role's count is its clients' sum.
        active : array_like of bool (n_users,), optional
            Default all.
        """
        t = self.tree
        share = self.shares(allocation)
        c = np.zeros(t.n_users) if counts is None else np.asarray(counts, dtype=float)
        if c.shape != (t.n_users,) or np.any(c < 0):
            raise InvalidInstanceError(f"counts must be {t.n_users} non-negative integers, got {c.tolist()}",
                                       argument="counts", value=c.tolist())
        node_count = t.subtree_sum(c).astype(np.int64)
        act = np.ones(t.n_nodes, dtype=bool)
        if active is not None:
            a = np.asarray(active, dtype=bool)
            if a.shape != (t.n_users,):
                raise InvalidInstanceError(f"active must have shape ({t.n_users},), got {a.shape}", argument="active",
                                           value=a.shape)
            act[t.user_nodes] = a
        out = np.empty(t.n_nodes, dtype=np.int64)
        k = sort_clients_into(self.child_ptr, self.children, np.asarray(t.is_user), act, share, node_count,
                              self.path_rank, out)
        return [int(t.node_user[v]) for v in out[:k]]

    def __repr__(self) -> str:
        return f"MesosSorter({len(self.tree.account_names) - 1} roles, {self.tree.n_users} clients, totals={self.totals.tolist()})"
