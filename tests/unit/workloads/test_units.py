"""Units that must meet (issue 32, "Units that do not meet"): a workload declares the unit of each
resource column, a cluster may too, and the simulator refuses a mismatch instead of running Alibaba's
normalised memory on a cluster counted in GB (memory utilisation 8.9e-05 without a word).
A workload whose tasks are all submitted at one instant has no trace end: its completed-task ratio at
the default horizon is undefined (NaN), not 0.0 for every user."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.sim import task_metrics
from fairalloc.workloads import Workload, read_alibaba, read_google2011
from fairalloc.workloads.units import check_units, parse_conversion


def _alibaba_rows(tmp_path):
    p = tmp_path / "batch_task.csv"
    # v2017: create, end, job, task, instances, status, cpu (100 = 1 core), normalised memory
    p.write_text("0,100,1,1,2,Terminated,100,0.01\n10,50,2,2,1,Terminated,200,0.02\n")
    return p


def test_readers_declare_their_units(tmp_path):
    assert read_alibaba(_alibaba_rows(tmp_path)).resource_units == ("cores", "normalised")
    p = tmp_path / "v2018.csv"
    p.write_text("M1,2,j_1,1,Terminated,0,100,100,0.5\n")
    assert read_alibaba(p, version=2018).resource_units == ("cores", "normalised x100")
    g = tmp_path / "part-00000-of-00500.csv"
    g.write_text("950000000,,1,0,,0,userA,3,9,0.125,0.07,0.0004,0\n")
    assert read_google2011(g).resource_units == ("normalised", "normalised")
    assert fa.workloads.google_like(3, 10, rng=0).resource_units == ("normalised", "normalised")
    assert fa.workloads.alibaba_like(5, rng=0).resource_units == ("cores", "GB")
    assert fa.clusters.tvtsf_table3().resource_units == ("cores", "GB")


def test_normalised_memory_on_a_gb_cluster_is_refused(tmp_path):
    wl = read_alibaba(_alibaba_rows(tmp_path))
    with pytest.raises(fa.InvalidInstanceError, match=r"'memory' of the workload is in normalised units but "
                                                      r"the capacity's 'mem' is in GB") as e:
        fa.simulate(wl, fa.clusters.tvtsf_table3(), policy="drf")
    assert e.value.argument == "capacity" and e.value.index == (1,)
    # converted (1 normalised unit = 384 GB, an assumption the user states), it runs; memory is now
    # 0.01 * 384 = 3.84 GB per instance of task 1 (hand computation)
    gb = wl.convert_units({"memory": (384.0, "GB")})
    assert gb.resources[:, 1].tolist() == pytest.approx([3.84, 7.68])
    assert gb.meta["unit_conversions"] == [{"resource": "memory", "from": "normalised", "to": "GB",
                                            "factor": 384.0}]
    r = fa.simulate(gb, fa.clusters.tvtsf_table3(), policy="drf")
    assert r.jobs["finished"].all()


def test_undeclared_sides_are_not_checked():
    wl = Workload(submit=[0], run_time=[1], resources=[[1.0, 1.0]])
    check_units(wl, fa.clusters.tvtsf_table3())                         # workload declares nothing
    wl = Workload(submit=[0], run_time=[1], resources=[[1.0, 1.0]], resource_units=("normalised", None))
    check_units(wl, fa.Cluster([[4.0, 8.0]]))                            # cluster declares nothing
    check_units(wl, [4.0, 8.0])                                          # a bare vector
    check_units(wl, fa.Cluster([[4.0, 8.0]], resource_units=["normalised", "GB"]))   # memory undeclared


def test_units_survive_take_replace_and_parquet(tmp_path):
    wl = Workload(submit=[0, 1], run_time=[1, 2], resources=[[1.0, 2.0], [3.0, 4.0]],
                  resource_names=("cpu", "mem"), resource_units=("cores", "GB"))
    assert wl.take([1]).resource_units == ("cores", "GB")
    assert wl.replace(run_time=[5, 5]).resource_units == ("cores", "GB")
    back = Workload.read_parquet(wl.to_parquet(tmp_path / "w.parquet"))
    assert back.resource_units == ("cores", "GB") and back.equals(wl)
    with pytest.raises(fa.InvalidInstanceError, match="resource_units has 1 unit"):
        Workload(submit=[0], run_time=[1], resources=[[1.0, 2.0]], resource_units=("cores",))


@pytest.mark.parametrize("conversions, match", [({"disk": (2.0, "GB")}, "no resource 'disk'"),
                                                ({"mem": (0.0, "GB")}, "must be positive and finite"),
                                                ({"mem": (math.inf, "GB")}, "must be positive and finite"),
                                                ({"mem": "GB"}, "must be \\(factor, unit\\)")])
def test_bad_conversions_are_refused(conversions, match):
    wl = Workload(submit=[0], run_time=[1], resources=[[1.0, 2.0]], resource_names=("cpu", "mem"))
    with pytest.raises(fa.InvalidInstanceError, match=match):
        wl.convert_units(conversions)


def test_parse_conversion():
    assert parse_conversion("384GB") == (384.0, "GB")
    assert parse_conversion("1e3 MB") == (1000.0, "MB")
    for bad in ("GB", "-1GB", "0GB", "1e999GB", "384"):
        with pytest.raises(fa.InvalidInstanceError, match="positive factor followed by a unit"):
            parse_conversion(bad)


def test_completed_ratio_is_undefined_when_every_task_is_submitted_at_once():
    # three tasks submitted at 0 on a pool of 1: they run 0..5, 5..6, 6..7. The default horizon (the
    # last submission, 0) is no trace end: before the fix every user read 0.0 completed
    wl = Workload(submit=[0, 0, 0], run_time=[5, 1, 1], user=[0, 0, 1], resources=[[1.0], [1.0], [1.0]])
    r = fa.simulate(wl, [1.0], policy="drf")
    s = task_metrics.summary(r)
    assert math.isnan(s["completed_by_horizon"])
    ct = task_metrics.completed_tasks(r)
    assert ct["completed_ratio"].isna().all()
    # an explicit horizon still measures: by t = 6 two of the three tasks ended (hand computation)
    assert task_metrics.summary(r, horizon=6)["completed_by_horizon"] == pytest.approx(2 / 3)
    # a workload with submissions spread over time keeps the last submission as its horizon
    wl2 = Workload(submit=[0, 2, 1], run_time=[5, 1, 1], user=[0, 0, 1], resources=[[1.0], [1.0], [1.0]])
    assert task_metrics.summary(fa.simulate(wl2, [1.0], policy="drf"))["completed_by_horizon"] == 0.0
    np.testing.assert_equal(task_metrics.completed_tasks(fa.simulate(wl2, [1.0], policy="drf"),
                                                                horizon=6).values.tolist(),
                            [[2.0, 1.0, 0.5], [1.0, 1.0, 1.0]])
