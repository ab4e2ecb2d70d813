"""SDRF reports written from another run's cells (``reproduce --tables-from``): their tables can be read
back, the cells are matched whatever code computed them, and the SDRF notebook shows such folders
(issue 32: ``mkdocs build --strict`` failed with ``KeyError: 'runs'`` after ``reproduce sdrf-fig6
--tables-from``, because the notebook read the sweep's tables, which such a folder does not have)."""

from pathlib import Path

import pandas as pd
import pytest

from fairalloc.cli import main
from fairalloc.experiments import Spec
from fairalloc.experiments.reproductions import read_tables, reproduce, tables_source

# three cells of the Fig. 4 small grid at 50% of R: DRF, 1-10^-1 and 1-10^-6. Fig. 5's cells are the DRF and
# 1-10^-6 ones, Fig. 6's the two SDRF ones (by the specs' grids)
CELLS = "pool_fraction=0.5 delta=null,0.9,0.999999"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``../out/reproduce`` as the notebook (run from ``notebooks/``) sees it: a Fig. 4 run of three cells,
    and Fig. 5 and Fig. 6 reports written from it in the folders the notebook reads."""
    root = tmp_path_factory.mktemp("sdrf")
    base = root / "out" / "reproduce"
    four = base / "sdrf-fig4-small"
    assert main(["reproduce", "sdrf-fig4", "--out", str(four), "--cells", CELLS, "-q"]) == 0
    for name in ("sdrf-fig5", "sdrf-fig6"):
        assert main(["reproduce", name, "--tables-from", str(four), "--out", str(base / f"{name}-small"), "-q"]) == 0
    return root


def test_a_tables_from_report_keeps_its_tables(runs):
    base = runs / "out" / "reproduce"
    six = read_tables(base / "sdrf-fig6-small")
    assert not (base / "sdrf-fig6-small" / "sweep").exists()
    assert len(six["runs"]) == 2 and set(six["runs"]["delta"]) == {0.9, 0.999999}     # the two SDRF cells
    four = read_tables(base / "sdrf-fig4-small")["runs"]
    cols = ["pool_fraction", "delta", "swaps", "decisions"]
    pd.testing.assert_frame_equal(six["runs"][cols].sort_values("delta").reset_index(drop=True),
                                  four[four["delta"].notna()][cols].sort_values("delta").reset_index(drop=True))
    assert len(read_tables(base / "sdrf-fig5-small")["users"]["delta"].unique()) == 2   # DRF (NaN) and 1-10^-6
    text = (base / "sdrf-fig6-small" / "report.md").read_text()
    assert "computed by this fairalloc's code" in text


def test_a_report_can_be_written_again_after_the_code_changed(runs, tmp_path, monkeypatch):
    # a cell's key hashes fairalloc's code: after any edit (here a fingerprint that differs) no key matches,
    # yet the cells compute the same thing (same cell function, workload, parameters) and are found; the
    # report says which code computed them. Chained: from a --tables-from folder too
    base = runs / "out" / "reproduce"
    monkeypatch.setattr(Spec, "code", property(lambda self: "0123456789abcdef"))
    src = tables_source(base / "sdrf-fig4-small")
    assert src["code"] != "0123456789abcdef" and len(src["cells"]) == 3
    out = reproduce("sdrf-fig6", tables_from=base / "sdrf-fig5-small", out=tmp_path / "six")
    text = Path(out).read_text()
    assert f"computed by fairalloc code `{src['code']}`, not this fairalloc's `0123456789abcdef`" in text
    assert len(pd.read_csv(tmp_path / "six" / "fig6_events.csv")) == 1     # Fig. 5's folder holds one SDRF cell


def test_the_notebook_shows_tables_from_folders(runs, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("FAIRALLOC_SCALE", "small")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = jupytext.read(Path(__file__).resolve().parents[2] / "notebooks" / "sdrf_paper.py")
    nb.cells.append(jupytext.reads("# %%\nprint(f'events={len(ev)}'); print(f'fewer={FEWER}'); "
                                   "print(f'users={len(ratio)}')", fmt="py:percent").cells[0])
    (runs / "notebooks").mkdir(exist_ok=True)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(runs / "notebooks")}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    got = dict(line.split("=", 1) for line in text.strip().splitlines())
    base = runs / "out" / "reproduce"
    ratio = pd.read_csv(base / "sdrf-fig5-small" / "fig5_completed_ratio.csv")
    assert int(got["events"]) == 2                                 # Fig. 6 from the two SDRF cells, nothing rerun
    assert int(got["users"]) == len(ratio) and int(got["fewer"]) == int((ratio["ratio"] < 1 - 1e-9).sum())
    assert not (base / "sdrf-fig6-small" / "sweep").exists()
