"""Task Share Fairness (TSF) on servers with placement constraints.

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
"""

from __future__ import annotations

from typing import Any

from ..model import TaskInstance
from ..result import AllocationResult
from ._front_door import Method, dispatch

__all__ = ["tsf", "METHODS", "DEFAULT_METHOD"]

#: (instance type, method) -> implementation. ``tasks``: float64 for "lp" (divisible), int64 otherwise.
METHODS = {
    (TaskInstance, "lp"): Method("lp", "fairalloc.exact.tsf_lp:tsf_lp", tasks_dtype="float64",
                                 summary="divisible tasks, progressive filling by LPs"),
    (TaskInstance, "milp"): Method("milp", "fairalloc.exact.tasks:tasks_leximin", {"mechanism": "tsf"},
                                   tasks_dtype="int64", summary="exact leximin of indivisible tasks (MILPs)"),
    (TaskInstance, "greedy"): Method("greedy", "fairalloc.scheduling.tsf:tsf_greedy", tasks_dtype="int64",
                                     summary="TSF progressive filling of tasks"),
}
#: Default method per instance type.
DEFAULT_METHOD = {TaskInstance: "lp"}


def tsf(instance: TaskInstance, /, *, method: str | None = None, **options: Any) -> AllocationResult:
    r"""TSF: maximise the task shares :math:`x_i / (w_i h_i)` lexicographically, on servers with placement.

    Parameters
    ----------
    instance : TaskInstance
    method : {"lp", "milp", "greedy"}
        ==========  ==============================================================  ==============
        method      implementation                                                  ``tasks``
        ==========  ==============================================================  ==============
        "lp"        divisible tasks, LP progressive filling (default;               float64 (N, M)
                    :func:`fairalloc.exact.tsf_lp`)
        "milp"      indivisible tasks, exact leximin                                int64 (N, M)
                    (:func:`fairalloc.exact.tasks_leximin`, ``mechanism="tsf"``)
        "greedy"    TSF progressive filling of tasks                                int64 (N, M)
                    (:func:`fairalloc.scheduling.tsf_greedy`)
        ==========  ==============================================================  ==============
    **options
        The keywords of that method, checked before any work (``solver``, ``options``, ``rise_tol``
        for "lp"; those of ``tasks_leximin`` for "milp"; ``blocking``, ``server``, ``structure``
        for "greedy").

    Returns
    -------
    AllocationResult
        ``tasks`` (n_agents, n_servers) as in the table, ``shares`` (task shares),
        ``dominant_shares``, ``allocation``.

    Raises
    ------
    TypeError
        ``instance`` not a TaskInstance, or a keyword the method does not accept (the message names
        the keyword, the method and the accepted keywords).
    InvalidInstanceError
        Unknown ``method``, or ``options`` the backend rejects.

    Examples
    --------
    Two servers; user 0 may use only server 0, user 1 both. Each task needs one core; servers have
    4 and 2 cores; h = 6 for both. Divisible TSF equalises the task shares at 3/6 (user 0 gets 3
    tasks on server 0, user 1 gets 1 there and 2 on server 1):

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4], [2]], [[1], [1]], tasks=[10, 10], placement=[[1, 0], [1, 1]])
    >>> r = fa.tsf(ti)
    >>> r.shares.round(6).tolist(), r.tasks.sum(axis=1).round(6).tolist()
    ([0.5, 0.5], [3.0, 3.0])
    """
    return dispatch("tsf", instance, method, options, METHODS, DEFAULT_METHOD)
