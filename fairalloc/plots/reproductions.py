"""Figures of the paper reproductions (``fairalloc reproduce``), drawn like the papers' figures:
same quantities on the same axes and units. Each takes the tables of
:mod:`fairalloc.experiments.reproductions` and returns a new Figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["sdrf_fig4", "sdrf_fig5", "sdrf_fig6", "tvtsf_cdfs", "buc_fig1", "buc_fig2", "learned_bars"]


def _k(delta: pd.Series) -> np.ndarray:
    """delta = 1 - 10^-k -> k."""
    return np.round(-np.log10(1.0 - delta.to_numpy(dtype=float)), 3)


def _delta_axis(ax, ks) -> None:
    ks = sorted(set(ks))
    ax.set_xticks(ks)
    ax.set_xticklabels([f"$1-10^{{-{k:g}}}$" for k in ks], rotation=30)
    ax.set_xlabel("δ (per second)")


def sdrf_fig4(reduction: pd.DataFrame) -> Figure:
    """SDRF Fig. 4: reduction of the users' mean waiting time against DRF (%) by δ, one line per pool."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for pf, g in reduction.groupby("pool_fraction"):
        g = g.sort_values("delta")
        ax.plot(_k(g["delta"]), g["reduction"], marker="o", label=f"{100 * pf:.0f}% of R")
    _delta_axis(ax, _k(reduction["delta"]))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("mean waiting time reduction vs DRF (%)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def sdrf_fig5(ratio: pd.DataFrame) -> Figure:
    """SDRF Fig. 5: per user, completed-task ratio under SDRF against DRF; bubble size log(tasks)."""
    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
    size = 10 * np.log10(ratio["submitted"].clip(lower=1)) + 5
    ax.scatter(ratio["completed_ratio_drf"], ratio["completed_ratio_sdrf"], s=size, alpha=0.5)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
    ax.set_xlabel("completed-task ratio, DRF")
    ax.set_ylabel("completed-task ratio, SDRF")
    fig.tight_layout()
    return fig


def sdrf_fig6(events: pd.DataFrame) -> Figure:
    """SDRF Fig. 6: live-tree events per 1000 tasks by δ, one line per pool (log scale)."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for pf, g in events.groupby("pool_fraction"):
        g = g.sort_values("delta")
        ax.plot(_k(g["delta"]), g["events_per_1000"].clip(lower=1e-3), marker="o",
                label=f"{100 * pf:.0f}% of R")
    _delta_axis(ax, _k(events["delta"]))
    ax.set_yscale("log")
    ax.set_ylabel("live-tree events per 1000 tasks")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def tvtsf_cdfs(users: pd.DataFrame, metric: str, label: str) -> Figure:
    """TV-TSF Figs. 1-3: CDF over users of ``metric`` (slots), one panel per scenario, mean μ and
    variance σ in the legend."""
    scen = list(dict.fromkeys(users["scenario"]))
    fig = Figure(figsize=(4 * len(scen), 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(scen)))
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
    fig.tight_layout()
    return fig


def buc_fig1(changes: pd.DataFrame) -> Figure:
    """BUC Fig. 1: change of the injected users' mean wait under BUC against FCFS (%), per load, with
    the paper's bounds (down by up to 93% for the precise user, up by up to 20% for the imprecise one)
    as dashed lines."""
    inj = changes[changes["injected"] != ""]
    t = inj.groupby(["load", "injected"])["change"].median().unstack("injected")
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    t.plot.bar(ax=ax)
    ax.axhline(0, color="grey", lw=0.8)
    for y, text in ((-93.0, "paper: -93% (P = 1)"), (20.0, "paper: +20% (P = 0)")):
        ax.axhline(y, color="black", lw=0.8, ls="--")
        ax.annotate(text, (0, y), xycoords=("axes fraction", "data"), fontsize=7, va="bottom")
    ax.set_ylabel("mean wait vs FCFS (%), seed median")
    ax.set_xlabel("offered load")
    fig.tight_layout()
    return fig


def buc_fig2(gains: pd.DataFrame, paper: dict | None = None) -> Figure:
    """BUC Fig. 2: median queue-position gain at insertion (%) by S_u bucket (queues longer than 5);
    ``paper`` (bucket -> %) is drawn as black markers beside the bars."""
    t = gains.pivot(index="bucket", columns="load", values="median_gain")
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    t.plot.bar(ax=ax)
    if paper:
        xs = [i for i, b in enumerate(t.index.astype(str)) if b in paper]
        ax.scatter(xs, [paper[str(t.index[i])] for i in xs], marker="_", s=600, color="black", zorder=3,
                   label="paper (K_p = 10800)")
        ax.legend(fontsize=8)
    ax.set_xlabel("S_u")
    ax.set_ylabel("median queue-position gain (%)")
    fig.tight_layout()
    return fig


def learned_bars(runs: pd.DataFrame) -> Figure:
    """AVEbsld per policy (log scale), one group per trace kind, median over seeds."""
    t = runs.groupby(["kind", "policy"])["avebsld"].median().unstack("policy")
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    t.plot.bar(ax=ax, logy=True)
    ax.set_ylabel("AVEbsld (τ = 10 s)")
    fig.tight_layout()
    return fig
