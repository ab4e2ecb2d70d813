"""The one figure set-up of :mod:`fairalloc.plots`: a new Figure and its axes, and saving it.

Every figure of this package, and the axiom checks' figures, is made by :func:`subplots` and written by
:func:`save`; no module builds a :class:`~matplotlib.figure.Figure`, picks a layout engine or calls
``savefig`` itself. Figures are made without pyplot (no backend is selected, nothing is registered in
pyplot's figure manager, so nothing needs closing: a figure is freed with its last reference) and are
rendered by the Agg canvas when saved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from matplotlib.figure import Figure

__all__ = ["Figure", "DPI", "subplots", "save"]

#: Resolution of raster figures (dots per inch).
DPI = 150


def subplots(size: tuple[float, float], nrows: int = 1, ncols: int = 1, *, ax: Any = None,
             layout: str | None = "constrained", **kwargs: Any) -> tuple[Figure, Any]:
    """A new Figure of ``size`` inches and its grid of axes, or the given ``ax`` and its Figure.

    Parameters
    ----------
    size : (float, float)
        Width and height in inches.
    nrows, ncols : int, default 1
        The grid, as :meth:`matplotlib.figure.Figure.subplots`.
    ax : matplotlib.axes.Axes, optional
        Draw there instead: returns ``(ax.figure, ax)`` (``size`` and ``layout`` are then unused;
        ``nrows``, ``ncols`` must be 1).
    layout : {"constrained", "tight", None}, default "constrained"
        The Figure's layout engine, applied whenever it is drawn (so labels set after this call are
        laid out too); None places the axes at matplotlib's default margins.
    **kwargs
        Passed to :meth:`~matplotlib.figure.Figure.subplots` (``squeeze``, ``sharex``, ``width_ratios``, ...).

    Returns
    -------
    (Figure, Axes or ndarray of Axes)

    Raises
    ------
    ValueError
        ``ax`` given with a grid larger than one axes.

    Examples
    --------
    >>> fig, axes = subplots((8, 3), 1, 2)
    >>> [float(v) for v in fig.get_size_inches()], len(axes), fig.get_layout_engine().__class__.__name__
    ([8.0, 3.0], 2, 'ConstrainedLayoutEngine')
    >>> subplots((1, 1), ax=axes[0]) == (fig, axes[0])
    True
    """
    if ax is not None:
        if (nrows, ncols) != (1, 1):
            raise ValueError(f"ax is given: nrows={nrows}, ncols={ncols} must be 1")
        return ax.figure, ax
    fig = Figure(figsize=size, layout=layout)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def save(fig: Any, stem: str | Path, formats: Sequence[str] = ("png",), *, dpi: int = DPI,
         tight: bool = False) -> list[Path]:
    """Write ``fig`` as ``stem.png`` / ``stem.pdf`` / ``stem.svg`` and return the paths.

    Each file is written under a temporary name beside it and renamed when complete, so an error or an
    interrupt never leaves a truncated figure under the final name.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    stem : str or Path
        The path without its suffix.
    formats : sequence of str
        One file per format, in this order: ``"png"`` (raster), ``"pdf"``, ``"svg"`` (vector; the
        command line's ``--format`` offers these three, :data:`fairalloc.formats.FIGURE_FORMATS`), or any
        other format matplotlib writes.
    dpi : int, default :data:`DPI`
        Resolution of the png (pdf and svg are vector graphics).
    tight : bool, default False
        Crop the page to the drawn artists (``bbox_inches="tight"``), for a figure without a layout engine.

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig, ax = subplots((4, 3))
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> [p.name for p in save(fig, pathlib.Path(tempfile.mkdtemp()) / "line", ["png", "svg"])]
    ['line.png', 'line.svg']
    """
    paths = []
    for fmt in formats:
        path = Path(f"{stem}.{fmt}")
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            fig.savefig(tmp, dpi=dpi if fmt == "png" else None, format=fmt,
                        bbox_inches="tight" if tight else None)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        paths.append(path)
    return paths
