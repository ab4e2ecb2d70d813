"""``fairalloc learn states | fit | show`` (fairalloc.cli.learn): outputs, JSON, one-line errors."""

import json

import numpy as np
import pandas as pd
import pytest

from fairalloc.cli import main
from fairalloc.experiments.learn import LearnedFunction, States, paper_function, score_states, training_states


def test_states_writes_the_folder(tmp_path, capsys):
    out = tmp_path / "st"
    assert main(["learn", "states", "--states", "4", "--started", "2", "--queued", "5", "--processors", "64",
                 "--seed", "3", "--out", str(out)]) == 0
    st = States.read_parquet(out / "states.parquet")
    want = training_states(4, started=2, queued=5, processors=64, rng=3)
    assert (st.run_time == want.run_time).all() and (st.submit == want.submit).all()
    assert len(pd.read_csv(out / "per_state.csv")) == 4 and (out / "states.png").is_file()
    assert "4 training states from lublin" in capsys.readouterr().out


def test_states_from_a_trace_and_lublin_options(tmp_path):
    swf = tmp_path / "t.swf"
    lines = [f"{i + 1} {100 * i} -1 {10 + i} {1 + i % 4} -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1 -1" for i in range(40)]
    swf.write_text("; MaxProcs: 4\n" + "\n".join(lines) + "\n")
    assert main(["learn", "states", "-q", "--workload", f"swf:{swf}", "--processors", "4", "--states", "3",
                 "--started", "2", "--queued", "4", "--out", str(tmp_path / "a")]) == 0
    assert len(States.read_parquet(tmp_path / "a" / "states.parquet")) == 3
    assert main(["learn", "states", "-q", "--workload", "lublin:typed=1,umed=5", "--states", "2",
                 "--out", str(tmp_path / "b")]) == 0
    meta = States.read_parquet(tmp_path / "b" / "states.parquet").meta
    assert meta["workload"]["typed"] is True and meta["workload"]["umed"] == 5.0


@pytest.fixture(scope="module")
def scores_file(tmp_path_factory):
    st = training_states(8, started=3, queued=6, processors=64, rng=5)
    path = tmp_path_factory.mktemp("scores") / "scores.parquet"
    score_states(st, 60, rng=6).to_parquet(path)
    return path


def test_fit_writes_ranking_and_functions(tmp_path, scores_file, capsys):
    out = tmp_path / "fit"
    assert main(["learn", "fit", str(scores_file), "--forms", "paper", "--form", "mine=c1*log(r)*n + c2*log(s)",
                 "--top", "3", "--out", str(out), "--json", str(tmp_path / "fit.json")]) == 0
    text = capsys.readouterr().out
    assert "held-out MAE of the constant predictor" in text and "Table 1" in text
    ranking = pd.read_csv(out / "ranking.csv")
    assert sorted(ranking["name"]) == ["F1", "F2", "mine"]
    best = LearnedFunction.load(out / "best.json")
    assert best.name == ranking["name"].iloc[0] and best.provenance["states"] == 8
    assert best.provenance["n_trials"] == 60 and best.provenance["queued"] == 6   # from the table's attrs (pandas >= 2.1 keeps them in Parquet)
    assert len(list((out / "functions").glob("*.json"))) == 3
    assert (out / "fit.png").is_file() and (out / "ranking.png").is_file()
    paper = pd.read_csv(out / "paper.csv")
    assert set(paper["form"]) == {"F1", "F2"}
    payload = json.loads((tmp_path / "fit.json").read_text())
    assert [r["name"] for r in payload["ranking"]] == ranking["name"].tolist()


def test_fit_reports_a_form_stopped_at_the_evaluation_limit(tmp_path, scores_file, capsys):
    # the bad input "a form that does not converge": a status and the best fit so far, not a crash.
    # 'slow' is nonlinear in c2, so it starts from all ones and 2 evaluations cannot converge; F1 and F2
    # are linear and start from their linear least-squares solution (converged at the first evaluation)
    out = tmp_path / "fit"
    assert main(["learn", "fit", str(scores_file), "--forms", "paper", "--form", "slow=c1 * n ** c2 + c3 * log(s)",
                 "--max-nfev", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1 form(s) stopped at the solver's evaluation limit, not converged" in text and "raise --max-nfev" in text
    ranking = pd.read_csv(out / "ranking.csv").set_index("name")
    assert ranking.loc["slow", "status"] == "iteration_limit" and np.isfinite(ranking.loc["slow", "test_mae"])
    assert set(ranking.loc[["F1", "F2"], "status"]) == {"converged"}
    assert LearnedFunction.load(out / "best.json").provenance["max_nfev"] == 2
    assert main(["learn", "fit", str(scores_file), "--max-nfev", "0", "--out", str(tmp_path / "o")]) == 2


def test_fit_reads_the_authors_layout(tmp_path):
    rng = np.random.default_rng(0)
    rows = np.column_stack([rng.integers(1, 1000, 64), rng.integers(1, 64, 64), rng.integers(1, 9000, 64),
                            np.full(64, 1 / 16)])
    path = tmp_path / "authors.csv"
    np.savetxt(path, rows, delimiter=",", fmt="%g")
    assert main(["learn", "fit", str(path), "-q", "--queue", "16", "--forms", "paper", "--out", str(tmp_path / "o")]) == 0
    assert main(["learn", "fit", str(path), "-q", "--queue", "15", "--out", str(tmp_path / "p")]) == 2


def test_show(tmp_path, capsys):
    assert main(["learn", "show", "F1", "--at", "100,2,1", "--save", str(tmp_path / "f1.json")]) == 0
    out = capsys.readouterr().out
    assert "c1 * sqrt(r) * c2 * n + c3 * log10(s)" in out and "f(r=100, n=2, s=1) = 0.000747751" in out
    assert LearnedFunction.load(tmp_path / "f1.json").coefficients == paper_function("F1").coefficients
    assert main(["learn", "show", str(tmp_path / "f1.json"), "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "F1"


@pytest.mark.parametrize("argv, words", [
    (["learn", "states", "--queued", "1"], "queued=1"),
    (["learn", "states", "--workload", "lublin:nodes=3"], "'nodes=3' is not one of"),
    (["learn", "states", "--workload", "google_like:users=3"], "expected lublin"),
    (["learn", "fit", "no-such.parquet"], "not found"),
    (["learn", "fit", "x.csv", "--form", "bad=open(r)"], "only the functions"),
    (["learn", "show", "no-such.json"], "not found"),
    (["learn", "show", "F2", "--at", "1,2"], "three numbers"),
    (["learn", "train", "--trials", "0"], "--trials: '0' must be an integer >= 1"),                  # P = 0
    (["learn", "train", "--queued", "1", "--workers", "0", "--states", "1", "--per-cell", "1", "--trials", "5"],
     "queued=1 must be an integer >= 2"),                                                    # a one-job queue
    (["learn", "evaluate", "--swf", "X=norun.swf:8", "--workers", "0"], "has no run times"),
    # a trace without run times and one with a job wider than the cluster, for states and train: refused
    # before any state is drawn or any sweep starts
    (["learn", "states", "--workload", "swf:norun.swf", "--states", "1", "--started", "2", "--queued", "3"],
     "workload has no run times (run_time is unknown for all 5 jobs)"),
    (["learn", "train", "--workload", "swf:norun.swf", "--states", "1", "--per-cell", "1", "--started", "2",
      "--queued", "3", "--trials", "5", "--workers", "0"], "workload has no run times"),
    (["learn", "states", "--workload", "swf:wide.swf", "--states", "1", "--started", "2", "--queued", "3"],
     "(processors=300) is wider than the cluster (processors=256)"),
    (["learn", "train", "--workload", "swf:wide.swf", "--states", "1", "--per-cell", "1", "--started", "2",
      "--queued", "3", "--trials", "5", "--workers", "0"],
     "(processors=300) is wider than the cluster (processors=256)"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, words):
    argv = [a.replace("x.csv", str(tmp_path / "x.csv")).replace("norun.swf", str(tmp_path / "norun.swf"))
            .replace("wide.swf", str(tmp_path / "wide.swf")) for a in argv]
    (tmp_path / "x.csv").write_text("state,r,n,s,score\n0,1,1,1,0.5\n")
    # an SWF log whose run times (field 4) are all unknown (-1)
    (tmp_path / "norun.swf").write_text("".join(f"{i} {i} 0 -1 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n" for i in range(1, 6)))
    # eight 10 s jobs of 4 processors, the fourth of 300 (the default cluster: 256)
    width = {i: 300 if i == 4 else 4 for i in range(1, 9)}
    (tmp_path / "wide.swf").write_text("".join(f"{i} {i} 0 10 {w} -1 -1 {w} 100 -1 1 1 1 -1 1 -1 -1 -1\n"
                                               for i, w in width.items()))
    assert main(argv + (["--out", str(tmp_path / "o")] if argv[1] != "show" else [])) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_learn_without_subcommand_prints_help(capsys):
    assert main(["learn"]) == 2
    assert "states" in capsys.readouterr().out
