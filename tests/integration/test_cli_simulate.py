"""``fairalloc simulate`` on a generated workload (no shared data needed)."""

import json

import pandas as pd
import pytest

from fairalloc.cli import build_parser
from fairalloc.errors import InvalidInstanceError


def run_cli(argv):
    args = build_parser().parse_args(["simulate", *argv])
    return args.func(args)


def test_simulate_generated_workload(tmp_path, capsys):
    out = tmp_path / "sim"
    rc = run_cli(["--workload", "lublin:n=400,nodes=64,seed=3,users=5", "--policy",
                  "fcfs,easy,wfp3,unicef,f1,f2,buc", "--processors", "64", "--out", str(out),
                  "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "run to completion" in text and "avebsld" in text and "wfp3" in text
    summary = pd.read_csv(out / "summary.csv", index_col="policy")
    assert list(summary.index) == ["fcfs", "fcfs+easy", "wfp3", "unicef", "f1", "f2", "buc"]
    assert (summary["finished"] == 400).all()
    # one name per policy in the table, the folders and the legends (the result's own: fcfs+easy)
    assert {p.name for p in out.iterdir() if p.is_dir()} == set(summary.index)
    jobs = pd.read_parquet(out / "wfp3" / "jobs.parquet")
    assert len(jobs) == 400 and {"wait", "bsld", "killed"} <= set(jobs.columns)
    assert json.loads((out / "buc" / "summary.json").read_text())["summary"]["policy"] == "buc"
    for fig in ("wait_cdf.png", "avebsld.png"):
        assert (out / fig).stat().st_size > 1000


def test_simulate_swf_with_walltime(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxProcs: 4\n1 0 -1 100 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
                   "2 1 -1 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1\n")
    assert run_cli(["--workload", f"swf:{swf}", "--policy", "fcfs", "--enforce-walltime",
                    "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "killed at walltime" in text and "4 processors" in text


def test_bad_workload_spec():
    with pytest.raises(InvalidInstanceError, match="unknown key"):
        run_cli(["--workload", "lublin:dayz=3", "--no-progress"])
    with pytest.raises(InvalidInstanceError, match="expected swf:PATH"):
        run_cli(["--workload", "trace.swf", "--no-progress"])


def test_out_is_written_whole_and_replaces_an_earlier_run_with_force(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxProcs: 4\n1 0 -1 100 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
                   "2 1 -1 10 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "sim"
    assert run_cli(["--workload", f"swf:{swf}", "--policy", "fcfs,easy", "--out", str(out)]) == 0
    assert {"fcfs", "fcfs+easy", ".fairalloc-output"} <= {p.name for p in out.iterdir()}
    capsys.readouterr()
    with pytest.raises(InvalidInstanceError, match="holds an earlier output of fairalloc simulate"):
        run_cli(["--workload", f"swf:{swf}", "--policy", "sjf", "--out", str(out)])   # kept without --force
    assert (out / "fcfs").is_dir()
    assert run_cli(["--workload", f"swf:{swf}", "--policy", "sjf", "--out", str(out), "--force"]) == 0
    assert "replacing" in capsys.readouterr().out
    assert not (out / "fcfs").exists() and (out / "sjf").is_dir()        # no stale folder of the first run
    # a folder fairalloc did not write is refused before any work
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(InvalidInstanceError, match="did not write"):
        run_cli(["--workload", f"swf:{swf}", "--out", str(other)])
    assert (other / "notes.txt").read_text() == "keep me"


def test_an_interrupted_output_leaves_nothing_behind(tmp_path):
    from fairalloc.cli.conventions import output_folder

    out = tmp_path / "res"
    with pytest.raises(KeyboardInterrupt):
        with output_folder(out, build_parser().parse_args(["simulate"]), "simulate") as tmp:
            (tmp / "half.csv").write_text("a,b\n")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
