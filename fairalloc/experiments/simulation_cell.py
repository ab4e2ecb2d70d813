"""The built-in cell: one :func:`fairalloc.simulate` call, returned as tables."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from .inputs import build_capacity

__all__ = ["simulate_cell"]

#: fa.simulate keywords a policy entry may carry (the rest are the policy's options).
_SIMULATE_KEYS = ("enforce_walltime", "engine")


def simulate_cell(workload: Any, params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Run ``fa.simulate(workload, capacity, policy=..., **options)`` for one cell.

    Parameters
    ----------
    workload : Workload
        Built once per worker from the spec's ``workload``.
    params : dict
        The cell's resolved parameters (:class:`~fairalloc.experiments.Cell`): ``policy``,
        ``options`` (policy options, plus ``enforce_walltime`` / ``engine`` for ``fa.simulate``),
        ``capacity`` (``{"processors": N}``, ``{"pool": F}``, ``{"resources": [...]}``,
        ``{"cluster": NAME}`` or None) and ``tables``.

    Returns
    -------
    dict of str to pandas.DataFrame
        The tables asked for: ``summary`` (one row: :meth:`SimulationResult.task_summary` for
        task workloads, :meth:`SimulationResult.summary` for rigid jobs; the policy's own name is
        the column ``policy_name``), ``users`` (``task_users()`` / ``users()``), ``jobs``,
        ``rejected``, ``utilization`` (``resource_utilization()`` / ``utilization()``).

    Examples
    --------
    >>> from fairalloc.workloads import Workload
    >>> wl = Workload(submit=[0, 0, 1], run_time=[10, 5, 5], processors=[3, 2, 1])
    >>> t = simulate_cell(wl, {"policy": "easy", "options": {}, "capacity": {"processors": 4},
    ...                        "tables": ["summary", "jobs"]})
    >>> t["jobs"]["start"].tolist(), float(t["summary"]["mean_wait"].iloc[0])
    ([0.0, 10.0, 1.0], 3.3333333333333335)
    """
    from ..sim import simulate

    options = dict(params.get("options") or {})
    capacity = build_capacity(params.get("capacity"), workload)
    r = simulate(workload, capacity, policy=params["policy"], **options)
    tables = params.get("tables") or ["summary"]
    task = r.is_task_result
    out: dict[str, pd.DataFrame] = {}
    for name in tables:
        if name == "summary":
            row = dict(r.task_summary() if task else r.summary())
            row["policy_name"] = row.pop("policy", r.policy)
            out[name] = pd.DataFrame([row])
        elif name == "users":
            out[name] = r.task_users() if task else r.users()
        elif name == "jobs":
            out[name] = r.jobs
        elif name == "rejected":
            out[name] = r.rejected
        elif name == "utilization":
            out[name] = r.resource_utilization() if task else r.utilization()
        else:
            raise ValueError(f"unknown table {name!r}")
    return out
