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
