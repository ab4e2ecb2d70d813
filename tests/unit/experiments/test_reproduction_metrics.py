"""The papers' metrics of fairalloc.experiments.reproductions on small tables computed by hand."""

import numpy as np
import pandas as pd
import pytest

from fairalloc.experiments.reproductions import buc, learned, sdrf, tvtsf
from fairalloc.experiments.reproductions.report import Claim, render_report


def test_sdrf_wait_reduction_is_mean_of_per_user_relative_reductions():
    # pool 0.5: DRF waits 10, 20, 0 (user 2 never waited: left out); SDRF(0.99) 5, 30, 7
    # -> mean((10-5)/10, (20-30)/20) = mean(0.5, -0.5) = 0 %; global (mean 15 -> 17.5): -16.67 %
    u = pd.DataFrame({"pool_fraction": 0.5, "delta": [np.nan] * 3 + [0.99] * 3, "user": [0, 1, 2] * 2,
                      "mean_wait": [10.0, 20.0, 0.0, 5.0, 30.0, 7.0]})
    r = sdrf.wait_reduction(u)
    assert r["reduction"].tolist() == [0.0]
    assert r["users"].tolist() == [2.0]
    assert r["global_reduction"].iloc[0] == pytest.approx(100 * (15 - 17.5) / 15)


def test_sdrf_completed_ratio_and_events():
    u = pd.DataFrame({"pool_fraction": 0.5, "delta": [np.nan, np.nan, 0.999999, 0.999999], "user": [0, 1, 0, 1],
                      "completed_ratio": [0.8, 0.5, 0.4, 0.5], "submitted": [10, 4, 10, 4]})
    c = sdrf.completed_ratio(u, pool_fraction=0.5, delta=0.999999).set_index("user")
    assert c["ratio"].tolist() == [0.5, 1.0]
    runs = pd.DataFrame({"pool_fraction": [0.5, 0.5], "delta": [np.nan, 0.9], "swaps": [0, 30],
                         "decisions": [100, 100], "events_per_1000": [0.0, 300.0]})
    ev = sdrf.live_tree_events(runs)
    assert ev["events_per_1000"].tolist() == [300.0]          # 30 swaps / 100 tasks x 1000


def test_sdrf_cell_counts_events_per_1000_tasks():
    wl = sdrf.workload(n_users=20, n_tasks=500, horizon=3600.0, rng=1)
    out = sdrf.cell(wl, pool_fraction=0.5, delta=0.9)
    r = out["runs"].iloc[0]
    assert r["events_per_1000"] == pytest.approx(1000 * r["swaps"] / r["decisions"])
    assert out["users"]["mechanism"].unique().tolist() == ["sdrf"]


def test_buc_position_gains_by_bucket():
    # gains (L - 1 - pos) / (L - 1): L = 6, pos 0 -> 100 %, pos 5 -> 0 %, pos 1 -> 80 %
    p = pd.DataFrame({"load": "x", "length": [6, 6, 6], "position": [0, 5, 1], "score": [90.0, 10.0, 80.0]})
    p["gain"] = 100.0 * (p["length"] - 1 - p["position"]) / (p["length"] - 1)
    g = buc.position_gains(p).set_index("bucket")
    assert g.loc["75-100", "median_gain"] == pytest.approx(90.0)      # median(100, 80)
    assert g.loc["0-24", "median_gain"] == 0.0
    assert g.loc["25-49", "insertions"] == 0


def test_learned_gains_pick_best_baseline():
    runs = pd.DataFrame({"kind": "typed", "seed": 0, "policy": ["fcfs", "wfp3", "unicef", "f1", "f2"],
                         "avebsld": [100.0, 40.0, 50.0, 10.0, 20.0], "offered_load": 0.5, "jobs_per_day": 90.0})
    g = learned.gains(runs).iloc[0]
    assert g["best_baseline"] == "wfp3" and g["gain_f1"] == 4.0 and bool(g["f1_beats_f2"])


def test_tvtsf_summary_mean_and_variance_over_users():
    u = pd.DataFrame({"scenario": "large80", "policy": "tvtsf", "user_wait": [1.0, 3.0],
                      "mean_queuing": [2.0, 2.0], "mean_completion": [4.0, 8.0]})
    s = tvtsf.summary(u).iloc[0]
    assert (s["user_wait_mean"], s["user_wait_var"], s["mean_completion_var"]) == (2.0, 1.0, 4.0)


def test_claim_needs_a_reason_when_not_reproduced():
    with pytest.raises(ValueError, match="needs a reason"):
        Claim("c", "1", "2", False)
    assert "| c | 1 | 2 | yes |  |" in render_report("t", [], [Claim("c", "1", "2", np.True_)])


def test_buc_wait_changes_per_update_rule_and_rule_table():
    # one load, seed, K_p = 10800; users 7 (injected P=0) and 8 (P=1). FCFS waits 100, 200;
    # BUC threshold rule 150, 20 -> +50 %, -90 %; moving average 300, 40 -> +200 %, -80 %.
    key = {"load": "native", "seed": 0, "k_p": 10800.0}
    fcfs = pd.DataFrame({**key, "policy": "fcfs", "user": [7, 8], "mean_wait": [100.0, 200.0],
                         "injected": ["P=0", "P=1"], "precision": [0.0, 1.0]})
    thr = pd.DataFrame({**key, "policy": "buc", "update": "threshold", "user": [7, 8], "mean_wait": [150.0, 20.0]})
    ema = pd.DataFrame({**key, "policy": "buc", "update": "ema", "user": [7, 8], "mean_wait": [300.0, 40.0]})
    ch = buc.wait_changes(pd.concat([fcfs, thr, ema], ignore_index=True))
    got = ch.set_index(["update", "injected"])["change"]
    assert got[("threshold", "P=0")] == pytest.approx(50.0) and got[("threshold", "P=1")] == pytest.approx(-90.0)
    assert got[("ema", "P=0")] == pytest.approx(200.0) and got[("ema", "P=1")] == pytest.approx(-80.0)
    runs = pd.DataFrame({**key, "policy": "buc", "update": ["threshold", "ema"], "score P=0": [0.0, 0.5],
                         "score P=0.5": [99.8, 50.0], "score P=1": [100.0, 99.0]})
    t = buc.rule_table(ch, runs).set_index("update")
    assert t.loc["ema", "wait P=0 (%)"] == pytest.approx(200.0) and t.loc["ema", "S_u P=0.5"] == 50.0
    assert t.loc["threshold", "S_u P=0.5"] == pytest.approx(99.8)


def test_learned_trace_table_lists_every_trace_with_its_load():
    runs = pd.DataFrame({"kind": "typed", "seed": [0] * 5 + [1] * 5,
                         "policy": ["fcfs", "wfp3", "unicef", "f1", "f2"] * 2,
                         "avebsld": [100.0, 40.0, 50.0, 10.0, 20.0, 90.0, 30.0, 60.0, 40.0, 35.0],
                         "offered_load": [0.47] * 5 + [0.58] * 5, "jobs_per_day": [191.7] * 5 + [185.7] * 5})
    text = learned.trace_table(learned.gains(runs))
    # seed 0: best wfp3 40 / F1 10 = 4x; seed 1: best wfp3 30 / F1 40 = 0.75x
    assert "| typed | seed 0 | 191.7 | 0.470 | wfp3 | 40.0 | 10.0 | 20.0 | 4.00x |" in text
    assert "| typed | seed 1 | 185.7 | 0.580 | wfp3 | 30.0 | 40.0 | 35.0 | 0.75x |" in text


def test_tvtsf_saturation_by_hand():
    # One server <2,2>. Job A (user 0): slot 0, 4 tasks <1,1> of 2 slots; job B (user 1): slot 1,
    # 1 task <1,1> of 1 slot. TV-TSF: slot 0 A starts 2 (full); slot 1 full, B waits; slot 2 A's
    # two end, B (share 0) first, then one of A; slot 3 B's ended, A's last starts.
    # Waiting tasks in slots 0..3 (last start 3): 2, 3, 1, 0 -> 3 of 4 slots busy, 6 / 3 = 2 tasks.
    # User 0 arrives to an empty cluster; user 1 arrives while 2 tasks of A wait, and waits 1 slot.
    # Offered load over a 2-slot window: (4 x 2 + 1 x 1) x 1 / (2 x 2) = 2.25 on both resources.
    import fairalloc as fa
    from fairalloc.workloads import Workload

    wl = Workload(submit=[0, 1], run_time=[2, 1], tasks=[4, 1], user=[0, 1], resources=[[1, 1], [1, 1]],
                  resource_names=("cpu", "memory"))
    cl = fa.Cluster([[2, 2]])
    r = fa.simulate(wl, cl, policy="tvtsf")
    out = tvtsf.saturation(wl, cl, r, 2)
    assert out["offered_cpu"] == pytest.approx(2.25) and out["offered_memory"] == pytest.approx(2.25)
    assert out["slots_with_queue"] == pytest.approx(0.75)
    assert out["queue_when_busy"] == pytest.approx(2.0)
    assert out["users_into_queue"] == pytest.approx(0.5)
    assert out["user_wait_into_queue"] == pytest.approx(1.0)


def test_report_analysis_follows_the_claims_table():
    text = render_report("T", ["s"], [Claim("c", "1", "2", False, "short")], analysis=[("Why", "long text")])
    lines = text.splitlines()
    k = lines.index("## Analysis")
    assert lines[k - 1] == "" and lines[k - 2].startswith("| c |")
    assert lines[k + 1:k + 5] == ["", "### Why", "", "long text"]


def test_learned_windows_of_the_model_program_output():
    # submissions at days 0, 10, 31, 59.9: a span of 59.9 days gives two windows, [0, 30) and [30, 59.9]
    import fairalloc as fa

    day = 86400.0
    wl = fa.workloads.Workload(submit=np.array([0.0, 10.0, 31.0, 59.9]) * day, run_time=[1.0] * 4,
                               processors=[1] * 4)
    w = learned.windows(wl)
    assert [(a / day, round(b / day, 1)) for a, b in w] == [(0.0, 30.0), (30.0, 59.9)]
    assert len(learned.windows(wl, days=60)) == 1


def _learned_runs(gains_f1, f2_better=()):
    """Runs of one kind whose traces give F1 the gains ``gains_f1`` over the best baseline (WFP3 = 100)."""
    rows = []
    for seed, gain in enumerate(gains_f1):
        f1 = 100.0 / gain
        f2 = f1 / 2 if seed in f2_better else f1 * 2
        for pol, v in zip(["fcfs", "wfp3", "unicef", "f1", "f2"], [300.0, 100.0, 200.0, f1, f2]):
            rows.append({"kind": "typeless", "seed": seed, "policy": pol, "avebsld": v, "offered_load": 0.9,
                         "jobs_per_day": 100.0, "span_days": 30.0, "jobs": 3000})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("gains_f1, f2_better, verdicts", [
    # claims: F1 better than the best baseline, F2 too, F1 up to 7.25x, F1 better than F2.
    # F1 better everywhere, largest gain 3.7x (half of 7.25 would have passed the old criterion): the
    # size is not reproduced; F2 = F1 x 2 is not below the baseline (100) on traces 0 (100) and 2 (133);
    # on trace 1 F2 = F1 / 2 is better than F1: "clearly better" is not reproduced either
    ((2.0, 3.7, 1.5), (1,), ["yes", "no", "no", "no"]),
    # largest gain 7.25x exactly (the paper's), F2 = F1 x 2 still below 100 everywhere
    ((7.25, 2.5), (), ["yes", "yes", "yes", "yes"]),
    # one trace where the best baseline wins against F1 (gain 0.8x) and F2
    ((0.8, 8.0), (), ["no", "no", "yes", "yes"]),
])
def test_learned_claims_test_what_they_say(tmp_path, gains_f1, f2_better, verdicts):
    from fairalloc.experiments.reproductions import load_spec
    from fairalloc.experiments.reproductions.report import read_claims

    learned.report({"runs": _learned_runs(gains_f1, f2_better)}, tmp_path, scale="small",
                   spec=load_spec("learned-priorities"))
    assert read_claims(tmp_path)["reproduced"].tolist() == verdicts
    text = (tmp_path / "report.md").read_text()
    assert "### What each test checks" in text and "](../../learned-training/report.md)" in text   # the method's stored run


def test_tvtsf_load_axis_margins_by_hand():
    from fairalloc.experiments.reproductions import tvtsf_report

    # one scenario (large80), durations x1 and x2, one sample, one user per policy; queuing times:
    # x1: tvtsf 2, tsf-static 6, cdrf-static 5, tsf-slotted 1, cdrf-slotted 3 -> margin 5 - 2 = 3,
    #     controlled margin 1 - 2 = -1; x2: tvtsf 10, baselines 30 / 40, slotted 12 / 11 -> margin 20
    q = {1: [2.0, 6.0, 5.0, 1.0, 3.0], 2: [10.0, 30.0, 40.0, 12.0, 11.0]}
    users = pd.DataFrame([{"n_jobs": 100, "slots": 150, "scenario": "large80", "duration_scale": d, "n_users": 0,
                           "seed": 0, "policy": p, "user": 0, "user_wait": 0.0, "mean_queuing": v,
                           "mean_completion": v + 5.0 * d}
                          for d, vs in q.items() for p, v in zip(tvtsf.MAIN, vs)])
    runs = users[["n_jobs", "slots", "scenario", "duration_scale", "n_users", "seed", "policy"]].assign(
        offered_memory=lambda t: 1.26 * t["duration_scale"])
    t = tvtsf_report.load_axis(users, runs).set_index(["metric", "duration_scale"])
    assert t.loc[("mean_queuing", 1), ["margin", "controlled_margin"]].tolist() == [3.0, -1.0]
    assert t.loc[("mean_queuing", 2), "margin"] == 20.0
    assert t.loc[("mean_queuing", 2), "offered_memory"] == pytest.approx(2.52)
    # the least baseline the paper implies: 708 for queuing; completion 585 + 5 x 2 slots of mean duration
    assert t.loc[("mean_queuing", 2), "implied_minimum"] == 708.0
    assert t.loc[("mean_completion", 2), "implied_minimum"] == 595.0


def test_tvtsf_readings_table_by_hand():
    from fairalloc.experiments.reproductions import tvtsf_report

    # normal, one sample: queuing tvtsf 1, tsf-static 2, cdrf-static 3, tsf-floor-server 9, cdrf-blind 7.
    # With the floor in place of tsf-static, the better baseline is cdrf-static (3): margin 3 - 1 = 2;
    # with the blind CDRF in place of cdrf-static, tsf-static (2): margin 1.
    vals = {"tvtsf": 1.0, "tsf-static": 2.0, "cdrf-static": 3.0, "tsf-slotted": 1.0, "cdrf-slotted": 1.0,
            "tsf-floor-server": 9.0, "cdrf-blind": 7.0}
    users = pd.DataFrame([{"n_jobs": 100, "slots": 150, "scenario": "normal", "duration_scale": 1, "n_users": 0,
                           "seed": 0, "policy": p, "user": 0, "user_wait": 0.0, "mean_queuing": v,
                           "mean_completion": v} for p, v in vals.items()])
    runs = users[["n_jobs", "slots", "scenario", "duration_scale", "n_users", "seed", "policy"]].copy()
    runs["deadlocked"] = runs["policy"] == "cdrf-blind"
    runs["unfinished_jobs"] = np.where(runs["deadlocked"], 3, 0)
    runs["started"], runs["lp_tasks"], runs["granted"], runs["unrealised"] = 90, 100.0, 40, 10
    t = tvtsf_report.readings_table(users, runs).set_index("reading")
    assert t.loc["tsf-floor-server", "mean_queuing_margin"] == 2.0
    assert t.loc["cdrf-blind", "mean_queuing_margin"] == 1.0
    assert t.loc["tsf-floor-server", "idle"] == "started 0.900 of the LP's tasks"
    assert t.loc["cdrf-blind", "idle"] == "0.250 of grants failed"
    assert (t.loc["cdrf-blind", "deadlocked"], t.loc["cdrf-blind", "unfinished_jobs"]) == (1, 3.0)


def test_learned_load_relation_within_each_kind_by_hand(tmp_path):
    from fairalloc.experiments.reproductions import load_spec
    from fairalloc.experiments.reproductions.report import read_claims

    # Two kinds of 5 traces. typed: loads 0.3..0.7, F1 gains 3, 1, 5, 4, 2 (ranks against the loads' 1..5:
    # d = 2, -1, 2, 0, -3, sum d^2 = 18, Spearman 1 - 6 * 18 / (5 * 24) = 0.1); typeless: loads 0.8..1.2, gains
    # 8, 6, 10, 9, 7 (the same ranks: 0.1). Pooled, the 10 gains rank 3, 1, 5, 4, 2, 8, 6, 10, 9, 7 against
    # 1..10: sum d^2 = 36, 1 - 6 * 36 / (10 * 99) = 0.78: a trend made by pooling two kinds, none within either.
    rows = []
    for kind, loads, gains in (("typed", [0.3, 0.4, 0.5, 0.6, 0.7], [3, 1, 5, 4, 2]),
                               ("typeless", [0.8, 0.9, 1.0, 1.1, 1.2], [8, 6, 10, 9, 7])):
        for seed, (load, gain) in enumerate(zip(loads, gains)):
            for pol, v in zip(["fcfs", "wfp3", "unicef", "f1", "f2"], [300.0, 100.0, 200.0, 100.0 / gain, 200.0 / gain]):
                rows.append({"kind": kind, "seed": seed, "policy": pol, "avebsld": v, "offered_load": load,
                             "jobs_per_day": 100.0, "span_days": 30.0, "jobs": 3000})
    runs = pd.DataFrame(rows)
    rel = learned.load_relation(learned.gains(runs)).set_index("kind")
    assert rel["rank_corr"].tolist() == pytest.approx([0.1, 0.1])
    assert rel.loc["typeless", "top_gain"] == pytest.approx(10.0) and rel.loc["typeless", "top_load"] == 1.0
    learned.report({"runs": runs}, tmp_path, scale="small", spec=load_spec("learned-priorities"))
    c = read_claims(tmp_path).set_index("claim")
    typed = c.loc["F1 up to 7.25x better than the best baseline (typed model, 5 traces of 30 days)"]
    assert typed["reproduced"] == "no"
    assert typed["reason"] == ("largest gain 5.00x over 5 trace(s) (7.25x is 1.4 times it); no clear trend with "
                               "the load over these traces (rank correlation 0.10)")
    assert c.loc["F1 up to 7.25x better than the best baseline (typeless model, 5 traces of 30 days)",
                 "reproduced"] == "yes"
    text = (tmp_path / "report.md").read_text()
    assert "typed 0.10 over 5 traces" in text and "Pooled over the generated traces the correlation is 0.78" in text
    assert "no kind's gain rises clearly with its load" in text
