"""Fixtures for the integration tests: running a notebook at small scale."""

from pathlib import Path

import pytest

NB = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture
def run_notebook(monkeypatch, tmp_path):
    """``run_notebook(name, probe)``: execute ``notebooks/<name>`` (jupytext percent format, the source
    of truth) at ``FAIRALLOC_SCALE=small`` with nbclient from an empty temporary folder (a notebook runs
    from any working directory), with ``probe`` (a ``# %%`` cell printing ``key=value`` lines)
    appended; returns those values as a dict of strings.

    Every notebook draws figures: at least one output must be an image, and none the text
    ``<Figure size ...>`` that a figure shows when it is not displayed inline.
    """
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("FAIRALLOC_SCALE", "small")  # the kernel inherits this environment
    monkeypatch.setenv("MPLBACKEND", "Agg")         # as in CI: the notebook itself asks for inline figures

    def execute(name: str, probe: str, timeout: int = 900) -> dict[str, str]:
        nb = jupytext.read(NB / name)
        nb.cells.append(jupytext.reads(probe, fmt="py:percent").cells[0])
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": str(tmp_path)}})
        client.execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        as_text = [o["data"]["text/plain"] for o in outputs if "text/plain" in o.get("data", {})
                   and str(o["data"]["text/plain"]).startswith("<Figure size") and "image/png" not in o["data"]]
        assert not as_text, f"{name}: figures shown as text, not drawn inline: {as_text}"
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{name}: no figure drawn inline"
        out = nb.cells[-1].outputs
        text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
        return dict(line.split("=", 1) for line in text.strip().splitlines() if "=" in line)

    return execute
