"""Task schedulers as simulator policies: hand-computed schedules, agreement with the one-shot and slotted
schedulers, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.scheduling import slotted_greedy, tsf_greedy, tvtsf_greedy
from fairalloc.sim import ResourcePool, SlotPolicy, TaskPolicy, simulate
from fairalloc.workloads import Workload, from_time_varying


def _launches(r):
    return r.launches[["job", "tasks", "server", "start"]].values.tolist()


def test_drf_paper_example_in_the_simulator():
    # DRF paper (Ghodsi et al. 2011, Section 4): 9 CPUs, 18 GB; A's tasks <1, 4>, B's <3, 1>, both
    # with more tasks than fit. At t=0 DRF fills A, B, A, B, A (dominant shares 2/9, 1/3, 4/9, 2/3,
    # 2/3): A 3 tasks, B 2; then B's third task (3 CPUs) does not fit (9 - 3 - 6 = 0 CPUs free).
    wl = Workload(submit=[0, 0], run_time=[10, 10], tasks=[5, 5], user=[0, 1],
                  resources=[[1, 4], [3, 1]], resource_names=["cpu", "mem"])
    r = simulate(wl, fa.clusters.drf_example(), policy="drf")
    first = r.launches[r.launches["start"] == 0]
    assert first.groupby("job")["tasks"].sum().tolist() == [3, 2]
    # Then A (2/3) and B (2/3) tie: A by index, whose task does not fit (0 CPUs free): Algorithm 1
    # stops. At t=10 all end; shares 0, 0: A (2/9), B (1/3), A (4/9, A has no more tasks), B (2/3,
    # 8 CPUs used), B's last needs 3 CPUs, 1 free: stop. So A ends at 20 and B's last task runs 20..30.
    # one launch per decision (consecutive starts of one job merge; here users alternate)
    assert [(int(j), int(t)) for j, t in r.launches[["job", "start"]].values] == [
        (0, 0), (1, 0), (0, 0), (1, 0), (0, 0), (0, 10), (1, 10), (0, 10), (1, 10), (1, 20)]
    assert r.jobs["end"].tolist() == [20, 30]


def test_sdrf_commitments_pick_users_in_the_simulator():
    # One pool of 10 units of two resources; user 0 has committed 0.3 of resource 1; unit tasks
    # <1, 1>. Commitments held constant (no delta): the level reading (dominant share + dominant
    # commitment) serves user 1 until 0.1 k1 >= 0.3 + 0.1 k0: user 1 gets tasks 1, 2, 3 (0.3 vs 0.3:
    # tie; the live tree orders equal constant priorities by user index: user 0), then they
    # alternate: by hand 4 + 6 = 10 units (the one-shot sdrf_greedy doctest gives [4, 6] too).
    wl = Workload(submit=[0, 0], run_time=[5, 5], tasks=[10, 10], user=[0, 1], resources=[[1, 1], [1, 1]])
    r = simulate(wl, [10.0, 10.0], policy="sdrf", commitments=[[0, 0.3], [0, 0]])
    first = r.launches[r.launches["start"] == 0].groupby("job")["tasks"].sum()
    assert first.tolist() == [4, 6]
    r2 = simulate(wl, [10.0, 10.0], policy="sdrf", commitments=[[0, 0.3], [0, 0]], priority="printed")
    # printed reading max_r(o_ir + c_ir): user 0 starts at 0.3 (resource 1), user 1 at 0: user 1
    # gets 3 tasks (0.3 tie -> user 0) then they alternate on the same key: 0.4, ... -> [4, 6] too
    assert r2.launches[r2.launches["start"] == 0].groupby("job")["tasks"].sum().tolist() == [4, 6]


def test_tsf_two_server_placement_in_the_simulator_matches_one_shot():
    # tsf_greedy's doctest instance: servers <4, 4> x 2, user 0 only on server 0; h = (8, 4).
    # By hand (see fairalloc.scheduling.tsf): user 0 gets 2 tasks on server 0, user 1 one on
    # server 0 and two on server 1.
    ti = fa.TaskInstance([[4, 4], [4, 4]], [[1, 1], [2, 2]], tasks=[8, 8], placement=[[1, 0], [1, 1]])
    wl = Workload(submit=[0, 0], run_time=[1, 1], tasks=[8, 8], user=[0, 1], resources=[[1, 1], [2, 2]])
    r = simulate(wl, ti.cluster, policy="tsf", placement=ti.placement)
    first = r.launches[r.launches["start"] == 0]
    got = np.zeros((2, 2), dtype=int)
    for j, k, s in first[["job", "tasks", "server"]].values:
        got[j, s] += k
    assert got.tolist() == [[2, 0], [1, 2]] == tsf_greedy(ti).tasks.tolist()
    assert not ((r.launches["job"] == 0) & (r.launches["server"] == 1)).any()     # placement


@pytest.mark.parametrize("seed", range(6))
def test_simulated_tvtsf_equals_slot_scheduler_on_constant_demands(seed):
    # The simulator's online slotted policy and phase A's instance scheduler implement the same
    # Algorithms 1-5; with per-user constant demands they must start the same tasks in every slot.
    rng = np.random.default_rng(seed)
    n, m, t = int(rng.integers(2, 5)), int(rng.integers(1, 4)), 6
    caps = rng.integers(4, 12, size=(m, 2)).astype(float)
    d = np.column_stack([rng.integers(1, 4, n), rng.integers(1, 4, n)]).astype(float)
    arr = rng.integers(0, 4, size=(n, t)) * (rng.random((n, t)) < 0.6)
    arr[:, 0] += 1
    p = rng.random((n, m)) < 0.7
    p[np.arange(n), rng.integers(0, m, n)] = True
    tv = fa.TimeVaryingInstance(caps, d, arrivals=arr, durations=rng.integers(1, 3, n), placement=p)
    wl = from_time_varying(tv)
    for policy in ["tvtsf", "tsf", "cdrf"]:
        ref = slotted_greedy(tv, policy=policy)
        opts = {} if policy == "tvtsf" else {"slot": 1.0}
        r = simulate(wl, tv.cluster, policy=policy, placement=tv.placement, **opts)
        got = np.zeros((n, m, t), dtype=int)
        for j, k, s, st in r.launches[["job", "tasks", "server", "start"]].values:
            if st < t:
                got[int(wl.user[int(j)]), int(s), int(st)] += int(k)
        np.testing.assert_array_equal(got, ref.tasks, err_msg=policy)
    assert np.array_equal(tvtsf_greedy(tv).tasks, slotted_greedy(tv).tasks)


def test_slotted_policy_waits_for_the_slot_boundary():
    # A task submitted at 2.5 with 1-slot slots starts at the boundary 3, not at 2.5; run time 1.5
    # ends at 4.5; the second task (submitted at 3) fits beside it (pool of 2) and starts at 3.
    wl = Workload(submit=[2.5, 3.0], run_time=[1.5, 1.0], user=[0, 1], resources=[[1.0], [1.0]])
    r = simulate(wl, [2.0], policy="tvtsf")
    assert r.jobs["start"].tolist() == [3.0, 3.0]
    assert r.policy == "tvtsf"


def test_options_reach_the_scheduler_and_stats():
    wl = fa.workloads.google_like(20, 400, rng=1)
    pool = ResourcePool.from_workload(wl, 0.5)
    r = simulate(wl, pool, policy="sdrf", delta=1 - 1e-3, structure="resort", blocking="skip", ties="index")
    assert r.stats["structure"] == "resort" and r.stats["blocking"] == "skip" and r.stats["ties"] == "index"
    assert r.stats["decisions"] == r.jobs["tasks"].sum()           # every admitted task started
    assert pool.resource_names == ("cpu", "memory")
    pol = TaskPolicy("sdrf", delta=0.5)
    simulate(wl, pool, policy=pol)
    assert pol.scheduler.tau == pytest.approx(fa.commitments.tau_from_delta(0.5))


def test_live_resort_and_heap_agree_without_decay():
    # With commitments held constant every structure orders by the same fixed keys: same schedule.
    wl = fa.workloads.google_like(30, 1500, rng=2)
    pool = ResourcePool.from_workload(wl, 0.5)
    runs = [simulate(wl, pool, policy="drf", structure=t).launches for t in ("live_tree", "resort", "heap")]
    assert runs[0].equals(runs[1]) and runs[0].equals(runs[2])


def test_tree_is_the_deprecated_spelling_of_structure():
    # issue 15 item 5: one spelling (structure=, as the schedulers); tree= still works, with a warning
    wl = fa.workloads.google_like(10, 300, rng=3)
    pool = ResourcePool.from_workload(wl, 0.5)
    new = simulate(wl, pool, policy="drf", structure="resort")
    with pytest.warns(DeprecationWarning, match="tree='resort' is deprecated: use structure='resort'"):
        old = simulate(wl, pool, policy="drf", tree="resort")
    assert old.stats["structure"] == "resort" and old.launches.equals(new.launches)
    with pytest.warns(DeprecationWarning, match="use structure='live_tree'"):
        assert simulate(wl, pool, policy="drf", tree="live").stats["structure"] == "live_tree"
    with pytest.raises(InvalidInstanceError, match="tree='heap' and structure='resort' disagree"):
        simulate(wl, pool, policy="drf", tree="heap", structure="resort")
    with pytest.raises(InvalidInstanceError, match="structure='live'"):
        simulate(wl, pool, policy="drf", structure="live")


# ---- bad input ----------------------------------------------------------------------------------
def _wl(**kw):
    base = dict(submit=[0, 1], run_time=[5, 5], tasks=[2, 1], user=[0, 1], resources=[[1, 1], [1, 2]])
    base.update(kw)
    return Workload(**base)


def test_bad_input_names_argument_row_and_value():
    with pytest.raises(InvalidInstanceError, match=r"resources\[1\]=\[0.0, 0.0\] is zero") as e:
        simulate(_wl(resources=[[1, 1], [0, 0]]), [4.0, 4.0], policy="sdrf")
    assert e.value.argument == "resources" and e.value.index == (1,)
    with pytest.raises(InvalidInstanceError, match=r"run_time\[0\]=0.0") as e:
        simulate(_wl(run_time=[0, 5]), [4.0, 4.0], policy="drf")
    assert e.value.argument == "run_time"
    with pytest.raises(InvalidInstanceError, match=r"user\[1\]=-1"):
        simulate(_wl(user=[0, -1]), [4.0, 4.0], policy="tsf")
    for delta in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(InvalidInstanceError, match=rf"delta={delta!r} must be in \(0, 1\)") as e:
            simulate(_wl(), [4.0, 4.0], policy="sdrf", delta=delta)
        assert e.value.argument == "delta" and e.value.value == delta
    with pytest.raises(InvalidInstanceError, match=r"option\(s\) \['delta'\] do not apply to policy 'drf'"):
        simulate(_wl(), [4.0, 4.0], policy="drf", delta=0.5)
    with pytest.raises(InvalidInstanceError, match="tree='avl'"):
        simulate(_wl(), [4.0, 4.0], policy="sdrf", tree="avl")
    with pytest.raises(InvalidInstanceError, match="ties='fair'"):
        simulate(_wl(), [4.0, 4.0], policy="drf", ties="fair")
    with pytest.raises(InvalidInstanceError, match="give a resource vector or a Cluster"):
        simulate(Workload(submit=[0], run_time=[1], processors=[1], user=[0]), 4, policy="drf")
    # issue 15 item 5: a scalar capacity for a task workload was an IndexError
    with pytest.raises(InvalidInstanceError, match=r"give a resource vector \(one entry per resource: "
                                                   r"cpu, memory\) or a Cluster as capacity, not a "
                                                   r"processor count of 10") as e:
        simulate(fa.workloads.google_like(5, 50, rng=0), 10.0, policy="sdrf")
    assert e.value.argument == "capacity"
    with pytest.raises(InvalidInstanceError, match="capacity=10.5 must be a processor count"):
        simulate(fa.workloads.google_like(5, 50, rng=0), 10.5, policy="sdrf")
    with pytest.raises(InvalidInstanceError, match=r"slot=0"):
        simulate(_wl(), [4.0, 4.0], policy="tvtsf", slot=0)


def test_user_without_eligible_server_and_task_fitting_nowhere():
    cl = fa.Cluster([[2, 2], [4, 4]])
    with pytest.raises(InvalidInstanceError, match=r"placement\[1\] is all False: user 1 has no eligible server"):
        simulate(_wl(), cl, policy="drf", placement=[[True, True], [False, False]])
    # user 1's task <3, 3> would fit on server 1 only, which it may not use: rejected before the run,
    # with the reason, and the others run
    wl = _wl(resources=[[1, 1], [3, 3]])
    r = simulate(wl, cl, policy="tvtsf", placement=[[True, True], [True, False]])
    assert r.rejected["row"].tolist() == [1]
    assert r.rejected["reason"].tolist() == ["fits no server its placement allows"]
    assert r.jobs["finished"].all()


def test_slot_policy_object_and_names():
    pol = SlotPolicy("cdrf", slot=2.0)
    assert pol.name == "cdrf-slotted"
    r = simulate(_wl(), [4.0, 4.0], policy=pol)
    assert set(r.launches["start"] % 2.0) == {0.0}
