"""Volcano's proportion, DRF and HDRF plugins against Volcano's own cases, hand computations and fa.max_min.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c (2026-08-20):
pkg/scheduler/plugins/{proportion/proportion.go, drf/drf.go}, pkg/scheduler/plugins/drf/hdrf_test.go
(TestHDRF: "rescaling test" and "blocking nodes test", expected allocations per job), docs/design/hdrf.md
(the two examples), volcano issue #1486 (proportion with capabilities: 100 CPUs, 100 Gi; A <80, 40>,
B <20, 60>), volcano#1083 (weight 0).

Volcano's TestHDRF asserts ``if equality.Semantic.DeepEqual(test.expected, job.Allocated) { t.Fatalf(...) }``:
it compares the whole map of expectations with one job's allocation and fails only when they are equal,
so it cannot fail; its "blocking nodes test" also puts pg32 in queue root-pg3-pg31. The expected
allocations it states are checked here (pg32 in its own queue root/pg3/pg32, as the queue list defines).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import FairallocWarning, InvalidInstanceError
from fairalloc.fairshare import mesos, volcano as vo


def queues(specs, resources=("cpu", "mem")):
    """(name, weight, guarantee dict, capability dict) queues under root, one user "u-<name>" each."""
    recs = []
    for name, w, g, c in specs:
        r = {"account": name}
        if w is not None:
            r["weight"] = w
        if g:
            r["guarantee"] = g
        if c:
            r["capability"] = c
        recs.append(r)
    recs += [{"user": "u-" + s[0], "account": s[0]} for s in specs]
    return AccountTree(recs, resources=list(resources))


# ---- proportion ---------------------------------------------------------------------------------
def test_deserved_by_hand():
    # weights 1, 1, 2 on 100 CPUs, requests 10, 100, 100: round 1 gives 25, 25, 50 -> the first is capped at
    # 10 and met, 15 come back; round 2 shares 15 over weights 1 and 2: 30, 60 (both capped? no: requests
    # 100): 25 + 5 = 30, 50 + 10 = 60; remaining 0 -> stop
    t = queues([("a", 1, None, None), ("b", 1, None, None), ("c", 2, None, None)], resources=("cpu",))
    q = vo.VolcanoQueues(t, [100.0])
    assert q.deserved([[10.0], [100.0], [100.0]]).ravel().tolist() == [10.0, 30.0, 60.0]
    # a guarantee of 40 for a: deserved = max(min(...), guarantee) even above its request
    t = queues([("a", 1, {"cpu": 40}, None), ("b", 1, None, None)], resources=("cpu",))
    q = vo.VolcanoQueues(t, [100.0])
    assert q.real_capability.ravel().tolist() == [100.0, 60.0]          # (100 - 40) + g
    d = q.deserved([[10.0], [100.0]])
    assert d.ravel().tolist() == [40.0, 60.0]
    # share = allocated/deserved; overused when deserved <= allocated everywhere
    assert q.shares([[20.0], [30.0]], d).tolist() == [0.5, 0.5]
    assert q.overused([[40.0], [61.0]], d).tolist() == [True, True]
    assert q.overused([[39.0], [61.0]], d).tolist() == [False, True]


def test_issue_1486_capabilities_per_resource():
    # 100 CPUs, 100 Gi; A capability <80, 40>, B <20, 60>, weights 1, both with large requests. The issue's
    # v1.2.0 code stopped A at <50, 40>; the current code caps each resource separately (MinDimensionResource):
    # by hand, each round halves what is left, and A tends to <80, 40>, B to <20, 60>
    t = queues([("A", 1, None, {"cpu": 80_000, "mem": 40_000}), ("B", 1, None, {"cpu": 20_000, "mem": 60_000})])
    q = vo.VolcanoQueues(t, [100_000.0, 100_000.0])                       # milli-CPU-like units, eps 0.1
    d = q.deserved([[1e9, 1e9], [1e9, 1e9]])
    np.testing.assert_allclose(d, [[80_000, 40_000], [20_000, 60_000]], atol=0.2)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(1, 200)), min_size=1, max_size=5), st.integers(1, 300))
def test_single_resource_proportion_is_weighted_max_min(specs, total):
    # one resource, no guarantees or capabilities: the rounds converge to weighted max-min with demands
    t = queues([(f"q{i}", w, None, None) for i, (w, _) in enumerate(specs)], resources=("cpu",))
    q = vo.VolcanoQueues(t, [float(total)], eps=1e-9)
    req = np.array([[float(r)] for _, r in specs])
    d = q.deserved(req)[:, 0]
    ref = fa.max_min(fa.Instance(req, capacities=[float(total)], weights=[float(w) for w, _ in specs])).allocation[:, 0]
    np.testing.assert_allclose(d, ref, atol=1e-6 * total)


def test_weight_zero_is_one_as_the_webhook_sets_it():
    t = queues([("a", 0, None, None), ("b", 1, None, None)], resources=("cpu",))
    with pytest.warns(FairallocWarning, match="Volcano's webhook sets a weight of 0 to 1"):
        q = vo.VolcanoQueues(t, [10.0])
    assert q.deserved([[100.0], [100.0]]).ravel().tolist() == [5.0, 5.0]


def test_queue_order_priority_then_share():
    t = queues([("a", 1, None, None), ("b", 1, None, None), ("c", 1, None, None)], resources=("cpu",))
    q = vo.VolcanoQueues(t, [30.0])
    d = q.deserved([[100.0], [100.0], [100.0]])                         # 10 each
    alloc = [[8.0], [2.0], [5.0]]
    assert [t.names[v] for v in q.order(alloc, d)] == ["b", "c", "a"]
    assert [t.names[v] for v in q.order(alloc, d, priority=[0, 0, 1])] == ["c", "b", "a"]


# ---- DRF plugin -----------------------------------------------------------------------------------
def test_drf_plugin_preemptable():
    # PreemptableFn: ls < rs or |ls - rs| <= 1e-6
    assert vo.drf_preemptable(0.2, 0.3) and vo.drf_preemptable(0.3, 0.3 + 5e-7)
    assert not vo.drf_preemptable(0.3 + 2e-6, 0.3)
    assert vo.share_of(0.0, 0.0) == 0.0 and vo.share_of(1.0, 0.0) == 1.0


# ---- HDRF ------------------------------------------------------------------------------------------
def test_hdrf_rescaling_against_the_plain_aggregate():
    # docs/design/hdrf.md's starvation example in numbers: n1 holds 5 of 10 GPUs; n2,1 5 of 10 CPUs, n2,2 2.5
    # GPUs. HDRF: M = min(0.5, 0.25), n2,1 scaled by 0.25/0.5 -> n2 holds <2.5, 2.5>, share 0.25 (hand). The
    # aggregate without rescaling (Mesos' sorter) gives n2 <5, 2.5>, share 0.5, a tie with n1.
    recs = [{"account": "n1"}, {"account": "n2"}, {"account": "n21", "parent": "n2"}, {"account": "n22", "parent": "n2"},
            {"user": "j1", "account": "n1"}, {"user": "j21", "account": "n21"}, {"user": "j22", "account": "n22"}]
    t = AccountTree(recs, resources=["cpu", "gpu"])
    alloc = [[0, 5], [5, 0], [0, 2.5]]
    st_ = vo.VolcanoHDRF(t, [10.0, 10.0]).update(alloc, [[0, 10], [10, 0], [0, 10]])
    assert st_.share[[t.node("n1"), t.node("n2")]].tolist() == [0.5, 0.25]
    assert st_.allocated[t.node("n2")].tolist() == [2.5, 2.5]
    ms = mesos.MesosSorter(t, [10.0, 10.0], resources=["cpu", "gpu"]).shares(alloc)
    assert ms[[t.node("n1"), t.node("n2")]].tolist() == [0.5, 0.5]


def _simulate(t, total, pods, per_pod):
    """Volcano's allocate action one pod at a time: the queue first in HDRF order whose next pod fits."""
    h = vo.VolcanoHDRF(t, total)
    n = t.n_users
    per = np.array([per_pod[u] for u in t.user_names], float)
    req = per * np.array([pods[u] for u in t.user_names], float)[:, None]
    alloc = np.zeros_like(per)
    left = np.array([pods[u] for u in t.user_names])
    queue = [int(t.parent[t.user_nodes[i]]) for i in range(n)]
    while True:
        state = h.update(alloc, req)
        fits = [i for i in range(n) if left[i] > 0 and np.all(alloc.sum(axis=0) + per[i] <= np.array(total) + 1e-9)]
        if not fits:
            return {u: alloc[i].tolist() for i, u in enumerate(t.user_names)}
        best = fits[0]
        for i in fits[1:]:
            if h.compare(state, queue[i], queue[best]) < 0:
                best = i
        alloc[best] += per[best]
        left[best] -= 1


def test_volcano_hdrf_test_rescaling_case():
    # hdrf_test.go "rescaling test": root/sci (50) pg1 10 pods <1 CPU, 1G>; root/eng (50)/dev (50) pg21 <1, 0>;
    # root/eng/prod (50) pg22 <0, 1G>; node <10, 10G, 50 pods>. Expected pg1 <5, 5G, 5 pods>, pg21 <5, 0, 5>,
    # pg22 <0, 5G, 5>.
    recs = [{"account": "sci", "hdrf_weight": 50}, {"account": "eng", "hdrf_weight": 50},
            {"account": "dev", "parent": "eng", "hdrf_weight": 50}, {"account": "prod", "parent": "eng", "hdrf_weight": 50},
            {"user": "pg1", "account": "sci"}, {"user": "pg21", "account": "dev"}, {"user": "pg22", "account": "prod"}]
    t = AccountTree(recs, resources=["cpu", "mem", "pods"])
    got = _simulate(t, [10.0, 10.0, 50.0], {"pg1": 10, "pg21": 10, "pg22": 10},
                    {"pg1": [1, 1, 1], "pg21": [1, 0, 1], "pg22": [0, 1, 1]})
    assert got == {"pg1": [5.0, 5.0, 5.0], "pg21": [5.0, 0.0, 5.0], "pg22": [0.0, 5.0, 5.0]}


def test_volcano_hdrf_test_blocking_case():
    # hdrf_test.go "blocking nodes test" (and hdrf.md's second example): root/pg1, root/pg2 (25) CPU jobs,
    # root/pg3 (25) > pg31 (50) CPU job, pg32 (50) memory job, root/pg4 (25) memory job, 30 pods each of
    # <1, 0> or <0, 1G>, node <30, 30G, 500 pods>. Expected: the three CPU jobs 10 each, pg32 and pg4 15G each
    # (without HDRF's saturation rule pg32 would get 2/3 of the memory).
    recs = [{"account": f"pg{k}", "hdrf_weight": 25} for k in (1, 2, 3, 4)]
    recs += [{"account": "pg31", "parent": "pg3", "hdrf_weight": 50}, {"account": "pg32", "parent": "pg3", "hdrf_weight": 50}]
    recs += [{"user": "j1", "account": "pg1"}, {"user": "j2", "account": "pg2"}, {"user": "j31", "account": "pg31"},
             {"user": "j32", "account": "pg32"}, {"user": "j4", "account": "pg4"}]
    t = AccountTree(recs, resources=["cpu", "mem", "pods"])
    cpu, mem = [1, 0, 1], [0, 1, 1]
    got = _simulate(t, [30.0, 30.0, 500.0], dict.fromkeys(["j1", "j2", "j31", "j32", "j4"], 30),
                    {"j1": cpu, "j2": cpu, "j31": cpu, "j32": mem, "j4": mem})
    assert got == {"j1": [10.0, 0.0, 10.0], "j2": [10.0, 0.0, 10.0], "j31": [10.0, 0.0, 10.0],
                   "j32": [0.0, 15.0, 15.0], "j4": [0.0, 15.0, 15.0]}


def test_internal_share_counts_saturated_resources_as_the_code_runs():
    # hdrf.md: "HDRF ignores saturated resources when computing the dominant share of any internal node".
    # updateHierarchicalShare uses calculateShare over every resource. 30 CPUs all used by n1, n2, n3,1 (10
    # each: saturated, CPU is not demanding); n3,2 holds 5 of 30 GPUs, n4 8. n3 = <10 CPU (unscaled), 5 GPU>:
    # the code's share is 10/30 = 0.333, the page's (GPU only) 5/30 = 0.167; n4 has 8/30 = 0.267. So the code
    # offers the next GPU to n4, the page's rule to n3.
    recs = [{"account": k} for k in ("n1", "n2", "n3", "n4")]
    recs += [{"account": "n31", "parent": "n3"}, {"account": "n32", "parent": "n3"}]
    recs += [{"user": "j1", "account": "n1"}, {"user": "j2", "account": "n2"}, {"user": "j31", "account": "n31"},
             {"user": "j32", "account": "n32"}, {"user": "j4", "account": "n4"}]
    t = AccountTree(recs, resources=["cpu", "gpu"])
    h = vo.VolcanoHDRF(t, [30.0, 30.0])
    big = [100.0, 0.0]
    s = h.update([[10, 0], [10, 0], [10, 0], [0, 5], [0, 8]], [big, big, big, [0, 100], [0, 100]])
    n3, n4 = t.node("n3"), t.node("n4")
    assert s.saturated[[t.node("n1"), t.node("n2"), t.node("n31")]].all() and not s.saturated[n3]
    assert s.share[n3] == pytest.approx(1 / 3) and s.share[n4] == pytest.approx(8 / 30)
    assert h.order(s, [n3, n4]) == [n4, n3]


def test_hdrf_weights_and_saturation_order():
    # weights divide shares at each level; a saturated queue goes last whatever its share
    recs = [{"account": "a", "hdrf_weight": 2}, {"account": "b"}, {"user": "ja", "account": "a"},
            {"user": "jb", "account": "b"}]
    t = AccountTree(recs, resources=["cpu", "gpu"])
    h = vo.VolcanoHDRF(t, [20.0, 10.0])                                # CPU stays demanding (10 of 20 used)
    s = h.update([[6, 0], [4, 0]], [[10, 0], [10, 0]])                 # a: 0.3/2 = 0.15 < b: 0.2
    assert h.order(s, [t.node("b"), t.node("a")]) == [t.node("a"), t.node("b")]
    s = h.update([[6, 0], [4, 0]], [[6, 0], [10, 0]])                  # a holds all it asked for: saturated
    assert s.saturated[t.node("a")] and h.order(s, [t.node("a"), t.node("b")]) == [t.node("b"), t.node("a")]


def test_bad_input():
    with pytest.warns(FairallocWarning, match="Volcano uses 1"):
        vo.VolcanoHDRF(AccountTree([{"account": "a", "hdrf_weight": 0.5}, {"user": "j", "account": "a"}]), [1.0, 1.0])
    with pytest.raises(InvalidInstanceError, match="hdrf_weight=0.0 .* must be > 0"):
        AccountTree([{"account": "a", "hdrf_weight": 0}])
    with pytest.raises(InvalidInstanceError, match=r"capability\[cpu\]=1.0 .* must be >= guarantee=2.0"):
        AccountTree([{"account": "a", "guarantee": {"cpu": 2}, "capability": {"cpu": 1}}], resources=["cpu"])
    t = queues([("a", 1, {"cpu": 8}, None), ("b", 1, {"cpu": 4}, None)], resources=("cpu",))
    with pytest.raises(InvalidInstanceError, match=r"guarantees of 'cpu' add up to 12.0, more than the cluster's 10.0"):
        vo.VolcanoQueues(t, [10.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = vo.VolcanoQueues(t, [10.0], allow_overcommit=True)
    assert q.real_capability.ravel().tolist() == [8.0, 4.0]            # max(10 - 12, 0) + g
    with pytest.raises(InvalidInstanceError, match=r"request\[0, 0\]=-1.0"):
        q.deserved([[-1.0], [0.0]])
