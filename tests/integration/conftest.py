"""Fixtures for the integration tests: running a notebook at small scale."""

from pathlib import Path

import pytest

NB = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture
def run_notebook(monkeypatch):
    """``run_notebook(name, probe)``: execute ``notebooks/<name>`` (jupytext percent format, the source
    of truth) at ``FAIRALLOC_SCALE=small`` with nbclient from the notebooks folder, with ``probe`` (a
    ``# %%`` cell printing ``key=value`` lines) appended; returns those values as a dict of strings."""
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("FAIRALLOC_SCALE", "small")  # the kernel inherits this environment
    monkeypatch.setenv("MPLBACKEND", "Agg")

    def execute(name: str, probe: str, timeout: int = 900) -> dict[str, str]:
        nb = jupytext.read(NB / name)
        nb.cells.append(jupytext.reads(probe, fmt="py:percent").cells[0])
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": str(NB)}})
        client.execute()
        out = nb.cells[-1].outputs
        text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
        return dict(line.split("=", 1) for line in text.strip().splitlines() if "=" in line)

    return execute
