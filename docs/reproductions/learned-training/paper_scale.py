"""The paper-scale training (200 states x 250,000 trials, 5 seeds): store it, tabulate it, and analyse
the gap between the re-fitted F1 coefficient of sqrt(r) n and Table 1's (the report's "F1 c1 gap").

Two steps:

``collect DIR ...``
    Copies what the report needs from each ``fairalloc learn train`` folder into
    ``paper-scale/seed<S>/`` beside this file: ``best.json``, ``F1.json``, ``F2.json``, ``train.json``,
    ``ranking.csv`` (all 72 forms) and ``scores.csv.gz`` (the scored jobs: state, r, n, s, score;
    6,400 rows, about 130 KB; the repository ignores Parquet files), so the analysis below runs from
    the repository alone.

``evaluation DIR``
    Stores a ``fairalloc learn evaluate`` folder of the paper-scale functions (the files named
    ``seed<S>-best.json``, ``seed<S>-F1.json``, ``seed<S>-F2.json``, so their labels are
    ``learned-seed<S>-...``) as ``paper-scale/evaluation.csv`` (mean AVEbsld per workload, policy and
    backfilling) and ``paper-scale/evaluation_traces.csv.gz`` (each trace's or 30-day window's row),
    and prints, per workload and backfilling, the baselines, Table 1's F1/F2 and each learned form's
    range over the seeds, with the gain over the best classic baseline (FCFS, SJF, WFP3, UNICEF) and
    over the paper's (FCFS, WFP3, UNICEF), and the largest gain of one trace or window (the paper's
    "up to 7.25x" is a largest gain).

``analyse`` (default)
    Reads ``paper-scale/seed*/`` and prints

    1. per seed: the re-fitted F1 and F2 coefficients beside Table 1, the best-ranked form, the held-out
       mean absolute error (MAE) of the best form, of F1, F2 and of the constant predictor; the spread
       over the seeds (writes ``paper-scale/seeds.csv``);
    2. the F1 c1 gap (writes ``paper-scale/c1_gap.csv``), on each seed's training states with the
       pipeline's own held-out split (``fit_forms(..., rng=seed)``):

       - c1's standard error from the least-squares Jacobian (F1 is linear in c1, c2, so the Jacobian is
         the design matrix X = [sqrt(r) n, log10 s]: cov = s^2 (X'X)^-1, s^2 = RSS / (m - 2)), and the
         state-clustered (sandwich) standard error, since a state's 32 scores sum to 1 and are not
         independent; c1's 95 % interval; Table 1's c1 in standard errors;
       - how much the sqrt(r) n term adds: the training RSS and held-out MAE of c2 log10 s alone
         against F1, and the spread (standard deviation over the jobs) of each term;
       - the held-out MAE with c1 forced to Table 1's 3.739e-05 (c2 re-fitted given it, and c2 = Table
         1's too);
       - the fit with the authors' weights (their SC'17 ``curve_fit(..., sigma=1/(r n))``: residuals
         weighted by r n), its c1 and held-out MAE;
       - c1 if r were in minutes or hours (c1 x sqrt(60), x 60; what F2's c1 of r would be then);
       - other readings of the printed product "c1 sqrt(r) . c2 n": c1 of g(r) h(n) + c2 log10 s for g in
         (r, sqrt r, log10 r), h in (n, sqrt n, log10 n), unweighted, weighted r n (the authors' code)
         and weighted 1 / (r n) (the inverse), beside Table 1's c1 and c3 (writes
         ``paper-scale/c1_readings.csv``);
    3. the same F1 numbers on the authors' published SC'17 scores (``--authors``
       ``score-distribution.csv`` of ``hpcsched/gen-sched-policies``, 216 states of 32 jobs; skipped
       when not given), fitted on all their states.

Usage::

    python docs/reproductions/learned-training/paper_scale.py collect /tmp/train-seed{0,1,2,3,4}
    python docs/reproductions/learned-training/paper_scale.py analyse [--authors score-distribution.csv]
    python docs/reproductions/learned-training/paper_scale.py evaluation /tmp/eval
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fairalloc.experiments.learn import LearnedFunction, read_scores, split_states, table1_coefficients
from fairalloc.sim.policies.learned import prepare_inputs

HERE = Path(__file__).resolve().parent
STORE = HERE / "paper-scale"
T1_F1 = table1_coefficients("F1")            # c1 = 0.0001352 x 0.2765352, c2 = 0.007147
T1_F2 = table1_coefficients("F2")


def collect(folders: list[str]) -> None:
    for folder in map(Path, folders):
        seed = json.loads((folder / "train.json").read_text())["seed"]
        dest = STORE / f"seed{seed}"
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("best.json", "F1.json", "F2.json", "train.json", "ranking.csv"):
            shutil.copyfile(folder / name, dest / name)
        scores = pd.read_parquet(folder / "scores.parquet")[["state", "r", "n", "s", "score"]]
        scores.to_csv(dest / "scores.csv.gz", index=False, float_format="%.17g")
        print(f"{folder} -> {dest.relative_to(HERE)} ({len(scores)} scored jobs)")


def _columns(t: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """F1's design matrix [sqrt(r) n, log10 s] (inputs as when the function schedules) and the scores."""
    r, n, s = prepare_inputs(t["r"], t["n"], t["s"])
    return np.column_stack([np.sqrt(r) * n, np.log10(s)]), t["score"].to_numpy(float)


def _ols(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    if w is None:
        return np.linalg.lstsq(x, y, rcond=None)[0]
    return np.linalg.lstsq(x * w[:, None], y * w, rcond=None)[0]


def _mae(x: np.ndarray, y: np.ndarray, c: np.ndarray) -> float:
    return float(np.mean(np.abs(x @ c - y)))


def f1_gap(train: pd.DataFrame, test: pd.DataFrame | None) -> dict[str, float]:
    """The F1 c1 analysis on one training set (module docstring, item 2); held-out figures when
    ``test`` is given."""
    x, y = _columns(train)
    m = len(y)
    c = _ols(x, y)
    e = y - x @ c
    xtx_inv = np.linalg.inv(x.T @ x)
    se = np.sqrt(np.diag(xtx_inv) * (e @ e) / (m - 2))
    meat = np.zeros((2, 2))                                   # clustered by state
    for _, idx in train.groupby("state").indices.items():
        g = x[idx].T @ e[idx]
        meat += np.outer(g, g)
    se_cl = np.sqrt(np.diag(xtx_inv @ meat @ xtx_inv))
    c_s = _ols(x[:, 1:], y)                                   # c2 log10 s alone
    e_s = y - x[:, 1:] @ c_s
    c2_given = float(x[:, 1] @ (y - T1_F1["c1"] * x[:, 0]) / (x[:, 1] @ x[:, 1]))   # c2 with c1 = Table 1's
    rn = np.maximum(train["r"].to_numpy(float), 1.0) * train["n"].to_numpy(float)
    c_w = _ols(x, y, rn)                                      # the authors' weights
    out = {"jobs": m, "c1": c[0], "c2": c[1], "c1_se": se[0], "c1_se_state": se_cl[0], "c2_se": se[1],
           "c2_se_state": se_cl[1],
           "c1_lo95": c[0] - 1.96 * se_cl[0], "c1_hi95": c[0] + 1.96 * se_cl[0],
           "table1_c1_in_se": (T1_F1["c1"] - c[0]) / se_cl[0],
           "rss": float(e @ e), "rss_log_s_alone": float(e_s @ e_s),
           "rss_drop_pct": 100 * (1 - float(e @ e) / float(e_s @ e_s)),
           "term_std_rn": float(np.std(c[0] * x[:, 0])), "term_std_log_s": float(np.std(c[1] * x[:, 1])),
           "term_std_rn_table1": float(np.std(T1_F1["c1"] * x[:, 0])),
           "score_std": float(np.std(y)),
           "c2_given_table1_c1": c2_given,
           "c1_weighted_rn": c_w[0], "c2_weighted_rn": c_w[1],
           "c1_if_r_in_minutes": c[0] * np.sqrt(60.0), "c1_if_r_in_hours": c[0] * 60.0}
    fits = {"mae": c, "mae_log_s_alone": np.array([0.0, c_s[0]]),
            "mae_c1_table1_c2_refit": np.array([T1_F1["c1"], c2_given]),
            "mae_table1": np.array([T1_F1["c1"], T1_F1["c2"]]), "mae_weighted_rn": c_w}
    for label, coef in fits.items():
        out[f"train_{label}"] = _mae(x, y, coef)
        if test is not None:
            xt, yt = _columns(test)
            out[f"test_{label}"] = _mae(xt, yt, coef)
    if test is not None:
        out["test_constant"] = float(np.mean(np.abs(test["score"].to_numpy(float) - y.mean())))
    return out


READ_R = {"r": lambda r: r, "sqrt(r)": np.sqrt, "log10(r)": np.log10}
READ_N = {"n": lambda n: n, "sqrt(n)": np.sqrt, "log10(n)": np.log10}


def readings(t: pd.DataFrame) -> pd.DataFrame:
    """c1, c2 of ``c1 g(r) h(n) + c2 log10 s`` for every g, h and three residual weightings."""
    r, n, s = prepare_inputs(t["r"], t["n"], t["s"])
    y = t["score"].to_numpy(float)
    rows = []
    for gk, g in READ_R.items():
        for hk, h in READ_N.items():
            x = np.column_stack([g(r) * h(n), np.log10(s)])
            for wk, w in (("1", None), ("r n", r * n), ("1/(r n)", 1.0 / (r * n))):
                c = _ols(x, y, w)
                rows.append({"product": f"{gk} * {hk}", "weights": wk, "c1": c[0], "c2": c[1],
                             "c1 / Table 1": c[0] / T1_F1["c1"], "c2 / Table 1": c[1] / T1_F1["c2"]})
    return pd.DataFrame(rows)


def _function(folder: Path, name: str) -> LearnedFunction:
    return LearnedFunction.load(folder / name)


def _fmt(df: pd.DataFrame) -> pd.DataFrame:
    return df.map(lambda v: f"{v:.4g}" if isinstance(v, float) else v)


def analyse(authors: str | None) -> None:
    folders = sorted((p for p in STORE.glob("seed*") if p.is_dir()), key=lambda p: int(p.name[4:]))
    if not folders:
        sys.exit(f"no {STORE}/seed*/: run 'collect' first")
    rows, gaps, reads = [], [], []
    for folder in folders:
        seed = json.loads((folder / "train.json").read_text())["seed"]
        scores = pd.read_csv(folder / "scores.csv.gz")
        ranking = pd.read_csv(folder / "ranking.csv")
        f1, f2, best = (_function(folder, f) for f in ("F1.json", "F2.json", "best.json"))
        train_ids, test_ids = split_states(scores["state"].to_numpy(), rng=seed)   # fit_forms' split
        tr, te = scores[scores.state.isin(train_ids)], scores[scores.state.isin(test_ids)]
        gap = f1_gap(tr, te)
        # the stored F1 was fitted by least_squares on the same split: the same coefficients
        assert np.allclose([gap["c1"], gap["c2"]], [f1.coefficients["c1"], f1.coefficients["c2"]], rtol=1e-6), seed
        mae = dict(zip(ranking["name"], ranking["test_mae"]))
        rank = dict(zip(ranking["name"], ranking["rank"]))
        rows.append({"seed": seed, "F1_c1": f1.coefficients["c1"], "F1_c2": f1.coefficients["c2"],
                     "F2_c1": f2.coefficients["c1"], "F2_c2": f2.coefficients["c2"], "F2_c3": f2.coefficients["c3"],
                     "best": best.provenance["fit"]["form"], "best_test_mae": best.provenance["fit"]["test_mae"],
                     "F1_test_mae": mae["F1"], "F1_rank": rank["F1"], "F2_test_mae": mae["F2"], "F2_rank": rank["F2"],
                     "constant_test_mae": gap["test_constant"], "best_coefficients": json.dumps(best.coefficients)})
        gaps.append({"set": f"seed {seed} (training states)", **gap})
        reads.append(readings(tr).assign(set=f"seed {seed}"))
    table = pd.DataFrame(rows)
    table.to_csv(STORE / "seeds.csv", index=False)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    print("1. Per seed (Table 1: F1 c1 = %.4g, c2 = %.6g; F2 %.4g, %.6g, %.6g)\n" % (
        T1_F1["c1"], T1_F1["c2"], T1_F2["c1"], T1_F2["c2"], T1_F2["c3"]))
    print(table.drop(columns="best_coefficients").to_string(index=False))
    num = table[["F1_c1", "F1_c2", "F2_c1", "F2_c2", "F2_c3", "best_test_mae", "F1_test_mae", "F2_test_mae",
                 "constant_test_mae"]]
    print("\nspread over the seeds\n")
    print(num.agg(["median", "mean", "std", "min", "max"]).T.to_string(float_format=lambda v: f"{v:.4g}"))
    if authors:
        t = read_scores(authors, queued=32)
        gaps.append({"set": "authors' SC'17 scores (all states)", **f1_gap(t, None)})
        reads.append(readings(t).assign(set="authors"))
    g = pd.DataFrame(gaps)
    g.to_csv(STORE / "c1_gap.csv", index=False)
    print("\n2-3. F1 c1 gap (c1 of sqrt(r) n; Table 1's c1 c2 = %.4g)\n" % T1_F1["c1"])
    cols = ["set", "c1", "c1_se", "c1_se_state", "c1_lo95", "c1_hi95", "table1_c1_in_se", "c2", "c2_se_state",
            "rss_drop_pct", "term_std_rn", "term_std_log_s", "term_std_rn_table1", "score_std",
            "c1_weighted_rn", "c2_weighted_rn", "c2_given_table1_c1", "c1_if_r_in_minutes", "c1_if_r_in_hours"]
    print(_fmt(g[cols]).T.to_string(header=False))
    mae_cols = [c for c in g.columns if c.startswith(("train_", "test_"))]
    print("\nmean absolute error of F1 with: the least-squares c1, c2 (mae); c2 log10 s alone; c1 = Table 1's and "
          "c2 re-fitted; both Table 1's; the authors' weights r n\n")
    print(_fmt(g[["set", *mae_cols]]).T.to_string(header=False))
    rd = pd.concat(reads, ignore_index=True)
    rd.to_csv(STORE / "c1_readings.csv", index=False)
    ours = rd[rd.set.str.startswith("seed")].groupby(["product", "weights"], sort=False)[["c1", "c2"]].median()
    both = ours.add_prefix("ours (median) ")
    if authors:
        both = both.join(rd[rd.set == "authors"].set_index(["product", "weights"])[["c1", "c2"]].add_prefix("authors "))
    both["Table 1 c1, c3"] = f"{T1_F1['c1']:.4g}, {T1_F1['c2']:.6g}"
    print("\nother readings of F1's product: c1 g(r) h(n) + c2 log10 s\n")
    print(both.to_string(float_format=lambda v: f"{v:.4g}"))


PAPER_BASELINES = ("fcfs", "wfp3", "unicef")
TRACE_COLUMNS = ["workload", "label", "seed", "jobs", "finished", "rejected", "avebsld", "mean_wait", "makespan",
                 "utilization"]


def evaluation(folder: str | None) -> None:
    """Store (when ``folder`` is given) and summarise the evaluation (module docstring)."""
    if folder is not None:
        shutil.copyfile(Path(folder) / "evaluation.csv", STORE / "evaluation.csv")
        tr = pd.read_csv(Path(folder) / "evaluation_traces.csv")[TRACE_COLUMNS]
        tr.to_csv(STORE / "evaluation_traces.csv.gz", index=False, float_format="%.10g")
    t = pd.read_csv(STORE / "evaluation.csv")
    tr = pd.read_csv(STORE / "evaluation_traces.csv.gz")
    tr["easy"] = tr["label"].str.endswith("+easy")
    tr["policy"] = tr["label"].str.replace("+easy", "", regex=False)
    per = tr.pivot_table(index=["workload", "easy", "seed"], columns="policy", values="avebsld")
    paper_best = per[list(PAPER_BASELINES)].min(axis=1)
    t = t.join(t[t.policy.isin(PAPER_BASELINES)].groupby(["workload", "easy"])["avebsld"].min()
               .rename("paper_best"), on=["workload", "easy"])
    t["gain_paper"] = t["paper_best"] / t["avebsld"]
    t["kind"] = t["policy"].str.replace(r"^learned-seed\d+-", "learned-", regex=True)
    rows = []
    for (w, e, k), g in t.groupby(["workload", "easy", "kind"], sort=False):
        pols = g["policy"].tolist()
        gain_trace = (paper_best.loc[(w, e)].to_numpy()[:, None] / per.loc[(w, e)][pols].to_numpy())
        rows.append({"workload": w, "easy": e, "policy": k, "n": len(g), "avebsld_min": g.avebsld.min(),
                     "avebsld_max": g.avebsld.max(), "gain_min": g.gain.min(), "gain_max": g.gain.max(),
                     "gain_paper_min": g.gain_paper.min(), "gain_paper_max": g.gain_paper.max(),
                     "largest_trace_gain_paper": float(np.nanmax(gain_trace)), "traces": int(g.seeds.iloc[0])})
    out = pd.DataFrame(rows)
    pd.set_option("display.width", 220)
    pd.set_option("display.max_columns", 30)
    print("Mean AVEbsld over the traces (Lublin: 5 seeds; logs: their 30-day windows); learned-*: the range over "
          "the seeds' functions; gain: over the best of FCFS, SJF, WFP3, UNICEF; gain_paper: over the best of FCFS, "
          "WFP3, UNICEF; largest_trace_gain_paper: the largest on one trace or window\n")
    print(out.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("collect")
    c.add_argument("folders", nargs="+")
    a = sub.add_parser("analyse")
    a.add_argument("--authors", help="the authors' score-distribution.csv (SC'17)")
    e = sub.add_parser("evaluation")
    e.add_argument("folder", nargs="?", help="a fairalloc learn evaluate folder (default: summarise the stored one)")
    args = ap.parse_args(argv)
    if args.cmd == "collect":
        collect(args.folders)
    elif args.cmd == "evaluation":
        evaluation(args.folder)
    else:
        analyse(getattr(args, "authors", None))


if __name__ == "__main__":
    main()
