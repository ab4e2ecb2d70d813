"""``fairalloc sweep`` / ``fairalloc results``: a sweep killed with SIGKILL part way and restarted ends
with exactly the rows of an uninterrupted run; the commands' output and errors."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import fairalloc.cli as cli
from fairalloc.experiments import load, run_sweep

SPEC = """\
name: killme
workload: {generator: lublin, n_jobs: 1500, nodes: 64, rng: "${seed}"}
capacity: {processors: 64}
policies:
  fcfs: {}
  wfp3: {}
  buc: {k_p: [600.0, 10800.0]}
seeds: 4
tables: [summary, users, jobs]
"""
#: A safety cap, not a measure: the sweep has 16 small cells.
CAP_S = 600


@pytest.fixture(autouse=True)
def available_subcommands(monkeypatch):
    # other areas' subcommands may not exist on this branch yet; the registry itself is not under test
    present = tuple(s for s in cli.SUBCOMMANDS if importlib.util.find_spec(f"fairalloc.cli.{s}") is not None)
    assert {"sweep", "results"} <= set(present)
    monkeypatch.setattr(cli, "SUBCOMMANDS", present)


def _sweep_process(spec: Path, out: Path) -> subprocess.Popen:
    # its own session: SIGKILL goes to the whole group (the command and its Dask worker processes)
    return subprocess.Popen([sys.executable, "-m", "fairalloc", "sweep", str(spec), "--out", str(out),
                             "--workers", "1", "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def test_sigkill_mid_sweep_then_restart_equals_uninterrupted(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "killed"
    proc = _sweep_process(spec, out)
    t0 = time.monotonic()
    while len(list((out / "cells").glob("*.json"))) < 3:
        if proc.poll() is not None:
            pytest.fail(f"the sweep ended before it could be killed: {proc.stdout.read().decode()}")
        if time.monotonic() - t0 > CAP_S:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"safety cap: fewer than 3 cells after {CAP_S} s")
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    recorded = len(list((out / "cells").glob("*.json")))
    assert 3 <= recorded < 16, recorded                  # killed part way
    # restart: the same command finishes the sweep, skipping what was done
    again = _sweep_process(spec, out)
    text = again.communicate(timeout=CAP_S)[0].decode()
    assert again.returncode == 0, text
    skipped = int(text.split(" done, ")[1].split(" skipped")[0])
    assert skipped >= 3 and f"16 cells: {16 - skipped} done" in text
    # the uninterrupted run
    ref = tmp_path / "ref"
    assert run_sweep(spec, ref, workers=0, progress=False).ok
    for table in ("summary", "users", "jobs"):
        a, b = load(out, table).df(), load(ref, table).df()
        pd.testing.assert_frame_equal(a, b)
    jobs = load(out, "jobs").df()
    assert not jobs.duplicated(["key", "row"]).any() and len(jobs) == 16 * 1500
    cells = load(out, "cells").df()
    assert (cells["status"] == "done").all() and cells["key"].is_unique and len(cells) == 16
    assert not list(out.rglob("*.tmp"))        # a temporary file may be left only by a kill mid-write
    for f in (out / "tables").rglob("*.parquet"):
        pd.read_parquet(f)                     # every file is whole


def test_cli_sweep_and_results(tmp_path, capsys):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.replace("n_jobs: 1500", "n_jobs: 60").replace("seeds: 4", "seeds: 1"))
    out = tmp_path / "o"
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "0", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "sweep 'killme': 4 cells: 4 done, 0 skipped (already done), 0 failed" in text
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "0", "--no-progress"]) == 0
    assert "4 cells: 0 done, 4 skipped" in capsys.readouterr().out
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "0", "--quiet"]) == 0
    assert capsys.readouterr().out == ""                # -q: nothing but errors
    assert cli.main(["results", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 cells: 4 done, 0 failed, 0 pending" in text and "tables: jobs, summary, users, cells" in text
    assert "sweep 'killme', fairalloc " in text
    csv = tmp_path / "q.csv"
    assert cli.main(["results", str(out), "--sql", "SELECT label, count(*) AS n FROM jobs GROUP BY label "
                     "ORDER BY label", "--csv", str(csv)]) == 0
    assert pd.read_csv(csv).values.tolist() == [["buc", 120], ["fcfs", 60], ["wfp3", 60]]
    # the same rows as Parquet and JSON (--out FILE: the format from its suffix); an existing file is kept
    query = "SELECT label, count(*) AS n FROM jobs GROUP BY label ORDER BY label"
    for name, read in (("q.parquet", pd.read_parquet), ("q.json", pd.read_json)):
        assert cli.main(["results", str(out), "--sql", query, "--out", str(tmp_path / name), "-q"]) == 0
        assert read(tmp_path / name).values.tolist() == [["buc", 120], ["fcfs", 60], ["wfp3", 60]]
    capsys.readouterr()
    assert cli.main(["results", str(out), "--sql", query, "--csv", str(csv)]) == 2
    assert "exists; give another file, or --force" in capsys.readouterr().err
    assert cli.main(["results", str(out), "--table", "summary"]) == 0
    assert "policy_name" in capsys.readouterr().out
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "0", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 4
    assert cli.main(["results", str(out), "--sql", "SELECT count(*) AS n FROM summary", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 4}]


def test_cli_errors(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SPEC.replace("wfp3: {}", "wfp9: {}"))
    assert cli.main(["sweep", str(bad), "--out", str(tmp_path / "x"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "spec key 'policies.wfp9' = 'wfp9'" in err
    assert not (tmp_path / "x").exists()                # refused before anything ran
    assert cli.main(["sweep", str(tmp_path / "none.yaml"), "--out", str(tmp_path / "x")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert cli.main(["results", str(tmp_path)]) == 2
    assert "not a sweep folder" in capsys.readouterr().err
    assert cli.main(["sweep", str(bad), "--out", "x", "--workers", "2", "--scheduler", "tcp://h:1"]) == 2
    assert "not allowed with argument --workers" in capsys.readouterr().err
