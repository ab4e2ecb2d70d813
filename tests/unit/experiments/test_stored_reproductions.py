"""The stored reproduction runs in docs/reproductions/results (shown on the docs' Reproductions pages
and read by the notebooks): each has a provenance and a claims table in the report format."""

import json
import subprocess
from pathlib import Path

import pytest

from fairalloc.experiments.reproductions import NAMES, SCALES
from fairalloc.experiments.reproductions.report import read_claims

ROOT = Path(__file__).resolve().parents[3]
STORED = sorted(p for p in (ROOT / "docs" / "reproductions" / "results").glob("*") if p.is_dir())


def test_there_are_stored_runs():
    assert STORED, "docs/reproductions/results holds no stored run"


@pytest.mark.parametrize("folder", STORED, ids=lambda p: p.name)
def test_stored_run_has_provenance_and_claims(folder):
    assert folder.name in NAMES, f"{folder.name} is not a shipped reproduction"
    prov = json.loads((folder / "provenance.json").read_text())
    assert {"command", "commit", "date", "scale", "machine", "wall_seconds"} <= set(prov)
    # a run of part of a scale's grid says so: scale "paper-subset" and a "subset" line saying what ran
    # (results_dir, which the notebooks use, then never takes it for the whole paper scale)
    assert prov["scale"] in SCALES or (prov["scale"] == "paper-subset" and prov.get("subset"))
    assert f"reproduce {folder.name}" in prov["command"] or "reproduce_samples" in prov["command"]
    shallow = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True).stdout.strip()
    if (ROOT / ".git").exists() and shallow == "false":   # the run's commit is in this history (not lost in a rebase)
        git = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{prov['commit']}^{{commit}}"],
                             capture_output=True)
        assert git.returncode == 0, f"{folder.name}: commit {prov['commit']} is not in this repository"
    claims = read_claims(folder)
    assert len(claims) > 0 and set(claims["reproduced"]) <= {"yes", "no", "undecided"}
    unexplained = claims[(claims["reproduced"] != "yes") & (claims["reason"] == "")]
    assert unexplained.empty, f"{folder.name}: claims not reproduced without a reason: {list(unexplained['claim'])}"
    for link in (folder / "report.md").read_text().split("](")[1:]:
        target = link.split(")", 1)[0]
        if not target.startswith(("http", "#")):
            assert (folder / target).exists(), f"{folder.name}/report.md links to missing {target}"
