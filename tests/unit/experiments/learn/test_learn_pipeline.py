"""Training and evaluation on the sweep layer (fairalloc.experiments.learn.pipeline), in this process
(workers=0: the sweep's own tests cover Dask), at a tiny scale."""

import json

import numpy as np
import pandas as pd
import pytest

from fairalloc.cli import main
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.learn import LearnedFunction, score_states, training_states
from fairalloc.experiments.learn.pipeline import evaluate, evaluation_table, score_cell, train

SMALL = dict(states=4, per_cell=2, trials=200, processors=64, started=3, queued=6, seed=5)


def test_a_cell_scores_its_own_states_as_score_states_does():
    g = {"per_cell": 2, "trials": 50, "processors": 64, "started": 3, "queued": 6, "backfill": False, "tau": 10.0,
         "base_seed": 1}
    t = score_cell(None, {"grid": g, "seed": 3})["scores"]
    assert t["state"].unique().tolist() == [6, 7]                  # cell 3's states: 3 * per_cell + 0, 1
    np.testing.assert_allclose(t.groupby("state")["score"].sum(), 1.0, rtol=1e-12)   # Eq. 2 sums to 1 per state
    # the same draws by hand: the cell's seed sequence (base seed, cell) spawns the states' and trials' seeds
    s_states, s_trials = np.random.SeedSequence([1, 3]).spawn(2)
    st = training_states(2, processors=64, started=3, queued=6, rng=np.random.default_rng(s_states))
    ref = score_states(st, 50, rng=np.random.default_rng(s_trials))
    np.testing.assert_array_equal(t["score"].to_numpy(), ref["score"].to_numpy())


def test_train_writes_usable_functions_and_resumes(tmp_path):
    res = train(tmp_path / "t", workers=0, **SMALL)
    table = res["scores"]
    assert table["state"].nunique() == 4 and len(table) == 4 * 6
    for name in ("best.json", "F1.json", "F2.json"):
        fn = LearnedFunction.load(tmp_path / "t" / name)
        assert fn.provenance["trials"] == 200 and fn.provenance["states"] == 4
    best = res["ranking"].best
    assert LearnedFunction.load(tmp_path / "t" / "best.json").formula == best.formula
    again = train(tmp_path / "t", workers=0, **SMALL)                 # every cell reused from the store
    assert again["sweep"].skipped == 2 and again["sweep"].done == 0
    pd.testing.assert_frame_equal(again["scores"], table)


def test_train_easy_runs_every_trial_with_easy(tmp_path):
    # `fairalloc learn train --easy` (the issue: "EASY as an option"): each cell's scores are
    # score_states(..., backfill=True) on the cell's own draws, and the files say backfill
    argv = ["learn", "train", "--easy", "-q", "--workers", "0", "--states", "4", "--per-cell", "2", "--trials", "200",
            "--processors", "64", "--started", "3", "--queued", "6", "--seed", "5", "--out", str(tmp_path / "t")]
    assert main(argv) == 0
    got = pd.read_parquet(tmp_path / "t" / "scores.parquet")["score"].to_numpy()
    by_hand = {True: [], False: []}
    for cell in (0, 1):
        for backfill in (True, False):
            s_states, s_trials = np.random.SeedSequence([5, cell]).spawn(2)
            st = training_states(2, processors=64, started=3, queued=6, rng=np.random.default_rng(s_states))
            by_hand[backfill].append(score_states(st, 200, rng=np.random.default_rng(s_trials),
                                                  backfill=backfill)["score"].to_numpy())
    np.testing.assert_array_equal(got, np.concatenate(by_hand[True]))
    assert not np.array_equal(got, np.concatenate(by_hand[False]))     # EASY changes these states' scores
    assert LearnedFunction.load(tmp_path / "t" / "best.json").provenance["backfill"] is True
    assert json.loads((tmp_path / "t" / "train.json").read_text())["backfill"] is True


def test_train_refuses_bad_counts(tmp_path):
    with pytest.raises(InvalidInstanceError, match="states=5 is not a multiple of per_cell=2"):
        train(tmp_path, states=5, per_cell=2, workers=0)
    with pytest.raises(InvalidInstanceError, match="trials=0 must be an integer >= 1"):
        train(tmp_path, trials=0, workers=0)
    with pytest.raises(InvalidInstanceError, match="no such file"):
        train(tmp_path, workload="swf:/no/such.swf", workers=0)


def _trace(tmp_path, run_time=10.0, processors=4, n=60):
    """A trace file of n jobs, one a second, all of one run time (NaN: unknown) and width."""
    from fairalloc.workloads import Workload

    wl = Workload(submit=np.arange(n, dtype=float), run_time=np.full(n, run_time), processors=np.full(n, processors))
    return wl.to_parquet(tmp_path / "trace.parquet")


@pytest.mark.parametrize("bad, words", [
    (dict(queued=1), r"queued=1 must be an integer >= 2 \(a queue of one job"),      # a one-job queue
    (dict(queued=0), "queued=0 must be an integer >= 2"),                           # an empty queue
    (dict(started=-1), "started=-1 must be an integer >= 0"),
    (dict(processors=0), "processors=0 must be an integer >= 1"),
    (dict(run_time=np.nan), r"workload has no run times \(run_time is unknown for all 60 jobs\)"),
    (dict(processors_of_jobs=400), r"workload job 0 \(processors=400\) is wider than the cluster \(processors=256\)"),
])
def test_train_refuses_bad_states_before_any_trial(tmp_path, bad, words):
    # the bad input: an empty or one-job queue, a trace without run times, jobs wider than the
    # cluster: an InvalidInstanceError naming the argument and value, raised before the sweep starts
    # (no cell, no store), not failed cells of a sweep
    kw = dict(states=2, per_cell=2, trials=10, workers=0)
    if "run_time" in bad or "processors_of_jobs" in bad:
        kw["workload"] = "parquet:" + str(_trace(tmp_path, run_time=bad.get("run_time", 10.0),
                                                 processors=bad.get("processors_of_jobs", 4)))
    else:
        kw.update(bad)
    with pytest.raises(InvalidInstanceError, match=words):
        train(tmp_path / "t", **kw)
    assert not (tmp_path / "t" / "sweep").exists()


def test_evaluate_refuses_a_trace_without_run_times(tmp_path):
    path = _trace(tmp_path, run_time=np.nan)
    with pytest.raises(InvalidInstanceError, match=r"workloads\['x'\] .*trace.parquet.* has no run times"):
        evaluate(tmp_path / "e", workloads={"x": {"reader": "parquet", "path": str(path), "processors": 8}}, workers=0)


def test_evaluation_table_gain_by_hand():
    # best classic baseline per (workload, easy): without EASY min(40, 20) = 20 -> f1 gain 20/5 = 4;
    # with EASY fcfs alone, 10 -> f1+easy gain 10/8 = 1.25
    s = pd.DataFrame({"workload": ["w"] * 5, "label": ["fcfs", "wfp3", "f1", "fcfs+easy", "f1+easy"],
                      "avebsld": [40.0, 20.0, 5.0, 10.0, 8.0], "seed": [0] * 5})
    t = evaluation_table(s).set_index(["easy", "policy"])
    assert t.loc[(False, "f1"), "gain"] == 4.0 and t.loc[(True, "f1"), "gain"] == 1.25
    assert t.loc[(False, "wfp3"), "best_baseline"] == 20.0


def test_evaluate_a_learned_file_beside_f1(tmp_path):
    # a file with Table 1's F1 must score exactly as policy f1 (the learned policy's own tests say why)
    f1 = tmp_path / "f1.json"
    f1.write_text(json.dumps({"format": "fairalloc.learned-priority", "version": 1, "name": "F1",
                              "formula": "c1 * sqrt(r) * c2 * n + c3 * log10(s)",
                              "coefficients": {"c1": 0.0001352, "c2": 0.2765352, "c3": 0.0071470}}))
    wl = {"lub": {"generator": "lublin", "n_jobs": 300, "nodes": 64, "rng": "${seed}", "processors": 64}}
    t = evaluate(tmp_path / "e", [f1], workloads=wl, policies=("fcfs", "f1"), workers=0)
    got = t.set_index(["easy", "policy"])["avebsld"]
    assert got[(False, "learned-f1")] == got[(False, "f1")] and got[(True, "learned-f1")] == got[(True, "f1")]
    assert set(t["policy"]) == {"fcfs", "f1", "learned-f1"} and (tmp_path / "e" / "evaluation.csv").exists()


def test_evaluate_keeps_two_files_of_one_name_apart(tmp_path):
    # train/best.json and other/best.json: two policies, not one label overwriting the other
    a = LearnedFunction("c1 * r", {"c1": 1.0}).save(tmp_path / "best.json")
    (tmp_path / "other").mkdir()
    b = LearnedFunction("c1 * n", {"c1": 1.0}).save(tmp_path / "other" / "best.json")
    wl = {"lub": {"generator": "lublin", "n_jobs": 200, "nodes": 64, "rng": "${seed}", "processors": 64}}
    t = evaluate(tmp_path / "e", [a, b], workloads=wl, policies=("fcfs",), easy=False, workers=0)
    assert t["policy"].tolist() == ["fcfs", "learned-best", "learned-best-2"]


def test_cli_train_then_evaluate(tmp_path, capsys):
    assert main(["learn", "train", "--states", "2", "--per-cell", "1", "--trials", "100", "--processors", "64",
                 "--started", "2", "--queued", "5", "--workers", "0", "--out", str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    assert "F1 re-fitted" in out and (tmp_path / "t" / "best.json").exists()
    assert main(["learn", "evaluate", str(tmp_path / "t" / "best.json"), "--days", "1", "--no-easy", "--workers", "0",
                 "--swf", f"gone={tmp_path / 'absent.swf'}:64", "--out", str(tmp_path / "e")]) == 0
    out = capsys.readouterr().out
    assert "absent.swf is absent here: skipped" in out and "learned-best" in out
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mine.txt").write_text("keep")
    assert main(["learn", "train", "--out", str(tmp_path / "x"), "--workers", "0"]) != 0
    assert "not empty and not an earlier run" in capsys.readouterr().err


def _gap_log(tmp_path):
    """An SWF log on one processor: jobs (submit, run) at (0 s, 100 s), (1 s, 100 s) in days 0..30, none
    in days 30..60, one at (65 days, 100 s): two non-empty 30-day windows, the second the last."""
    from fairalloc.workloads import Workload, write_swf

    day = 86400.0
    wl = Workload(submit=[0.0, 1.0, 65 * day], run_time=[100.0] * 3, processors=[1] * 3)
    return write_swf(wl, tmp_path / "gap.swf")


def test_windows_leave_out_empty_ones_and_refuse_past_the_last(tmp_path):
    from fairalloc.experiments.learn.pipeline import nonempty_windows, swf_window, window_entry

    log = _gap_log(tmp_path)
    e = window_entry(log, 1)
    assert e["seeds"] == 2 and e["window"] == "${seed}"
    assert [len(swf_window(str(log), 30, w)) for w in (0, 1)] == [2, 1]
    day = 86400.0
    assert [(a / day, b / day) for a, b in nonempty_windows(swf_window(str(log), 30, 0), 1)] == [(0.0, 1.0 / day)]
    with pytest.raises(InvalidInstanceError, match=r"window=2: .*gap.swf has 2 non-empty 30-day windows"):
        swf_window(str(log), 30, 2)


def test_evaluate_a_log_window_by_window_by_hand(tmp_path):
    # Eq. 1 (tau = 10 s) by hand, FCFS on 1 processor. Window 0: the first job starts at once (bsld 1), the
    # second waits 99 s: (99 + 100) / 100 = 1.99; AVEbsld 1.495. Window 1: one job, bsld 1. The mean over
    # the windows (1.495 + 1) / 2 = 1.2475; the whole log as one trace would give (1 + 1.99 + 1) / 3 = 1.33.
    from fairalloc.experiments.learn.pipeline import window_entry

    t = evaluate(tmp_path / "e", workloads={"log": window_entry(_gap_log(tmp_path), 1)}, policies=("fcfs",),
                 easy=False, workers=0)
    assert t["seeds"].tolist() == [2] and t["avebsld"].tolist() == pytest.approx([1.2475], rel=1e-12)
    per = pd.read_csv(tmp_path / "e" / "evaluation_traces.csv").sort_values("seed")
    assert per["avebsld"].tolist() == pytest.approx([1.495, 1.0], rel=1e-12) and per["jobs"].tolist() == [2, 1]


def test_cli_evaluate_swf_windows(tmp_path, capsys):
    log = _gap_log(tmp_path)
    assert main(["learn", "evaluate", "--days", "1", "--no-easy", "--workers", "0", "--swf-windows", "30",
                 "--swf", f"gap={log}:1", "--out", str(tmp_path / "e")]) == 0
    assert "--swf gap: 2 windows of 30 days" in capsys.readouterr().out
    t = pd.read_csv(tmp_path / "e" / "evaluation.csv")
    assert t.loc[(t["workload"] == "gap") & (t["policy"] == "fcfs"), "avebsld"].tolist() == pytest.approx([1.2475])
    assert main(["learn", "evaluate", "--swf-windows", "0", "--out", str(tmp_path / "f")]) != 0
    assert "must be a number > 0" in capsys.readouterr().err
