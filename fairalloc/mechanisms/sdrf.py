"""Stateful Dominant Resource Fairness (SDRF Eq. 5), one allocation given the commitments.

References
----------
.. [1] H. Sadok, M. Campista, L. Costa, "O Passado Também Importa: Um Mecanismo de Alocação Justa de
   Múltiplos Tipos de Recursos ao Longo do Tempo", SBRC 2018; "Stateful DRF: considering the past in a
   multi-resource allocation", IEEE Trans. Computers 70(7), 2021.
"""

from __future__ import annotations

from typing import Any

from ..model import Instance, TaskInstance
from ..result import AllocationResult
from ._front_door import Method, dispatch
from ._pooled import pooled

__all__ = ["sdrf", "METHODS", "DEFAULT_METHOD"]

_POOLED_KEYWORDS = ("commitments", "solver", "options")

#: (instance type, method) -> implementation. ``tasks`` dtype: None on an Instance, int64 on a TaskInstance.
METHODS = {
    (Instance, "waterfill"): Method("waterfill", pooled, {"mechanism": "sdrf", "method": "waterfill"},
                                    _POOLED_KEYWORDS, None, "exact breakpoint water-filling of Eq. 5"),
    (Instance, "lp"): Method("lp", pooled, {"mechanism": "sdrf", "method": "lp"}, _POOLED_KEYWORDS,
                             None, "progressive filling by LPs (cvxpy; cross-check)"),
    (TaskInstance, "milp"): Method("milp", "fairalloc.exact.tasks:tasks_leximin", {"mechanism": "sdrf"},
                                   tasks_dtype="int64", summary="exact leximin of the SDRF levels (MILPs)"),
    (TaskInstance, "greedy"): Method("greedy", "fairalloc.scheduling.progressive:sdrf_greedy",
                                     tasks_dtype="int64", summary="SDRF Algorithm 1 task filling"),
}
#: Default method per instance type.
DEFAULT_METHOD = {Instance: "waterfill", TaskInstance: "milp"}


def sdrf(instance: Instance | TaskInstance, /, commitments: Any = None, *, method: str | None = None,
         **options: Any) -> AllocationResult:
    r"""SDRF allocation for given commitments (Eq. 5, weighted, lexicographic): the one entry point.

    On an :class:`~fairalloc.Instance` (pooled divisible resources):

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

    On a :class:`~fairalloc.TaskInstance` (indivisible tasks on servers), the commitments are the
    instance's own (``TaskInstance(..., commitments=)``): the exact leximin of the SDRF levels
    (``method="milp"``) or SDRF Algorithm 1 with the commitments held constant (``method="greedy"``).

    Parameters
    ----------
    instance : Instance or TaskInstance
    commitments : array_like (n, m), optional
        On an Instance only: commitments :math:`c_{ir}` as fractions of each resource's capacity
        (>= 0), e.g. from :func:`fairalloc.commitments.step`. Default zeros.
    method : str, optional
        ======================  ============  ===================================================  ==========
        instance                method        implementation                                       ``tasks``
        ======================  ============  ===================================================  ==========
        Instance                "waterfill"   exact breakpoint sweep (default)                     None
        Instance                "lp"          iterated LPs through cvxpy (cross-check)             None
        TaskInstance            "milp"        :func:`fairalloc.exact.tasks_leximin` (default)      int64 (N, M)
        TaskInstance            "greedy"      :func:`fairalloc.scheduling.sdrf_greedy`             int64 (N, M)
        ======================  ============  ===================================================  ==========
    **options
        The keywords of that method, checked before any work: ``solver``, ``options`` for ``"lp"``
        (``"waterfill"`` accepts and ignores them with a warning); those of
        :func:`~fairalloc.exact.tasks_leximin` for ``"milp"``; those of
        :func:`~fairalloc.scheduling.sdrf_greedy` (``priority``, ``blocking``, ``server``,
        ``structure``) for ``"greedy"``.

    Returns
    -------
    AllocationResult
        ``allocation``, ``level`` (Eq. 5's x), ``levels`` per user, ``dominant_shares``,
        ``utilities``, ``tasks`` as in the table.

    Raises
    ------
    TypeError
        ``instance`` of another type, or a keyword the method does not accept (the message names the
        keyword, the method and the accepted keywords); ``commitments=`` with a TaskInstance.
    InvalidInstanceError
        Unknown ``method`` for the instance type, or ``options`` the backend rejects.

    Examples
    --------
    Two users with identical demands on one resource, commitments 0.2 and 0: levels equalise
    (c + s), so the shares are 0.4 and 0.6 (worked by hand: 0.2 + s1 = s2, s1 + s2 = 1):

    >>> import fairalloc as fa
    >>> r = fa.sdrf(fa.Instance([[1.0], [1.0]]), commitments=[[0.2], [0.0]])
    >>> r.allocation.ravel().round(9).tolist(), round(r.level, 9)
    ([0.4, 0.6], 0.6)
    """
    if commitments is not None:
        if isinstance(instance, TaskInstance):
            raise TypeError("sdrf: commitments= applies to an Instance; a TaskInstance carries its own "
                            "(fa.TaskInstance(..., commitments=...))")
        options["commitments"] = commitments
    return dispatch("sdrf", instance, method, options, METHODS, DEFAULT_METHOD)
