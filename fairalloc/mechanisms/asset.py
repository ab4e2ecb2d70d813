r"""Asset fairness: equalise the *sum* of each user's resource shares (a foil for the axiom checkers).

Ghodsi et al. [1]_ (Section 4.1) compare DRF with asset fairness, which equalises the asset share
:math:`\sum_r o_{ir}/C_r` of every user instead of the dominant share. It is strategy-proof,
envy-free, Pareto efficient and population monotone, but it violates the sharing incentive (a user
can receive less than :math:`C/n` would give it), which is why ``proofs_check`` uses it as a foil.

References
----------
.. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant Resource
   Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011.
"""

from __future__ import annotations

from typing import Any, Mapping

from .. import shares
from ..validation import require_choice
from ..model import Instance
from ..result import AllocationResult
from ._pooled import METHODS, check_instance, run_filling

__all__ = ["asset_fairness"]


def asset_fairness(instance: Instance, /, *, method: str = "waterfill", solver: str | None = None,
                   options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""(Weighted) asset fairness on pooled divisible resources, by lexicographic progressive filling.

    Every user receives resources in proportion to its demand; the asset shares divided by the weights,
    :math:`\sum_r o_{ir}/(C_r w_i)`, rise together. A user stops when its demand is met or when a
    resource it needs saturates; the others keep filling (lexicographic, as :func:`~fairalloc.drf`).
    The share formula is :func:`fairalloc.shares.asset_shares`.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "lp"}
        The exact breakpoint sweep (default) or iterated LPs (cross-check).
    solver, options : for ``method="lp"``.

    Returns
    -------
    AllocationResult
        ``allocation`` in capacity units; ``shares`` the asset shares divided by the weights;
        ``dominant_shares``; ``utilities`` (fraction of each demand served, SDRF Eq. 1); ``level`` the
        asset share at which the first resource saturates.

    See Also
    --------
    fairalloc.drf, fairalloc.ceei

    Examples
    --------
    The DRF paper's example (9 CPUs, 18 GB; tasks A = <1, 4>, B = <3, 1>). Per task, A's asset share
    is 1/9 + 4/18 = 1/3 and B's 3/9 + 1/18 = 7/18; equal asset shares give :math:`x_A/3 = 7x_B/18`.
    CPU binds first: :math:`x_A + 3x_B = 9` gives :math:`x_B = 54/25 = 2.16`, :math:`x_A = 63/25 = 2.52`
    (hand computation):

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> r = fa.asset_fairness(inst)
    >>> (r.allocation / [[1, 4], [3, 1]])[:, 0].round(9).tolist()      # tasks of A and B
    [2.52, 2.16]
    """
    check_instance(instance)
    method = require_choice("method", method, METHODS)
    w = instance.weights
    a = shares.normalized_demands(instance.demands, instance.capacities)
    alpha = shares.asset_shares(a)                   # asset share of each full demand
    v = a / alpha[:, None]                           # resource use per unit of asset share
    starts = 0.0 * w
    s, level, status, message, used, stats = run_filling(v, alpha, starts, w, method=method,
                                                         solver=solver, options=options, stacklevel=3,
                                                         mechanism="asset_fairness")
    if s is None:
        return AllocationResult(status=status, mechanism="asset_fairness", method=method, solver=used,
                                message=message, stats=stats)
    alloc_norm = s[:, None] * v
    allocation = alloc_norm * instance.capacities
    return AllocationResult.from_arrays(
        status=status, mechanism="asset_fairness", method=method, solver=used, message=message,
        allocation=allocation, level=level, levels=s / w,
        dominant_shares=shares.dominant_shares(alloc_norm),
        utilities=shares.leontief_utility(allocation, instance.demands), shares=s / w, stats=stats)
