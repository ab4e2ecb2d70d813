"""Figures of the greedy task schedulers (convergence to the exact mechanism, ...).

Every function draws on a new Figure (or the given ``ax``) and returns the Figure; nothing calls
``pyplot.show`` or touches global pyplot state.
"""

from __future__ import annotations

from typing import Any

__all__ = ["convergence"]


def convergence(table: Any, *, ax: Any = None, value: str = "distance", title: str | None = None):
    """Distance to Eq. 5 against the number of tasks per user, one line per priority reading (log-log).

    ``table`` is the DataFrame of :func:`fairalloc.experiments.sdrf_convergence` (columns ``k``,
    ``priority`` and ``value``); with an ``instance`` column, one line per (instance, priority).
    A dotted line shows the 1/k rate of a one-task granularity.
    """
    import numpy as np
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=(5.5, 3.8), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
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
