"""Figures of axiom checks: expected versus found verdicts (``fairalloc check --all``, the axioms
notebook) and time-varying start schedules (witnesses).

They live here, not in :mod:`fairalloc.plots`, because only the axiom checks use them (fairalloc
never imports proofs_check). The functions read plain records (dictionaries with ``mechanism``,
``axiom``, ``variant``, ``expected``, ``found``, ``status``) and return a matplotlib Figure.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

__all__ = ["claims_heatmap", "schedule_chart", "STATUS_COLORS"]

#: Colour of each campaign outcome.
STATUS_COLORS = {
    "agrees": "#4caf50",            # the checker reproduces axioms.md
    "DISAGREES": "#e53935",         # a T cell violated, or an F cell not found
    "known finding": "#8e24aa",     # a T cell our checkers refute, explained (claims.FINDINGS)
    "violation found": "#ff9800",   # open cell: a counterexample exists
    "none found": "#b0bec5",        # open cell: nothing found within the budget
    "inconclusive": "#fff59d",
    "timeout": "#6d4c41",           # a call of the mechanism did not return within its limit
    "skipped": "#f5f5f5",
}


def claims_heatmap(records: Iterable[Mapping[str, Any]], *, labels: Mapping[str, str] | None = None,
                   ax=None, include_skipped: bool = False):
    """Matrix mechanism x (axiom, variant), coloured by outcome, annotated "expected→found".

    Parameters
    ----------
    records : iterable of mapping
        One per claim: ``mechanism``, ``axiom``, ``variant``, ``expected``, ``found`` ("T", "F", "?"
        or ""), ``status`` (a key of :data:`STATUS_COLORS`).
    labels : mapping, optional
        Row labels by mechanism key.
    ax : matplotlib Axes, optional
    include_skipped : bool
        Also draw rows whose every cell was skipped.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = claims_heatmap([{"mechanism": "drf", "axiom": "si", "variant": "plain", "expected": "T",
    ...                         "found": "T", "status": "agrees"}])
    >>> len(fig.axes)
    1
    """
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Patch

    from fairalloc.plots import subplots

    recs = [dict(r) for r in records]
    if not include_skipped:
        keep = {r["mechanism"] for r in recs if r.get("status") != "skipped"}
        recs = [r for r in recs if r["mechanism"] in keep]
    rows: list[str] = []
    cols: list[tuple[str, str]] = []
    for r in recs:
        if r["mechanism"] not in rows:
            rows.append(r["mechanism"])
        if r.get("status") != "skipped" and (r["axiom"], r["variant"]) not in cols:
            cols.append((r["axiom"], r["variant"]))
    fig, ax = subplots((max(6.0, 0.75 * len(cols) + 3), max(2.0, 0.45 * len(rows) + 1.5)), ax=ax, layout=None)
    img = np.ones((max(len(rows), 1), max(len(cols), 1), 3))
    for r in recs:
        if r.get("status") == "skipped" or (r["axiom"], r["variant"]) not in cols:
            continue
        i, j = rows.index(r["mechanism"]), cols.index((r["axiom"], r["variant"]))
        img[i, j] = to_rgb(STATUS_COLORS.get(r.get("status", ""), "#ffffff"))
        ax.text(j, i, f"{r.get('expected', '')}→{r.get('found', '') or '·'}", ha="center", va="center",
                fontsize=7)
    ax.imshow(img, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([f"{a}\n{v}" for a, v in cols], rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([(labels or {}).get(k, k) for k in rows], fontsize=7)
    ax.set_xticks(np.arange(-0.5, len(cols), 1), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows), 1), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    used = {r.get("status") for r in recs if r.get("status") != "skipped"}
    ax.legend(handles=[Patch(color=c, label=s) for s, c in STATUS_COLORS.items() if s in used],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    ax.set_title("axioms.md: expected → found", fontsize=9)
    return fig


def schedule_chart(instance, starts, *, title: str = "", highlight_slot: int | None = None, axes=None):
    """Gantt-like view of a time-varying start schedule: per server, what each user holds in each slot.

    One panel per server; a stacked bar per slot shows each user's share of the server's most used
    resource held by its running tasks (started in this slot or still running), labelled ``+k`` with
    the tasks it started there; "wait: i, j" above a slot lists the users with tasks submitted and
    not started after it.

    Parameters
    ----------
    instance : TimeVaryingInstance
    starts : array_like (n_agents, n_servers, n_slots)
        Tasks started (an :class:`~fairalloc.AllocationResult`'s ``tasks``, or a witness's schedule).
    title : str
    highlight_slot : int, optional
        Slot to outline (e.g. the slot of a per-slot witness).
    axes : sequence of Axes, optional
        One per server.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import fairalloc as fa
    >>> tv = fa.TimeVaryingInstance([[2]], [[1], [1]], arrivals=[[2, 0], [2, 0]], durations=[2, 2])
    >>> fig = schedule_chart(tv, [[[2, 0]], [[0, 0]]], title="user 0 holds the server")
    >>> len(fig.axes)
    1
    """
    from fairalloc.plots import subplots

    x = np.asarray(starts, dtype=float)
    n, m, T = x.shape
    d = np.asarray(instance.task_demands, dtype=float)            # (N, T, K)
    caps = np.asarray(instance.cluster.capacities, dtype=float)   # (M, K)
    e = np.asarray(instance.durations, dtype=int)
    held = np.zeros((n, m, T, caps.shape[1]))
    for i in range(n):
        for t in range(T):
            for lag in range(min(e[i], T - t)):
                held[i, :, t + lag] += x[i, :, t][:, None] * d[i, t][None, :]
    pending = np.cumsum(instance.arrivals, axis=1) - np.cumsum(x.sum(axis=1), axis=1)
    if axes is None:
        fig, grid = subplots((max(4.0, 1.1 * T + 2), 2.2 * m), m, 1, layout=None, squeeze=False)
        axes = grid[:, 0]
    else:
        fig = axes[0].figure
    colors = [f"C{i % 10}" for i in range(n)]
    for srv, ax in enumerate(axes):
        share = held[:, srv] / np.where(caps[srv] > 0, caps[srv], 1.0)          # (N, T, K)
        r = int(np.argmax(share.sum(axis=0).max(axis=0))) if share.size else 0
        bottom = np.zeros(T)
        for i in range(n):
            h = share[i, :, r]
            bars = ax.bar(np.arange(T), h, bottom=bottom, color=colors[i], edgecolor="black", linewidth=0.5,
                          label=f"user {i}" if srv == 0 else None)
            for t, b in enumerate(bars):
                if x[i, srv, t] > 0:
                    ax.text(t, bottom[t] + h[t] / 2, f"+{int(x[i, srv, t])}", ha="center", va="center", fontsize=7)
            bottom += h
        for t in range(T):
            waiting = [i for i in range(n) if pending[i, t] > 0]
            if waiting:
                ax.text(t, 1.04, "wait: " + ",".join(str(i) for i in waiting), ha="center", va="bottom", fontsize=6)
        if highlight_slot is not None:
            ax.axvspan(highlight_slot - 0.5, highlight_slot + 0.5, fill=False, edgecolor="red", linewidth=1.5)
        ax.set_ylim(0, 1.2)
        ax.set_xticks(range(T))
        ax.set_xlabel("slot")
        ax.set_ylabel(f"server {srv}\nshare of r{r}")
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if title:
        axes[0].set_title(title, fontsize=9)
    return fig
