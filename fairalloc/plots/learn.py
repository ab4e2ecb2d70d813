"""Figures of the learned-priorities method: training states, fitted scores, the ranking of forms."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._figure import Figure, subplots

__all__ = ["states_histograms", "fit_scatter", "ranking_bars"]


def states_histograms(states: Any) -> Figure:
    """Histograms of the queued jobs' run times, processors and submit times, and S's processors.

    Parameters
    ----------
    states : fairalloc.experiments.learn.States

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from fairalloc.experiments.learn import training_states
    >>> len(states_histograms(training_states(3, rng=0)).axes)
    4
    """
    fig, axes = subplots((11, 3.2), 1, 4)
    q = slice(states.started, None)
    r = np.maximum(states.run_time[:, q].ravel(), 1.0)
    axes[0].hist(np.log10(r), bins=30, color="C0")
    axes[0].set_xlabel("log10 run time r (s)")
    axes[1].hist(np.log2(states.processors[:, q].ravel()), bins=30, color="C1")
    axes[1].set_xlabel("log2 processors n")
    axes[2].hist(states.submit[:, q].ravel() / 3600.0, bins=30, color="C2")
    axes[2].set_xlabel("submit time s (h from the window's start)")
    busy = states.processors[:, :states.started].sum(axis=1) if states.started else np.zeros(len(states))
    axes[3].hist(busy / states.capacity, bins=20, color="C3")
    axes[3].set_xlabel("S's processors / capacity")
    axes[0].set_ylabel("jobs of Q")
    axes[3].set_ylabel("states")
    fig.suptitle(f"{len(states)} training states: |S| = {states.started}, |Q| = {states.queued}, "
                 f"{states.capacity} processors")
    return fig


def fit_scatter(table: Any, fits: Sequence[Any], *, states: Any = None, max_points: int = 5000,
                rng: Any = 0) -> Figure:
    """Observed score against each fit's prediction (one panel per fit), on the given states.

    Parameters
    ----------
    table : pandas.DataFrame
        Scored jobs (``state``, ``r``, ``n``, ``s``, ``score``).
    fits : sequence of Fit
        Fits to draw (each gets its held-out MAE in the title).
    states : array_like of int, optional
        Draw these states only (e.g. the held-out ones).
    max_points : int
        Subsample to at most this many jobs (seeded).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> from fairalloc.experiments.learn import fit_form
    >>> t = pd.DataFrame({"state": [0, 0, 1, 1], "r": [1, 4, 9, 16], "n": 1, "s": 1, "score": [1.0, 2.1, 2.9, 4.0]})
    >>> fit = fit_form("c1 * sqrt(r)", t.r, t.n, t.s, t.score, name="sqrt(r)")
    >>> len(fit_scatter(t, [fit]).axes)
    1
    """
    t = table if states is None else table[table["state"].isin(np.asarray(states))]
    if len(t) > max_points:
        t = t.sample(max_points, random_state=np.random.default_rng(rng).integers(2**31 - 1))
    fits = [f for f in fits if f.success]
    fig, axes = subplots((4.2 * max(len(fits), 1), 4.0), 1, max(len(fits), 1), squeeze=False)
    axes = axes[0]
    y = t["score"].to_numpy(float)
    for ax, f in zip(axes, fits):
        pred = f.predict(t["r"], t["n"], t["s"])
        ax.scatter(pred, y, s=4, alpha=0.4)
        lo, hi = float(np.nanmin([y.min(), pred.min()])), float(np.nanmax([y.max(), pred.max()]))
        ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
        ax.set_xlabel("predicted score")
        ax.set_title(f"{f.name}\nheld-out MAE {f.test_mae:.3g}", fontsize=9)
    axes[0].set_ylabel("score (Eqs. 2-3)")
    return fig


def ranking_bars(ranking: Any, *, top: int = 15) -> Figure:
    """Held-out mean absolute error of the best ``top`` forms (and the paper's F1/F2 wherever they rank).

    Parameters
    ----------
    ranking : Ranking
    top : int

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairalloc.experiments.learn import fit_forms
    >>> t = pd.DataFrame({"state": np.repeat(np.arange(4), 3), "r": np.arange(1.0, 13), "n": 1, "s": 1})
    >>> t["score"] = np.log(t.r)
    >>> ranking = fit_forms(t, {"log": "c1 * log(r)", "lin": "c1 * r"}, rng=0)
    >>> [t.get_text() for t in ranking_bars(ranking).axes[0].get_yticklabels()]
    ['lin', 'log']
    """
    shown = [f for f in ranking.fits[:top] if np.isfinite(f.test_mae)]
    shown += [f for f in ranking.fits[top:] if f.name in ("F1", "F2") and np.isfinite(f.test_mae)]
    fig, ax = subplots((7.5, 0.3 * len(shown) + 1.2))
    names = [f.name for f in shown][::-1]
    vals = [f.test_mae for f in shown][::-1]
    colors = ["C3" if n in ("F1", "F2") else "C0" for n in names]
    ax.barh(names, vals, color=colors)
    ax.set_xlabel("mean absolute error on held-out states")
    ax.tick_params(axis="y", labelsize=8)
    return fig
