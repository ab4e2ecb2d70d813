"""Dominant Resource Fairness (weighted, lexicographic progressive filling).

References
----------
.. [1] A. Ghodsi, M. Zaharia, B. Hindman, A. Konwinski, S. Shenker, I. Stoica, "Dominant Resource
   Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011.
.. [2] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions, Limitations,
   and Indivisibilities", ACM TEAC 2015 (weighted DRF, zero demands).
"""

from __future__ import annotations

from typing import Any

from ..model import Instance, TaskInstance
from ..result import AllocationResult
from ._front_door import Method, dispatch
from ._pooled import pooled

__all__ = ["drf", "METHODS", "DEFAULT_METHOD"]

#: (instance type, method) -> implementation. ``tasks`` dtype: None on an Instance, int64 on a TaskInstance.
METHODS = {
    (Instance, "waterfill"): Method("waterfill", pooled, {"mechanism": "drf", "method": "waterfill"},
                                    ("solver", "options"), None, "exact breakpoint water-filling"),
    (Instance, "lp"): Method("lp", pooled, {"mechanism": "drf", "method": "lp"}, ("solver", "options"),
                             None, "progressive filling by LPs (cvxpy; cross-check)"),
    (TaskInstance, "milp"): Method("milp", "fairalloc.exact.tasks:tasks_leximin", {"mechanism": "drf"},
                                   tasks_dtype="int64", summary="exact leximin of indivisible tasks (MILPs)"),
    (TaskInstance, "greedy"): Method("greedy", "fairalloc.scheduling.progressive:drf_greedy",
                                     tasks_dtype="int64", summary="DRF progressive filling of tasks"),
}
#: Default method per instance type.
DEFAULT_METHOD = {Instance: "waterfill", TaskInstance: "milp"}


def drf(instance: Instance | TaskInstance, /, *, method: str | None = None, **options: Any) -> AllocationResult:
    r"""Weighted Dominant Resource Fairness, the one entry point for every setting and method.

    On an :class:`~fairalloc.Instance` (pooled divisible resources): every user receives resources
    in proportion to its demand vector; dominant shares divided by weights, :math:`s_i / w_i`, rise
    together (progressive filling). When a user's demand is met it stops and the others keep
    filling; when a resource saturates, only the users that **need** it (positive demand) freeze, so
    users with zero demand for it keep growing (lexicographic DRF, Parkes et al. [2]_). This is SDRF
    Eq. 5 with zero commitments.

    On a :class:`~fairalloc.TaskInstance` (indivisible tasks on servers with placement): the
    leximin of the weighted dominant shares over integer task counts (``method="milp"``, exact), or
    DRF progressive filling of tasks (``method="greedy"``, the scheduler's one-shot run).

    Parameters
    ----------
    instance : Instance or TaskInstance
    method : str, optional
        ======================  ============  ===================================================  ==========
        instance                method        implementation                                       ``tasks``
        ======================  ============  ===================================================  ==========
        Instance                "waterfill"   exact breakpoint sweep (default)                     None
        Instance                "lp"          iterated LPs through cvxpy (cross-check)             None
        TaskInstance            "milp"        :func:`fairalloc.exact.tasks_leximin` (default)      int64 (N, M)
        TaskInstance            "greedy"      :func:`fairalloc.scheduling.drf_greedy`              int64 (N, M)
        ======================  ============  ===================================================  ==========
    **options
        The keywords of that method, checked before any work: ``solver``, ``options`` for ``"lp"``
        (``"waterfill"`` accepts and ignores them with a warning); for ``"milp"`` those of
        :func:`~fairalloc.exact.tasks_leximin` (``solver``, ``time_limit``, ``mip_gap``, ``objective``,
        ...); for ``"greedy"`` those of :func:`~fairalloc.scheduling.drf_greedy` (``blocking``,
        ``server``, ``structure``).

    Returns
    -------
    AllocationResult
        ``allocation`` in capacity units, ``dominant_shares``, ``utilities`` (fraction of demand
        served on an Instance, tasks per user on a TaskInstance), ``tasks`` as in the table, and a
        :class:`~fairalloc.Status`.

    Raises
    ------
    TypeError
        ``instance`` of another type, or a keyword the method does not accept (the message names the
        keyword, the method and the accepted keywords).
    InvalidInstanceError
        Unknown ``method`` for the instance type, or ``options`` the backend rejects.

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

    The same as indivisible tasks on one server, exactly and greedily:

    >>> ti = fa.TaskInstance([[9, 18]], [[1, 4], [3, 1]], tasks=[100, 100])
    >>> fa.drf(ti, solver="highs").tasks.tolist(), fa.drf(ti, method="greedy").tasks.tolist()
    ([[3], [2]], [[3], [2]])
    """
    return dispatch("drf", instance, method, options, METHODS, DEFAULT_METHOD)
