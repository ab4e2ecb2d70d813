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


def test_reader_options_and_unit_conversions_in_the_workload_spec(capsys, tmp_path):
    # issue 32: the Google 2011 subset has no run times, so `google2011:PATH` had nothing to simulate and
    # the CLI had no way to pass the reader's duration= option; every task is submitted at 0, so the
    # completed-task ratio at the last submission is undefined and said to be (not 0.0 for every user)
    g = tmp_path / "task_events.csv"
    g.write_text("".join(f"0;{j};0;u{j % 3};3;9;{(j + 1) * 10**9};-1;0.01;0.01\n" for j in range(12)))
    code, out, err = run(capsys, "simulate", "--workload", f"google2011:{g},duration=end", "--policy", "drf,sdrf",
                         "--no-progress")
    assert code == 0, err
    assert "completed_by_horizon: undefined (nan)" in out and "12 tasks, 3 users" in out
    # Alibaba's normalised memory on the Table 3 cluster (GB) runs once converted: memory=384GB
    a = tmp_path / "batch_task.csv"
    a.write_text("0,100,1,1,2,Terminated,100,0.01\n10,50,2,2,1,Terminated,200,0.02\n")
    code, out, err = run(capsys, "simulate", "--workload", f"alibaba:{a},memory=384GB,users=2,seed=0",
                         "--cluster", "tvtsf-table3", "--policy", "drf", "--no-progress")
    assert code == 0, err
    assert "resources ['cpu', 'memory']" in out


def test_container_policies_on_the_command_line(capsys, tmp_path):
    # issue 28: `simulate --policy` takes the container clusters' policies (with --accounts and, for Kueue,
    # --half-life) and --list-policies lists every name policy_names() knows
    from fairalloc.cli.simulate import CONTAINER_POLICY_NAMES
    from fairalloc.sim import policy_names
    from fairalloc.sim.policies.container import QUEUE_POLICIES

    assert set(CONTAINER_POLICY_NAMES) == set(QUEUE_POLICIES)
    code, out, _ = run(capsys, "simulate", "--list-policies")
    assert code == 0
    listed = {n.strip() for line in out.splitlines() for n in line.split(":", 1)[1].split(",")}
    assert set(policy_names()) <= listed and {"volcano-hdrf", "kueue", "learned:FILE"} <= listed
    tree = tmp_path / "tree.yaml"
    tree.write_text("accounts:\n  - {name: cq, hdrf_weight: 2}\n  - {name: other}\nusers:\n"
                    + "".join(f"  - {{name: '{u}', account: {'cq' if u < 3 else 'other'}}}\n" for u in range(6)))
    code, out, err = run(capsys, "simulate", "--workload", "google_like:users=6,tasks=300,seed=1", "--policy",
                         "drf,kueue,volcano-hdrf", "--accounts", str(tree), "--no-progress")
    assert code == 0, err
    assert "volcano-hdrf" in out and "kueue" in out
    code, out, err = run(capsys, "simulate", "--workload", "google_like:users=6,tasks=300,seed=1", "--policy",
                         "kueue", "--half-life", "3600", "--no-progress")
    assert code == 0, err
    code, _, err = run(capsys, "simulate", "--workload", "google_like:users=6,tasks=300,seed=1", "--policy",
                       "drf", "--half-life", "3600", "--no-progress")
    assert code == 2 and "--half-life applies to policies kueue" in err
