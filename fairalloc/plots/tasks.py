"""Figures of task-scheduler simulations: the TV-TSF paper's time CDFs, SDRF's Fig. 5, utilisation.

Every function takes :class:`~fairalloc.sim.SimulationResult` s of task simulations (metrics from
:mod:`fairalloc.sim.task_metrics`), draws on a new Figure and returns it; nothing calls
``pyplot.show`` or touches global pyplot state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._figure import Figure, subplots
from .sim import _results

__all__ = ["time_cdfs", "completed_ratio", "resource_utilization"]




def time_cdfs(results: Any, *, unit: str = "s") -> Figure:
    """Empirical CDFs of user waiting time, task queuing time and job completion time, one line per
    policy, with the mean and variance in the legend (TV-TSF paper, Section 3's figures).

    Parameters
    ----------
    results : SimulationResult, list of them, or mapping label -> result
        Task simulations.
    unit : str, default "s"
        Time unit written on the axes.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    The workload of :func:`fairalloc.sim.task_metrics.user_waiting_times` under DRF: user waits 0
    and 4 (mean 2, variance 4):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> fig = time_cdfs({"drf": fa.simulate(wl, [1.0], policy="drf")})
    >>> [ax.get_title() for ax in fig.axes], fig.axes[0].get_lines()[0].get_label()
    (['user waiting time', 'task queuing time', 'job completion time'], 'drf (μ 2, σ² 4)')
    """
    from ..sim import task_metrics as tm

    fig, axes = subplots((13, 3.8), 1, 3)
    getters = [("user waiting time", lambda r: tm.user_waiting_times(r).to_numpy()),
               ("task queuing time", tm.task_queuing_times),
               ("job completion time", lambda r: tm.job_completion_times(r).to_numpy())]
    for ax, (title, get) in zip(axes, getters):
        for label, r in _results(results):
            v = np.sort(np.asarray(get(r), dtype=float))
            v = v[~np.isnan(v)]
            if not v.size:
                continue
            ax.step(v, np.arange(1, v.size + 1) / v.size, where="post",
                    label=f"{label} (μ {v.mean():,.3g}, σ² {v.var():,.3g})")
        ax.set_xlabel(f"{title} ({unit})")
        ax.set_ylabel("fraction")
        ax.set_title(title)
        ax.legend(fontsize="x-small")
    return fig


def completed_ratio(result: Any, baseline: Any, *, horizon: float | None = None) -> Figure:
    """Per user, tasks completed by the horizon under ``result`` over those under ``baseline``
    (SDRF paper Fig. 5: SDRF against DRF), bubble area growing with the log of tasks submitted.
    Users with nothing completed under the baseline are left out (the ratio is undefined).

    Parameters
    ----------
    result, baseline : SimulationResult
        Task simulations of the same workload.
    horizon : float, optional
        As :func:`fairalloc.sim.task_metrics.completed_tasks`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    The workload of :func:`fairalloc.sim.task_metrics.user_waiting_times`, by t = 6: with
    ``ties="wait"`` user 0 completes 1 task and user 1 1; with ``ties="index"`` user 0 runs 5..6
    (2 tasks) and user 1 starts at 6 (0 done), so user 1 drops out and user 0's ratio is 1/2:

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> r, b = (fa.simulate(wl, [1.0], policy="drf", ties=t) for t in ("wait", "index"))
    >>> completed_ratio(r, b, horizon=6).axes[0].get_title()
    '1 of 1 users complete fewer tasks under drf'
    """
    from ..sim import task_metrics as tm

    a = tm.completed_tasks(result, horizon=horizon)
    b = tm.completed_tasks(baseline, horizon=horizon)
    both = a.add_suffix("_r").join(b.add_suffix("_b"), how="inner")
    both = both[both["completed_b"] > 0]
    ratio = both["completed_r"] / both["completed_b"]
    fig, ax = subplots((6.4, 4.2))
    size = 10 + 20 * np.log10(1 + both["submitted_r"].to_numpy())
    ax.scatter(both.index, ratio, s=size, alpha=0.5)
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    worse = int((ratio < 1 - 1e-12).sum())
    ax.set_xlabel("user")
    ax.set_ylabel(f"completed tasks, {result.policy} / {baseline.policy}")
    ax.set_title(f"{worse} of {len(ratio)} users complete fewer tasks under {result.policy}")
    return fig


def resource_utilization(result: Any) -> Figure:
    """Fraction of every resource in use over time (a step line per resource).

    Parameters
    ----------
    result : SimulationResult
        A task simulation.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    One line per resource of the pool (here one, named ``r0``):

    >>> import fairalloc as fa
    >>> wl = fa.workloads.Workload(submit=[0, 2, 1], run_time=[5, 1, 1], tasks=[1, 1, 1], user=[0, 0, 1],
    ...                            resources=[[1.0], [1.0], [1.0]])
    >>> ax = resource_utilization(fa.simulate(wl, [1.0], policy="drf")).axes[0]
    >>> [line.get_label() for line in ax.get_lines()], ax.get_title()
    (['r0'], 'utilisation under drf')
    """
    u = result.resource_utilization()
    fig, ax = subplots((6.4, 3.6))
    for name in result.resource_names:
        ax.step(u["time"], u[name], where="post", label=name)
    ax.set_xlabel("time")
    ax.set_ylabel("fraction in use")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"utilisation under {result.policy}")
    ax.legend(fontsize="small")
    return fig
