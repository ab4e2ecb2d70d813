"""Task Share Fairness (TSF) on servers with placement constraints.

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
"""

from __future__ import annotations

from typing import Any, Mapping

from .._validation import require_choice
from ..model import TaskInstance
from ..result import AllocationResult

__all__ = ["tsf", "METHODS"]

METHODS = ("lp", "milp")


def tsf(instance: TaskInstance, /, *, method: str = "lp", solver: str | None = None,
        options: Mapping[str, Any] | None = None, **kwargs: Any) -> AllocationResult:
    r"""TSF: maximise the task shares :math:`x_i / (w_i h_i)` lexicographically, on servers with placement.

    Parameters
    ----------
    instance : TaskInstance
    method : {"lp", "milp"}
        ``"lp"``: divisible tasks (fractional ``tasks``), progressive filling by LPs
        (:func:`fairalloc.exact.tsf_lp.tsf_lp`; ``solver`` an LP backend). ``"milp"``: indivisible
        tasks, exact leximin (:func:`fairalloc.exact.tasks_leximin` with ``mechanism="tsf"``;
        further keywords such as ``time_limit`` go there).
    solver, options : backend choice and options, passed through.

    Returns
    -------
    AllocationResult
        ``tasks`` (n_agents, n_servers), ``shares`` (task shares), ``dominant_shares``, ``allocation``.

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
    method = require_choice("method", method, METHODS)
    if not isinstance(instance, TaskInstance):
        raise TypeError(f"instance must be a fairalloc.TaskInstance, got {type(instance).__name__}")
    if method == "lp":
        from ..exact.tsf_lp import tsf_lp

        return tsf_lp(instance, solver=solver, options=options, **kwargs)
    from ..exact.tasks import tasks_leximin

    return tasks_leximin(instance, mechanism="tsf", solver=solver, options=options, **kwargs)
