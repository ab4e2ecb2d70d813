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
from ..validation import require_choice
from ..commitments import as_commitments
from ..errors import FairallocWarning
from ..model import Instance
from ..result import AllocationResult, Status
from ._front_door import options_named
from ._waterfill import waterfill

__all__ = ["METHODS", "solve_pooled", "pooled", "run_filling", "check_instance"]

METHODS = ("waterfill", "lp")


def check_instance(instance: Any, cls: type = Instance, argument: str = "instance") -> None:
    if not isinstance(instance, cls):
        raise TypeError(f"{argument} must be a fairalloc.{cls.__name__}, got {type(instance).__name__}; "
                        f"build one with fairalloc.{cls.__name__}(...)")


def run_filling(v, caps, starts, w, *, method: str, solver: str | None,
                options: Mapping[str, Any] | None, stacklevel: int = 4, mechanism: str = "pooled"):
    """Run lexicographic progressive filling by ``method``: (shares, level, status, message, solver, stats).

    Shared by every pooled mechanism that is a water-filling over per-user directions (DRF, SDRF,
    max-min, asset fairness); ``shares`` is None when an LP backend failed.
    """
    t0 = time.perf_counter()
    if method == "waterfill":
        if solver is not None or options:
            warnings.warn(f"solver={solver!r} and options are ignored by method='waterfill'",
                          FairallocWarning, stacklevel=stacklevel)
        sol = waterfill(v, caps, starts, w)
        out = (sol.shares, sol.level, Status.OPTIMAL, "exact water-filling", None,
               {"rounds": sol.rounds, "saturated": list(sol.saturated)})
    else:
        from ..exact.progressive import progressive_filling_lp

        with options_named(f"{mechanism}(method='lp')", options):
            lp = progressive_filling_lp(v, caps, starts, w, solver=solver, options=options)
        out = (lp.shares, lp.level, lp.status, lp.message, lp.solver, dict(lp.stats))
    out[5]["runtime_s"] = time.perf_counter() - t0
    return out


def solve_pooled(instance: Instance, commitments: Any, *, mechanism: str, method: str,
                 solver: str | None, options: Mapping[str, Any] | None) -> AllocationResult:
    method = require_choice("method", method, METHODS)
    n, m = instance.n_agents, instance.n_resources
    c = as_commitments(commitments, n, m, resource_names=instance.resource_names)
    w = instance.weights
    a = shares.normalized_demands(instance.demands, instance.capacities)
    mu = shares.dominant_shares(a)
    v = shares.demand_vectors(a, mu)
    ct = shares.dominant_commitment(c)
    starts = ct / w
    s, level, status, message, used_solver, stats = run_filling(v, mu, starts, w, method=method,
                                                                solver=solver, options=options,
                                                                mechanism=mechanism)
    if s is None:
        return AllocationResult(status=status, mechanism=mechanism, method=method, solver=used_solver,
                                message=message, stats=stats)
    alloc_norm = s[:, None] * v
    allocation = alloc_norm * instance.capacities
    if not (np.isfinite(allocation).all() and np.isfinite(level)):
        # the instance's checks keep every normalised quantity finite; should arithmetic still overflow,
        # the result says so instead of calling NaN optimal
        return AllocationResult(status=Status.ERROR, mechanism=mechanism, method=method, solver=used_solver,
                                message=f"numeric overflow: the {method} result is not finite (level={level!r}); "
                                        "rescale the demands, capacities or weights", stats=stats)
    dom = shares.dominant_shares(alloc_norm)
    return AllocationResult.from_arrays(
        status=status, mechanism=mechanism, method=method, solver=used_solver, message=message,
        allocation=allocation, level=level, levels=shares.sdrf_levels(dom, ct, w),
        dominant_shares=dom, utilities=shares.leontief_utility(allocation, instance.demands),
        shares=shares.dominant_shares(alloc_norm, weights=w), stats=stats)




def pooled(instance: Instance, /, *, mechanism: str, method: str, commitments: Any = None,
           solver: str | None = None, options: Mapping[str, Any] | None = None) -> AllocationResult:
    """Front-door target of the pooled mechanisms (``fa.drf`` / ``fa.sdrf`` on an Instance).

    ``solver`` and ``options`` apply to ``method="lp"``; ``method="waterfill"`` warns that it ignores
    them (:func:`run_filling`).
    """
    check_instance(instance)
    return solve_pooled(instance, commitments, mechanism=mechanism, method=method, solver=solver,
                        options=options)
