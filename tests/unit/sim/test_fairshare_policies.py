"""Slurm multifactor and HTCondor user priority as simulator policies: hand-computed schedules, the classic
fair-share document's example through the simulator, the decay against 0.5^(t/hl), invariants, bad input."""

import math

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import HTCondorPolicy, SlurmPolicy, simulate
from fairalloc.workloads import Workload

# The hand-computed three-user schedule (also fairshare.py's docstring). 4 processors, every job 4 wide,
# flat tree of users 0, 1, 2, a pass every 10 s, the multifactor page's weights (age 1000, fair share
# 10000, size 1000, partition 1000), max age 7 days.
#   job 0: user 0, 0..100.  jobs 1, 2, 3: users 0, 1, 2, submitted at 50, 10 s each.
# t=50 (pass): usage u0 > 0, u1 = u2 = 0. Fair Tree: LF = S/U: u0 (1/3)/1, u1 = u2 = inf (tied);
#   ranks: u1 3, u2 tied 3, u0 1 -> F = 1, 1, 1/3. Priorities (age 0, size 4/4 = 1):
#   job 2 = job 3 = 10000 + 1000 + 1000 = 12000; job 1 = floor(3333.3 + 2000) = 5333.
#   Order 2, 3 (tie: same submission, lower row), 1; the machine is full.
# t=100: job 0 ends, job 2 starts (the age term 1000 * 50/604800 = 0.08 does not change the integers).
# t=110 (pass): u2 has no usage -> rank 3; u1 used 40, u0 400 -> LF u1 (1/3)/(40/440) > u0's: job 3, then
#   job 1 at 120.
# Every Slurm and HTCondor hand case runs on both engines: the readable event engine and the compiled loop
# (fairalloc.sim.policies.slurm_loop, condor_loop), which fa.simulate uses by default for "slurm" and "htcondor"
# named by string.
ENGINES = ["events", "kernel"]

HAND = Workload(submit=[0, 50, 50, 50], run_time=[100, 10, 10, 10], processors=[4, 4, 4, 4], user=[0, 0, 1, 2])


def _invariants(wl, r, capacity):
    """No start before submission, every job finished, the capacity never exceeded (an events sweep)."""
    j = r.jobs
    assert (j["finished"]).all()
    assert (j["start"] >= j["submit"]).all()
    t = np.concatenate([j["start"].to_numpy(), j["end"].to_numpy()])
    d = np.concatenate([j["processors"].to_numpy(), -j["processors"].to_numpy()])
    order = np.lexsort((d, t))          # ends (negative) before starts at one instant
    assert np.cumsum(d[order]).max() <= capacity


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", ["slurm", "slurm+easy"])
@pytest.mark.parametrize("decay", ["slurm", "exact", "continuous"])
def test_slurm_three_users_hand_computed(policy, decay, engine):
    if engine == "kernel" and decay == "continuous":       # Eq. 6 between events: the event engine only
        with pytest.raises(InvalidInstanceError, match="continuous"):
            simulate(HAND, 4, policy=policy, calc_period=10, decay=decay, engine=engine)
        return
    r = simulate(HAND, 4, policy=policy, calc_period=10, decay=decay, engine=engine)
    assert r.jobs["start"].tolist() == [0, 120, 100, 110]
    assert simulate(HAND, 4, policy="fcfs").jobs["start"].tolist() == [0, 100, 110, 120]


@pytest.mark.parametrize("engine", ENGINES)
def test_slurm_three_users_classic(engine):
    # Classic over the flat tree (S = 1/3 each) at the pass at 50: U_E = U_N = usage share: u0 1, others 0:
    # F = 2^(-1/(1/3)) = 1/8 for u0, 2^0 = 1 for u1, u2 -> job 1 = floor(1250 + 2000) = 3250 < 12000.
    # At 110: u0 400/440, u1 40/440, u2 0 -> F(u2) = 1 > F(u1) = 2^(-3*40/440) > F(u0): job 3 then job 1.
    p = SlurmPolicy(calc_period=10, fairshare="classic")
    r = simulate(HAND, 4, policy=p, engine=engine)
    assert r.jobs["start"].tolist() == [0, 120, 100, 110]
    # the last pass is at 130 (job 1's end): usages 440, 40, 40 (7-day half-life: decay below 1e-3 here)
    assert p.fairshare_factor[1] == pytest.approx(2 ** (-3 * 40 / 520), rel=1e-3)
    assert p.tree.user_names == ("0", "1", "2")


@pytest.mark.parametrize("engine", ENGINES)
def test_classic_document_example_through_the_simulator(engine):
    # Slurm's classic fair-share page: users' usages 0.2, 0.25, 0, 0.25, 0 of the machine and 0.3 in account G
    # (no shares), factors printed there 0.408479 (u1), 0.022097 (u2), 0.125 (u3), 0.5 (u4), 0.749154 (u5).
    # Produced by 1-processor jobs from 0: u1 200 s, u2 250 s, u4 250 s, u6 (in G) 300 s; no decay; a pass
    # every 300 s; u3 submits a 1 s job at 1000 so that the passes at 600 and 900 run (factors from the totals).
    tree = AccountTree([
        {"account": "A", "shares": 40}, {"account": "B", "parent": "A", "shares": 30},
        {"account": "C", "parent": "A", "shares": 10},
        {"account": "D", "shares": 60}, {"account": "E", "parent": "D", "shares": 25},
        {"account": "F", "parent": "D", "shares": 35}, {"account": "G", "shares": 0},
        {"user": "1", "account": "B"}, {"user": "2", "account": "C"}, {"user": "3", "account": "C"},
        {"user": "4", "account": "E"}, {"user": "5", "account": "F"}, {"user": "6", "account": "G", "shares": 0}],
        zero_shares="allow")
    wl = Workload(submit=[0, 0, 0, 0, 1000], run_time=[200, 250, 250, 300, 1], processors=[1, 1, 1, 1, 1],
                  user=[1, 2, 4, 6, 3])
    p = SlurmPolicy(accounts=tree, fairshare="classic", half_life=math.inf, calc_period=300)
    simulate(wl, 8, policy=p, engine=engine)
    assert p.usage[:6].tolist() == [200, 250, 1, 250, 0, 300]     # u3's own 1 s is charged at its end
    f = dict(zip(tree.user_names, p.fairshare_factor))
    for user, printed in {"1": 0.408479, "2": 0.022097, "3": 0.125, "4": 0.5, "5": 0.749154}.items():
        assert f[user] == pytest.approx(printed, abs=5e-7), user


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("decay", ["exact", "slurm"])
def test_slurm_decay_step(decay, engine):
    # One processor for user 0 from 0 to 100, passes every 10 s, half-life 50 s. Each pass: U <- f^10 U +
    # 10 f^10 (usage_charge r f^r b with r = 10, b = 1): U(100) = 10 f^10 (1 - f^100) / (1 - f^10). Then 21
    # passes of decay only up to user 1's job end at 310: U(310) = U(100) f^210; exact: f^210 = 0.5^(210/50).
    hl = 50.0
    wl = Workload(submit=[0, 300], run_time=[100, 10], processors=[1, 1], user=[0, 1])
    p = SlurmPolicy(calc_period=10, half_life=hl, decay=decay)
    simulate(wl, 4, policy=p, engine=engine)
    f = 2 ** (-1 / hl) if decay == "exact" else 1 - 0.693 / hl
    u100 = 10 * f ** 10 * (1 - f ** 100) / (1 - f ** 10)
    assert p.usage[0] == pytest.approx(u100 * f ** 210, rel=1e-12)
    if decay == "exact":
        assert p.usage[0] == pytest.approx(u100 * 0.5 ** (210 / hl), rel=1e-12)


def test_slurm_continuous_decay_is_eq6():
    # decay="continuous": U(t) = b tau (1 - e^(-t/tau)) while running (b = 2 processors), then e^(-dt/tau) per dt:
    # at 310, U = 2 tau (1 - 0.5^(100/hl)) 0.5^(210/hl), tau = hl / ln 2.
    hl = 50.0
    tau = hl / math.log(2)
    wl = Workload(submit=[0, 300], run_time=[100, 10], processors=[2, 1], user=[0, 1])
    p = SlurmPolicy(calc_period=10, half_life=hl, decay="continuous")
    simulate(wl, 4, policy=p)
    assert p.usage[0] == pytest.approx(2 * tau * (1 - 0.5 ** (100 / hl)) * 0.5 ** (210 / hl), rel=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_slurm_usage_reset_daily(engine):
    # PriorityUsageResetPeriod=DAILY from 1970-01-01 00:00 (epoch 0): no decay, passes every 300 s, one processor
    # from 0 to 87000. The pass at 86400 clears the usage and charges 300 s; passes at 86700 and 87000: 900.
    wl = Workload(submit=[0], run_time=[87000], processors=[1], user=[0])
    p = SlurmPolicy(calc_period=300, half_life=math.inf, usage_reset="daily")
    simulate(wl, 1, policy=p, engine=engine)
    assert p.usage[0] == 900.0
    q = SlurmPolicy(calc_period=300, half_life=math.inf)
    simulate(wl, 1, policy=q, engine=engine)
    assert q.usage[0] == 87000.0


@pytest.mark.parametrize("engine", ENGINES)
def test_slurm_age_only_is_fcfs_and_easy(engine):
    # With only the age weight, priority never decreases with the wait and ties go to the earlier submission:
    # the order is arrival order, so the schedule is FCFS's (and, with no pass inside the trace, EASY's).
    wl = fa.workloads.lublin(400, nodes=32, rng=3, n_users=6)
    kw = {"weight_fairshare": 0, "weight_job_size": 0, "weight_partition": 0, "weight_age": 1000}
    a = simulate(wl, 32, policy="slurm", engine=engine, **kw).jobs["start"].to_numpy()
    b = simulate(wl, 32, policy="fcfs").jobs["start"].to_numpy()
    np.testing.assert_array_equal(a, b)
    kw["calc_period"] = 1e12
    c = simulate(wl, 32, policy="slurm+easy", engine=engine, **kw).jobs["start"].to_numpy()
    d = simulate(wl, 32, policy="easy").jobs["start"].to_numpy()
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("policy,opts", [("slurm", {}), ("slurm+easy", {}), ("slurm", {"fairshare": "classic"}),
                                         ("slurm", {"decay": "continuous", "calc_period": 60}), ("htcondor", {}),
                                         ("htcondor", {"interval": 600, "half_life": 3600})])
def test_invariants_on_lublin(policy, opts):
    wl = fa.workloads.lublin(600, nodes=64, rng=7, n_users=8)
    r = simulate(wl, 64, policy=policy, **opts)
    _invariants(wl, r, 64)
    if policy == "htcondor":      # jobs start only at negotiation cycles
        iv = opts.get("interval", 60)
        s = r.jobs["start"].to_numpy()
        assert np.allclose(s / iv, np.round(s / iv))


@pytest.mark.parametrize("engine", ENGINES)
def test_slurm_fair_share_favours_the_light_user(engine):
    # Two users submit the same stream of jobs, but user 0 has run alone for a day before: under Slurm its
    # jobs wait longer than user 1's; FCFS interleaves them by submission (equal waits by construction).
    n = 40
    sub = np.r_[0.0, np.repeat(86400.0 + np.arange(n / 2) * 10, 2)]
    wl = Workload(submit=sub, run_time=np.r_[86400.0, np.full(n, 600.0)], processors=np.full(n + 1, 8),
                  user=np.r_[0, np.tile([0, 1], n // 2)])
    r = simulate(wl, 8, policy="slurm", engine=engine).jobs
    w = r.groupby("user")["wait"].mean()
    assert w[0] > w[1]


# ---- HTCondor --------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_htcondor_pie_hand_computed(engine):
    # 10 processors; users 0, 1, 2 with 5 one-processor jobs each (100 s) at 0; user 0's priority factor 2000,
    # the others 1000 (DEFAULT_PRIO_FACTOR); every RUP starts at the floor 0.5: EUP 1000, 500, 500.
    # Cycle at 0: shares (1/1000) : (1/500) : (1/500) = 0.2, 0.4, 0.4 of W = 10 -> limits 2, 4, 4; order by EUP:
    # user 1 takes 4, user 2 4, user 0 2; the pool is full. Jobs end at 100; the next cycle is at 120: 10 free,
    # 5 idle jobs (user 0: 3, users 1, 2: 1 each): users 1 and 2 get theirs (and leave), user 0 its slice
    # (~2), then the leftover spin (user 0 alone, share 1) its third.
    tree = AccountTree([{"user": "0", "prio_factor": 2000}, {"user": "1"}, {"user": "2"}])
    wl = Workload(submit=np.zeros(15), run_time=np.full(15, 100.0), processors=np.ones(15, int),
                  user=np.repeat([0, 1, 2], 5))
    p = HTCondorPolicy(accounts=tree)
    r = simulate(wl, 10, policy=p, engine=engine)
    assert r.jobs["start"].tolist() == [0, 0, 120, 120, 120] + [0, 0, 0, 0, 120] * 2
    fc = simulate(wl, 10, policy="fcfs").jobs["start"].tolist()
    assert fc == [0] * 10 + [100] * 5                  # FCFS: users 0 and 1 first


@pytest.mark.parametrize("engine", ENGINES)
def test_htcondor_rup_steady_state_and_half_life(engine):
    # HTCondor's manual: the RUP tends to the cores in use, and halves with nothing running every half-life.
    # User 0 runs 4 processors from 0 to 6000 (cycles every 60 s, half-life 600 s): from the floor 0.5,
    # RUP(6000) = 4 - 3.5 * 0.5^(6000/600) (each cycle beta = 0.5^(60/600), composed); then 11 cycles with
    # nothing running up to 6660 (user 1's job ends): RUP = RUP(6000) * 0.5^(660/600).
    wl = Workload(submit=[0, 6600], run_time=[6000, 60], processors=[4, 1], user=[0, 1])
    p = HTCondorPolicy(half_life=600, interval=60)
    assert simulate(wl, 4, policy=p, engine=engine).stats.get("engine", "events") == engine
    r6000 = 4 - 3.5 * 0.5 ** 10
    assert p.rup[0] == pytest.approx(r6000 * 0.5 ** (660 / 600), rel=1e-9)


def test_htcondor_group_quota_with_surplus():
    # Two groups of 4 processors each on 8; group a's user wants 8 one-processor jobs, group b's nothing until
    # 500. Without surplus a runs 4; with accept_surplus it takes b's unused 4 too.
    recs = [{"account": "a", "quota": 4}, {"account": "b", "quota": 4}, {"user": "0", "account": "a"},
            {"user": "1", "account": "b"}]
    wl = Workload(submit=np.r_[np.zeros(8), 500.0], run_time=np.full(9, 1000.0), processors=np.ones(9, int),
                  user=np.r_[np.zeros(8, int), 1])
    strict = simulate(wl, 8, policy="htcondor", accounts=AccountTree(recs)).jobs["start"].to_numpy()
    assert (strict[:8] == 0).sum() == 4 and strict[8] == 540.0      # b's job at the first cycle after 500
    recs[0]["accept_surplus"] = True
    loose = simulate(wl, 8, policy="htcondor", accounts=AccountTree(recs)).jobs["start"].to_numpy()
    assert (loose[:8] == 0).sum() == 8 and loose[8] == 1020.0       # b waits for a job of a to end (at 1000)


# ---- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["slurm", "htcondor"])
def test_half_life_zero_refused(policy):
    with pytest.raises(InvalidInstanceError, match="half_life=0"):
        simulate(HAND, 4, policy=policy, half_life=0)
    with pytest.raises(InvalidInstanceError, match="half_life=-5"):
        simulate(HAND, 4, policy=policy, half_life=-5)


def test_bad_options_named():
    with pytest.raises(InvalidInstanceError, match=r"\['backfill'\] do not apply to policy 'htcondor'"):
        simulate(HAND, 4, policy="htcondor", backfill=True)
    with pytest.raises(InvalidInstanceError, match=r"\['tau'\] do not apply to policy 'slurm'"):
        simulate(HAND, 4, policy="slurm", tau=3)
    with pytest.raises(InvalidInstanceError, match=r"users\[0\]=0 has no association"):
        simulate(HAND, 4, policy="slurm", accounts=AccountTree([{"user": "1"}, {"user": "2"}]))
    with pytest.raises(InvalidInstanceError, match="'mem', which the trace lacks"):
        simulate(HAND, 4, policy="slurm", billing={"cpu": 1, "mem": 0.25})
    with pytest.raises(InvalidInstanceError, match="rigid jobs on processors"):
        wl = fa.workloads.google_like(3, 20, rng=0)
        simulate(wl, fa.sim.ResourcePool.from_workload(wl, 0.5), policy="htcondor")
    with pytest.raises(InvalidInstanceError, match="partition"):
        SlurmPolicy(partition=2)


def test_registered_names():
    names = fa.sim.policy_names()
    assert {"slurm", "slurm+easy", "htcondor"} <= set(names)
    assert fa.sim.make_policy("slurm+easy").backfill and fa.sim.make_policy("slurm", backfill=True).name == "slurm+easy"


# ---- Slurm on a pool of tasks ----------------------------------------------------------------------
def test_slurm_on_a_task_pool_hand_computed():
    # A pool <4 cpu, 4 memory>; every task <1, 1>. Job 0 (user 0): 4 tasks, 0..100. At 50 job 1 (user 0) and
    # job 2 (user 1), 4 tasks of 10 s each. Pass at 50: u0 has all the usage: Fair Tree over 2 users gives u1
    # 2/2, u0 1/2; a task's job-size factor is its dominant share 1/4. Priorities 10000 + 250 + 1000 = 11250
    # (job 2) and 5000 + 250 + 1000 = 6250 (job 1): at 100 job 2's 4 tasks start and job 1 waits (nothing
    # overtakes a blocked job); at 110 job 1's. Billing CPU=1 per task: u0 is charged 4 x 100 + 4 x 10.
    wl = Workload(submit=[0, 50, 50], run_time=[100, 10, 10], tasks=[4, 4, 4], user=[0, 0, 1],
                  resources=[[1.0, 1.0]] * 3, resource_names=("cpu", "memory"))
    p = SlurmPolicy(calc_period=10, half_life=math.inf)
    r = simulate(wl, [4.0, 4.0], policy=p)
    assert r.jobs["start"].tolist() == [0, 110, 100]
    assert p.usage.tolist() == [440.0, 40.0]


def test_slurm_on_google_like_pool_invariants():
    wl = fa.workloads.google_like(6, 400, rng=2)
    pool = fa.sim.ResourcePool.from_workload(wl, 0.6)
    r = simulate(wl, pool, policy="slurm", calc_period=60, half_life=3600)
    j = r.jobs
    assert j["finished"].all() and (j["start"] >= j["submit"]).all()
    lf = r.launches
    names = [c for c in lf.columns if c.startswith("amount:")]
    t = np.concatenate([lf["start"].to_numpy(), lf["end"].to_numpy()])
    for c, cap in zip(names, pool.totals):
        d = np.concatenate([lf[c].to_numpy(), -lf[c].to_numpy()])
        order = np.lexsort((d, t))
        assert np.cumsum(d[order]).max() <= cap * (1 + 1e-9)
    with pytest.raises(InvalidInstanceError, match="EASY backfilling.*needs rigid jobs"):
        simulate(wl, pool, policy="slurm+easy")
