"""Figures of simulation results: wait-time CDF per policy, AVEbsld bars, utilisation over time."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ._figure import Figure, subplots

__all__ = ["wait_cdf", "avebsld_bars", "utilization_over_time"]


def _results(results: Any) -> list[tuple[str, Any]]:
    if isinstance(results, Mapping):
        return list(results.items())
    if isinstance(results, Sequence):
        return [(r.policy, r) for r in results]
    return [(results.policy, results)]


def wait_cdf(results: Any, *, ax: Any = None, log: bool = True) -> Figure:
    """Empirical CDF of the waiting time of finished jobs, one line per policy.

    Parameters
    ----------
    results : SimulationResult, list of them, or mapping label -> result
        A list labels each line by its ``policy``.
    ax : matplotlib.axes.Axes, optional
        Draw there instead of on a new Figure.
    log : bool, default True
        Log-scaled time axis (waits under 1 s drawn at 1 s).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    The jobs of :func:`~fairalloc.simulate`'s example wait 0, 10, 9 s under FCFS (mean 6.33) and 0,
    10, 0 under EASY (job 2 backfills; mean 3.33):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> runs = {p: fa.simulate(wl, 4, policy=p) for p in ("fcfs", "easy")}
    >>> [line.get_label() for line in wait_cdf(runs).axes[0].get_lines()]
    ['fcfs (mean 6 s)', 'easy (mean 3 s)']
    """
    fig, ax = subplots((6.4, 4.2), ax=ax)
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
    """AVEbsld (tau = 10 s) per policy as bars, value printed on each bar.

    Parameters
    ----------
    results : SimulationResult, list of them, or mapping label -> result
    ax : matplotlib.axes.Axes, optional
    log : bool, default True
        Log-scaled bars when every value is positive.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    FCFS: bounded slowdowns 1, 1.5, 1.4 (mean 1.3, :class:`~fairalloc.sim.SimulationResult`'s
    example); EASY: 1, 1.5, 0.5 -> 1 (mean 1.17):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> runs = {p: fa.simulate(wl, 4, policy=p) for p in ("fcfs", "easy")}
    >>> ax = avebsld_bars(runs).axes[0]
    >>> [t.get_text() for t in ax.texts]
    ['1.3', '1.2']
    """
    fig, ax = subplots((6.4, 3.8), ax=ax)
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
    """Utilisation step function of one result (time in days by default).

    Parameters
    ----------
    result : SimulationResult
        A rigid-job simulation.
    ax : matplotlib.axes.Axes, optional
    unit : float, default 86400.0
        Seconds per unit of the time axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    FCFS's mean utilisation in :func:`~fairalloc.simulate`'s example is (3*10 + 2*5 + 1*5) /
    (4*15) = 0.75:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> runs = {p: fa.simulate(wl, 4, policy=p) for p in ("fcfs", "easy")}
    >>> utilization_over_time(runs["fcfs"], unit=1.0).axes[0].get_title()
    'Utilisation over time: fcfs (mean 0.75)'
    """
    fig, ax = subplots((7.0, 3.2), ax=ax)
    u = result.utilization()
    ax.step(u["time"] / unit, u["utilization"], where="post", lw=0.8)
    ax.set_xlabel("time (days)" if unit == 86400.0 else f"time (x {unit:g} s)")
    ax.set_ylabel("utilisation")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Utilisation over time: {result.policy} (mean {result.mean_utilization():.2f})")
    return fig
