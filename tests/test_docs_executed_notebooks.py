"""The docs build renders a notebook the tests executed only when it was executed from this checkout's
sources at the docs' scale (``docs/_scripts/executed_notebooks.py``; ``.ci/run`` runs the notebooks once)."""

import importlib.util
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def shared(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("_executed_notebooks_under_test",
                                                  ROOT / "docs" / "_scripts" / "executed_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setenv(mod.ENV, str(tmp_path / "executed"))
    return mod


def _notebook(text):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(1)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    nb.cells.append(cell)
    return nb


def test_taken_when_source_and_packages_match(shared, tmp_path):
    src = tmp_path / "demo.py"
    src.write_text("# %%\nprint(1)\n")
    shared.save(_notebook("1\n"), src, 2.5)
    nb, seconds = shared.load(src)
    assert seconds == 2.5 and nb.cells[0].outputs[0]["text"] == "1\n"
    assert "fairalloc_executed" not in nb.metadata            # the stamp is not rendered


def test_refused_after_the_source_changed_or_at_another_scale(shared, tmp_path, monkeypatch):
    src = tmp_path / "demo.py"
    src.write_text("# %%\nprint(1)\n")
    shared.save(_notebook("1\n"), src, 1.0)
    src.write_text("# %%\nprint(2)\n")                        # edited after the tests ran it
    nb, why = shared.load(src)
    assert nb is None and "other sources" in why
    src.write_text("# %%\nprint(1)\n")
    monkeypatch.setattr(shared, "SCALE", "full")              # the docs build at another scale
    nb, why = shared.load(src)
    assert nb is None and "another scale" in why


def test_refused_when_the_packages_changed(shared, tmp_path, monkeypatch):
    src = tmp_path / "demo.py"
    src.write_text("# %%\nprint(1)\n")
    shared.save(_notebook("1\n"), src, 1.0)
    real = shared.digest
    monkeypatch.setattr(shared, "digest", lambda s: {**real(s), "packages": "0" * 64})
    assert shared.load(src)[0] is None


def test_nothing_without_the_folder_or_the_notebook(shared, tmp_path, monkeypatch):
    src = tmp_path / "demo.py"
    src.write_text("# %%\nprint(1)\n")
    assert shared.load(src) == (None, "demo.ipynb not executed by the tests of this run")
    monkeypatch.delenv(shared.ENV)
    assert shared.save(_notebook("1\n"), src, 1.0) is None and shared.load(src)[0] is None


def test_the_axioms_notebook_needs_its_reports(shared, tmp_path):
    src = tmp_path / "axioms.py"
    src.write_text("# %%\nreports = []\n")
    shared.save(_notebook(""), src, 1.0)
    assert shared.load(src) == (None, "axioms.claims.json missing")
    shared.side_file("axioms").write_text("{}")
    assert shared.load(src)[0] is not None
