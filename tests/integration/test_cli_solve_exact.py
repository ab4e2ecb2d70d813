"""`fairalloc solve` on tasks and time-varying instance files (the exact programs)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.cli import main
from fairalloc.errors import InvalidInstanceError
from fairalloc.io import load_instance, parse_instance


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tvtsf_milp_on_the_example_file(capsys, repo_root, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/tvtsf_two_users.yaml"),
                       "--mechanism", "tvtsf", "--method", "milp", "--json", str(out_json))
    assert code == 0
    # hand-computed in tests/unit/exact/test_tvtsf.py: A 3 tasks (3/9), B 4 (4/9)
    row_a = next(line for line in out.splitlines() if line.startswith("A "))
    row_b = next(line for line in out.splitlines() if line.startswith("B "))
    assert row_a.split()[-2:] == ["3", "0.3333"] and row_b.split()[-2:] == ["4", "0.4444"]
    assert "status=optimal" in out
    res = json.loads(out_json.read_text())["results"]["tvtsf"]
    np.testing.assert_allclose(res["shares"], [3 / 9, 4 / 9])
    assert np.array(res["tasks"]).shape == (2, 2, 3)


def _last_milp_solver() -> str:
    """A backend other than the default where one is installed (CBC under PuLP 3, CP-SAT under PuLP 4,
    which bundles no CBC): ``--solver`` must pass through whatever a fresh install has."""
    import fairalloc as fa

    return fa.available_solvers("milp")[-1]


def test_tvtsf_online_maxmin_and_figures(capsys, repo_root, tmp_path):
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/tvtsf_two_users.yaml"), "--method",
                       "milp-online", "--objective", "maxmin", "--solver", _last_milp_solver(), "--out", str(tmp_path))
    assert code == 0 and "method=milp-online" in out
    assert (tmp_path / "tvtsf_milp-online.png").stat().st_size > 0


def test_task_mechanisms_side_by_side(capsys, repo_root):
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/tasks_placement.yaml"), "--time-limit", "30")
    assert code == 0
    for mech in ("drf", "sdrf", "tsf", "cdrf"):
        # --time-limit 30 is a safety cap on a small instance: if it ran out the budget was time
        assert f"{mech}: status=optimal" in out or "time limit" not in out.lower(), \
            f"{mech}: the 30 s safety cap ran out (a slow or loaded machine), not a wrong status"
        assert f"{mech}: status=optimal" in out
    # TSF: A 3 tasks on s0, B 3 (1 on s0, 2 on s1): shares 3/6 each (see the file's comment)
    row_a = next(line for line in out.splitlines() if line.startswith("A "))
    assert row_a.split()[8:10] == ["3", "0.5"]


def test_divisible_tsf_by_lp(capsys, repo_root):
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/tasks_placement.yaml"), "--mechanism", "tsf",
                       "--method", "lp")
    assert code == 0 and "method=lp" in out


def test_wrong_mechanism_for_the_kind(capsys, repo_root):
    code, _, err = run(capsys, "solve", str(repo_root / "examples/tasks_placement.yaml"), "--mechanism", "tvtsf")
    assert code == 2 and "time-varying" in err
    code, _, err = run(capsys, "solve", str(repo_root / "examples/tvtsf_two_users.yaml"), "--method", "nope")
    assert code == 2 and "'milp', 'milp-online'" in err


def test_pooled_files_still_default_to_waterfill(capsys, repo_root):
    code, out, _ = run(capsys, "solve", str(repo_root / "examples/drf_paper.yaml"), "--mechanism", "drf")
    assert code == 0 and "method=waterfill" in out


def test_file_forms_agree():
    per_user = {"kind": "tasks", "resources": ["cpu", "mem"],
                "servers": [{"name": "a", "capacity": [4, 8]}, {"type": "big", "capacity": [8, 16], "count": 2}],
                "users": [{"name": "u", "demand": [1, 2], "tasks": 5, "servers": ["big1"]},
                          {"name": "v", "demand": [2, 1], "tasks": 3, "weight": 2, "commitment": [0.1, 0]}]}
    spec = parse_instance(per_user)
    ti = spec.instance
    assert spec.kind == "tasks" and ti.cluster.server_names == ("a", "big0", "big1")
    assert ti.placement.tolist() == [[False, False, True], [True, True, True]]
    matrix = {"kind": "tasks", **ti.to_dict()}
    assert parse_instance(matrix).instance == ti


def test_time_varying_file_with_per_slot_demands_and_weights():
    data = {"kind": "tvtsf", "slots": 3, "servers": [{"name": "s", "capacity": [4, 4]}],
            "users": [{"name": "a", "demand": [[1, 1], [2, 2], [1, 1]], "arrivals": [1, 1], "duration": 1,
                       "weight": [1, 2, 1]}]}
    tv = parse_instance(data).instance
    assert tv.n_slots == 3 and tv.arrivals.tolist() == [[1, 1, 0]]
    assert tv.task_demands[0, 1].tolist() == [2, 2] and tv.weights.tolist() == [[1, 2, 1]]


@pytest.mark.parametrize("bad, match", [
    ({"users": [{"name": "a", "demand": [1], "arrivals": [1]}]}, "lacks"),
    ({"users": [{"name": "a", "demand": [1], "arrivals": [1], "duration": 1, "servers": ["zz"]}]}, "unknown server"),
    ({"users": [{"name": "a", "demand": [1], "arrivals": [1], "duration": 1, "colour": 3}]}, "unknown field"),
    ({"users": [{"name": "a", "demand": [1], "arrivals": [1, -1], "duration": 1}]}, r"arrivals\[0, 1\]=-1"),
])
def test_bad_time_varying_files_name_the_problem(bad, match):
    data = {"kind": "time-varying", "servers": [{"name": "s", "capacity": [2]}], **bad}
    with pytest.raises(InvalidInstanceError, match=match):
        parse_instance(data)


def test_load_instance_reads_the_example_files(repo_root):
    spec = load_instance(repo_root / "examples/tvtsf_two_users.yaml")
    assert isinstance(spec.instance, fa.TimeVaryingInstance) and spec.kind == "time_varying"
    assert spec.instance.placement.tolist() == [[True, True], [True, False]]
