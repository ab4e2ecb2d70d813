"""Each notebook's .ipynb holds the same cells as its jupytext .py source (the .py is what is edited
and executed in CI; the .ipynb is what readers open)."""

from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")

NB = Path(__file__).resolve().parents[2] / "notebooks"
SOURCES = sorted(NB.glob("*.py"))


def test_every_notebook_has_both_forms():
    assert SOURCES and all(p.with_suffix(".ipynb").exists() for p in SOURCES)


@pytest.mark.parametrize("py", SOURCES, ids=lambda p: p.stem)
def test_ipynb_cells_match_the_py_source(py):
    src = [(c.cell_type, c.source) for c in jupytext.read(py).cells]
    nb = [(c.cell_type, c.source) for c in jupytext.read(py.with_suffix(".ipynb")).cells]
    assert nb == src, f"{py.with_suffix('.ipynb').name} is stale: run jupytext --sync {py}"


@pytest.mark.parametrize("py", SOURCES, ids=lambda p: p.stem)
def test_figures_render_as_images(py):
    # fairalloc.plots builds matplotlib Figure objects without pyplot; in a kernel that never imports
    # pyplot, IPython has no PNG formatter for them and display(fig) shows "<Figure size ...>" as text
    # (checked with nbclient: only text/plain without the magic, image/png with it). So a notebook that
    # draws with fairalloc.plots must turn the inline backend on.
    text = py.read_text()
    if "fairalloc.plots" in text and "pyplot" not in text:
        assert "%matplotlib inline" in text, f"{py.name}: add '# %matplotlib inline' to its first code cell"
