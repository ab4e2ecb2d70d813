"""``fairalloc reproduce``: the SDRF Fig. 4 small scale end to end, its numbers against direct
``fa.simulate`` calls, and every shipped spec valid at both scales."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.cli import main
from fairalloc.experiments.reproductions import NAMES, SCALES, load_spec, read_tables
from fairalloc.errors import InvalidInstanceError
from fairalloc.experiments.reproductions import parse_cells, reproduce, scale_spec
from fairalloc.sim import ResourcePool
from fairalloc.workloads.google_fit import SUBSET_FIT


@pytest.mark.parametrize("name", NAMES)
def test_every_shipped_spec_validates(name):
    spec = load_spec(name)
    assert spec["name"] == name
    for scale in SCALES:
        s = scale_spec(spec, scale)          # the scale's sweep spec, restricted to its cells: when it has some
        assert len(s.cells()) > 0


def test_reproduce_sdrf_fig4_small_end_to_end(tmp_path, capsys):
    out = tmp_path / "fig4"
    assert main(["reproduce", "sdrf-fig4", "--scale", "small", "--out", str(out), "--no-progress"]) == 0
    assert "| claim | paper | ours | reproduced | reason |" in capsys.readouterr().out
    assert (out / "fig4.png").stat().st_size > 0
    report = (out / "report.md").read_text()
    assert "best delta is 1-10^-6 at every load" in report and "![fig4.png](fig4.png)" in report
    assert "tasks per job: 1 + floor(Lomax(tail = 0.488)" in report       # the fitted values are written
    tables = read_tables(out)
    users = tables["users"]
    # the parameters used: fitted now (data present) or the frozen copy; the same values either way
    assert set(tables["runs"]["workload_params"]) <= {
        "fit to shared/data/google-2011-subset/task_events.csv (fitted in this run, 6 significant digits)",
        SUBSET_FIT.source}

    # one cell recomputed directly: the spec's workload, pool 50% of R, DRF and SDRF(1 - 10^-6)
    wl = fa.workloads.google_like(627, 20_000, horizon=86400.0, rng=0, params=SUBSET_FIT)
    n_users = len(np.unique(wl.user))
    assert len(users) == 6 * 8 * n_users      # pools x (DRF + 7 deltas) x users with tasks
    pool = ResourcePool.from_workload(wl, 0.5)
    drf = fa.simulate(wl, pool, policy="drf").task_users().set_index("user")["mean_queuing"]
    sdrf = fa.simulate(wl, pool, policy="sdrf", delta=1 - 1e-6).task_users().set_index("user")["mean_queuing"]
    sel = users[(users["pool_fraction"] == 0.5)]
    got_drf = sel[sel["delta"].isna()].set_index("user")["mean_wait"]
    got_sdrf = sel[np.isclose(sel["delta"], 1 - 1e-6, rtol=0, atol=1e-12)].set_index("user")["mean_wait"]
    pd.testing.assert_series_equal(got_drf.sort_index(), drf.sort_index(), check_names=False)
    pd.testing.assert_series_equal(got_sdrf.sort_index(), sdrf.sort_index(), check_names=False)

    # Fig. 4's number for that cell, by its definition: mean over users with a positive DRF wait of
    # (W_DRF - W_SDRF) / W_DRF, in percent
    ok = drf > 0
    expected = float(np.mean(100 * (drf[ok] - sdrf[ok]) / drf[ok]))
    red = pd.read_csv(out / "fig4_reduction.csv")
    row = red[(red["pool_fraction"] == 0.5) & np.isclose(red["delta"], 1 - 1e-6, rtol=0, atol=1e-12)]
    assert row["reduction"].iloc[0] == pytest.approx(expected, rel=1e-12)
    assert row["users"].iloc[0] == int(ok.sum())

    # Fig. 5 written from this run's cells (its 2 cells are Fig. 4 cells): per user, the SDRF over
    # the DRF completed-task ratio of the direct simulations above
    five = tmp_path / "fig5"
    capsys.readouterr()
    assert main(["reproduce", "sdrf-fig5", "--tables-from", str(out), "--out", str(five), "-q"]) == 0
    assert capsys.readouterr().out == ""                               # -q: nothing but errors and warnings
    got = pd.read_csv(five / "fig5_completed_ratio.csv").set_index("user")["ratio"].sort_index()
    cr_drf = fa.simulate(wl, pool, policy="drf").task_users().set_index("user")["completed_ratio"]
    cr_sdrf = fa.simulate(wl, pool, policy="sdrf", delta=1 - 1e-6).task_users().set_index("user")["completed_ratio"]
    pd.testing.assert_series_equal(got, (cr_sdrf / cr_drf).sort_index(), check_names=False)


def test_reproduce_rejects_unknown_names(capsys):
    assert main(["reproduce", "sdrf-fig9"]) == 2
    assert "sdrf-fig9" in capsys.readouterr().err


def test_reproduce_list(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(n in out for n in NAMES)


def test_reproduce_stops_clearly_when_its_trace_is_absent(tmp_path, monkeypatch, capsys):
    # BUC needs KTH-SP2: with $FAIRALLOC_DATA an empty folder it stops before any cell, naming the file
    monkeypatch.setenv("FAIRALLOC_DATA", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    out = tmp_path / "buc"
    assert main(["reproduce", "buc", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "skipped" in err and "KTH-SP2-1996-2.1-cln.swf.gz" in err
    assert not (out / "sweep").exists()


def test_reproduce_cells_runs_a_union_of_sub_grids(tmp_path, capsys):
    # the fig4 small grid is 6 pools x 8 deltas; the union of the delta row at 50% (8 cells) and the
    # DRF + 1-10^-6 column (2 x 6 cells) shares 2 cells: 8 + 12 - 2 = 18 cells (by hand)
    out = tmp_path / "sub"
    assert main(["reproduce", "sdrf-fig4", "--out", str(out), "--no-progress", "--cells", "pool_fraction=0.5",
                 "--cells", "delta=null,0.999999"]) == 0
    runs = read_tables(out)["runs"]
    assert len(runs) == 18
    cells = set(zip(runs["pool_fraction"], runs["delta"].fillna(-1.0)))
    assert cells == ({(0.5, d) for d in [-1.0, 0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999, 0.9999999]}
                     | {(p, d) for p in [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] for d in [-1.0, 0.999999]})
    assert "- cells run: a subset of the grid" in (out / "report.md").read_text()

    # Fig. 6's cells are Fig. 4's SDRF cells: its report from this run takes the 7 + 6 - 1 = 12 SDRF
    # cells among the 18 (by hand), runs nothing, and says so
    six = tmp_path / "six"
    assert main(["reproduce", "sdrf-fig6", "--tables-from", str(out), "--out", str(six), "--no-progress"]) == 0
    ev = pd.read_csv(six / "fig6_events.csv")
    assert len(ev) == 12 and not (six / "sweep").exists()
    text = (six / "report.md").read_text()
    assert "cells taken from the run in" in text and "- cells run: a subset of the grid" in text
    with pytest.raises(InvalidInstanceError, match="holds none of the cells"):
        reproduce("tvtsf", tables_from=out, out=tmp_path / "tv")


def test_cells_are_checked():
    assert parse_cells(["delta=null,0.9 pool_fraction=0.5"]) == [{"delta": [None, 0.9], "pool_fraction": [0.5]}]
    with pytest.raises(InvalidInstanceError, match="not AXIS=V1"):
        parse_cells(["delta"])
    from fairalloc.experiments.reproductions import run

    with pytest.raises(InvalidInstanceError, match="not a grid axis"):
        run("sdrf-fig5", out="unused", cells=["load=0.5"])
    with pytest.raises(InvalidInstanceError, match="match no cell"):
        run("sdrf-fig5", out="unused", cells=["pool_fraction=0.7"])


def test_results_dir_shows_the_stored_run_when_its_trace_is_absent(tmp_path, monkeypatch):
    # a fresh clone has no traces: the BUC notebook at small scale shows the stored paper-scale run
    # (and says so) instead of failing, and without a stored run it raises FileNotFoundError, which the
    # docs build reads as "data absent" (docs/_scripts/gen_notebooks.py)
    import json

    from fairalloc.experiments.reproductions import results_dir

    monkeypatch.setenv("FAIRALLOC_DATA", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    stored = tmp_path / "stored" / "buc"
    stored.mkdir(parents=True)
    (stored / "provenance.json").write_text(json.dumps({"scale": "paper"}))
    (stored / "report.md").write_text("# BUC")
    assert results_dir("buc", "small", stored=tmp_path / "stored", out=tmp_path / "out") == stored
    with pytest.raises(FileNotFoundError, match="KTH-SP2"):
        results_dir("buc", "small", stored=tmp_path / "nothing", out=tmp_path / "out")
    assert not (tmp_path / "out" / "buc-small" / "sweep").exists()


@pytest.mark.parametrize("value, scale", [("small", "small"), ("full", "paper"), ("paper", "paper"), ("FULL", "paper")])
def test_notebook_scale_maps_the_documented_values(value, scale, monkeypatch):
    from fairalloc.experiments.reproductions import notebook_scale

    monkeypatch.setenv("FAIRALLOC_SCALE", value)
    assert notebook_scale() == scale


def test_notebook_scale_refuses_what_it_does_not_know(monkeypatch):
    from fairalloc.experiments.reproductions import notebook_scale

    monkeypatch.setenv("FAIRALLOC_SCALE", "huge")
    with pytest.raises(fa.InvalidInstanceError, match="FAIRALLOC_SCALE='huge'"):
        notebook_scale()
