"""Mesos' DRF sorter against Mesos' own tests and fairalloc's DRF.

Source: apache/mesos at c1b42f79d157aa900be5cbb0c1023f1479962aa7 (2024-08-23), src/tests/sorter_tests.cpp:
DRFSorterTest.DRF, .WDRF, .AllocationCountTieBreak, .DeepHierarchy and .HierarchicalAllocation; each state
below is one EXPECT_EQ(..., sorter.sort()) of those tests, with the allocations the test made before it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import mesos


def order(sorter, alloc, counts=None, active=None):
    t = sorter.tree
    return [sorter.paths[t.user_nodes[i]] for i in sorter.sort(alloc, counts=counts, active=active)]


def flat(names, totals, weights=None):
    recs = [{"user": n, **({} if weights is None or weights.get(n) is None else {"weight": weights[n]})} for n in names]
    return mesos.MesosSorter(AccountTree(recs), totals, resources=["cpus", "mem"])


def test_drf_sorter_test_drf():
    # cpus:100;mem:100; a <5,5>, b <6,6>: a, b; then c <1,1>, d <3,1>: c, d, a, b
    s = flat(["a", "b", "c", "d"], [100, 100])
    assert order(s, [[5, 5], [6, 6], [0, 0], [0, 0]], active=[True, True, False, False]) == ["a", "b"]
    assert order(s, [[5, 5], [6, 6], [1, 1], [3, 1]]) == ["c", "d", "a", "b"]
    # remove a, b gives back <4,4>: c .01, b .02, d .03
    s = flat(["b", "c", "d"], [100, 100])
    assert order(s, [[2, 2], [1, 1], [3, 1]]) == ["c", "b", "d"]
    # e <1,5> and the agent becomes cpus:50;mem:100: b .04, c .02, d .06, e .05
    s = flat(["b", "c", "d", "e"], [50, 100])
    assert order(s, [[2, 2], [1, 1], [3, 1], [1, 5]]) == ["c", "b", "e", "d"]
    # cpus:50;mem:200, f <5,1>, c += <0,15>: b .04, c .08, d .06, e .025, f .1; then d deactivated
    s = flat(["b", "c", "d", "e", "f"], [50, 200])
    alloc = [[2, 2], [1, 16], [3, 1], [1, 5], [5, 1]]
    assert order(s, alloc) == ["e", "b", "d", "c", "f"]
    assert order(s, alloc, active=[True, True, False, True, True]) == ["e", "b", "c", "f"]


def test_drf_sorter_test_wdrf():
    s = flat(["a", "b", "c", "d"], [100, 100], weights={"b": 2.0, "d": 10.0})
    # a .05, b .03 (weight 2), c .04, d .02 (<10,20> at weight 10)
    assert order(s, [[5, 5], [6, 6], [4, 4], [10, 20]]) == ["d", "b", "c", "a"]
    s = flat(["a", "c", "d", "e"], [100, 100], weights={"d": 10.0, "e": 0.1})
    # b removed, d gets <10,25> more: <20,45> at weight 10 -> .045; e <1,1> at weight 0.1 -> .1
    assert order(s, [[5, 5], [4, 4], [20, 45], [1, 1]]) == ["c", "d", "a", "e"]


def test_drf_sorter_test_allocation_count_tie_break():
    s = flat(["a", "b", "c", "d", "e"], [100, 100])
    same = [[3, 3]] * 5
    # allocation counts a, b, e = 1, d = 2, c = 3
    assert order(s, same, counts=[1, 1, 3, 2, 1]) == ["a", "b", "e", "d", "c"]
    # c gives all back (count stays 3): c first
    assert order(s, [[3, 3], [3, 3], [0, 0], [3, 3], [3, 3]], counts=[1, 1, 3, 2, 1]) == ["c", "a", "b", "e", "d"]
    # a deactivated, an allocation to it still counts (a = 2), then reactivated
    assert order(s, same, counts=[2, 1, 5, 2, 1], active=[False, True, True, True, True]) == ["b", "e", "d", "c"]
    assert order(s, same, counts=[2, 1, 5, 2, 1]) == ["b", "e", "a", "d", "c"]


def test_drf_sorter_test_deep_hierarchy_last_state():
    # the clients of DRFSorterTest.DRF nested at different depths: the order is the same
    recs = [{"account": "b"}, {"account": "bb", "parent": "b"}, {"account": "bbb", "parent": "bb"},
            {"account": "c"}, {"account": "cc", "parent": "c"}, {"account": "d"},
            {"account": "e"}, {"account": "e2", "parent": "e"}, {"account": "e3", "parent": "e2"},
            {"account": "e4", "parent": "e3"}, {"account": "e5", "parent": "e4"}, {"account": "f"},
            {"user": "b", "account": "bbb"}, {"user": "c", "account": "cc"}, {"user": "d", "account": "d"},
            {"user": "e", "account": "e5"}, {"user": "f", "account": "f"}]
    s = mesos.MesosSorter(AccountTree(recs), [50, 200], resources=["cpus", "mem"])
    got = [s.tree.user_names[i] for i in s.sort([[2, 2], [1, 16], [3, 1], [1, 5], [5, 1]])]
    assert got == ["e", "b", "d", "c", "f"]


def test_drf_sorter_test_hierarchical_allocation():
    # clients a, b/c, b/d on cpus:100;mem:100
    t = AccountTree([{"account": "b"}, {"user": "a"}, {"user": "c", "account": "b"}, {"user": "d", "account": "b"}])
    s = mesos.MesosSorter(t, [100, 100], resources=["cpus", "mem"])
    assert order(s, [[0, 0], [0, 0], [0, 0]]) == ["a", "b/c", "b/d"]
    assert order(s, [[6, 6], [0, 0], [0, 0]], counts=[1, 0, 0]) == ["b/c", "b/d", "a"]
    # b/c <4,4>, b/d <3,3>: b .07 > a .06; inside b, d .03 < c .04
    assert order(s, [[6, 6], [4, 4], [3, 3]], counts=[1, 1, 1]) == ["a", "b/d", "b/c"]
    assert order(s, [[8, 8], [4, 4], [3, 3]], counts=[2, 1, 1]) == ["b/d", "b/c", "a"]
    # b/e/f added: role e with share 0 first in b; f gets <3.5,3.5>: b .105 > a .08; in b: d .03, e .035, c .04
    t2 = AccountTree([{"account": "b"}, {"account": "e", "parent": "b"}, {"user": "a"}, {"user": "c", "account": "b"},
                      {"user": "d", "account": "b"}, {"user": "f", "account": "e"}])
    s2 = mesos.MesosSorter(t2, [100, 100], resources=["cpus", "mem"])
    assert order(s2, [[8, 8], [4, 4], [3, 3], [0, 0]], counts=[2, 1, 1, 0]) == ["b/e/f", "b/d", "b/c", "a"]
    assert order(s2, [[8, 8], [4, 4], [3, 3], [3.5, 3.5]], counts=[2, 1, 1, 1]) == ["a", "b/d", "b/e/f", "b/c"]


def test_excluded_resources_and_zero_totals():
    # --fair_sharing_excluded_resource_names=gpus: a's 4 of 4 GPUs do not count; a resource with total 0 is skipped
    t = AccountTree.flat(["a", "b"])
    s = mesos.MesosSorter(t, [10, 100, 4], resources=["cpus", "mem", "gpus"], excluded=["gpus"])
    assert s.shares([[1, 10, 4], [2, 10, 0]])[t.user_nodes].tolist() == [0.1, 0.2]
    assert [t.user_names[i] for i in s.sort([[1, 10, 4], [2, 10, 0]])] == ["a", "b"]
    s0 = mesos.MesosSorter(t, [10, 100, 0], resources=["cpus", "mem", "gpus"])
    assert s0.shares([[1, 10, 0], [2, 10, 0]])[t.user_nodes].tolist() == [0.1, 0.2]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.integers(1, 6), min_size=2, max_size=2), min_size=2, max_size=3))
def test_offering_to_the_first_client_is_drf(vectors):
    # the allocator offers to the first client of sort(); with small tasks along each demand vector, the
    # allocation is fa.drf's within two tasks per resource
    d = np.array(vectors, float)
    n = len(d)
    steps = 60
    t = AccountTree.flat([f"u{i}" for i in range(n)])
    s = mesos.MesosSorter(t, [1.0, 1.0], resources=["cpus", "mem"])
    unit = d / d.max(axis=1, keepdims=True) / steps
    alloc = np.zeros((n, 2))
    counts = np.zeros(n)
    live = np.ones(n, bool)
    while live.any():
        i = s.sort(alloc, counts=counts, active=live)[0]
        if np.all(alloc.sum(axis=0) + unit[i] <= 1.0 + 1e-12):
            alloc[i] += unit[i]
            counts[i] += 1
        else:
            live[i] = False
    ref = fa.drf(fa.Instance(d / d.max(axis=1, keepdims=True), capacities=[1.0, 1.0])).allocation
    assert np.all(np.abs(alloc - ref) <= 2 * unit.max() + 1e-9)


def test_bad_input():
    t = AccountTree([{"user": "a", "weight": 0}])
    with pytest.raises(InvalidInstanceError, match="weight=0.0 of 'a': Mesos weights must be positive"):
        mesos.MesosSorter(t, [1, 1])
    with pytest.raises(InvalidInstanceError, match="names 'gpu', not a resource"):
        mesos.MesosSorter(AccountTree.flat(["a"]), [1, 1], excluded=["gpu"])
    with pytest.raises(InvalidInstanceError, match=r"totals\[0, 1\]=-1.0"):
        mesos.MesosSorter(AccountTree.flat(["a"]), [1, -1])
    s = mesos.MesosSorter(AccountTree.flat(["a"]), [1, 1])
    with pytest.raises(InvalidInstanceError, match=r"allocation\[0, 0\]=-2.0"):
        s.sort([[-2, 0]])
