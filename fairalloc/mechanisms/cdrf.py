"""CDRF for indivisible tasks on servers (Parkes, Procaccia and Shah's mechanism), one entry point.

References
----------
.. [1] D. Parkes, A. Procaccia, N. Shah, "Beyond Dominant Resource Fairness: Extensions, Limitations,
   and Indivisibilities", ACM Trans. Economics and Computation 3(1), 2015 (indivisible tasks).
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024 (CDRF baseline).
"""

from __future__ import annotations

from typing import Any

from ..model import TaskInstance
from ..result import AllocationResult
from ._front_door import Method, dispatch

__all__ = ["cdrf", "METHODS", "DEFAULT_METHOD"]

#: (instance type, method) -> implementation; ``tasks`` int64 (N, M) for both.
METHODS = {
    (TaskInstance, "milp"): Method("milp", "fairalloc.exact.tasks:tasks_leximin", {"mechanism": "cdrf"},
                                   tasks_dtype="int64",
                                   summary="exact leximin of the next-task dominant shares (MILPs)"),
    (TaskInstance, "greedy"): Method("greedy", "fairalloc.scheduling.cdrf:cdrf_greedy", tasks_dtype="int64",
                                     summary="sequential min-max of the next-task dominant shares"),
}
#: Default method per instance type.
DEFAULT_METHOD = {TaskInstance: "milp"}


def cdrf(instance: TaskInstance, /, *, method: str | None = None, **options: Any) -> AllocationResult:
    r"""CDRF on a :class:`~fairalloc.TaskInstance`: users valued by their weighted dominant share
    after one more task, :math:`(x_i + 1)\mu_i / w_i`.

    Parameters
    ----------
    instance : TaskInstance
    method : {"milp", "greedy"}
        ==========  ============================================================  ============
        method      implementation                                                ``tasks``
        ==========  ============================================================  ============
        "milp"      exact leximin (default; :func:`fairalloc.exact.tasks_leximin`  int64 (N, M)
                    with ``mechanism="cdrf"``)
        "greedy"    sequential min-max (:func:`fairalloc.scheduling.cdrf_greedy`)  int64 (N, M)
        ==========  ============================================================  ============
    **options
        The keywords of that method, checked before any work.

    Returns
    -------
    AllocationResult

    Raises
    ------
    TypeError
        ``instance`` not a TaskInstance, or a keyword the method does not accept.
    InvalidInstanceError
        Unknown ``method``, or ``options`` the backend rejects.

    Examples
    --------
    One server <10, 10>; user 0's tasks <4, 1> (dominant share 0.4 each), user 1's <1, 1> (0.1). The
    greedy, by hand (:func:`fairalloc.scheduling.cdrf_greedy`): user 1 three times (0.1, 0.2, 0.3 <
    0.4), user 0 on the tie 0.4 = 0.4, then user 1 three times (0.5, 0.6, 0.7 < 0.8): 1 and 6 tasks.

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[10, 10]], [[4, 1], [1, 1]], tasks=[5, 10])
    >>> fa.cdrf(ti, method="greedy").tasks.ravel().tolist()
    [1, 6]
    """
    return dispatch("cdrf", instance, method, options, METHODS, DEFAULT_METHOD)
