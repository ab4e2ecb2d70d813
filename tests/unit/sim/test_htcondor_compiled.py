"""HTCondor's user priorities on the compiled loop (fairalloc.sim.policies.condor_loop) against the event engine's
policy as the oracle (its semantics: fairshare.py's module docstring, with hand-computed tests in
test_fairshare_policies.py, whose HTCondor cases run on both engines; walltime kills and rejections in
test_slurm_compiled), the paths of the compiled state (users back at the RUP floor, negotiations over some of
the users), the routing of what it does not cover, and the first spin's order of negotiate_work_into against
the documented key."""

import logging

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.fairshare import htcondor as hc
from fairalloc.sim import HTCondorPolicy, simulate
from fairalloc.workloads import Workload


def _states(monkeypatch):
    """The loop states made during the test (slurm_loop.condor_state, recorded)."""
    from fairalloc.sim.policies import slurm_loop as SL

    states = []
    make = SL.condor_state
    monkeypatch.setattr(SL, "condor_state", lambda *a, **k: states.append(make(*a, **k)) or states[-1])
    return states


def _same(wl, capacity, **kw):
    """Every start, killed flag, cycle and negotiation count, and the final RUPs, uses and uncharged usages of
    the compiled run equal the event engine's."""
    pa, pb = HTCondorPolicy(**kw), HTCondorPolicy(**kw)
    a = simulate(wl, capacity, policy=pa, engine="events")
    b = simulate(wl, capacity, policy=pb, engine="kernel")
    assert b.stats["engine"] == "kernel" and a.stats.get("engine") != "kernel"
    np.testing.assert_array_equal(b.jobs["start"].to_numpy(), a.jobs["start"].to_numpy())
    np.testing.assert_array_equal(b.jobs["killed"].to_numpy(), a.jobs["killed"].to_numpy())
    assert (b.stats["cycles"], b.stats["negotiations"]) == (a.stats["cycles"], a.stats["negotiations"])
    np.testing.assert_array_equal(pb.rup, pa.rup)
    np.testing.assert_array_equal(pb.in_use, pa.in_use)
    np.testing.assert_array_equal(pb.uncharged, pa.uncharged)
    assert pb.last == pa.last
    return b


def _factors(wl, k=3):
    """A flat tree over the trace's users with priority factors 1000, 2000, 500, ... (cycling)."""
    users = sorted({int(u) for u in np.unique(wl.user)})
    return AccountTree([{"user": str(u), "prio_factor": [1000, 2000, 500][i % k]} for i, u in enumerate(users)])


@pytest.mark.parametrize("case", range(6))
def test_every_start_equals_the_event_engine_on_lublin(case, monkeypatch):
    # seeded Lublin traces; short half-lives move the RUPs (and the pie) between cycles; priority factors;
    # a billing rate that is not the width (the slot weight the pie counts); cycles of 10 min
    opts = [{}, {"half_life": 3600}, {"half_life": 600, "interval": 600}, {"accounts": "factors"},
            {"billing": {"cpu": 0.5}, "half_life": 7200}, {"default_prio_factor": 10, "min_slot_weight": 2}][case]
    states = _states(monkeypatch)
    wl = fa.workloads.lublin(400, nodes=32, rng=30 + case, n_users=7)
    if opts.get("accounts") == "factors":
        opts = {"accounts": _factors(wl)}
    r = _same(wl, 32, **opts)
    assert r.stats["cycles"] > 200 and r.stats["negotiations"] > 50      # the cycles ran inside the trace
    from fairalloc.sim.policies import condor_loop as CL

    hcs = states[-1].hc
    assert hcs.ci[CL._NEG] == r.stats["negotiations"] and hcs.ci[CL._DECISIONS] > r.stats["negotiations"]


def test_users_back_at_the_floor_and_partial_negotiations_equal_the_event_engine(monkeypatch):
    # condor_loop updates at a cycle only the users whose RUP moves (a user back at the floor 0.5 with nothing in
    # use is left out, and joins again when it starts a job) and negotiates over the users with idle jobs only.
    # Two bursts of jobs a week apart with a 1 h half-life: between them every RUP decays to the floor (each
    # user leaves the updated set), in the second burst they come back. Counters show both paths ran.
    from fairalloc.sim.policies import condor_loop as CL

    states = _states(monkeypatch)
    a = fa.workloads.lublin(150, nodes=16, rng=3, n_users=5)
    b = fa.workloads.lublin(150, nodes=16, rng=4, n_users=5)
    gap = float(a.submit.max() + a.run_time.sum()) + 7 * 86400.0
    wl = Workload(submit=np.r_[a.submit, b.submit + gap], run_time=np.r_[a.run_time, b.run_time],
                  processors=np.r_[a.processors, b.processors], user=np.r_[a.user, b.user])
    _same(wl, 16, half_life=3600)
    # the first burst, then one job of one user after the gap: only that user's RUP moves at the end
    n_users = len(np.unique(a.user))
    tail = Workload(submit=np.r_[a.submit, gap], run_time=np.r_[a.run_time, 60.0], processors=np.r_[a.processors, 1],
                    user=np.r_[a.user, a.user[0]])
    _same(tail, 16, half_life=3600)
    assert states[-1].hc.ci[CL._NLIVE] == 1 < n_users


def test_default_path_and_routing(caplog):
    wl = fa.workloads.lublin(60, nodes=16, rng=2, n_users=3)
    assert simulate(wl, 16, policy="htcondor").stats["engine"] == "kernel"
    # a policy object runs on the event engine unless engine="kernel"
    assert simulate(wl, 16, policy=HTCondorPolicy()).stats.get("engine") != "kernel"
    groups = AccountTree([{"account": "a", "quota": 8}, {"account": "b", "quota": 8}]
                         + [{"user": str(u), "account": "ab"[k % 2]} for k, u in enumerate(sorted(set(wl.user)))])
    with caplog.at_level(logging.INFO, logger="fairalloc.sim.simulate"):
        r = simulate(wl, 16, policy="htcondor", accounts=groups)
    assert r.stats.get("engine") != "kernel" and "accounting groups" in caplog.text
    for kw, what in [({"accounts": groups}, "accounting groups"), ({"watch": 3}, "watch"),
                     ({"progress": True}, "progress")]:
        with pytest.raises(InvalidInstanceError, match=what):
            simulate(wl, 16, policy="htcondor", engine="kernel", **kw)


def test_first_spin_order_from_any_start_is_the_documented_key():
    # negotiate_work_into orders the submitters by EUP, then starvation ratio usage/(usage + limit), then index
    # (negotiate_into's docstring; HTCondor's submitter sort) by an insertion sort from the order it is given.
    # Whatever that order, the result must be np.lexsort's on (EUP, ratio, index): tie-heavy EUPs and usages,
    # 200 seeded cases.
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        eup = rng.choice([500.0, 1000.0, 1500.0], n)
        usage = rng.choice([0.0, 1.0, 2.0], n)
        jobs = 3
        ptr = np.arange(0, (n + 1) * jobs, jobs, dtype=np.int64)
        size = np.ones(n * jobs)
        order = rng.permutation(n).astype(np.int64)
        shares, limits = np.empty(n), np.empty(n)
        u = usage.copy()
        # the pie: every submitter active; total 4n, free 0 (the spin computes the order, then matches nothing)
        hc.negotiate_work_into(eup, u, ptr, size, 1e-12, 4.0 * n, np.inf, float(usage.sum()), 1.0,
                               np.zeros(n * jobs, np.bool_), shares, limits, order, np.zeros(n, np.bool_),
                               np.empty(n))
        share = (1 / eup) / (1 / eup).sum()    # the first spin's pie (the manual's 1/EUP shares of W = 4n)
        alloc = usage + np.maximum(share * 4.0 * n - usage, 0.0)
        ratio = np.where(alloc > 0, usage / np.where(alloc > 0, alloc, 1), 3.4028234663852886e38)
        expect = np.lexsort((np.arange(n), ratio, eup))
        np.testing.assert_array_equal(order, expect)


def test_cached_decay_factors_give_the_rule_to_the_bit():
    # _condor_cycles keeps Eq. 6's factors while the cycle length and tau repeat (its dc cache, kept across
    # calls); the oracle is the uncached rule, rup_update_into (decay_factors of each dt), cycle by cycle. Calls
    # alternate tau and interval (an interval of 0.1 s gives cycle lengths that differ in the last bits), so a
    # stale cache would show
    from fairalloc.sim.policies.fairshare import _condor_cycles

    rng = np.random.default_rng(5)
    n = 4
    rup, in_use = rng.uniform(0.5, 50.0, n), rng.uniform(0.0, 8.0, n)
    ref = rup.copy()
    dc = np.array([np.nan, 0.0, 0.0, np.nan])
    last = 0.0
    for step, (interval, half_life) in enumerate([(60.0, 3600.0), (60.0, 3600.0), (60.0, 600.0), (0.1, 600.0),
                                                  (60.0, 3600.0), (0.1, 86400.0)] * 3):
        tau = half_life / np.log(2)
        uncharged = rng.uniform(0.0, 100.0, n) * (step % 2)
        now = last + interval * rng.integers(1, 5) + 0.5 * interval
        r_unc = uncharged.copy()
        t, k = last + interval, 0
        while t <= now:                       # the oracle: the plain rule at every cycle
            dt = t - last if k == 0 else t - prev
            rho = in_use + r_unc / dt if k == 0 else in_use
            hc.rup_update_into(ref, rho, dt, tau, hc.MIN_PRIORITY, ref)
            prev, t, k = t, t + interval, k + 1
        got_last, got_k = _condor_cycles(rup, in_use, uncharged, np.zeros(n), last, now, interval, tau,
                                         hc.MIN_PRIORITY, dc)
        assert got_k == k
        np.testing.assert_array_equal(rup, ref)
        last = got_last
