r"""SDRF Section 7 (Figs. 4-6): SDRF against DRF on a Google-like task workload, on one pool.

The cell (:func:`cell`) simulates one policy on one pool size: DRF (``delta=None``) or SDRF with
discount ``delta`` per second (Eq. 3 with :math:`\Delta t` = 1 s, commitments decayed by Eq. 6),
Algorithm 1 with the ``"level"`` priority (Eq. 5) and head-of-line blocking as printed, the live
tree keeping users sorted. The pool is ``pool_fraction`` of the workload's mean use *R*
(:meth:`fairalloc.sim.ResourcePool.from_workload`), as the paper sizes its system (50%..100% of R).

The paper's metrics, computed from the cells' tables:

* **Fig. 4**, :func:`wait_reduction`: for each (pool, delta), the mean over users of each user's
  relative reduction of mean task waiting time against DRF on the same pool,
  :math:`\frac{1}{|U|}\sum_u (W^{DRF}_u - W^{SDRF}_u) / W^{DRF}_u`, over the users with
  :math:`W^{DRF}_u > 0` (the relative change is undefined for a user who never waited under DRF);
  :math:`W_u` is the mean over the user's tasks of submission -> start
  (:func:`fairalloc.sim.task_metrics.per_user`, ``mean_queuing``).
* **Fig. 5**, :func:`completed_ratio`: per user, the completed-task ratio (tasks finished by the
  last submission over tasks submitted by then, :func:`fairalloc.sim.task_metrics.completed_tasks`)
  under SDRF over the same under DRF; bubble size the log of tasks submitted.
* **Fig. 6**, :func:`live_tree_events`: live-tree swap events (neighbours exchanged) per 1000 tasks
  scheduled, and their total.

Workload: the paper used one month of Google clusterdata-2011 (32 million tasks, 627 users); the
shipped subset has 33k tasks. :func:`workload` stands in with
:func:`fairalloc.workloads.google_like` (627 users, its illustrative heavy-tailed shapes, not fitted
to the subset; ``n_tasks`` and ``horizon`` set by the scale, see the specs).

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa", SBRC 2018, Section 7, Figs. 4-6.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ... import workloads
from ...sim import ResourcePool, simulate
from ...sim.task_metrics import task_queuing_times

__all__ = ["workload", "cell", "wait_reduction", "completed_ratio", "live_tree_events", "is_drf"]


def workload(*, n_users: int = 627, n_tasks: int = 20_000, horizon: float = 86400.0, rng: Any = 0):
    """The stand-in for the Google 2011 month: :func:`fairalloc.workloads.google_like`."""
    return workloads.google_like(n_users, n_tasks, horizon=horizon, rng=rng)


def is_drf(delta: Any) -> bool:
    """``delta`` None / NaN means the DRF cell of a pool."""
    return delta is None or (isinstance(delta, float) and math.isnan(delta))


def cell(wl: Any, *, pool_fraction: float, delta: float | None = None, tree: str = "live") -> dict:
    """Simulate DRF (``delta=None``) or SDRF(``delta``) on a pool of ``pool_fraction`` x R.

    Returns
    -------
    dict of DataFrame
        ``users``: one row per user (``user``, ``mean_wait``, ``user_wait``, ``submitted``,
        ``completed``, ``completed_ratio``); ``runs``: one row (``tasks``, ``decisions``, ``swaps``,
        ``wakeups``, ``events_per_1000``). Both carry ``pool_fraction``, ``delta`` (NaN for DRF)
        and ``policy``.
    """
    pool = ResourcePool.from_workload(wl, float(pool_fraction))
    drf = is_drf(delta)
    policy = "drf" if drf else "sdrf"
    kw = {} if drf else {"delta": float(delta)}
    r = simulate(wl, pool, policy=policy, tree=tree, **kw)
    u = r.task_users()
    d = np.nan if drf else float(delta)
    users = pd.DataFrame({"user": u["user"].to_numpy(), "mean_wait": u["mean_queuing"].to_numpy(),
                          "user_wait": u["user_wait"].to_numpy(), "submitted": u["submitted"].to_numpy(),
                          "completed": u["completed"].to_numpy(),
                          "completed_ratio": u["completed_ratio"].to_numpy()})
    st = r.stats
    tasks = int(wl.n_tasks)
    runs = pd.DataFrame([{"tasks": tasks, "decisions": int(st.get("decisions", 0)),
                          "swaps": int(st.get("swaps", 0)), "wakeups": int(st.get("wakeups", 0)),
                          "events_per_1000": 1000.0 * st.get("swaps", 0) / max(st.get("decisions", 0), 1),
                          "mean_task_wait": float(np.mean(task_queuing_times(r)))}])
    for df in (users, runs):
        df["pool_fraction"] = float(pool_fraction)
        df["delta"] = d
        df["policy"] = policy
    return {"users": users, "runs": runs}


def wait_reduction(users: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4's metric per (pool_fraction, delta): mean over users of the relative reduction of mean
    waiting time against DRF on the same pool (module docstring), in percent, with ``users`` counted.

    >>> u = pd.DataFrame({"pool_fraction": 0.5, "delta": [np.nan, np.nan, 0.9, 0.9],
    ...                   "user": [0, 1, 0, 1], "mean_wait": [10.0, 20.0, 5.0, 30.0]})
    >>> wait_reduction(u)[["reduction", "users"]].values.tolist()     # (50% + (-50%)) / 2
    [[0.0, 2.0]]
    """
    base = users[users["delta"].isna()][["pool_fraction", "user", "mean_wait"]]
    base = base.rename(columns={"mean_wait": "drf_wait"})
    s = users[users["delta"].notna()].merge(base, on=["pool_fraction", "user"], how="inner")
    s = s[(s["drf_wait"] > 0) & np.isfinite(s["drf_wait"]) & np.isfinite(s["mean_wait"])]
    s = s.assign(rel=100.0 * (s["drf_wait"] - s["mean_wait"]) / s["drf_wait"])
    g = s.groupby(["pool_fraction", "delta"])
    return pd.DataFrame({"reduction": g["rel"].mean(), "users": g["rel"].size().astype(float),
                         "global_reduction": 100.0 * (g["drf_wait"].mean() - g["mean_wait"].mean())
                         / g["drf_wait"].mean()}).reset_index()


def completed_ratio(users: pd.DataFrame, *, pool_fraction: float, delta: float) -> pd.DataFrame:
    """Fig. 5: per user, completed-task ratio under SDRF(``delta``) over DRF on the same pool."""
    a = users[(users["pool_fraction"] == pool_fraction) & users["delta"].isna()]
    b = users[(users["pool_fraction"] == pool_fraction) & np.isclose(users["delta"], delta, rtol=0, atol=1e-15)]
    m = a[["user", "completed_ratio", "submitted"]].merge(
        b[["user", "completed_ratio"]], on="user", suffixes=("_drf", "_sdrf"))
    m["ratio"] = m["completed_ratio_sdrf"] / m["completed_ratio_drf"]
    return m


def live_tree_events(runs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: swap events in total and per 1000 tasks, per (pool_fraction, delta) of the SDRF cells."""
    s = runs[runs["delta"].notna()]
    return s[["pool_fraction", "delta", "swaps", "decisions", "events_per_1000"]].sort_values(
        ["pool_fraction", "delta"]).reset_index(drop=True)
