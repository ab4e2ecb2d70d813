"""The per-decision rules compile with numba from the same source and give the sources' numbers compiled.

A compiled layer (the simulator's policies) calls ``fairalloc.fairshare._jit.register()`` and then
``njit(rule)``; this checks that the rules with callees (Fair Tree's sibling order, the RUP update calling
SDRF's Eq. 6, the pie spin) compile, against the oracles of test_slurm / test_htcondor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc.accounts import AccountTree, subtree_sum_into
from fairalloc.fairshare import _jit, htcondor as hc, kueue as kq, mesos, slurm, volcano, yarn

numba = pytest.importorskip("numba")

from test_slurm import T244_EXPECTED, T244_RECORDS, T244_USAGE  # noqa: E402  (the transcribed oracle)


@pytest.fixture(scope="module")
def jit():
    _jit.register()
    return numba.njit


def test_fair_tree_compiled_matches_test24_4(jit):
    tree = AccountTree(T244_RECORDS, zero_shares="allow")
    usage = np.array([T244_USAGE[u] for u in tree.user_names], dtype=float)
    n = tree.n_nodes
    node_usage, lf, f = np.empty(n), np.empty(n), np.zeros(n)
    jit(subtree_sum_into)(tree.parent, tree.user_nodes, usage, node_usage)
    jit(slurm.level_fairshare_into)(tree.fs_parent, tree.is_user, tree.use_parent, tree.sibling_shares, node_usage, lf)
    jit(slurm.fair_tree_into)(tree.fs_child_ptr, tree.fs_children, tree.is_user, lf, tree.n_users, f,
                              np.empty(n, np.int64), np.empty(n, np.bool_))
    expected = {ln.split("|")[1]: ln.split("|")[7] for ln in T244_EXPECTED.strip().splitlines() if ln.split("|")[1]}
    for user, fs in expected.items():
        assert f"{f[tree.node(user, user=True)]:.6f}" == fs, user


@pytest.mark.slow          # ~3 CPU s of compilation; the values are tested in Python in test_htcondor
def test_htcondor_rules_compiled(jit):
    out = np.empty(1)
    jit(hc.rup_update_into)(np.array([0.5]), np.array([100.0]), 2 * 86400.0, 86400.0 / math.log(2), 0.5, out)
    assert out[0] == pytest.approx(75.125)                     # the manual's "about 75"
    n, jobs = 3, 50
    ptr = np.arange(0, (n + 1) * jobs, jobs, dtype=np.int64)
    use = np.zeros(n)
    left = jit(hc.negotiate_into)(np.array([5.0, 10.0, 20.0]), use, ptr, np.ones(n * jobs), 70.0, 70.0, math.inf,
                                  0.0, 1.0, np.zeros(n * jobs, np.bool_), np.empty(n), np.empty(n),
                                  np.empty(n, np.int64))
    assert use.tolist() == [40.0, 20.0, 10.0] and left == 0.0    # the manual's 4 : 2 : 1


@pytest.mark.slow          # ~2.5 CPU s of compilation; the values are tested in Python in test_kueue
def test_kueue_tournament_compiled_drf_example(jit):
    # the DRF paper's two users as ClusterQueues with nominal 0 under a cohort of <9 CPU, 18 GB>; one task
    # each admitted: A's next <1, 4> gives A 4/9, B's next <3, 1> gives B 2/3, so A wins (test_kueue's oracle)
    t = AccountTree([{"account": "all", "nominal_quota": {"cpu": 9, "mem": 18}}, {"account": "A", "parent": "all"},
                     {"account": "B", "parent": "all"}, {"user": "a", "account": "A"}, {"user": "b", "account": "B"}],
                    resources=["cpu", "mem"])
    k = kq.KueueQueues(t)
    u = k.usage([[1.0, 4.0], [3.0, 1.0]])
    n = t.n_nodes
    has = np.zeros(n, np.bool_)
    req = np.zeros((n, 2))
    for name, r in (("A", [1.0, 4.0]), ("B", [3.0, 1.0])):
        has[t.node(name)] = True
        req[t.node(name)] = r
    w = jit(kq.tournament_winner)(0, k.kind, k.child_ptr, k.children, k.parent, has, req, np.zeros(n), np.zeros(n),
                                  k.subtree_quota, k.lending, u, k.lendable, k.group_of, k.weight, True, True)
    assert t.names[w] == "A"
    assert jit(kq.available)(t.node("A"), 0, k.parent, k.subtree_quota, k.lending, k.borrowing, u) == 5.0


@pytest.mark.slow          # ~4 CPU s of compilation; the values are tested in Python in test_yarn
def test_yarn_rules_compiled(jit):
    out, free = np.empty(3), np.empty(3, np.bool_)
    jit(yarn.compute_shares_into)(np.ones(3), np.zeros(3), np.full(3, np.inf), np.ones(3, np.bool_), 10.0, True,
                                  out, free)
    assert out.tolist() == [4.0, 4.0, 4.0]                      # test_yarn: the code's over-allocation, by hand
    o = np.empty(2, np.int64)
    assert jit(yarn.drf_compare)(np.array([10.0, 5.0]), np.zeros(2), 1.0, 0.0, 0, np.array([40.0, 1.0]), np.zeros(2),
                                 1.0, 0.0, 1, np.array([100.0, 10.0]), o, o.copy()) == 1


@pytest.mark.slow          # ~5 CPU s of compilation; the values are tested in Python in test_mesos / test_volcano
def test_mesos_and_volcano_rules_compiled(jit):
    out = np.empty(4, np.int64)
    k = jit(mesos.sort_clients_into)(np.array([0, 3, 3, 3, 3]), np.array([1, 2, 3]),
                                     np.array([False, True, True, True]), np.array([True, True, False, True]),
                                     np.array([0, .2, .1, .1]), np.zeros(4, np.int64), np.arange(4), out)
    assert out[:k].tolist() == [3, 1]
    d = np.empty((2, 1))
    jit(volcano.deserved_into)(np.array([1.0, 3.0]), np.array([[10.0], [100.0]]), np.zeros((2, 1)),
                               np.full((2, 1), np.inf), np.array([40.0]), 0.1, d)
    assert d.ravel().tolist() == [10.0, 30.0]                   # hand: 10 then 30 (test_volcano)
    t = AccountTree([{"account": "n1"}, {"account": "n2"}, {"account": "n21", "parent": "n2"},
                     {"account": "n22", "parent": "n2"}, {"user": "j1", "account": "n1"},
                     {"user": "j21", "account": "n21"}, {"user": "j22", "account": "n22"}], resources=["cpu", "gpu"])
    h = volcano.VolcanoHDRF(t, [10.0, 10.0])
    n = t.n_nodes
    la, lr = np.zeros((n, 2)), np.zeros((n, 2))
    la[t.user_nodes] = [[0, 5], [5, 0], [0, 2.5]]
    lr[t.user_nodes] = [[0, 10], [10, 0], [0, 10]]
    a, s, sat = np.empty((n, 2)), np.empty(n), np.empty(n, np.bool_)
    jit(volcano.hdrf_update_into)(h.child_ptr, h.children, h.preorder, np.asarray(t.is_user), la, lr, h.total, 0.1,
                                  a, s, sat)
    assert s[t.node("n2")] == 0.25                              # hdrf.md's first example, by hand
