"""Stored TV-TSF cells (issue 16): a paper-scale run of 100 samples per scenario takes longer than one
working session on two cores, so the samples are stored in batches (tvtsf.store_cells) and a later
run resumes from them (tvtsf.reproduce_samples(stored=...)). What must hold: the stored tables read
back are the sweep's own, cell for cell and bit for bit, and a report written from stored plus newly
run samples is the report of one sweep of all of them.

The sweep here is the paper spec with a tiny grid (4 jobs over 3 slots, 3 samples: 60 cells, about
ten CPU seconds), so that the checks are about storage, not about TV-TSF."""

import copy
import shutil

import pandas as pd
import pytest

from fairalloc.experiments import load, run_sweep
from fairalloc.experiments import reproductions
from fairalloc.experiments.reproductions import tvtsf

N_CELLS = len(tvtsf.SCENARIOS) * len(tvtsf.MAIN)      # cells per sample: 4 scenarios x 5 policies


_LOAD_SPEC = reproductions.load_spec


def tiny_spec():
    spec = copy.deepcopy(_LOAD_SPEC("tvtsf"))
    p = spec["scales"]["paper"]
    p["grid"]["n_jobs"], p["grid"]["slots"] = [4], [3]
    p["seeds"] = {"start": 0, "count": 3}
    return spec


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("tvtsf_tiny") / "sweep"
    summ = run_sweep(tvtsf.part_spec(tiny_spec(), "base", seeds=range(3)), out, workers=0, progress=False)
    assert summ.ok and summ.done == 3 * N_CELLS
    return out


def sweep_tables(sweep):
    return {t: tvtsf._canonical(load(sweep, t).df()) for t in ("users", "runs")}


def without_sample(sweep, dest, seed, policy):
    """A copy of the sweep folder without one cell of ``seed`` (an interrupted run)."""
    shutil.copytree(sweep, dest)
    cells = load(dest, "cells").df()
    key = cells.loc[(cells["seed"] == seed) & (cells["policy"] == policy), "key"].iloc[0]
    for f in dest.rglob(f"{key}.*"):
        f.unlink()
    return dest


def test_stored_cells_read_back_as_the_sweeps_tables(sweep, tmp_path):
    f = tvtsf.store_cells(sweep, tmp_path / "cells")
    assert f.name == "runs-s000-002.parquet" and (tmp_path / "cells" / "users-s000-002.parquet").is_file()
    got, want = tvtsf.stored_cells(tmp_path / "cells"), sweep_tables(sweep)
    for t in ("users", "runs"):
        pd.testing.assert_frame_equal(got[t], want[t], check_exact=True)
    assert len(got["runs"]) == 3 * N_CELLS and len(got["users"]) == 3 * N_CELLS * 4   # one user per job
    walls = load(sweep, "cells").df().set_index("key")["wall_s"]
    assert got["cells"]["wall_s"].tolist() == walls.loc[got["cells"]["key"]].tolist()
    assert tvtsf.store_cells(sweep, tmp_path / "cells") is None      # nothing new to add


def test_only_complete_samples_are_stored_and_a_later_batch_adds_the_rest(sweep, tmp_path):
    part = without_sample(sweep, tmp_path / "part", seed=2, policy="tsf-static")
    assert tvtsf.store_cells(part, tmp_path / "cells").name == "runs-s000-001.parquet"
    assert sorted(tvtsf.stored_cells(tmp_path / "cells")["runs"]["seed"].unique()) == [0, 1]
    assert tvtsf.store_cells(sweep, tmp_path / "cells").name == "runs-s002-002.parquet"
    got, want = tvtsf.stored_cells(tmp_path / "cells"), sweep_tables(sweep)
    for t in ("users", "runs"):
        pd.testing.assert_frame_equal(got[t], want[t], check_exact=True)


def test_gaps_and_incomplete_samples_are_refused(sweep, tmp_path):
    gap = without_sample(sweep, tmp_path / "gap", seed=0, policy="tvtsf")
    with pytest.raises(ValueError, match="start at 1, the stored ones end at -1: a gap"):
        tvtsf.store_cells(gap, tmp_path / "cells")
    tvtsf.store_cells(sweep, tmp_path / "ok")
    (tmp_path / "ok" / "runs-s000-002.parquet").rename(tmp_path / "ok" / "runs-s001-003.parquet")
    (tmp_path / "ok" / "users-s000-002.parquet").rename(tmp_path / "ok" / "users-s001-003.parquet")
    with pytest.raises(ValueError, match="runs-s001-003.parquet starts at sample 1, expected 0"):
        tvtsf.stored_cells(tmp_path / "ok")
    with pytest.raises(FileNotFoundError, match="holds no stored cells"):
        tvtsf.stored_cells(tmp_path / "empty")
    # cells of another grid are not mixed into a paper-scale report (the real spec: 400 jobs)
    tvtsf.store_cells(sweep, tmp_path / "tiny")
    with pytest.raises(ValueError, match=r"holds cells with n_jobs \[4\]; this part has \[400\]"):
        tvtsf.reproduce_samples(3, out=tmp_path / "x", stored=tmp_path / "tiny")


def test_a_report_from_stored_and_new_samples_is_that_of_one_sweep(sweep, tmp_path, monkeypatch):
    monkeypatch.setattr(reproductions, "load_spec", lambda name: tiny_spec())
    # all three samples in one sweep (the fixture's cells, copied: nothing runs again)
    shutil.copytree(sweep, tmp_path / "one" / "sweep")
    tvtsf.reproduce_samples(3, out=tmp_path / "one")
    # samples 0-1 stored, sample 2 run now
    tvtsf.store_cells(without_sample(sweep, tmp_path / "part", seed=2, policy="tvtsf"), tmp_path / "cells")
    tvtsf.reproduce_samples(3, out=tmp_path / "two", stored=tmp_path / "cells")
    ran = load(tmp_path / "two" / "sweep", "cells").df()
    assert sorted(ran["seed"].unique()) == [2] and len(ran) == N_CELLS
    one, two = (tmp_path / d / "summary.csv" for d in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()

    def body(d):       # the report less its wall-time line (the two runs' cells took different times)
        return [ln for ln in (tmp_path / d / "report.md").read_text().splitlines() if "wall time" not in ln]
    assert body("one") == body("two")
    assert "3 sample(s) per scenario" in "\n".join(body("two"))
    # only stored samples: nothing runs
    tvtsf.reproduce_samples(2, out=tmp_path / "three", stored=tmp_path / "cells")
    assert not (tmp_path / "three" / "sweep").exists()
    assert "2 sample(s) per scenario" in (tmp_path / "three" / "report.md").read_text()


def test_the_repositorys_stored_cells_read_as_paper_scale_samples():
    """docs/reproductions/results/tvtsf/cells: whole samples from 0 on, of the paper grid (spec tvtsf)."""
    folder = reproductions._DIR.parents[3] / "docs" / "reproductions" / "results" / "tvtsf" / "cells"
    got = tvtsf.stored_cells(folder)
    seeds = sorted(got["runs"]["seed"].unique())
    assert seeds == list(range(len(seeds))) and len(got["runs"]) == len(seeds) * N_CELLS
    paper = _LOAD_SPEC("tvtsf")["scales"]["paper"]["grid"]
    assert {c: sorted(got["runs"][c].unique()) for c in ("n_jobs", "slots", "placement_p")} == \
        {c: paper[c] for c in ("n_jobs", "slots", "placement_p")}
    assert len(got["users"]) == len(got["runs"]) * paper["n_jobs"][0]     # one user per job


def axes_spec():
    """The tiny paper grid with small axes: one scenario, durations x1 and x2, 3 persistent users, one
    baseline reading (the blind CDRF is left out: its failing grants make even a tiny run slow)."""
    spec = tiny_spec()
    p = spec["scales"]["paper"]
    p["grid"].update(scenario=["large80"], duration_scale=[1, 2], n_users=[0, 3])
    p["cells"] = [c.replace("n_users=20", "n_users=3").replace(",cdrf-blind", "").replace(",tsf-floor-server", "")
                  for c in p["cells"]]
    return spec


@pytest.mark.slow          # about 25 CPU s (two reports with their figures); the parts are tested by hand in
                           # test_reproduction_metrics, the base part's resuming above
def test_axes_are_reported_beside_the_paper_experiment_and_resume_from_stored_cells(tmp_path, monkeypatch):
    monkeypatch.setattr(reproductions, "load_spec", lambda name: axes_spec())
    tvtsf.reproduce_samples(1, out=tmp_path / "base")
    tvtsf.reproduce_samples(1, out=tmp_path / "one", axes_samples=1)
    ran = load(tmp_path / "one" / tvtsf.SWEEPS["axes"], "cells").df()
    # durations x2 (5 policies) + 3 users (5) + the floor per user (1): 11 cells
    assert len(ran) == 11 == tvtsf.axes_per_sample()
    text = (tmp_path / "one" / "report.md").read_text()
    for head in ("## Table: against load", "## Table: persistent users", "## Table: other readings of the baselines",
                 "### The paper's own numbers", "## Table: medians and quantiles over users"):
        assert head in text, head
    # the axes do not change the paper experiment's claims
    from fairalloc.experiments.reproductions.report import read_claims
    pd.testing.assert_frame_equal(read_claims(tmp_path / "base"), read_claims(tmp_path / "one"))
    la = pd.read_csv(tmp_path / "one" / "load_axis.csv")
    # the x2 axis cells beside their reference, the paper experiment's own x1 cells at that window
    # (tvtsf_report.report: "the axes with their reference cells")
    assert sorted(set(la["duration_scale"])) == [1, 2] and set(la["scenario"]) == {"large80"}
    # stored axes cells: a second report runs nothing and is the same
    assert tvtsf.store_cells(tmp_path / "one" / tvtsf.SWEEPS["axes"], tmp_path / "axes",
                             per_sample=tvtsf.axes_per_sample()).name == "runs-s000-000.parquet"
    tvtsf.store_cells(tmp_path / "one" / tvtsf.SWEEPS["base"], tmp_path / "cells", per_sample=len(tvtsf.MAIN))
    tvtsf.reproduce_samples(1, out=tmp_path / "two", stored=tmp_path / "cells", axes_samples=1,
                            axes_stored=tmp_path / "axes")
    assert not (tmp_path / "two" / "sweep").exists() and not (tmp_path / "two" / "sweep-axes").exists()
    for f in ("load_axis.csv", "users_axis.csv", "readings.csv", "quantiles.csv", "summary.csv"):
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_the_repositorys_stored_axes_read_as_whole_samples_at_their_window():
    """docs/reproductions/results/tvtsf/axes-100x150: whole samples from 0 on, 100 jobs over 150 slots, the
    axes' cells of each (the blind CDRF left out at 50% and 80% large jobs: README there)."""
    folder = reproductions._DIR.parents[3] / "docs" / "reproductions" / "results" / "tvtsf" / "axes-100x150"
    got = tvtsf.stored_cells(folder)
    seeds = sorted(got["runs"]["seed"].unique())
    per = tvtsf.axes_per_sample((100, 150), skip=[("cdrf-blind", "large50"), ("cdrf-blind", "large80")])
    assert seeds == list(range(len(seeds))) and len(got["runs"]) == len(seeds) * per
    assert (set(got["runs"]["n_jobs"]), set(got["runs"]["slots"])) == ({100}, {150})
    assert set(got["runs"]["duration_scale"]) == {1, 2, 4, 6} and set(got["runs"]["n_users"]) == {0, 20}
