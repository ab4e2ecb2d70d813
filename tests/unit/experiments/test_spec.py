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
    import fairalloc.version

    monkeypatch.setattr(fairalloc.version, "__version__", "9.9.9")
    assert not set(a) & {c.key for c in Spec.from_dict(BASE).cells()}
    # and on the code: the fingerprint of the code that runs (fairalloc.experiments.fingerprint)
    import fairalloc.experiments.spec as spec_module

    monkeypatch.setattr(spec_module, "cell_code", lambda run, workload: "another-code")
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
    ({"time_limit": 0}, "time_limit", "0"),
    ({"time_limit": "1h"}, "time_limit", "1h"),
    ({"workload": {"generator": "lublin", "reader": "swf", "path": "x"}}, "workload.generator", "lublin"),
    ({"seeds": {"count": 3, "stop": 5}}, "seeds.stop", "5"),
    ({"policies": {"buc": {"k_p": [600.0, 600.0]}}}, "policies.buc.k_p", "600.0"),
    ({"grid": {"procs": [16, 32], "load": 0.5}}, "grid.load", "0.5"),
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


CUSTOM = '''
from fairalloc import InvalidInstanceError

def make(size):
    return {"size": size}

def cell(workload, params):
    import pandas as pd
    return {"t": pd.DataFrame({"size": [workload["size"]], "solver": [params["options"]["solver"]]})}

def _check(params):
    if params["options"]["solver"] not in ("highs", "cbc"):
        raise InvalidInstanceError("solver must be highs or cbc", argument="solver")
    if params["grid"]["n"] > 3:
        raise ValueError("n too large")

cell.check = _check
'''


def test_custom_cell_check_hook_and_custom_generator(tmp_path, monkeypatch):
    (tmp_path / "custom_cells_mod.py").write_text(CUSTOM)
    monkeypatch.syspath_prepend(str(tmp_path))
    d = {"name": "c", "run": "custom_cells_mod:cell",
         "workload": {"generator": "custom_cells_mod:make", "size": "${n}"},
         "grid": {"n": [1, 2]}, "policies": {"exact": {"solver": ["highs", "cbc"]}}}
    s = Spec.from_dict(d)
    assert len(s.cells()) == 4
    with pytest.raises(SpecError) as info:
        Spec.from_dict({**d, "policies": {"exact": {"solver": ["highs", "gurobi"]}}})
    assert info.value.argument == "policies.exact.solver" and info.value.value == "gurobi"
    with pytest.raises(SpecError) as info:
        Spec.from_dict({**d, "grid": {"n": [1, 5]}})
    assert info.value.argument == "policies.exact" and "n too large" in str(info.value)
    with pytest.raises(SpecError) as info:
        Spec.from_dict({**d, "workload": {"generator": "custom_cells_mod:make", "sise": 1}})
    assert info.value.argument == "workload.sise"
    # the custom generator's object reaches the cell function
    from fairalloc.experiments import load, run_sweep
    assert run_sweep(s, tmp_path / "o", workers=0, progress=False).ok
    assert load(tmp_path / "o", "t").df()[["n", "size", "solver"]].values.tolist() == [
        [1, 1, "highs"], [1, 1, "cbc"], [2, 2, "highs"], [2, 2, "cbc"]]


def test_module_docstring_example_is_a_valid_spec():
    import textwrap

    import yaml

    import fairalloc.experiments.spec as spec_module

    doc = spec_module.__doc__
    block = doc.split("Python dict::\n")[1].split("\nThe cells are")[0]
    text = textwrap.dedent(block).replace("run: mypackage.cells:my_cell", "")   # no such package here
    s = Spec.from_dict(yaml.safe_load(text))
    # seeds x load x (drf + sdrf x 2 deltas + sdrf-printed)
    assert s.n_cells == 3 * 3 * 4
    assert {c.params["capacity"]["pool"] for c in s.cells()} == {0.5, 0.75, 1.0}


def test_the_json_schema_is_valid_and_its_examples_are_specs():
    from jsonschema import Draft202012Validator

    from fairalloc.experiments.spec import SCHEMA, schema_markdown

    Draft202012Validator.check_schema(SCHEMA)
    v = Draft202012Validator(SCHEMA)
    for key, node in SCHEMA["properties"].items():
        for ex in node.get("examples", []):
            doc = {"name": "x", key: ex} if key != "name" else {"name": ex}
            assert not list(v.iter_errors(doc)), (key, ex)
    md = schema_markdown()
    for key in SCHEMA["properties"]:
        assert f"| `{key}` |" in md
    assert "## A complete spec" in md and f"{100_000:,} cells is refused" in md


def test_coordinates_are_typed_from_the_spec_without_expanding_it():
    """The column types come from the spec's own lists (an int axis stays int, a mixed one is a
    string, ints mixed with floats are floats), the same as typing every cell's values."""
    d = spec(grid={"procs": [16, 32], "mix": ["normal", 0.5], "frac": [1, 0.5]}, policies=["fcfs"],
             capacity={"processors": "${procs}"})
    cells = Spec.from_dict(d).cells()
    assert {type(c.coords["procs"]) for c in cells} == {int}
    assert {type(c.coords["mix"]) for c in cells} == {str}
    assert {type(c.coords["frac"]) for c in cells} == {float}
    kinds = {}
    for c in cells:
        for k, v in c.coords.items():
            kinds.setdefault(k, set()).add(type(v))
    assert all(len(t) == 1 for t in kinds.values()), kinds
