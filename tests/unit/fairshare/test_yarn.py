"""YARN's Fair Scheduler (DRF policy) against its documentation, hand computations and fairalloc's DRF/max-min.

Sources: apache/hadoop trunk, ComputeFairShares.java (3c22fd7d02), DominantResourceFairnessPolicy.java with
YARN-11482 (apache/hadoop PR #5607), FSAppAttempt.java, FSLeafQueue.java, FairScheduler.java,
DominantResourceCalculator.java; hadoop-yarn-site/src/site/markdown/FairScheduler.md ("Allocation file
format": minResources, weight (YARN-6754, apache/hadoop PR #2300), fairSharePreemptionTimeout/Threshold,
"Properties that can be placed in yarn-site.xml": cluster-utilization-threshold).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import yarn

INF = math.inf


def shares(weights, total, mins=None, maxs=None, active=None, steady=True):
    k = len(weights)
    out, free = np.empty(k), np.empty(k, bool)
    yarn.compute_shares_into(np.asarray(weights, float), np.asarray(mins if mins is not None else np.zeros(k), float),
                             np.asarray(maxs if maxs is not None else np.full(k, INF), float),
                             np.asarray(active if active is not None else np.ones(k), bool), float(total), steady,
                             out, free)
    return out.tolist()


# ---- ComputeFairShares ---------------------------------------------------------------------------
def test_fair_shares_hand_cases():
    # weights 1, 2, 1 with max 10 on 100: R = 30 (the bisection hits 30 + 60 + 10 = 100 exactly)
    assert shares([1, 2, 1], 100, maxs=[INF, INF, 10]) == [30.0, 60.0, 10.0]
    # a min share above the weighted share: 50 for the first, the rest split 1:1 -> 25, 25
    assert shares([1, 1, 1], 100, mins=[50, 0, 0]) == [50.0, 25.0, 25.0]
    # weight 0 (YARN-6754): fixed at its min share (or 0), the others share the rest
    assert shares([0, 1, 1], 100, mins=[10, 0, 0]) == [10.0, 45.0, 45.0]
    assert shares([0, 1], 100) == [0.0, 100.0]
    # max share 0 -> 0; an inactive queue gets 0 for instantaneous shares, its weight for steady ones
    assert shares([1, 1], 100, maxs=[0, INF]) == [0.0, 100.0]
    assert shares([1, 1], 100, active=[False, True], steady=False) == [0.0, 100.0]
    assert shares([1, 1], 100, active=[False, True], steady=True) == [50.0, 50.0]


def test_fair_shares_can_exceed_the_total_as_the_code_runs():
    # three equal queues on 10 vcores: doubling stops at R = 4 (3 * 4 = 12 >= 10); every bisection midpoint
    # in (0, 4) gives 3 * floor(mid) <= 9 < 10 and moves `left`, so the shares are taken at `right` = 4:
    # 4 + 4 + 4 = 12 > 10. The class comment speaks of an allocation whose shares sum to totalSlots.
    assert shares([1, 1, 1], 10) == [4.0, 4.0, 4.0]
    # on 10240 MB: floor(R) >= 3414 is needed for 3 floor(R) >= 10240: 3414 each, 2 MB over
    assert shares([1, 1, 1], 10240) == [3414.0] * 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 400)), min_size=1, max_size=5), st.integers(1, 1000))
def test_fair_shares_against_weighted_max_min(queues, total):
    # with min shares 0 and max shares M_i (integers), ComputeFairShares approximates the weighted max-min
    # division capped at M_i (fa.max_min); derivation: at the returned R the truncated shares sum to at least
    # T, at the bisection's lower end to less, so each share is within n units of the exact one
    w = np.array([q[0] for q in queues], float)
    caps = np.array([q[1] for q in queues], float)
    got = np.array(shares(w, total, maxs=caps))
    ref = fa.max_min(fa.Instance(caps.reshape(-1, 1), capacities=[float(total)], weights=w)).allocation[:, 0]
    assert np.all(np.abs(got - ref) <= len(w) + 1e-6)
    assert np.all(got <= caps)


def test_hierarchical_fair_shares_and_inactivity():
    # root > A (weight 3) > {a1, a2 (weight 2)}, B (weight 1) > {b1}; 120 vcores
    t = AccountTree([{"account": "A", "weight": 3}, {"account": "B"}, {"user": "a1", "account": "A"},
                     {"user": "a2", "account": "A", "weight": 2}, {"user": "b1", "account": "B"}], resources=["vcores"])
    y = yarn.YarnQueues(t)
    f = y.fair_shares([120], steady=True)
    # A 90, B 30; in A: 30, 60; b1 30
    assert f[[t.node("A"), t.node("B"), t.node("a1", user=True), t.node("a2", user=True), t.node("b1", user=True)],
             0].tolist() == [90.0, 30.0, 30.0, 60.0, 30.0]
    # B has no running application: instantaneous shares give A everything
    g = y.fair_shares([120], active=[True, True, False])
    assert g[[t.node("A"), t.node("B")], 0].tolist() == [120.0, 0.0]


# ---- the DRF comparator ---------------------------------------------------------------------------
def cmp(u1, u2, cluster, *, m1=None, m2=None, w1=1.0, w2=1.0, r1=0, r2=1):
    m = len(cluster)
    o = np.empty(m, np.int64)
    return yarn.drf_compare(np.asarray(u1, float), np.asarray(m1 if m1 is not None else np.zeros(m), float), w1, 0.0,
                            r1, np.asarray(u2, float), np.asarray(m2 if m2 is not None else np.zeros(m), float), w2,
                            0.0, r2, np.asarray(cluster, float), o, o.copy())


def test_comparator_by_the_page():
    c = [100.0, 10.0]
    # not needy: lower dominant share first (<10, 5> has 0.5, <40, 1> has 0.4)
    assert cmp([10, 5], [40, 1], c) == 1
    # equal dominant shares: the next resource decides
    assert cmp([50, 1], [50, 2], c) == -1
    # FairScheduler.md minResources: a queue below its min share (on its dominant resource) is offered
    # resources first; among needy ones "the smallest ratio between relevant resource usage and its minimum"
    assert cmp([90, 9], [10, 5], c, m1=[100, 10]) == -1
    assert cmp([10, 2], [10, 2], c, m1=[20, 4], m2=[40, 8]) == 1            # ratios 0.5 vs 0.25
    # weight 2 halves the ratios: <60, 6> at weight 2 (0.3) before <40, 4> at weight 1 (0.4)
    assert cmp([60, 6], [40, 4], c, w1=2.0) == -1


def test_yarn_11482_each_queue_neediness_from_its_own_usage():
    # before YARN-11482 the two-resource comparator computed s2's neediness from s1's usage; here s2 uses
    # <50, 5> >= its min <30, 3>, so it is not needy, and s1 (0.1) goes first. The old code found s2 needy
    # (s1's 10 < 30) and put it first.
    assert cmp([10, 1], [50, 5], [100, 10], m2=[30, 3]) == -1


def test_weight_zero_as_the_code_runs_not_as_the_page_says():
    # FairScheduler.md (YARN-6754): "A queue with weight 0 should receive resources after all non-zero weight
    # queues have received resources. If all weights are equal to 0, a queue with less resource usage should
    # receive resources." Under DRF: an idle zero-weight queue has 0/0 = NaN ratios, equal to anything, so
    # names decide ("a" before "b" although b has weight 1):
    c = [100.0, 10.0]
    assert cmp([0, 0], [30, 3], c, w1=0.0, r1=0, r2=1) == -1
    # once it uses something its ratios are infinite: after every weighted queue
    assert cmp([1, 0], [90, 9], c, w1=0.0) == 1
    # two zero-weight queues in use tie on the ratios (inf - inf = NaN): by name, not by usage
    assert cmp([90, 9], [1, 1], c, w1=0.0, w2=0.0, r1=0, r2=1) == -1


def test_key_agrees_with_comparator_for_positive_weights():
    rng = np.random.default_rng(3)
    c = np.array([100.0, 10.0, 4.0])
    for _ in range(300):
        u1, u2 = rng.integers(0, 6, 3) * c / 5, rng.integers(0, 6, 3) * c / 5
        m1, m2 = rng.integers(1, 4, 3) * c / 5, rng.integers(1, 4, 3) * c / 5
        w1, w2 = float(rng.integers(1, 4)), float(rng.integers(1, 4))
        k1, k2 = np.empty(4), np.empty(4)
        yarn.drf_key_into(u1, m1, w1, c, k1)
        yarn.drf_key_into(u2, m2, w2, c, k2)
        a, b = tuple(map(float, k1)), tuple(map(float, k2))
        by_key = (a > b) - (a < b)
        if by_key == 0:
            by_key = -1                                         # names: rank 0 before rank 1
        assert cmp(u1, u2, c, m1=m1, m2=m2, w1=w1, w2=w2) == by_key


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.integers(1, 6), min_size=2, max_size=2), min_size=2, max_size=3),
       st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_comparator_progressive_filling_is_drf(vectors, weights):
    # offering small containers (each user's demand vector, 1/steps of its dominant resource) to the first
    # schedulable in comparator order that still fits: fa.drf's weighted allocation within two containers
    d = np.array(vectors, float)
    n = len(d)
    w = np.array(weights[:n], float)
    steps = 60
    cluster = np.array([1.0, 1.0])
    unit = d / d.max(axis=1, keepdims=True) / steps
    used = np.zeros((n, 2))
    live = list(range(n))
    o = np.empty(2, np.int64)
    while live:
        best = live[0]
        for j in live[1:]:
            if yarn.drf_compare(used[j], np.zeros(2), w[j], 0.0, j, used[best], np.zeros(2), w[best], 0.0, best,
                                cluster, o, o.copy()) < 0:
                best = j
        if np.all(used.sum(axis=0) + unit[best] <= cluster + 1e-12):
            used[best] += unit[best]
        else:
            live.remove(best)
    ref = fa.drf(fa.Instance(d / d.max(axis=1, keepdims=True), capacities=[1.0, 1.0], weights=w)).allocation
    assert np.all(np.abs(used - ref) <= 2 * unit.max() + 1e-9)


# ---- starvation and preemption -----------------------------------------------------------------
def test_fairshare_starvation_timer():
    # FairScheduler.md: "If the queue waits fairSharePreemptionTimeout without receiving
    # fairSharePreemptionThreshold*fairShare resources, it is allowed to preempt containers"
    c, f, d = np.array([16.0, 8.0]), np.array([8.0, 4.0]), np.array([6.0, 6.0])
    out = np.empty(2)
    # threshold 0.5: G = min(<4, 2>, <6, 6>) = <4, 2>; usage <1, 1>: dominant 1/8 < 2/8: starved
    last = yarn.fairshare_starvation_into(np.ones(2), f, d, 0.5, c, 0.0, -1.0, 30.0, out)
    assert last == -1.0 and out.tolist() == [0.0, 0.0]           # starved for 1 s < 30 s
    last = yarn.fairshare_starvation_into(np.ones(2), f, d, 0.5, c, 29.0, last, 30.0, out)
    assert out.tolist() == [3.0, 1.0]                            # 30 s: <4 - 1, 2 - 1>
    # reaching G resets the timer
    last = yarn.fairshare_starvation_into(np.array([4.0, 2.0]), f, d, 0.5, c, 40.0, last, 30.0, out)
    assert last == 40.0 and out.tolist() == [0.0, 0.0]
    # demand below the threshold share caps the goal: demand <2, 1> -> G = <2, 1>
    yarn.fairshare_starvation_into(np.zeros(2), f, np.array([2.0, 1.0]), 0.5, c, 100.0, 0.0, 30.0, out)
    assert out.tolist() == [2.0, 1.0]


def test_minshare_starvation_and_preemptable_containers():
    out = np.empty(2)
    c = np.array([20.0, 20.0])
    # desired = min_DRF(<4, 4>, <10, 10>) = <4, 4>; usage <1, 4> -> <3, 0> after the timeout
    assert yarn.minshare_starvation_into(np.array([1.0, 4.0]), np.full(2, 4.0), np.full(2, 10.0), c, 3.0, 0.0,
                                         5.0, out) == 0.0 and out.tolist() == [0.0, 0.0]
    yarn.minshare_starvation_into(np.array([1.0, 4.0]), np.full(2, 4.0), np.full(2, 10.0), c, 5.0, 0.0, 5.0, out)
    assert out.tolist() == [3.0, 0.0]
    # the ComputeFairShares class comment: "A Schedulable whose resource consumption lies at or below its fair
    # share will never have its containers preempted"
    assert not yarn.can_preempt(np.array([2.0, 2.0]), np.array([3.0, 3.0]), c)
    assert yarn.can_preempt(np.array([3.0, 1.0]), np.array([3.0, 3.0]), c)


def test_preemption_utilization_reads_memory_and_vcores_only():
    # FairScheduler.md: "The utilization is computed as the maximum ratio of usage to capacity among all
    # resources"; FairScheduler.shouldAttemptPreemption reads getAllocatedMB and getAllocatedVirtualCores
    a, c = np.array([40.0, 4.0, 8.0]), np.array([100.0, 10.0, 8.0])
    assert not yarn.should_attempt_preemption(a, c)
    assert yarn.should_attempt_preemption(a, c, columns=(0, 1, 2))
    assert yarn.should_attempt_preemption(np.array([81.0, 0.0]), np.array([100.0, 10.0]))


def test_preemption_settings_are_inherited():
    t = AccountTree([{"account": "p", "fair_share_preemption_timeout": 30, "fair_share_preemption_threshold": 0.8},
                     {"account": "c", "parent": "p", "min_share_preemption_timeout": 5},
                     {"account": "d", "parent": "p", "fair_share_preemption_threshold": 0.3},
                     {"user": "x", "account": "c"}], resources=["memory-mb", "vcores"])
    y = yarn.YarnQueues(t)
    c, d, root = t.node("c"), t.node("d"), 0
    assert y.fair_share_timeout[[root, c, d]].tolist() == [INF, 30.0, 30.0]
    assert y.threshold[[root, c, d]].tolist() == [0.5, 0.8, 0.3]
    assert y.min_share_timeout[[root, c, d]].tolist() == [INF, 5.0, INF]


# ---- bad input --------------------------------------------------------------------------------------
def test_bad_input():
    with pytest.raises(InvalidInstanceError, match=r"fair_share_preemption_threshold=1.5 .* must be in \[0, 1\]"):
        AccountTree([{"account": "q", "fair_share_preemption_threshold": 1.5}])
    with pytest.raises(InvalidInstanceError, match=r"fair_share_preemption_timeout=-1.0 .* must be >= 0"):
        AccountTree([{"account": "q", "fair_share_preemption_timeout": -1}])
    with pytest.raises(InvalidInstanceError, match=r"min_share\[1, 0\]=2.5 must be a whole number"):
        yarn.YarnQueues(AccountTree([{"account": "q", "min_share": {"vcores": 2.5}}], resources=["vcores"]))
    with pytest.raises(InvalidInstanceError, match="weight=-2.0"):
        AccountTree([{"account": "q", "weight": -2}])
    t = AccountTree([{"account": "a", "min_share": {"vcores": 8}}, {"account": "b", "min_share": {"vcores": 4}}],
                    resources=["vcores"])
    with pytest.raises(InvalidInstanceError, match=r"min shares of 'vcores' under root add up to 12.0, more than the cluster's 10.0"):
        yarn.YarnQueues(t).fair_shares([10], steady=True)
    # YARN then hands out more than the cluster: every queue still gets at least its min share
    assert yarn.YarnQueues(t).fair_shares([10], allow_overcommit=True, steady=True)[[1, 2], 0].tolist() == [8.0, 4.0]
    with pytest.raises(InvalidInstanceError, match=r"total\[0\]=10.5 must be a whole number"):
        yarn.YarnQueues(t).fair_shares([10.5], allow_overcommit=True)
