"""Max-min fairness on one resource: plain, weighted, and stateful (SDRF Eq. 4).

References
----------
.. [1] D. Bertsekas, R. Gallager, "Data Networks", 1992 (max-min fairness, progressive filling).
.. [2] H. Sadok, M. Campista, L. Costa, SBRC 2018 (stateful max-min, Eq. 4).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidInstanceError
from ..model import Instance
from ..result import AllocationResult
from ._pooled import check_instance, solve_pooled

__all__ = ["max_min"]


def max_min(instance: Instance, /, commitments: Any = None, *, method: str = "waterfill",
            solver: str | None = None, options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""(Weighted, stateful) max-min fair division of one divisible resource.

    Solves SDRF Eq. 4, with weights: maximise *x* subject to :math:`\sum_i o_i \le 1` and

    .. math:: o_i = \max\{0,\ \min\{\theta_i,\ w_i x - c_i\}\}

    (normalised units). Each user's "tank" starts at its commitment :math:`c_i` (zero: plain max-min)
    and fills at rate :math:`w_i`. Users whose demand is met stop; the rest keep filling.

    Parameters
    ----------
    instance : Instance
        Must have exactly one resource.
    commitments : array_like (n,) or (n, 1), optional
        Commitments as fractions of the capacity (default zeros: plain max-min).
    method : {"waterfill", "lp"}
        The exact breakpoint sweep (default) or iterated LPs through cvxpy (cross-check).
    solver, options : backend name and options for ``method="lp"`` (see
        :func:`fairalloc.exact.available_solvers`).

    Returns
    -------
    AllocationResult
        ``allocation`` (n, 1) in capacity units; ``level`` the water level x.

    Raises
    ------
    InvalidInstanceError
        When the instance has more than one resource, or commitments are invalid.

    Examples
    --------
    >>> import fairalloc as fa
    >>> r = fa.max_min(fa.Instance([2, 2.6, 4, 5], capacities=10))
    >>> r.allocation.ravel().round(6).tolist()
    [2.0, 2.6, 2.7, 2.7]

    Stateful: fair share 3 CPUs, a commitment of 1 CPU -> at least 2 CPUs (SDRF Section 4.3):

    >>> r = fa.max_min(fa.Instance([12, 12, 12, 12], capacities=12), commitments=[1/12, 0, 0, 0])
    >>> r.allocation.ravel().round(6).tolist()
    [2.25, 3.25, 3.25, 3.25]
    """
    check_instance(instance)
    if instance.n_resources != 1:
        raise InvalidInstanceError(
            f"max_min needs exactly one resource, got n_resources={instance.n_resources}; "
            "use fa.drf or fa.sdrf for several resources", argument="instance",
            value=instance.n_resources)
    mech = "max_min" if commitments is None else "stateful_max_min"
    return solve_pooled(instance, commitments, mechanism=mech, method=method, solver=solver,
                        options=options)
