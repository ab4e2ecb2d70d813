"""YARN's fair-share preemption in the task simulator (issue 28; fairalloc.sim.yarn_preemption).

The hand cases' expected numbers are computed in each docstring from the rules the module states, which are
FairScheduler.md's and FSAppAttempt's / FSPreemptionThread's: fair shares of the runnable applications (weight 1
each, one queue per application, so with n runnable applications each gets 1/n of each resource, counted in
whole units of 1e-6 of the total), an application below min(threshold x fair share, demand) by dominant shares
for the timeout is starved by the difference, and a container may go only if its application keeps its fair
share without it (most recently launched first). Every hand case runs on both engines (the compiled loop and
``engine="reference"``, the plain-Python loop); on seeded random instances the compiled loop's events are the
reference's, event by event, and invariants hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import ResourcePool
from fairalloc.sim.yarn_preemption import YarnPreemption, reference_yarn_run


def _wl(submit, run, tasks, user, res):
    return fa.workloads.Workload(submit=submit, run_time=run, tasks=tasks, user=user, resources=res)


def _tasks(lf):
    """The launch rows as one (job, start, end, killed, preempted) per task, sorted."""
    out = []
    for j, k, s, e, kl, p in lf[["job", "tasks", "start", "end", "killed", "preempted"]].itertuples(index=False):
        out += [(int(j), float(s), float(e), bool(kl), bool(p))] * int(k)
    return sorted(out)


@pytest.fixture(params=["auto", "reference"])
def engine(request):
    return request.param


def _evictions(r):
    p = r.preemptions
    return [(float(t), int(a), int(b), int(j), float(s)) for t, a, b, j, s in
            p[["time", "preemptor_user", "victim_user", "victim_job", "victim_start"]].itertuples(index=False)]


# ---- hand cases -------------------------------------------------------------------------------------------
def test_starved_after_the_timeout_takes_a_container_back(engine):
    """Pool of 4 CPUs; application 0: four 1-CPU tasks of 100 s at 0; application 1: two at 10. From 10 both are
    runnable: fair share 2 CPUs each, application 1's goal min(0.5 x 2, 2) = 1 CPU, it holds 0: below from 10.
    With a 30 s timeout it is starved at 40 by 1 CPU: one container (floor(1/1)). Application 0 holds 4; without
    its most recently launched task 3 >= its fair share 2: that one goes (job 0, started at 0, ran 40 s: 40 CPU-s
    lost). Application 1 starts a task at 40 and then holds 1 = its goal: nothing more. The victim, requeued,
    restarts at 100 with application 1's second task (both ending at 200)."""
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    r = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 30}, engine=engine)
    assert r.stats["engine"] == ("kernel" if engine == "auto" else "reference")
    assert _evictions(r) == [(40.0, 1, 0, 0, 0.0)]
    assert r.stats["wasted_work"] == {"r0": 40.0} and r.stats["preemptions"] == 1
    assert r.jobs["start"].tolist() == [0.0, 40.0] and r.jobs["end"].tolist() == [200.0, 200.0]


def test_not_before_the_timeout(engine):
    """The same with a 200 s timeout: application 1 would be starved at 210, but application 0's tasks end at
    100 and it gets its two CPUs then: no preemption."""
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    r = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 200}, engine=engine)
    assert r.stats["preemptions"] == 0 and len(r.preemptions) == 0
    assert r.jobs["start"].tolist() == [0.0, 100.0]


def test_not_above_the_threshold(engine):
    """Application 0: three tasks at 0; application 1: one task at 0 (job 1) and two at 10 (job 2); pool 4 (all
    100 s). At 10 application 1 holds 1 CPU, its fair share is 2, demand 3: with threshold 0.5 its goal is
    min(1, 3) = 1, not below: never preempts. With threshold 1.0 its goal is min(2, 3) = 2 > 1: starved at 40 by
    1 CPU; application 0 without its newest task holds 2, not below its fair share 2: that task goes (job 0,
    started at 0)."""
    wl = _wl([0, 0, 10], [100, 100, 100], [3, 1, 2], [0, 1, 1], [[1.0], [1.0], [1.0]])
    low = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 30}, engine=engine)
    assert low.stats["preemptions"] == 0
    high = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 30, "threshold": 1.0}, engine=engine)
    assert _evictions(high) == [(40.0, 1, 0, 0, 0.0)]
    assert high.jobs["start"].tolist() == [0.0, 0.0, 40.0]


def test_victims_keep_their_fair_share(engine):
    """Pool 4; application 0: three tasks at 0; application 2: one task at 1 (the most recently launched);
    application 1: two at 10. Three runnable applications: fair share 1/3 of the pool each (333,333 units of
    10^6); threshold 1.0: application 1's goal 333,333, it holds 0: starved at 40 by 333,333 units = 1.33 CPUs,
    one container. The newest task is application 2's, which without it holds 0 < 1/3: kept; the next is
    application 0's (without it 2 CPUs >= 1.33): it goes. Then application 1 holds 1 CPU, starved by 0.33 CPU,
    less than one container: nothing more."""
    wl = _wl([0, 1, 10], [100, 100, 100], [3, 1, 2], [0, 2, 1], [[1.0], [1.0], [1.0]])
    r = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 30, "threshold": 1.0}, engine=engine)
    assert _evictions(r) == [(40.0, 1, 0, 0, 0.0)]


def test_kill_drops_the_victim(engine):
    """The first case with ``victim="kill"``: job 0 loses one task at 40 and is reported killed; its other three
    end at 100."""
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    r = fa.simulate(wl, [4.0], policy="yarn", preemption={"timeout": 30, "victim": "kill"}, engine=engine)
    assert _evictions(r) == [(40.0, 1, 0, 0, 0.0)]
    assert bool(r.jobs["killed"].iat[0]) and r.jobs["end"].iat[0] == 100.0


def test_utilization_threshold(engine):
    """Application 0 (queue ``a``, max share 3 CPUs) holds 3 of 4 CPUs (75%), its fourth task refused by the max
    share; application 1 (queue ``b``) asks for one 2-CPU task at 10, which does not fit the free CPU. Threshold
    1.0: its goal is min(fair share 2, demand 2) = 2, it holds 0: starved at 40 by 2 CPUs, one container. The
    cluster is at 75%, below YARN's default utilization threshold 0.8: no preemption (the task starts at 100).
    At a utilization threshold of 0.5: the newest of application 0's tasks goes at 40 (without it 2 >= its fair
    share 2; the free CPU plus its CPU fit the 2-CPU task), and the task starts at 40."""
    t = AccountTree([{"account": "a", "max_share": {"r0": 3}}, {"account": "b"}, {"user": "0", "account": "a"},
                     {"user": "1", "account": "b"}], resources=["r0"])
    wl = _wl([0, 10], [100, 100], [4, 1], [0, 1], [[1.0], [2.0]])
    r = fa.simulate(wl, [4.0], policy="yarn", accounts=t, preemption={"timeout": 30, "threshold": 1.0},
                    engine=engine)
    assert r.stats["preemptions"] == 0 and r.jobs["start"].iat[1] == 100.0
    r = fa.simulate(wl, [4.0], policy="yarn", accounts=t, engine=engine,
                    preemption={"timeout": 30, "threshold": 1.0, "utilization_threshold": 0.5})
    assert _evictions(r) == [(40.0, 1, 0, 0, 0.0)] and r.jobs["start"].iat[1] == 40.0


# ---- the compiled loop against the reference; invariants ---------------------------------------------------
def _same_run(a, b):
    pd.testing.assert_frame_equal(a.preemptions.reset_index(drop=True), b.preemptions.reset_index(drop=True))
    for col in ("start", "end", "killed"):
        np.testing.assert_array_equal(a.jobs[col].to_numpy(), b.jobs[col].to_numpy())
    assert _tasks(a.launches) == _tasks(b.launches)
    for key in ("decisions", "preemptions", "preemption_loops", "wasted_work"):
        assert a.stats[key] == b.stats[key], key


def _two_queues(n_users, names):
    """Queues ``a`` (weight 2, threshold 0.8, timeout 120 s) and ``b`` (weight 1, the run's defaults), users
    alternating."""
    recs = [{"account": "a", "weight": 2.0, "fair_share_preemption_threshold": 0.8,
             "fair_share_preemption_timeout": 120.0}, {"account": "b"}]
    return AccountTree(recs + [{"user": str(u), "account": "ab"[u % 2]} for u in range(n_users)], resources=list(names))


@pytest.mark.parametrize("seed,pre,tree", [(2, {"timeout": 60}, False), (3, {"timeout": 60, "threshold": 1.0}, False),
                                           (2, {"timeout": 60, "victim": "kill"}, False),
                                           (3, {"timeout": 0, "threshold": 1.0, "utilization_threshold": 0.5}, False),
                                           (3, {"timeout": 60}, True), (2, {"timeout": 30, "victim": "kill"}, True)])
def test_compiled_loop_is_the_reference(seed, pre, tree):
    """Seeded google_like instances (6 applications, 300 jobs, a pool of 40% of the demand; with ``tree``: two
    queues of weights 2 and 1 with their own settings): the compiled loop's events are the reference's, event
    by event; the runs preempt."""
    wl = fa.workloads.google_like(6, 300, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    accounts = _two_queues(6, wl.resource_names) if tree else None
    a = fa.simulate(wl, pool, policy="yarn", preemption=pre, accounts=accounts)
    b = fa.simulate(wl, pool, policy="yarn", preemption=pre, accounts=accounts, engine="reference")
    assert a.stats["engine"] == "kernel" and b.stats["engine"] == "reference"
    assert b.stats["preemptions"] > 0
    _same_run(a, b)


def test_compiled_loop_grows_its_room(monkeypatch):
    """The state made with room for 2 candidates, events and requeued runs: each check that needs more asks the
    loop's caller for it; the same run as the reference."""
    import fairalloc.sim.preemption as P

    made = P.new_state
    monkeypatch.setattr(P, "new_state", lambda *args, **kw: made(*args, **{**kw, "rows": 2}))
    wl = fa.workloads.google_like(6, 300, rng=3, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    a = fa.simulate(wl, pool, policy="yarn", preemption={"timeout": 60})
    b = reference_yarn_run(wl, pool, preemption={"timeout": 60})
    assert b.stats["preemptions"] > 2
    _same_run(a, b)


@pytest.mark.parametrize("seed,pre", [(3, YarnPreemption(timeout=60)), (2, YarnPreemption(timeout=30, victim="kill"))])
def test_invariants_on_random_instances(seed, pre):
    """Every task runs to its end once (requeue), the pool is never exceeded, the lost work is the evicted rows'
    (end - start) x demand, no task is evicted at its start instant, no application preempts itself."""
    wl = fa.workloads.google_like(6, 300, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    r = fa.simulate(wl, pool, policy="yarn", preemption=pre)
    assert r.stats["preemptions"] > 0
    caps = np.asarray(pool.totals, dtype=float)
    res = np.asarray(wl.resources, dtype=float)
    t = _tasks(r.launches)
    job = np.array([x[0] for x in t], dtype=np.int64)
    st, en = np.array([x[1] for x in t]), np.array([x[2] for x in t])
    pre_row = np.array([x[4] for x in t], dtype=bool)
    if pre.victim == "requeue":
        np.testing.assert_array_equal(np.bincount(job[~pre_row], minlength=len(wl)), wl.tasks)
    ev = sorted([(s, 1, j) for s, j in zip(st, job)] + [(e, 0, j) for e, j in zip(en, job)])
    held = np.zeros(len(caps))
    for _, kind, j in ev:
        held += res[j] if kind else -res[j]
        assert np.all(held <= caps + 1e-9)
    lost = sum(((en[k] - st[k]) * res[job[k]] for k in np.flatnonzero(pre_row)), np.zeros(len(caps)))
    assert np.allclose(list(r.stats["wasted_work"].values()), lost)
    assert np.all(en[pre_row] > st[pre_row])
    p = r.preemptions
    assert (p["preemptor_user"] != p["victim_user"]).all()


def test_one_preemption_state_type_with_yarn(monkeypatch):
    """YARN with preemption passes the compiled loop the same numba type as every other queue policy (the queue
    core's loop compiled once per process)."""
    numba = pytest.importorskip("numba")
    import fairalloc.sim.kernels as K

    seen = {}
    original = K.task_run

    def spy(*args, preempt=None, **kwargs):
        seen[key] = str(numba.typeof(preempt))
        return original(*args, preempt=preempt, **kwargs)

    monkeypatch.setattr(K, "task_run", spy)
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    for key in [("yarn", None), ("yarn", 30), ("kueue", True), ("mesos", None)]:
        fa.simulate(wl, [4.0], policy=key[0], preemption=key[1])
    assert len(set(seen.values())) == 1, seen


# ---- bad input ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,field", [
    ({"preemption": True}, "preemption.timeout"),
    ({"preemption": {"timeout": -1}}, "preemption.timeout"),
    ({"preemption": {"threshold": 2.0, "timeout": 1}}, "preemption.threshold"),
    ({"preemption": {"timeout": 1, "strategies": ["LessThanInitialShare"]}}, "preemption"),
    ({"preemption": {"timeout": 1, "victim": "pause"}}, "preemption.victim"),
    ({"preemption": 30, "weights": [1.0, 0.0]}, "weights"),
    ({"preemption": 30, "blocking": "stop"}, "blocking"),
])
def test_bad_input_names_the_field(kw, field):
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    with pytest.raises(InvalidInstanceError) as e:
        fa.simulate(wl, [4.0], policy="yarn", **kw)
    assert e.value.argument == field


def test_min_share_preemption_is_refused():
    t = AccountTree([{"account": "a", "min_share_preemption_timeout": 10.0}, {"user": "0", "account": "a"},
                     {"user": "1", "account": "a"}], resources=["r0"])
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    with pytest.raises(InvalidInstanceError, match="min-share preemption is not simulated"):
        fa.simulate(wl, [4.0], policy="yarn", accounts=t, preemption=30)


def test_other_policies_refuse_preemption():
    wl = _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])
    with pytest.raises(InvalidInstanceError, match="only 'kueue' and 'yarn'"):
        fa.simulate(wl, [4.0], policy="mesos", preemption=True)
