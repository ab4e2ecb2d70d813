"""The Reproductions pages render stored runs (``docs/_scripts/reproductions_pages.py``).

A stored run is made here in a temporary folder, in the format ``fairalloc reproduce`` writes
(``report.md`` from :func:`fairalloc.experiments.reproductions.report.render_report`), with a PNG and
a ``provenance.json``; no result is stored in the repository for the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fairalloc.experiments.reproductions import NAMES, load_spec
from fairalloc.experiments.reproductions.report import Claim, render_report

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_scripts"))
from reproductions_pages import (provenance_box, read_stored, spec_page, status_table,
                                 stored_results)

# a 1x1 PNG (the figure's content is not looked at, only copied and linked)
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000105fe02fe0000000049454e44ae426082")
PROVENANCE = {"command": "fairalloc reproduce sdrf-fig5 --out out/r", "commit": "0123456789abcdef",
              "date": "2026-11-24T05:00:00Z", "scale": "small", "machine": "load 3.1, 2 cores",
              "wall_seconds": 123.4}


def _store(results: Path, name: str = "sdrf-fig5", provenance: dict | None = PROVENANCE,
           extra_figure: bool = False) -> Path:
    folder = results / name
    folder.mkdir(parents=True)
    claims = [Claim("users completing fewer tasks", "9 of 627", "3 of 627", True),
              Claim("smallest ratio", "0.9", "0.957", False, "a setup difference")]
    (folder / "report.md").write_text(
        render_report("SDRF Fig. 5 (small)", ["627 users"], claims, notes=["see the sweep in [sweep](sweep/)"],
                      figures=["fig5.png"]), encoding="utf-8")
    (folder / "fig5.png").write_bytes(PNG)
    if extra_figure:
        (folder / "extra.png").write_bytes(PNG)
    if provenance is not None:
        (folder / "provenance.json").write_text(json.dumps(provenance), encoding="utf-8")
    return folder


def test_page_has_provenance_claims_and_figures(tmp_path):
    stored = read_stored(_store(tmp_path, extra_figure=True))
    page = spec_page("sdrf-fig5", "SDRF Fig. 5", stored)
    lines = page.splitlines()
    assert lines[0] == "# SDRF Fig. 5 (small)"                 # the report's title is the page's
    assert page.count("\n# ") == 0                             # and its only first-level heading
    box = page.index('!!! info "Provenance"')
    assert "| command | `fairalloc reproduce sdrf-fig5 --out out/r` |" in page
    assert "| commit | `0123456789abcdef` |" in page
    assert "| scale | small |" in page and "| wall seconds | 123 s |" in page
    claims = page.index("| claim | paper | ours | reproduced | reason |")
    assert box < claims                                        # provenance first, then the report
    assert "| smallest ratio | 0.9 | 0.957 | no | a setup difference |" in page
    assert "![fig5.png](sdrf-fig5/fig5.png)" in page          # the figure, where the page copies it
    assert "![extra.png](sdrf-fig5/extra.png)" in page        # a stored figure the report does not show
    assert "(sweep/)" not in page and "sweep (`sweep/`)" in page   # not stored: text, no broken link


def test_missing_provenance_is_said(tmp_path):
    stored = read_stored(_store(tmp_path, provenance=None))
    box = provenance_box(stored)
    assert "no provenance.json" in box and "| command |" not in box
    partial = read_stored(_store(tmp_path / "b", provenance={"command": "x"}))
    assert "| commit | *not recorded* |" in provenance_box(partial)


def test_broken_folders_are_errors_naming_the_file(tmp_path):
    (tmp_path / "buc").mkdir()
    with pytest.raises(ValueError, match="buc: no report.md"):
        stored_results(tmp_path)
    folder = _store(tmp_path / "x")
    (folder / "provenance.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="provenance.json: not valid JSON"):
        read_stored(folder)


def test_index_lists_every_shipped_spec(tmp_path):
    _store(tmp_path)
    _store(tmp_path, "my-run")
    specs = {n: load_spec(n)["title"] for n in NAMES}
    table = status_table(specs, stored_results(tmp_path))
    rows = table.splitlines()[2:]
    assert len(rows) == len(NAMES) + 1
    by_name = {r.split("|")[1].strip(): r for r in rows}
    assert by_name["[`sdrf-fig5`](sdrf-fig5.md)"].count("[scale small](sdrf-fig5.md), 2026-11-24T05:00:00Z, "
                                                      "commit `0123456789`") == 1
    for n in NAMES:
        if n != "sdrf-fig5":
            row = by_name[f"`{n}`"]
            assert "| not run yet |" in row and f"`fairalloc reproduce {n} --out out/reproduce/{n}-small`" in row
            assert "](" not in row                            # no link to a page that does not exist
    assert "*not a shipped spec*" in by_name["[`my-run`](my-run.md)"]
    assert stored_results(tmp_path / "absent") == {}
