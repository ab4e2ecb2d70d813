"""Figures of axiom checks: expected versus found verdicts (``fairalloc check --all``, the axioms notebook).

The functions read plain records (dictionaries with ``mechanism``, ``axiom``, ``variant``,
``expected``, ``found``, ``status``), so fairalloc does not import ``proofs_check``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

__all__ = ["claims_heatmap", "STATUS_COLORS"]

#: Colour of each campaign outcome.
STATUS_COLORS = {
    "agrees": "#4caf50",            # the checker reproduces axioms.md
    "DISAGREES": "#e53935",         # a T cell violated, or an F cell not found
    "violation found": "#ff9800",   # open cell: a counterexample exists
    "none found": "#b0bec5",        # open cell: nothing found within the budget
    "inconclusive": "#fff59d",
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
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

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
    if ax is None:
        fig = Figure(figsize=(max(6.0, 0.75 * len(cols) + 3), max(2.0, 0.45 * len(rows) + 1.5)))
        ax = fig.subplots()
    else:
        fig = ax.figure
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
