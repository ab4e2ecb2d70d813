"""Figures of simulation results: wait-time CDF per policy, AVEbsld bars, utilisation over time."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["wait_cdf", "avebsld_bars", "utilization_over_time"]


def _results(results: Any) -> list[tuple[str, Any]]:
    if isinstance(results, Mapping):
        return list(results.items())
    if isinstance(results, Sequence):
        return [(r.policy, r) for r in results]
    return [(results.policy, results)]


def _axes(ax: Any, size: tuple[float, float]) -> tuple[Figure, Any]:
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def wait_cdf(results: Any, *, ax: Any = None, log: bool = True) -> Figure:
    """Empirical CDF of the waiting time of finished jobs, one line per policy.

    ``results``: a SimulationResult, a list of them, or a mapping label -> result.
    """
    fig, ax = _axes(ax, (6.4, 4.2))
    for label, r in _results(results):
        w = np.sort(r.finished["wait"].to_numpy())
        if w.size == 0:
            continue
        y = np.arange(1, w.size + 1) / w.size
        x = np.maximum(w, 1.0) if log else w
        ax.step(x, y, where="post", label=f"{label} (mean {w.mean():,.0f} s)")
    if log:
        ax.set_xscale("log")
    ax.set_xlabel("waiting time (s)" + (", values < 1 s drawn at 1 s" if log else ""))
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title("Waiting time CDF")
    return fig


def avebsld_bars(results: Any, *, ax: Any = None, log: bool = True) -> Figure:
    """AVEbsld (tau = 10 s) per policy as bars, value printed on each bar."""
    fig, ax = _axes(ax, (6.4, 3.8))
    items = _results(results)
    labels = [lab for lab, _ in items]
    vals = [r.avebsld for _, r in items]
    bars = ax.bar(labels, vals, color="tab:blue")
    for b, v in zip(bars, vals):
        ax.annotate(f"{v:,.1f}", (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom",
                    fontsize="small")
    if log and all(v > 0 for v in vals):
        ax.set_yscale("log")
    ax.set_ylabel("AVEbsld (tau = 10 s)")
    ax.set_title("Average bounded slowdown per policy (lower is better)")
    ax.tick_params(axis="x", rotation=30)
    return fig


def utilization_over_time(result: Any, *, ax: Any = None, unit: float = 86400.0) -> Figure:
    """Utilisation step function of one result (time in days by default)."""
    fig, ax = _axes(ax, (7.0, 3.2))
    u = result.utilization()
    ax.step(u["time"] / unit, u["utilization"], where="post", lw=0.8)
    ax.set_xlabel("time (days)" if unit == 86400.0 else f"time (x {unit:g} s)")
    ax.set_ylabel("utilisation")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Utilisation over time: {result.policy} (mean {result.mean_utilization():.2f})")
    return fig
