"""`fairalloc simulate` on task workloads (resource vectors) with the multi-resource schedulers."""

from __future__ import annotations

import pandas as pd
import pytest

from fairalloc.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_google_like_drf_sdrf_on_a_pool(capsys, tmp_path):
    code, out, _ = run(capsys, "simulate", "--workload", "google_like:users=20,tasks=400,seed=3",
                       "--policy", "drf,sdrf", "--pool", "0.5", "--out", str(tmp_path), "--no-progress")
    assert code == 0, out
    assert "on a pool at 0.5 x R" in out and "mean_user_wait" in out
    table = pd.read_csv(tmp_path / "summary.csv", index_col="policy")
    assert list(table.index) == ["drf", "sdrf"]
    assert (table["tasks"] + table["rejected_tasks"] == 400).all()      # nothing lost: run or counted
    for name in ("time_cdfs.png", "completed_ratio.png", "utilization_sdrf.png"):
        assert (tmp_path / name).stat().st_size > 0
    # every resource's mean utilisation is a fraction
    util = table[[c for c in table.columns if c.startswith("utilization:")]]
    assert ((util >= 0) & (util <= 1 + 1e-9)).all().all()


def test_alibaba_like_on_table3_cluster_slotted(capsys):
    code, out, _ = run(capsys, "simulate", "--workload", "alibaba_like:jobs=8,large=0.25,seed=1",
                       "--policy", "tvtsf,tsf", "--cluster", "tvtsf-table3", "--slot", "1", "--no-progress")
    assert code == 0, out
    assert "100 servers of TV-TSF Table 3" in out and "tvtsf" in out


@pytest.mark.parametrize("args,needle", [
    (["--workload", "lublin:n=30,nodes=64", "--policy", "sdrf"], "schedules tasks with resource vectors"),
    (["--workload", "google_like:users=3,tasks=30", "--policy", "fcfs"], "does not schedule tasks"),
    (["--workload", "lublin:n=30,nodes=64", "--pool", "0.5"], "--pool and --cluster apply to task workloads"),
    (["--workload", "google_like:users=3,bogus=1"], "unknown key(s) ['bogus']"),
    (["--workload", "google_like:users=3,tasks=30", "--policy", "sdrf", "--delta", "1.5"], "--delta: '1.5' must be a number in (0, 1)"),
])
def test_task_mode_errors(capsys, args, needle):
    code, _, err = run(capsys, "simulate", *args, "--no-progress", "--processors", "64")
    assert code == 2 and needle in err, err
