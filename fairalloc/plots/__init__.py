"""Figures used by the notebooks and the command line (matplotlib, Agg-safe).

One module per area (``plots.sim``, ``plots.compare``, ``plots.exact``, ...; the
axiom-check figures are in ``proofs_check.plots``). Every function takes
data (results, tables), draws on a new Figure or a given ``ax``, and returns the Figure; nothing here
calls ``pyplot.show`` or leaves global pyplot state behind. (The design document names a single
``plots.py``; it is a package so that each area keeps its figures in a module of its own.)
:func:`save` writes a figure in the formats a command was asked for (``--format``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from . import compare, exact, learn, reproductions, scheduling, sim, tasks, whatif

__all__: list[str] = ["sim", "exact", "compare", "scheduling", "tasks", "reproductions", "learn", "whatif", "save", "DPI"]

#: Resolution of raster figures (dots per inch).
DPI = 150


def save(fig: Any, stem: str | Path, formats: Sequence[str] = ("png",), *, dpi: int = DPI) -> list[Path]:
    """Write ``fig`` as ``stem.png`` / ``stem.pdf`` / ``stem.svg`` and return the paths.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    stem : str or Path
        The path without its suffix.
    formats : sequence of str
        One file per format, in this order: ``"png"`` (raster), ``"pdf"``, ``"svg"`` (vector; the
        command line's ``--format`` offers these three), or any other format matplotlib writes.
    dpi : int, default :data:`DPI`
        Resolution of the png (pdf and svg are vector graphics).

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> _ = fig.subplots().plot([0, 1], [1, 0])
    >>> [p.name for p in save(fig, pathlib.Path(tempfile.mkdtemp()) / "line", ["png", "svg"])]
    ['line.png', 'line.svg']
    """
    paths = []
    for fmt in formats:
        path = Path(f"{stem}.{fmt}")
        fig.savefig(path, dpi=dpi if fmt == "png" else None, format=fmt)
        paths.append(path)
    return paths
