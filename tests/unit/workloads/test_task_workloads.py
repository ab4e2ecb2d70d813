"""Task workloads: cleaning rules, the mean utilisation R, conversions, and the real traces through the
task schedulers (skipped when the traces are absent)."""

from __future__ import annotations

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.errors import InvalidInstanceError
from fairalloc.sim import ResourcePool, simulate
from fairalloc.workloads import (Workload, from_time_varying, mean_utilization, prepare_tasks, read_alibaba,
                                 read_google2011)


def test_prepare_tasks_rules_and_counts():
    wl = Workload(submit=[3, 0, 0, 5, 5, 1], run_time=[10, np.nan, 0, 10, 4, 7], job_id=[1, 1, 2, 3, 4, 4],
                  resources=[[0.1, 0.1], [0.2, 0.1], [0.1, 0.1], [0, 0], [0.3, 0.0], [np.nan, 0.1]])
    out = prepare_tasks(wl)
    # kept: rows 0 and 4 (row 1 run time unknown, row 2 zero run time, row 3 zero demand,
    # row 5 demand unknown), sorted by submission
    assert out.submit.tolist() == [3.0, 5.0] and out.job_id.tolist() == [1, 4]
    assert out.meta["prepared"] == {"zero_demand": 1, "unknown_run_time": 1, "zero_run_time": 1,
                                    "filled_run_time": 0, "merged_rows": 0, "unknown_demand": 1}
    fixed = prepare_tasks(wl, unknown_run_time=60.0)
    assert 60.0 in fixed.run_time.tolist() and fixed.meta["prepared"]["filled_run_time"] == 1
    res = prepare_tasks(wl, unknown_run_time="resample", rng=0)
    assert res.run_time[res.job_id == 1].tolist()[0] in (10.0, 4.0, 7.0)   # one of the known > 0
    with pytest.raises(InvalidInstanceError, match="unknown_run_time='guess'"):
        prepare_tasks(wl, unknown_run_time="guess")
    with pytest.raises(InvalidInstanceError, match="needs some known run times"):
        prepare_tasks(wl.replace(run_time=np.full(6, np.nan)), unknown_run_time="resample")


def test_prepare_tasks_merge_keeps_every_schedule():
    # three one-task rows of one job, identical: one row of three tasks; the schedule is the same
    wl = Workload(submit=[0, 0, 0, 1], run_time=[5, 5, 5, 5], job_id=[7, 7, 7, 8], user=[0, 0, 0, 1],
                  resources=[[1, 1]] * 4)
    m = prepare_tasks(wl, merge=True)
    assert m.tasks.tolist() == [3, 1] and m.meta["prepared"]["merged_rows"] == 2
    a = simulate(wl, [2.0, 2.0], policy="drf").task_users()
    b = simulate(m, [2.0, 2.0], policy="drf").task_users()
    assert a.equals(b)


def test_mean_utilization_hand_computed():
    # 2 tasks <0.5, 1> x 50 s + 1 task <1, 0> x 100 s over 100 s of submissions: (1.5, 1.0)
    wl = Workload(submit=[0, 100], run_time=[50, 100], tasks=[2, 1], resources=[[0.5, 1], [1, 0]])
    assert mean_utilization(wl).tolist() == [1.5, 1.0]
    assert mean_utilization(wl, horizon=50).tolist() == [3.0, 2.0]
    # all submitted at once: horizon = last expected end (100)
    assert mean_utilization(wl.replace(submit=[0, 0])).tolist() == [1.5, 1.0]
    pool = ResourcePool.from_workload(wl, 0.5)
    assert pool.totals.tolist() == [0.75, 0.5]
    with pytest.raises(InvalidInstanceError, match="never used"):
        ResourcePool.from_workload(wl.replace(resources=[[0.5, 0], [1, 0]]))
    with pytest.raises(InvalidInstanceError, match="fraction=0"):
        ResourcePool.from_workload(wl, 0)


def test_from_time_varying_and_refusals():
    tv = fa.TimeVaryingInstance([[4, 8]], [[2, 4], [1, 1]], arrivals=[[3, 0, 1], [0, 2, 0]], durations=[1, 2])
    wl = from_time_varying(tv, slot=10.0)
    assert wl.user.tolist() == [0, 1, 0] and wl.submit.tolist() == [0.0, 10.0, 20.0]
    assert wl.tasks.tolist() == [3, 2, 1] and wl.run_time.tolist() == [10.0, 20.0, 10.0]
    assert wl.resources.tolist() == [[2, 4], [1, 1], [2, 4]]
    varying = fa.TimeVaryingInstance([[4, 8]], [[[2, 4], [1, 4]]], arrivals=[[1, 1]], durations=[1])
    with pytest.raises(InvalidInstanceError, match="change over time"):
        from_time_varying(varying)
    # a zero, negative, infinite or non-numeric slot length would give every job submit and run time 0
    # (or nonsense): refused, naming the argument and the value
    for bad in (0.0, -1.0, float("inf"), float("nan"), "1", True):
        with pytest.raises(InvalidInstanceError, match="slot=") as err:
            from_time_varying(tv, slot=bad)
        assert err.value.argument == "slot"


def test_google_subset_through_sdrf(shared_data):
    path = shared_data / "google-2011-subset" / "task_events.csv"
    raw = read_google2011(path)
    # the subset has no run times: dropping unknown ones would leave nothing, which is refused with the
    # way out; the reader's upper bound (last event - trace start) gives durations where the end is known
    with pytest.raises(fa.InvalidInstanceError, match=rf"unknown run time \({len(raw)} rows\).*duration='end'"):
        prepare_tasks(raw)
    wl = prepare_tasks(read_google2011(path, duration="end"), merge=True)
    assert len(wl) > 0 and wl.n_users > 10
    small = wl.take(np.flatnonzero(wl.user < 20))
    r = simulate(small, ResourcePool.from_workload(small, 0.5), policy="sdrf", delta=1 - 1e-6)
    assert r.jobs["finished"].all() and r.stats["decisions"] == r.jobs["tasks"].sum()
    assert (r.task_users()["completed_ratio"].dropna() <= 1).all()


def test_alibaba_through_tvtsf_with_seeded_users(shared_data):
    path = shared_data / "alibaba-2017" / "batch_task.csv"
    wl = read_alibaba(path, users=20, rng=3)
    assert "seeded" in wl.meta["user_mapping"]
    again = read_alibaba(path, users=20, rng=3)
    assert np.array_equal(wl.user, again.user)                            # the mapping is seeded
    wl = prepare_tasks(wl)
    part = wl.take(np.arange(min(len(wl), 300)))
    # slots of 60 s on the TV-TSF Table 3 cluster (cores, normalised memory scaled to GB of the
    # largest server: the trace's memory is a fraction of one machine)
    part = part.convert_units({"memory": (384.0, "GB")})
    r = simulate(part, fa.clusters.tvtsf_table3(), policy="tvtsf", slot=60.0)
    assert set(np.mod(r.launches["start"], 60.0)) == {0.0}
    assert r.jobs["finished"].all()
