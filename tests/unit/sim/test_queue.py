"""Queue policies: hand-computed schedules (WFP3, BUC, F1/F2, UNICEF, SJF) and edge cases."""

import numpy as np
import pytest

from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import BUC, F1, PriorityPolicy, ema_update, make_queue_policy, threshold_update
from fairalloc.sim.policies.queue import f1_score, f2_score, precision, unicef_score, wfp3_score
from fairalloc.sim import simulate
from fairalloc.workloads import Workload


def test_wfp3_hand_computed():
    # 4 procs. A: t=0, 10 s, 4 procs (fills the machine until 10). B: t=1, 2 s, 2 procs.
    # C: t=2, 8 s, 2 procs. D: t=3, 1 s, 4 procs.
    # t=10: waits B 9, C 8, D 7; (w/r)^3 n: B (9/2)^3*2 = 182.25, C (8/8)^3*2 = 2, D (7/1)^3*4 = 1372
    #   -> D first (ends 11); B is next and does not fit (no backfilling).
    # t=11: B (10/2)^3*2 = 250 > C (9/8)^3*2 = 2.85 -> B then C, both at 11.
    wl = Workload(submit=[0, 1, 2, 3], run_time=[10, 2, 8, 1], processors=[4, 2, 2, 4])
    r = simulate(wl, 4, policy="wfp3")
    assert r.jobs["start"].tolist() == [0, 11, 11, 10]
    assert simulate(wl, 4, policy="fcfs").jobs["start"].tolist() == [0, 10, 10, 18]


def test_buc_hand_computed():
    # 4 procs, K_p = 1440, every walltime 100 s. Default update: the paper's rule (BUC Section 3),
    # up when P >= 0.5: S <- S + 0.1 P (100 - S), down otherwise: S <- S - 0.1 (1 - P) S.
    # J0 user 0: t=0, run 100, 2 procs -> ends 100, P = 1   -> S_0 = 60 + 0.1*40 = 64.
    # J1 user 1: t=0, run 10,  2 procs -> ends 10,  P = 0.1 -> S_1 = 60 - 0.1*0.9*60 = 54.6.
    # J2 user 2: t=20, run 100, 2 procs -> starts 20 (2 free), ends 120.
    # J3 user 1: t=50, 4 procs, run 50; J4 user 0: t=60, 4 procs, run 50: both wait.
    # t=100 (J0 ends, 2 free): S_f(J3) = (0.8*54.6 + 0.2/(100/1e5))*1440 + 50 = 243.68*1440 + 50 = 350949.2
    #                          S_f(J4) = (0.8*64 + 200)*1440 + 40 = 251.2*1440 + 40 = 361768 -> J4 first,
    # which needs 4: blocked.  t=120: J4 starts (ends 170), then J3 at 170. FCFS: J3 at 120, J4 at 170.
    wl = Workload(submit=[0, 0, 20, 50, 60], run_time=[100, 10, 100, 50, 50],
                  requested_time=[100] * 5, processors=[2, 2, 2, 4, 4], user=[0, 1, 2, 1, 0])
    pol = BUC(k_p=1440)
    r = simulate(wl, 4, policy=pol)
    assert r.jobs["start"].tolist() == [0, 0, 20, 170, 120]
    assert simulate(wl, 4, policy="fcfs").jobs["start"].tolist() == [0, 0, 20, 120, 170]
    # final scores (J3, J4: P = 0.5, precise): user 0: 64 + 0.1*0.5*36 = 65.8;
    # user 1: 54.6 + 0.1*0.5*45.4 = 56.87; user 2: 64
    assert pol.scores[0] == pytest.approx(65.8) and pol.scores[1] == pytest.approx(56.87)
    assert pol.scores[2] == pytest.approx(64.0)


def test_buc_hand_computed_with_the_moving_average_option():
    # Same case, update = ema_update(0.1): S <- 0.9 S + 0.1 * 100 P.
    # S_0 = 0.9*60 + 10 = 64, S_1 = 0.9*60 + 1 = 55 -> S_f(J3) = 244*1440 + 50 < S_f(J4): same schedule.
    wl = Workload(submit=[0, 0, 20, 50, 60], run_time=[100, 10, 100, 50, 50],
                  requested_time=[100] * 5, processors=[2, 2, 2, 4, 4], user=[0, 1, 2, 1, 0])
    pol = BUC(k_p=1440, update=ema_update(0.1))
    assert simulate(wl, 4, policy=pol).jobs["start"].tolist() == [0, 0, 20, 170, 120]
    # final scores: user 0: 64 then J4 (P = 0.5): 0.9*64 + 5 = 62.6; user 1: 55 -> 0.9*55 + 5 = 54.5
    assert pol.scores[0] == pytest.approx(62.6) and pol.scores[1] == pytest.approx(54.5)
    assert pol.scores[2] == pytest.approx(64.0)


def test_buc_paper_rule_counts_half_precision_as_precise():
    # BUC Section 4: the injected P = 0.5 user's S_u rose from 60 to 96.14, so P = 0.5 raises S_u.
    # 100 jobs of P = 0.5 under S <- S + 0.1*0.5*(100 - S): 100 - 40 * 0.95^100 = 99.763...
    # (the moving average tends to 50 instead: 50 + 10 * 0.9^100 = 50.0003)
    up, ema = threshold_update(0.1), ema_update(0.1)
    s = e = 60.0
    for _ in range(100):
        s, e = up(s, 0.5), ema(e, 0.5)
    assert s == pytest.approx(100 - 40 * 0.95**100) and s > 96.14
    assert e == pytest.approx(50 + 10 * 0.9**100)
    assert up(60.0, 0.499) < 60.0 < up(60.0, 0.5)
    with pytest.raises(InvalidInstanceError, match="threshold"):
        threshold_update(0.1, threshold=1.5)


def test_buc_killed_jobs_do_not_update_the_score():
    wl = Workload(submit=[0, 0], run_time=[200, 50], requested_time=[100, 100], processors=[1, 1],
                  user=[0, 1])
    pol = BUC()
    simulate(wl, 4, policy=pol, enforce_walltime=True)
    assert 0 not in pol.scores                      # killed at its walltime: no update
    assert pol.scores[1] == pytest.approx(60 + 0.1 * 0.5 * 40)   # P = 0.5: precise
    pol2 = BUC()
    simulate(wl, 4, policy=pol2, enforce_walltime=False)  # ran to completion: P = min(200/100, 1) = 1
    assert pol2.scores[0] == pytest.approx(60 + 0.1 * 40)


def test_buc_custom_update_rule_and_bad_kp():
    calls = []
    pol = BUC(update=lambda s, p: calls.append(p) or 100.0)
    wl = Workload(submit=[0], run_time=[30], requested_time=[60], processors=[1], user=[3])
    simulate(wl, 1, policy=pol)
    assert calls == [0.5] and pol.scores == {3: 100.0}
    with pytest.raises(InvalidInstanceError, match="k_p"):
        BUC(k_p=0)


def test_f1_f2_unicef_sjf_orders_hand_computed():
    # 4 procs; a blocker (4 procs, 0..100) then three jobs waiting at t=100:
    # X: t=1, r=400, n=1;  Y: t=2, r=100, n=2;  Z: t=3, r=25, n=4.
    wl = Workload(submit=[0, 1, 2, 3], run_time=[100, 400, 100, 25], processors=[4, 1, 2, 4])
    # F1 = c1 sqrt(r) c2 n + c3 log10 s (c1 c2 = 0.0001352*0.2765352 = 3.7388e-5):
    #   X 3.7388e-5*20*1 + c3 log10 1 ... (s = 1, 2, 3): X 7.478e-4 + 0, Y 7.478e-4 + 0.007147*0.30103
    #   = 0.00290, Z 3.7388e-5*5*4 + 0.007147*0.47712 = 7.478e-4 + 0.003410 = 0.00416 -> X, Y, Z.
    assert simulate(wl, 4, policy="f1").jobs["start"].tolist() == [0, 100, 100, 500]
    # SJF: Z (25) first at 100 (ends 125), then Y (100) and X (400) at 125.
    assert simulate(wl, 4, policy="sjf").jobs["start"].tolist() == [0, 125, 125, 100]
    # UNICEF at t=100, w/(log2(max(n,2)) r): X 99/(1*400) = 0.2475, Y 98/(1*100) = 0.98,
    #   Z 97/(2*25) = 1.94 -> Z first (100..125); at 125: X 124/400 = 0.31, Y 123/100 = 1.23 -> Y, X.
    assert simulate(wl, 4, policy="unicef").jobs["start"].tolist() == [0, 125, 125, 100]
    # F2 = c1 r + c2 sqrt(n) + c3 log10 s: X 8e-5 + 3.207e-4 + 0 = 4.007e-4; Y 2e-5 + 4.535e-4 + 0.002094
    #   = 0.002567; Z 5e-6 + 6.414e-4 + 0.003319 = 0.003965 -> X, Y, Z like F1.
    assert simulate(wl, 4, policy="f2").jobs["start"].tolist() == [0, 100, 100, 500]


def test_score_edge_cases():
    # s = 0: log10(max(0, 1)) = 0, finite
    assert np.isfinite(f1_score([10], [1], [0])).all() and np.isfinite(f2_score([10], [1], [0])).all()
    # n = 1 scored as n = 2 (log2 2 = 1) instead of dividing by log2 1 = 0
    assert unicef_score([10], [5], [1]).tolist() == [2.0]
    # r = 0 taken as 1 s
    assert wfp3_score([2], [0], [1]).tolist() == [8.0]
    assert precision(50, 100) == 0.5 and precision(500, 100) == 1.0 and np.isnan(precision(5, 0))


def test_user_priority_policy_and_names():
    widest = PriorityPolicy(lambda q: q.processors, higher_first=True, name="widest")
    # at t=10 the 3-processor job goes first (10..11); the 2-processor job no longer fits -> 11
    wl = Workload(submit=[0, 1, 2], run_time=[10, 1, 1], processors=[4, 2, 3])
    assert simulate(wl, 4, policy=widest).jobs["start"].tolist() == [0, 11, 10]
    assert make_queue_policy("f1+easy").backfill and make_queue_policy("f1+easy").name == "f1+easy"
    assert isinstance(make_queue_policy("f1"), F1)
    with pytest.raises(InvalidInstanceError, match="score returned shape"):
        simulate(wl, 4, policy=PriorityPolicy(lambda q: [1.0], name="bad"))


# ---- rigid jobs on one pool of one resource (the job's demand of it plays its processor count) -----
def _four_jobs(resources):
    # the FCFS docstring's instance: 4 processors; jobs (width, run time) (4, 10), (2, 8), (2, 2), (1, 4)
    return Workload(submit=[0, 1, 2, 3], run_time=[10, 8, 2, 4], processors=[4, 2, 2, 1], resources=resources)


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_queue_policies_on_a_one_resource_pool(policy):
    """By hand: job 0 holds all 4 units until 10; jobs 1 and 2 (2 each) start at 10; job 3 (1 unit) when
    job 2 ends at 12 (with EASY too: nothing is free before 10). The pool's free capacity is read,
    never written by the policy (it was read-only: "output array is read-only")."""
    from fairalloc.sim import ResourcePool

    wl = _four_jobs([[4.0], [2.0], [2.0], [1.0]])
    for engine in ("auto", "events"):
        r = simulate(wl, ResourcePool([4.0]), policy=policy, engine=engine)
        assert r.jobs["start"].tolist() == [0.0, 10.0, 10.0, 12.0]


def test_queue_policies_need_one_resource_or_processors():
    from fairalloc.sim import ResourcePool

    wl = _four_jobs([[4.0, 1.0], [2.0, 1.0], [2.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInstanceError, match="one pool of one resource"):
        simulate(wl, ResourcePool([4.0, 4.0]), policy="fcfs")
    with pytest.raises(InvalidInstanceError, match="whole-number"):
        simulate(_four_jobs([[1.5], [2.0], [2.0], [1.0]]), ResourcePool([4.0]), policy="easy")
