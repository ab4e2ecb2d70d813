"""Figures of a what-if comparison (:mod:`fairalloc.experiments.whatif`): delivered against entitled
share per account over time, wait CDFs per policy and setting, a summary table.

Every function takes the tables of :func:`~fairalloc.experiments.whatif.whatif_tables`, draws on a new
Figure and returns it; nothing calls ``pyplot.show`` or touches global pyplot state.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._figure import Figure, subplots

__all__ = ["cell_names", "shares_over_time", "wait_cdfs", "summary_table"]

#: Summary columns drawn by :func:`summary_table` (those present).
SUMMARY_COLUMNS = ("mean_wait", "median_wait", "p95_wait", "mean_bsld", "jain_user", "gap_user", "jain_account",
                   "gap_account")


def cell_names(table: pd.DataFrame) -> pd.Series:
    """A readable name per row: the label, then the half-life (``sdrf t1/2=1d``) and weights when set.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows with ``label`` and, optionally, ``half_life`` (seconds) and ``weights``.

    Returns
    -------
    pandas.Series of str

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"label": ["fcfs", "sdrf", "sdrf"], "half_life": [float("nan"), 3600.0, 86400.0],
    ...                   "weights": [None, "equal", "shares"]})
    >>> cell_names(t).tolist()
    ['fcfs', 'sdrf t1/2=1h', 'sdrf t1/2=1d w=shares']
    """
    def one(row: Any) -> str:
        name = str(row["label"])
        hl = row.get("half_life")
        if hl is not None and not (isinstance(hl, float) and math.isnan(hl)):
            name += f" t1/2={_duration(float(hl))}"
        w = row.get("weights")
        if isinstance(w, str) and w != "equal":
            name += f" w={w}"
        return name
    return table.apply(one, axis=1)


def _duration(s: float) -> str:
    for unit, size in (("w", 604800.0), ("d", 86400.0), ("h", 3600.0), ("m", 60.0)):
        if s >= size and float(s / size).is_integer():
            return f"{int(s / size)}{unit}"
    return f"{s:g}s"


def shares_over_time(windows: pd.DataFrame, *, level: str = "account", top: int = 6,
                     cells: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """One panel per policy/setting: each entity's delivered share (solid) against its entitled share
    among the active entities (dashed), per window.

    Parameters
    ----------
    windows : pandas.DataFrame
        The ``windows`` table (columns ``key``, ``label``, ``level``, ``entity``, ``window``, ``start``,
        ``delivered``, ``entitled_active``; optional ``half_life``, ``weights``).
    level : {"account", "user"}
        ``"account"`` shows the top-level accounts (a flat tree has none: users are shown instead).
    top : int, default 6
        Entities drawn: those with the most usage over all cells.
    cells : sequence of str, optional
        Cell names (:func:`cell_names`) to draw; default all (at most 9).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> w = pd.DataFrame({"label": "fcfs", "level": "user", "entity": ["a", "b"] * 2, "account": ["a", "b"] * 2,
    ...                   "window": [0, 0, 1, 1], "start": [0, 0, 10, 10], "end": [10, 10, 20, 20],
    ...                   "delivered": [.7, .3, .5, .5], "entitled_active": [.5] * 4, "usage": [7, 3, 5, 5]})
    >>> len(shares_over_time(w).axes)
    1
    """
    w = windows.copy()
    w["cell"] = cell_names(w)
    part = w[w["level"] == level]
    if level == "account":
        part = part[part["entity"] == part["account"]]
    if part.empty:
        part = w[w["level"] == "user"]
        level = "user"
    keep = part.groupby("entity")["usage"].sum().sort_values(ascending=False).index[:top]
    part = part[part["entity"].isin(keep)]
    names = list(dict.fromkeys(part["cell"])) if cells is None else list(cells)
    names = names[:9]
    ncol = min(3, len(names))
    nrow = math.ceil(len(names) / ncol)
    fig, axes = subplots((4.2 * ncol, 3.0 * nrow + 0.4), nrow, ncol, sharex=True, sharey=True, squeeze=False)
    axes = axes.ravel()
    colors = {e: f"C{k % 10}" for k, e in enumerate(keep)}
    t0 = float(part["start"].min()) if len(part) else 0.0
    scale, unit = (86400.0, "days") if float(part["start"].max() - t0 if len(part) else 0) > 3 * 86400 else (3600.0, "hours")
    for ax, name in zip(axes, names):
        c = part[part["cell"] == name]
        for e, g in c.groupby("entity", sort=False):
            g = g.sort_values("window")
            x = (np.append(g["start"].to_numpy(float), g["end"].to_numpy(float)[-1]) - t0) / scale
            d, a = g["delivered"].to_numpy(float), g["entitled_active"].to_numpy(float)
            ax.step(x, np.append(d, d[-1]), where="post", color=colors[e], lw=1.6, label=f"{e} delivered")
            ax.step(x, np.append(a, a[-1]), where="post", color=colors[e], lw=1.0, ls="--")
        ax.set_title(name, fontsize=9)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    for ax in axes[len(names):]:
        ax.set_visible(False)
    for ax in axes[::ncol]:
        ax.set_ylabel("share")
    for ax in axes[-ncol:]:
        ax.set_xlabel(f"window start ({unit})")
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, [lab.replace(" delivered", "") for lab in labels], loc="outside right upper",
                   fontsize=8, title=f"{level} (solid: delivered,\ndashed: entitled among active)", title_fontsize=8)
    fig.suptitle(title or f"Delivered against entitled share per {level}", fontsize=10)
    return fig


def wait_cdfs(jobs: pd.DataFrame, *, title: str | None = None, log: bool = True) -> Figure:
    """Empirical CDF of the job wait per policy/setting (the ``jobs`` table; waits of 0 drawn at the
    left edge of a log axis).

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows with ``label`` (and ``half_life``, ``weights``) and ``wait`` (seconds).
    title : str, optional
    log : bool, default True
        Log-scaled wait axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"label": ["fcfs"] * 3 + ["easy"] * 3, "wait": [0, 10, 100, 0, 0, 50]})
    >>> [line.get_label() for line in wait_cdfs(j).axes[0].get_lines()]
    ['fcfs', 'easy']
    """
    j = jobs.copy()
    j["cell"] = cell_names(j)
    fig, ax = subplots((6.4, 4.2))
    floor = 1.0
    for k, (name, g) in enumerate(j.groupby("cell", sort=False)):
        w = np.sort(g["wait"].to_numpy(float))
        y = np.arange(1, w.size + 1) / max(w.size, 1)
        ax.step(np.maximum(w, floor) if log else w, y, where="post", label=name, color=f"C{k % 10}",
                ls="-" if k < 10 else "--")
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("wait (s)" + (", log scale (0 drawn at 1 s)" if log else ""))
    ax.set_ylabel("fraction of jobs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "Wait CDF per policy", fontsize=10)
    return fig


def summary_table(summary: pd.DataFrame, *, title: str | None = None) -> Figure:
    """The summary as a table figure: one row per policy/setting, waits, AVEbsld, Jain, gaps.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`~fairalloc.experiments.whatif.whatif`'s summary (the columns of
        :data:`SUMMARY_COLUMNS` that are present are drawn).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> fig = summary_table(pd.DataFrame({"label": ["fcfs", "easy"], "mean_wait": [7.25, 2.75]}))
    >>> fig.axes[0].get_title()
    'What-if summary'
    """
    s = summary.copy()
    cols = [c for c in SUMMARY_COLUMNS if c in s.columns]
    body = [[_fmt(v) for v in row] for row in s[cols].to_numpy()]
    names = cell_names(s).tolist()
    fig, ax = subplots((1.3 * len(cols) + 2.2, 0.32 * len(s) + 0.9))
    ax.axis("off")
    tab = ax.table(cellText=body, rowLabels=names, colLabels=cols, loc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    ax.set_title(title or "What-if summary", fontsize=10)
    return fig


def _fmt(v: Any) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "NaN" if math.isnan(x) else f"{x:,.4g}"
