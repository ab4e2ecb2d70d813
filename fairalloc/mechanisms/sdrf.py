"""Stateful Dominant Resource Fairness (SDRF Eq. 5), one allocation given the commitments.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018; "Stateful DRF: considering the past in a
   multi-resource allocation", IEEE Trans. Computers 70(7), 2021.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..model import Instance
from ..result import AllocationResult
from ._pooled import check_instance, solve_pooled

__all__ = ["sdrf"]


def sdrf(instance: Instance, /, commitments: Any = None, *, method: str = "waterfill",
         solver: str | None = None, options: Mapping[str, Any] | None = None) -> AllocationResult:
    r"""SDRF allocation for given commitments (Eq. 5, weighted, lexicographic).

    Maximise the level *x* subject to :math:`\sum_i o_{ir} \le 1` for every resource and

    .. math:: o_{ir} = \max\{0,\ \min\{\theta_{ir},\ (w_i x - \tilde c_i)\,\tilde\theta_{ir}\}\}

    where :math:`\tilde c_i = \max_r c_{ir}` is the dominant commitment and :math:`\tilde\theta_i` the
    demand vector normalised to a dominant entry of 1 (all in normalised units). A user starts
    receiving when :math:`w_i x` passes :math:`\tilde c_i`; its level :math:`(\tilde c_i + s_i)/w_i`
    then rises with everybody else's. With zero commitments this is :func:`~fairalloc.drf`; with one
    resource it is stateful :func:`~fairalloc.max_min`. As in :func:`~fairalloc.drf`, a saturated
    resource freezes only the users that need it.

    Weights: the paper does not define weighted SDRF; here the weight divides the whole level
    (commitment plus share), i.e. the unweighted formula applied to ``c / w`` and ``s / w``, so that a
    user of weight 2 needs twice the commitment to be held back as much. Documented choice.

    Parameters
    ----------
    instance : Instance
    commitments : array_like (n, m), optional
        Commitments :math:`c_{ir}` as fractions of each resource's capacity (>= 0), e.g. from
        :func:`fairalloc.commitments.step`. Default zeros.
    method : {"waterfill", "lp"}
    solver, options : for ``method="lp"``.

    Returns
    -------
    AllocationResult
        ``allocation``, ``level`` (Eq. 5's x), ``levels`` per user, ``dominant_shares``, ``utilities``.

    Examples
    --------
    Two users with identical demands on one resource, commitments 0.2 and 0: levels equalise
    (c + s), so the shares are 0.4 and 0.6 (worked by hand: 0.2 + s1 = s2, s1 + s2 = 1):

    >>> import fairalloc as fa
    >>> r = fa.sdrf(fa.Instance([[1.0], [1.0]]), commitments=[[0.2], [0.0]])
    >>> r.allocation.ravel().round(9).tolist(), round(r.level, 9)
    ([0.4, 0.6], 0.6)
    """
    check_instance(instance)
    return solve_pooled(instance, commitments, mechanism="sdrf", method=method, solver=solver,
                        options=options)
