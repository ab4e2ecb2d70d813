r"""TSF task filling: the user with the lowest task share gets its next task (placement-aware).

Task share fairness (TSF, Wang et al. 2016) measures a user by the fraction of its *monopoly*
tasks it runs: :math:`x_i / (w_i h_i)` with :math:`h_i = \sum_m \lfloor\min_r C_{mr}/d_{ir}\rfloor` the
tasks it could run alone on the whole cluster, server by server, ignoring placement
(:func:`fairalloc.shares.monopoly_tasks`, :func:`fairalloc.shares.task_shares`). The greedy fills by
that key: the active user with the lowest task share gets its next task on a server it may use and
where it fits (``server=``, default first fit); a user whose next task fits nowhere is set aside
for the rest of the round (``blocking="skip"``, TSF's progressive filling freezes users who cannot
grow; ``"stop"`` is available as for SDRF). Ties (equal task shares): ``ties="wait"`` (default) serves
the user whose oldest pending task has waited longest, then the lower index; ``ties="index"`` the
lower index only (:class:`~fairalloc.scheduling.TaskScheduler`); in a one-shot run (every task submitted at
once) both give the lower index.

Tasks of different sizes (a simulator's workload): each running task counts :math:`1/h(d)` with
:math:`h(d)` the monopoly count of *its* demand, so the share is :math:`\sum_{\text{running}} 1/h(d)
/ w_i`; with one task size per user it is the paper's :math:`x_i / (w_i h_i)`.

References
----------
.. [1] W. Wang, B. Li, B. Liang, J. Li, "Multi-resource fair sharing for datacenter jobs with
   placement constraints", SC 2016.
.. [2] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying discrete
   jobs with placement constraints", Chinese Journal on Internet of Things, 2024 (Eq. 4, TSF baseline).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import shares
from ..model import TaskInstance
from ..result import AllocationResult
from ._base import TaskScheduler, check_task_instance, one_shot

__all__ = ["TSFScheduler", "tsf_greedy"]


class TSFScheduler(TaskScheduler):
    """Incremental TSF task filling (module docstring); ``blocking`` defaults to ``"skip"``.

    Parameters
    ----------
    cluster : Cluster or array_like (M, K)
        Servers and capacities; the monopoly counts :math:`h` use them (placement ignored).
    n_users : int, optional
        Number of users (or give ``weights``).
    weights : array_like (N,), optional
        Positive weights (default ones).
    placement : array_like (N, M) of bool, optional
        Servers each user may use (default all).
    server : {"first_fit", "best_fit", "tvtsf"} or callable, default "first_fit"
    blocking : {"stop", "skip"}, default "skip"
    structure : {"live_tree", "resort", "heap"}, default "live_tree"
    ties : {"wait", "index"}, default "wait"
    time : float, default 0.0

    Raises
    ------
    InvalidInstanceError
        Bad shapes, weights or choices (naming the argument).

    Examples
    --------
    The example of :func:`tsf_greedy` (hand computation there), start by start:

    >>> s = TSFScheduler([[4, 4], [4, 4]], n_users=2, placement=[[1, 0], [1, 1]])
    >>> _ = s.submit(0, [1, 1], 8); _ = s.submit(1, [2, 2], 8)
    >>> [(st.user, st.server) for st in s.schedule()]
    [(0, 0), (1, 0), (0, 0), (1, 1), (1, 1)]
    """

    mechanism = "tsf"

    def _run_extra(self, demand: np.ndarray) -> float:
        return float(shares.monopoly_tasks(demand, self.cluster.capacities))

    def task_shares(self) -> np.ndarray:
        """(N,) every user's task share now (:func:`fairalloc.scheduling.keys.tsf_key`)."""
        return np.array([self._core.key(i) for i in range(self.n_users)])


def tsf_greedy(instance: TaskInstance, /, *, blocking: str = "skip", server: Any = "first_fit",
               structure: str = "live_tree") -> AllocationResult:
    r"""TSF progressive filling of tasks on a one-shot :class:`~fairalloc.TaskInstance`.

    ``shares`` are the task shares :math:`x_i / (w_i h_i)` (placement ignored in :math:`h_i`, as in
    the paper); ``tasks`` (N, M); status FEASIBLE.

    Parameters
    ----------
    instance : TaskInstance
        Cluster, per-user task demands and counts, weights, placement.
    blocking : {"stop", "skip"}, default "skip"
        Set a user whose task fits nowhere aside (``"skip"``) or end the round (``"stop"``).
    server : {"first_fit", "best_fit", "tvtsf"} or callable, default "first_fit"
    structure : {"live_tree", "resort", "heap"}, default "live_tree"

    Returns
    -------
    AllocationResult
        ``tasks`` (N, M), ``shares`` the task shares, ``details["monopoly"]`` the :math:`h_i`.

    Raises
    ------
    InvalidInstanceError
        ``instance`` is not a :class:`~fairalloc.TaskInstance`, or a bad choice.

    Examples
    --------
    Two servers <4, 4>; user 0 may only use server 0, user 1 both; unit tasks <1, 1> and <2, 2>:
    h = (8, 4). By hand: shares 0/8 and 0/4 tie, user 0 first (server 0); user 1 (0 < 1/8) on
    server 0; user 0 (1/8 < 1/4) fills server 0; user 0 (2/8 = 1/4, lower index) fits nowhere it may
    run and is set aside; user 1 gets server 1 twice.

    >>> import fairalloc as fa
    >>> ti = fa.TaskInstance([[4, 4], [4, 4]], [[1, 1], [2, 2]], tasks=[8, 8], placement=[[1, 0], [1, 1]])
    >>> r = tsf_greedy(ti)
    >>> r.tasks.tolist(), r.shares.tolist()
    ([[2, 0], [1, 2]], [0.25, 0.75])
    """
    check_task_instance(instance)
    sched = TSFScheduler(instance.cluster, weights=instance.weights, placement=instance.placement,
                         server=server, blocking=blocking, structure=structure)
    h = instance.monopoly
    w = instance.weights
    res = one_shot(sched, instance, shares_fn=lambda x: shares.task_shares(x, h, w))
    return res.replace(details={**res.details, "monopoly": h})
