"""Figures of the greedy task schedulers (convergence to the exact mechanism, ...).

Every function draws on a new Figure (or the given ``ax``) and returns the Figure; nothing calls
``pyplot.show`` or touches global pyplot state.
"""

from __future__ import annotations

from typing import Any

from ._figure import subplots

__all__ = ["convergence"]


def convergence(table: Any, *, ax: Any = None, value: str = "distance", title: str | None = None):
    """Distance to Eq. 5 against the number of tasks per user, one line per priority reading (log-log).

    ``table`` is the DataFrame of :func:`fairalloc.experiments.sdrf_convergence` (columns ``k``,
    ``priority`` and ``value``); with an ``instance`` column, one line per (instance, priority).
    A dotted line shows the 1/k rate of a one-task granularity.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``k``, ``priority``, ``value`` (and optionally ``instance``).
    ax : matplotlib.axes.Axes, optional
        Draw there instead of on a new Figure.
    value : str, default "distance"
        The column plotted (values below 1e-16 drawn at 1e-16 on the log scale).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    Two priority readings at k = 1, 10, 100: two lines plus the 1/k reference:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"k": [1, 10, 100] * 2, "priority": ["level"] * 3 + ["printed"] * 3,
    ...                   "distance": [0.5, 0.05, 0.005, 0.5, 0.1, 0.1]})
    >>> ax = convergence(t).axes[0]
    >>> [line.get_label() for line in ax.get_lines()], ax.get_xscale()
    (['level', 'printed', '1/k'], 'log')
    """
    import numpy as np

    fig, ax = subplots((5.5, 3.8), ax=ax)
    groups = ["instance", "priority"] if "instance" in table.columns else ["priority"]
    for key, part in table.dropna(subset=[value]).groupby(groups, sort=True):
        label = " / ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        part = part.sort_values("k")
        ax.plot(part["k"], np.maximum(part[value], 1e-16), marker="o", ms=3, label=label)
    ks = np.sort(table["k"].unique())
    if len(ks):
        ax.plot(ks, 1.0 / ks, ls=":", color="grey", label="1/k")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tasks per user k")
    ax.set_ylabel(f"{value} to Eq. 5 (fraction of capacity)")
    ax.set_title(title or "Greedy SDRF (Algorithm 1) vs Eq. 5 water-filling")
    ax.legend(fontsize="small")
    return fig
