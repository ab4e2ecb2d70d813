"""Figures of the paper reproductions (``fairalloc reproduce``), drawn like the papers' figures:
same quantities on the same axes and units. Each takes the tables of
:mod:`fairalloc.experiments.reproductions` and returns a new Figure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._figure import Figure, subplots

__all__ = ["sdrf_fig4", "sdrf_fig5", "sdrf_fig6", "tvtsf_cdfs", "tvtsf_load_axis", "buc_fig1", "buc_fig2", "learned_bars"]


def _k(delta: pd.Series) -> np.ndarray:
    """delta = 1 - 10^-k -> k."""
    return np.round(-np.log10(1.0 - delta.to_numpy(dtype=float)), 3)


def _delta_axis(ax, ks) -> None:
    ks = sorted(set(ks))
    ax.set_xticks(ks)
    ax.set_xticklabels([f"$1-10^{{-{k:g}}}$" for k in ks], rotation=30)
    ax.set_xlabel("δ (per second)")


def sdrf_fig4(reduction: pd.DataFrame) -> Figure:
    """SDRF Fig. 4: reduction of the users' mean waiting time against DRF (%) by δ, one line per pool.

    Parameters
    ----------
    reduction : pandas.DataFrame
        Columns ``pool_fraction``, ``delta`` (:math:`1 - 10^{-k}`), ``reduction`` (%), as
        :func:`fairalloc.experiments.reproductions.sdrf.wait_reduction` gives.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    Two pools and two δ: two lines, ticks labelled by k:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"pool_fraction": [0.5, 0.5, 1.0, 1.0], "delta": [1 - 1e-4, 1 - 1e-6] * 2,
    ...                   "reduction": [10.0, 20.0, 5.0, 8.0]})
    >>> ax = sdrf_fig4(t).axes[0]
    >>> [l.get_label() for l in ax.get_lines()][:2], [x.get_text() for x in ax.get_xticklabels()]
    (['50% of R', '100% of R'], ['$1-10^{-4}$', '$1-10^{-6}$'])
    """
    fig, ax = subplots((6, 4), layout="tight")
    for pf, g in reduction.groupby("pool_fraction"):
        g = g.sort_values("delta")
        ax.plot(_k(g["delta"]), g["reduction"], marker="o", label=f"{100 * pf:.0f}% of R")
    _delta_axis(ax, _k(reduction["delta"]))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("mean waiting time reduction vs DRF (%)")
    ax.legend(fontsize=8)
    return fig


def sdrf_fig5(ratio: pd.DataFrame) -> Figure:
    """SDRF Fig. 5: per user, completed-task ratio under SDRF against DRF; bubble size log(tasks).

    Parameters
    ----------
    ratio : pandas.DataFrame
        One row per user: ``submitted``, ``completed_ratio_drf``, ``completed_ratio_sdrf``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"submitted": [10, 1000], "completed_ratio_drf": [0.5, 0.9],
    ...                   "completed_ratio_sdrf": [0.8, 0.85]})
    >>> ax = sdrf_fig5(t).axes[0]
    >>> ax.get_xlabel(), len(ax.collections[0].get_offsets())
    ('completed-task ratio, DRF', 2)
    """
    fig, ax = subplots((5, 5), layout="tight")
    size = 10 * np.log10(ratio["submitted"].clip(lower=1)) + 5
    ax.scatter(ratio["completed_ratio_drf"], ratio["completed_ratio_sdrf"], s=size, alpha=0.5)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
    ax.set_xlabel("completed-task ratio, DRF")
    ax.set_ylabel("completed-task ratio, SDRF")
    return fig


def sdrf_fig6(events: pd.DataFrame) -> Figure:
    """SDRF Fig. 6: live-tree events per 1000 tasks by δ, one line per pool (log scale).

    Parameters
    ----------
    events : pandas.DataFrame
        Columns ``pool_fraction``, ``delta``, ``events_per_1000`` (values under 1e-3 drawn at 1e-3).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"pool_fraction": [0.5, 0.5], "delta": [1 - 1e-4, 1 - 1e-6],
    ...                   "events_per_1000": [3.0, 0.0]})
    >>> ax = sdrf_fig6(t).axes[0]
    >>> ax.get_yscale(), ax.get_lines()[0].get_ydata().tolist()
    ('log', [3.0, 0.001])
    """
    fig, ax = subplots((6, 4), layout="tight")
    for pf, g in events.groupby("pool_fraction"):
        g = g.sort_values("delta")
        ax.plot(_k(g["delta"]), g["events_per_1000"].clip(lower=1e-3), marker="o",
                label=f"{100 * pf:.0f}% of R")
    _delta_axis(ax, _k(events["delta"]))
    ax.set_yscale("log")
    ax.set_ylabel("live-tree events per 1000 tasks")
    ax.legend(fontsize=8)
    return fig


def tvtsf_cdfs(users: pd.DataFrame, metric: str, label: str) -> Figure:
    """TV-TSF Figs. 1-3: CDF over users of ``metric`` (slots), one panel per scenario, mean μ and
    variance σ in the legend.

    Parameters
    ----------
    users : pandas.DataFrame
        One row per (scenario, policy, user): ``scenario``, ``policy`` and the ``metric`` column.
    metric : str
        The column drawn (e.g. ``user_wait``).
    label : str
        Its name on the x axis.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per scenario, in order of first appearance.

    Examples
    --------
    One scenario, one policy, waits 1 and 3 slots: mean 2, variance 1:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"scenario": ["s1", "s1"], "policy": ["tvtsf", "tvtsf"], "user_wait": [1.0, 3.0]})
    >>> ax = tvtsf_cdfs(t, "user_wait", "user waiting time").axes[0]
    >>> ax.get_title(), ax.get_lines()[0].get_label()
    ('s1', 'tvtsf (μ=2.0, σ=1.0)')
    """
    scen = list(dict.fromkeys(users["scenario"]))
    fig, axes = subplots((4 * len(scen), 3.6), 1, len(scen), layout="tight", squeeze=False)
    axes = axes[0]
    for ax, sc in zip(axes, scen):
        for pol, g in users[users["scenario"] == sc].groupby("policy", sort=False):
            v = np.sort(g[metric].dropna().to_numpy())
            if not v.size:
                continue
            ax.step(v, np.arange(1, v.size + 1) / v.size, where="post",
                    label=f"{pol} (μ={v.mean():.1f}, σ={v.var():.1f})")
        ax.set_title(sc)
        ax.set_xlabel(f"{label} (slots)")
        ax.set_ylabel("CDF")
        ax.legend(fontsize=7)
    return fig


def tvtsf_load_axis(table: pd.DataFrame, labels: dict) -> Figure:
    """TV-TSF against load: per metric, the margin (the better Table 1 baseline minus TV-TSF, slots)
    against the offered memory load, one line per scenario (and window), with the paper's margin of
    each scenario as a dotted line of the same colour.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`fairalloc.experiments.reproductions.tvtsf_report.load_axis`: ``metric``, ``scenario``,
        ``n_jobs``, ``slots``, ``offered_memory``, ``margin``, ``paper_margin``.
    labels : dict
        Metric -> its name (one panel each, in this order).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    One scenario at two loads: the margin line and the paper's as a dotted line:

    >>> t = pd.DataFrame({"metric": "mean_queuing", "scenario": "large80", "n_jobs": 100, "slots": 150,
    ...                   "offered_memory": [1.3, 2.5], "margin": [4.0, 20.0], "paper_margin": 708.0})
    >>> ax = tvtsf_load_axis(t, {"mean_queuing": "task queuing time"}).axes[0]
    >>> [ln.get_label() for ln in ax.get_lines()][:2]
    ['large80 (100/150)', "large80: paper's margin"]
    """
    mets = [m for m in labels if m in set(table["metric"])]
    fig, axes = subplots((4.6 * len(mets), 3.8), 1, len(mets), layout="tight", squeeze=False)
    axes = axes[0]
    for ax, m in zip(axes, mets):
        t = table[table["metric"] == m]
        for k, ((sc, nj, sl), g) in enumerate(t.groupby(["scenario", "n_jobs", "slots"], sort=False)):
            g = g.sort_values("offered_memory")
            line, = ax.plot(g["offered_memory"], g["margin"], marker="o", label=f"{sc} ({nj}/{sl})")
            ax.axhline(float(g["paper_margin"].iloc[0]), color=line.get_color(), linestyle=":",
                       label=f"{sc}: paper's margin")
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_xlabel("offered memory load (x cluster)")
        ax.set_ylabel("margin (slots)")
        ax.set_title(labels[m])
    axes[0].legend(fontsize=7)
    return fig


def buc_fig1(changes: pd.DataFrame) -> Figure:
    """BUC Fig. 1: change of the injected users' mean wait under BUC against FCFS (%), per load, with
    the paper's bounds (down by up to 93% for the precise user, up by up to 20% for the imprecise one)
    as dashed lines.

    Parameters
    ----------
    changes : pandas.DataFrame
        Columns ``load``, ``injected`` (the injected user kind, ``""`` for the others), ``change``
        (%); the median over the remaining rows (seeds) is drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    Two seeds of one load: the bar is the median of -10 and -30, i.e. -20:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"load": [0.9, 0.9, 0.9], "injected": ["precise", "precise", ""],
    ...                   "change": [-10.0, -30.0, 5.0]})
    >>> [float(p.get_height()) for p in buc_fig1(t).axes[0].patches]
    [-20.0]
    """
    inj = changes[changes["injected"] != ""]
    t = inj.groupby(["load", "injected"])["change"].median().unstack("injected")
    fig, ax = subplots((6, 4), layout="tight")
    t.plot.bar(ax=ax)
    ax.axhline(0, color="grey", lw=0.8)
    for y, text in ((-93.0, "paper: -93% (P = 1)"), (20.0, "paper: +20% (P = 0)")):
        ax.axhline(y, color="black", lw=0.8, ls="--")
        ax.annotate(text, (0, y), xycoords=("axes fraction", "data"), fontsize=7, va="bottom")
    ax.set_ylabel("mean wait vs FCFS (%), seed median")
    ax.set_xlabel("offered load")
    return fig


def buc_fig2(gains: pd.DataFrame, paper: dict | None = None) -> Figure:
    """BUC Fig. 2: median queue-position gain at insertion (%) by S_u bucket (queues longer than 5).

    Parameters
    ----------
    gains : pandas.DataFrame
        One row per (bucket, load): ``bucket``, ``load``, ``median_gain`` (%).
    paper : dict, optional
        Bucket -> the paper's gain (%), drawn as black markers beside the bars.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"bucket": ["0-50", "50-100"], "load": [0.9, 0.9], "median_gain": [-5.0, 12.0]})
    >>> [float(p.get_height()) for p in buc_fig2(t).axes[0].patches]
    [-5.0, 12.0]
    """
    t = gains.pivot(index="bucket", columns="load", values="median_gain")
    fig, ax = subplots((6, 4), layout="tight")
    t.plot.bar(ax=ax)
    if paper:
        xs = [i for i, b in enumerate(t.index.astype(str)) if b in paper]
        ax.scatter(xs, [paper[str(t.index[i])] for i in xs], marker="_", s=600, color="black", zorder=3,
                   label="paper (K_p = 10800)")
        ax.legend(fontsize=8)
    ax.set_xlabel("S_u")
    ax.set_ylabel("median queue-position gain (%)")
    return fig


def learned_bars(runs: pd.DataFrame) -> Figure:
    """AVEbsld per policy (log scale), one group per trace kind, median over seeds.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run: ``kind``, ``policy``, ``avebsld``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    Three seeds of FCFS on one kind: the bar is their median, 20:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"kind": ["lublin"] * 3, "policy": ["fcfs"] * 3, "avebsld": [10.0, 20.0, 90.0]})
    >>> ax = learned_bars(t).axes[0]
    >>> [float(p.get_height()) for p in ax.patches], ax.get_yscale()
    ([20.0], 'log')
    """
    t = runs.groupby(["kind", "policy"])["avebsld"].median().unstack("policy")
    fig, ax = subplots((7, 4), layout="tight")
    t.plot.bar(ax=ax, logy=True)
    ax.set_ylabel("AVEbsld (τ = 10 s)")
    return fig
