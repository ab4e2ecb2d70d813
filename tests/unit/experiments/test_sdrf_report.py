"""SDRF reproduction reports: Fig. 4's measures beside the paper's mean (issue 31), and what moved
between two runs of a figure (issue 25). Expected numbers are computed by hand in the comments."""

import numpy as np
import pandas as pd
import pytest

from fairalloc.experiments.reproductions import sdrf
from fairalloc.experiments.reproductions.report import Claim, write_report


def users_table(drf, sdrf_w, pool=0.5, delta=0.9):
    n = len(drf)
    return pd.DataFrame({"pool_fraction": pool, "delta": [np.nan] * n + [delta] * n,
                         "user": list(range(n)) * 2, "mean_wait": list(drf) + list(sdrf_w)})


def test_trimmed_mean_cuts_one_percent_of_users_at_each_end():
    # 200 users: 1% is 2 at each end. Reductions (%): users 0, 1 -> -9900 and -900 (DRF 0.01 s and 1 s, SDRF
    # 1 s and 10 s); users 2..197 -> 50 (10 s -> 5 s); users 198, 199 -> 100 (10 s -> 0). Cutting the two
    # lowest and the two highest leaves 196 users at 50%: trimmed mean 50. The mean is
    # (-9900 - 900 + 196 * 50 + 2 * 100) / 200 = -4.0; the median 50; 198 of 200 wait less (99%), 2 more (1%)
    drf = [0.01, 1.0] + [10.0] * 198
    new = [1.0, 10.0] + [5.0] * 196 + [0.0, 0.0]
    r = sdrf.wait_reduction(users_table(drf, new)).iloc[0]
    assert r["reduction"] == pytest.approx(-4.0)
    assert r["trimmed_reduction"] == pytest.approx(50.0)
    assert r["median_reduction"] == pytest.approx(50.0)
    assert (r["improved"], r["worse"]) == (pytest.approx(99.0), pytest.approx(1.0))
    assert r["users"] == 200 and r["smallest_drf_wait"] == pytest.approx(0.01)


def test_unchanged_users_count_neither_as_improved_nor_worse():
    r = sdrf.wait_reduction(users_table([10.0, 10.0, 10.0, 10.0], [10.0, 5.0, 20.0, 10.0])).iloc[0]
    assert (r["improved"], r["worse"]) == (25.0, 25.0)


def test_few_users_says_how_many_lowest_reductions_decide_the_mean():
    # 10 users: one goes from 0.01 s to 1 s (-9900%), nine from 10 s to 5 s (+50%). Mean (-9900 + 450) / 10 =
    # -945; without that one user, 50: dropping 1 user lifts the mean above 10%
    text = sdrf._few_users(users_table([0.01] + [10.0] * 9, [1.0] + [5.0] * 9), 0.5, 0.9)
    assert "dropping the 1 lowest of 10 reductions (-9,900%" in text
    assert "0.01 s -> 1 s" in text and "from -945.0% to 50.0%" in text
    assert sdrf._few_users(users_table([10.0] * 3, [5.0] * 3), 0.5, 0.9) == ""      # mean 50% > 10%: nothing to say


def _run(folder, rows, verdict):
    folder.mkdir()
    pd.DataFrame(rows, columns=["pool_fraction", "delta", "reduction", "median_reduction"]).to_csv(
        folder / "fig4_reduction.csv", index=False)
    write_report(folder / "report.md", "T", ["s"], [Claim("best delta", "1-10^-6", "x", verdict, "" if verdict else "r")],
                 figures=["fig4.png"], analysis=[("A", "text")])


def test_compare_runs_and_add_comparison(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _run(old, [[0.5, 0.9, 60.0, 80.0], [0.5, 0.999999, 79.5, 96.8], [0.6, 0.9, 40.0, 42.0]], False)
    _run(new, [[0.5, 0.9, 63.6, 87.7], [0.5, 0.999999, 79.5, 96.8], [0.6, 0.9, 40.0 + 1e-9, 42.0]], True)
    m, text = sdrf.compare_runs("sdrf-fig4", old, new)
    assert m.set_index(["pool_fraction", "delta"])["moved"].to_dict() == {
        (0.5, 0.9): True, (0.5, 0.999999): False, (0.6, 0.9): True}       # 1e-9 is a move (tolerance 1e-12)
    assert "2 of 3 rows of fig4_reduction.csv moved" in text
    assert "| 1-10^-1 | 60.0 -> 63.6 | 40.0 (moved by 1e-09) |" in text
    assert "| 1-10^-6 | =79.5 |  |" in text
    assert "| best delta | no | yes |" in text
    sdrf.add_comparison("sdrf-fig4", old, new, "the old run", note="Between them: a fix.")
    report = (new / "report.md").read_text()
    # the section is the last of the Analysis, before the figures; its table is in moved.csv
    assert report.index("### A") < report.index("### What moved against the old run") < report.index("## Figures")
    assert "Between them: a fix.\n\n2 of 3 rows" in report
    assert len(pd.read_csv(new / "moved.csv")) == 3


def test_compare_runs_fig5_lists_the_users_that_moved_most(tmp_path):
    for k, ratios in (("old", [1.0, 0.5, 2.0]), ("new", [1.0, 0.7, 1.0])):
        (tmp_path / k).mkdir()
        pd.DataFrame({"user": [0, 1, 2], "ratio": ratios}).to_csv(tmp_path / k / "fig5_completed_ratio.csv",
                                                                  index=False)
        write_report(tmp_path / k / "report.md", "T", [], [Claim("c", "1", "1", True)])
    _, text = sdrf.compare_runs("sdrf-fig5", tmp_path / "old", tmp_path / "new")
    assert "2 of 3 rows" in text
    # user 2 moved by 1.0, user 1 by 0.2: largest first
    assert text.index("| 2 | 2.0000 | 1.0000 |") < text.index("| 1 | 0.5000 | 0.7000 |")


def test_compare_runs_of_identical_runs_moves_nothing(tmp_path):
    for k in ("old", "new"):
        (tmp_path / k).mkdir()
        pd.DataFrame({"user": [0, 1], "ratio": [1.0, 0.5]}).to_csv(tmp_path / k / "fig5_completed_ratio.csv", index=False)
        write_report(tmp_path / k / "report.md", "T", [], [Claim("c", "1", "1", True)])
    m, text = sdrf.compare_runs("sdrf-fig5", tmp_path / "old", tmp_path / "new")
    assert not m["moved"].any() and text.startswith("0 of 2 rows") and "moved most" not in text
