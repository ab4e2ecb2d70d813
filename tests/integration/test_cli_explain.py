"""``fairalloc explain`` from the command line: the text report, --json, clear errors."""

from __future__ import annotations

import json

import fairalloc as fa
from fairalloc.cli import main


def _trace(tmp_path):
    # the hand case of tests/unit/experiments/test_explain.py (EASY reservation): job ids 1, 2, 3
    wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[100, 10, 200], processors=[2, 4, 2], user=[0, 1, 2])
    return wl.to_parquet(tmp_path / "trace.parquet")


def test_explain_text_and_json(tmp_path, capsys):
    trace = str(_trace(tmp_path))
    argv = ["explain", trace, "--row", "2", "--policy", "slurm+easy", "--processors", "4", "--option", "calc_period=1e6"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "backfill reservation" in out and "no room" in out and "started at 110" in out
    assert main(argv + ["--json", "-"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [x["reason"] for x in d["decisions"]] == ["backfill reservation", "no room", "started"]
    assert d["decisions"][0]["shadow"] == 100.0


def test_explain_errors(tmp_path, capsys):
    trace = str(_trace(tmp_path))
    assert main(["explain", trace, "--row", "7", "--processors", "4"]) == 2
    assert "job=7 must be a workload row in [0, 3)" in capsys.readouterr().err
    assert main(["explain", trace, "--row", "1", "--processors", "4", "--option", "half_life=0"]) == 2
    assert "half_life=0 must be > 0" in capsys.readouterr().err


def test_explain_takes_durations_as_its_epilog_says(tmp_path, capsys):
    # the epilog: "half_life=7d is half_life=604800"; here 2h = 2 x 3600 s (whatif's parse_duration units)
    trace = str(_trace(tmp_path))
    base = ["explain", trace, "--row", "2", "--policy", "slurm+easy", "--processors", "4", "--json", "-"]
    assert main(base + ["--option", "half_life=2h", "--option", "calc_period=1m"]) == 0
    with_units = json.loads(capsys.readouterr().out)
    assert main(base + ["--option", "half_life=7200", "--option", "calc_period=60"]) == 0
    in_seconds = json.loads(capsys.readouterr().out)
    assert with_units["decisions"] == in_seconds["decisions"]
    assert with_units["options"]["half_life"] == 7200.0 and with_units["options"]["calc_period"] == 60.0
    assert main(base + ["--option", "half_life=0h"]) == 2
    assert "half_life='0h' must be a positive duration" in capsys.readouterr().err
    assert main(base + ["--option", "accounts=flat"]) == 2
    assert "--accounts" in capsys.readouterr().err


def test_explain_synthetic_accounts_are_whatifs_tree(tmp_path, capsys):
    # explain --accounts synthetic:K --seed S builds the tree a whatif run with the same trace and seed used
    # (whatif stores it in its folder's inputs/): the decisions under both are the same
    from fairalloc.experiments.whatif import whatif

    # 40 jobs of 5 users on 4 processors, submitted within 100 s: most of them wait
    wl = fa.workloads.Workload(submit=[5 * (k // 2) for k in range(40)], run_time=[50 + 10 * (k % 7) for k in range(40)],
                               processors=[1 + k % 4 for k in range(40)], user=[k % 5 for k in range(40)])
    trace = str(wl.to_parquet(tmp_path / "jobs.parquet"))
    whatif(trace, ["slurm"], capacity=4, accounts=("synthetic", 3), rng=4, out=tmp_path / "w", workers=0,
           progress=False)
    (tree_file,) = (tmp_path / "w" / "inputs").glob("accounts-*.yaml")
    jobs = fa.simulate(wl, 4, policy="slurm", accounts=str(tree_file)).jobs
    row = int(jobs["row"].iloc[int(jobs["wait"].to_numpy().argmax())])       # the job that waited longest
    base = ["explain", trace, "--row", str(row), "--processors", "4", "--json", "-"]
    assert main(base + ["--accounts", "synthetic:3", "--seed", "4"]) == 0
    synthetic = json.loads(capsys.readouterr().out)
    assert main(base + ["--accounts", str(tree_file)]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert len(synthetic["decisions"]) > 1 and synthetic["decisions"] == from_file["decisions"]
    assert main(base) == 0                     # the flat tree ranks by other fair-share factors: the tree is used
    assert json.loads(capsys.readouterr().out)["decisions"] != synthetic["decisions"]
    assert main(base + ["--accounts", "synthetic:x"]) == 2
    assert "write synthetic or synthetic:K" in capsys.readouterr().err
