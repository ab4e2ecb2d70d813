"""HTCondor's priorities, negotiation and group quotas against its admin manual and hand computations.

Source: htcondor/htcondor at 7491a145f64a1c2393ed0933375874344fa44f9f (2026-08-21),
docs/admin-manual/cm-configuration.rst (https://htcondor.readthedocs.io/en/latest/admin-manual/
cm-configuration.html): "Real User Priority (RUP)", "Effective User Priority (EUP)", "Priority
Calculation", "Accounting Groups with Hierarchical Group Quotas"; code in src/condor_negotiator.V6.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairalloc import commitments
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import htcondor as hc

DAY = 86400.0


def test_rup_manual_examples():
    # "a user with a RUP of 10 has no running jobs, that user's RUP would be 5 one day later, 2.5 two days later"
    r = hc.update_rup([10.0], [0.0], DAY)
    assert r[0] == pytest.approx(5.0, rel=1e-12)
    assert hc.update_rup(r, [0.0], DAY)[0] == pytest.approx(2.5, rel=1e-12)
    # "Every user begins with a RUP of one half (0.5), which is the lowest possible value"
    assert hc.update_rup([0.5], [0.0], 30 * DAY).tolist() == [0.5]
    assert hc.update_rup([0.0], [0.0], 1.0).tolist() == [0.5]


def test_rup_steady_state_and_two_users():
    # "if a specific user continuously uses exactly ten cores ... the RUP of that user asymptotically approaches ten"
    r = np.array([0.5])
    for _ in range(30):
        r = hc.update_rup(r, [10.0], DAY)
    assert r[0] == pytest.approx(10.0, abs=1e-7)
    # users A (100 cores from t = 0) and B (nothing) for 48 hours at the default one-day half-life:
    # hand: A = 100 (1 - 1/4) + 0.5/4 = 75.125 ("about 75.0"), B = 0.5; "User B deserves 150 times User A"
    ab = hc.update_rup([0.5, 0.5], [100.0, 0.0], 2 * DAY)
    assert ab.tolist() == pytest.approx([75.125, 0.5])
    assert ab[0] / ab[1] == pytest.approx(150.25)
    # one update over 48 h equals two over 24 h (the manual: beta = 0.5^(dt/h) allows non-uniform intervals)
    twice = hc.update_rup(hc.update_rup([0.5, 0.5], [100.0, 0.0], DAY), [100.0, 0.0], DAY)
    np.testing.assert_allclose(twice, ab, rtol=1e-12)


def test_rup_is_sdrf_eq6_with_a_floor():
    # one update = commitments.decay (Eq. 6) with the usage as "excess", then the 0.5 floor
    rng = np.random.default_rng(0)
    rup = rng.uniform(0.5, 50, 8)
    rho = rng.uniform(0, 50, 8)
    tau = commitments.tau_from_half_life(DAY)
    expected = np.maximum(0.5, commitments.decay(rup, rho, dt=3600.0, tau=tau))
    np.testing.assert_array_equal(hc.update_rup(rup, rho, 3600.0), expected)
    # and HTCondor's own formula, beta = 0.5^(dt/h)
    beta = 0.5 ** (3600.0 / DAY)
    np.testing.assert_allclose(hc.update_rup(rup, rho, 3600.0), np.maximum(0.5, beta * rup + (1 - beta) * rho),
                               rtol=1e-13)
    # uncharged usage of a job that ended: 7200 core-seconds over an hour adds rho = 2
    np.testing.assert_allclose(hc.update_rup([1.0], [0.0], 3600.0, uncharged=[7200.0]),
                               hc.update_rup([1.0], [2.0], 3600.0))


def test_eup_and_shares_manual():
    # "setting the priority factor of some user to 2,000 will grant that user half as many cores as a user with the
    # default priority factor of 1,000, assuming they both have the same historical usage"
    out = np.empty(2)
    hc.effective_priority_into(np.array([3.0, 3.0]), np.array([1000.0, 2000.0]), out)
    sh = np.empty(2)
    hc.submitter_shares_into(out, np.ones(2, np.bool_), sh)
    assert sh[0] == pytest.approx(2 * sh[1])
    # "User A with EUP=5 will receive twice as many slots as user B with EUP=10 and four times as many slots as C
    # with EUP=20"
    sh3 = np.empty(3)
    hc.submitter_shares_into(np.array([5.0, 10.0, 20.0]), np.ones(3, np.bool_), sh3)
    assert sh3.tolist() == pytest.approx([4 / 7, 2 / 7, 1 / 7])
    # inactive submitters take no share
    hc.submitter_shares_into(np.array([5.0, 10.0, 20.0]), np.array([True, False, True]), sh3)
    assert sh3.tolist() == pytest.approx([0.8, 0.0, 0.2])


def _negotiate(eup, usage, queues, free, total, group_quota=math.inf, group_usage=0.0):
    n = len(eup)
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(q) for q in queues])
    size = np.array([c for q in queues for c in q], dtype=float)
    use = np.array(usage, dtype=float)
    matched = np.zeros(len(size), np.bool_)
    order = np.empty(n, np.int64)
    left = hc.negotiate_into(np.array(eup, float), use, ptr, size, float(free), float(total), group_quota,
                             group_usage, 1.0, matched, np.empty(n), np.empty(n), order)
    return use, float(left), matched, order


def test_negotiation_three_users_by_hand():
    # 10 cores, B already runs 2; EUP 500, 1000, 2000 -> shares 4/7, 2/7, 1/7; everyone has many 1-core jobs.
    # Spin 1 (order A, B, C), limits share * 10 - usage: A 40/7 = 5.714 -> 5 jobs (a 6th would pass the limit);
    # pie left 8 - 5 = 3; B 20/7 - 2 = 0.857 -> 1 job by the round-up (nothing matched yet, limit > 0);
    # C 10/7 = 1.43 -> 1 job. Free 1. Spin 2: limits A 0.714, B 0, C 0.43 are all below one core: skipped,
    # the pie did not shrink: the cycle ends with one core idle (crumbs left for the next cycle).
    use, left, _, order = _negotiate([500, 1000, 2000], [0, 2, 0], [[1] * 20] * 3, free=8, total=10)
    assert use.tolist() == [5.0, 3.0, 1.0] and left == 1.0 and order.tolist() == [0, 1, 2]


def test_negotiation_leftovers_spun_again():
    # Same, but A wants only 2 jobs. Spin 1: A 2 (got all it wanted: leaves), B 1 (round-up), C 1; free 4.
    # Spin 2 among B, C: shares (1/1000) : (1/2000) = 2/3, 1/3; limits B 20/3 - 3 = 3.667 -> 3 jobs;
    # C 10/3 - 1 = 2.333 -> 1 job, the only free core. Free 0: stop. Usage A 2, B 6, C 2.
    use, left, matched, _ = _negotiate([500, 1000, 2000], [0, 2, 0], [[1] * 2, [1] * 20, [1] * 20], free=8,
                                       total=10)
    assert use.tolist() == [2.0, 6.0, 2.0] and left == 0.0
    assert matched[:2].all() and matched.sum() == 8


def test_negotiation_job_sizes_and_group_quota():
    # one submitter, jobs of 4, 4, 1 cores, 6 free: the first 4 fits, the second does not (2 left), the 1 does
    use, left, matched, _ = _negotiate([500], [0], [[4, 4, 1]], free=6, total=6)
    assert use.tolist() == [5.0] and left == 1.0 and matched.tolist() == [True, False, True]
    # a group quota of 3 on a 10-core pool, two equal submitters: the pie is 3, limits 1.5 each -> one job
    # each in spin 1 (a second would pass 1.5); spin 2 limits 0.5 < one core: skipped. 2 used, 8 free (the
    # crumb of the quota waits for the next cycle)
    use, left, _, _ = _negotiate([500, 500], [0, 0], [[1] * 10] * 2, free=10, total=10, group_quota=3.0)
    assert use.tolist() == [1.0, 1.0] and left == 8.0
    # one submitter alone in that group: limit 3 -> 3 jobs
    use, left, _, _ = _negotiate([500], [0], [[1] * 10], free=10, total=10, group_quota=3.0)
    assert use.tolist() == [3.0] and left == 7.0
    # group already at its quota: nothing
    use, _, _, _ = _negotiate([500], [0], [[1] * 5], free=10, total=10, group_quota=3.0, group_usage=3.0)
    assert use.tolist() == [0.0]


def test_submitter_limit_by_hand():
    assert hc.submitter_limit(0.5, 10.0, 3.0, math.inf) == 2.0
    assert hc.submitter_limit(0.5, 10.0, 7.0, math.inf) == 0.0
    assert hc.submitter_limit(0.5, 10.0, 3.0, 1.5) == 1.5


GROUPS = [{"account": "group_physics", "quota": 20}, {"account": "group_chemistry", "quota": 10}]


def test_static_quotas_manual():
    t = AccountTree(GROUPS)
    # 30 slots: physics 20, chemistry 10, <none> 0
    q, sq = hc.group_quotas(t, 30.0)
    assert q.tolist() == [0.0, 20.0, 10.0] and sq.tolist() == [30.0, 20.0, 10.0]
    # "If a power failure removed half of the original 30, leaving fifteen slots, physics would be scaled back to
    # a quota of ten, and chemistry to five" (the scaling that NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION=True disables)
    assert hc.group_quotas(t, 15.0, oversubscription=False)[0].tolist() == [0.0, 10.0, 5.0]
    assert hc.group_quotas(t, 15.0)[0].tolist() == [0.0, 20.0, 10.0]
    # "if somehow the number of slots doubled ... physics would still be limited to 20 slots, and chemistry ... 10"
    assert hc.group_quotas(t, 60.0)[0].tolist() == [30.0, 20.0, 10.0]


def test_dynamic_and_sub_group_quotas_manual():
    # dynamic: chemistry 0.33, physics 0.66 of 30 slots
    t = AccountTree([{"account": "group_physics", "quota_dynamic": 0.66},
                     {"account": "group_chemistry", "quota_dynamic": 0.33}])
    assert hc.group_quotas(t, 30.0)[0].tolist() == pytest.approx([0.3, 19.8, 9.9])
    # static sub-groups: hep 15, lep 5 of physics' 20 ("the same 15 machines")
    t = AccountTree([{"account": "group_physics", "quota": 20},
                     {"account": "hep", "parent": "group_physics", "quota": 15},
                     {"account": "lep", "parent": "group_physics", "quota": 5},
                     {"account": "group_chemistry", "quota": 10}])
    q, _ = hc.group_quotas(t, 30.0, oversubscription=False)
    assert dict(zip(t.names, q)) == {"root": 0.0, "group_physics": 0.0, "hep": 15.0, "lep": 5.0,
                                     "group_chemistry": 10.0}
    # dynamic sub-groups: "the high-energy physics subgroup is allocated 75% of the 66% that physics gets ...
    # If there are 30 machines in the pool, that would be the same 15 machines"
    t = AccountTree([{"account": "group_physics", "quota_dynamic": 0.66667},
                     {"account": "hep", "parent": "group_physics", "quota_dynamic": 0.75},
                     {"account": "lep", "parent": "group_physics", "quota_dynamic": 0.25},
                     {"account": "group_chemistry", "quota_dynamic": 0.33334}])
    q, _ = hc.group_quotas(t, 30.0, oversubscription=False)
    assert q[t.node("hep")] == pytest.approx(15.0, abs=1e-3) and q[t.node("lep")] == pytest.approx(5.0, abs=1e-3)


SURPLUS = [{"account": "physics", "quota": 20, "accept_surplus": False},
           {"account": "hep", "parent": "physics", "quota": 15, "accept_surplus": True},
           {"account": "lep", "parent": "physics", "quota": 5, "accept_surplus": True},
           {"account": "chemistry", "quota": 10},
           {"user": "higgs", "account": "hep"}, {"user": "dirac", "account": "lep"}, {"user": "curie", "account": "chemistry"}]


def test_surplus_manual():
    # "group_physics.lep and group_physics.hep are allowed to exceed their quota of 15 and 5, but their sum cannot
    # exceed 20, for that is their parent's quota"
    t = AccountTree(SURPLUS)
    node = {n: t.node(n) for n in ("physics", "hep", "lep", "chemistry")}
    for oversub in (False, True):
        alloc, quota, _ = hc.group_allocations(t, 30.0, [60.0, 0.0, 60.0], oversubscription=oversub)
        sq = hc.group_quotas(t, 30.0, oversubscription=oversub)[1]
        lim = hc.group_limits(t, alloc, quota, sq, np.zeros(len(alloc)))
        assert lim[node["hep"]] == 20.0, oversub                       # 15 + lep's unused 5, capped at physics' 20
        assert lim[node["chemistry"]] == 10.0                           # no surplus for chemistry
    # both want 60: each gets its own quota only (no surplus anywhere below physics' 20)
    alloc, quota, _ = hc.group_allocations(t, 30.0, [60.0, 60.0, 60.0], oversubscription=False)
    assert alloc[node["hep"]] == 15.0 and alloc[node["lep"]] == 5.0 and alloc[node["chemistry"]] == 10.0
    # "If the group_physics had GROUP_ACCEPT_SURPLUS set to True, then either ... would not be limited by quota":
    # with chemistry idle, its 10 flow up to the root and down to physics' subtree
    t2 = AccountTree([dict(r, accept_surplus=True) if r.get("account") == "physics" else r for r in SURPLUS])
    alloc, quota, left = hc.group_allocations(t2, 30.0, [60.0, 0.0, 0.0], oversubscription=False)
    assert alloc[t2.node("hep")] == 30.0 and left == 0.0


def test_surplus_shared_by_quota_by_hand():
    # root (pool 30) with a (quota 10) and b (quota 5), both accept surplus, c (quota 15) idle. a and b each want
    # 40: first min(40, quota) = 10 and 5; c's 15 are surplus, shared in proportion to the quotas 10 : 5 -> 10, 5
    t = AccountTree([{"account": "a", "quota": 10, "accept_surplus": True},
                     {"account": "b", "quota": 5, "accept_surplus": True}, {"account": "c", "quota": 15},
                     {"user": "ua", "account": "a"}, {"user": "ub", "account": "b"}, {"user": "uc", "account": "c"}])
    alloc, _, left = hc.group_allocations(t, 30.0, [40.0, 40.0, 0.0], oversubscription=False)
    assert alloc[1:].tolist() == [20.0, 10.0, 0.0] and left == 0.0
    # b wants only 6: it takes 1 of the surplus, a gets the other 14 (second pass of the loop)
    alloc, _, left = hc.group_allocations(t, 30.0, [40.0, 6.0, 0.0], oversubscription=False)
    assert alloc[1:].tolist() == pytest.approx([24.0, 6.0, 0.0]) and left == pytest.approx(0.0)


def test_config_and_inputs():
    with pytest.raises(InvalidInstanceError, match=r"half_life=0 must be finite and > 0 \(PRIORITY_HALFLIFE\)"):
        hc.HTCondorPriority(half_life=0)
    with pytest.raises(InvalidInstanceError, match="default_prio_factor=0.5"):
        hc.HTCondorPriority(default_prio_factor=0.5)
    cfg = hc.HTCondorPriority()
    assert cfg.tau == pytest.approx(DAY / math.log(2))
    t = AccountTree([{"user": "a"}, {"user": "b", "prio_factor": 1e4}])
    assert cfg.prio_factors(t).tolist() == [1000.0, 1e4]
    with pytest.raises(InvalidInstanceError, match=r"in_use\[0\]=-1.0"):
        hc.update_rup([1.0], [-1.0], 10.0)
    with pytest.raises(InvalidInstanceError, match="dt=0"):
        hc.update_rup([1.0], [1.0], 0.0)
    with pytest.raises(InvalidInstanceError, match="half_life=0"):
        hc.update_rup([1.0], [1.0], 1.0, half_life=0)
    with pytest.raises(InvalidInstanceError, match=r"requested\[0\]=-1.0"):
        hc.group_allocations(AccountTree([{"user": "u"}]), 10.0, [-1.0])
    with pytest.raises(InvalidInstanceError, match="total=0"):
        hc.group_quotas(AccountTree([{"user": "u"}]), 0)


def test_strict_quota_counts_the_subtree_usage():
    # physics (quota 20, no surplus) already runs hep 12 + lep 6 = 18: hep may grow by 20 - 18 = 2 at most,
    # whatever it was allocated (NEGOTIATOR_STRICT_ENFORCE_QUOTA); records list the sub-groups before physics
    t = AccountTree([{"account": "hep", "parent": "physics", "quota": 15, "accept_surplus": True},
                     {"account": "lep", "parent": "physics", "quota": 5, "accept_surplus": True},
                     {"account": "physics", "quota": 20, "accept_surplus": False},
                     {"user": "higgs", "account": "hep"}, {"user": "dirac", "account": "lep"}])
    hep, lep, physics = t.node("hep"), t.node("lep"), t.node("physics")
    alloc, quota, _ = hc.group_allocations(t, 40.0, [60.0, 6.0], oversubscription=False)
    sq = hc.group_quotas(t, 40.0, oversubscription=False)[1]
    usage = np.zeros(t.n_nodes - t.n_users)
    usage[hep], usage[lep] = 12.0, 6.0
    lim = hc.group_limits(t, alloc, quota, sq, usage)
    # lep wants 6, is allocated min(6, 5) = 5 and gets no surplus (hep wants more than its own): its target
    # max(5, 5) = 5 is below the 6 it runs, so it matches nothing new
    assert lim[hep] == 14.0 and lim[lep] == 5.0
