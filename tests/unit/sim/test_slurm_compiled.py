"""Slurm's multifactor priority on the compiled loop (fairalloc.sim.policies.slurm_loop) against the event engine's
policy as the oracle (its semantics: fairshare.py's module docstring, with hand-computed tests in
test_fairshare_policies.py, which run on both engines), a hand case of the order and of EASY on it, and the
routing of what the compiled loop does not cover."""

import logging

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import SlurmPolicy, simulate
from fairalloc.workloads import Workload


def _two_level(wl):
    """Two accounts (shares 3 and 1) over the trace's users (shares 1, 2, 3, ...), alternating."""
    users = sorted({int(u) for u in np.unique(wl.user)})
    return AccountTree([{"account": "A", "shares": 3}, {"account": "B", "shares": 1}]
                       + [{"user": str(u), "account": "AB"[k % 2], "shares": 1 + k % 3} for k, u in enumerate(users)])


def _same(wl, capacity, policy, **kw):
    a = simulate(wl, capacity, policy=policy, engine="events", **kw)
    b = simulate(wl, capacity, policy=policy, engine="kernel", **kw)
    assert b.stats["engine"] == "kernel" and a.stats.get("engine") != "kernel"
    np.testing.assert_array_equal(b.jobs["start"].to_numpy(), a.jobs["start"].to_numpy())
    assert (b.stats["passes"], b.stats["decisions"]) == (a.stats["passes"], a.stats["decisions"])
    return b


@pytest.mark.parametrize("policy", ["slurm", "slurm+easy"])
@pytest.mark.parametrize("fairshare", ["fair_tree", "classic"])
@pytest.mark.parametrize("tree", ["flat", "two-level"])
@pytest.mark.parametrize("reset", ["none", "daily"])
def test_every_start_equals_the_event_engine_on_lublin(policy, fairshare, tree, reset):
    # seeded Lublin traces (long queues without backfilling), a 6 h half-life so that the usage moves the
    # order, passes every 300 s, max age 1 day; each combination on its own seed
    seed = ["slurm", "slurm+easy"].index(policy) + 2 * ["fair_tree", "classic"].index(fairshare) \
        + 4 * ["flat", "two-level"].index(tree) + 8 * ["none", "daily"].index(reset)
    wl = fa.workloads.lublin(300, nodes=32, rng=seed, n_users=6)
    acc = None if tree == "flat" else _two_level(wl)
    r = _same(wl, 32, policy, fairshare=fairshare, accounts=acc, usage_reset=reset, half_life=6 * 3600,
              calc_period=300, max_age=86400)
    assert r.stats["passes"] > 100          # the passes ran inside the trace


@pytest.mark.parametrize("opts", [{"favor_small": True, "weight_age": 5000}, {"integer": False, "dampening": 3,
                                                                              "fairshare": "classic"},
                                  {"decay": "exact", "calc_period": 60, "weight_job_size": 0},
                                  {"size_relative_to_time": True, "billing": {"cpu": 2.0}},
                                  {"weight_fairshare": 0, "partition": 0.5, "qos": 1.0, "weight_qos": 700}])
@pytest.mark.parametrize("policy", ["slurm", "slurm+easy"])
def test_other_knobs_equal_the_event_engine(policy, opts):
    wl = fa.workloads.lublin(250, nodes=16, rng=11, n_users=5)
    _same(wl, 16, policy, half_life=4 * 3600, **opts)



@pytest.mark.parametrize("opts", [{}, {"max_age": 3600}, {"integer": False, "weight_age": 20000},
                                  {"max_age": 600, "weight_age": 100000, "half_life": 600}])
def test_decisions_from_the_priorities_kept_equal_the_event_engine(monkeypatch, opts):
    # Without backfilling, the compiled loop decides most passes from the priorities kept since the last
    # ranking (slurm_loop._settle: the first job kept does not fit and no job that fits is within the age's
    # growth of it; or the true first jobs recomputed within that bound), re-prioritises only the users whose
    # Fair Tree factor changed, and re-ranks when that work exceeds the queue. Every path must give the
    # engine's starts: a long queue (1000 jobs on 32 processors, strict order), the default 7-day max age
    # (the kept priorities stay close), short max ages and large age weights (they drift fast: more
    # rankings), no integer truncation. The counters show that each path ran.
    from fairalloc.sim.policies import slurm_loop as SL

    states = []
    make = SL.new_state
    monkeypatch.setattr(SL, "new_state", lambda *a, **k: states.append(make(*a, **k)) or states[-1])
    wl = fa.workloads.lublin(1000, nodes=32, rng=21, n_users=8)
    _same(wl, 32, "slurm", **{"half_life": 6 * 3600, **opts})
    si = states[-1].si
    assert si[SL._CERTS] > 0 and si[SL._SETTLED] > 0 and si[SL._RANKS] > 0 and si[SL._REPRIO] > 0, si

def test_walltime_killed_and_rejected_jobs_equal_the_event_engine():
    # jobs killed at their requested time (enforce_walltime) and a job wider than the machine (rejected)
    wl = fa.workloads.lublin(200, nodes=16, rng=5, n_users=4)
    req = wl.run_time * np.where(np.arange(len(wl)) % 3 == 0, 0.5, 2.0)
    procs = wl.processors.copy()
    procs[7] = 64
    wl2 = Workload(submit=wl.submit, run_time=wl.run_time, processors=procs, user=wl.user, requested_time=req)
    for policy in ("slurm", "slurm+easy", "htcondor"):        # (HTCondor's compiled loop: condor_loop)
        a = simulate(wl2, 16, policy=policy, engine="events", enforce_walltime=True, half_life=3600)
        b = simulate(wl2, 16, policy=policy, engine="kernel", enforce_walltime=True, half_life=3600)
        np.testing.assert_array_equal(b.jobs["start"].to_numpy(), a.jobs["start"].to_numpy())
        np.testing.assert_array_equal(b.jobs["killed"].to_numpy(), a.jobs["killed"].to_numpy())
        assert np.isnan(b.jobs.loc[b.jobs["processors"] == 64, "start"]).all()
        assert b.jobs["killed"].any()


@pytest.mark.parametrize("engine", ["events", "kernel"])
def test_priority_order_and_easy_hand_computed(engine):
    # 4 processors, flat tree of users 0 and 1, a pass every 10 s, weights 1000 (age), 10000 (fair share),
    # 1000 (size), 1000 (partition), 7-day half-life and max age.
    #   job 0: user 0, 3 wide, 0..100.  At 10: job 1 (user 0, 1 wide, 200 s), job 2 (user 1, 1 wide, 200 s),
    #   job 3 (user 1, 4 wide, 10 s).
    # Pass at 10: user 0 has used 30 processor-seconds, user 1 nothing: Fair Tree LF u0 = (1/2)/1, u1 = inf:
    #   F = 1/2 and 1. Priorities (age 0): job 1 floor(5000 + 250 + 1000) = 6250, job 2 10000 + 250 + 1000
    #   = 11250, job 3 10000 + 1000 + 1000 = 12000. Order 3, 2, 1; 1 processor free.
    # Strict order: job 3 (4 wide) blocks everything until job 0 ends at 100; it runs 100..110; then jobs 2
    #   and 1 start at 110 (order 2, 1, both fit).
    # EASY: job 3 is the head, shadow 100 with no extra processor; job 2 would end at 210 > 100: it waits; so
    #   does job 1: the same starts. FCFS (arrival order 1, 2, 3) starts job 1 at 10, job 2 at 100 and the
    #   4-wide job 3 when both have ended (job 1 at 210, job 2 at 300).
    wl = Workload(submit=[0, 10, 10, 10], run_time=[100, 200, 200, 10], processors=[3, 1, 1, 4], user=[0, 0, 1, 1])
    for policy in ("slurm", "slurm+easy"):
        r = simulate(wl, 4, policy=policy, calc_period=10, engine=engine)
        assert r.jobs["start"].tolist() == [0, 110, 110, 100], policy
    assert simulate(wl, 4, policy="fcfs").jobs["start"].tolist() == [0, 10, 100, 300]
    # EASY on the priority order: job 0 2 wide (0..100); at 10 job 1 (user 0, 1 wide, 50 s), job 2 (user 1,
    # 3 wide, 10 s), job 3 (user 1, 1 wide, 200 s); no size weight: priorities 6000, 11000, 11000 (jobs 2, 3
    # tied: lower row first). Order 2, 3, 1 with 2 free: job 2 blocks. Strict: nothing starts until 100, when
    # jobs 2 and 3 start (4 processors) and job 1 waits for job 2's end at 110. EASY: job 2's shadow is 100
    # with 1 extra processor: job 3 (ends at 210, after the shadow) takes the extra one, job 1 (ends at 60,
    # before it) the other: both start at 10. FCFS starts job 1 at 10 (first in arrival order).
    wl1 = Workload(submit=[0, 10, 10, 10], run_time=[100, 50, 10, 200], processors=[2, 1, 3, 1], user=[0, 0, 1, 1])
    kw = {"calc_period": 10, "weight_job_size": 0, "engine": engine}
    assert simulate(wl1, 4, policy="slurm", **kw).jobs["start"].tolist() == [0, 110, 100, 100]
    assert simulate(wl1, 4, policy="slurm+easy", **kw).jobs["start"].tolist() == [0, 10, 100, 10]
    assert simulate(wl1, 4, policy="fcfs").jobs["start"].tolist() == [0, 10, 100, 100]


def test_default_path_and_routing(caplog):
    wl = fa.workloads.lublin(60, nodes=16, rng=2, n_users=3)
    assert simulate(wl, 16, policy="slurm").stats["engine"] == "kernel"
    assert simulate(wl, 16, policy="slurm+easy").stats["engine"] == "kernel"
    # a policy object runs on the event engine unless engine="kernel" (its state is the engine's either way)
    p = SlurmPolicy()
    assert simulate(wl, 16, policy=p).stats.get("engine") != "kernel"
    q = SlurmPolicy()
    assert simulate(wl, 16, policy=q, engine="kernel").stats["engine"] == "kernel"
    np.testing.assert_array_equal(q.usage, p.usage)
    np.testing.assert_array_equal(q.fairshare_factor, p.fairshare_factor)
    # what the compiled loop does not cover: the engine, logged with the reason; refused with engine="kernel"
    with caplog.at_level(logging.INFO, logger="fairalloc.sim.simulate"):
        r = simulate(wl, 16, policy="slurm", decay="continuous", half_life=3600)
    assert r.stats.get("engine") != "kernel" and "decay='continuous'" in caplog.text
    for kw, what in [({"decay": "continuous", "half_life": 3600}, "continuous"), ({"watch": 3}, "watch"),
                     ({"progress": True}, "progress")]:
        with pytest.raises(InvalidInstanceError, match=what):
            simulate(wl, 16, policy="slurm", engine="kernel", **kw)
    pool = fa.workloads.google_like(20, rng=0)
    with pytest.raises(InvalidInstanceError, match="pool"):
        simulate(pool, fa.sim.ResourcePool.from_workload(pool, 0.5), policy="slurm", engine="kernel")


def test_flat_fair_tree_factors_kept_only_when_the_rule_gives_them():
    # On a flat tree the compiled loop keeps Fair Tree's factors when its check (slurm_loop._same_ranks) shows that
    # no two neighbours in the kept order swap or change their tie; the oracle is the rule itself,
    # fairshare.slurm.fairshare_factors, on every usage vector. The vectors: passes (every usage times the same
    # decay, a few users charged), then exact ties, near ties (1 and 1 + 2^-52 apart: tied after the decay or not),
    # a user at 0, and a reset to 0.
    from fairalloc.fairshare.slurm import SlurmPriority, fairshare_factors
    from fairalloc.sim.policies import slurm_loop as SL
    from fairalloc.sim.policies.fairshare import _register

    _register()                                   # (the rules' callees, as a run registers them)
    tree = AccountTree.flat(list(range(6)), shares=[1, 1, 2, 1, 3, 1])
    sl = SL.new_state(tree, np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, np.int64), 4,
                      SlurmPriority(), partition=1.0, qos=0.0, resets=[])
    assert sl.si[SL._FLAT] == 1
    rng = np.random.default_rng(5)
    usage = rng.uniform(1e3, 1e6, 6)
    vectors = []
    for _ in range(60):
        usage = usage * 0.999
        usage[rng.integers(0, 6, 2)] += rng.uniform(0.0, 50.0, 2) * 10.0 ** rng.integers(0, 5)  # (some reorder)
        vectors.append(usage.copy())
    u = vectors[-1].copy()
    u[1] = u[3]                                   # equal shares, equal usage: tied
    vectors += [u.copy(), u * 0.5]
    u[0] = np.nextafter(u[3], np.inf)             # a near tie (one ulp apart): the rule decides, not the check
    vectors += [u.copy(), u * 0.999, u * 0.999 * 0.999]
    u[5] = 0.0                                    # unused: LF infinite
    vectors += [u.copy(), u * 0.7, np.zeros(6), np.zeros(6)]
    for k, v in enumerate(vectors):
        SL._factors(sl, v)
        np.testing.assert_array_equal(sl.fs, fairshare_factors(tree, v), err_msg=f"vector {k}")
    kept = int(sl.si[SL._FSKIP])
    assert 0 < kept < len(vectors)                # the check keeps most passes' factors, not all
    two = SL.new_state(AccountTree([{"account": "A"}, {"user": "0", "account": "A"}, {"user": "1"}]), np.zeros(0, np.int64),
                       np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, np.int64), 4, SlurmPriority(), partition=1.0,
                       qos=0.0, resets=[])
    assert two.si[SL._FLAT] == 0                  # accounts: the factors are always computed
