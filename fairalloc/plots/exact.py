"""Figures of exact allocations: tasks on servers, and TV-TSF schedules over time slots.

Every function draws on a new :class:`matplotlib.figure.Figure` (no pyplot state) and returns it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import shares
from ._figure import subplots

__all__ = ["task_allocation", "tvtsf_schedule"]


def task_allocation(result: Any, instance: Any, *, resource: int | None = None):
    """Stacked bars: each server's capacity used by each user (fraction of the server).

    ``resource`` None shows, per user and server, the share of the server's *bottleneck* resource
    (the largest fraction the user's tasks take of any resource there). Works for the one-shot
    ``result.tasks`` (n_agents, n_servers) of :func:`fairalloc.exact.tasks_leximin` and
    :func:`fairalloc.tsf`.

    Parameters
    ----------
    result : AllocationResult
        With ``tasks`` (n_agents, n_servers), ``shares``, ``mechanism``, ``method``.
    instance : TaskInstance
        The instance solved.
    resource : int, optional
        A resource index to show instead of the bottleneck.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the stacked bars and the values maximised per user.

    Examples
    --------
    The DRF paper's example (two users, one server) solved exactly:

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[10, 10])
    >>> fig = task_allocation(fa.exact.tasks_leximin(ti, solver="highs"), ti)
    >>> len(fig.axes)
    2
    """
    tasks = np.asarray(result.tasks, dtype=float)
    caps = instance.cluster.capacities
    d = instance.task_demands
    use = tasks[:, :, None] * d[:, None, :] / np.where(caps > 0, caps, np.inf)[None, :, :]   # (N, M, K)
    frac = use.max(axis=2) if resource is None else use[:, :, resource]
    fig, (ax, ax2) = subplots((max(6.0, 0.5 * instance.n_servers + 3), 4.5), 1, 2, width_ratios=[3, 1])
    bottom = np.zeros(instance.n_servers)
    names = getattr(instance, "agent_names", [f"user{i}" for i in range(instance.n_agents)])
    for i in range(instance.n_agents):
        ax.bar(np.arange(instance.n_servers), frac[i], bottom=bottom, label=names[i])
        bottom += frac[i]
    ax.set_xticks(np.arange(instance.n_servers), instance.cluster.server_names, rotation=90)
    ax.set_ylabel("fraction of the server" + (" (bottleneck resource)" if resource is None else
                                              f" ({instance.cluster.resource_names[resource]})"))
    ax.set_title(f"{result.mechanism} / {result.method}: tasks on servers")
    ax.legend(fontsize="small", ncols=2)
    ax2.barh(np.arange(instance.n_agents), result.shares)
    ax2.set_yticks(np.arange(instance.n_agents), names)
    ax2.invert_yaxis()
    ax2.set_xlabel("maximised value")
    return fig


def tvtsf_schedule(result: Any, instance: Any):
    """Cumulative task shares per user over the slots (TV-TSF Eq. 3), and each server's load.

    Left: :math:`s_i(t)` for every user (``result.details["cumulative_shares"]``). Right: the
    dominant fraction of each server held by running tasks in each slot (a heat map).

    Parameters
    ----------
    result : AllocationResult
        Of :func:`fairalloc.tvtsf` (exact or greedy), with ``details["usage"]`` (M, K, T).
    instance : TimeVaryingInstance
        The instance solved.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes: the shares, the heat map and its colour bar.

    Examples
    --------
    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [1, 1]], durations=[1, 1])
    >>> fig = tvtsf_schedule(fa.tvtsf(tv, solver="highs"), tv)
    >>> len(fig.axes)
    3
    """
    det = result.details
    cum = det["cumulative_shares"] if "cumulative_shares" in det else shares.cumulative_task_shares(
        np.asarray(result.tasks).sum(axis=1), instance.monopoly, instance.weights)
    usage = np.asarray(det["usage"])                                   # (M, K, T)
    caps = instance.cluster.capacities
    load = (usage / np.where(caps > 0, caps, np.inf)[:, :, None]).max(axis=1)
    fig, (ax, ax2) = subplots((11.0, 4.5), 1, 2)
    slots = np.arange(instance.n_slots)
    for i, name in enumerate(instance.agent_names):
        ax.plot(slots, cum[i], marker="o", label=name)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("slot")
    ax.set_ylabel("cumulative task share $s_i(t)$")
    ax.set_title(f"TV-TSF ({result.method}, {result.status.value})")
    if instance.n_agents <= 12:
        ax.legend(fontsize="small", ncols=2)
    im = ax2.imshow(load, aspect="auto", origin="lower", vmin=0, vmax=1, cmap="viridis",
                    interpolation="nearest")
    ax2.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.set_xlabel("slot")
    if instance.n_servers <= 30:
        ax2.set_yticks(np.arange(instance.n_servers), instance.cluster.server_names)
    ax2.set_ylabel("server")
    ax2.set_title("server load (bottleneck resource)")
    fig.colorbar(im, ax=ax2, label="fraction held by running tasks")
    return fig
