"""`fairalloc solve` end to end: built-in examples, example files, JSON output, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from fairalloc.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_builtin_example_prints_three_mechanisms_side_by_side(capsys):
    code, out, _ = run(capsys, "solve", "--example", "sdrf-fig2")
    assert code == 0
    assert "max-min (no commitments)" in out and "drf" in out and "sdrf (= stateful max-min)" in out
    # hand-computed values of the example (fairalloc.examples.sdrf_fig2): D gets 4.25 vs 3.5
    row_d = next(line for line in out.splitlines() if line.startswith("D "))
    assert row_d.split()[-3:] == ["4.25", "4.25", "3.5"]


@pytest.mark.parametrize("path", ["examples/drf_paper.yaml", "examples/sdrf_fig2.json", "examples/three_users.csv"])
def test_example_files(capsys, repo_root, path, tmp_path):
    out_json = tmp_path / "out.json"
    code, out, _ = run(capsys, "solve", str(repo_root / path), "--json", str(out_json))
    assert code == 0, out
    data = json.loads(out_json.read_text())
    assert set(data["results"]) == {"max-min", "drf", "sdrf"}
    drf = data["results"]["drf"]
    if "skipped" not in drf:
        assert drf["status"] == "optimal"


def test_drf_paper_file_gives_three_and_two_tasks(capsys, repo_root, tmp_path):
    out_json = tmp_path / "o.json"
    run(capsys, "solve", str(repo_root / "examples/drf_paper.yaml"), "--mechanism", "drf", "--json", str(out_json))
    alloc = np.array(json.loads(out_json.read_text())["results"]["drf"]["allocation"])
    np.testing.assert_allclose(alloc / [[1, 4], [3, 1]], [[3, 3], [2, 2]])       # Ghodsi et al. 2011


def test_commitments_file_and_lp_method(capsys, repo_root):
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/three_users.csv"), "--commitments",
                       str(repo_root / "examples/three_users_commitments.csv"), "--method", "lp",
                       "--solver", "highs", "--mechanism", "sdrf")
    assert code == 0 and "solver=highs" in out


def test_json_to_stdout(capsys):
    code, out, _ = run(capsys, "solve", "--example", "drf-paper", "--json", "-", "--mechanism", "drf")
    payload = json.loads(out[out.index("{"):])
    assert payload["results"]["drf"]["status"] == "optimal"


@pytest.mark.parametrize("args,needle", [
    (["solve"], "give an instance FILE or --example NAME"),
    (["solve", "--example", "nope"], "unknown example 'nope'"),
    (["solve", "--example", "drf-paper", "--mechanism", "magic"], "mechanism='magic' is not one of"),
    (["solve", "--example", "drf-paper", "--method", "lp", "--solver", "nosuch"], "unknown solver 'nosuch'"),
    (["solve", "does/not/exist.yaml"], "instance file not found"),
])
def test_errors_are_one_line_with_status_2(capsys, args, needle):
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err


def test_bad_csv_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("user,cpu\ncapacity,10\nA,abc\n")
    code, _, err = run(capsys, "solve", str(bad))
    assert code == 2 and "bad.csv:3" in err and "'abc'" in err


def test_negative_demand_in_file_names_the_entry(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"demands": [[1, 2], [3, -1]], "capacities": [4, 4]}')
    code, _, err = run(capsys, "solve", str(bad))
    assert code == 2 and "demands[1, 1]=-1.0 must be >= 0" in err


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "fairalloc", "solve", "--list-examples"],
                          capture_output=True, text=True, check=True)
    assert "drf-paper" in proc.stdout


def test_large_instance_table_is_cut_and_summary_mode(capsys, tmp_path):
    # 60 users with equal demands <1, 1> on capacities <60, 60>: DRF gives each exactly 1 of each
    f = tmp_path / "big.json"
    f.write_text(json.dumps({"demands": [[1, 1]] * 60, "capacities": [60, 60]}))
    code, out, _ = run(capsys, "solve", str(f), "--mechanism", "drf")
    assert code == 0 and "... 10 more users (--rows 0 shows all" in out
    assert sum(line.split()[0].startswith("user") and line.split()[0][4:].isdigit()
               for line in out.splitlines() if line.strip()) == 50
    code, out, _ = run(capsys, "solve", str(f), "--mechanism", "drf", "--summary")
    assert code == 0 and "user0 " not in out
    assert "dominant shares min 0.01667 median 0.01667 max 0.01667" in out     # 1/60
    code, out, _ = run(capsys, "solve", str(f), "--mechanism", "drf", "-q", "--json", str(tmp_path / "r.json"))
    assert code == 0 and out == ""
    assert len(json.loads((tmp_path / "r.json").read_text())["results"]["drf"]["allocation"]) == 60
