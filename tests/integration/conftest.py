"""Fixtures for the integration tests: running a notebook at small scale."""

import importlib.util
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NB = ROOT / "notebooks"


def _executed_notebooks():
    """``docs/_scripts/executed_notebooks.py``, loaded by path (the docs build's scripts are no package)."""
    spec = importlib.util.spec_from_file_location("_fairalloc_executed_notebooks",
                                                  ROOT / "docs" / "_scripts" / "executed_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def run_notebook(monkeypatch, tmp_path):
    """``run_notebook(name, probe)``: execute ``notebooks/<name>`` (jupytext percent format, the source
    of truth) at ``FAIRALLOC_SCALE=small`` with nbclient from an empty temporary folder named
    ``notebooks`` (a notebook runs from any working directory; its ``../out`` is then the test's own),
    with ``probe`` (a ``# %%`` cell printing ``key=value`` lines) appended; returns those values as a
    dict of strings.

    Every notebook draws figures: at least one output must be an image, and none the text
    ``<Figure size ...>`` that a figure shows when it is not displayed inline.

    With ``$FAIRALLOC_EXECUTED_NOTEBOOKS`` set (``.ci/run``), a notebook executed at the docs build's
    scale is written there without the probe (``docs/_scripts/executed_notebooks.py``), with the cell the
    docs build appends to it (the axioms notebook's reports for the claims ledger), and the docs build of
    the same run renders it instead of executing it again.
    """
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    monkeypatch.setenv("FAIRALLOC_SCALE", "small")  # the kernel inherits this environment
    monkeypatch.setenv("MPLBACKEND", "Agg")         # as in CI: the notebook itself asks for inline figures
    cwd = tmp_path / "notebooks"
    cwd.mkdir()

    def execute(name: str, probe: str, timeout: int = 900) -> dict[str, str]:
        import os

        shared = _executed_notebooks()
        stem = Path(name).stem
        keep = shared.folder() is not None and os.environ.get("FAIRALLOC_SCALE") == shared.SCALE
        epilogue = shared.EPILOGUES.get(stem) if keep else None
        nb = jupytext.read(NB / name)
        if epilogue:
            side = shared.side_file(stem)
            side.parent.mkdir(parents=True, exist_ok=True)
            monkeypatch.setenv("FAIRALLOC_DOCS_CLAIMS_JSON", str(side))
            nb.cells.append(nbformat.v4.new_code_cell(epilogue[0]))
        nb.cells.append(jupytext.reads(probe, fmt="py:percent").cells[0])
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": str(cwd)}})
        t0 = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - t0
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        as_text = [o["data"]["text/plain"] for o in outputs if "text/plain" in o.get("data", {})
                   and str(o["data"]["text/plain"]).startswith("<Figure size") and "image/png" not in o["data"]]
        assert not as_text, f"{name}: figures shown as text, not drawn inline: {as_text}"
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{name}: no figure drawn inline"
        out = nb.cells[-1].outputs
        text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
        if keep:
            rendered = nbformat.from_dict(nb)
            rendered.cells = rendered.cells[:-2] if epilogue else rendered.cells[:-1]
            shared.save(rendered, NB / name, seconds)
        return dict(line.split("=", 1) for line in text.strip().splitlines() if "=" in line)

    return execute
