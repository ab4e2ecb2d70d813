"""The what-if grid: policies x half-lives x weights on the sweep layer, resumable, with clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairalloc as fa
import fairalloc.sim
from fairalloc.accounts import AccountTree
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.whatif import synthetic_tree, whatif, whatif_tables


def _wl():
    g = np.random.default_rng(3)
    n = 40
    return fa.workloads.Workload(submit=np.sort(g.uniform(0, 2000, n)), run_time=g.uniform(60, 900, n),
                                 processors=g.integers(1, 9, n), user=g.integers(0, 4, n))


def test_grid_rows_half_life_conversion_and_resume(tmp_path):
    wl = _wl()
    kw = dict(half_lives=["1h", 86400], capacity=16, accounts="synthetic", out=tmp_path, workers=0)
    s = whatif(wl, ["fcfs", "easy", "sdrf"], **kw)
    assert s["label"].tolist() == ["fcfs", "easy", "sdrf", "sdrf"]
    sd = s[s["label"] == "sdrf"]
    assert sd["half_life"].tolist() == [3600.0, 86400.0]
    # SDRF's Eq. 6 halves a commitment in t_1/2 when tau = t_1/2 / ln 2; per second delta = 2^(-1/t_1/2)
    assert sd["tau"].tolist() == pytest.approx([3600 / math.log(2), 86400 / math.log(2)])
    assert sd["delta"].tolist() == pytest.approx([0.5 ** (1 / 3600), 0.5 ** (1 / 86400)])
    assert s["setting"].tolist() == ["processors", "processors", "pool of processors", "pool of processors"]
    assert s["tree"].str.startswith("synthetic: 4 accounts").all()
    # FCFS on 16 processors as fa.simulate gives it: the cell ran the simulator unchanged
    direct = fa.simulate(wl, 16, policy="fcfs")
    assert s.loc[s.label == "fcfs", "mean_wait"].item() == pytest.approx(direct.summary()["mean_wait"])
    assert ((s["jain_user"] > 0) & (s["jain_user"] <= 1)).all()
    t = whatif_tables(tmp_path)
    assert set(t["entities"]["level"]) == {"user", "account"}
    assert len(t["jobs"]) == 4 * len(wl)
    again = whatif(wl, ["fcfs", "easy", "sdrf"], **kw)
    assert again.attrs["sweep"].done == 0 and again.attrs["sweep"].skipped == 4   # nothing computed again
    assert again["mean_wait"].tolist() == s["mean_wait"].tolist()


def test_policy_object_and_weights_grid(tmp_path):
    wl = _wl()
    from fairalloc.sim import make_queue_policy

    pol = make_queue_policy("sjf")    # a policy object, as fa.simulate takes
    s = whatif(wl, {"mine": pol, "drf": {"policy": "drf", "blocking": "skip"}}, weights=["equal", "shares"],
               capacity=16, out=tmp_path, workers=0)
    assert s["label"].tolist() == ["mine", "drf", "drf"]
    assert s["weights"].tolist()[1:] == ["equal", "shares"]
    direct = fa.simulate(wl, 16, policy="sjf")
    assert s.loc[0, "mean_wait"] == pytest.approx(direct.summary()["mean_wait"])


@pytest.mark.parametrize("bad, match", [
    (dict(policies=["fcfs", "slurmish"]), r"unknown policy 'slurmish'"),
    (dict(half_lives=[3600, 0]), r"half_lives\[1\]=0 must be a positive duration"),
    (dict(half_lives=["-2d"]), r"half_lives\[0\]='-2d' must be a positive duration"),
    (dict(weights=["equal", "heavy"]), r"weights\[1\]='heavy'"),
    (dict(policies={"x": {"policy": "sdrf", "nope": 1}}), r"policies\['x'\].*nope"),
])
def test_bad_input_names_argument_and_value(tmp_path, bad, match):
    kw = dict(policies=["fcfs"], capacity=16, out=tmp_path, workers=0)
    kw.update(bad)
    with pytest.raises(InvalidInstanceError, match=match):
        whatif(_wl(), kw.pop("policies"), **kw)


def test_a_learned_function_file_is_a_policy(tmp_path):
    """Issue 29: a learned priority function (``learned:FILE``) is usable wherever a policy name is, the
    what-if comparison included; its cell equals ``fa.simulate`` with the same name (here Table 1's F1 as a
    file, whose schedule is policy ``f1``'s: tests/unit/sim/test_learned_policy.py)."""
    from fairalloc.experiments.learn import LearnedFunction

    path = LearnedFunction("c1 * sqrt(r) * c2 * n + c3 * log10(s)",
                           {"c1": 0.0001352, "c2": 0.2765352, "c3": 0.0071470}, name="F1-file").save(tmp_path / "f1.json")
    wl = fa.workloads.lublin(n_jobs=80, nodes=16, rng=3, n_users=4)
    s = whatif(wl, ["fcfs", f"learned:{path}"], capacity=16, out=tmp_path / "w", workers=0)
    assert s["label"].tolist() == ["fcfs", "learned-f1"]
    assert s.loc[1, "mean_wait"] == pytest.approx(fa.simulate(wl, 16, policy="f1").summary()["mean_wait"])
    with pytest.raises(InvalidInstanceError):
        whatif(wl, [f"learned:{tmp_path / 'nope.json'}"], capacity=16, out=tmp_path / "x", workers=0)


@pytest.mark.parametrize("spec, match", [
    # fairalloc.workloads.lublin takes n_jobs (its signature), not n: the CLI's --gen n=60 raised a TypeError
    # from inside the generator, reported as an internal error (exit 70)
    ({"generator": "lublin", "n": 60}, r"workload: n=60 is not an argument of lublin"),
    ({"generator": "nope"}, r"'nope' is not a built-in generator"),
])
def test_bad_workload_spec_names_the_key(tmp_path, spec, match):
    with pytest.raises(InvalidInstanceError, match=match):
        whatif(spec, ["fcfs"], capacity=16, out=tmp_path, workers=0)


def test_unknown_account_and_missing_user(tmp_path):
    bad = tmp_path / "acc.yaml"
    bad.write_text("accounts:\n  - {name: A}\nusers:\n  - {name: '0', account: B}\n")
    with pytest.raises(InvalidInstanceError, match=r"unknown account 'B'"):
        whatif(_wl(), ["fcfs"], capacity=16, accounts=bad, out=tmp_path / "o", workers=0)
    with pytest.raises(InvalidInstanceError, match=r"user 3 of the trace has no association"):
        whatif(_wl(), ["fcfs"], capacity=16, accounts=AccountTree.flat([0, 1, 2]), out=tmp_path / "p", workers=0)


def test_synthetic_tree_is_stated_and_seeded():
    a, b = synthetic_tree(range(10), 3, rng=5), synthetic_tree(range(10), 3, rng=5)
    assert a.names == b.names and a.parent.tolist() == b.parent.tolist()
    # account k has raw shares k: entitlements 1/6, 2/6, 3/6
    assert a.normalized_shares[1:4].tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6])
    counts = np.bincount(a.parent[a.user_nodes])
    assert sorted(counts[counts > 0].tolist()) == [3, 3, 4]


def test_real_trace_kth_small(tmp_path, shared_data):
    # shared_data (tests/conftest.py) skips, saying why, without ../shared/data or $FAIRALLOC_DATA
    data = shared_data
    s = whatif(data / "swf" / "KTH-SP2-1996-2.1-cln.swf.gz", ["easy", "sdrf"], half_lives=["1d"], head=400,
               accounts="synthetic", out=tmp_path, workers=0)
    assert s["jobs"].tolist() == [400, 400]
    assert s["setting"].tolist() == ["processors", "pool of processors"]
    assert s["jain_account"].between(0, 1).all()


def test_jobs_of_no_run_time_are_left_out_of_every_cell(tmp_path):
    # job 1 runs for 0 s: the task schedulers refuse it, so no cell runs it (every policy the same jobs)
    wl = fa.workloads.Workload(submit=[0, 1, 2], run_time=[10, 0, 5], processors=[2, 2, 2], user=[0, 1, 1])
    s = whatif(wl, ["fcfs", "sdrf"], capacity=4, out=tmp_path, workers=0)
    assert s["dropped"].tolist() == [1, 1] and s["jobs"].tolist() == [2, 2]


def test_a_new_policy_with_half_life_joins_the_grid(tmp_path):
    # how Slurm's fair share will plug in: a factory taking half_life= (seconds) joins the half-life grid
    from fairalloc.sim import make_queue_policy
    from fairalloc.sim.policies import _REGISTERED

    seen = []

    def factory(half_life=None):
        seen.append(half_life)
        return make_queue_policy("fcfs")

    fairalloc.sim.register_policy("test-decay", factory)
    try:
        s = whatif(_wl(), ["fcfs", "test-decay"], half_lives=["2h", "3d"], capacity=16, out=tmp_path, workers=0)
    finally:
        _REGISTERED.pop("test-decay", None)
    assert s["label"].tolist() == ["fcfs", "test-decay", "test-decay"]
    assert s["half_life"].tolist()[1:] == [7200.0, 259200.0]
    assert 7200.0 in seen and 259200.0 in seen          # the cells built it with the half-lives in seconds


def test_a_policy_taking_accounts_gets_the_runs_tree(tmp_path):
    # Slurm's classic fair share / Fair Tree rank by the account tree: a factory with accounts= receives it
    from fairalloc.sim import make_queue_policy
    from fairalloc.sim.policies import _REGISTERED

    got = []

    def factory(accounts=None):
        got.append(accounts)
        return make_queue_policy("fcfs")

    fairalloc.sim.register_policy("test-tree", factory)
    try:
        whatif(_wl(), ["test-tree"], capacity=16, accounts=("synthetic", 2), out=tmp_path, workers=0)
    finally:
        _REGISTERED.pop("test-tree", None)
    trees = [t for t in got if isinstance(t, AccountTree) and t.n_users == 4]
    assert trees and trees[-1].account_names == ("root", "acct1", "acct2")


def test_half_lives_no_policy_uses_are_said(tmp_path):
    from fairalloc.errors import FairallocWarning

    with pytest.warns(FairallocWarning, match="none of the policies"):
        whatif(_wl(), ["fcfs", "easy"], half_lives=["1d"], capacity=16, out=tmp_path, workers=0)


def test_slurm_and_htcondor_in_the_half_life_grid(tmp_path):
    # the production policies of the simulator (sim/policies/fairshare.py) join the half-life grid by name and
    # rank by the run's account tree: each cell is fa.simulate(..., half_life=h, accounts=tree) on processors
    wl = _wl()
    tree = synthetic_tree(sorted(set(wl.user.tolist())), 2, rng=0)
    s = whatif(wl, ["slurm", "slurm+easy", "htcondor", "sdrf"], half_lives=[600, 86400], capacity=16, accounts=tree,
               out=tmp_path, workers=0)
    assert s["label"].tolist() == ["slurm"] * 2 + ["slurm+easy"] * 2 + ["htcondor"] * 2 + ["sdrf"] * 2
    assert s["half_life"].tolist() == [600.0, 86400.0] * 4
    for label, pol in (("slurm", "slurm"), ("slurm+easy", "slurm+easy"), ("htcondor", "htcondor")):
        rows = s[s["label"] == label]
        assert (rows["setting"] == "processors").all()
        for hl, mean_wait in zip(rows["half_life"], rows["mean_wait"]):
            r = fa.simulate(wl, 16, policy=pol, half_life=hl, accounts=tree)
            assert mean_wait == pytest.approx(r.jobs["wait"].mean())


def test_slurm_on_a_task_pool_in_the_grid(tmp_path):
    # google_like tasks on a pool: slurm runs there too (each job a group of tasks, like a job array)
    wl = fa.workloads.google_like(5, 300, rng=4)
    tree = synthetic_tree(sorted(set(wl.user.tolist())), 2, rng=0)
    s = whatif(wl, ["slurm"], half_lives=[3600], capacity={"pool": 0.8}, accounts=tree, out=tmp_path, workers=0)
    assert s["setting"].tolist() == ["pool"]
    from fairalloc.experiments.inputs import build_capacity
    r = fa.simulate(wl, build_capacity({"pool": 0.8}, wl), policy="slurm", half_life=3600.0, accounts=tree)
    assert s["mean_wait"].iloc[0] == pytest.approx(r.jobs["wait"].mean())


def test_bench_whatif_runs_the_commands_grid(tmp_path, monkeypatch):
    # benchmarks/bench_whatif.py times `fairalloc whatif` itself (fairalloc.cli.main with its command()): the spec
    # the command builds from those arguments is issue 27's grid (Measure: 3 policies x 4 half-lives, beside FCFS
    # and EASY once each; 1 h, 1 d, 7 d, 30 d = 3,600, 86,400, 604,800, 2,592,000 s), on a synthetic account tree
    import importlib.util
    from pathlib import Path

    import fairalloc.experiments.runner as runner
    from fairalloc.cli import main

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_whatif.py"
    spec = importlib.util.spec_from_file_location("_bench_whatif_under_test", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    swf = fa.workloads.write_swf(_wl(), tmp_path / "t.swf", header={"MaxProcs": 16})
    caught = []

    class Caught(Exception):
        pass

    def no_run(spec, *args, **kwargs):
        caught.append(spec)
        raise Caught

    monkeypatch.setattr(runner, "run_sweep", no_run)
    with pytest.raises(Caught):
        main([*bench.command(swf, tmp_path / "out", workers=2), "--debug"])
    cells = caught[0].cells()
    hours = {c.params["label"]: [] for c in cells}
    for c in cells:
        hours[c.params["label"]].append(c.params["options"].get("half_life"))
        assert c.params["options"]["tree"].startswith("synthetic: 4 accounts")
    assert hours == {"fcfs": [None], "easy": [None], "slurm": [3600.0, 86400.0, 604800.0, 2592000.0],
                     "htcondor": [3600.0, 86400.0, 604800.0, 2592000.0], "sdrf": [3600.0, 86400.0, 604800.0, 2592000.0]}
    assert (tmp_path / "out" / "inputs").is_dir()        # the command's folder (what `fairalloc whatif` resumes)
