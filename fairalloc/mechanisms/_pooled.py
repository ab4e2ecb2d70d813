"""Shared driver of the divisible pooled mechanisms (max-min, stateful max-min, DRF, SDRF).

It maps an :class:`~fairalloc.model.Instance` and commitments to the water-filling inputs with the
formulas of :mod:`fairalloc.shares`, runs the chosen method (the breakpoint sweep or iterated LPs) and
packs one :class:`~fairalloc.result.AllocationResult`.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Mapping

import numpy as np

from .. import shares
from .._validation import require_choice
from ..commitments import as_commitments
from ..errors import FairallocWarning
from ..model import Instance
from ..result import AllocationResult, Status
from ._waterfill import waterfill

__all__ = ["METHODS", "solve_pooled", "check_instance"]

METHODS = ("waterfill", "lp")


def check_instance(instance: Any, cls: type = Instance, argument: str = "instance") -> None:
    if not isinstance(instance, cls):
        raise TypeError(f"{argument} must be a fairalloc.{cls.__name__}, got {type(instance).__name__}; "
                        f"build one with fairalloc.{cls.__name__}(...)")


def solve_pooled(instance: Instance, commitments: Any, *, mechanism: str, method: str,
                 solver: str | None, options: Mapping[str, Any] | None) -> AllocationResult:
    method = require_choice("method", method, METHODS)
    n, m = instance.n_agents, instance.n_resources
    c = as_commitments(commitments, n, m)
    w = instance.weights
    a = shares.normalized_demands(instance.demands, instance.capacities)
    mu = shares.dominant_shares(a)
    v = shares.demand_vectors(a, mu)
    ct = shares.dominant_commitment(c)
    starts = ct / w
    t0 = time.perf_counter()
    if method == "waterfill":
        if solver is not None or options:
            warnings.warn(f"solver={solver!r} and options are ignored by method='waterfill'",
                          FairallocWarning, stacklevel=3)
        sol = waterfill(v, mu, starts, w)
        s, level, status, message = sol.shares, sol.level, Status.OPTIMAL, "exact water-filling"
        used_solver = None
        stats: dict[str, Any] = {"rounds": sol.rounds, "saturated": list(sol.saturated)}
    else:
        from ..exact.progressive import progressive_filling_lp

        out = progressive_filling_lp(v, mu, starts, w, solver=solver, options=options)
        s, level, status, message = out.shares, out.level, out.status, out.message
        used_solver = out.solver
        stats = dict(out.stats)
    stats["runtime_s"] = time.perf_counter() - t0
    if s is None:
        return AllocationResult(status=status, mechanism=mechanism, method=method, solver=used_solver,
                                message=message, stats=stats)
    alloc_norm = s[:, None] * v
    allocation = alloc_norm * instance.capacities
    dom = shares.dominant_shares(alloc_norm)
    return AllocationResult._adopt(
        status=status, mechanism=mechanism, method=method, solver=used_solver, message=message,
        allocation=allocation, level=level, levels=shares.sdrf_levels(dom, ct, w),
        dominant_shares=dom, utilities=shares.leontief_utility(allocation, instance.demands),
        shares=dom / w, stats=stats)


