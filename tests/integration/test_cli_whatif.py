"""``fairalloc whatif`` from the command line: report files, resume, clear errors."""

from __future__ import annotations

import numpy as np

import fairalloc as fa
from fairalloc.cli import main


def _trace(tmp_path):
    g = np.random.default_rng(0)
    n = 30
    wl = fa.workloads.Workload(submit=np.sort(g.uniform(0, 1000, n)), run_time=g.uniform(60, 600, n),
                               processors=g.integers(1, 5, n), user=g.integers(0, 3, n))
    return wl.to_parquet(tmp_path / "trace.parquet")


def test_whatif_writes_report_and_resumes(tmp_path, capsys):
    trace = _trace(tmp_path)
    argv = ["whatif", str(trace), "--policies", "fcfs,sdrf", "--half-lives", "1h", "--processors", "8",
            "--accounts", "synthetic:2", "--out", str(tmp_path / "o"), "--workers", "0", "--format", "csv,png"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "synthetic: 2 accounts" in out and "2 done" in out
    rep = tmp_path / "o" / "report"
    assert {p.name for p in rep.iterdir()} >= {"summary.csv", "entities.csv", "shares.png", "wait_cdf.png",
                                             "summary_table.png", "README.txt"}
    assert main(argv) == 0
    assert "0 done, 2 skipped" in capsys.readouterr().out


def test_whatif_bad_half_life_and_policy(tmp_path, capsys):
    trace = _trace(tmp_path)
    base = ["whatif", str(trace), "--processors", "8", "--out", str(tmp_path / "o"), "--workers", "0"]
    assert main(base + ["--policies", "sdrf", "--half-lives", "0"]) == 2
    assert "half_lives[0]='0' must be a positive duration" in capsys.readouterr().err
    assert main(base + ["--policies", "fcfs,nosuch"]) == 2
    assert "unknown policy 'nosuch'" in capsys.readouterr().err


def test_whatif_generator_pool_setting(tmp_path, capsys):
    argv = ["whatif", "--generator", "google_like", "--gen", "n_users=5", "--gen", "n_tasks=300", "--gen", "rng=1",
            "--policies", "drf,sdrf", "--half-lives", "30m", "--pool", "0.9", "--out", str(tmp_path / "g"),
            "--workers", "0", "-q", "--format", "csv"]
    assert main(argv) == 0
    import pandas as pd
    s = pd.read_csv(tmp_path / "g" / "report" / "summary.csv")
    assert s["label"].tolist() == ["drf", "sdrf"] and s["setting"].tolist() == ["pool", "pool"]
    assert s["half_life"].tolist()[1] == 1800.0
