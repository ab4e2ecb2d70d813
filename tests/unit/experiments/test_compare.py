"""fairalloc compare: greedy = exact where theory says so, differences reported elsewhere, the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.cli import main
from fairalloc.errors import InvalidInstanceError
from fairalloc.exact.pareto import pareto_improvement
from fairalloc.experiments.compare import (VARIANTS, Variant, builtin_instances, compare, mechanism_values,
                                           random_instances, summarize)

TASK_VARIANTS = ["drf", "drf-skip", "sdrf", "sdrf-skip", "tsf", "cdrf"]


def test_integer_trap_is_reported_not_failed():
    # One server of 10; users want tasks of 6 and 5 units (2 each). DRF filling serves user 0 first
    # (tie at 0, lower index): 6 units, then user 1's 5 do not fit (4 left). Leximin: user 1 twice
    # (dominant shares (0, 1.0) beat (0.6, 0) sorted: (0, 0.6) < (0, 1.0)). Distance 1.0 - 0.6 = 0.4.
    # Not Pareto-dominated: keeping user 0's task leaves 4 units, less than any task.
    ti = dict(builtin_instances())["integer-trap"]
    df = compare([("trap", ti)], variants=["drf", "drf-skip", "tsf", "cdrf"], solver="highs")
    drf = df.set_index("variant").loc["drf"]
    assert not drf["same"]
    assert drf["leximin_distance"] == pytest.approx(0.4) and drf["leximin_cmp"] == -1
    assert drf["greedy_tasks"] == 1 and drf["exact_tasks"] == 2
    assert drf["pareto_dominated"] is not None and not drf["pareto_dominated"]
    assert drf["exact_status"] == "optimal"
    assert (df["leximin_cmp"] <= 0).all()                      # a proven optimum is never beaten


@pytest.mark.parametrize("seed", range(4))
def test_one_server_equal_tasks_greedy_is_the_leximin_optimum(seed):
    # Theory: on one server with the same task for every user, each value is a_i + x_i * mu with the
    # same step mu (dominant share; SDRF level with its commitment as offset; task share x / h with one
    # h; the CDRF key (x + 1) mu), the feasible set is sum x <= F, x_i <= K_i, and raising the lowest
    # value one step at a time is the integer water-filling, which is leximin-optimal; the stop rule
    # changes nothing (when the first user's task does not fit, no task fits).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    d = rng.integers(1, 4, size=2).astype(float)
    ti = fa.TaskInstance([[20.0, 20.0]], np.tile(d, (n, 1)), tasks=rng.integers(1, 12, n),
                         commitments=rng.integers(0, 3, (n, 2)) / 10)
    df = compare([("equal", ti)], variants=TASK_VARIANTS, solver="highs", pareto=False)
    assert df["same"].all(), df[["variant", "leximin_distance"]]


def test_divisible_limit_greedy_and_exact_meet():
    # Theory: with each user's total demand split into k equal tasks, DRF filling and the leximin of
    # integer tasks both lie within about one task of DRF's divisible water-filling (Ghodsi et al.,
    # progressive filling), so they are within a few task shares of each other, and of fa.drf.
    inst = fa.Instance([[0.4, 0.8], [0.9, 0.2], [0.3, 0.3]])
    k = 40
    task = inst.demands / k
    ti = fa.TaskInstance([[1.0, 1.0]], task, tasks=[k] * 3)
    df = compare([("split", ti)], variants=["drf", "drf-skip"], solver="highs", pareto=False)
    step = fa.shares.dominant_shares(task).max()                 # one task's dominant share
    assert (df["leximin_distance"] <= 3 * step + 1e-12).all()
    divisible = fa.shares.dominant_shares(fa.drf(inst).allocation)
    exact = fa.exact.tasks_leximin(ti, mechanism="drf", solver="highs")
    assert np.abs(np.sort(exact.dominant_shares) - np.sort(divisible)).max() <= 2 * step


def test_mechanism_values_are_the_exact_programs_shares():
    ti = fa.TaskInstance([[8, 8], [4, 8]], [[1, 2], [2, 1], [1, 1]], tasks=[5, 5, 5],
                         placement=[[1, 1], [1, 0], [0, 1]], commitments=[[0.1, 0], [0, 0.2], [0, 0]])
    for mech in ["drf", "sdrf", "tsf", "cdrf"]:
        r = fa.exact.tasks_leximin(ti, mechanism=mech, solver="highs")
        np.testing.assert_allclose(mechanism_values(ti, mech, r.tasks), r.shares, atol=1e-12)
    tv = dict(builtin_instances())["tvtsf-two-servers"]
    r = fa.tvtsf(tv, method="milp", solver="highs")
    np.testing.assert_allclose(mechanism_values(tv, "tvtsf", r.tasks), r.shares, atol=1e-12)
    g = fa.tvtsf(tv, method="greedy")                            # the greedy, registered as a method
    assert np.array_equal(g.tasks, fa.scheduling.tvtsf_greedy(tv).tasks)


def test_time_varying_rows_and_summary():
    insts = random_instances(3, 3, rng=5)
    df = compare(insts, variants=["drf", "tvtsf", "tsf-slots"], solver="highs")
    assert set(df["variant"]) == {"drf", "tvtsf", "tsf-slots"}
    assert (df.loc[df["variant"] == "drf", "slots"] == 1).all()
    assert len(df[df["variant"] != "drf"]) == 6 and (df["exact_status"] == "optimal").all()
    s = summarize(df)
    assert s.loc["tvtsf", "instances"] == 3
    assert s.loc["tvtsf", "same"] + s.loc["tvtsf", "differ"] == 3


def test_pareto_on_time_varying_by_hand():
    # One server of 2 units, horizon 2 slots; user 0 submits 2 unit tasks in slot 0, lasting 2 slots.
    # Starting nothing is dominated (both can start in slot 0: 2 more); starting both is not.
    tv = fa.TimeVaryingInstance([[2.0]], [[1.0]], arrivals=[[2, 0]], durations=[2])
    v = pareto_improvement(tv, np.zeros((1, 1, 2), dtype=int), solver="highs")
    assert v.dominated is True and v.extra == 2
    v = pareto_improvement(tv, np.array([[[2, 0]]]), solver="highs")
    assert v.dominated is False and v.status.value == "optimal"


def test_bad_variant_and_instance():
    with pytest.raises(InvalidInstanceError, match="variant 'drf-fast' is not one of"):
        compare([("x", dict(builtin_instances())["drf-paper"])], variants=["drf-fast"])
    with pytest.raises(InvalidInstanceError, match="compare needs task instances"):
        compare([("pooled", fa.Instance([[1, 2]]))], variants=["drf"])
    assert set(VARIANTS) >= {"drf", "sdrf", "tsf", "cdrf", "tvtsf"}


def test_cli_default_run_and_files(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "--random", "3", "--random-tv", "2", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "each greedy scheduler against the exact (leximin) program" in text
    for v in ["drf", "sdrf", "tsf", "cdrf", "tvtsf"]:
        assert f"\n{v} " in text
    table = pd.read_csv(out / "compare.csv")
    assert len(table) == 4 * (3 + 4) + 1 * (2 + 1)               # task variants x (random + built-in) + tv
    assert (out / "summary.csv").exists() and (out / "compare.png").stat().st_size > 10_000
    f = tmp_path / "two.yaml"
    f.write_text("kind: tasks\nservers:\n  - {name: s0, capacity: [10]}\nusers:\n"
                 "  - {name: A, demand: [6], tasks: 2}\n  - {name: B, demand: [5], tasks: 2}\n")
    # the same --out again: an earlier output of fairalloc is kept unless --force
    assert main(["compare", str(f), "--variants", "drf,tsf", "--out", str(out), "--no-progress"]) == 2
    assert "holds an earlier output of fairalloc compare" in capsys.readouterr().err
    assert len(pd.read_csv(out / "compare.csv")) == len(table)
    (out / "notes.txt").write_text("mine")
    assert main(["compare", str(f), "--variants", "drf,tsf", "--out", str(out), "--no-progress", "--force"]) == 0
    assert "two" in capsys.readouterr().out
    assert len(pd.read_csv(out / "compare.csv")) == 2 and (out / "notes.txt").read_text() == "mine"
    bad = tmp_path / "pooled.yaml"
    bad.write_text("demands: [[1, 2], [2, 1]]\n")
    assert main(["compare", str(bad), "--out", str(tmp_path / "new"), "--no-progress"]) == 2
    assert "compare needs task instances" in capsys.readouterr().err


def test_cli_runs_without_out_are_kept_and_formats(tmp_path, capsys, monkeypatch):
    # no --out: every run gets its own folder under out/compare, `latest` links the newest
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "two.yaml"
    f.write_text("kind: tasks\nservers:\n  - {name: s0, capacity: [10]}\nusers:\n"
                 "  - {name: A, demand: [6], tasks: 2}\n  - {name: B, demand: [5], tasks: 2}\n")
    argv = ["compare", str(f), "--variants", "drf", "--no-progress", "--no-pareto"]
    assert main(argv) == 0
    assert main(argv + ["--format", "json,parquet,svg,pdf"]) == 0
    runs = sorted(p for p in (tmp_path / "out" / "compare").iterdir() if p.name != "latest")
    assert len(runs) == 2
    assert {p.name for p in runs[0].iterdir()} == {"compare.csv", "summary.csv", "compare.png", ".fairalloc-output"}
    assert {p.name for p in runs[1].iterdir()} == {"compare.json", "compare.parquet", "summary.json", "summary.parquet",
                                                  "compare.svg", "compare.pdf", ".fairalloc-output"}
    assert (tmp_path / "out" / "compare" / "latest").resolve() == runs[1].resolve()
    # the 2 rows (one instance, one variant) read back the same from every format
    rows = pd.read_json(runs[1] / "compare.json", precise_float=True)
    assert pd.read_parquet(runs[1] / "compare.parquet")["greedy_min"].tolist() == rows["greedy_min"].tolist()
    assert main(argv + ["--format", "xlsx"]) == 2
    assert "'xlsx': not one of csv, parquet, json, png, pdf, svg" in capsys.readouterr().err


def test_warm_up_runs_every_greedy_once_before_the_timed_calls():
    # the timed call of a variant is its second call: the first (untimed) pays for numba's compilation
    calls = []

    def greedy(inst, **kw):
        calls.append(len(calls))
        return fa.scheduling.drf_greedy(inst, **kw)

    v = Variant("counted", "drf", greedy)
    insts = [(n, i) for n, i in builtin_instances() if n in ("drf-paper", "integer-trap")]
    table = compare(insts, variants=[v], solver="highs", pareto=False)
    assert len(calls) == 1 + 2 and table.attrs["warmup_s"] > 0
    table = compare(insts, variants=[v], solver="highs", pareto=False, warmup=False)
    assert len(calls) == 3 + 2 and table.attrs["warmup_s"] == 0


def test_equal_greedy_allocations_share_one_pareto_milp(monkeypatch):
    # drf and drf-skip both give the DRF paper's 3 and 2 tasks (Ghodsi et al., Section 4): one allocation,
    # one Pareto MILP, the same verdict on both rows
    import fairalloc.exact.pareto as pareto

    calls = []
    real = pareto.pareto_improvement

    def counted(inst, tasks, **kw):
        calls.append(np.asarray(tasks).ravel().tolist())
        return real(inst, tasks, **kw)

    monkeypatch.setattr(pareto, "pareto_improvement", counted)
    insts = [(n, i) for n, i in builtin_instances() if n == "drf-paper"]
    table = compare(insts, variants=["drf", "drf-skip"], solver="highs")
    assert calls == [[3, 2]]
    assert table["greedy_tasks"].tolist() == [5, 5] and table["pareto_dominated"].tolist() == [False, False]
