"""Figures of ``fairalloc compare``: what the greedy schedulers lose against the exact optimum.

Every function draws on a new Figure and returns it; nothing calls ``pyplot.show`` or touches global
pyplot state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._figure import Figure, subplots

__all__ = ["gaps"]


def _strip(ax: Any, table: Any, column: str, variants: list[str], rng: np.random.Generator) -> None:
    data = [table.loc[table["variant"] == v, column].dropna().to_numpy(float) for v in variants]
    ax.boxplot([d if d.size else [np.nan] for d in data], widths=0.5, showfliers=False)
    for k, d in enumerate(data, start=1):
        ax.scatter(k + rng.uniform(-0.15, 0.15, d.size), d, s=10, alpha=0.6, color="C1", zorder=3)
    ax.set_xticks(range(1, len(variants) + 1), variants, rotation=30, ha="right")
    ax.axhline(0.0, color="grey", lw=0.8, ls=":")


def gaps(table: Any, *, title: str | None = None) -> Figure:
    """Three panels from :func:`fairalloc.experiments.compare.compare`'s table: the min-share gap
    (exact - greedy), the leximin distance per variant (one dot per instance, box = quartiles), and
    the time of the greedy against the exact program (log-log).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`~fairalloc.experiments.compare.compare` (columns ``instance``, ``variant``,
        ``min_gap``, ``leximin_distance``, ``greedy_s``, ``exact_s``).
    title : str, optional
        Default: the number of instances.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    A hand-made table of two instances and one variant; the time panel has one scatter per variant:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"instance": ["a", "b"], "variant": ["drf", "drf"], "min_gap": [0.0, 0.2],
    ...                   "leximin_distance": [0.0, 0.4], "greedy_s": [0.001, 0.002], "exact_s": [0.01, 0.02]})
    >>> fig = gaps(t)
    >>> [ax.get_title() for ax in fig.axes], fig.get_suptitle()
    (['min-share gap', 'leximin distance', 'time'], 'Greedy schedulers vs the exact optimum (2 instances)')
    """
    fig, axes = subplots((13, 4.2), 1, 3)
    variants = list(dict.fromkeys(table["variant"]))
    rng = np.random.default_rng(0)                 # jitter only
    _strip(axes[0], table, "min_gap", variants, rng)
    axes[0].set_ylabel("exact min share - greedy min share")
    axes[0].set_title("min-share gap")
    _strip(axes[1], table, "leximin_distance", variants, rng)
    axes[1].set_ylabel("max |sorted greedy - sorted exact|")
    axes[1].set_title("leximin distance")
    ax = axes[2]
    for k, v in enumerate(variants):
        part = table[table["variant"] == v]
        ax.scatter(part["exact_s"] * 1e3, part["greedy_s"] * 1e3, s=12, label=v, color=f"C{k}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo = np.nanmin(np.r_[table["exact_s"], table["greedy_s"]]) * 1e3
    hi = np.nanmax(np.r_[table["exact_s"], table["greedy_s"]]) * 1e3
    if np.isfinite(lo) and np.isfinite(hi) and hi > 0:
        ax.plot([max(lo, 1e-3), hi], [max(lo, 1e-3), hi], color="grey", lw=0.8, ls=":")
    ax.set_xlabel("exact program, wall ms per call")
    ax.set_ylabel("greedy, wall ms per call")
    ax.set_title("time")
    ax.text(0.02, 0.98, "after an untimed warm-up:\nno compilation, no solver start", transform=ax.transAxes,
            va="top", fontsize="small", color="grey")
    ax.legend(fontsize="small")
    fig.suptitle(title or f"Greedy schedulers vs the exact optimum ({table['instance'].nunique()} instances)")
    return fig
