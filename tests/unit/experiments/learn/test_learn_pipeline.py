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


def test_train_refuses_bad_counts(tmp_path):
    with pytest.raises(InvalidInstanceError, match="states=5 is not a multiple of per_cell=2"):
        train(tmp_path, states=5, per_cell=2, workers=0)
    with pytest.raises(InvalidInstanceError, match="trials=0 must be an integer >= 1"):
        train(tmp_path, trials=0, workers=0)
    with pytest.raises(InvalidInstanceError, match="no such file"):
        train(tmp_path, workload="swf:/no/such.swf", workers=0)


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
