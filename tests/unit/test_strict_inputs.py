"""Instance files and arguments that lie or hang (issue 25, section 4): each input a new user or an
operator met, with what must happen instead of a silent wrong value, a hang, a huge allocation or a
bare TypeError. One strict loader for JSON, YAML and CSV (fairalloc.io), one numeric check after
normalisation (fairalloc.validation / the model), one check of solver options, readers that name
file and line, one rule for commitments."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
import time
import tracemalloc

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.io import LIMITS, load_commitments, load_instance, parse_instance

TI = dict(cluster=[[9, 18]], task_demands=[[1, 4], [3, 1]], tasks=[10, 10])


def _write(tmp_path, name, text):
    p = tmp_path / name
    (p.write_bytes if isinstance(text, bytes) else p.write_text)(text)
    return p


# --- one strict loader: duplicate keys, YAML 1.2 numbers, aliases, sizes, BOM, capacity rows ----------

def test_duplicate_json_key_is_refused(tmp_path):
    p = _write(tmp_path, "d.json", '{"demands": [[1, 1]],\n "capacities": [1, 1],\n "capacities": [9, 18]}')
    with pytest.raises(fa.InvalidInstanceError, match=r"d\.json: duplicate key 'capacities' in one object \(lines 2, 3\)"):
        load_instance(p)


def test_duplicate_yaml_key_is_refused_with_its_line(tmp_path):
    p = _write(tmp_path, "d.yaml", "demands: [[1, 1]]\ncapacities: [1, 1]\ncapacities: [9, 18]\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"d\.yaml:3: .*duplicate key 'capacities' \(first at line 2\)"):
        load_instance(p)
    p = _write(tmp_path, "u.yaml", "users:\n  - {name: A, demand: [1], demand: [2]}\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"u\.yaml:2: .*duplicate key 'demand'"):
        load_instance(p)


@pytest.mark.parametrize("text, why", [("010", "octal"), ("1:30", "base 60"), ("-007", "octal"),
                                       ("1:30:00", "base 60")])
def test_yaml_numbers_read_differently_by_yaml_11_and_12_are_refused(tmp_path, text, why):
    # YAML 1.1 (PyYAML's safe_load) reads 010 as 8 and 1:30 as 90; YAML 1.2 as 10 and a word
    p = _write(tmp_path, "n.yaml", f"demands: [[1, 4]]\ncapacities: [{text}, 18]\n")
    with pytest.raises(fa.InvalidInstanceError, match=rf"n\.yaml:2: .*'{text}' is read differently by YAML 1\.1 \({why}\)"):
        load_instance(p)


def test_yaml_12_numbers_and_words(tmp_path):
    # YAML 1.2 core schema: 1e3 is a number (a string in YAML 1.1), 0o10 octal, 0x10 hex; yes is a word
    p = _write(tmp_path, "n.yaml", "demands: [[1, 4]]\ncapacities: [1e3, 0o10]\nweights: [0x10]\n")
    spec = load_instance(p)
    assert spec.instance.capacities.tolist() == [1000.0, 8.0] and spec.instance.weights.tolist() == [16.0]
    p = _write(tmp_path, "w.yaml", "demands: [[1, 4]]\ncapacities: [yes, 18]\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"capacities\[0\]='yes' is not a number"):
        load_instance(p)


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    # 9 levels of 9 aliases: 9**9 = 387,420,489 numbers from a few hundred bytes
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]"] + [
        f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 9)}]" for k in range(1, 9)] + ["demands: [[1, 1]]"]
    p = _write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")
    assert p.stat().st_size < 600
    t0 = time.process_time()
    with pytest.raises(fa.InvalidInstanceError, match=r"expands to more than 5,000,000 values through aliases"):
        load_instance(p)
    assert time.process_time() - t0 < 30, "safety cap: the refusal must not walk the expansion"


def test_aliases_within_the_limit_are_read(tmp_path):
    p = _write(tmp_path, "a.yaml", "capacities: &c [9, 18]\ndemands: [*c, [3, 1]]\n")
    assert load_instance(p).instance.demands.tolist() == [[9.0, 18.0], [3.0, 1.0]]


def test_file_size_limit(tmp_path, monkeypatch):
    monkeypatch.setitem(LIMITS, "bytes", 10)
    p = _write(tmp_path, "big.json", '{"demands": [[1, 1]]}')
    with pytest.raises(fa.InvalidInstanceError, match=r"the file's size \(21 bytes\) is above the limit of 10 bytes"):
        load_instance(p)


def test_server_count_above_the_limit_is_refused_before_allocating(tmp_path):
    fa.exact  # registers kind: tasks
    text = ("kind: tasks\nservers:\n  - {type: big, capacity: [8, 32], count: 100000000}\n"
            "users:\n  - {demand: [1, 4], tasks: 1}\n")
    p = _write(tmp_path, "t.yaml", text)
    tracemalloc.start()
    try:
        with pytest.raises(fa.InvalidInstanceError, match=r"servers\[0\]\.count=100000000 \(100,000,000 servers\) "
                                                          r"is above the limit of 100,000 servers"):
            load_instance(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    # the sum over server types counts too: two types of 60,000 each
    p = _write(tmp_path, "t2.yaml", text.replace("count: 100000000}", "count: 60000}\n  - {type: b, capacity: [1, 1], "
                                                                       "count: 60000}"))
    with pytest.raises(fa.InvalidInstanceError, match=r"the count summed up to servers\[1\]\.count"):
        load_instance(p)


def test_slots_above_the_limit_are_refused(tmp_path):
    fa.exact
    p = _write(tmp_path, "tv.yaml", "kind: time-varying\nslots: 1000000000\nservers: [{capacity: [2, 2]}]\n"
                                    "users: [{demand: [1, 1], arrivals: [1], duration: 1}]\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"slots=1000000000 \(1,000,000,000 slots\) is above the limit"):
        load_instance(p)


def test_a_mapping_where_numbers_belong_is_refused(tmp_path):
    p = _write(tmp_path, "m.yaml", "capacities: [9, 18]\nusers:\n  - {name: A, demand: {cpu: 1, mem: 4}}\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"users\[0\]\.demand=\{'cpu': 1, 'mem': 4\} is a mapping; "
                                                      r"a number or a list of numbers belongs here"):
        load_instance(p)
    with pytest.raises(fa.InvalidInstanceError, match=r"users\[0\]\.tasks=\[1, 2\] must be one number"):
        parse_instance({"users": [{"demand": [1, 1], "tasks": [1, 2]}]})


def test_a_utf8_bom_is_accepted(tmp_path):
    for name, text in (("bom.csv", "\ufeffuser,cpu,mem\ncapacity,9,18\nA,1,4\n"),
                       ("bom.json", '\ufeff{"demands": [[1, 4]], "capacities": [9, 18]}'),
                       ("bom.yaml", "\ufeffdemands: [[1, 4]]\ncapacities: [9, 18]\n")):
        spec = load_instance(_write(tmp_path, name, text.encode("utf-8")))
        assert spec.instance.capacities.tolist() == [9.0, 18.0] and spec.instance.demands.tolist() == [[1.0, 4.0]]


def test_csv_capacity_row_is_resolved_without_silence(tmp_path):
    # a user named Capacity used to become the capacity row (user B lost, capacities <3, 1>)
    p = _write(tmp_path, "c.csv", "user,cpu,mem\nA,1,4\nCapacity,3,1\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"c\.csv:3: user 'Capacity': the capacity row is spelt "
                                                      r"'capacity' \(lower case\)"):
        load_instance(p)
    # a second capacity row used to replace the first
    p = _write(tmp_path, "c2.csv", "user,cpu,mem\ncapacity,9,18\nA,1,4\ncapacity,3,1\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"c2\.csv:4: a second 'capacity' row \(the first is at line 2\)"):
        load_instance(p)
    p = _write(tmp_path, "c3.csv", "user,cpu,cpu\ncapacity,9,18\nA,1,4\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"names column 'cpu' twice \(columns 2 and 3\)"):
        load_instance(p)


@pytest.mark.parametrize("cell", ["1_000", "nan", "inf", "0x10", "one"])
def test_csv_numbers_are_plain_decimals(tmp_path, cell):
    p = _write(tmp_path, "n.csv", f"user,cpu\ncapacity,10\nA,{cell}\n")
    with pytest.raises(fa.InvalidInstanceError, match=rf"n\.csv:3: column 'cpu' has '{cell}', not a number"):
        load_instance(p)


def test_json_nan_and_infinity_are_refused(tmp_path):
    p = _write(tmp_path, "n.json", '{"demands": [[NaN, 1]]}')
    with pytest.raises(fa.InvalidInstanceError, match=r"NaN is not a JSON number"):
        load_instance(p)


def test_a_directory_is_named_as_one(tmp_path):
    (tmp_path / "x.json").mkdir()
    with pytest.raises(fa.InvalidInstanceError, match=r"x\.json: is a directory, not an instance file"):
        load_instance(tmp_path / "x.json")


# --- one numeric check after normalisation ---------------------------------------------------------

def test_normalised_demands_that_overflow_are_refused():
    # 1e308 / 1e-10 = inf: the mechanism used to return NaN with status OPTIMAL
    with pytest.raises(fa.InvalidInstanceError, match=r"demands\[0, 0\]=1e\+308 / capacities\[0\]=1e-10: the "
                                                      r"normalised demand overflows"):
        fa.Instance([[1e308, 1], [1, 1]], capacities=[1e-10, 1])
    with pytest.raises(fa.InvalidInstanceError, match=r"demands\[0, 0\]=1e-300 / capacities\[0\]=1e\+300: the "
                                                      r"normalised demand underflows to 0"):
        fa.Instance([[1e-300, 1], [1, 1]], capacities=[1e300, 1])
    with pytest.raises(fa.InvalidInstanceError, match=r"weights\[1\]=1e-310 is so small that 1 / weight overflows"):
        fa.Instance([[1, 1], [1, 1]], weights=[1, 1e-310])


def test_task_demands_that_overflow_once_normalised_are_refused():
    # 1e10 / 1e-300 tasks fit: inf
    with pytest.raises(fa.InvalidInstanceError, match=r"task_demands\[0, 0\]=1e-300 is so small next to the server "
                                                      r"capacities that the count of tasks that fit overflows"):
        fa.TaskInstance([[1e10, 1]], [[1e-300, 1]], tasks=[1])
    with pytest.raises(fa.InvalidInstanceError, match=r"task_demands\[0, 0\]=1e-320 / the cluster totals\[0\]="
                                                      r"10000000000\.0: the task's share underflows to 0"):
        fa.TaskInstance([[1e10, 1]], [[1e-320, 1]], tasks=[1])


def test_no_non_finite_result_is_called_optimal(monkeypatch):
    # the instance checks keep every normalised quantity finite; the safety net behind them: a filling
    # that still returned NaN gives status ERROR, not OPTIMAL (simulated by a water-filling returning NaN)
    from fairalloc.mechanisms import _pooled

    real = _pooled.waterfill

    def broken(*args, **kw):
        sol = real(*args, **kw)
        return dataclasses.replace(sol, shares=sol.shares * np.nan)

    monkeypatch.setattr(_pooled, "waterfill", broken)
    r = fa.drf(fa.Instance([[1, 4], [3, 1]], capacities=[9, 18]))
    assert r.status == fa.Status.ERROR and "numeric overflow" in r.message


# --- one check of every solver option ---------------------------------------------------------------

@pytest.mark.parametrize("option, value, want", [
    ("time_limit", "10", "a number of seconds > 0, or None"), ("time_limit", -1, "a number of seconds > 0"),
    ("time_limit", float("nan"), "a number of seconds > 0"), ("mip_gap", "0.1", "a number >= 0"),
    ("mip_gap", -0.1, "a number >= 0"), ("threads", 1.5, "a whole number >= 1"), ("threads", True, "a whole number"),
    ("msg", "yes", "True or False"), ("symmetry", "no", "True or False"), ("options", [1], "a mapping"),
    ("solver", 5, "a backend name")])
def test_solver_options_are_checked_before_any_work(option, value, want):
    ti = fa.TaskInstance(**TI)
    with pytest.raises(fa.InvalidInstanceError, match=rf"drf\(method='milp'\): {option}={re.escape(repr(value))} "
                                                      rf"must be {want}") as e:
        fa.drf(ti, **{option: value})
    assert e.value.argument == option
    with pytest.raises(fa.InvalidInstanceError, match=rf"tasks_leximin: {option}={re.escape(repr(value))} must be {want}"):
        fa.exact.tasks_leximin(ti, **{option: value})


def test_solver_options_of_the_time_varying_programs():
    tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1]], arrivals=[[1, 0]], durations=[1])
    with pytest.raises(fa.InvalidInstanceError, match=r"tvtsf\(method='milp'\): time_limit='10'"):
        fa.tvtsf(tv, time_limit="10")
    with pytest.raises(fa.InvalidInstanceError, match=r"tvtsf_online: mip_gap='0'"):
        fa.exact.tvtsf_online(tv, mip_gap="0")
    with pytest.raises(fa.InvalidInstanceError, match=r"tvtsf_milp: cuts='yes'"):
        fa.exact.tvtsf_milp(tv, cuts="yes")


def test_solver_options_of_the_pareto_programs():
    # the exact Pareto check took time_limit="10" to the backend (a TypeError inside it); now the one check
    from fairalloc.exact.pareto import dominating_servers, pareto_improvement

    ti = fa.TaskInstance([[10]], [[6], [5]], tasks=[2, 2])
    with pytest.raises(fa.InvalidInstanceError, match=r"pareto_improvement: time_limit='10' must be a number of "
                                                      r"seconds > 0") as e:
        pareto_improvement(ti, [0, 0], time_limit="10")
    assert e.value.argument == "time_limit"
    with pytest.raises(fa.InvalidInstanceError, match=r"dominating_servers: solver=5 must be a backend name"):
        dominating_servers([[6]], [[10]], [[True]], [0], [2], solver=5)


# --- every YAML file of fairalloc through the one strict reader ----------------------------------------

def test_spec_files_are_read_by_the_strict_reader(tmp_path):
    # specs were read by yaml.safe_load: the last of two keys won silently and 010 was 8 (YAML 1.1)
    from fairalloc.experiments import Spec

    good = "name: s\nworkload: {generator: lublin, n_jobs: 20, nodes: 8}\ncapacity: {processors: 8}\n" \
           "policies: {fcfs: {}}\nseeds: 1\n"
    assert Spec.from_yaml(_write(tmp_path, "ok.yaml", good)).n_cells == 1
    with pytest.raises(fa.InvalidInstanceError, match=r"dup.yaml:6: not valid YAML: duplicate key 'seeds' "
                                                      r"\(first at line 5\)"):
        Spec.from_yaml(_write(tmp_path, "dup.yaml", good + "seeds: 3\n"))
    with pytest.raises(fa.InvalidInstanceError, match=r"oct.yaml:5: not valid YAML: '010' is read differently"):
        Spec.from_yaml(_write(tmp_path, "oct.yaml", good.replace("seeds: 1", "seeds: 010")))
    with pytest.raises(fa.InvalidInstanceError, match="not a file"):
        Spec.from_yaml(tmp_path)


def test_reproduce_cells_values_are_read_by_the_strict_reader():
    from fairalloc.experiments.reproductions import parse_cells

    assert parse_cells(["delta=null,0.999999,1e-6"]) == [{"delta": [None, 0.999999, 1e-6]}]   # 1e-6: YAML 1.2
    with pytest.raises(fa.InvalidInstanceError, match=r"cells='seed=010': seed:1: .*'010' is read differently"):
        parse_cells(["seed=010"])


# --- sizes follow the instance, not a number in it -----------------------------------------------------

@pytest.mark.parametrize("method", ["milp", "milp-online", "greedy"])
def test_a_duration_longer_than_the_horizon_allocates_nothing_of_its_size(method):
    # durations=[10**9, 1] on two slots used to allocate 7.45 GiB after the solve (schedule details);
    # a task that outlives the horizon runs to its end: user 0's task started in slot 0 still runs in slot 1
    tv = fa.TimeVaryingInstance([[2, 2]], [[1, 1], [1, 1]], arrivals=[[1, 0], [1, 1]], durations=[10**9, 1])
    tracemalloc.start()
    try:
        r = fa.tvtsf(tv, method=method)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100e6
    assert r.status in (fa.Status.OPTIMAL, fa.Status.FEASIBLE)
    if method != "greedy":
        assert r.details["running"][0].sum(axis=0).tolist() == [r.tasks[0, :, 0].sum()] * 2


# --- one rule for commitments ------------------------------------------------------------------------

def test_commitments_above_one_are_refused_by_the_api_as_by_the_files(tmp_path):
    inst = fa.Instance([[1, 4], [3, 1]], capacities=[9, 18], resource_names=["cpu", "mem"])
    with pytest.raises(fa.InvalidInstanceError, match=r"commitments\[0, 0\]=1\.5 is above 1: a commitment is a "
                                                      r"fraction of the capacity of cpu"):
        fa.sdrf(inst, commitments=[[1.5, 0], [0, 0]])
    with pytest.raises(fa.InvalidInstanceError, match=r"commitments\[1, 1\]=2\.0 is above 1"):
        fa.TaskInstance(**TI, commitments=[[0, 0], [0, 2.0]])
    p = _write(tmp_path, "c.json", json.dumps([[1.5, 0], [0, 0]]))
    with pytest.raises(fa.InvalidInstanceError, match=r"c\.json: commitments\[0, 0\]=1\.5 is above 1"):
        load_commitments(p, inst)
    # 1 itself, and a float a rounding above it, are within the rule (nothing is clipped)
    assert fa.sdrf(inst, commitments=[[1.0, 0], [0, 1 + 1e-12]]).status == fa.Status.OPTIMAL


# --- readers name file and line in the API -------------------------------------------------------------

SWF_LINE = b"1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1\n"


def test_read_swf_truncated_gzip_names_file_and_line(tmp_path):
    p = _write(tmp_path, "t.swf.gz", gzip.compress(SWF_LINE * 2000)[:300])
    with pytest.raises(fa.InvalidInstanceError, match=r"t\.swf\.gz: the gzip stream is damaged or ends early "
                                                      r"\(a truncated download\?\) after line \d+ \(EOFError"):
        fa.workloads.read_swf(p)


def test_read_swf_not_gzip_names_the_file(tmp_path):
    p = _write(tmp_path, "n.swf.gz", SWF_LINE)
    with pytest.raises(fa.InvalidInstanceError, match=r"n\.swf\.gz: not a gzip file \(BadGzipFile"):
        fa.workloads.read_swf(p)


def test_read_google2011_names_file_line_and_column(tmp_path):
    p = _write(tmp_path, "g.csv", "0;1;0;u;3;9;1000;-1;0.1;0.1\n0;1;1;u;3;x;1000;-1;0.1;0.1\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"g\.csv:2: column 'priority' is not a number: 'x'"):
        fa.workloads.read_google2011(p)
    q = _write(tmp_path, "part-0.csv.gz", gzip.compress(b"950000000,,1,0,,0,u,3,9,0.125,0.07,0.0004,0\n" * 50)[:60])
    with pytest.raises(fa.InvalidInstanceError, match=r"part-0\.csv\.gz: .*gzip"):
        fa.workloads.read_google2011(q)


def test_read_alibaba_damaged_gzip_names_the_file(tmp_path):
    p = _write(tmp_path, "b.csv.gz", b"0,100,1,1,2,Terminated,100,0.01\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"b\.csv\.gz: not a gzip file"):
        fa.workloads.read_alibaba(p)


@pytest.mark.parametrize("reader", ["read_swf", "read_google2011", "read_alibaba"])
def test_readers_say_a_directory_is_one(tmp_path, reader):
    with pytest.raises(IsADirectoryError, match=r"is a directory; give the .* itself"):
        getattr(fa.workloads, reader)(tmp_path)


def test_commitment_files_follow_the_same_rules(tmp_path):
    inst = fa.Instance([[1, 4], [3, 1]], capacities=[9, 18], agent_names=["A", "B"])
    p = _write(tmp_path, "c.csv", "user,cpu,mem\nA,0.1,0\nB,0,0\nA,0.2,0\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"c\.csv:4: user 'A' again \(first at line 2\)"):
        load_commitments(p, inst)
    p = _write(tmp_path, "n.csv", "0.1,nan\n0,0\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"n\.csv:1: row \['0\.1', 'nan'\] is not numeric"):
        load_commitments(p, inst)
    p = _write(tmp_path, "d.yaml", "A: [0.1, 0]\nA: [0.2, 0]\n")
    with pytest.raises(fa.InvalidInstanceError, match=r"d\.yaml:2: .*duplicate key 'A'"):
        load_commitments(p, inst)
    p = _write(tmp_path, "ok.csv", "\ufeffuser,cpu,mem\nA,0.1,0\n")
    with pytest.warns(fa.FairallocWarning, match=r"no commitments for users \['B'\]"):
        assert load_commitments(p, inst).tolist() == [[0.1, 0.0], [0.0, 0.0]]
