"""``fairalloc reproduce``: the SDRF Fig. 4 small scale end to end, its numbers against direct
``fa.simulate`` calls, and every shipped spec valid at both scales."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairalloc as fa
from fairalloc.cli import main
from fairalloc.experiments import Spec
from fairalloc.experiments.reproductions import NAMES, SCALES, load_spec, read_tables
from fairalloc.sim import ResourcePool


@pytest.mark.parametrize("name", NAMES)
def test_every_shipped_spec_validates(name):
    spec = load_spec(name)
    assert spec["name"] == name
    for scale in SCALES:
        s = Spec.from_dict(spec["scales"][scale])
        assert len(s.cells()) > 0


def test_reproduce_sdrf_fig4_small_end_to_end(tmp_path, capsys):
    out = tmp_path / "fig4"
    assert main(["reproduce", "sdrf-fig4", "--scale", "small", "--out", str(out), "--no-progress"]) == 0
    assert "| claim | paper | ours | reproduced | reason |" in capsys.readouterr().out
    assert (out / "fig4.png").stat().st_size > 0
    report = (out / "report.md").read_text()
    assert "best delta is 1-10^-6 at every load" in report and "![fig4.png](fig4.png)" in report
    users = read_tables(out)["users"]
    assert len(users) == 6 * 8 * 627          # pools x (DRF + 7 deltas) x users

    # one cell recomputed directly: the spec's workload, pool 50% of R, DRF and SDRF(1 - 10^-6)
    wl = fa.workloads.google_like(627, 20_000, horizon=86400.0, rng=0)
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
