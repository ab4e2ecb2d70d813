"""The one figure set-up of ``fairalloc.plots`` (``plots/_figure.py``): every figure is made by
``subplots`` and written by ``save``; ``save`` writes each requested format, at the asked resolution,
and never leaves a partial file."""

from __future__ import annotations

import ast
import struct
from pathlib import Path

import pytest

from fairalloc.plots import save, subplots

ROOT = Path(__file__).resolve().parents[2]
FIGURE_MODULES = sorted((ROOT / "fairalloc" / "plots").glob("*.py")) + [ROOT / "proofs_check" / "plots.py"]
#: calls only plots/_figure.py may make: a Figure built by hand, a layout or a save
SET_UP_CALLS = {"Figure", "savefig", "tight_layout", "set_layout_engine", "subplots_adjust"}


def _set_up(path: Path) -> list[str]:
    """Calls of SET_UP_CALLS and imports of pyplot in ``path``'s code (docstrings and examples aside)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in SET_UP_CALLS:
                out.append(f"{path.name}:{node.lineno}: {name}(...)")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
            if any(n and "pyplot" in n for n in names):
                out.append(f"{path.name}:{node.lineno}: imports pyplot")
    return out


@pytest.mark.parametrize("path", FIGURE_MODULES, ids=lambda p: p.name)
def test_only_the_helper_sets_figures_up(path):
    bad = [] if path.name == "_figure.py" else _set_up(path)
    assert not bad, "use fairalloc.plots.subplots / save:\n" + "\n".join(bad)


def test_the_check_sees_a_hand_made_figure(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("from matplotlib.figure import Figure\nimport matplotlib.pyplot as plt\n"
                 "def f():\n    fig = Figure(figsize=(1, 1))\n    fig.savefig('x.png')\n")
    assert _set_up(p) == ["m.py:2: imports pyplot", "m.py:4: Figure(...)", "m.py:5: savefig(...)"]


def test_save_writes_each_format(tmp_path):
    fig, ax = subplots((4.0, 3.0))
    ax.plot([0, 1], [1, 0])
    paths = save(fig, tmp_path / "line", ["png", "pdf", "svg"], dpi=50)
    assert [p.name for p in paths] == ["line.png", "line.pdf", "line.svg"]
    png, pdf, svg = (p.read_bytes() for p in paths)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"                       # PNG signature (RFC 2083)
    assert struct.unpack(">II", png[16:24]) == (200, 150)        # IHDR width, height: 4 x 3 in at 50 dpi
    assert pdf[:5] == b"%PDF-"
    assert b"<svg" in svg[:1000]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["line.pdf", "line.png", "line.svg"]


def test_save_leaves_no_partial_file(tmp_path):
    fig, _ = subplots((2.0, 2.0))
    with pytest.raises(ValueError):
        save(fig, tmp_path / "x", ["png", "no-such-format"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png"]   # the first written whole; no temporary left


def test_subplots_grid_and_given_axes():
    fig, axes = subplots((6.0, 2.0), 1, 3, layout="tight")
    assert axes.shape == (3,) and type(fig.get_layout_engine()).__name__ == "TightLayoutEngine"
    assert subplots((1.0, 1.0), ax=axes[1]) == (fig, axes[1])
    with pytest.raises(ValueError, match="ax is given"):
        subplots((1.0, 1.0), 2, 1, ax=axes[0])
