"""Experiment specs: expansion, stable keys, and every wrong key refused with its name and value."""

from __future__ import annotations

import copy

import pytest

import fairalloc
from fairalloc.experiments import Spec, SpecError

BASE = {
    "name": "t",
    "workload": {"generator": "lublin", "n_jobs": 40, "nodes": 16, "rng": "${seed}"},
    "capacity": {"processors": "${procs}"},
    "grid": {"procs": [16, 32]},
    "policies": {"fcfs": {}, "buc": {"k_p": [100.0, 1000.0]}},
    "seeds": [3, 4],
}


def spec(**changes):
    d = copy.deepcopy(BASE)
    for k, v in changes.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


def test_expansion_order_count_and_resolution():
    cells = Spec.from_dict(BASE).cells()
    # seeds x grid x (fcfs + buc x 2 values), the last axis fastest
    assert len(cells) == 2 * 2 * 3
    got = [(c.params["seed"], c.params["capacity"]["processors"], c.params["label"],
            c.params["options"].get("k_p")) for c in cells[:6]]
    assert got == [(3, 16, "fcfs", None), (3, 16, "buc", 100.0), (3, 16, "buc", 1000.0),
                   (3, 32, "fcfs", None), (3, 32, "buc", 100.0), (3, 32, "buc", 1000.0)]
    # the workload depends on the cell's seed (one generated sample per seed)
    assert {c.workload["rng"] for c in cells} == {3, 4}
    assert cells[0].workload_key != cells[6].workload_key
    assert cells[0].workload_key == cells[1].workload_key
    # coordinates: a column for every axis and option, one type per column
    assert cells[1].coords == {"label": "buc", "policy": "buc", "seed": 3, "k_p": 100.0, "procs": 16}
    assert [c.index for c in cells] == list(range(12))


def test_keys_are_stable_distinct_and_depend_on_parameters_and_version(monkeypatch):
    a = [c.key for c in Spec.from_dict(BASE).cells()]
    assert a == [c.key for c in Spec.from_dict(copy.deepcopy(BASE)).cells()]
    assert len(set(a)) == len(a) and all(len(k) == 16 for k in a)
    # the spec's name is not a parameter; a changed workload parameter is
    assert a == [c.key for c in Spec.from_dict(spec(name="other")).cells()]
    changed = spec(workload={**BASE["workload"], "n_jobs": 41})
    assert not set(a) & {c.key for c in Spec.from_dict(changed).cells()}
    # adding a seed keeps the other cells' keys
    more = [c.key for c in Spec.from_dict(spec(seeds=[3, 4, 5])).cells()]
    assert set(a) < set(more)
    monkeypatch.setattr(fairalloc, "__version__", "9.9.9")
    assert not set(a) & {c.key for c in Spec.from_dict(BASE).cells()}


def test_seeds_forms():
    assert [c.params["seed"] for c in Spec.from_dict(spec(seeds=2, grid=None, capacity={"processors": 16},
                                                          policies=["fcfs"])).cells()] == [0, 1]
    s = Spec.from_dict(spec(seeds={"start": 5, "count": 3}, grid=None, capacity={"processors": 16},
                            policies=["fcfs"]))
    assert [c.params["seed"] for c in s.cells()] == [5, 6, 7]


def test_mixed_type_axis_is_a_string_column():
    d = spec(grid={"procs": [16, 32], "mix": ["normal", 0.5]}, policies=["fcfs"])
    cells = Spec.from_dict(d).cells()
    assert {c.coords["mix"] for c in cells} == {"normal", "0.5"}
    assert {type(c.params["grid"]["mix"]) for c in cells} == {str, float}   # the cell gets the value


def test_yaml_relative_path_and_reader(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "w.swf").write_text("; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    (tmp_path / "s.yaml").write_text("name: r\nworkload: {reader: swf, path: data/w.swf}\n"
                                     "capacity: {processors: 8}\npolicies: [fcfs, easy]\n")
    s = Spec.from_yaml(tmp_path / "s.yaml")
    assert s.cells()[0].workload["path"] == str((data / "w.swf").resolve())


def test_custom_run_needs_no_workload_or_policies():
    s = Spec.from_dict({"name": "c", "run": "fairalloc.experiments.inputs:build_capacity",
                        "grid": {"x": [1, 2, 3]}, "seeds": 2})
    cells = s.cells()
    assert len(cells) == 6 and cells[0].workload is None and cells[0].params["policy"] is None
    assert cells[0].params["tables"] is None         # keep whatever the function returns


WRONG = [
    # (change, key named in the error, value named)
    ({"tabels": ["summary"]}, "tabels", "['summary']"),
    ({"name": "has space"}, "name", "'has space'"),
    ({"policies": {"fcfs": {}, "nosuch": {}}}, "policies.nosuch", "nosuch"),
    ({"policies": {"buc": {"k_q": 5.0}}}, "policies.buc.k_q", "5.0"),
    ({"policies": {"buc": {"k_p": []}}}, "policies.buc.k_p", "[]"),
    ({"policies": {"sdrf-x": {"policy": "sdrf", "delta": 2.0}}}, "policies.sdrf-x.delta", "2.0"),
    ({"policies": {}}, "policies", "{}"),
    ({"grid": {"procs": []}}, "grid.procs", "[]"),
    ({"grid": {"seed": [1]}}, "grid.seed", "[1]"),
    ({"seeds": []}, "seeds", "[]"),
    ({"seeds": [1, -2]}, "seeds[1]", "-2"),
    ({"workload": {"generator": "lublin", "n_jobz": 5}}, "workload.n_jobz", "5"),
    ({"workload": {"generator": "nosuch"}}, "workload.generator", "'nosuch'"),
    ({"workload": {"reader": "swf", "path": "/no/such/file.swf"}}, "workload.path", "/no/such/file.swf"),
    ({"workload": {"reader": "swf"}}, "workload.path", "None"),
    ({"workload": None}, "workload", "None"),
    ({"capacity": {"processes": 16}}, "capacity.processes", "16"),
    ({"capacity": {"processors": "${nprocs}"}}, "capacity.processors", "${nprocs}"),
    ({"capacity": {"cluster": "nosuch"}}, "capacity.cluster", "nosuch"),
    ({"capacity": {"pool": -1}}, "capacity.pool", "-1"),
    ({"tables": ["summary", "jobz"]}, "tables[1]", "jobz"),
    ({"run": "fairalloc.nosuch:f"}, "run", "fairalloc.nosuch:f"),
    ({"run": "no_colon"}, "run", "no_colon"),
]


@pytest.mark.parametrize("change,key,value", WRONG, ids=[w[1] for w in WRONG])
def test_wrong_spec_names_key_and_value(change, key, value):
    with pytest.raises(SpecError) as info:
        Spec.from_dict(spec(**change))
    assert info.value.argument == key
    assert f"spec key {key!r}" in str(info.value)
    assert value in str(info.value)
    assert isinstance(info.value, fairalloc.InvalidInstanceError)


def test_missing_spec_file(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        Spec.from_yaml(tmp_path / "nope.yaml")
