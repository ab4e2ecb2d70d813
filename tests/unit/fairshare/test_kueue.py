"""Kueue's fair sharing against its own sources, hand computations, and fairalloc's DRF.

Sources: kubernetes-sigs/kueue at ff69552e79ad21652c36caa97038382e55625cf7 (2026-08-22):
pkg/scheduler/preemption/preemption_fair_test.go (TestFairPreemptions: the expected preemption targets
are transcribed case by case, with their names), keps/1714-fair-sharing/README.md ("Story 3", "Share value
function and weights", "Choosing workloads from ClusterQueues for preemption"),
keps/4136-admission-fair-sharing/README.md ("Entry penalty", the formula A = 1 - 0.5^(sampling/half_life)),
site/content/en/docs/concepts/{fair_sharing,admission_fair_sharing,preemption}.md, and the DRF paper
(Ghodsi et al., NSDI 2011, Section 4: 9 CPUs, 18 GB, A <1 CPU, 4 GB>, B <3 CPU, 1 GB> -> A 3 tasks, B 2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fairalloc as fa
from fairalloc import commitments
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import kueue as kq

INF = math.inf


# ---- helpers -------------------------------------------------------------------------------------
def build(cohorts, cqs, resources=("cpu",)):
    """A KueueQueues from (name, parent or None, quota dict, weight) cohorts and (name, cohort, quota, weight)
    ClusterQueues; one LocalQueue "lq-<cq>" per ClusterQueue."""
    recs = []
    for name, parent, quota, weight in list(cohorts) + list(cqs):
        r = {"account": name, "parent": parent or "root"}
        if quota:
            r["nominal_quota"] = quota
        if weight is not None:
            r["weight"] = weight
        recs.append(r)
    recs += [{"user": "lq-" + name, "account": name} for name, *_ in cqs]
    return kq.KueueQueues(AccountTree(recs, resources=list(resources)))


def targets(k, admitted, incoming, target_cq, config, incoming_priority=0.0):
    """Run preemption_targets on (name, cq, cpu, priority) workloads; returns {(name, reason)}."""
    names = [w[0] for w in admitted]
    lq = np.zeros((k.tree.n_users, 1))
    for _, cq, cpu, _ in admitted:
        lq[k.tree.user_names.index("lq-" + cq), 0] += cpu
    usage = k.usage(lq)
    wl = {"cq": [k.node(w[1]) for w in admitted], "request": [[w[2]] for w in admitted],
          "priority": [w[3] for w in admitted]}
    got = k.preemption_targets(usage, k.node(target_cq), [incoming], wl, priority=incoming_priority, config=config)
    return {(names[i], why) for i, why in got}


ANY = kq.KueueFairSharing(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
BASE = dict(cohorts=[("all", None, None, None)],
            cqs=[("a", "all", {"cpu": 3}, None), ("b", "all", {"cpu": 3}, None), ("c", "all", {"cpu": 3}, None),
                 ("preemptible", "all", {"cpu": 0}, None)])
R, FS, CQ = "InCohortReclamation", "InCohortFairSharing", "InClusterQueue"


def units(cq, n, start=1, priority=0):
    return [(f"{cq}{i}", cq, 1.0, priority) for i in range(start, start + n)]


# ---- the resource tree ---------------------------------------------------------------------------
def test_subtree_quota_usage_and_available_by_hand():
    # cohort P (own quota 2) with CQs x (nominal 6, lends at most 2: local quota 4) and y (nominal 3)
    k = build([("P", None, {"cpu": 2}, None)], [("x", "P", {"cpu": 6}, None), ("y", "P", {"cpu": 3}, None)])
    t = k.tree
    recs = [{"account": "P", "nominal_quota": {"cpu": 2}},
            {"account": "x", "parent": "P", "nominal_quota": {"cpu": 6}, "lending_limit": {"cpu": 2}},
            {"account": "y", "parent": "P", "nominal_quota": {"cpu": 3}, "borrowing_limit": {"cpu": 1}},
            {"user": "lq-x", "account": "x"}, {"user": "lq-y", "account": "y"}]
    k = kq.KueueQueues(AccountTree(recs, resources=["cpu"]))
    t = k.tree
    x, y, p = t.node("x"), t.node("y"), t.node("P")
    # SQ_x = 6, SQ_y = 3, SQ_P = 2 + (6 - 4) + (3 - 0) = 7
    assert k.subtree_quota[[x, y, p], 0].tolist() == [6.0, 3.0, 7.0]
    # x uses 5: 4 stay local, 1 goes up; y uses 4: all 4 go up -> P uses 5
    u = k.usage([[5.0], [4.0]])
    assert u[[x, y, p], 0].tolist() == [5.0, 4.0, 5.0]
    # available(x) = max(0, 4 - 5) + A_P = 0 + (7 - 5) = 2
    assert k.available(u, x).tolist() == [2.0]
    # available(y): min(SQ_y - LQ_y - max(0, 4 - 0) + B = 3 - 0 - 4 + 1, A_P = 2) = 0
    assert k.available(u, y).tolist() == [0.0]
    # potential available (no usage): x: min(4 + 7, inf) = 11; y: min(0 + 7, 3 + 1) = 4
    assert kq.potential_available(x, 0, k.parent, k.subtree_quota, k.lending, k.borrowing) == 11.0
    assert kq.potential_available(y, 0, k.parent, k.subtree_quota, k.lending, k.borrowing) == 4.0
    # lendable of a child of P is PA(P) = SQ_P = 7
    assert k.lendable[x, 0] == 7.0 and k.lendable[p, 0] == 0.0


def test_drs_sums_flavours_and_takes_the_dominant_resource():
    # KEP 1714 "Share value function": T_r adds the borrowing of all flavours of r; value = max_r T_r/lendable_r
    recs = [{"account": "co"},
            {"account": "q", "parent": "co", "nominal_quota": {"cpu@od": 4, "cpu@spot": 4, "gpu": 2}},
            {"account": "o", "parent": "co", "nominal_quota": {"cpu@od": 4, "cpu@spot": 4, "gpu": 6}},
            {"user": "lq", "account": "q"}, {"user": "lo", "account": "o"}]
    t = AccountTree(recs, resources=["cpu@od", "cpu@spot", "gpu"])
    k = kq.KueueQueues(t, resources=["cpu", "cpu", "gpu"])
    u = k.usage([[6.0, 5.0, 3.0], [0.0, 0.0, 0.0]])
    # cpu: borrows 2 + 1 = 3 of lendable 16 -> 187.5; gpu: 1 of 8 -> 125; DRS = 187.5 per mille
    ratio, bor = k.shares(u)
    assert ratio[t.node("q")] == pytest.approx(187.5) and bor[t.node("q")]
    # the cohort itself has no parent: 0
    assert ratio[t.node("co")] == 0.0


def test_add_remove_roundtrip_equals_recomputation():
    recs = [{"account": "top", "nominal_quota": {"cpu": 4}},
            {"account": "mid", "parent": "top", "nominal_quota": {"cpu": 3}, "lending_limit": {"cpu": 1}},
            {"account": "q1", "parent": "mid", "nominal_quota": {"cpu": 2}, "lending_limit": {"cpu": 1}},
            {"account": "q2", "parent": "top", "nominal_quota": {"cpu": 1}},
            {"user": "l1", "account": "q1"}, {"user": "l2", "account": "q2"}]
    k = kq.KueueQueues(AccountTree(recs, resources=["cpu"]))
    rng = np.random.default_rng(0)
    lq = np.zeros((2, 1))
    u = k.usage(lq)
    for _ in range(40):
        j = int(rng.integers(2))
        x = float(rng.integers(1, 4))
        if rng.random() < 0.6 or lq[j, 0] < x:
            lq[j, 0] += x
            k.add(u, k.tree.user_nodes[j], [x])
        else:
            lq[j, 0] -= x
            k.remove(u, k.tree.user_nodes[j], [x])
        # incremental addUsage/removeUsage agree with accumulateFromChild from scratch (integers: exact)
        np.testing.assert_array_equal(u, k.usage(lq))


# ---- shares and weights --------------------------------------------------------------------------
def test_weight_zero_is_infinite_share_and_compares_by_unweighted_ratio():
    # API doc (fairsharing_types.go): "A zero weight implies infinite share value"; CompareDRS: two zero-weight
    # borrowers compare by their unweighted ratio; a zero-weight node that does not borrow has share 0
    assert kq.weighted_share(10.0, 0.0) == INF and kq.weighted_share(0.0, 0.0) == 0.0
    assert kq.drs_key(10.0, 0.0) > kq.drs_key(1e9, 1.0)
    assert kq.drs_key(5.0, 0.0) < kq.drs_key(6.0, 0.0)
    assert kq.drs_key(0.0, 0.0) == kq.drs_key(0.0, 1.0)
    k = build(BASE["cohorts"], [("a", "all", {"cpu": 3}, 0.0), ("b", "all", {"cpu": 3}, 2.0)])
    u = k.usage([[4.0], [5.0]])
    assert k.status_shares(u)[[k.node("a"), k.node("b")]].tolist() == [kq.MAX_WEIGHTED_SHARE, 167]  # b: ceil(1000 * 2/6 / 2) = 167


def test_admission_tournament_is_drf_on_the_paper_example():
    # one CQ per user, nominal 0, the capacity as the cohort's quota: DRS/1000 = dominant share; admitting the
    # tournament's winner one task at a time gives DRF's 3 tasks for A and 2 for B (DRF paper, Section 4)
    k = build([("all", None, {"cpu": 9, "mem": 18}, None)], [("A", "all", None, None), ("B", "all", None, None)],
              resources=("cpu", "mem"))
    task = {k.node("A"): np.array([1.0, 4.0]), k.node("B"): np.array([3.0, 1.0])}
    u = k.usage(np.zeros((2, 2)))
    count = {"A": 0, "B": 0}
    pending = dict(task)
    while pending:
        q = k.tournament(u, pending)
        if k.fits(u, q, pending[q]):
            k.add(u, q, pending[q])
            count[k.tree.names[q]] += 1
        else:
            del pending[q]                                 # its head no longer fits
    assert count == {"A": 3, "B": 2}


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(st.integers(1, 6), min_size=2, max_size=2), min_size=2, max_size=3))
def test_tournament_progressive_filling_approaches_drf(vectors):
    # tiny workloads in proportion to each user's demand vector: the allocation the tournament admits is
    # fa.drf's (lexicographic DRF) up to one workload per user and resource
    d = np.array(vectors, dtype=float)
    n = len(d)
    steps = 60
    k = build([("all", None, {"cpu": 1.0, "mem": 1.0}, None)], [(f"u{i}", "all", None, None) for i in range(n)],
              resources=("cpu", "mem"))
    unit = d / d.max(axis=1, keepdims=True) / steps          # dominant share 1/steps per workload
    heads = {k.node(f"u{i}"): unit[i] for i in range(n)}
    u = k.usage(np.zeros((n, 2)))
    got = np.zeros((n, 2))
    while heads:
        q = k.tournament(u, heads)
        i = int(k.tree.names[q][1:])
        if k.fits(u, q, heads[q]):
            k.add(u, q, heads[q])
            got[i] += heads[q]
        else:
            del heads[q]
    ref = fa.drf(fa.Instance(d / d.max(axis=1, keepdims=True), capacities=[1.0, 1.0])).allocation
    assert np.all(np.abs(got - ref) <= 2 * unit.max() + 1e-9)


def test_kep1714_story3_by_admission_and_as_the_fixed_point_of_preemption():
    # KEP 1714 Story 3: CS holds 300 GPUs; C1 = {1A, 1B, 1C (weight 3)}, C2 = {2A}, all with long backlogs:
    # C1 and C2 get 150 each; in C1, 1A 30, 1B 30, 1C 90. Scaled to 30 GPUs (3, 3, 9 | 15) to keep it fast.
    k = build([("org", None, None, None), ("CS", "org", None, None), ("C1", "org", None, None),
               ("C2", "org", None, None)],
              [("cs", "CS", {"gpu": 30}, None), ("1A", "C1", None, None), ("1B", "C1", None, None),
               ("1C", "C1", None, 3.0), ("2A", "C2", None, None)], resources=("gpu",))
    want = {"1A": 3, "1B": 3, "1C": 9, "2A": 15}
    one = np.array([1.0])
    qs = [k.node(x) for x in want]
    # (1) one tournament per admission from an empty cluster
    u = k.usage(np.zeros((k.tree.n_users, 1)))
    got = dict.fromkeys(want, 0)
    heads = {q: one for q in qs}
    while heads:
        q = k.tournament(u, heads)
        if k.fits(u, q, one):
            k.add(u, q, one)
            got[k.tree.names[q]] += 1
        else:
            del heads[q]
    assert got == want
    # (2) TeamE first: 2A holds all 30; every ClusterQueue keeps a backlog of unit workloads and tries fair
    # preemption (reclaimWithinCohort=Any, default strategies) until nothing changes
    running = [("2A", t) for t in range(30)]
    clock = 30
    for _ in range(200):
        usage_lq = np.zeros((k.tree.n_users, 1))
        for cq, _ in running:
            usage_lq[k.tree.user_names.index("lq-" + cq), 0] += 1
        u = k.usage(usage_lq)
        wl = {"cq": [k.node(c) for c, _ in running], "request": [[1.0]] * len(running),
              "admitted_at": [t for _, t in running]}
        moved = False
        for q in qs:
            tg = k.preemption_targets(u, q, one, wl, config=kq.KueueFairSharing(reclaim_within_cohort="Any"))
            if tg:
                for i in sorted((i for i, _ in tg), reverse=True):
                    running.pop(i)
                running.append((k.tree.names[q], clock))
                clock += 1
                moved = True
                break
        if not moved:
            break
    final = {c: sum(1 for x, _ in running if x == c) for c in want}
    assert final == want


# ---- preemption: Kueue's TestFairPreemptions, transcribed ------------------------------------------
KUEUE_CASES = {
    # name: (cqs, admitted, incoming cpu, target cq, strategies, want)
    "reclaim nominal from user using the most":
        (BASE, units("a", 3) + units("b", 5) + units("c", 1), 1, "c", None, {("b1", R)}),
    "can reclaim from queue using less, if taking the latest workload from user using the most isn't enough":
        (BASE, [("a1", "a", 3, 0), ("a2", "a", 1, 0), ("b1", "b", 2, 0), ("b2", "b", 3, 0)], 3, "c", None, {("a1", R)}),
    "reclaim borrowable quota from user using the most":
        (BASE, units("a", 3) + units("b", 5) + units("c", 1), 1, "a", None, {("b1", FS)}),
    "preempt one from each CQ borrowing":
        (BASE, [("a1", "a", .5, 0), ("a2", "a", .5, 0), ("a3", "a", 3, 0), ("b1", "b", .5, 0), ("b2", "b", .5, 0),
                ("b3", "b", 3, 0)], 2, "c", None, {("a1", R), ("b1", R)}),
    "can't preempt when everyone under nominal":
        (BASE, units("a", 3) + units("b", 3) + units("c", 3), 1, "c", None, set()),
    "can't preempt when it would switch the imbalance":
        (BASE, units("a", 3) + units("b", 5), 2, "a", None, set()),
    "can preempt lower priority workloads from same CQ":
        (BASE, [("a1_low", "a", 1, -1), ("a2_low", "a", 1, -1), ("a3", "a", 1, 0), ("a4", "a", 1, 0)] + units("b", 5),
         2, "a", None, {("a1_low", CQ), ("a2_low", CQ)}),
    "can preempt a combination of same CQ and highest user":
        (BASE, [("a_low", "a", 1, -1), ("a2", "a", 1, 0), ("a3", "a", 1, 0)] + units("b", 6), 2, "a", None,
         {("a_low", CQ), ("b1", FS)}),
    "preempt huge workload if there is no other option, as long as the target CQ gets a lower share":
        (BASE, [("b1", "b", 9, 0)], 2, "a", None, {("b1", R)}),
    "can't preempt huge workload if the incoming is also huge":
        (BASE, [("a1", "a", 2, 0), ("b1", "b", 7, 0)], 5, "a", None, set()),
    "can't preempt 2 smaller workloads if the incoming is huge":
        (BASE, [("b1", "b", 2, 0), ("b2", "b", 2, 0), ("b3", "b", 3, 0)], 6, "a", None, set()),
    "preempt from target and others even if over nominal":
        (BASE, [("a1_low", "a", 2, -1), ("a2_low", "a", 1, -1), ("b1", "b", 3, 0), ("b2", "b", 3, 0)], 4, "a", None,
         {("a1_low", CQ), ("b1", FS)}),
    "prefer to preempt workloads that don't make the target CQ have the biggest share":
        (BASE, [("b1", "b", 2, 0), ("b2", "b", 1, 0), ("b3", "b", 2, 0), ("c1", "c", 1, 0)], 3.5, "a", None,
         {("b2", FS)}),
    "preempt from different cluster queues if the end result has a smaller max share":
        (BASE, [("b1", "b", 2, 0), ("b2", "b", 2.5, 0), ("c1", "c", 2, 0), ("c2", "c", 2.5, 0)], 3.5, "a", None,
         {("b1", FS), ("c1", FS)}),
    "scenario above does not flap":
        (BASE, [("a1", "a", 3.5, 0), ("b2", "b", 2.5, 0), ("c2", "c", 2.5, 0)], 2, "b", None, set()),
    "cannot preempt if it would make the candidate CQ go under nominal after preempting one element":
        (BASE, [("b1", "b", 3, 0), ("b2", "b", 3, 0), ("c1", "c", 3, 0)], 4, "a", None, set()),
    "workloads under priority threshold not capriciously preempted":
        (BASE, units("a", 3) + units("b", 3) + [(f"preemptible{i}", "preemptible", 1, -3) for i in (1, 2, 3)], 2, "a",
         None, set()),
    "preempt lower priority first, even if big":
        (BASE, [("a1", "a", 3, 0), ("b_low", "b", 5, 0), ("b_high", "b", 1, 1)], 1, "a", ["LessThanInitialShare"],
         {("b_low", FS)}),
    "preempt workload that doesn't transfer the imbalance, even if high priority":
        (BASE, [("a1", "a", 3, 0), ("b_low", "b", 5, 0), ("b_high", "b", 1, 1)], 1, "a",
         ["LessThanOrEqualToFinalShare"], {("b_high", FS)}),
    "CQ with higher weight can preempt more":
        (dict(cohorts=BASE["cohorts"], cqs=[("a", "all", {"cpu": 3}, 2.0), ("b", "all", {"cpu": 3}, None),
                                            ("c", "all", {"cpu": 3}, None)]),
         units("a", 3) + units("b", 6), 2, "a", None, {("b1", FS), ("b2", FS)}),
    "can preempt anything borrowing from CQ with 0 weight":
        (dict(cohorts=BASE["cohorts"], cqs=[("a", "all", {"cpu": 3}, None), ("b", "all", {"cpu": 3}, 0.0),
                                            ("c", "all", {"cpu": 3}, None)]),
         units("a", 3) + units("b", 6), 3, "a", None, {("b1", FS), ("b2", FS), ("b3", FS)}),
    "can't preempt nominal from CQ with 0 weight":
        (dict(cohorts=BASE["cohorts"], cqs=[("a", "all", {"cpu": 3}, None), ("b", "all", {"cpu": 3}, 0.0)]),
         units("a", 3) + units("b", 3), 1, "a", None, set()),
    # Kueue's cohort "root" is renamed "top" (fairalloc's tree root is called root)
    "can't preempt nominal from Cohort with 0 weight":
        (dict(cohorts=[("top", None, None, None), ("right-cohort", "top", {"cpu": 1}, 0.0)],
              cqs=[("left-cq", "top", {"cpu": 0}, None), ("right-cq", "right-cohort", {"cpu": 0}, 0.0)]),
         [("right-1", "right-cq", 1, 0)], 1, "left-cq", None, set()),
    "can preempt within cluster queue when no cohort":
        (dict(cohorts=[], cqs=[("a", None, {"cpu": 1}, None)]), [("a1", "a", 1, 0)], 1, "a", None, {("a1", CQ)}),
    # ROOT(quota 5) > LEFT(5, weight 2) > a (1, weight 2), b (1); c (1); RIGHT(5) > d (1), e (1, weight 0.99)
    "hierarchical preemption":
        (dict(cohorts=[("ROOT", None, {"cpu": 5}, None), ("LEFT", "ROOT", {"cpu": 5}, 2.0),
                       ("RIGHT", "ROOT", {"cpu": 5}, None)],
              cqs=[("a", "LEFT", {"cpu": 1}, 2.0), ("b", "LEFT", {"cpu": 1}, None), ("c", "ROOT", {"cpu": 1}, None),
                   ("d", "RIGHT", {"cpu": 1}, None), ("e", "RIGHT", {"cpu": 1}, 0.99)]),
         [(f"{q}{i}", q, 1, i) for q in "bcde" for i in range(1, 6)], 5, "a", None,
         {("b1", FS), ("b2", FS), ("c1", FS), ("c2", FS), ("e1", FS)}),
    "borrowing cq in non-borrowing cohort is protected":
        (dict(cohorts=[("ROOT", None, None, None), ("RIGHT", "ROOT", {"cpu": 1}, 0.1)],
              cqs=[("a", "ROOT", {"cpu": 5}, 10.0), ("b", "RIGHT", None, 0.1)]),
         [("a1", "a", 1, -1), ("a2", "a", 1, -1), ("a3", "a", 1, -1), ("b1", "b", 1, -1)], 5, "a", None,
         {("a1", CQ), ("a2", CQ), ("a3", CQ)}),
}
# the cases whose ClusterQueue a has only reclaimWithinCohort=Any (withinClusterQueue left at Never) in Kueue's test
_RECLAIM_ONLY = {"hierarchical preemption", "can't preempt nominal from Cohort with 0 weight"}
_WITHIN_ONLY = {"can preempt within cluster queue when no cohort"}


@pytest.mark.parametrize("name", list(KUEUE_CASES))
def test_kueue_fair_preemptions(name):
    spec, admitted, incoming, target, strategies, want = KUEUE_CASES[name]
    k = build(spec["cohorts"], spec["cqs"])
    within = "Never" if name in _RECLAIM_ONLY else "LowerPriority"
    reclaim = "Never" if name in _WITHIN_ONLY else "Any"
    cfg = kq.KueueFairSharing(preemption_strategies=strategies or (), within_cluster_queue=within,
                              reclaim_within_cohort=reclaim)
    prio = 1000.0 if name in _WITHIN_ONLY else 0.0                      # the test's incoming Priority(1000)
    assert targets(k, admitted, incoming, target, cfg, incoming_priority=prio) == want


def test_candidates_are_taken_newest_first_not_smallest_first_as_the_code_runs():
    # KEP 1714 [C3] says the smallest workloads are favoured; CandidatesOrdering has no size criterion and
    # takes the most recently admitted first. b runs b_a (1 CPU, t=0), b_b (1 CPU, t=0) and b_big (3 CPU, t=1),
    # a 3 and c 1: the cohort's 9 are used. a's 1-CPU workload (a then borrows 1: 111 per mille < b's 222) may
    # preempt any of b's by S2-b; the code takes b_big, the newest. The KEP's [C3] would take a 1-CPU one.
    k = build(**BASE)
    u = k.usage([[3.0], [5.0], [1.0], [0.0]])
    wl = {"cq": [k.node("a")] * 3 + [k.node("b")] * 3 + [k.node("c")],
          "request": [[1.0]] * 3 + [[1.0], [1.0], [3.0]] + [[1.0]], "admitted_at": [0, 0, 0, 0, 0, 1, 0]}
    cfg = kq.KueueFairSharing(preemption_strategies=["LessThanInitialShare"], reclaim_within_cohort="Any")
    assert k.preemption_targets(u, k.node("a"), [1.0], wl, config=cfg) == [(5, FS)]     # b_big


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1e3), st.floats(0, 1e3), st.floats(0, 1e3), st.floats(0, 1e3), st.floats(0.5, 4),
       st.sampled_from([0.0, 0.5, 1.0, 3.0]), st.sampled_from([0.0, 0.5, 1.0, 3.0]))
def test_two_workloads_never_preempt_each_other(a_pend, da, b_pend, db, _, wa, wb):
    # concept page "Proof that two workloads won't preempt each other": with DRS_X_pending < DRS_X_admitted for
    # both (admission increases the share), A may preempt B (either strategy) only if DRS_A_adm < DRS_B_adm, so
    # B cannot then preempt A
    a_adm, b_adm = a_pend + da + 1e-3, b_pend + db + 1e-3

    def can(p_adm, wp, t_pend, t_adm, wt):
        return (kq.less_than_or_equal_to_final_share(p_adm, wp, t_pend, wt)
                or kq.less_than_initial_share(p_adm, wp, t_adm, wt))
    assert not (can(a_adm, wa, b_pend, b_adm, wb) and can(b_adm, wb, a_pend, a_adm, wa))


# ---- admission fair sharing ----------------------------------------------------------------------
def test_afs_alpha_decay_and_penalty_by_hand():
    # KEP 4136: A = 1 - 0.5^(sampling/half_life); usage_sum = (1 - A) prev + A current
    afs = kq.AdmissionFairSharing(usage_half_life=600.0, sampling_interval=300.0)
    a = 1 - 0.5 ** 0.5
    assert afs.entry_alpha == pytest.approx(a, rel=1e-12)
    c = afs.decay([[2.0, 0.0]], [[10.0, 4.0]], 300.0)
    np.testing.assert_allclose(c, [[(1 - a) * 2 + a * 10, a * 4]], rtol=1e-12)
    np.testing.assert_allclose(afs.entry_penalty([4.0, 1.0]), [4 * a, a], rtol=1e-12)
    # it is SDRF's Eq. 6 (commitments.decay) with the admitted usage as the "excess", tau = h / ln 2
    np.testing.assert_allclose(c, commitments.decay(np.array([[2.0, 0.0]]), np.array([[10.0, 4.0]]), 300.0,
                                                    commitments.tau_from_half_life(600.0)), rtol=1e-12)


def test_afs_entry_penalty_defeats_the_burst_of_kep4136():
    # KEP 4136 "Entry penalty": A's status 0.1 CPU, B's 0.05; B gets a 1000-CPU job admitted. Without the
    # penalty B stays ahead until the next sample; with it, B's usage is 0.05 + alpha*1000 and A goes first.
    afs = kq.AdmissionFairSharing(usage_half_life=168 * 3600.0, sampling_interval=300.0)
    pen_b = afs.entry_penalty([1000.0])
    use = afs.usage([[0.1], [0.05]], [[0.0], pen_b], [1.0, 1.0], ["cpu"])
    assert use[1] == pytest.approx(0.05 + 1000 * (1 - 0.5 ** (300 / (168 * 3600))))
    assert kq.AdmissionFairSharing.order(use, [0, 0], [1.0, 0.0]).tolist() == [0, 1]
    assert kq.AdmissionFairSharing.order(afs.usage([[0.1], [0.05]], [[0.0], [0.0]], [1.0, 1.0], ["cpu"]),
                                         [0, 0], [1.0, 0.0]).tolist() == [1, 0]


def test_afs_weights():
    # concept page: an LQ of weight 2 "will be treated as if it used half as many resources"; resourceWeights
    # cpu 2.0, memory 1.0 (the page's example): usage = (2*cpu + mem) / w
    afs = kq.AdmissionFairSharing(resource_weights={"cpu": 2.0, "memory": 1.0})
    u = afs.usage([[3.0, 8.0], [3.0, 8.0]], [[0.0, 0.0], [0.0, 0.0]], [1.0, 2.0], ["cpu", "memory"])
    assert u.tolist() == [14.0, 7.0]
    assert afs.usage([[1.0, 0.0]], [[0.0, 0.0]], [0.0], ["cpu", "memory"]).tolist() == [INF]


# ---- bad input ------------------------------------------------------------------------------------
def test_bad_input_names_field_and_value():
    with pytest.raises(InvalidInstanceError, match=r"usage_half_life=0 .*kueue#11134"):
        kq.AdmissionFairSharing(usage_half_life=0)
    with pytest.raises(InvalidInstanceError, match="sampling_interval=-5"):
        kq.AdmissionFairSharing(sampling_interval=-5)
    with pytest.raises(InvalidInstanceError, match=r"resource_weights\['gpu'\]=-1"):
        kq.AdmissionFairSharing(resource_weights={"gpu": -1})
    with pytest.raises(InvalidInstanceError, match=r"preemption_strategies\[0\]='Greedy'"):
        kq.KueueFairSharing(preemption_strategies=["Greedy"])
    with pytest.raises(InvalidInstanceError, match="reclaim_within_cohort='Sometimes'"):
        kq.KueueFairSharing(reclaim_within_cohort="Sometimes")
    # a borrowing limit without a cohort (accounts.py), a negative weight (accounts.py)
    with pytest.raises(InvalidInstanceError, match="borrowing_limit.*needs a cohort"):
        AccountTree([{"account": "q", "borrowing_limit": {"cpu": 1}}], resources=["cpu"])
    with pytest.raises(InvalidInstanceError, match="weight=-1.0 .* must be >= 0"):
        AccountTree([{"account": "q", "weight": -1}])
    # a weight in (0, 1e-9): Kueue's API refuses it
    with pytest.raises(InvalidInstanceError, match="weight=1e-12 of 'q'"):
        kq.KueueQueues(AccountTree([{"account": "q", "weight": 1e-12}, {"user": "l", "account": "q"}]))
    # quotas larger than the cluster
    t = AccountTree([{"account": "co"}, {"account": "q", "parent": "co", "nominal_quota": {"cpu": 8}},
                     {"account": "p", "parent": "co", "nominal_quota": {"cpu": 4}},
                     {"user": "l", "account": "q"}, {"user": "m", "account": "p"}], resources=["cpu"])
    with pytest.raises(InvalidInstanceError, match=r"quotas of 'cpu' add up to 12.0, more than the cluster's capacity 10.0"):
        kq.KueueQueues(t, capacity=[10.0])
    assert kq.KueueQueues(t, capacity=[10.0], allow_overcommit=True).subtree_quota[t.node("co"), 0] == 12.0
    # tree shapes Kueue does not have
    with pytest.raises(InvalidInstanceError, match="directly under root"):
        kq.KueueQueues(AccountTree([{"user": "l"}]))
    with pytest.raises(InvalidInstanceError, match="both LocalQueues"):
        kq.KueueQueues(AccountTree([{"account": "x"}, {"account": "y", "parent": "x"}, {"user": "l", "account": "x"}]))
    k = build(**BASE)
    with pytest.raises(InvalidInstanceError, match="is not a ClusterQueue"):
        k.tournament(k.usage(np.zeros((4, 1))), {k.node("all"): [1.0]})
    with pytest.raises(InvalidInstanceError, match=r"request\[0, 0\]=-1.0"):
        k.preemption_targets(k.usage(np.zeros((4, 1))), k.node("a"), [-1.0], {"cq": [], "request": np.zeros((0, 1))})


def test_errors_from_a_file_name_the_line(tmp_path):
    p = tmp_path / "queues.yaml"
    p.write_text("resources: [cpu]\naccounts:\n  - {name: co}\n  - {name: q, parent: co, weight: 1.0e-12}\n"
                 "users:\n  - {name: lq, account: q}\n")
    from fairalloc.accounts import read_accounts
    with pytest.raises(InvalidInstanceError, match=r"queues.yaml:4: weight=1e-12 of 'q'"):
        kq.KueueQueues(read_accounts(p))
    p.write_text("resources: [cpu]\naccounts:\n  - {name: q, borrowing_limit: {cpu: 2}}\n")
    with pytest.raises(InvalidInstanceError, match=r"queues.yaml:3: borrowing_limit=\{'cpu': 2.0\} of account 'q' needs a cohort"):
        read_accounts(p)
