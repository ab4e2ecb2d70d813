"""Preemption in the task simulator (issue 28): Kueue's fair-sharing preemption (fairalloc.sim.preemption).

Expected numbers are computed by hand in each test's docstring from the rules the module states (KEP 1714's
S2-a / S2-b on Kueue's DRS, per mille of the lendable capacity); the hand cases run on both engines (the
compiled loop, the default, and ``engine="reference"``, the plain-Python loop). The reference's admission
without preemption (one admission per tournament, ``cycle=False``: the order the compiled loop follows, not yet
Kueue's scheduling cycle, see ``test_kueue_local_queues.py``) is checked against the compiled ``kueue`` key (an independent path: the tournament of
``KueueQueues`` against the core's one-float key); with preemption, the compiled loop's events (admissions,
evictions with victim and time, requeue order, lost work, loops, decisions) against the reference's on seeded
random instances, and invariants recomputed from the result's own tables (every task runs to its end exactly
once, capacity and quota never exceeded, lost work, the minimum run time, loops).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import ResourcePool
from fairalloc.sim.preemption import LoopCounter, Preemption, reference_kueue_run, wasted_by_user


def _wl(submit, run, tasks, user, res):
    return fa.workloads.Workload(submit=submit, run_time=run, tasks=tasks, user=user, resources=res)


def _tasks(lf):
    """The launch rows as one (job, start, end, killed, preempted) per task, sorted (the compiled loop groups a
    run's consecutive starts in one row, the reference writes a row per task)."""
    out = []
    for j, k, s, e, kl, p in lf[["job", "tasks", "start", "end", "killed", "preempted"]].itertuples(index=False):
        out += [(int(j), float(s), float(e), bool(kl), bool(p))] * int(k)
    return sorted(out)


@pytest.fixture(params=["auto", "reference"])
def engine(request):
    return request.param


def _fill_then_arrive():
    """Pool of 4 CPUs; user 0: four 1-CPU tasks of 100 s at 0; user 1: two at 10."""
    return _wl([0, 10], [100, 100], [4, 2], [0, 1], [[1.0], [1.0]])


# ---- hand cases -------------------------------------------------------------------------------------------
def test_two_evictions_requeued_at_the_front(engine):
    """S2-a, default tree (one ClusterQueue per user, nominal 0; the cohort holds the pool, lendable 4):
    at 10 user 1's first task: DRS(q1 + w) = 250 <= DRS(q0 - z) = 750: evict; its second: 500 <= 500: evict.
    The most recently admitted of user 0's tasks go first; all four were admitted at 0, so the workload
    order decides (Kueue: the UID; here the launch order): rows 0, then 1. Each ran 10 s: 10 CPU-s lost. Requeued at the front of user 0's queue, they
    restart at 100 (when rows 2, 3 end) and end at 200; user 1's tasks run 10..110."""
    r = fa.simulate(_fill_then_arrive(), [4.0], policy="kueue", preemption=True, engine=engine)
    assert r.stats["engine"] == ("kernel" if engine == "auto" else "reference")
    p = r.preemptions
    assert p["time"].tolist() == [10.0, 10.0]
    assert p["victim_user"].tolist() == [0, 0] and p["preemptor_user"].tolist() == [1, 1]
    assert p["lost:r0"].tolist() == [10.0, 10.0] and p["ran"].tolist() == [10.0, 10.0]
    assert _tasks(r.launches) == [(0, 0.0, 10.0, False, True)] * 2 + [(0, 0.0, 100.0, False, False)] * 2 + \
        [(0, 100.0, 200.0, False, False)] * 2 + [(1, 10.0, 110.0, False, False)] * 2
    assert r.jobs["end"].tolist() == [200.0, 110.0]
    assert r.stats["preemptions"] == 2 and r.stats["wasted_work"] == {"r0": 20.0}
    assert r.stats["preemption_loops"] == 0
    assert wasted_by_user(r)["lost:r0"].to_dict() == {0: 20.0}


def test_kill_drops_the_victims(engine):
    """victim="kill": the same two evictions; user 0's job ends at 100 with its two other tasks, killed."""
    r = fa.simulate(_fill_then_arrive(), [4.0], policy="kueue", preemption={"victim": "kill"}, engine=engine)
    assert r.jobs["end"].tolist() == [100.0, 110.0]
    assert r.jobs["killed"].tolist() == [True, False]
    assert _tasks(r.launches) == [(0, 0.0, 10.0, True, True)] * 2 + [(0, 0.0, 100.0, False, False)] * 2 + \
        [(1, 10.0, 110.0, False, False)] * 2


def test_min_run_time_defers_to_the_first_eligible_instant(engine):
    """min_run_time=20: at 10 user 0's tasks have run 10 s < 20: no candidate; the simulator wakes at 20
    (0 + 20) and evicts two tasks then (20 CPU-s each); user 1 runs 20..120."""
    r = fa.simulate(_fill_then_arrive(), [4.0], policy="kueue", preemption={"min_run_time": 20}, engine=engine)
    assert r.preemptions["time"].tolist() == [20.0, 20.0]
    assert r.stats["wasted_work"] == {"r0": 40.0}
    assert r.jobs["start"].tolist() == [0.0, 20.0] and r.jobs["end"].tolist() == [200.0, 120.0]


def test_strategies_differ_on_a_large_victim(engine):
    """User 0 runs one 4-CPU task (pool 4) from 0; user 1 wants 1 CPU at 10. S2-a: DRS(q1 + w) = 250 <=
    DRS(q0 - z) = 0? no. S2-b: 250 < DRS(q0) = 1000: yes. Only S2-a: no eviction, user 1 waits until 100.
    The default list (S2-a, then S2-b on what it left) and S2-b alone evict at 10; user 0's task reruns
    from 110 (user 1's ends then; user 0 needs the whole pool)."""
    wl = _wl([0, 10], [100, 100], [1, 1], [0, 1], [[4.0], [1.0]])
    only_a = fa.simulate(wl, [4.0], policy="kueue", preemption="LessThanOrEqualToFinalShare", engine=engine)
    assert only_a.stats["preemptions"] == 0 and only_a.jobs["start"].tolist() == [0.0, 100.0]
    for pre in (True, "LessThanInitialShare"):
        r = fa.simulate(wl, [4.0], policy="kueue", preemption=pre, engine=engine)
        assert r.stats["preemptions"] == 1 and r.stats["wasted_work"] == {"r0": 40.0}
        assert r.jobs["start"].tolist() == [0.0, 10.0] and r.jobs["end"].tolist() == [210.0, 110.0]


def test_within_nominal_quota_reclaims(engine):
    """Cohort of 4 CPUs as two ClusterQueues with nominal 2 each: user 0 borrows the whole pool at 0; user 1
    (within its nominal 2 with one task added) reclaims unconditionally (FairSharingPreemptWithinNominal)
    two tasks (rows 0, 1: admitted together, the workload order); its third task would borrow, and q0, now
    at its nominal 2, borrows nothing: no candidate, it waits. At 100 rows 2, 3 end: q0 (not borrowing with
    a task added: 1, then 2 <= 2) goes before q1 (borrowing: 3 > 2), so user 0's two requeued tasks restart
    at 100 and user 1's third starts at 110, when its first two end."""
    tree = AccountTree([{"account": "co"}, {"account": "a", "parent": "co", "nominal_quota": {"r0": 2}},
                        {"account": "b", "parent": "co", "nominal_quota": {"r0": 2}},
                        {"user": "0", "account": "a"}, {"user": "1", "account": "b"}], resources=["r0"])
    wl = _wl([0, 10], [100, 100], [4, 3], [0, 1], [[1.0], [1.0]])
    r = fa.simulate(wl, [4.0], policy="kueue", accounts=tree, preemption=True, engine=engine)
    assert r.stats["preemptions"] == 2
    assert [t[1] for t in _tasks(r.launches) if not t[4]] == [0.0, 0.0, 100.0, 100.0, 10.0, 10.0, 110.0]


def test_loop_counter_by_hand():
    lc = LoopCounter(60.0)
    assert [lc.record(t, a, b) for t, a, b in [(0, 0, 1), (30, 1, 0), (60, 0, 1), (200, 1, 0)]] == \
        [False, True, True, False]
    assert lc.loops == 2


# ---- off means unchanged ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_reference_admission_is_the_compiled_kueue(seed):
    """Without preemption the reference's tournament gives the compiled kueue key's schedule (one
    ClusterQueue per user: the core's key is that queue's DRS with the head task added)."""
    wl = fa.workloads.google_like(6, 300, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.5)
    ref = reference_kueue_run(wl, pool, preemption=None, cycle=False)
    cmp = fa.simulate(wl, pool, policy="kueue")
    np.testing.assert_array_equal(ref.jobs["start"].to_numpy(), cmp.jobs["start"].to_numpy())
    np.testing.assert_array_equal(ref.jobs["end"].to_numpy(), cmp.jobs["end"].to_numpy())


def test_preemption_off_is_todays_kueue():
    wl = fa.workloads.google_like(5, 200, rng=3, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.5)
    a = fa.simulate(wl, pool, policy="kueue")
    b = fa.simulate(wl, pool, policy="kueue", preemption=None)
    c = fa.simulate(wl, pool, policy="kueue", preemption=False)
    assert a.stats["engine"] == b.stats["engine"] == c.stats["engine"] == "kernel"
    for x in (b, c):
        np.testing.assert_array_equal(a.jobs["start"].to_numpy(), x.jobs["start"].to_numpy())
        assert x.preemptions is None


def test_queue_policies_pass_one_preemption_state_type(monkeypatch):
    """Every queue policy passes the compiled loop a preemption state of one numba type, preempting or not
    (a live one, or one that does nothing), so that the queue core's loop is compiled once per process.
    Found by the CI's compile measurements: with ``ps=None`` for policies that do not preempt and a
    ``PreemptState`` for kueue with preemption, numba compiled the whole loop twice (about 215 CPU s cold
    for the second)."""
    numba = pytest.importorskip("numba")
    import fairalloc.sim.kernels as K

    seen = {}
    original = K.task_run

    def spy(*args, preempt=None, **kwargs):
        seen[key] = None if preempt is None else str(numba.typeof(preempt))
        return original(*args, preempt=preempt, **kwargs)

    monkeypatch.setattr(K, "task_run", spy)
    for key in [("kueue", None), ("kueue", True), ("kueue", "kill"), ("yarn", None), ("mesos", None),
                ("volcano", None), ("volcano-drf", None), ("volcano-hdrf", None)]:
        pre = key[1] if key[1] != "kill" else {"victim": "kill"}
        r = fa.simulate(_fill_then_arrive(), [4.0], policy=key[0], preemption=pre)
        assert r.stats["engine"] == "kernel"
        assert (r.preemptions is None) == (pre is None)
    assert None not in seen.values(), seen
    assert len(set(seen.values())) == 1, seen


# ---- invariants with preemption on random instances ------------------------------------------------------
def _check_invariants(wl, pool, r, pre):
    caps = np.asarray(pool.totals, dtype=float)
    res = np.asarray(wl.resources, dtype=float)
    t = _tasks(r.launches)
    job = np.array([x[0] for x in t], dtype=np.int64)
    st, en = np.array([x[1] for x in t]), np.array([x[2] for x in t])
    pre_row = np.array([x[4] for x in t], dtype=bool)
    # every task of every job runs to its end exactly once (requeue), or is killed
    done = np.bincount(job[~pre_row], minlength=len(wl))
    if pre.victim == "requeue":
        np.testing.assert_array_equal(done, wl.tasks)
        assert np.allclose(en[~pre_row] - st[~pre_row], wl.run_time[job[~pre_row]])
    # the pool is never exceeded: sweep over the rows' intervals (ends before starts at one instant)
    ev = sorted([(s, 1, j) for s, j in zip(st, job)] + [(e, 0, j) for e, j in zip(en, job)])
    held = np.zeros(len(caps))
    for _, kind, j in ev:
        held += res[j] if kind else -res[j]
        assert np.all(held <= caps + 1e-9)
    # lost work and the minimum run time, from the launch rows
    lost = sum(((en[k] - st[k]) * res[job[k]] for k in np.flatnonzero(pre_row)), np.zeros(len(caps)))
    assert np.allclose([r.stats["wasted_work"][n] for n in r.stats["wasted_work"]], lost)
    assert np.all(en[pre_row] - st[pre_row] >= pre.min_run_time) and np.all(en[pre_row] > st[pre_row])
    assert r.stats["preemptions"] == int(pre_row.sum())
    # a loop row has an eviction back (victim and preemptor swapped) within the window before it
    p = r.preemptions
    for k in range(len(p)):
        t, a, b = p["time"].iat[k], p["preemptor_user"].iat[k], p["victim_user"].iat[k]
        back = p.iloc[:k]
        want = bool(((back["preemptor_user"] == b) & (back["victim_user"] == a)
                     & (t - back["time"] <= pre.loop_window)).any())
        assert bool(p["loop"].iat[k]) == want
    assert r.stats["preemption_loops"] == int(p["loop"].sum())


@pytest.mark.parametrize("seed,pre", [(0, Preemption()), (3, Preemption(min_run_time=600.0)),
                                      (2, Preemption(victim="kill")),
                                      (3, Preemption(strategies=("LessThanInitialShare",), loop_window=7200.0))])
def test_invariants_on_random_instances(seed, pre):
    wl = fa.workloads.google_like(6, 300, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    r = fa.simulate(wl, pool, policy="kueue", preemption=pre)
    assert r.stats["preemptions"] > 0          # the instances are contended enough to preempt
    _check_invariants(wl, pool, r, pre)


@pytest.mark.parametrize("seed,pre,cycle", [(0, True, False), (2, {"victim": "kill"}, False),
                                            (3, {"min_run_time": 600.0}, False), (0, True, True)])
def test_shortcuts_change_nothing(seed, pre, cycle):
    """The default's three shortcuts (compiled tournament, refused heads aside first, candidates only from
    ClusterQueues with DRS(y) >= DRS(x + w)) against the plainest reading: the same evictions and ends (with
    Kueue's cycle, ``cycle=True``: the first and the third)."""
    wl = fa.workloads.google_like(8, 400, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    a = reference_kueue_run(wl, pool, preemption=pre, cycle=cycle)
    b = reference_kueue_run(wl, pool, preemption=pre, shortcuts=False, cycle=cycle)
    assert a.stats["preemptions"] > 0
    assert a.preemptions.equals(b.preemptions)
    np.testing.assert_array_equal(a.jobs["end"].to_numpy(), b.jobs["end"].to_numpy())
    np.testing.assert_array_equal(a.launches["start"].to_numpy(), b.launches["start"].to_numpy())


# ---- the compiled loop against the reference ----------------------------------------------------------------
def _same_run(a, b):
    """The compiled run ``a`` and the reference's ``b``: the same evictions (time, preemptor and its head job,
    victim and its job and start, lost work, loop flags, in order), starts and ends, per-task launches (the
    requeued tasks' restarts included), decisions and totals."""
    pd.testing.assert_frame_equal(a.preemptions.reset_index(drop=True), b.preemptions.reset_index(drop=True))
    for col in ("start", "end", "killed"):
        np.testing.assert_array_equal(a.jobs[col].to_numpy(), b.jobs[col].to_numpy())
    assert _tasks(a.launches) == _tasks(b.launches)
    for key in ("decisions", "preemptions", "preemption_loops", "wasted_work"):
        assert a.stats[key] == b.stats[key], key


def _cohort_tree(n_users, names, totals):
    """One cohort of ClusterQueues, one LocalQueue (user) each: users below n/2 with a nominal quota of 10% of
    each resource and weight 2, the others 5% and weight 1 (reclaiming within nominal quota, weighted shares).
    (With several LocalQueues in one ClusterQueue the compiled ``kueue`` key's admission order is not the
    reference's tournament, without preemption already: the core orders the users, Kueue the ClusterQueue's
    oldest head.)"""
    recs = [{"account": "co"}]
    for u in range(n_users):
        f, w = (0.10, 2.0) if u < n_users // 2 else (0.05, 1.0)
        recs.append({"account": f"q{u}", "parent": "co", "weight": w,
                     "nominal_quota": {n: f * float(t) for n, t in zip(names, totals)}})
    return AccountTree(recs + [{"user": str(u), "account": f"q{u}"} for u in range(n_users)], resources=list(names))


@pytest.mark.parametrize("seed,pre,tree", [(0, True, False), (2, {"victim": "kill"}, False),
                                           (3, {"min_run_time": 600.0}, False), (3, "LessThanInitialShare", False),
                                           (0, "LessThanOrEqualToFinalShare", False), (0, True, True),
                                           (2, {"min_run_time": 120.0, "victim": "kill"}, True)])
def test_compiled_loop_is_the_reference(seed, pre, tree):
    """Seeded google_like instances (6 users, 300 jobs, a pool of 40% of the demand; with ``tree``: nominal
    quotas and weights, :func:`_cohort_tree`): the compiled loop's events are the reference's, event by event."""
    wl = fa.workloads.google_like(6, 300, rng=seed, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    accounts = _cohort_tree(6, wl.resource_names, pool.totals) if tree else None
    a = fa.simulate(wl, pool, policy="kueue", preemption=pre, accounts=accounts)
    b = fa.simulate(wl, pool, policy="kueue", preemption=pre, accounts=accounts, engine="reference")
    assert a.stats["engine"] == "kernel" and b.stats["engine"] == "reference"
    assert b.stats["preemptions"] > 0           # contended enough to preempt
    _same_run(a, b)


def test_compiled_loop_grows_its_room_between_checks(monkeypatch):
    """The preemption state made with room for 2 candidates, events and requeued runs (not 256): each check
    that needs more asks for it, the loop's Python caller grows the state and the core's run table and runs
    the check again (the check is called from Python between two calls of the compiled loop): the same run
    as the reference, event by event."""
    import fairalloc.sim.preemption as P

    made = P.new_state
    monkeypatch.setattr(P, "new_state", lambda *args, **kw: made(*args, **{**kw, "rows": 2}))
    wl = fa.workloads.google_like(6, 300, rng=0, horizon=3600.0)
    pool = ResourcePool.from_workload(wl, 0.4)
    a = fa.simulate(wl, pool, policy="kueue", preemption=True)
    b = fa.simulate(wl, pool, policy="kueue", preemption=True, engine="reference")
    assert a.stats["engine"] == "kernel" and b.stats["preemptions"] > 2     # more than the first room
    _same_run(a, b)


# ---- bad input -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,field", [
    ({"preemption": ["Cheapest"]}, "preemption_strategies"),
    ({"preemption": ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]}, "preemption_strategies"),
    ({"preemption": {"min_run_time": -1}}, "preemption.min_run_time"),
    ({"preemption": {"min_run_time": math.nan}}, "preemption.min_run_time"),
    ({"preemption": {"loop_window": 0}}, "preemption.loop_window"),
    ({"preemption": {"victim": "suspend"}}, "preemption.victim"),
    ({"preemption": {"timeout": 3}}, "preemption"),
    ({"preemption": True, "half_life": 600.0}, "preemption"),
    ({"preemption": True, "half_life": 0}, "half_life"),
    ({"preemption": True, "blocking": "stop"}, "blocking"),
    ({"preemption": True, "ties": "index"}, "ties"),
])
def test_bad_input_names_the_field(kw, field):
    with pytest.raises(InvalidInstanceError) as e:
        fa.simulate(_fill_then_arrive(), [4.0], policy="kueue", **kw)
    assert e.value.argument == field


def test_refused_where_not_simulated():
    wl = _fill_then_arrive()
    with pytest.raises(InvalidInstanceError, match="does not preempt"):
        fa.simulate(wl, [4.0], policy="mesos", preemption=True)
    with pytest.raises(InvalidInstanceError, match="one pool"):
        fa.simulate(wl, fa.Cluster([[2.0], [2.0]]), policy="kueue", preemption=True)
    with pytest.raises(InvalidInstanceError, match="event engine"):
        fa.simulate(wl, [4.0], policy="kueue", preemption=True, engine="events")
    with pytest.raises(InvalidInstanceError, match="one pool"):
        fa.simulate(wl, fa.Cluster([[2.0], [2.0]]), policy="kueue", preemption=True, engine="reference")
    with pytest.raises(InvalidInstanceError, match="enforce_walltime"):
        fa.simulate(wl, [4.0], policy="kueue", preemption=True, enforce_walltime=True)
    with pytest.raises(InvalidInstanceError, match="reference loop") as e:     # (kueue and yarn have one)
        fa.simulate(wl, [4.0], policy="mesos", engine="reference")
    assert e.value.argument == "engine"
    with pytest.raises(InvalidInstanceError, match="reference loop"):
        fa.simulate(wl, [4.0], policy="drf", engine="reference")


# ---- command line ----------------------------------------------------------------------------------------
def test_cli_preemption_columns_and_errors(capsys, tmp_path):
    from fairalloc.cli import main

    args = ["simulate", "--workload", "google_like:users=10,tasks=1000,seed=2", "--policy", "kueue", "--pool", "0.2",
            "--no-progress"]
    assert main(args + ["--preemption", "on", "--min-run-time", "60", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "preemptions" in out and "preemption_loops" in out and "wasted:cpu" in out
    import pandas as pd

    table = pd.read_csv(tmp_path / "summary.csv", index_col="policy")
    wl = fa.workloads.google_like(10, 1000, rng=2)
    r = fa.simulate(wl, ResourcePool.from_workload(wl, 0.2), policy="kueue", preemption={"min_run_time": 60})
    assert table.loc["kueue", "preemptions"] == r.stats["preemptions"] > 0
    assert main(args + ["--preemption", "Cheapest"]) == 2
    assert "'Cheapest' is not a Kueue preemption strategy" in capsys.readouterr().err
    assert main(args + ["--victim", "kill"]) == 2
    assert "--victim applies with --preemption only" in capsys.readouterr().err
    assert main(args[:4] + ["drf"] + args[5:] + ["--preemption", "on"]) == 2
    assert "--preemption applies to policies kueue" in capsys.readouterr().err
