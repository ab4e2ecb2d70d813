"""Task metrics on a hand-computed DRF schedule, and their Parquet files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairalloc.sim import SimulationResult, simulate
from fairalloc.sim import task_metrics as tm
from fairalloc.workloads import Workload

# Pool <2 cpu, 4 mem>. job 0: user 0, 2 tasks <1, 1> for 10 s at t=0; job 1: user 1, 1 task <1, 2> for 5 s
# at t=1; job 2: user 0, 1 task <1, 0.5> for 3 s at t=2.
# By hand (DRF, blocking "stop"): t=0 both tasks of job 0 start (cpu full). t=1, t=2: nothing fits.
# t=10: job 0 ends; users 0 and 1 both hold 0: tie -> user 1, whose oldest pending task (job 1,
# submitted at 1) has waited longer than user 0's (job 2, at 2): job 1 starts (share 2/4 = 0.5); user 0
# (share 0) next: job 2 starts (cpu 2/2, mem 2 + 0.5 = 2.5/4). Ends: job 2 at 13, job 1 at 15.
# With ties="index" user 0 goes first at t=10 (job 2, then job 1): the same start times, launches
# in the other order.
WL = Workload(submit=[0, 1, 2], run_time=[10, 5, 3], tasks=[2, 1, 1], user=[0, 1, 0],
              resources=[[1, 1], [1, 2], [1, 0.5]], resource_names=["cpu", "mem"])


@pytest.fixture(scope="module")
def result():
    return simulate(WL, [2.0, 4.0], policy="drf")


def test_schedule_is_the_hand_computed_one(result):
    assert result.launches[["job", "tasks", "start", "end"]].values.tolist() == [
        [0, 2, 0, 10], [1, 1, 10, 15], [2, 1, 10, 13]]
    by_index = simulate(WL, [2.0, 4.0], policy="drf", ties="index")
    assert by_index.launches[["job", "tasks", "start", "end"]].values.tolist() == [
        [0, 2, 0, 10], [2, 1, 10, 13], [1, 1, 10, 15]]


def test_user_wait_task_queuing_job_completion(result):
    # user 0: submitted at 0, started at 0; user 1: submitted at 1, started at 10
    assert tm.user_waiting_times(result).tolist() == [0.0, 9.0]
    # per task in launch order: job 0's two (0, 0), job 1's (10 - 1), job 2's (10 - 2)
    assert tm.task_queuing_times(result).tolist() == [0.0, 0.0, 9.0, 8.0]
    # per job: 10 - 0, 15 - 1, 13 - 2
    assert tm.job_completion_times(result).tolist() == [10.0, 14.0, 11.0]


def test_completed_task_ratio_by_horizon(result):
    # default horizon = last submission (2): 3 tasks of user 0 and 1 of user 1 submitted, none done
    c = tm.completed_tasks(result)
    assert c["submitted"].tolist() == [3, 1] and c["completed"].tolist() == [0, 0]
    # at 13: user 0's three tasks ended (10, 10, 13), user 1's ends at 15
    c = tm.completed_tasks(result, horizon=13)
    assert c["completed"].tolist() == [3, 0] and c["completed_ratio"].tolist() == [1.0, 0.0]
    c = tm.completed_tasks(result, horizon=0.5)          # only job 0 submitted by then
    assert c["submitted"].tolist() == [2, 0] and np.isnan(c["completed_ratio"].iloc[1])


def test_per_user_table(result):
    u = result.task_users()
    assert u["user"].tolist() == [0, 1]
    assert u["mean_queuing"].tolist() == pytest.approx([8 / 3, 9.0])      # (0 + 0 + 8) / 3
    assert u["mean_completion"].tolist() == [10.5, 14.0]                  # jobs 0 and 2: (10 + 11) / 2


def test_utilization_per_resource(result):
    u = result.resource_utilization()
    # cpu: 2/2 on [0, 10), 2/2 on [10, 13), 1/2 on [13, 15); mem: 2/4, 2.5/4, 2/4, 0
    assert u["time"].tolist() == [0, 10, 13, 15]
    assert u["cpu"].tolist() == [1.0, 1.0, 0.5, 0.0]
    assert u["mem"].tolist() == [0.5, 0.625, 0.5, 0.0]
    # busy cpu-seconds 2*10 + 3 + 5 = 28 over 2 x 15; mem 2*10 + 0.5*3 + 2*5 = 31.5 over 4 x 15
    assert tm.mean_resource_utilization(result) == pytest.approx({"cpu": 28 / 30, "mem": 31.5 / 60})
    s = result.task_summary()
    assert s["mean_user_wait"] == 4.5 and s["mean_task_queuing"] == pytest.approx(17 / 4)
    assert s["mean_job_completion"] == pytest.approx(35 / 3) and s["completed_by_horizon"] == 0.0


def test_parquet_files(result, tmp_path):
    d = result.to_parquet(tmp_path / "run")
    users = pd.read_parquet(d / "task_users.parquet")
    pd.testing.assert_frame_equal(users, result.task_users(), check_dtype=False)
    util = pd.read_parquet(d / "resource_utilization.parquet")
    assert util["mem"].tolist() == [0.5, 0.625, 0.5, 0.0]
    info = json.loads((d / "summary.json").read_text())
    assert info["task_summary"]["mean_user_wait"] == 4.5
    back = SimulationResult.read_parquet(d)
    assert back.is_task_result and back.task_users()["user_wait"].tolist() == [0.0, 9.0]


def test_rigid_results_have_no_task_metrics():
    r = simulate(Workload(submit=[0], run_time=[1], processors=[1]), 2, policy="fcfs")
    assert not r.is_task_result
    with pytest.raises(ValueError, match="task metrics need a task simulation"):
        tm.task_queuing_times(r)


def test_task_figures(result):
    from fairalloc.plots import tasks as figs

    fig = figs.time_cdfs({"drf": result})
    assert len(fig.axes) == 3 and "μ 4.5" in fig.axes[0].get_legend().get_texts()[0].get_text()
    # against itself every user's ratio is 1, and nobody completes fewer (at the horizon 13, user 1
    # has nothing completed and is left out)
    fig = figs.completed_ratio(result, result, horizon=13)
    assert fig.axes[0].get_title() == "0 of 1 users complete fewer tasks under drf"
    fig = figs.resource_utilization(result)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["cpu", "mem"]


def test_task_result_summary_repr_and_utilization_cover_every_resource(result):
    # issue 15 item 5: a task simulation is summarised by task figures (no AVEbsld) and its
    # utilisation covers every resource. Figures from the hand-computed schedule above: 4 tasks,
    # queuing (0 + 0 + 9 + 8) / 4 = 4.25, user waits (0 + 9) / 2 = 4.5, cpu 28/30, mem 31.5/60.
    text = repr(result)
    assert "AVEbsld" not in text
    assert "4 tasks, mean task queuing=4.25, mean user wait=4.5, utilization: cpu 0.933, mem 0.525" in text
    s = result.summary()
    assert "avebsld" not in s and "utilization" not in s
    assert s["utilization:cpu"] == pytest.approx(28 / 30) and s["utilization:mem"] == pytest.approx(31.5 / 60)
    assert s["mean_task_queuing"] == pytest.approx(4.25) and s["makespan"] == 15.0
    u = result.utilization()
    assert u.columns.tolist() == ["time", "cpu", "mem"]
    assert u["mem"].tolist() == [0.5, 0.625, 0.5, 0.0]
    assert result.mean_resource_utilization() == pytest.approx({"cpu": 28 / 30, "mem": 31.5 / 60})
    with pytest.raises(ValueError, match=r"one utilisation per resource \(cpu, mem\)"):
        result.mean_utilization()
    one = simulate(Workload(submit=[0], run_time=[4], user=[0], resources=[[1.0]]), [2.0], policy="drf")
    assert one.mean_utilization() == 0.5                 # 1 of 2 units for the whole makespan
