"""Dominant Resource Fairness (weighted, lexicographic progressive filling).

References
----------
.. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant Resource
   Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011.
.. [2] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions, Limitations,
   and Indivisibilities", ACM TEAC 2015 (weighted DRF, zero demands).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..model import Instance
from ..result import AllocationResult
from ._pooled import check_instance, solve_pooled

__all__ = ["drf"]


def drf(instance: Instance, /, *, method: str = "waterfill", solver: str | None = None,
        options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""Weighted DRF on pooled divisible resources.

    Every user receives resources in proportion to its demand vector; dominant shares divided by
    weights, :math:`s_i / w_i`, rise together (progressive filling). When a user's demand is met it
    stops and the others keep filling; when a resource saturates, only the users that **need** it
    (positive demand) freeze, so users with zero demand for it keep growing (lexicographic DRF,
    Parkes et al. [2]_). This is SDRF Eq. 5 with zero commitments.

    Parameters
    ----------
    instance : Instance
    method : {"waterfill", "lp"}
    solver, options : for ``method="lp"``.

    Returns
    -------
    AllocationResult
        ``allocation`` in capacity units, ``dominant_shares``, ``utilities`` (fraction of demand served).

    Examples
    --------
    The DRF paper's example: 9 CPUs and 18 GB, tasks A = <1 CPU, 4 GB>, B = <3 CPU, 1 GB>, each with
    more tasks than fit (100 here). A gets 3 tasks, B 2, both dominant shares 2/3:

    >>> import fairalloc as fa
    >>> inst = fa.Instance.from_tasks([[1, 4], [3, 1]], tasks=[100, 100], capacities=[9, 18])
    >>> r = fa.drf(inst)
    >>> (r.allocation / [[1, 4], [3, 1]]).round(9).tolist()          # tasks of each user
    [[3.0, 3.0], [2.0, 2.0]]
    >>> r.dominant_shares.round(9).tolist()
    [0.666666667, 0.666666667]
    """
    check_instance(instance)
    return solve_pooled(instance, None, mechanism="drf", method=method, solver=solver, options=options)
